"""``torch.special``: special functions (SciPy-backed) and their aliases.

>>> import numtorch as torch
>>> torch.special.ndtr(torch.tensor([0.0]))
tensor([0.5000])
"""
from .ops import special_ops as _S
from .ops import elementwise as _E, reduction as _R
from .ops.special_ops import (erf, erfc, erfinv, digamma, polygamma, i0, sinc,  # noqa: F401
                              )

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
           "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e",
           "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr",
           "log_softmax", "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
           "polygamma", "psi", "round", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0",
           "xlog1py", "xlogy", "zeta"]

# aliases of ops numtorch has elsewhere
exp2, expm1, log1p, round = _E.exp2, _E.expm1, _E.log1p, _E.round
expit, logit, xlogy = _E.sigmoid, _E.logit, _E.xlogy
logsumexp = _R.logsumexp
psi = digamma
gammaln = _S.lgamma
multigammaln = _S.mvlgamma
gammainc = _S.igamma
gammaincc = _S.igammac
i0e, i1, i1e = _S._i0e, _S._i1, _S._i1e
xlog1py, zeta = _S._xlog1py, _S._zeta


def softmax(input, dim, *, dtype=None):
    """``torch.special.softmax`` (``dim`` is required)."""
    return _R.softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    """``torch.special.log_softmax`` (``dim`` is required)."""
    return _R.log_softmax(input, dim, dtype)


def _unary(cls, name):
    def fn(input, *, out=None):
        # PyTorch gives no derivative for some (Bessel, Airy): their result is outside the graph
        return _E._out(out, cls.apply(input if cls.differentiable else input.detach()))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.special.{name}`` of ``input`` (SciPy)."
    return fn


erfcx = _unary(_S.Erfcx, "erfcx")
ndtr = _unary(_S.Ndtr, "ndtr")
ndtri = _unary(_S.Ndtri, "ndtri")
log_ndtr = _unary(_S.LogNdtr, "log_ndtr")
entr = _unary(_S.Entr, "entr")
bessel_j0 = _unary(_S.BesselJ0, "bessel_j0")
bessel_j1 = _unary(_S.BesselJ1, "bessel_j1")
bessel_y0 = _unary(_S.BesselY0, "bessel_y0")
bessel_y1 = _unary(_S.BesselY1, "bessel_y1")
modified_bessel_i0 = _unary(_S.ModifiedBesselI0, "modified_bessel_i0")
modified_bessel_i1 = _unary(_S.ModifiedBesselI1, "modified_bessel_i1")
modified_bessel_k0 = _unary(_S.ModifiedBesselK0, "modified_bessel_k0")
modified_bessel_k1 = _unary(_S.ModifiedBesselK1, "modified_bessel_k1")
scaled_modified_bessel_k0 = _unary(_S.ScaledModifiedBesselK0, "scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _unary(_S.ScaledModifiedBesselK1, "scaled_modified_bessel_k1")
spherical_bessel_j0 = _unary(_S.SphericalBesselJ0, "spherical_bessel_j0")
airy_ai = _unary(_S.AiryAi, "airy_ai")


def _polynomial(kind, shift, name):
    def fn(input, n, *, out=None):
        return _E._out(out, _S._polynomial_op(input, n, kind, shift))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.special.{name}``: the degree-``n`` polynomial at ``input``."
    return fn


chebyshev_polynomial_t = _polynomial("t", False, "chebyshev_polynomial_t")
chebyshev_polynomial_u = _polynomial("u", False, "chebyshev_polynomial_u")
chebyshev_polynomial_v = _polynomial("v", False, "chebyshev_polynomial_v")
chebyshev_polynomial_w = _polynomial("w", False, "chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _polynomial("t", True, "shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _polynomial("u", True, "shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _polynomial("v", True, "shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _polynomial("w", True, "shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _polynomial("h", False, "hermite_polynomial_h")
hermite_polynomial_he = _polynomial("he", False, "hermite_polynomial_he")
laguerre_polynomial_l = _polynomial("l", False, "laguerre_polynomial_l")
legendre_polynomial_p = _polynomial("p", False, "legendre_polynomial_p")
