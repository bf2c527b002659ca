"""Activation gradients select per element as PyTorch's kernels do (regression tests).

Before, most activation backwards multiplied by 0/1 masks: a flat position gave -0. for a
negative incoming gradient and NaN for an infinite or NaN one, and elu/selu/celu gave NaN at
x = 200 (exp overflowing in the unused branch, inf * 0). Here every activation's first and
second derivative is compared with PyTorch's on inputs covering negatives, +-0, the
breakpoints exactly, +-200, +-1e30, +-inf and NaN, and on incoming gradients including
negatives, +-0, +-inf and NaN, in float32 and float64:

- ``EXACT`` ops: bit for bit (NaN payloads aside) and ``str()`` of the gradient;
- the others (transcendental kernels, whose last bits differ from PyTorch's vectorised
  ones): the same kind of value per element (NaN, +-inf, +-0, sign) and close otherwise.

NOTE: the tensors have 6 * 32 elements so that PyTorch runs its vectorised CPU loop on all
of them; its scalar tail treats NaN inputs differently for some kernels (see
numtorch/ops/activation.py), and numtorch follows the vectorised loop.
"""
import numpy as np
import pytest

import numtorch

NAN, INF = float("nan"), float("inf")
_X = [-1e30, -200.0, -20.0, -7.0, -6.0, -5.0, -3.0, -2.0, -1.0, -0.5, -0.25, -0.0, 0.0, 0.25,
      0.5, 1.0, 2.0, 2.5, 3.0, 5.0, 6.0, 7.0, 20.0, 100.0, 200.0, 1e30, NAN, -INF, INF, -1.5,
      1.5, -100.0]
_G = [-3.0, 2.0, -INF, INF, NAN, -0.0]
X = _X * len(_G)                                  # every x meets every incoming gradient
G = [g for g in _G for _ in _X]
W = [(-2.0, INF, NAN, 0.5, -0.0)[i % 5] for i in range(len(X))]  # second-order gradient


def _f(lib):
    return lib.nn.functional


def _fresh(fn):
    """An in-place form applied to a non-leaf copy of x."""
    return lambda lib, x: fn(lib, x * 1)


def _seeded(lib, fn):
    lib.manual_seed(0)
    return fn()


ACTIVATIONS = {
    "relu6": lambda l, x: _f(l).relu6(x),
    "relu6_inplace": _fresh(lambda l, x: _f(l).relu6(x, inplace=True)),
    "hardtanh": lambda l, x: _f(l).hardtanh(x),
    "hardtanh_": _fresh(lambda l, x: _f(l).hardtanh_(x)),
    "hardtanh_bounds": lambda l, x: _f(l).hardtanh(x, -2.0, 5.0),
    "threshold": lambda l, x: _f(l).threshold(x, 1.0, -7.0),
    "threshold_": _fresh(lambda l, x: _f(l).threshold_(x, 1.0, -7.0)),
    "torch.threshold_": _fresh(lambda l, x: l.threshold_(x, 1.0, -7.0)),
    "hardswish": lambda l, x: _f(l).hardswish(x),
    "hardswish_inplace": _fresh(lambda l, x: _f(l).hardswish(x, inplace=True)),
    "hardsigmoid": lambda l, x: _f(l).hardsigmoid(x),
    "hardsigmoid_inplace": _fresh(lambda l, x: _f(l).hardsigmoid(x, inplace=True)),
    "softshrink": lambda l, x: _f(l).softshrink(x),
    "hardshrink": lambda l, x: _f(l).hardshrink(x, 1.0),
    "leaky_relu": lambda l, x: _f(l).leaky_relu(x, 0.1),
    "leaky_relu_": _fresh(lambda l, x: _f(l).leaky_relu_(x, 0.1)),
    "rrelu": lambda l, x: _f(l).rrelu(x),
    "rrelu_": _fresh(lambda l, x: _f(l).rrelu_(x)),
    "rrelu_training": lambda l, x: _seeded(l, lambda: _f(l).rrelu(x, training=True)),
    "torch.rrelu_training_": _fresh(lambda l, x: _seeded(l, lambda: l.rrelu_(x, training=True))),
    "prelu": lambda l, x: _f(l).prelu(x, l.tensor([0.25], dtype=x.dtype, requires_grad=True)),
    "elu": lambda l, x: _f(l).elu(x),
    "elu_": _fresh(lambda l, x: _f(l).elu_(x, 2.0)),
    "selu": lambda l, x: _f(l).selu(x),
    "torch.selu_": _fresh(lambda l, x: l.selu_(x)),
    "celu": lambda l, x: _f(l).celu(x, 1.5),
    "torch.celu_": _fresh(lambda l, x: l.celu_(x, 1.5)),
    "softplus": lambda l, x: _f(l).softplus(x),
    "softplus_beta": lambda l, x: _f(l).softplus(x, 2.0, 10.0),
    "logsigmoid": lambda l, x: _f(l).logsigmoid(x),
    "silu": lambda l, x: _f(l).silu(x),
    "mish": lambda l, x: _f(l).mish(x),
    "gelu": lambda l, x: _f(l).gelu(x),
    "gelu_tanh": lambda l, x: _f(l).gelu(x, approximate="tanh"),
    "glu": lambda l, x: _f(l).glu(l.stack([x, x.flip(0)]), 0),
    "tanhshrink": lambda l, x: _f(l).tanhshrink(x),
    "softsign": lambda l, x: _f(l).softsign(x),
    "sigmoid": lambda l, x: _f(l).sigmoid(x),
    "tanh": lambda l, x: _f(l).tanh(x),
    "relu": lambda l, x: _f(l).relu(x),
    "torch.relu_": _fresh(lambda l, x: l.relu_(x)),
}
EXACT = {"relu6", "relu6_inplace", "hardtanh", "hardtanh_", "hardtanh_bounds", "threshold",
         "threshold_", "torch.threshold_", "hardswish", "hardswish_inplace", "hardsigmoid",
         "hardsigmoid_inplace", "softshrink", "hardshrink", "leaky_relu", "leaky_relu_",
         "rrelu", "rrelu_", "rrelu_training", "torch.rrelu_training_", "prelu", "relu",
         "torch.relu_"}
# (celu_'s backward reads its result, alpha * expm1(x / alpha): where PyTorch's vectorised
# float64 expm1 (SLEEF's, not replayed) misses the C library's by an ulp, on some CPUs for
# these x, the gradient follows; compared within tolerance)
EXACT_FLOAT64 = {"elu", "elu_", "selu", "torch.selu_", "celu"}
EXACT_FLOAT64_FIRST = {"softplus", "softplus_beta"}
# PyTorch has no double backward for hardsigmoid_backward (numtorch's is zero in x)
NO_TORCH_DOUBLE_BACKWARD = {"hardsigmoid", "hardsigmoid_inplace"}
# Known differences that are not selection semantics (out of scope here), by (op, dtype,
# order): gelu's float32 kernel rounds cdf + x * pdf to 0 below x = -6 (so g = inf gives NaN);
# its, gelu_tanh's, glu's and mish's double backwards are PyTorch's own formulas, not the
# derivative of their backward; softsign's gradient goes through Div's backward, which PyTorch
# computes as -g * a / (b * b) (0 for x = 1e30 in float32); mish's float32 double backward
# is NaN at x = 100 in PyTorch, 0 here.
KNOWN = {("gelu", "float32", 1), ("gelu", "float32", 2), ("gelu", "float64", 2),
         ("gelu_tanh", "float32", 2), ("gelu_tanh", "float64", 2), ("glu", "float32", 2),
         ("glu", "float64", 2), ("mish", "float32", 2), ("mish", "float64", 2),
         ("softsign", "float32", 1), ("softsign", "float32", 2), ("softsign", "float64", 2)}
_INT = {"float32": np.int32, "float64": np.int64}


def _gradients(lib, name, dtype, order):
    """x's gradient (order 1) or the gradients of <x's gradient, W> in x and in the incoming
    gradient (order 2, computed with create_graph=True), as arrays (None: not connected)."""
    dt = getattr(lib, dtype)
    x = lib.tensor(X, dtype=dt, requires_grad=True)
    y = ACTIVATIONS[name](lib, x)
    g = lib.tensor(G[:y.numel()], dtype=dt).reshape(y.shape).requires_grad_(order == 2)
    gx, = lib.autograd.grad(y, x, g, create_graph=order == 2)
    if order == 1:
        return [gx.detach().numpy().copy()], str(gx.detach())
    outs = lib.autograd.grad(gx, [x, g], lib.tensor(W, dtype=dt), allow_unused=True)
    return [None if t is None else t.detach().numpy().copy() for t in outs], None


def _canon(a):
    """NaN payloads (and signs) aside; a gradient that is not connected reads as +0."""
    return np.where(np.isnan(a), np.nan, a)


def _kinds(a):
    return np.select([np.isnan(a), np.isinf(a), a == 0], [0, 1, 2], 3) * 2 + np.signbit(a)


def _assert_same(a, b, dtype, exact):
    a, b = (np.zeros_like(b) if a is None else a), (np.zeros_like(a) if b is None else b)
    a, b = _canon(a), _canon(b)
    if exact:
        bad = a.view(_INT[dtype]) != b.view(_INT[dtype])
    else:
        finite = np.isfinite(a) & np.isfinite(b)
        close = np.isclose(a, np.where(finite, b, 0), rtol=1e-2, atol=np.finfo(dtype).tiny)
        bad = (_kinds(a) != _kinds(b)) | (finite & ~close)
    where = np.nonzero(bad)[0][:5]
    assert not bad.any(), [(X[i % len(X)], G[i], W[i], a[i], b[i]) for i in where]


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_gradient_matches_torch(name, dtype, order, torch):
    if (name, dtype, order) in KNOWN:
        pytest.xfail("a known last-bits difference, not selection semantics")
    if order == 2 and name in NO_TORCH_DOUBLE_BACKWARD:
        pytest.skip("PyTorch: derivative for aten::hardsigmoid_backward is not implemented")
    exact = name in EXACT or dtype == "float64" and (
        name in EXACT_FLOAT64 or order == 1 and name in EXACT_FLOAT64_FIRST)
    ours, ours_str = _gradients(numtorch, name, dtype, order)
    theirs, theirs_str = _gradients(torch, name, dtype, order)
    for a, b in zip(ours, theirs):
        if a is not None or b is not None:
            _assert_same(a, b, dtype, exact)
    if exact:
        assert ours_str == theirs_str


@pytest.mark.parametrize("how", ["elu", "selu", "celu", "ELU"])
def test_elu_gradient_at_200_is_not_nan(how, torch):
    """The reported case: exp(200) = inf in the unused branch gave inf * 0 = NaN."""
    def run(lib):
        x = lib.tensor([-200.0, -5.0, -1.0, -0.5, 0.0, 0.5, 1.0, 5.0, 7.0, 200.0],
                       requires_grad=True)
        f = lib.nn.ELU() if how == "ELU" else getattr(lib.nn.functional, how)
        f(x).backward(lib.full((10,), -3.0))
        return x.grad
    ours, theirs = run(numtorch), run(torch)
    assert not ours.isnan().any()
    assert ours[-1].item() == theirs[-1].item()
    assert str(ours[-3:]) == str(theirs[-3:])


def test_double_backward_keeps_x_in_the_graph(torch):
    """hardtanh's gradient depends on x (as zeros), as in PyTorch: grad of it works."""
    def run(lib):
        x = lib.tensor([-2.0, 0.5, 2.0], requires_grad=True)
        gx, = lib.autograd.grad(lib.nn.functional.hardtanh(x).sum(), x, create_graph=True)
        assert gx.requires_grad
        gx.sum().backward()
        return x.grad.numpy()
    np.testing.assert_array_equal(run(numtorch), run(torch))


@pytest.mark.parametrize("name", ["relu_", "sigmoid_", "tanh_", "selu", "selu_", "celu",
                                  "celu_", "threshold", "threshold_", "rrelu", "rrelu_",
                                  "prelu", "hardshrink"])
def test_torch_level_activation(name, torch):
    args = {"threshold": (1.0, -7.0), "threshold_": (1.0, -7.0),
            "prelu": ("w",)}.get(name, ())

    def run(lib):
        x = lib.tensor([-2.0, -0.5, 0.0, 0.75, 3.0])
        lib.manual_seed(0)
        a = [lib.tensor([0.25]) if v == "w" else v for v in args]
        out = getattr(lib, name)(x, *a)
        return out.numpy(), x.numpy()
    (a, xa), (b, xb) = run(numtorch), run(torch)
    np.testing.assert_allclose(a, b, rtol=1e-6)  # sigmoid and tanh: last bits may differ
    np.testing.assert_allclose(xa, xb, rtol=1e-6)


def test_rrelu_generator_and_bounds(torch):
    def run(lib):
        g = lib.Generator().manual_seed(5)
        return lib.rrelu(lib.tensor([-1.0, 2.0, -3.0, NAN]), training=True, generator=g)
    np.testing.assert_array_equal(run(numtorch).numpy(), run(torch).numpy())
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal"):
        numtorch.nn.functional.rrelu(numtorch.tensor([-1.0]), 0.5, 0.1)
