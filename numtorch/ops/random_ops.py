"""Sampling ops that take tensor parameters: ``bernoulli(p)``, ``normal(mean, std)`` and
``poisson(rates)``.

PyTorch records them in the graph with zero gradients (a sample is not differentiated
through its parameters): an output of ``bernoulli`` on a ``p`` that requires grad has
``BernoulliBackward0``, ``normal`` ``NormalBackward1`` (tensor mean, number std),
``NormalBackward2`` (number mean, tensor std) or ``NormalBackward3`` (both tensors),
``poisson`` ``PoissonBackward0``. The
draw itself is ``numtorch._random``'s, on PyTorch's stream.

>>> import numtorch as torch
>>> p = torch.full((2,), 0.5, requires_grad=True)
>>> b = Bernoulli.apply(p, None)
>>> b.grad_fn.name()
'BernoulliBackward0'
>>> b.sum().backward(); p.grad
tensor([0., 0.])
"""
import math

import numpy as np

from .. import _random as R
from .._tensor import Tensor
from ..autograd.graph import DelayedError
from ..autograd.grad_mode import STATE
from ._base import BuiltinFunction

_make = Tensor._make


def _zero_grads(ctx, shapes):
    """Zeros shaped like each tensor input (None for the others), as PyTorch's formulas."""
    return tuple(None if s is None else _make(np.zeros(s, ctx.dtype), None, False)
                 for s in shapes)


class Bernoulli(BuiltinFunction):
    """out = 1 where U[0, 1) < p else 0 (p's dtype);  dp = 0."""
    _backward_name = "BernoulliBackward0"

    @staticmethod
    def forward(ctx, p, generator):
        ctx.shapes, ctx.dtype = (p.shape,), p.dtype
        return R.bernoulli_tensor(p, p.dtype, generator)

    @staticmethod
    def backward(ctx, g):
        return _zero_grads(ctx, ctx.shapes) + (None,)


class Normal(BuiltinFunction):
    """out = mean + std * N(0, 1) per element (PyTorch's overload rounding, see
    ``_random.normal_tensor``);  dmean = dstd = 0."""
    _backward_name = "NormalBackward3"

    @staticmethod
    def forward(ctx, mean, std, np_dtype, generator):
        ctx.dtype = np_dtype
        ctx.shapes = tuple(a.shape if isinstance(a, np.ndarray) else None for a in (mean, std))
        return R.normal_tensor(mean, std, np_dtype, generator)

    @staticmethod
    def backward(ctx, g):
        return _zero_grads(ctx, ctx.shapes) + (None, None)


class NormalMeanTensor(Normal):
    _backward_name = "NormalBackward1"


class NormalStdTensor(Normal):
    _backward_name = "NormalBackward2"


class Poisson(BuiltinFunction):
    """out = a Poisson count for each rate (rates' dtype);  drates = 0."""
    _backward_name = "PoissonBackward0"

    @staticmethod
    def forward(ctx, rates, generator):
        ctx.shapes, ctx.dtype = (rates.shape,), rates.dtype
        return R.poisson(rates, generator)

    @staticmethod
    def backward(ctx, g):
        return _zero_grads(ctx, ctx.shapes) + (None,)


class NotImplementedNode(DelayedError):
    """PyTorch's ``NotImplemented`` node: an op without a derivative formula (as
    ``bernoulli(input, p)`` for a number p) records it, and backward through it raises."""

    __slots__ = ()

    def name(self):
        return "torch::autograd::NotImplemented"


NotImplementedNode.__name__ = NotImplementedNode.__qualname__ = "NotImplemented"


def bernoulli_scalar(input, p, generator):
    """``bernoulli(input, p)``: samples of probability ``p`` in input's shape and dtype;
    differentiating it raises, as in PyTorch."""
    out = _make(R.bernoulli_scalar(input._data.shape, p, input.dtype.np, generator), None, False)
    if input._rg and STATE.enabled:
        out._grad_fn = NotImplementedNode("derivative for aten::bernoulli is not implemented",
                                          (input._edge(),))
        out._rg = True
    return out


# ---- Gamma, Dirichlet, Binomial ----------------------------------------------------------

_GAMMA_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343,
              1, 0.32668115, 0.10406089, 0.0014179084),
             (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
              0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
             (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
              0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07))


def _gamma_grad_one(alpha, x):
    """d x / d alpha for x ~ Gamma(alpha, 1) at fixed CDF (implicit reparameterisation):
    a series for small x, Rice's saddle point for large alpha, else a fitted rational
    approximation (the three regimes of ATen's ``standard_gamma_grad_one``)."""
    from scipy.special import psi
    if x < 0.8:
        numer, denom = 1.0, alpha
        s1, s2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            s1 += numer / denom
            s2 += numer / (denom * denom)
        with np.errstate(all="ignore"):
            pow_xa = x ** alpha
            pdf = x ** (alpha - 1) * math.exp(-x)
            cdf = pow_xa * s1
            cdf_alpha = ((math.log(x) if x > 0 else -math.inf) - psi(alpha)) * cdf - pow_xa * s2
            res = -cdf_alpha / pdf if pdf != 0 else math.copysign(math.inf, -cdf_alpha)
        return 0.0 if math.isnan(res) else res
    if alpha > 8.0:
        if 0.9 * alpha <= x <= 1.1 * alpha:
            n1 = 1 + 24 * alpha * (1 + 12 * alpha)
            n2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
                  + alpha * (107 + 3600 * x))
            return n1 * n2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = (x - alpha - alpha * math.log(x / alpha)) ** -1.5
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = (math.log(x / alpha) * term23
                 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x)))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * x * term1 / denom
    u, v = math.log(x / alpha), math.log(alpha)
    c = [_GAMMA_UV[0][i] + u * (_GAMMA_UV[1][i] + u * _GAMMA_UV[2][i]) for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    return math.exp(p / q)


def standard_gamma_grad(alpha, x):
    """``torch._standard_gamma_grad(alpha, x)`` on arrays (in double, cast back)."""
    a, s = np.broadcast_arrays(np.asarray(alpha), np.asarray(x))
    vals = [_gamma_grad_one(ai, xi) for ai, xi in zip(a.reshape(-1).tolist(),
                                                      s.reshape(-1).tolist())]
    return np.array(vals, np.float64).astype(a.dtype).reshape(a.shape)


class StandardGamma(BuiltinFunction):
    """out ~ Gamma(alpha, 1) per element;  dalpha = g * d out / d alpha (implicit
    reparameterisation, computed once: its own derivative is not provided)."""
    _backward_name = "StandardGammaBackward0"

    @staticmethod
    def forward(ctx, alpha, generator):
        out = R.standard_gamma(alpha, generator)
        ctx.alpha, ctx.out = alpha, out
        return out

    @staticmethod
    def backward(ctx, g):
        d = _make(standard_gamma_grad(ctx.alpha, ctx.out), None, False)
        return g * d, None


class SampleDirichlet(BuiltinFunction):
    """out ~ Dirichlet(alpha) over the last dim; no derivative (as PyTorch's op)."""
    _backward_name = "SampleDirichletBackward0"

    @staticmethod
    def forward(ctx, alpha, generator):
        return R.dirichlet(alpha, generator)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("the derivative for '_sample_dirichlet' is not implemented.")
