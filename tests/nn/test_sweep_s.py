"""nn layers sweep S against PyTorch: errors a training script meets (reflect padding's
dimension, ConvTranspose's output_size, max_unpool's output size and indices, embedding_bag's
offsets and indices, RNN input dims, LSTMCell's hidden pair, MultiheadAttention's shape
checks, interpolate's bicubic dims, fold / unfold's checks and dtypes), max pooling's +0.0
gradient, and empty max_unpool batches."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same


def _t(lib, *shape, dtype=None):
    """A deterministic float tensor of ``shape`` (the same values in both libraries)."""
    n = int(np.prod(shape))
    a = (np.sin(np.arange(n) * 1.3) * 2).reshape(shape).astype(np.float32)
    t = lib.from_numpy(a)
    return t if dtype is None else t.to(getattr(lib, dtype))


def _long(lib, values):
    return lib.tensor(values, dtype=lib.int64)


# ---- padding / convolution --------------------------------------------------------------
@pytest.mark.parametrize("shape, pad", [((1, 3, 3, 3), (3, 3, 3, 3)), ((1, 3, 3, 5), (3, 3, 3, 3)),
                                        ((3, 3, 5), (3, 3, 3, 3)),
                                        ((1, 3, 3, 5, 5), (3, 3, 3, 3, 3, 3)),
                                        ((1, 3, 5, 3, 5), (3, 3, 3, 3, 3, 3)),
                                        ((1, 3, 3), (1, 3))])
def test_reflect_pad_too_large_names_last_failing_dim_first(torch, shape, pad):
    check_error(lambda lib: lib.nn.functional.pad(_t(lib, *shape), pad, mode="reflect"))


def test_conv_reflect_padding_too_large(torch):
    def f(lib):
        lib.manual_seed(0)
        return lib.nn.Conv2d(3, 8, 5, padding=3, padding_mode="reflect")(_t(lib, 1, 3, 3, 3))
    check_error(f)


@pytest.mark.parametrize("size", [(8, 8), (9, 9), [1, 2, 8, 8], [2, 8, 8], [8], (10, 10)])
@pytest.mark.parametrize("batched", [True, False])
def test_conv_transpose_output_size(torch, size, batched):
    def f(lib):
        lib.manual_seed(0)
        c = lib.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
        x = _t(lib, 1, 3, 4, 4) if batched else _t(lib, 3, 4, 4)
        return tuple(c(x, output_size=size).shape)
    try:
        f(torch)
    except Exception:  # noqa: BLE001 - then numtorch raises the same
        check_error(f)
        return
    check_same(f)


def test_conv_transpose1d_output_size_range_message(torch):
    check_error(lambda lib: lib.nn.ConvTranspose1d(3, 2, 4, stride=2, padding=1)(
        _t(lib, 1, 3, 5), output_size=[20]))


# ---- max pooling / unpooling ------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(kernel_size=3), dict(kernel_size=2, stride=2),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)])
def test_max_pool_gradient_misses_are_plus_zero(torch, kw):
    def f(lib):
        x = _t(lib, 2, 3, 11).requires_grad_()
        y = lib.nn.functional.max_pool1d(x, **kw)
        (y * y).sum().backward()
        return np.signbit(x.grad.numpy()).tolist(), x.grad.numpy().tolist()
    assert f(numtorch) == f(torch)


_UNPOOL_CASES = [
    ("max_unpool1d", (1, 1, 2), [[[0, 9]]], {}),
    ("max_unpool1d", (1, 1, 2), [[[0, -1]]], {}),
    ("max_unpool1d", (1, 1, 2), [[[0, 1, 2]]], {}),
    ("max_unpool1d", (2,), [0, 1], {}),
    ("max_unpool1d", (1, 1, 2), [[[0, 1]]], {"output_size": [1, 5]}),
    ("max_unpool1d", (1, 1, 2), [[[0, 1]]], {"output_size": [7]}),
    ("max_unpool2d", (1, 1, 2, 2), [[[[0, 1], [2, 100]]]], {}),
    ("max_unpool2d", (1, 1, 2, 2), [[[[0, 1], [2, 100]]]], {"output_size": [5, 6]}),
    ("max_unpool2d", (1, 1, 2, 2), [[[[0, 1], [2, 3]]]], {"output_size": (5,)}),
    ("max_unpool2d", (1, 1, 2, 2), [[[[0, 1], [2, 3]]]], {"output_size": [-1, 4]}),
    ("max_unpool2d", (2, 2), [[0, 1], [2, 3]], {}),
    ("max_unpool2d", (1, 1, 2, 2), [[[0, 1], [2, 3]]], {}),
    ("max_unpool2d", (1, 2, 0, 2), np.zeros((1, 2, 0, 2), np.int64), {}),
    ("max_unpool3d", (1, 2, 2), [[[0, 1], [2, 3]]], {}),
    ("max_unpool3d", (1, 1, 1, 2, 2), [[[[[0, 1], [2, -3]]]]], {}),
    ("max_unpool3d", (1, 1, 1, 2, 2), [[[[0, 1], [2, 3]]]], {}),
]


@pytest.mark.parametrize("fn, shape, idx, kw", _UNPOOL_CASES)
def test_max_unpool_errors(torch, fn, shape, idx, kw):
    check_error(lambda lib: getattr(lib.nn.functional, fn)(
        _t(lib, *shape), lib.from_numpy(np.array(idx, np.int64)), 2, **kw))


def test_max_unpool_integer_input_error(torch):
    check_error(lambda lib: lib.nn.functional.max_unpool2d(
        lib.arange(4).view(1, 1, 2, 2), lib.zeros(1, 1, 2, 2, dtype=lib.int64), 2))


@pytest.mark.parametrize("shape, kw", [((0, 1, 2, 2), {}), ((1, 1, 2, 2), {"padding": 1}),
                                       ((2, 3), {})])
def test_max_unpool_empty_and_unbatched(torch, shape, kw):
    def f(lib):
        x = _t(lib, *shape)
        idx = lib.zeros(shape, dtype=lib.int64)
        fn = lib.nn.functional.max_unpool2d if len(shape) == 4 else \
            lib.nn.functional.max_unpool1d
        k = 1 if kw else 2
        out = fn(x, idx, k, **kw)
        return tuple(out.shape), out.numpy().tolist()
    check_same(f)


def test_max_unpool1d_roundtrip_gradient(torch):
    def f(lib):
        x = _t(lib, 3, 4).requires_grad_()
        p, i = lib.nn.functional.max_pool1d(x, 2, return_indices=True)
        y = lib.nn.functional.max_unpool1d(p, i, 2)
        (y * lib.arange(4.0)).sum().backward()
        return y.detach().numpy().tolist(), x.grad.numpy().tolist(), y.grad_fn.name()
    check_same(f)


# ---- embedding_bag ----------------------------------------------------------------------
@pytest.mark.parametrize("inp, offsets", [([1, 2], [1]), ([1, 2], [0, 5]), ([1, 5], [0]),
                                          ([-1, 2], [0]), ([1, 2], [2]), ([1, 7], [3])])
def test_embedding_bag_offset_and_index_errors(torch, inp, offsets):
    check_error(lambda lib: lib.nn.functional.embedding_bag(
        _long(lib, inp), lib.arange(12.0).view(4, 3), _long(lib, offsets)))


def test_embedding_bag_int_offsets_error(torch):
    check_error(lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor([1, 2], dtype=lib.int32), lib.arange(12.0).view(4, 3),
        lib.tensor([1], dtype=lib.int32)))


# ---- recurrent layers -------------------------------------------------------------------
@pytest.mark.parametrize("name", ["RNN", "GRU", "LSTM"])
def test_rnn_input_dims_message(torch, name):
    def f(lib):
        class Mine(getattr(lib.nn, name)):
            pass
        return Mine(3, 2)(_t(lib, 1, 1, 1, 3))
    check_error(f)


def test_lstm_cell_needs_two_hidden_states(torch):
    check_error(lambda lib: lib.nn.LSTMCell(3, 4)(_t(lib, 2, 3), (_t(lib, 2, 4),)))


# ---- multi-head attention ---------------------------------------------------------------
def _mha(lib, kind):
    lib.manual_seed(0)
    kw = {"plain": {}, "bf": {"batch_first": True}, "sep": {"kdim": 4, "vdim": 6},
          "bias": {"add_bias_kv": True, "add_zero_attn": True}}[kind]
    return lib.nn.MultiheadAttention(8, 2, **kw)


_MHA_CASES = [
    ("plain", (4, 3, 8), (5, 3, 8), (4, 3, 8), {}),
    ("bf", (4, 3, 8), (5, 3, 8), (5, 2, 8), {}),
    ("bf", (4, 3, 8), (5, 2, 8), (5, 2, 8), {}),
    ("bf", (4, 3, 8), (3, 3, 8), (3, 3, 8), {"kpm": (4, 5)}),
    ("sep", (4, 3, 8), (5, 3, 4), (4, 3, 6), {}),
    ("sep", (4, 3, 8), (5, 2, 4), (5, 2, 6), {}),
    ("plain", (4, 3, 8), (5, 3, 8), (5, 3, 8), {"kpm": (3, 4)}),
    ("plain", (4, 3, 8), (5, 3, 8), (5, 3, 8), {"kpm": (2, 5)}),
    ("plain", (4, 3, 8), (5, 3, 8), (5, 3, 8), {"kpm": (3,)}),
    ("bias", (4, 3, 8), (5, 3, 8), (5, 3, 8), {"kpm": (3, 6)}),
    ("bias", (4, 3, 8), (5, 2, 8), (5, 2, 8), {}),
    ("plain", (4, 8), (5, 3, 8), (5, 3, 8), {}),
    ("plain", (4, 3, 8), (5, 8), (5, 3, 8), {}),
    ("plain", (1, 4, 3, 8), (5, 3, 8), (5, 3, 8), {}),
    ("plain", (4, 8), (5, 8), (5, 8), {"kpm": (3, 3)}),
    ("plain", (4, 3, 8), (5, 3, 8), (5, 3, 8), {"mask": (5,)}),
    ("plain", (4, 8), (5, 8), (5, 8), {"mask": (3, 4, 5)}),
    ("plain", (4, 3, 8), (5, 3, 8), (5, 3, 8), {"mask": (5, 4, 5)}),
]


@pytest.mark.parametrize("kind, q, k, v, masks", _MHA_CASES)
def test_multihead_attention_shape_errors(torch, kind, q, k, v, masks):
    def f(lib):
        m = _mha(lib, kind)
        kpm = masks.get("kpm")
        kpm = None if kpm is None else lib.zeros(kpm, dtype=lib.bool)
        mask = masks.get("mask")
        mask = None if mask is None else lib.zeros(mask)
        return m(_t(lib, *q), _t(lib, *k), _t(lib, *v), key_padding_mask=kpm, attn_mask=mask)
    check_error(f)


# ---- interpolate ------------------------------------------------------------------------
@pytest.mark.parametrize("shape, mode", [((1, 1, 5), "bicubic"), ((1, 1, 2, 2, 2), "bicubic"),
                                         ((1, 1, 5), "bilinear"), ((1, 1, 2, 2), "linear")])
def test_interpolate_wrong_dims_messages(torch, shape, mode):
    check_error(lambda lib: lib.nn.functional.interpolate(_t(lib, *shape), scale_factor=2,
                                                          mode=mode))


# ---- fold / unfold ----------------------------------------------------------------------
_UNFOLD_CASES = [((3, 4), 2, {}), ((3,), 2, {}), ((1, 1, 3, 3, 4), 2, {}), ((1, 0, 3, 4), 2, {}),
                 ((0, 3, 4), 2, {}), ((1, 1, 3, 4), 2, {"stride": 0}), ((1, 1, 3, 4), 0, {}),
                 ((1, 1, 3, 4), 2, {"padding": -1}), ((1, 1, 3, 4), 2, {"dilation": 0}),
                 ((1, 1, 3, 4), 2, {"stride": 0, "dilation": 0, "padding": -1}),
                 ((1, 1, 3, 4), (2, 2, 2), {}), ((1, 1, 3, 4), 2, {"padding": (1, 2, 3)}),
                 ((1, 1, 3, 4), 5, {"padding": 1, "dilation": 2}),
                 ((1, 1, 2, 8), (5, 5), {"stride": 2})]


@pytest.mark.parametrize("shape, k, kw", _UNFOLD_CASES)
def test_unfold_errors(torch, shape, k, kw):
    check_error(lambda lib: lib.nn.functional.unfold(_t(lib, *shape), k, **kw))


_FOLD_CASES = [((4,), (3, 3), 2, {}), ((0, 4), (3, 3), 2, {}), ((1, 1, 4, 4), (3, 3), 2, {}),
               ((1, 4, 4), (3, 3), 2, {"stride": 0}), ((1, 4, 4), (1, 1), 2, {}),
               ((1, 5, 4), (3, 3), 2, {}), ((1, 4, 5), (3, 3), 2, {}), ((1, 0, 4), (3, 3), 2, {}),
               ((1, 4, 4), 3, (2, 2, 2), {}), ((1, 4, 4), (3, 3, 3), 2, {}),
               ((1, 4, 4), (3, 3), 0, {"stride": 0, "dilation": 0, "padding": -1}),
               ((1, 4, 4), (3, 3), 2, {"stride": 0, "dilation": 0, "padding": -1}),
               ((1, 4, 4), (3, 3), 2, {"dilation": 0, "padding": -1}),
               ((1, 4, 1), (1, 1), 2, {"padding": 1})]


@pytest.mark.parametrize("shape, out, k, kw", _FOLD_CASES)
def test_fold_errors(torch, shape, out, k, kw):
    check_error(lambda lib: lib.nn.functional.fold(_t(lib, *shape), out, k, **kw))


@pytest.mark.parametrize("dtype", ["bool", "float64", "complex64", "int32", "int64", "uint8"])
def test_fold_unfold_dtypes(torch, dtype):
    def f(lib):
        F = lib.nn.functional
        u = F.unfold(lib.ones(1, 1, 3, 4, dtype=getattr(lib, dtype)), 2)
        return u, F.fold(u, (3, 4), 2)
    if dtype.startswith(("int", "uint")):
        check_error(f)
    else:
        check_same(f)


def test_fold_of_empty_batch(torch):
    check_same(lambda lib: lib.nn.functional.fold(lib.ones(0, 4, 4), (3, 3), 2).shape)
