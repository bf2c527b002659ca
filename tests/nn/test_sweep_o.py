"""Losses and activations sweep O against PyTorch, bit for bit where a training script prints:
softmax / log_softmax along the last dim to float32 rounding (the backward's sum in vector order
and its multiply-subtract fused; PyTorch's exp is SLEEF's); nll_loss's backward in PyTorch's order
(w * -(g / total) for the mean), +0 for an ignored target (loss and gradient), no crash when
every target is ignored; nll_loss2d's sum in its kernel's order; an unreduced 3-d nll_loss is
a view; binary_cross_entropy's logs and gradient in PyTorch's order."""
import numpy as np
import pytest

import numtorch


def _bits(t):
    """A tensor's exact float32/float64 bits (so -0.0 and 0.0, and last bits, differ)."""
    a = np.ascontiguousarray(t.detach().numpy())
    return (str(a.dtype), a.shape, a.view(np.int32 if a.itemsize == 4 else np.int64).tolist())


def _value_and_grads(lib, f, arrays, grad_out=None):
    """f(lib, *tensors) and the gradient of each input (exact bits)."""
    xs = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
    y = f(lib, *xs)
    if grad_out is None:
        y.backward()
    else:
        y.backward(lib.from_numpy(grad_out.copy()))
    return [_bits(y)] + [_bits(x.grad) for x in xs]


def _same_bits(f, arrays, grad_out=None):
    torch = pytest.importorskip("torch")
    assert _value_and_grads(numtorch, f, arrays, grad_out) == \
        _value_and_grads(torch, f, arrays, grad_out)


# ---- softmax / log_softmax: vector-order sums, the fused backward ----------------------
# NOTE: PyTorch's vectorised exp is SLEEF's expf, which misses the correctly rounded exp
# numtorch takes in ~9 % of elements (a replay of it cost 10x as much: docs/performance.md);
# values and gradients then agree to float32 rounding, most of them bit for bit
_SHAPES = [(64, 10), (16, 3), (8, 100), (3, 1000), (2, 3, 17)]


def _close_bits(f, arrays, grad_out, share=0.6):
    """Values and gradients within float32 rounding of PyTorch's (a gradient's cancellation
    in g - exp(out) * sum(g) may scale an exp's ulp up), most of them bit for bit."""
    torch = pytest.importorskip("torch")
    mine = _value_and_grads(numtorch, f, arrays, grad_out)
    ref = _value_and_grads(torch, f, arrays, grad_out)
    for (dt, shape, m), (rdt, rshape, r) in zip(mine, ref):
        assert (dt, shape) == (rdt, rshape)
        m, r = np.array(m, np.int32), np.array(r, np.int32)
        assert (m == r).mean() >= share
        mf, rf = m.view(np.float32), r.view(np.float32)
        np.testing.assert_allclose(mf, rf, rtol=1e-6, atol=1e-6 * float(np.abs(rf).max()))


@pytest.mark.parametrize("shape", _SHAPES)
def test_softmax_last_dim_to_rounding(torch, shape):
    rs = np.random.RandomState(sum(shape))
    x = (rs.randn(*shape) * 3).astype(np.float32)
    g = rs.randn(*shape).astype(np.float32)
    _close_bits(lambda lib, x: lib.nn.functional.softmax(x, -1), [x], g)


@pytest.mark.parametrize("shape", _SHAPES)
def test_log_softmax_last_dim_to_rounding(torch, shape):
    rs = np.random.RandomState(sum(shape))
    x = (rs.randn(*shape) * 3).astype(np.float32)
    g = rs.randn(*shape).astype(np.float32)
    _close_bits(lambda lib, x: lib.nn.functional.log_softmax(x, -1), [x], g)


# ---- cross_entropy / nll_loss backward ------------------------------------------------
def _ce(weight=None, ignore=None, reduction="mean", scale=1.0):
    def f(lib, x):
        t = lib.tensor([2, 0, 1, 2, 1, 0, 2, 1])
        if ignore is not None:
            t[ignore] = -100
        w = None if weight is None else lib.tensor(weight)
        loss = lib.nn.functional.cross_entropy(x, t, weight=w, reduction=reduction)
        return (loss.sum() if reduction == "none" else loss) * scale
    return f


@pytest.mark.parametrize("kw", [{}, {"scale": 0.3}, {"weight": [0.2, 0.9, 0.55]},
                                {"ignore": [0, 5]}, {"weight": [0.2, 0.9, 0.55], "ignore": [3]},
                                {"weight": [0.2, 0.9, 0.55], "reduction": "sum", "ignore": [1]},
                                {"weight": [0.2, 0.9, 0.55], "reduction": "none",
                                 "ignore": [1]}])
def test_cross_entropy_gradient_to_rounding(torch, kw):
    x = np.random.RandomState(3).randn(8, 3).astype(np.float32)
    _close_bits(_ce(**kw), [x], None)


@pytest.mark.parametrize("weight", [None, [1.0, 2.0, 3.0]])
def test_nll_loss_every_target_ignored(torch, weight):
    x = np.random.RandomState(0).randn(2, 3).astype(np.float32)

    def f(lib, x):
        w = None if weight is None else lib.tensor(weight)
        return lib.nn.functional.cross_entropy(x, lib.tensor([-100, -100]), weight=w)
    _same_bits(f, [x])   # nan, and zero gradients (it used to raise an IndexError)


def test_nll_loss_unreduced_ignored_is_plus_zero(torch):
    x = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    _same_bits(lambda lib, x: lib.nn.functional.nll_loss(
        x, lib.tensor([1, -100, 3]), reduction="none"), [x],
        np.ones(3, np.float32))


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss2d_sum_order(torch, reduction):
    rs = np.random.RandomState(2)
    x = rs.randn(4, 3, 9, 11).astype(np.float32)
    t = rs.randint(0, 3, (4, 9, 11))
    t[0, 0, :3] = -100
    _same_bits(lambda lib, x: lib.nn.functional.nll_loss(
        x, lib.from_numpy(t.copy()), weight=lib.tensor([0.3, 1.0, 0.7]),
        reduction=reduction), [x])


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 2, 2, 2)])
def test_nll_loss_unreduced_nd_is_a_view(torch, shape):
    def f(lib):
        x = lib.randn(*shape, requires_grad=True)
        t = lib.zeros((shape[0],) + shape[2:], dtype=lib.int64)
        out = lib.nn.functional.nll_loss(x, t, reduction="none")
        return type(out.grad_fn).__name__, tuple(out.shape)
    assert f(numtorch) == f(torch)


# ---- binary_cross_entropy -------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_bits(torch, reduction, weighted):
    rs = np.random.RandomState(4)
    x = rs.rand(6, 5).astype(np.float32)
    x[0, :2] = [1e-6, 1 - 1e-6]
    t = rs.rand(6, 5).round().astype(np.float32)
    w = rs.rand(5).astype(np.float32)

    def f(lib, x):
        loss = lib.nn.functional.binary_cross_entropy(
            x, lib.from_numpy(t.copy()), weight=lib.from_numpy(w.copy()) if weighted else None,
            reduction=reduction)
        return loss.sum() if reduction == "none" else loss
    _same_bits(f, [x])


# ---- triplet_margin_loss --------------------------------------------------------------
@pytest.mark.parametrize("shapes", [((4, 6), (4, 6), (4,)), ((4, 6), (6,), (4, 6)),
                                    ((6,), (4, 6), (4, 6))])
def test_triplet_margin_loss_needs_equal_dims(torch, shapes):
    from helpers import check_error
    check_error(lambda lib: lib.nn.functional.triplet_margin_loss(
        *[lib.ones(s) for s in shapes]))
