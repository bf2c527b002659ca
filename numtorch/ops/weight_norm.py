"""Weight normalisation: ``w = g * v / ||v||``, the norm taken over every dim but ``dim``.

PyTorch computes it with a fused op (grad_fn ``WeightNormInterfaceBackward0``) when ``dim``
is the first or the last dim, and with plain differentiable ops otherwise; numtorch does the
same. The fused op's backward is written with Tensor ops, so it differentiates again.

>>> import numtorch as torch
>>> v = torch.tensor([[3.0, 4.0], [0.0, 2.0]])
>>> norm_except_dim(v, 2, 0)
tensor([[5.],
        [2.]])
>>> weight_norm(v, torch.ones(2, 1), 0)
tensor([[0.6000, 0.8000],
        [0.0000, 1.0000]])
"""
import numpy as np

from ._base import BuiltinFunction

__all__ = ["norm_except_dim", "weight_norm", "WeightNormInterface"]


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim`` (kept as size-1 dims); the norm
    of the whole tensor when ``dim == -1``."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = (v.size(0),) + (1,) * (v.dim() - 1)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = (1,) * (v.dim() - 1) + (v.size(-1),)
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _other_axes(ndim, dim):
    return tuple(a for a in range(ndim) if a != dim)


class WeightNormInterface(BuiltinFunction):
    """w = v * g / ||v|| (over all dims but ``dim``);
    dg = sum(gw * v) / ||v||,  dv = g / ||v|| * (gw - v * sum(gw * v) / ||v||^2)."""
    _backward_name = "WeightNormInterfaceBackward0"

    @staticmethod
    def forward(ctx, v, g, dim):
        ctx.save_for_backward(v, g)
        ctx.dim = dim
        axes = _other_axes(v.ndim, dim)
        norms = np.sqrt(np.sum(np.square(v.astype(np.float64)), axis=axes, keepdims=True))
        return (v * (g.reshape(norms.shape) / norms)).astype(v.dtype)

    @staticmethod
    def backward(ctx, grad):
        v, g = ctx.saved_tensors
        norms = norm_except_dim(v, 2, ctx.dim)
        sums = (grad * v).sum(_other_axes(v.dim(), ctx.dim), keepdim=True)
        g_b = g.reshape(norms.shape)
        grad_v = (g_b / norms) * (grad - v * (sums / (norms * norms)))
        grad_g = (sums / norms).reshape(g.shape)
        return grad_v, grad_g, None


def weight_norm(v, g, dim=0):
    """``torch._weight_norm(v, g, dim)``: v * (g / norm_except_dim(v, 2, dim))."""
    if dim in (0, v.dim() - 1) and v.dim() > 0:
        return WeightNormInterface.apply(v, g, dim)
    return v * (g / norm_except_dim(v, 2, dim))
