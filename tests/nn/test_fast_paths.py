"""Fast paths of the loss, softmax, layer-norm and attention code against torch.

``check_op`` differentiates with ``create_graph=True``, which takes each op's Tensor formula;
``_first_order`` runs a plain ``backward()``, which takes the array fast paths. Both are
checked, with the cases the fast paths must hand off (weights, ignored targets, smoothing,
probabilities, reductions, K-dim inputs, float64, masks, need_weights).
"""
import numpy as np
import pytest

import numtorch
from helpers import assert_close, check_op

rng = np.random.default_rng(0)


def a(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _first_order(torch, fn, *arrays, rtol=None, atol=None):
    """fn(lib, *tensors) in both libraries; outputs and plain-backward gradients compared."""
    outs, grads = [], []
    for lib in (numtorch, torch):
        xs = [lib.from_numpy(x.copy()).requires_grad_(x.dtype.kind == "f") for x in arrays]
        out = fn(lib, *xs)
        up = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(
            str(out.dtype).replace("torch.", "").replace("numtorch.", ""))
        out.backward(lib.from_numpy(up))
        outs.append(out)
        grads.append([x.grad for x in xs if x.requires_grad])
    assert_close(outs[0], outs[1], rtol, atol, "output")
    for m, r in zip(*grads):
        assert_close(m, r, rtol, atol, "gradient")


def _ce(lib, x, t, **kw):
    return lib.nn.functional.cross_entropy(x, t, **kw)


def _nll(lib, x, t, **kw):
    return lib.nn.functional.nll_loss(x, t, **kw)


TARGETS = rng.integers(0, 5, 7)
TARGETS_IGNORED = np.where(np.arange(7) % 3 == 0, -100, TARGETS)
CE_CASES = [
    ({}, TARGETS),
    ({"reduction": "sum"}, TARGETS),
    ({"reduction": "none"}, TARGETS),
    ({}, TARGETS_IGNORED),
    ({"reduction": "none"}, TARGETS_IGNORED),
    ({"ignore_index": 2}, TARGETS),
    ({"label_smoothing": 0.2}, TARGETS),
    ({"label_smoothing": 0.1, "reduction": "sum"}, TARGETS_IGNORED),
]


@pytest.mark.parametrize("kw,targets", CE_CASES, ids=[str(i) for i in range(len(CE_CASES))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_class_indices(torch, kw, targets, dtype):
    x = a(7, 5, dtype=dtype)
    check_op(lambda x, t: _ce(numtorch if isinstance(x, numtorch.Tensor) else torch, x, t,
                              **kw), x, targets)
    _first_order(torch, lambda lib, x, t: _ce(lib, x, t, **kw), x, targets)


def test_cross_entropy_weights_probabilities_and_kdim(torch):
    w = np.abs(a(5)) + 0.1
    x = a(7, 5)
    weighted = lambda lib, x, t: _ce(lib, x, t, weight=lib.from_numpy(w))
    _first_order(torch, weighted, x, TARGETS)
    _first_order(torch, weighted, x, TARGETS_IGNORED)
    probs = np.abs(a(7, 5))
    _first_order(torch, lambda lib, x, p: _ce(lib, x, p), x, probs / probs.sum(1, keepdims=True))
    kdim = rng.integers(0, 5, (2, 3, 4))
    _first_order(torch, lambda lib, x, t: _ce(lib, x, t), a(2, 5, 3, 4), kdim)
    _first_order(torch, lambda lib, x, t: _ce(lib, x, t, reduction="none"), a(2, 5, 3, 4), kdim)
    _first_order(torch, lambda lib, x, t: _ce(lib, x, t), a(5), np.array(3))


def test_nll_loss_fast_path_matches_general_path(torch):
    x = a(9, 4)
    t = rng.integers(0, 4, 9)
    _first_order(torch, lambda lib, x, t: _nll(lib, x, t), x, t)
    _first_order(torch, lambda lib, x, t: _nll(lib, x, t, reduction="none"), x, t)
    _first_order(torch, lambda lib, x, t: _nll(lib, x, t, ignore_index=1), x, t)
    check_op(lambda x, t: (numtorch if isinstance(x, numtorch.Tensor) else torch)
             .nn.functional.nll_loss(x, t), x, t)


def test_cross_entropy_exact_float32_mean():
    # the fast path sums -x[i, t_i] and divides by n, exactly as the weighted path
    x = a(128, 10)
    t = rng.integers(0, 10, 128)
    fast = numtorch.nn.functional.cross_entropy(numtorch.tensor(x), numtorch.tensor(t))
    general = numtorch.nn.functional.cross_entropy(numtorch.tensor(x), numtorch.tensor(t),
                                                   weight=numtorch.ones(10))
    assert fast.item() == general.item()


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_first_and_second_order(torch, fn, dim):
    x = a(3, 4, 5)
    _first_order(torch, lambda lib, x: getattr(lib.nn.functional, fn)(x, dim), x)
    check_op(lambda x: getattr((numtorch if isinstance(x, numtorch.Tensor) else torch)
                               .nn.functional, fn)(x, dim), a(3, 4, dtype=np.float64))
    _first_order(torch, lambda lib, x: getattr(lib.nn.functional, fn)(x, 0), np.array(1.5))


@pytest.mark.parametrize("shape,normalized", [((4, 6), (6,)), ((2, 3, 4), (3, 4)),
                                              ((5, 8), (8,))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layer_norm_first_order(torch, shape, normalized, dtype):
    x, w, b = a(*shape, dtype=dtype), a(*normalized, dtype=dtype), a(*normalized, dtype=dtype)
    ln = lambda lib, x, w, b: lib.nn.functional.layer_norm(x, normalized, w, b)
    _first_order(torch, ln, x, w, b)
    _first_order(torch, lambda lib, x: lib.nn.functional.layer_norm(x, normalized), x)
    check_op(lambda x, w, b: (numtorch if isinstance(x, numtorch.Tensor) else torch)
             .nn.functional.layer_norm(x, normalized, w, b), x.astype(np.float64),
             w.astype(np.float64), b.astype(np.float64))


def _mha_pair(torch, **kw):
    numtorch.manual_seed(3)
    m = numtorch.nn.MultiheadAttention(8, 2, **kw)
    t = torch.nn.MultiheadAttention(8, 2, **kw)
    t.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})
    return {numtorch: m, torch: t}


MHA_CASES = [
    ({"batch_first": True}, {}),
    ({}, {}),
    ({"batch_first": True}, {"need_weights": False}),
    ({"batch_first": True}, {"average_attn_weights": False}),
    ({"batch_first": True, "bias": False}, {}),
    ({"batch_first": True, "add_bias_kv": True, "add_zero_attn": True}, {}),
]


@pytest.mark.parametrize("ctor,call", MHA_CASES, ids=[str(i) for i in range(len(MHA_CASES))])
def test_self_attention_packed_projection(torch, ctor, call):
    mods = _mha_pair(torch, **ctor)
    x = a(2, 5, 8) if ctor.get("batch_first") else a(5, 2, 8)

    def fn(lib, x):
        out, w = mods[lib](x, x, x, **call)
        return out if w is None else out + w.sum()
    _first_order(torch, fn, x, rtol=1e-5, atol=1e-5)


def test_attention_masks_shared_key_value_and_unbatched(torch):
    mods = _mha_pair(torch, batch_first=True)
    q, kv = a(2, 4, 8), a(2, 6, 8)
    mask = a(4, 6)
    kpm = np.where(np.array([[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]], bool), -np.inf,
                   0).astype(np.float32)

    def shared_kv(lib, q, kv, mask):
        return mods[lib](q, kv, kv, attn_mask=mask, key_padding_mask=lib.from_numpy(kpm))[0]
    _first_order(torch, shared_kv, q, kv, mask, rtol=1e-5, atol=1e-5)
    mask3 = np.zeros((4, 4, 4), bool)
    mask3[:, :, 3] = True
    mods_sf = _mha_pair(torch)

    def masked3(lib, x):
        return mods_sf[lib](x, x, x, attn_mask=lib.from_numpy(mask3))[0]
    _first_order(torch, masked3, a(4, 2, 8), rtol=1e-5, atol=1e-5)
    _first_order(torch, lambda lib, x: mods[lib](x, x, x)[0], a(3, 8), rtol=1e-5, atol=1e-5)


def test_self_attention_double_backward(torch):
    mods = _mha_pair(torch, batch_first=True)
    x = a(2, 3, 8, dtype=np.float64)
    for m in mods.values():
        m.double()
    check_op(lambda x: mods[numtorch if isinstance(x, numtorch.Tensor) else torch](x, x, x)[0],
             x, grad_fn=False)


def test_transformer_layer_step_matches_torch(torch):
    x = a(2, 6, 16)
    outs = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        layer = lib.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
        xt = lib.from_numpy(x.copy()).requires_grad_(True)
        layer(xt).pow(2).mean().backward()
        outs.append([xt.grad] + [p.grad for p in layer.parameters()])
    for m, r in zip(*outs):
        assert_close(m, r, 1e-4, 1e-5, "gradient")
