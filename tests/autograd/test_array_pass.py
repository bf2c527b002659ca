"""The engine's first-order array pass and its adoption of fresh gradients as ``.grad``.

Without ``create_graph``, built-in ops with an ``_np_backward`` hand each other gradients as
bare ndarrays; a leaf's first gradient, when nothing but the engine holds its array, becomes
``.grad`` without a copy (PyTorch's AccumulateGrad steals such a gradient too). Both must be
invisible: the same bits as the Tensor formulas, and no ``.grad`` that shares memory with
anything a user can reach.
"""
import numpy as np
import pytest

import numtorch
from numtorch.autograd.function import Function
from numtorch.ops import elementwise as E

from helpers import check_same


def _leaf(*shape, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return numtorch.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)


def _mixed(x, w, b):
    # every op family with an array backward: unary, Add, Mul, T, addmm, mm, permute,
    # softmax, log_softmax, nll
    h = numtorch.nn.functional.linear(x.sin() * 1.5 + 0.25, w, b)
    h = (h.tanh() * h).exp() - 1.0
    h = h.mm(w).permute(1, 0).t() + h.softmax(1).sum()
    return numtorch.nn.functional.cross_entropy(h.log_softmax(1)[:, :3].relu() * x[:, :3],
                                                numtorch.tensor([0, 2, 1, 1]))


def _views(x, w, b):
    # view, reshape (a copy: transposed input), squeeze, unsqueeze, expand, select, basic
    # indexing, sum over dims and over all
    h = x.t().reshape(20).view(4, 5) * w[1:].sum(0, keepdim=True)
    h = h.unsqueeze(0).expand(3, 4, 5).sum(0) + b.unsqueeze(0).squeeze(0)
    return (h[1:, ::2].exp() * h.select(1, 2)[1:, None]).sum() + h.sum(1).tanh().sum()


def _arith(x, w, b):
    # sub (tensors, number), div (by a number, by a broadcast tensor), mean over dims and all
    h = (x - 0.5) / 3.0 - w[:4] / (b.abs() + 1.0)
    return (h.exp() - h.mean(1, keepdim=True)).mean() + (h / 7).mean(0).sum()


@pytest.mark.parametrize("fn", [_mixed, _views, _arith], ids=["mixed", "views", "arith"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_array_pass_gives_the_tensor_formulas_bits(fn, dtype):
    leaves = [_leaf(4, 5, dtype=dtype), _leaf(5, 5, seed=1, dtype=dtype),
              _leaf(5, seed=2, dtype=dtype)]
    fn(*leaves).backward()
    # create_graph runs every Tensor formula instead (and records them)
    formulas = numtorch.autograd.grad(fn(*leaves), leaves, create_graph=True)
    for t, f in zip(leaves, formulas):
        assert t.grad.dtype == f.dtype
        np.testing.assert_array_equal(t.grad.numpy(), f.detach().numpy())


def test_array_pass_matches_torch(torch):
    def fn(lib):
        rng = np.random.default_rng(0)
        x, w, b = (lib.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True)
                   for s in ((4, 5), (5, 5), (5,)))
        h = lib.nn.functional.linear(x.sin() * 1.5 + 0.25, w, b)
        h = (h.tanh() * h).exp() - 1.0
        h = h.mm(w).permute(1, 0).t() + h.softmax(1).sum()
        lib.nn.functional.cross_entropy(h.log_softmax(1), lib.tensor([0, 2, 1, 1])).backward()
        return x.grad, w.grad, b.grad
    check_same(fn)


def test_leaves_fed_one_array_get_separate_grads():
    # Add's array backward hands the same array to both inputs: at most one may adopt it
    x, y = _leaf(3), _leaf(3, seed=1)
    (x + y).sum().backward()
    assert not np.shares_memory(x.grad.numpy(), y.grad.numpy())
    x.grad.add_(1)
    np.testing.assert_array_equal(y.grad.numpy(), np.ones(3, np.float32))


def test_a_seed_gradient_is_never_adopted():
    x = _leaf(3)
    seed = numtorch.full((3,), 2.0)
    (x + 0.5).backward(seed)
    assert not np.shares_memory(x.grad.numpy(), seed.numpy())
    x.grad.mul_(10)
    np.testing.assert_array_equal(seed.numpy(), np.full(3, 2, np.float32))


def test_a_gradient_a_hook_keeps_is_never_adopted():
    x = _leaf(3)
    kept = []
    x.register_hook(lambda g: kept.append(g))
    (x * 3.0).sum().backward()
    assert not np.shares_memory(x.grad.numpy(), kept[0].numpy())


def test_adopted_grads_accumulate_and_keep_the_leaf_layout(torch):
    def fn(lib):
        rng = np.random.default_rng(0)
        lib.manual_seed(0)
        lin = lib.nn.Linear(6, 4)
        x = lib.tensor(rng.standard_normal((3, 6)).astype(np.float32))
        for _ in range(2):  # the second backward adds into the adopted first .grad
            lin(x).square().sum().backward()
        g = lin.weight.grad
        return g, lin.bias.grad, g.is_contiguous(), g.stride()
    check_same(fn)


def test_a_builtin_subclass_overriding_backward_drops_the_array_form():
    class Doubled(E.Mul):
        @staticmethod
        def backward(ctx, g):
            return g * 0.0 + 7.0, None

    assert E.Mul._np_fast is not None and Doubled._np_fast is None
    x = _leaf(2)
    Doubled.apply(x, 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(2, 7, np.float32))


def test_user_functions_have_no_array_form_and_get_tensors():
    seen = []

    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            seen.append(type(g))
            return g * 2

    assert Twice._np_fast is None
    x = _leaf(3)
    Twice.apply(x.sin() * 1.5).exp().sum().backward()
    assert seen == [numtorch.Tensor]


def test_a_user_backward_returning_an_ndarray_still_raises():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.numpy()

    x = _leaf(3)
    with pytest.raises(RuntimeError, match=r"expected Variable or None \(got numpy.ndarray\)"):
        Bad.apply(x.sin()).sum().backward()


def test_everything_user_facing_gets_tensors(torch):
    # captures of autograd.grad, tensor hooks, retained grads and nodes with several outputs
    # (split's backward) receive Tensors, whatever passed between the ops before them
    def fn(lib):
        x = lib.tensor([0.5, -1.0, 2.0, 0.25], requires_grad=True)
        h = (x.sin() * 2.0).exp()
        seen = []
        h.register_hook(lambda g: seen.append(type(g).__name__ == "Tensor") or g * 3.0)
        a, b = (h + 1.0).split(2)
        m = a.tanh()
        m.retain_grad()
        out = (m * b).sum() + (m * m).sum()
        gx, gh = lib.autograd.grad(out, [x, h], retain_graph=True)
        out.backward(inputs=[x])
        return gx, gh, x.grad, m.grad, seen
    check_same(fn)


def test_array_pass_under_anomaly_mode_reports_nan():
    x = numtorch.tensor([-1.0, 4.0], requires_grad=True)
    with pytest.warns(UserWarning), numtorch.autograd.detect_anomaly():
        y = x.sqrt()  # NaN at -1, and its backward 0.5 / sqrt(x) too
        with pytest.raises(RuntimeError, match="'SqrtBackward0' returned nan values"):
            y.sum().backward()


def test_fresh_gradients_are_adopted_without_a_copy(monkeypatch):
    # a performance property: every parameter of a Linear stack gets its first .grad
    # without the copy (engine._leaf_grad's reference counts match the loop's references)
    import numtorch._tensor as T
    copies = []
    real = T._grad_copy
    monkeypatch.setattr(T, "_grad_copy", lambda g, var: copies.append(g.shape) or real(g, var))
    numtorch.manual_seed(0)
    nn = numtorch.nn
    model = nn.Sequential(nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 3))
    x = numtorch.randn(6, 5)
    nn.functional.cross_entropy(model(x), numtorch.tensor([0, 1, 2, 0, 1, 2])).backward()
    assert copies == []
    assert all(p.grad is not None for p in model.parameters())
