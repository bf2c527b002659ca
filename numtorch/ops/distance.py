"""Distance ops as single nodes, as PyTorch records them: ``cdist`` (``CdistBackward0``, or
``EuclideanDistBackward0`` on its matrix-product path) and ``dist`` (``DistBackward0``).

One node each (not a composition of sub, pow and sum) so that ``grad_fn`` prints as in
PyTorch and the tensors saved are PyTorch's: both inputs and the result, so an in-place
change of either input after the call fails backward with the usual version error.

>>> import numtorch as torch
>>> a = torch.tensor([[0., 0.], [3., 4.]], requires_grad=True)
>>> torch.cdist(a, torch.zeros(1, 2))
tensor([[0.],
        [5.]], grad_fn=<CdistBackward0>)
>>> torch.dist(a, torch.zeros(2, 2))
tensor(5., grad_fn=<DistBackward0>)
"""
import numpy as np

from .. import _dtype as D
from ._base import BuiltinFunction
from ._util import as_array


def _pdist_arrays(x1, x2, p):
    """The ``p``-norm distances between the rows of ``x1`` and of ``x2`` (batch dims
    broadcast): shape ``(*batch, r1, r2)``."""
    a = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        out = np.sum(a != 0, axis=-1)
    elif p == 1:
        out = np.sum(a, axis=-1)
    elif p == 2:
        out = np.sqrt(np.sum(a * a, axis=-1))
    elif p == float("inf"):
        out = np.max(a, axis=-1, initial=0)
    else:
        out = np.sum(a ** p, axis=-1) ** (1.0 / p)
    return as_array(out).astype(np.result_type(x1, x2), copy=False)


def _cdist_grad(g, x1, x2, res, p):
    """d cdist / d x1 as PyTorch's ``_cdist_backward`` (Tensor ops, so differentiable):
    per pair, sign(d)|d|^(p-1) / res^(p-1) times g, summed over the rows of x2; 0 where the
    distance is 0 (and, for p < 1, where a coordinate difference is 0)."""
    from .elementwise import where
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    gu, ru = g.unsqueeze(-1), res.unsqueeze(-1)
    if p == 0:
        return (diff * 0).sum(-2)
    if p == 1:
        pair = gu * diff.sgn()
    elif p == 2:
        pair = diff * where(ru == 0, 0.0, gu / ru)
    elif p == float("inf"):
        pair = gu * diff.sgn() * (diff.abs() == ru).to(g.dtype)
    else:
        scaled = diff.sgn() * diff.abs().pow(p - 1) if p >= 1 else \
            where(diff == 0, 0.0, diff.sgn() * diff.abs().pow(p - 1))
        pair = where(ru == 0, 0.0, scaled * gu / ru.pow(p - 1))
    return pair.sum(-2)


class Cdist(BuiltinFunction):
    """out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p;  dx1 = sum_j g_ij sign(d)|d|^(p-1)
    / out^(p-1), dx2 the same over i, negated."""
    _backward_name = "CdistBackward0"

    @staticmethod
    def forward(ctx, x1, x2, p):
        out = _pdist_arrays(x1, x2, p)
        ctx.save_for_backward(x1, x2, out)
        ctx.p = p
        return out

    @staticmethod
    def backward(ctx, g):
        x1, x2, res = ctx.saved_tensors
        n1, n2 = ctx.needs_input_grad[:2]
        # NOTE: differentiable (PyTorch's _cdist_backward is not: a second derivative raises
        # NotImplementedError there)
        g1 = _cdist_grad(g, x1, x2, res, ctx.p) if n1 else None
        g2 = _cdist_grad(g.mT, x2, x1, res.mT, ctx.p) if n2 else None
        return g1, g2, None


class EuclideanDist(BuiltinFunction):
    """cdist's matrix-product path, PyTorch's ``_euclidean_dist`` (inputs of one batch):
    out = sqrt(max(|x1|^2 + |x2|^2 - 2 x1 x2^T, 0));  with r = g / out (0 where out == 0),
    dx1 = x1 sum_j r - r x2, dx2 = x2 sum_i r - r^T x1."""
    _backward_name = "EuclideanDistBackward0"

    @staticmethod
    def forward(ctx, x1, x2):
        # NOTE: PyTorch's arrangement (one matmul of padded operands), for its rounding
        n1 = np.sum(x1 * x1, axis=-1, keepdims=True)
        n2 = np.sum(x2 * x2, axis=-1, keepdims=True)
        a = np.concatenate([x1 * -2, n1, np.ones_like(n1)], axis=-1)
        b = np.concatenate([x2, np.ones_like(n2), n2], axis=-1)
        out = np.sqrt(np.maximum(a @ np.swapaxes(b, -1, -2), 0)).astype(x1.dtype, copy=False)
        ctx.save_for_backward(x1, x2, out)
        return out

    @staticmethod
    def backward(ctx, g):
        from .elementwise import where
        x1, x2, res = ctx.saved_tensors
        n1, n2 = ctx.needs_input_grad[:2]
        r = where(res == 0, 0.0, g / res)
        g1 = x1 * r.sum(-1, keepdim=True) - r.matmul(x2) if n1 else None
        g2 = x2 * r.sum(-2).unsqueeze(-1) - r.mT.matmul(x1) if n2 else None
        return g1, g2


def cdist(x1, x2, p, mode):
    """``torch.cdist`` after its argument checks: ``mode`` 0 (mm for p=2 past 25 rows),
    1 (always mm for p=2) or 2 (never), PyTorch's choice of path."""
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{D.SCALAR_NAMES[x.dtype]}")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {D.SCALAR_NAMES[x1.dtype]} but found "
                           f"{D.SCALAR_NAMES[x2.dtype]}")
    r1, r2 = x1.shape[-2], x2.shape[-2]
    if x1.numel() and x2.numel() and p == 2 and (mode == 1 or (mode == 0 and max(r1, r2) > 25)):
        batch = np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
        n = int(np.prod(batch))
        if n == 1:  # as PyTorch: the inputs as they are (no expand/reshape nodes)
            return EuclideanDist.apply(x1, x2).view(*batch, r1, r2)
        a = x1.expand(*batch, r1, x1.shape[-1]).reshape(n, r1, x1.shape[-1])
        b = x2.expand(*batch, r2, x2.shape[-1]).reshape(n, r2, x2.shape[-1])
        return EuclideanDist.apply(a, b).view(*batch, r1, r2)
    return Cdist.apply(x1, x2, float(p))


class _NormCtx:
    """What VectorNorm's backward reads from its ctx (Dist's gradient is that of the norm)."""

    def __init__(self, saved, p, dims):
        self.saved_tensors, self.p, self.dims, self.keepdim = saved, p, dims, False

    def save_for_backward(self, *tensors):  # Dist saves its own
        pass


class Dist(BuiltinFunction):
    """out = ||a - b||_p over all elements;  da = the p-norm's gradient at a - b, db = -da."""
    _backward_name = "DistBackward0"

    @staticmethod
    def forward(ctx, a, b, p):
        from .reduction import VectorNorm
        d = np.subtract(a, b)
        out = VectorNorm.forward(_NormCtx((), p, ()), d, p, tuple(range(d.ndim)), False)
        ctx.save_for_backward(a, b, out)
        ctx.p = p
        return out

    @staticmethod
    def backward(ctx, g):
        from .reduction import VectorNorm
        a, b, out = ctx.saved_tensors
        d = a - b
        nctx = _NormCtx((d, out), ctx.p, tuple(range(d.ndim)))
        gd = VectorNorm.backward(nctx, g)[0]
        n1, n2 = ctx.needs_input_grad[:2]
        return (gd if n1 else None), (-gd if n2 else None), None


def dist(input, other, p):
    """``torch.dist`` for Tensors: one ``Dist`` node, after PyTorch's dtype check."""
    dt = D.promote_types(input.dtype, other.dtype)
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {D.SCALAR_NAMES[dt]} instead.")
    return Dist.apply(input, other, float(p))
