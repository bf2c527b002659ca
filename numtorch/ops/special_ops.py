"""Special functions (error, gamma, Bessel, orthogonal polynomials ...) on SciPy.

SciPy is imported on first use (``pip install scipy``). Values are computed in float64 and
returned in the input's floating dtype (integer and bool inputs give the default float dtype).
The differentiable ones write their derivative with other special functions, so second
derivatives work; the ones PyTorch leaves underivable (Bessel functions, polynomials) are
underivable here too.

This module holds the op classes and the functions PyTorch also has at top level
(``torch.erf``, ``torch.lgamma``, ``torch.polygamma`` ...); ``numtorch.special`` adds the rest.

>>> import numtorch as torch
>>> torch.erf(torch.tensor([0.0, 1.0]))
tensor([0.0000, 0.8427])
"""
import math
import re

import numpy as np

from .._tensor import Tensor
from ._base import BuiltinFunction
from ._util import float_np, result_np, cast, no_complex_kernel

_make = Tensor._make
_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)


def _scipy_special():
    """``scipy.special``, or an ImportError saying how to install it."""
    try:
        import scipy.special
    except ImportError:
        raise ImportError("numtorch's special functions (erf, lgamma, digamma, bessel ...) "
                          "need SciPy: pip install scipy") from None
    return scipy.special


def _scipy_linalg():
    """``scipy.linalg``, or an ImportError saying how to install it."""
    try:
        import scipy.linalg
    except ImportError:
        raise ImportError("numtorch's LU, geqrf and matrix_exp need SciPy: pip install scipy"
                          ) from None
    return scipy.linalg


def _compute(fn, *arrays, kernel=None):
    """``fn(scipy.special, *float64 arrays)`` as an ndarray in the operands' float dtype;
    complex operands get PyTorch's error naming ``kernel`` (its real-only kernel) if given."""
    dt = result_np(*arrays)
    if kernel is not None:
        no_complex_kernel(dt, kernel)
    dt = float_np(dt)
    args = [cast(a, dt).astype(np.float64) if type(a) is np.ndarray else float(a)
            for a in arrays]
    return np.asarray(fn(_scipy_special(), *args)).astype(dt)


# ---- unary ops ---------------------------------------------------------------------------
# PyTorch's kernel names where they are not the op's own name + "_cpu" (its error for a
# complex input names the kernel)
_KERNELS = {"Erf": "erf_vml_cpu", "Erfc": "erfc_vml_cpu", "Erfinv": "erfinv_vml_cpu",
            "Lgamma": "lgamma_vml_cpu", "I0": "i0_vml_cpu", "Digamma": "digamma",
            "Ndtr": "erf_vml_cpu"}


def _kernel(name):
    """'"modified_bessel_i0_cpu"' for op class name 'ModifiedBesselI0' (quoted, as PyTorch)."""
    return '"%s"' % _KERNELS.get(name, re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower() + "_cpu")


def _unary(name, bw, fn, grad=None):
    """An op class computing ``fn(sc, x)``; ``grad(g, x, out)`` is its derivative (Tensors),
    None for an op without one. Complex input is refused, as PyTorch's real-only kernels do."""
    kernel = _kernel(name)

    def forward(ctx, x):
        no_complex_kernel(result_np(x), kernel)
        out = _compute(fn, x)
        ctx.save_for_backward(x, out)
        return out

    def backward(ctx, g):
        if grad is None:
            raise RuntimeError(f"the derivative for '{name}' is not implemented.")
        x, out = ctx.saved_tensors
        return grad(g, x, out)

    return type(name, (BuiltinFunction,), {
        "_backward_name": bw, "__doc__": f"Elementwise special function {name}.",
        "forward": staticmethod(forward), "backward": staticmethod(backward),
        "__module__": __name__, "differentiable": grad is not None})


Erf = _unary("Erf", "ErfBackward0", lambda sc, x: sc.erf(x),
             lambda g, x, o: g * (x * x).neg().exp() * (2 / _SQRT_PI))
Erfc = _unary("Erfc", "ErfcBackward0", lambda sc, x: sc.erfc(x),
              lambda g, x, o: g * (x * x).neg().exp() * (-2 / _SQRT_PI))
Erfinv = _unary("Erfinv", "ErfinvBackward0", lambda sc, x: sc.erfinv(x),
                lambda g, x, o: g * (o * o).exp() * (_SQRT_PI / 2))
Erfcx = _unary("Erfcx", "SpecialErfcxBackward0", lambda sc, x: sc.erfcx(x),
               lambda g, x, o: g * (x * o * 2 - 2 / _SQRT_PI))
Lgamma = _unary("Lgamma", "LgammaBackward0", lambda sc, x: sc.gammaln(x),
                lambda g, x, o: g * digamma(x))
Digamma = _unary("Digamma", "DigammaBackward0", lambda sc, x: _digamma(sc, x),
                 lambda g, x, o: g * polygamma(1, x))
I0 = _unary("I0", "I0Backward0", lambda sc, x: sc.i0(x), lambda g, x, o: g * _i1(x))
I0e = _unary("I0e", "SpecialI0EBackward0", lambda sc, x: sc.i0e(x),
             lambda g, x, o: g * (_i1e(x) - x.sgn() * o))
I1 = _unary("I1", "SpecialI1Backward0", lambda sc, x: sc.i1(x),
            lambda g, x, o: g * _where0(x, 0.5, lambda s: i0(x) - o / s))
I1e = _unary("I1e", "SpecialI1EBackward0", lambda sc, x: sc.i1e(x),
             lambda g, x, o: g * _where0(x, 0.5, lambda s: _i0e(x) - o * (x.sgn() + 1 / s)))
Ndtr = _unary("Ndtr", "SpecialNdtrBackward0", lambda sc, x: sc.ndtr(x),
              lambda g, x, o: g * (x * x * -0.5).exp() / _SQRT_2PI)
Ndtri = _unary("Ndtri", "SpecialNdtriBackward0", lambda sc, x: sc.ndtri(x),
               lambda g, x, o: g * (o * o * 0.5).exp() * _SQRT_2PI)
LogNdtr = _unary("LogNdtr", "SpecialLogNdtrBackward0", lambda sc, x: sc.log_ndtr(x),
                 lambda g, x, o: g * (x * x * -0.5 - o).exp() / _SQRT_2PI)
Entr = _unary("Entr", "SpecialEntrBackward0", lambda sc, x: sc.entr(x),
              lambda g, x, o: g * -(x.log() + 1))


class Sinc(BuiltinFunction):
    """out = sin(pi x) / (pi x), 1 at 0 (real or complex x);
    dx = g * conj((pi x cos(pi x) - sin(pi x)) / (pi x^2)), 0 at 0."""
    _backward_name = "SincBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _sinc(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        d = _where0(x, 0.0, _sinc_grad)
        return g * (d.conj() if d._data.dtype.kind == "c" else d)

# no derivative in PyTorch either
BesselJ0 = _unary("BesselJ0", "SpecialBesselJ0Backward0", lambda sc, x: sc.j0(x))
BesselJ1 = _unary("BesselJ1", "SpecialBesselJ1Backward0", lambda sc, x: sc.j1(x))
BesselY0 = _unary("BesselY0", "SpecialBesselY0Backward0", lambda sc, x: _bessel_y(sc.y0, x))
BesselY1 = _unary("BesselY1", "SpecialBesselY1Backward0", lambda sc, x: _bessel_y(sc.y1, x))
ModifiedBesselI0 = _unary("ModifiedBesselI0", "SpecialModifiedBesselI0Backward0",
                          lambda sc, x: sc.i0(x))
ModifiedBesselI1 = _unary("ModifiedBesselI1", "SpecialModifiedBesselI1Backward0",
                          lambda sc, x: sc.i1(x))
ModifiedBesselK0 = _unary("ModifiedBesselK0", "SpecialModifiedBesselK0Backward0",
                          lambda sc, x: _bessel_k(sc.k0, x))
ModifiedBesselK1 = _unary("ModifiedBesselK1", "SpecialModifiedBesselK1Backward0",
                          lambda sc, x: _bessel_k(sc.k1, x))
ScaledModifiedBesselK0 = _unary("ScaledModifiedBesselK0",
                                "SpecialScaledModifiedBesselK0Backward0",
                                lambda sc, x: _bessel_k(sc.k0e, x))
ScaledModifiedBesselK1 = _unary("ScaledModifiedBesselK1",
                                "SpecialScaledModifiedBesselK1Backward0",
                                lambda sc, x: _bessel_k(sc.k1e, x))
SphericalBesselJ0 = _unary("SphericalBesselJ0", "SpecialSphericalBesselJ0Backward0",
                           lambda sc, x: _spherical_j0(x))
AiryAi = _unary("AiryAi", "SpecialAiryAiBackward0", lambda sc, x: sc.airy(x)[0])


def _digamma(sc, x):
    # NOTE: PyTorch gives -inf at 0 (either sign) and nan at negative integers
    out = sc.psi(x)
    return np.where(x == 0, -np.inf, out)


def _bessel_y(fn, x):
    # NOTE: y0/y1 are -inf at 0 and nan for x < 0, as in PyTorch
    return np.where(x < 0, np.nan, fn(x))


def _bessel_k(fn, x):
    return np.where(x < 0, np.nan, fn(x))


def _spherical_j0(x):
    with np.errstate(all="ignore"):
        return np.where(x == 0, 1.0, np.sin(x) / np.where(x == 0, 1.0, x))


def _where0(x, at_zero, value):
    """``value(x)`` with ``at_zero`` where x == 0; the formula (which divides by x) sees 1
    there, so neither it nor its derivative makes a NaN."""
    from .elementwise import where
    zero = x == 0
    return where(zero, at_zero, value(where(zero, 1.0, x)))


def _sinc(x):
    """sin(pi x) / (pi x) computed in the result's own dtype (float32 for float16 and integer
    input), as PyTorch does, so that e.g. sinc(1.) is float32's -2.78e-08, not 3.9e-17; np.sinc
    would drop the imaginary part of complex input."""
    dt = float_np(result_np(x))
    work = np.float32 if dt == np.float16 else dt
    xw = x.astype(work)
    zero = xw == 0
    px = xw * np.array(math.pi, work)
    with np.errstate(all="ignore"):  # overflow of sin for large |imag| gives inf/nan, silently
        out = np.sin(px) / np.where(zero, 1, px)
    return np.where(zero, 1, out).astype(dt)


def _sinc_grad(x):
    """d sinc / dx away from 0, written as one fraction so that float32 rounds as PyTorch's."""
    px = x * math.pi
    return (px * px.cos() - px.sin()) / (px * x)


def _unary_fn(cls, name):
    def fn(input, *, out=None):
        from .elementwise import _out
        return _out(out, cls.apply(input))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of ``input`` (SciPy)."
    return fn


erf = _unary_fn(Erf, "erf")
erfc = _unary_fn(Erfc, "erfc")
erfinv = _unary_fn(Erfinv, "erfinv")
lgamma = _unary_fn(Lgamma, "lgamma")
digamma = _unary_fn(Digamma, "digamma")
i0 = _unary_fn(I0, "i0")
sinc = _unary_fn(Sinc, "sinc")
# the torch.special-only ones (re-exported by numtorch.special without the prefix)
_i0e = _unary_fn(I0e, "_i0e")
_i1 = _unary_fn(I1, "_i1")
_i1e = _unary_fn(I1e, "_i1e")


class Polygamma(BuiltinFunction):
    """out = polygamma(n, x);  dx = g * polygamma(n + 1, x)."""
    _backward_name = "PolygammaBackward0"

    @staticmethod
    def forward(ctx, x, n):
        ctx.n = n
        ctx.save_for_backward(x)
        no_complex_kernel(result_np(x), '"digamma"' if n == 0 else
                          '"trigamma"' if n == 1 else '"polygamma"')
        if n == 0:
            return _compute(_digamma, x)
        return _compute(lambda sc, v: sc.polygamma(n, v), x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * polygamma(ctx.n + 1, x), None


def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of the digamma function."""
    from .elementwise import _out
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _out(out, Polygamma.apply(input, int(n)))


class Mvlgamma(BuiltinFunction):
    """out = multivariate log-gamma of order p;  dx = g * sum_j digamma(x - j/2)."""
    _backward_name = "MvlgammaBackward0"

    @staticmethod
    def forward(ctx, x, p):
        # NOTE: PyTorch 2.13 no longer checks the domain (x > (p-1)/2): outside it the
        # result is whatever lgamma gives (inf at the poles)
        if x.dtype.kind == "b":
            raise RuntimeError("The input tensor may not be a boolean tensor.")
        no_complex_kernel(x.dtype, '"arange_cpu"')  # (PyTorch builds its offsets in x's dtype)
        ctx.p = p
        ctx.save_for_backward(x)
        const = p * (p - 1) / 4 * math.log(math.pi)
        return _compute(lambda sc, v: sum(sc.gammaln(v - j / 2) for j in range(p)) + const, x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        total = digamma(x)
        for j in range(1, ctx.p):
            total = total + digamma(x - j / 2)
        return g * total, None


def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma function of dimension ``p``."""
    from .elementwise import _out
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return _out(out, Mvlgamma.apply(input, int(p)))


# ---- binary ops ----------------------------------------------------------------------------
def _save_pair(ctx, a, b):
    ctx.save_for_backward(a if type(a) is np.ndarray else None,
                          b if type(b) is np.ndarray else None)
    ctx.scalars = (a, b)


def _pair(ctx):
    a, b = ctx.saved_tensors
    return (ctx.scalars[0] if a is None else a), (ctx.scalars[1] if b is None else b)


class Xlog1py(BuiltinFunction):
    """out = x * log1p(y) (0 where x == 0);  dx = log1p(y), dy = x / (1 + y)."""
    _backward_name = "SpecialXlog1PyBackward0"

    @staticmethod
    def forward(ctx, a, b):
        _save_pair(ctx, a, b)
        return _compute(lambda sc, x, y: np.where((x == 0) & ~np.isnan(y), 0.0,
                                                  sc.xlog1py(x, y)), a, b,
                        kernel='"xlog1py_cpu"')

    @staticmethod
    def backward(ctx, g):
        from .elementwise import where, log1p
        a, b = _pair(ctx)
        na, nb = ctx.needs_input_grad[:2]
        ga = gb = None
        if na:
            ga = g * (log1p(b) if isinstance(b, Tensor) else math.log1p(b))
            if isinstance(a, Tensor) and (isinstance(b, Tensor) or b <= -1):
                ga = where((a == 0) & (b <= -1), 0.0, ga)
        if nb:
            gb = g * a / (b + 1)
        return ga, gb


class Zeta(BuiltinFunction):
    """out = Hurwitz zeta(x, q);  dq = -x * zeta(x + 1, q) (no derivative in x)."""
    _backward_name = "SpecialZetaBackward0"

    @staticmethod
    def forward(ctx, a, b):
        _save_pair(ctx, a, b)
        return _compute(lambda sc, x, q: sc.zeta(x, q), a, b, kernel='"zeta_cpu"')

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        if ctx.needs_input_grad[0]:
            raise RuntimeError("the derivative for 'self' is not implemented.")
        return None, g * -a * _zeta(a + 1, b)


class Igamma(BuiltinFunction):
    """out = regularized lower incomplete gamma P(a, x);  dx = exp(-x) x^(a-1) / Gamma(a)."""
    _backward_name = "IgammaBackward0"
    _sign = 1.0

    @classmethod
    def forward(cls, ctx, a, b):
        _save_pair(ctx, a, b)
        fn = (lambda sc, s, x: sc.gammainc(s, x)) if cls._sign > 0 else \
            (lambda sc, s, x: sc.gammaincc(s, x))
        kernel = '"igamma_cpu"' if cls._sign > 0 else '"igammac_cpu"'
        return _compute(fn, a, b, kernel=kernel)

    @classmethod
    def backward(cls, ctx, g):
        a, x = _pair(ctx)
        if ctx.needs_input_grad[0]:
            raise RuntimeError("the derivative for 'input' is not implemented.")
        from .elementwise import exp, log
        lg = lgamma(a) if isinstance(a, Tensor) else math.lgamma(a)
        dens = exp((a - 1) * log(x) - x - lg)
        return None, g * dens * cls._sign


class Igammac(Igamma):
    _backward_name = "IgammacBackward0"
    _sign = -1.0


def _binary_apply(cls, input, other, name):
    from .elementwise import operand, _make as make
    input, other = operand(input, name), operand(other, name)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = make(np.asarray(input, result_np(input)), None, False)
    return cls.apply(input, other)


def igamma(input, other, *, out=None):
    """The regularized lower incomplete gamma function P(input, other)."""
    from .elementwise import _out
    return _out(out, _binary_apply(Igamma, input, other, "igamma"))


def igammac(input, other, *, out=None):
    """The regularized upper incomplete gamma function Q(input, other)."""
    from .elementwise import _out
    return _out(out, _binary_apply(Igammac, input, other, "igammac"))


def _xlog1py(input, other, *, out=None):
    from .elementwise import _out
    return _out(out, _binary_apply(Xlog1py, input, other, "xlog1py"))


def _zeta(input, other, *, out=None):
    from .elementwise import _out
    return _out(out, _binary_apply(Zeta, input, other, "zeta"))


# ---- orthogonal polynomials (no derivative, as in PyTorch) -------------------------------
def _recurrence(kind):
    """(p0(x), p1(x), step(k, x, p_k, p_{k-1}) -> p_{k+1}) of a polynomial family."""
    if kind == "t":
        return lambda x: 1.0 + 0 * x, lambda x: x, lambda k, x, p, q: 2 * x * p - q
    if kind == "u":
        return lambda x: 1.0 + 0 * x, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - q
    if kind == "v":
        return lambda x: 1.0 + 0 * x, lambda x: 2 * x - 1, lambda k, x, p, q: 2 * x * p - q
    if kind == "w":
        return lambda x: 1.0 + 0 * x, lambda x: 2 * x + 1, lambda k, x, p, q: 2 * x * p - q
    if kind == "h":
        return lambda x: 1.0 + 0 * x, lambda x: 2 * x, \
            lambda k, x, p, q: 2 * x * p - 2 * k * q
    if kind == "he":
        return lambda x: 1.0 + 0 * x, lambda x: x, lambda k, x, p, q: x * p - k * q
    if kind == "l":
        return lambda x: 1.0 + 0 * x, lambda x: 1 - x, \
            lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1)
    if kind == "p":
        return lambda x: 1.0 + 0 * x, lambda x: x, \
            lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1)
    raise AssertionError(kind)


def _polynomial(x, n, kind):
    """p_n(x) for integer degrees ``n`` (broadcast with x); 0 for negative n."""
    x, n = np.broadcast_arrays(x, np.trunc(n))
    p0, p1, step = _recurrence(kind)
    out = np.where(n == 0, p0(x), 0.0)
    out = np.where(n == 1, p1(x), out)
    top = int(np.max(n)) if n.size else 0
    q, p = p0(x), p1(x)
    for k in range(1, top):
        q, p = p, step(k, x, p, q)
        out = np.where(n == k + 1, p, out)
    return np.where(n < 0, 0.0, out)


_FAMILIES = {"t": "chebyshev_polynomial_t", "u": "chebyshev_polynomial_u",
             "v": "chebyshev_polynomial_v", "w": "chebyshev_polynomial_w",
             "h": "hermite_polynomial_h", "he": "hermite_polynomial_he",
             "l": "laguerre_polynomial_l", "p": "legendre_polynomial_p"}


def _polynomial_name(kind, shift):
    """The public name of polynomial family ``kind`` ('shifted_chebyshev_polynomial_t')."""
    return ("shifted_" if shift else "") + _FAMILIES[kind]


class Polynomial(BuiltinFunction):
    """out = p_n(x) for an orthogonal polynomial family (no derivative: as in PyTorch, the
    public functions return a result outside the graph)."""
    _backward_name = "SpecialPolynomialBackward0"

    @staticmethod
    def forward(ctx, x, n, kind, shift):
        def fn(sc, xv, nv):
            return _polynomial(2 * xv - 1 if shift else xv, nv, kind)
        return _compute(fn, x, n, kernel=f'"{_polynomial_name(kind, shift)}_cpu"')

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("the derivative for orthogonal polynomials is not implemented.")


def _polynomial_op(input, n, kind, shift=False):
    """Evaluate the polynomial family ``kind`` ('t', 'u', 'v', 'w', 'h', 'he', 'l', 'p') of
    degree ``n`` at ``input`` (``shift``: at 2x - 1)."""
    from .elementwise import operand
    input, n = operand(input), operand(n)
    if not isinstance(input, Tensor):
        input = _make(np.asarray(input, result_np(input)), None, False)
    n = n.detach() if isinstance(n, Tensor) else n
    return Polynomial.apply(input.detach(), n, kind, shift)


METHODS = ["erf", "erfc", "erfinv", "lgamma", "digamma", "i0", "sinc", "mvlgamma", "igamma",
           "igammac"]
INPLACE = ["erf", "erfc", "erfinv", "lgamma", "digamma", "i0", "sinc", "mvlgamma", "igamma",
           "igammac"]


def _polygamma_method(self, n):
    return polygamma(n, self)


def _install_polygamma():
    Tensor.polygamma = _polygamma_method
    from .inplace import inplace
    Tensor.polygamma_ = lambda self, n: inplace(self, lambda t: polygamma(n, t))


_install_polygamma()
