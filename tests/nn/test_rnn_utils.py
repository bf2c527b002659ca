"""``nn.utils.rnn`` and packed-sequence RNNs against PyTorch: values, lengths, permutations,
gradients, grad_fn names, second derivatives (numerically) and errors."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, numerical_grad_check, plain

R = numtorch.nn.utils.rnn
RNG = np.random.RandomState(0)
LENGTHS = {"sorted": [5, 3, 3, 1], "unsorted": [2, 5, 1, 4]}


def _seqs(lib, lengths, features=3, grad=True, dtype=np.float32):
    rng = np.random.RandomState(sum(lengths))
    return [lib.tensor(rng.randn(n, features).astype(dtype), requires_grad=grad)
            for n in lengths]


def _grads(tensors):
    return [t.grad for t in tensors]


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True}, {"padding_value": -1.5},
                                    {"padding_side": "left", "batch_first": True}],
                         ids=["default", "batch_first", "value", "left"])
def test_pad_sequence(torch, kwargs):
    def run(lib):
        seqs = _seqs(lib, [2, 4, 1])
        out = lib.nn.utils.rnn.pad_sequence(seqs, **kwargs)
        (out * lib.arange(out.numel()).reshape(out.shape)).sum().backward()
        return out, out.grad_fn.name(), _grads(seqs)
    check_same(run)


@pytest.mark.parametrize("order", ["sorted", "unsorted"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_and_pad_round_trip(torch, order, batch_first):
    def run(lib):
        seqs = _seqs(lib, LENGTHS[order])
        padded = lib.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first)
        packed = lib.nn.utils.rnn.pack_padded_sequence(
            padded, lib.tensor(LENGTHS[order]), batch_first=batch_first,
            enforce_sorted=order == "sorted")
        back, lengths = lib.nn.utils.rnn.pad_packed_sequence(
            packed, batch_first=batch_first, padding_value=7.0, total_length=6)
        (back * back).sum().backward()
        return (packed.data, packed.batch_sizes, packed.sorted_indices,
                packed.unsorted_indices, packed.data.grad_fn.name(), back, lengths,
                back.grad_fn.name(), _grads(seqs))
    check_same(run)


@pytest.mark.parametrize("order", ["sorted", "unsorted"])
def test_pack_and_unpack_sequence(torch, order):
    def run(lib):
        seqs = _seqs(lib, LENGTHS[order], grad=False)
        packed = lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=order == "sorted")
        return repr(packed), lib.nn.utils.rnn.unpack_sequence(packed)
    check_same(run)


def test_unpad_sequence_transposes_in_place(torch):
    def run(lib):
        padded = lib.arange(12.).reshape(3, 2, 2)
        parts = lib.nn.utils.rnn.unpad_sequence(padded, lib.tensor([3, 1]))
        return parts, padded.shape, padded.stride()
    check_same(run, exact=True)


def test_packed_sequence_methods(torch):
    def run(lib):
        p = lib.nn.utils.rnn.pack_sequence([lib.ones(2, 1), lib.ones(1, 1)])
        q = lib.nn.utils.rnn.PackedSequence(lib.zeros(3, 2), lib.tensor([2, 1]),
                                            lib.tensor([1, 0]))
        return (p.double().data.dtype, p.long().data.dtype, p.to(lib.float32) is p,
                p.cpu() is p, p.is_cuda, p.is_pinned(), q.unsorted_indices, p._fields,
                type(p).__name__, lib.nn.utils.rnn.invert_permutation(lib.tensor([2, 0, 1])))
    check_same(run, exact=True)


def test_pack_pad_second_derivatives():
    def f(x):
        packed = R.pack_padded_sequence(x, [3, 2, 1])
        return R.pad_packed_sequence(packed, total_length=4)[0].pow(2)
    numerical_grad_check(f, [RNG.randn(3, 3, 2)])


def test_pad_sequence_second_derivatives():
    def f(a, b):
        return R.pad_sequence([a, b], batch_first=True).pow(3)
    numerical_grad_check(f, [RNG.randn(3, 2), RNG.randn(1, 2)])


# ---- recurrent layers on packed input ---------------------------------------------------------
MODULES = [
    ("LSTM", {}), ("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True}),
    ("GRU", {"num_layers": 2, "bidirectional": True}), ("GRU", {"batch_first": True}),
    ("RNN", {"nonlinearity": "relu", "bidirectional": True}), ("RNN", {"bias": False}),
]


def _hidden_tuple(h):
    return h if isinstance(h, tuple) else (h,)


@pytest.mark.parametrize("mode,kwargs", MODULES, ids=[f"{m}{i}" for i, (m, _) in
                                                      enumerate(MODULES)])
@pytest.mark.parametrize("order", ["sorted", "unsorted"])
def test_rnn_on_packed_input(torch, mode, kwargs, order):
    def run(lib):
        lib.manual_seed(0)
        m = getattr(lib.nn, mode)(3, 4, **kwargs)
        seqs = _seqs(lib, LENGTHS[order])
        out, h = m(lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=order == "sorted"))
        padded, lengths = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        hs = _hidden_tuple(h)
        (padded.pow(2).sum() + sum((x * x.sum()).sum() for x in hs)).backward()
        return (type(out).__name__, padded, lengths, out.batch_sizes, hs,
                [type(x.grad_fn).__name__ for x in hs], _grads(seqs),
                [p.grad for p in m.parameters()])
    check_same(run)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_rnn_packed_with_initial_state_and_dropout(torch, mode):
    def run(lib):
        lib.manual_seed(3)
        m = getattr(lib.nn, mode)(3, 4, num_layers=2, dropout=0.5)
        seqs = _seqs(lib, LENGTHS["unsorted"])
        h0 = lib.randn(2, 4, 4, requires_grad=True)
        hx = (h0, lib.randn(2, 4, 4)) if mode == "LSTM" else h0
        out, h = m(lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False), hx)
        padded = lib.nn.utils.rnn.pad_packed_sequence(out)[0]
        (padded.sum() + _hidden_tuple(h)[0].pow(2).sum()).backward()
        return padded, _hidden_tuple(h), h0.grad, _grads(seqs)
    check_same(run)


def test_packed_matches_padded_for_full_lengths(torch):
    """Equal lengths: the packed run is the padded run."""
    numtorch.manual_seed(0)
    m = numtorch.nn.GRU(3, 4, bidirectional=True)
    x = numtorch.randn(5, 2, 3)
    out, h = m(R.pack_padded_sequence(x, [5, 5]))
    ref, href = m(x)
    assert np.allclose(R.pad_packed_sequence(out)[0].detach().numpy(),
                       ref.detach().numpy(), atol=1e-6)
    assert np.allclose(h.detach().numpy(), href.detach().numpy(), atol=1e-6)


ERRORS = [
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2, 1), [1, 2]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2, 1), [0, 0],
                                                      enforce_sorted=False),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2, 1), [1, 2, 3]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2, 1),
                                                      lib.tensor([[2, 1]])),
    lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
        lib.nn.utils.rnn.pack_sequence([lib.ones(3), lib.ones(2)]), total_length=2),
    lambda lib: lib.nn.utils.rnn.pad_sequence([]),
    lambda lib: lib.nn.utils.rnn.pad_sequence([lib.ones(2)], padding_side="middle"),
    lambda lib: lib.nn.GRU(2, 3)(lib.nn.utils.rnn.PackedSequence(lib.zeros(2, 3, 2),
                                                                 lib.tensor([2, 1]))),
    lambda lib: lib.nn.GRU(2, 3)(lib.nn.utils.rnn.pack_sequence([lib.ones(2, 3)])),
    lambda lib: lib.nn.RNN(2, 3)(lib.nn.utils.rnn.pack_sequence([lib.ones(2, 2)]),
                                 lib.zeros(1, 2, 3)),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(fn):
    check_error(fn)


def test_plain_helper_sees_packed_sequences_as_tuples(torch):
    p = R.pack_sequence([numtorch.ones(1)])
    assert plain(p)[1] == ("tensor", "int64", (1,), [1])


# A packed LSTM skips PyTorch's Python checks: its kernel's own messages, in its order.
def _lstm_packed(hx, lengths=(3, 2), features=2, **kwargs):
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.LSTM(2, 3, **kwargs)
        seqs = [lib.randn(n, features) for n in lengths]
        return m(lib.nn.utils.rnn.pack_sequence(seqs), None if hx is None else hx(lib))
    return run


LSTM_PACKED_ERRORS = [
    _lstm_packed(None, features=5),
    _lstm_packed(lambda lib: (lib.zeros(1, 3, 3), lib.zeros(1, 3, 3))),
    _lstm_packed(lambda lib: (lib.zeros(1, 2, 3), lib.zeros(1, 3, 3))),
    _lstm_packed(lambda lib: (lib.zeros(1, 1, 3), lib.zeros(1, 2, 3))),
    _lstm_packed(lambda lib: (lib.zeros(1, 2, 4), lib.zeros(1, 2, 4))),
    _lstm_packed(lambda lib: (lib.zeros(1, 2, 4), lib.zeros(1, 2, 3))),
    _lstm_packed(lambda lib: (lib.zeros(2, 2, 3), lib.zeros(2, 2, 3))),
    _lstm_packed(lambda lib: (lib.zeros(1, 2, 3), lib.zeros(1, 2, 3)), bidirectional=True),
    _lstm_packed(lambda lib: (lib.zeros(2, 3), lib.zeros(2, 3))),
    _lstm_packed(lambda lib: (lib.zeros(1, 2, 3),)),
    _lstm_packed(lambda lib: (lib.zeros(1, 2, 3, dtype=lib.float64), lib.zeros(1, 2, 3))),
    _lstm_packed(lambda lib: (lib.zeros(1, 2, 3), lib.zeros(1, 2, 3)), proj_size=2),
]


@pytest.mark.parametrize("fn", LSTM_PACKED_ERRORS,
                         ids=[str(i) for i in range(len(LSTM_PACKED_ERRORS))])
def test_lstm_packed_errors(fn):
    check_error(fn)


@pytest.mark.parametrize("hx", [lambda lib: (lib.zeros(1, 2, 3), lib.ones(1, 1, 3)),
                                lambda lib: (lib.zeros(1, 2, 3), lib.ones(2, 2, 3))],
                         ids=["one_row_c0", "extra_c0_layer"])
def test_lstm_packed_accepts_what_the_kernel_reads(torch, hx):
    """A one-row c0 broadcasts over the batch, and c0 layers past h0's go unread."""
    check_same(lambda lib: _lstm_packed(hx)(lib)[1])


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("lengths", [(3, 3), (3, 2), (2,)])
def test_packed_output_grad_fn(torch, mode, lengths):
    """A float32 LSTM over equally long sequences runs as a padded batch in PyTorch."""
    def run(lib):
        lib.manual_seed(0)
        m = getattr(lib.nn, mode)(2, 3, num_layers=2, bidirectional=True)
        x = lib.nn.utils.rnn.pack_sequence([lib.randn(n, 2) for n in lengths])
        out, h = m(x)
        h = h[0] if mode == "LSTM" else h
        out.data.sum().backward()
        return (out.data, out.data.grad_fn.name(), h, h.grad_fn.name(),
                m.weight_hh_l1_reverse.grad)
    check_same(run)
