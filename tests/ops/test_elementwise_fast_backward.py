"""The ndarray gradients of unary ops (``np_grad`` in ``ops/elementwise._unary``) and of
``Mul``: a plain backward runs them instead of the Tensor formula, so they must give the
formula's gradient bit for bit (NaN and the sign of zero included), leave the saved tensors
alone, and leave create_graph, double backward and the in-place errors as they were."""
import sys

import numpy as np
import pytest

import numtorch
from numtorch.ops import elementwise as E
from helpers import check_op, numerical_grad_check

FAST_OPS = sorted(name for name, v in vars(E).items()
                  if isinstance(v, type) and getattr(v, "_np_grad", None) is not None)
# every op a plain backward must differentiate on arrays (so none drops out unnoticed)
EXPECTED = {"Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cos", "Cosh", "Exp",
            "Exp2", "Expm1", "Log", "Log10", "Log1p", "Log2", "Neg", "Reciprocal", "Relu",
            "Rsqrt", "Sigmoid", "Sin", "Sinh", "Sqrt", "Square", "Tan", "Tanh"}
# negatives, signed zeros, tiny, large, out-of-domain, inf and nan: every op sees them all
VALUES = [-1e30, -50.0, -3.0, -1.0, -0.7, -1e-30, -0.0, 0.0, 1e-30, 0.3, 0.7, 1.0, 1.5,
          3.0, 50.0, 1e30, np.inf, -np.inf, np.nan]
DTYPES = [np.float32, np.float64]


def _grads(op, x_np, g_np):
    """(plain backward, create_graph backward, forward output) of ``op.apply`` at x."""
    x = numtorch.tensor(x_np, requires_grad=True)
    y = op.apply(x)
    g = numtorch.tensor(g_np)
    (plain,) = numtorch.autograd.grad(y, x, g, retain_graph=True)
    (graph,) = numtorch.autograd.grad(y, x, g, create_graph=True)
    return plain.numpy(), graph.detach().numpy(), y.detach().numpy()


def _bits(a):
    """The array's bytes, so that NaN == NaN and -0.0 != 0.0."""
    return np.ascontiguousarray(a).view(np.uint8 if a.ndim == 0 else
                                        {4: np.uint32, 8: np.uint64}[a.itemsize])


def test_every_hot_unary_op_has_an_array_gradient():
    assert set(FAST_OPS) == EXPECTED


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("name", FAST_OPS)
def test_array_gradient_is_bit_identical(name, dtype):
    op = getattr(E, name)
    x = np.array(VALUES, dtype)
    g = np.random.default_rng(0).uniform(-2, 2, x.shape).astype(dtype)
    g[:3] = [0.0, -0.0, np.inf]
    with np.errstate(all="ignore"):
        plain, graph, y = _grads(op, x, g)
        direct = op._np_grad(g, x, y)  # its formula on arrays, called directly
    np.testing.assert_array_equal(_bits(plain), _bits(graph), err_msg=name)
    np.testing.assert_array_equal(_bits(plain), _bits(np.asarray(direct)), err_msg=name)
    assert plain.dtype == dtype


@pytest.mark.parametrize("name", FAST_OPS)
def test_array_gradient_zero_dim(name):
    op = getattr(E, name)
    with np.errstate(all="ignore"):
        plain, graph, _ = _grads(op, np.array(0.3, np.float32), np.array(-1.5, np.float32))
    assert plain.shape == () and plain.dtype == np.float32
    np.testing.assert_array_equal(_bits(plain), _bits(graph))


@pytest.mark.parametrize("name", FAST_OPS)
def test_plain_backward_skips_the_tensor_formula(name):
    op = getattr(E, name)
    called = set()

    def profile(frame, event, arg):
        if event == "call":
            called.add(frame.f_code)

    x = numtorch.tensor([0.3, 0.6], requires_grad=True)
    y = op.apply(x)
    sys.setprofile(profile)
    try:
        y.backward(numtorch.ones(2), retain_graph=True)
    finally:
        sys.setprofile(None)
    assert op._grad.__code__ not in called
    assert op._np_grad.__code__ in called


@pytest.mark.parametrize("name", FAST_OPS)
def test_saved_tensors_are_not_overwritten(name):
    op = getattr(E, name)
    x = numtorch.tensor([0.3, 0.6, 0.9], dtype=numtorch.float64, requires_grad=True)
    y = op.apply(x)
    before_x, before_y = x.detach().numpy().copy(), y.detach().numpy().copy()
    first = numtorch.autograd.grad(y, x, numtorch.ones(3, dtype=numtorch.float64),
                                   retain_graph=True)[0]
    second = numtorch.autograd.grad(y, x, numtorch.ones(3, dtype=numtorch.float64))[0]
    np.testing.assert_array_equal(x.detach().numpy(), before_x)
    np.testing.assert_array_equal(y.detach().numpy(), before_y)
    np.testing.assert_array_equal(first.numpy(), second.numpy())


def _domain(name):
    """Inputs inside every op's domain (acosh needs x > 1) and away from kinks."""
    x = np.array([0.2, 0.45, 0.8])
    return x + 1.5 if name == "Acosh" else x


@pytest.mark.parametrize("name", FAST_OPS)
def test_double_backward_numerically(name):
    op = getattr(E, name)
    numerical_grad_check(op.apply, [_domain(name)], order=2)


@pytest.mark.parametrize("name", FAST_OPS)
def test_double_backward_against_torch(torch, name):
    check_op(name.lower(), _domain(name), gradgrad=True)


@pytest.mark.parametrize("name", ["Exp", "Sin", "Tanh"])
def test_in_place_change_of_a_saved_tensor_still_raises(name):
    op = getattr(E, name)
    x = numtorch.tensor([0.3, 0.6], requires_grad=True)
    a = x * 1
    y = op.apply(a)
    (y if op._uses == "out" else a).add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_freed_graph_still_raises():
    x = numtorch.tensor([0.3, 0.6], requires_grad=True)
    y = x.exp().sin()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.sum().backward()


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("other", [1.66, -2, 1e30, "tensor"])
def test_mul_gradient_is_bit_identical(dtype, other):
    x_np = np.array(VALUES, dtype)
    g = numtorch.tensor(np.random.default_rng(1).uniform(-2, 2, x_np.shape).astype(dtype))
    x = numtorch.tensor(x_np, requires_grad=True)
    b = numtorch.tensor(x_np[::-1].copy(), requires_grad=True) if other == "tensor" else other
    with np.errstate(all="ignore"):
        y = x * b
        inputs = (x, b) if other == "tensor" else (x,)
        plain = numtorch.autograd.grad(y, inputs, g, retain_graph=True)
        graph = numtorch.autograd.grad(y, inputs, g, create_graph=True)
    for p, q in zip(plain, graph):
        np.testing.assert_array_equal(_bits(p.numpy()), _bits(q.detach().numpy()))


def test_w1_chain_second_derivative_against_torch(torch):
    """The benchmark's cycle (mul, sin, tanh, exp, add), differentiated twice."""
    def cycle(lib, y):
        for _ in range(3):
            y = lib.exp(lib.tanh(lib.sin(y * 1.66))) + (-2.4)
        return y

    results = []
    for lib in (numtorch, torch):
        x = lib.tensor([-1.9, -1.8, -1.6, -1.5], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(cycle(lib, x).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10)
