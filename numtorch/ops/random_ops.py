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
