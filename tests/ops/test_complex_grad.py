"""Gradients of complex tensors against PyTorch: the conjugate Wirtinger convention
(``mul``'s gradient for ``a`` is ``g * conj(b)``), first and second derivatives.

``check_op`` draws a random complex upstream gradient, which is the same as the loss
``(out * w).real.sum()`` for a fixed complex ``w``; the ``abs`` cases take ``out.abs().sum()``.
"""
import numpy as np
import pytest

import numtorch
from helpers import check_op, check_same

_rng = np.random.default_rng(7)


def c(*shape, lo=-1.5, hi=1.5):
    """Random complex128 values of ``shape`` (real and imaginary parts in [lo, hi))."""
    re = _rng.uniform(lo, hi, size=shape)
    im = _rng.uniform(lo, hi, size=shape)
    return (re + 1j * im).astype(np.complex128)


def r(*shape):
    return _rng.uniform(-1.5, 1.5, size=shape).astype(np.float64)


W = 0.3 - 0.7j  # a fixed complex weight for the ``abs`` losses

CASES = [
    # name, op, inputs (complex128 ones require grad)
    ("add", "add", c(3, 2), c(3, 2)),
    ("sub-alpha", lambda a, b: a.sub(b, alpha=2), c(3), c(3)),
    ("mul", "mul", c(3, 2), c(2)),
    ("mul-complex-scalar", lambda a: a * (0.5 - 2j), c(4)),
    ("mul-real-scalar", lambda a: a * 3.0, c(4)),
    ("mul-real-complex", "mul", r(3), c(3)),
    ("div", "div", c(3, 2), c(3, 2)),
    ("div-complex-scalar", lambda a: a / (1 + 2j), c(4)),
    ("rdiv-scalar", lambda a: 2.0 / a, c(4)),
    ("rdiv-complex-scalar", lambda a: (2 - 1j) / a, c(4)),
    ("div-real-complex", "div", r(3), c(3)),
    ("pow-scalar", lambda a: a ** 3, c(4)),
    ("pow-complex-scalar", lambda a: a ** (0.5 + 1j), c(4)),
    ("pow-tensor", "pow", c(4), c(4)),
    ("rpow-scalar", lambda a: 2.0 ** a, c(4)),
    ("square", "square", c(4)),
    ("exp", "exp", c(4)),
    ("exp2", "exp2", c(4)),
    ("expm1", "expm1", c(4)),
    ("log", "log", c(4)),
    ("log2", "log2", c(4)),
    ("log10", "log10", c(4)),
    ("log1p", "log1p", c(4)),
    ("sqrt", "sqrt", c(4)),
    ("rsqrt", "rsqrt", c(4)),
    ("reciprocal", "reciprocal", c(4)),
    ("sin", "sin", c(4)),
    ("cos", "cos", c(4)),
    ("tan", "tan", c(4)),
    ("sinh", "sinh", c(4)),
    ("cosh", "cosh", c(4)),
    ("tanh", "tanh", c(4)),
    ("asin", "asin", c(4)),
    ("acos", "acos", c(4)),
    ("atan", "atan", c(4)),
    ("asinh", "asinh", c(4)),
    ("acosh", "acosh", c(4)),
    ("atanh", "atanh", c(4)),
    ("sigmoid", "sigmoid", c(4)),
    ("neg", "neg", c(4)),
    ("abs", lambda a: (a.abs() * 1.0).sum(), c(4)),
    ("abs-weighted", "abs", c(3, 2)),
    ("sgn", "sgn", c(4)),
    ("real", lambda a: a.real, c(4)),
    ("imag", lambda a: a.imag, c(4)),
    ("conj", lambda a: a.conj() * 1, c(4)),
    ("angle", "angle", c(4)),
    ("polar", "polar", np.abs(r(4)) + 0.1, r(4)),
    ("complex", "complex", r(4), r(4)),
    ("view_as_real", lambda a: numtorch_or_torch(a).view_as_real(a), c(3)),
    ("addcmul", lambda a, b, d: a.addcmul(b, d, value=0.5), c(3), c(3), c(3)),
    ("addcdiv", lambda a, b, d: a.addcdiv(b, d, value=0.5), c(3), c(3), c(3)),
    ("lerp-tensor", lambda a, b, w: a.lerp(b, w), c(3), c(3), c(3)),
    ("sum", "sum", c(3, 2)),
    ("mean", lambda a: a.mean(0), c(3, 2)),
    ("prod", "prod", c(4)),
    ("prod-dim", lambda a: a.prod(1), c(3, 2)),
    ("cumsum", lambda a: a.cumsum(0), c(4)),
    ("cumprod", lambda a: a.cumprod(0), c(4)),
    ("mm", "mm", c(3, 2), c(2, 4)),
    ("bmm", "bmm", c(2, 3, 2), c(2, 2, 4)),
    ("matmul-nd", "matmul", c(2, 3, 2), c(2, 4)),
    ("matmul-vec", "matmul", c(3), c(3, 2)),
    ("mv", "mv", c(3, 2), c(2)),
    ("dot", "dot", c(3), c(3)),
    ("vdot", "vdot", c(3), c(3)),
    ("inner", "inner", c(2, 3), c(3)),
    ("outer", "outer", c(3), c(2)),
    ("addmm", lambda a, b, d: a.addmm(b, d, beta=0.5, alpha=2), c(3, 4), c(3, 2), c(2, 4)),
    ("addmv", lambda a, m, v: a.addmv(m, v, beta=0.5, alpha=2 - 1j), c(3), c(3, 2), c(2)),
    ("addr", lambda a, u, v: a.addr(u, v, alpha=1 + 1j), c(3, 2), c(3), c(2)),
    ("baddbmm", lambda a, b, d: a.baddbmm(b, d, alpha=0.5j), c(2, 3, 4), c(2, 3, 2),
     c(2, 2, 4)),
    ("addbmm", lambda a, b, d: a.addbmm(b, d, beta=2), c(3, 4), c(2, 3, 2), c(2, 2, 4)),
    ("linear", lambda x, w, b: numtorch_or_torch(x).nn.functional.linear(x, w, b),
     c(3, 2), c(4, 2), c(4)),
    ("prod-with-zero", "prod", np.array([1 + 1j, 0, 2 - 1j])),
    ("cumprod-with-zero", lambda a: a.cumprod(0), np.array([1 + 1j, 0, 2 - 1j, 0.5j])),
    ("mul-complex64", "mul", c(3).astype(np.complex64), c(3).astype(np.complex64)),
    ("cross", lambda a, b: numtorch_or_torch(a).linalg.cross(a, b), c(2, 3), c(2, 3)),
    ("logsumexp", lambda a: a.logsumexp(1), c(3, 2)),
    ("einsum", lambda a, b: numtorch_or_torch(a).einsum("ij,jk->ik", a, b), c(3, 2), c(2, 4)),
]


def numtorch_or_torch(t):
    """The library ``t`` belongs to (for module-level functions inside a case)."""
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


@pytest.mark.parametrize("op,inputs", [pytest.param(op, inputs, id=name)
                                       for name, op, *inputs in CASES])
def test_complex_grad(op, inputs):
    # NOTE: grad_fn names are not compared: PyTorch's ``z.real`` is a view (SelectBackward0)
    tol = 1e-5 if inputs[0].dtype == np.complex64 else 1e-8
    check_op(op, *inputs, grad_fn=False, rtol=tol, atol=tol / 100)


@pytest.mark.parametrize("name,fn", [
    ("mul", lambda lib, a, b: (a * b * W).abs().sum()),
    ("exp-abs", lambda lib, a, b: (a.exp() * b).abs().sum()),
    ("matmul-abs", lambda lib, a, b: (a.reshape(2, 2) @ b.reshape(2, 2)).abs().sum()),
    ("real-part", lambda lib, a, b: ((a * b).real * 2).sum()),
])
def test_complex_loss_grad(name, fn):
    """The gradient of a real loss of complex leaves (what an optimiser would use)."""
    a, b = c(4), c(4)

    def grads(lib):
        ta = lib.from_numpy(a.copy()).requires_grad_(True)
        tb = lib.from_numpy(b.copy()).requires_grad_(True)
        fn(lib, ta, tb).backward()
        return ta.grad, tb.grad
    check_same(grads)


def test_complex_grad_into_real_input_takes_real_part():
    """A complex gradient reaching a real leaf keeps its real part, with no warning."""
    x = r(3)
    w = c(3)

    def grads(lib):
        t = lib.from_numpy(x.copy()).requires_grad_(True)
        (t * lib.from_numpy(w.copy())).abs().sum().backward()
        return t.grad
    check_same(grads)


def test_real_conj_is_identity():
    """``conj`` of a real tensor is the tensor itself (no node on the real fast path)."""
    x = numtorch.ones(3, requires_grad=True)
    assert x.conj() is x
