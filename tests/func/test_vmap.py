"""vmap: results against PyTorch, which ops run batched (one NumPy call) rather than looped,
in_dims/out_dims/chunk_size/randomness, nesting, errors, and per-sample gradients."""
import time

import numpy as np
import pytest

import numtorch
from numtorch.func import _batch_rules, _vmap
from helpers import check_error, check_same

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")

RNG = np.random.default_rng(0)


def _b(*shape):
    return RNG.standard_normal(shape)


# functions of one sample (lib, *tensors) that vmap must batch without any per-sample loop
BATCHED = [
    ("unary", lambda t, x: x.exp().sin().tanh().sigmoid().abs().sqrt(), [_b(4, 3)]),
    ("binary_bcast_unbatched", lambda t, x, y: x * y + y / (x.abs() + 1) - 2 ** x,
     [_b(4, 3), None]),
    ("scalar_sample", lambda t, x, y: x * y, [_b(4), _b(4, 2)]),
    ("where_clamp", lambda t, x, y: t.where(y > 0, x, y).clamp(-0.5, 0.5), [_b(4, 3), None]),
    ("reductions", lambda t, x: t.stack([x.sum(), x.mean(), x.var(), x.amax(), x.prod(),
                                        x.logsumexp(0), x.norm()]), [_b(4, 3)]),
    ("dim_reductions", lambda t, x: x.sum(0) + x.mean(1).sum() + x.max(1).values.sum() +
     x.std(0), [_b(4, 2, 3)]),
    ("softmax_family", lambda t, x: t.softmax(x, -1) + t.log_softmax(x, 0) + x.cumsum(1),
     [_b(4, 2, 3)]),
    ("shape_ops", lambda t, x: x.t().reshape(-1).view(3, 2).permute(1, 0).flatten()
     .unsqueeze(0).expand(2, 6).squeeze()[:, 1:4].flip(0).roll(1, 1), [_b(4, 2, 3)]),
    ("cat_stack", lambda t, x, y: t.cat([x, y], 0) + t.stack([x, y]).sum(0).repeat(2, 1),
     [_b(4, 2, 3), _b(2, 3)]),
    ("indexing", lambda t, x: x[0] + x[:, 1].sum() + x[[1, 0]].sum(0) + x[1:, ::2].sum(),
     [_b(4, 2, 3)]),
    ("gather_select", lambda t, x: x.gather(1, t.tensor([[0, 2], [1, 1]])).sum() +
     x.index_select(1, t.tensor([2, 0])).sum(0).sum() + x.select(0, 1).narrow(0, 1, 2).sum(),
     [_b(4, 2, 3)]),
    ("matmul_family", lambda t, x, w, v: (x @ w).sum(0) + t.mv(w.t(), x[0]) + t.dot(v, v) +
     t.mm(x, w)[0] + t.addmm(v[:2], x, w)[1], [_b(4, 2, 3), _b(3, 2), _b(2)]),
    ("batched_matrices", lambda t, a, b: a @ b + t.matmul(a, b.transpose(0, 1)),
     [_b(4, 2, 2), _b(4, 2, 2)]),
    ("einsum", lambda t, x, y: t.einsum("ij,jk->ik", x, y), [_b(4, 2, 3), _b(3, 2)]),
    ("linear_activations", lambda t, x, w: t.nn.functional.gelu(t.nn.functional.linear(
        t.nn.functional.silu(x), w)).softmax(-1), [_b(4, 3), _b(2, 3)]),
    ("mse_loss", lambda t, x, y: t.nn.functional.mse_loss(x, y), [_b(4, 3), _b(4, 3)]),
    ("in_place", lambda t, x, y: _in_place(x, y), [_b(4, 2, 3), _b(4, 3)]),
    ("conv2d", lambda t, x, w: t.nn.functional.conv2d(x, w, padding=1, stride=2),
     [_b(4, 1, 2, 5, 5), _b(3, 2, 3, 3)]),
    ("conv1d_batched_weights", lambda t, x, w: t.nn.functional.conv1d(x, w, groups=2),
     [_b(4, 2, 4, 6), _b(4, 6, 2, 3)]),
    ("cross_entropy", lambda t, x: t.nn.functional.cross_entropy(x, t.tensor([1, 0])) +
     t.nn.functional.nll_loss(x.log_softmax(1), t.tensor([2, 1]), reduction="sum"),
     [_b(4, 2, 3)]),
]


def _in_place(x, y):
    z = x.clone()
    z.mul_(2).add_(y).exp_()
    z[0] = 5.0
    z[1, 1:].copy_(y[:2])
    return z


UNBATCHED = _b(3)


def _inputs(lib, arrays, batch=4):
    """Tensors for ``arrays`` (None: a fixed unbatched vector) and their in_dims."""
    out, dims = [], []
    for a in arrays:
        if a is None:
            out.append(lib.tensor(UNBATCHED))
            dims.append(None)
        elif a.shape[0] == batch:
            out.append(lib.tensor(a))
            dims.append(0)
        else:
            out.append(lib.tensor(a))
            dims.append(None)
    return out, tuple(dims)


@pytest.mark.parametrize("name,fn,arrays", BATCHED, ids=[c[0] for c in BATCHED])
def test_batched_without_loops(torch, name, fn, arrays):
    before_ops, before_fn = dict(_batch_rules.STATS), dict(_vmap.STATS)

    def run(lib):
        ins, dims = _inputs(lib, arrays)
        return lib.func.vmap(lambda *xs: fn(lib, *xs), in_dims=dims)(*ins)
    check_same(run)
    assert _batch_rules.STATS == before_ops, "an op ran once per sample"
    assert _vmap.STATS == before_fn, "the function ran once per sample"


@pytest.mark.parametrize("name,fn,arrays", BATCHED[:8], ids=[c[0] for c in BATCHED[:8]])
def test_batched_matches_loop_without_torch(name, fn, arrays):
    ins, dims = _inputs(numtorch, arrays)
    got = numtorch.func.vmap(lambda *xs: fn(numtorch, *xs), in_dims=dims)(*ins)
    for b in range(4):
        sample = [x[b] if d == 0 else x for x, d in zip(ins, dims)]
        np.testing.assert_allclose(got[b].numpy(), fn(numtorch, *sample).numpy(), rtol=1e-12)


# functions vmap cannot batch in one pass: it loops per sample and still gets PyTorch's answer
LOOPED = [
    ("comparison", lambda t, x: (x > 0).float() * x + (x == x.max()).float()),
    ("isnan_nan_to_num", lambda t, x: t.nan_to_num(x.log()) + t.isnan(x.log()).float()),
    ("argmax", lambda t, x: t.nn.functional.one_hot(x.argmax(), 3).float() * x),
]


@pytest.mark.parametrize("name,fn", LOOPED, ids=[c[0] for c in LOOPED])
def test_fallback_loop_is_correct(torch, name, fn):
    x = _b(5, 3)
    check_same(lambda lib: lib.func.vmap(lambda t: fn(lib, t))(lib.tensor(x)))


def test_per_sample_gradients_are_batched_and_fast():
    """vmap(grad) of a small MLP's loss: one batched pass, far faster than a loop."""
    nn, F = numtorch.nn, numtorch.func
    numtorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = numtorch.randn(64, 8), numtorch.randn(64, 4)

    def loss(p, xi, yi):
        return ((F.functional_call(model, p, (xi,)) - yi) ** 2).mean()
    per_sample = F.vmap(F.grad(loss), in_dims=(None, 0, 0))
    per_sample(params, x, y)
    before = dict(_batch_rules.STATS), dict(_vmap.STATS)
    t_vmap = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        got = per_sample(params, x, y)
        t_vmap = min(t_vmap, time.perf_counter() - t0)
    assert (dict(_batch_rules.STATS), dict(_vmap.STATS)) == before
    t0 = time.perf_counter()
    loop = [F.grad(loss)(params, x[i], y[i]) for i in range(64)]
    t_loop = time.perf_counter() - t0
    for k in params:
        assert got[k].shape == (64,) + tuple(params[k].shape)
        np.testing.assert_allclose(got[k][7].numpy(), loop[7][k].numpy(), rtol=1e-5,
                                   atol=1e-6)
    assert t_loop > 5 * t_vmap, (t_loop, t_vmap)


W = _b(3, 2)


def test_per_sample_cross_entropy_gradients(torch):
    def run(lib):
        F = lib.func
        w = lib.tensor(W, dtype=lib.float32)
        x = lib.tensor(np.arange(12.0).reshape(4, 3) / 10, dtype=lib.float32)
        y = lib.tensor([0, 1, 1, 0])

        def loss(w, xi, yi):
            return lib.nn.functional.cross_entropy((xi @ w).unsqueeze(0), yi.unsqueeze(0))
        return F.vmap(F.grad(loss), in_dims=(None, 0, 0))(w, x, y)
    before = dict(_batch_rules.STATS), dict(_vmap.STATS)
    check_same(run)
    assert (dict(_batch_rules.STATS), dict(_vmap.STATS)) == before


def test_per_sample_gradients_match_torch(torch):
    def run(lib):
        F = lib.func
        w = lib.tensor(W)
        x = lib.tensor(np.arange(12.0).reshape(4, 3) / 10)

        def loss(w, xi):
            return (xi @ w).tanh().sum()
        return F.vmap(F.grad(loss), in_dims=(None, 0))(w, x)
    check_same(run)


def test_dims_chunks_nesting_and_structures(torch):
    def run(lib):
        V = lib.func.vmap
        x = lib.tensor(np.arange(24.0).reshape(2, 3, 4))
        y = lib.tensor(np.arange(3.0))
        return (V(lambda a, b: a * b, in_dims=(1, None))(x, y[:2].reshape(2, 1)),
                V(lambda a: a.sum(0), in_dims=2, out_dims=0)(x),
                V(lambda a: a * 2, out_dims=1)(x),
                V(V(lambda a: a.sum()))(x),
                V(V(lambda a, b: a * b, in_dims=(0, None)), in_dims=(1, None))(x, y[0]),
                V(lambda d: {"s": d["a"] + d["b"], "t": (d["a"],)})({"a": x, "b": x}),
                V(lambda a: (a, a.sum()), out_dims=(1, 0))(x),
                V(lambda a, k=1: a * k, chunk_size=1)(x, k=3),
                V(lambda a: a.sum(), chunk_size=2)(x.reshape(6, 4)),
                V(lambda a: lib.ones(2))(x),
                V(lambda a: (a.sum(), 5.0), out_dims=(0, None))(x))
    check_same(run)


def test_randomness(torch):
    def run(lib, mode):
        lib.manual_seed(0)
        out = lib.func.vmap(lambda a: a + lib.rand(3), randomness=mode)(lib.zeros(2, 3))
        return (out[0] == out[1]).all()
    assert check_same(lambda lib: run(lib, "same"))
    assert not bool(run(numtorch, "different"))
    check_error(lambda lib: run(lib, "error"))
    check_error(lambda lib: run(lib, "sideways"))


def test_grad_through_vmap_and_backward_outside(torch):
    def run(lib):
        x = lib.tensor(np.arange(6.0).reshape(2, 3) / 5, requires_grad=True)
        y = lib.func.vmap(lambda a: (a.sin() * a).sum())(x)
        y.sum().backward()
        return y, x.grad
    check_same(run)


@pytest.mark.parametrize("case", [
    lambda V, t: V(t.sin, in_dims=1)(t.ones(3)),
    lambda V, t: V(t.sin, in_dims=(0, 0))(t.ones(3)),
    lambda V, t: V(t.add)(t.ones(3), t.ones(2)),
    lambda V, t: V(lambda a: a.sum())(5.0),
    lambda V, t: V(lambda a: a)(t.tensor(1.0)),
    lambda V, t: V(lambda a: 1.0)(t.ones(3)),
    lambda V, t: V(lambda a: None)(t.ones(3)),
    lambda V, t: V(t.sin, in_dims=None)(t.ones(3)),
    lambda V, t: V(lambda a: (a, a), out_dims=(0, 1, 2))(t.ones(3)),
    lambda V, t: V(t.sin, chunk_size=0)(t.ones(3)),
    lambda V, t: V(lambda: 1)(),
    lambda V, t: V(lambda a: a * a[0].item())(t.ones(3, 2)),
    lambda V, t: V(lambda a: a * float(a[0]))(t.ones(3, 2)),
    lambda V, t: V(lambda a: a[int(a[0])])(t.ones(3, 2)),
    lambda V, t: V(lambda a: a if a.sum() else -a)(t.ones(3, 2)),
    lambda V, t: V(lambda a, x: x.mul_(a), in_dims=(0, None))(t.ones(3, 2), t.ones(2)),
    lambda V, t: V(lambda a, x: x.copy_(a), in_dims=(0, None))(t.ones(3, 2), t.ones(2)),
    lambda V, t: V(lambda a: t.zeros(2).mul_(a))(t.ones(3, 2)),
], ids=["in_dim_range", "in_dims_structure", "sizes", "non_tensor", "zero_dim",
        "float_out", "none_out", "in_dims_none", "out_dims_structure", "chunk_size",
        "no_inputs", "item", "float", "int_index", "control_flow", "inplace_into_unbatched",
        "copy_into_unbatched", "inplace_into_new"])
def test_errors(torch, case):
    check_error(lambda lib: case(lib.func.vmap, lib))


def test_zero_dim_sample_does_not_promote(torch):
    def run(lib):
        x = lib.tensor([1.5, 2.5], dtype=lib.float64)
        y = lib.tensor([1.0, 2.0, 3.0])
        return lib.func.vmap(lambda a: a * y + a)(x)
    check_same(run)


def test_inplace_into_unbatched_leaves_it_unchanged(torch):
    """PyTorch refuses the write; running it once per sample would change ``x`` 3 times."""
    def run(lib):
        x = lib.ones(2)
        try:
            lib.func.vmap(lambda a: x.add_(a))(lib.ones(3, 2))
        except RuntimeError:
            pass
        return x
    check_same(run)


def test_unbatched_inplace_and_batched_inplace_still_work(torch):
    def run(lib):
        x = lib.ones(2)
        return (lib.func.vmap(lambda a: a.clone().mul_(x))(lib.ones(3, 2) * 2),
                lib.func.vmap(lambda a: x.clone().mul_(2) + a)(lib.ones(3, 2)))
    check_same(run)


def test_functools_partial_name_in_errors(torch):
    import functools
    check_error(lambda lib: lib.func.vmap(functools.partial(lib.add, other=1),
                                          in_dims=2)(lib.ones(3)))
