"""Fused loss functions of ``torch.nn.functional`` as built-in ops.

Each computes the elementwise loss on arrays, then applies the reduction ('none', 'mean',
'sum'); backward scales the elementwise derivative (a Tensor expression, so it differentiates
again) by the incoming gradient. Losses PyTorch composes from other ops are composed the same
way in ``numtorch.nn.functional``.

>>> import numtorch as torch
>>> from numtorch.ops import loss as L
>>> x = torch.tensor([1.0, 3.0], requires_grad=True)
>>> L.MseLoss.apply(x, torch.tensor([0.0, 0.0]), "mean")
tensor(5., grad_fn=<MseLossBackward0>)
"""
import numpy as np

from .._tensor import Tensor
from . import _base, _libm
from ._base import BuiltinFunction
from ._cascade import LANES as _SUM_LANES, nll_sum, torch_sum

_make = Tensor._make
_EPSILON = 1e-12


def reduce_array(loss, reduction):
    """Reduce an elementwise loss array as PyTorch's ``apply_loss_reduction``: its sum
    (in PyTorch's order for float32/float64), divided by the count for the mean."""
    if reduction == "none":
        return loss
    if loss.dtype not in _SUM_LANES:
        return np.asarray(loss.mean(dtype=loss.dtype) if reduction == "mean" else
                          loss.sum(dtype=loss.dtype))
    total = torch_sum(loss, tuple(range(loss.ndim)), loss.dtype, False)
    return np.asarray(total / loss.dtype.type(loss.size) if reduction == "mean" else total)


def _scale(g, reduction, numel):
    """The incoming gradient as the per-element factor of the reduction."""
    if reduction == "mean":
        return g / numel
    return g


def plain_arrays():
    """Whether no functorch transform interposes on ops (their rules know NllLoss, not the
    NllLossAllClasses fast path)."""
    return _base._interpose is None


def _const(array):
    return _make(np.asarray(array), None, False)


class PointwiseLoss(BuiltinFunction):
    """Base: ``loss(x, t)`` on arrays; ``dx(x, t)`` / ``dt(x, t)`` as Tensors (elementwise)."""

    @classmethod
    def forward(cls, ctx, x, t, reduction, *args):
        ctx.save_for_backward(x, t)
        ctx.reduction, ctx.args = reduction, args
        ctx.numel = np.broadcast_shapes(x.shape, t.shape)
        ctx.numel = int(np.prod(ctx.numel))
        return reduce_array(cls.loss(x, t, *args), reduction)

    @classmethod
    def backward(cls, ctx, g):
        x, t = ctx.saved_tensors
        f = _scale(g, ctx.reduction, ctx.numel)
        nx, nt = ctx.needs_input_grad[:2]
        gx = f * cls.dx(x, t, *ctx.args) if nx else None
        gt = f * cls.dt(x, t, *ctx.args) if nt else None
        return (gx, gt, None) + (None,) * len(ctx.args)

    @classmethod
    def dt(cls, x, t, *args):
        return -cls.dx(x, t, *args)


class MseLoss(PointwiseLoss):
    """loss = (x - t)^2;  dx = 2 (x - t)."""
    _backward_name = "MseLossBackward0"

    @staticmethod
    def loss(x, t):
        d = x - t
        return d * d

    @staticmethod
    def dx(x, t):
        return (x - t) * 2


class SmoothL1Loss(PointwiseLoss):
    """loss = |d| < beta ? d^2 / (2 beta) : |d| - beta / 2;  dx = clamp(d / beta, -1, 1)."""
    _backward_name = "SmoothL1LossBackward0"

    @staticmethod
    def loss(x, t, beta):
        d = np.abs(x - t)
        if beta == 0:
            return d
        b = x.dtype.type(beta)
        return np.where(d < b, x.dtype.type(0.5) * d * d / b, d - x.dtype.type(0.5) * b)

    @staticmethod
    def dx(x, t, beta):
        d = x - t
        if beta == 0:
            return d.sign()
        inside = (d.abs() < beta).to(d.dtype)
        return inside * d / beta + (1 - inside) * d.sign()


class HuberLoss(PointwiseLoss):
    """loss = |d| < delta ? d^2 / 2 : delta (|d| - delta / 2);  dx = clamp(d, -delta, delta)."""
    _backward_name = "HuberLossBackward0"

    @staticmethod
    def loss(x, t, delta):
        d = np.abs(x - t)
        dl, half = x.dtype.type(delta), x.dtype.type(0.5)
        return np.where(d < dl, half * d * d, dl * (d - half * dl))

    @staticmethod
    def dx(x, t, delta):
        d = x - t
        inside = (d.abs() < delta).to(d.dtype)
        return inside * d + (1 - inside) * d.sign() * delta


class HuberLossMixedDtypes(HuberLoss):
    """HuberLoss of an input and a target of different dtypes (promoted for the forward):
    its backward raises, as PyTorch's huber_loss_backward kernel takes one dtype."""
    _backward_name = "HuberLossBackward0"

    @classmethod
    def forward(cls, ctx, x, t, reduction, delta, input_dtype, target_dtype):
        from .._dtype import SCALAR_NAMES
        ctx.mismatch = (f"Found dtype {SCALAR_NAMES[target_dtype]} but expected "
                        f"{SCALAR_NAMES[input_dtype]}")
        out = super().forward(ctx, x, t, reduction, delta)
        # NOTE: PyTorch writes the loss into a tensor of the input's dtype (one node); an
        # integer input's refusal is left to the caller
        return out.astype(input_dtype.np) if input_dtype.is_floating_point else out

    @classmethod
    def backward(cls, ctx, g):
        raise RuntimeError(ctx.mismatch)


class SoftMarginLoss(PointwiseLoss):
    """loss = log(1 + exp(-t x));  dx = -t * sigmoid(-t x)."""
    _backward_name = "SoftMarginLossBackward0"

    @staticmethod
    def loss(x, t):
        return np.log1p(np.exp(-t * x))

    @staticmethod
    def dx(x, t):
        return -t * (-t * x).sigmoid()

    @staticmethod
    def dt(x, t):
        return -x * (-t * x).sigmoid()


class BinaryCrossEntropy(BuiltinFunction):
    """loss = -w (t log x + (1 - t) log(1 - x)), logs clamped at -100;
    dx = w (x - t) / max(x (1 - x), 1e-12)."""
    _backward_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, x, t, w, reduction):
        ctx.save_for_backward(x, t, w)
        ctx.reduction = reduction
        one = x.dtype.type(1)
        lo = x.dtype.type(-100)
        # (log and log1p rounded as PyTorch's scalar kernel's std::log, std::log1p)
        loss = (t - one) * np.maximum(_libm.log1p(-x), lo) - t * np.maximum(_libm.log(x), lo)
        if w is not None:
            loss = loss * w
        return reduce_array(loss, reduction)

    @staticmethod
    def backward(ctx, g):
        x, t, w = ctx.saved_tensors
        gx = gt = None
        if ctx.needs_input_grad[0]:
            # NOTE: PyTorch's order: g (x - t) / max((1 - x) x, eps), then * w, then / numel
            gx = g * (x - t) / ((1 - x) * x).clamp(min=_EPSILON)
            if w is not None:
                gx = gx * w
            if ctx.reduction == "mean":
                gx = gx / x.numel()
        if ctx.needs_input_grad[1]:
            # NOTE: PyTorch's binary_cross_entropy_target_backward: -logit(x) * g (unclamped:
            # +-inf at x = 0 or 1), then * w, then / numel
            gt = -x.logit() * g
            if w is not None:
                gt = gt * w
            if ctx.reduction == "mean":
                gt = gt / x.numel()
        return gx, gt, None, None


class BinaryCrossEntropyWithLogits(BuiltinFunction):
    """loss = w ((1 - t) x - (1 + (pw - 1) t) logsigmoid(x));
    dx = w ((1 + (pw - 1) t) sigmoid(x) - pw t)."""
    _backward_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, x, t, w, pw, reduction):
        ctx.save_for_backward(x, t, w, pw)
        ctx.reduction = reduction
        one = x.dtype.type(1)
        # (log1p and exp rounded as PyTorch's: of the formulas tried, this one gives its bits
        # most often, ~96 % of elements)
        log_sig = np.minimum(x, x.dtype.type(0)) - _libm.log1p(_libm.exp(-np.abs(x)))
        if pw is not None:
            log_sig = log_sig * ((pw - one) * t + one)
        loss = (one - t) * x - log_sig
        if w is not None:
            loss = loss * w
        return reduce_array(loss, reduction)

    @staticmethod
    def backward(ctx, g):
        x, t, w, pw = ctx.saved_tensors
        f = _scale(g, ctx.reduction, np.prod(np.broadcast_shapes(x.shape, t.shape)))
        if w is not None:
            f = f * w
        gx = gt = None
        if ctx.needs_input_grad[0]:
            if pw is None:
                gx = f * (x.sigmoid() - t)
            else:
                pt = pw * t
                gx = f * ((pt + 1 - t) * x.sigmoid() - pt)
        if ctx.needs_input_grad[1]:
            from .activation import LogSigmoid
            ls = LogSigmoid.apply(x)
            gt = f * (-x if pw is None else -x - (pw - 1) * ls)
        return gx, gt, None, None, None


class NllLoss(BuiltinFunction):
    """loss_i = -w[t_i] x[i, t_i] (0 where t_i == ignore_index); mean divides by sum(w[t_i]).
    dx[i, t_i] = -w[t_i] * g, or w[t_i] * -(g / total weight) for the mean (PyTorch's order);
    an ignored target's row stays +0."""
    _backward_name = "NllLossBackward0"
    _np_exact = True  # (its array backward: the plain (N, C) case only)
    _all_classes = False  # NllLossAllClasses: the caller checked no target is ignored

    @classmethod
    def forward(cls, ctx, x, t, w, reduction, ignore_index):
        # x: (N, C, *d) and t: (N, *d), or an unbatched x (C,) and t () or (1,) (the loss
        # is then 0-d, as PyTorch's kernel gives it)
        if x.ndim == 1:
            out = cls.forward(ctx, x[None], t.reshape(1), w, reduction, ignore_index)
            ctx.save_for_backward(x, t)
            ctx.shape = x.shape
            return out.reshape(())
        ctx.save_for_backward(x, t)  # (x: only for grad_fn._saved_self, as PyTorch keeps it)
        ctx.reduction, ctx.shape, ctx.w, ctx.ignore_index = reduction, x.shape, w, ignore_index
        if cls._all_classes and w is None and x.ndim == 2 and t.size:
            return _nll_plain(ctx, x, t, reduction)
        valid = t != ignore_index
        safe_t = np.where(valid, t, 0)
        wt = (w[safe_t] if w is not None else np.ones(t.shape, x.dtype)) * valid
        wt = wt.astype(x.dtype)
        picked = np.take_along_axis(x, safe_t[:, None], 1)[:, 0]
        loss = -picked * wt
        ctx.coef, ctx.valid = -wt, valid
        if not valid.all():
            loss[~valid] = 0  # (PyTorch writes +0 for an ignored target, not -x * 0)
        if reduction == "none":
            return loss if x.dtype.kind == "f" else _nll_not_float(x)
        if x.dtype.kind == "f":
            # PyTorch's nll_loss (and nll_loss2d) kernel's own order, (N, *d) flattened
            skipped = ~valid.ravel()
            summed = nll_sum(loss.ravel(), skipped)
            total = (nll_sum(wt.ravel(), skipped) if w is not None else
                     x.dtype.type(np.count_nonzero(valid)))
        else:
            if x.dtype.kind != "f":
                _nll_not_float(x)
            summed, total = loss.sum(dtype=x.dtype), wt.sum(dtype=x.dtype)
        if reduction == "sum":
            return np.asarray(summed)
        ctx.coef, ctx.total = wt, total  # (the mean's backward: w * -(g / total))
        return np.asarray(summed / total)

    @staticmethod
    def backward(ctx, g):
        t = ctx.saved_tensors[1]._data
        shape = ctx.shape
        if len(shape) == 1:  # unbatched: computed as one row
            t, shape = t.reshape(1), (1,) + tuple(shape)
        coef, dt = ctx.coef, g._data.dtype
        if coef is None:  # the plain case: no weights, no ignored target
            src = -(g / ctx.xdtype.type(t.shape[0])) if ctx.reduction == "mean" else -g
            src, safe_t = src.expand(t.shape), t
        else:
            if ctx.reduction == "mean":
                src = _const(coef.astype(dt)) * -(g / _const(ctx.total.astype(dt)))
            else:
                src = _const(coef.astype(dt)) * g
            # NOTE: PyTorch writes nothing for an ignored target: +0 (not -0 * g)
            src = src.masked_fill(_const(~ctx.valid), 0)
            safe_t = np.where(ctx.valid, t, 0)
        from .._creation import zeros
        gx = zeros(shape, dtype=g.dtype).scatter(1, _const(safe_t[:, None]), src.unsqueeze(1))
        if len(ctx.shape) == 1:
            gx = gx.reshape(ctx.shape)
        return gx, None, None, None, None


def _nll_np_backward(ctx, d):
    """NllLoss's first-order backward on arrays in the plain case: the same product
    ``coef * g`` as the Tensor formula, scattered into zeros."""
    if ctx.coef is not None or len(ctx.shape) == 1:
        return NotImplemented
    t = ctx.saved_tensors[1]
    n = t._data.shape[0]
    gx = np.zeros(ctx.shape, d.dtype)
    # -(g / n) for the mean, -g otherwise: PyTorch's order
    gx[np.arange(n), t._data] = np.negative(
        np.divide(d, d.dtype.type(n)) if ctx.reduction == "mean" else d)
    return gx, None, None, None, None


NllLoss._np_backward = staticmethod(_nll_np_backward)  # (the metaclass rebinds _np_fast)


def _nll_plain(ctx, x, t, reduction):
    """NllLoss forward without weights or ignored targets, (N, C) input: -x[i, t_i]."""
    n = t.shape[0]
    ctx.coef, ctx.xdtype = None, x.dtype
    loss = x[np.arange(n), t]
    if x.dtype.kind != "f":
        _nll_not_float(x)
    loss = np.negative(loss, out=loss)
    if reduction == "none":
        return loss
    # the sum in the order of PyTorch's kernel; the total weight is n (no weights)
    total = nll_sum(loss)
    return np.asarray(total / x.dtype.type(n) if reduction == "mean" else total)


def _nll_not_float(x):
    """PyTorch's error for a non-floating input to nll_loss (its kernels are float only)."""
    from .._dtype import _FROM_NP, SCALAR_NAMES
    kernel = "nll_loss_out_frame" if x.ndim == 2 else "nll_loss2d_forward_out_frame"
    raise NotImplementedError(f'"{kernel}" not implemented for '
                              f"'{SCALAR_NAMES[_FROM_NP[x.dtype]]}'")


class NllLossAllClasses(NllLoss):
    """NllLoss whose targets the caller has checked are all class indices (none equals
    ignore_index): unweighted (N, C) input is then one gather. Only used outside functorch
    transforms, whose batching rules know NllLoss itself."""
    _backward_name = "NllLossBackward0"
    _all_classes = True


class NllLoss2d(NllLoss):
    _backward_name = "NllLoss2DBackward0"


class MultilabelMarginLoss(BuiltinFunction):
    """loss_n = sum over listed targets j and unlisted classes i of max(0, 1 - x[j] + x[i]) / C
    for ``x`` (n, C), ``count`` (n, C) how often each class is listed (a class listed twice
    counts twice, as PyTorch loops over the list) and ``t`` the target as given (saved, with
    ``is_target``, for ``grad_fn._saved_*``); ``squeeze`` drops the batch of a 1-D input's
    unreduced loss.  dx[i] = sum_j w_ji, dx[j] -= sum_i w_ji with w the active pairs' factor."""
    _backward_name = "MultilabelMarginLossBackward0"

    @staticmethod
    def forward(ctx, x, t, count, reduction, squeeze):
        shape, dt = x.shape, x.dtype
        x2 = x.reshape(count.shape)
        c = count.shape[1]
        mk = (count > 0).astype(dt)
        pair = (count[:, :, None] * (count[:, None, :] == 0)).astype(dt)
        pre = (dt.type(1) - (x2 * mk)[:, :, None]) + x2[:, None, :]
        loss = torch_sum(np.maximum(pre, dt.type(0)) * pair, (1, 2), dt, False) / dt.type(c)
        if squeeze:
            loss = loss.reshape(())
        ctx.save_for_backward(x, t, mk.reshape(shape))
        ctx.reduction, ctx.mk, ctx.pair, ctx.active = reduction, mk, pair, pre > 0
        return reduce_array(loss, reduction)

    @staticmethod
    def backward(ctx, g):
        x = ctx.saved_tensors[0]
        n, c = ctx.mk.shape
        f = _scale(g, ctx.reduction, n) / c
        f = f.reshape(-1, 1, 1) if ctx.reduction == "none" else f
        w = f * _const(ctx.pair * ctx.active)  # (the pairs' factor: one per pair counted)
        gx = (w.sum(1) - w.sum(2) * _const(ctx.mk)).reshape(x.shape)
        from ..autograd.grad_mode import STATE
        if STATE.enabled:  # create_graph: PyTorch has no derivative of this backward
            from .torch_misc import NoDerivative
            gx = NoDerivative.apply(x, gx._data, "multilabel_margin_loss_backward")
        return gx, None, None, None, None


class MultiMarginLoss(BuiltinFunction):
    """loss_i = sum_{j != y_i} w[y_i] max(0, margin - x[y_i] + x[j])^p / C."""
    _backward_name = "MultiMarginLossBackward0"

    @staticmethod
    def forward(ctx, x, t, p, margin, w, reduction):
        n, c = x.shape
        picked = x[np.arange(n), t][:, None]
        z = np.maximum(x.dtype.type(margin) - picked + x, x.dtype.type(0))
        z[np.arange(n), t] = 0
        active = z > 0
        z = z * z if p == 2 else z
        if w is not None:
            z = z * w[t][:, None]
        ctx.save_for_backward(x, t, w)
        ctx.args = (p, margin, reduction)
        loss = z.sum(1, dtype=x.dtype) / x.dtype.type(c)
        return reduce_array(loss, reduction)

    @staticmethod
    def backward(ctx, g):
        x, t, w = ctx.saved_tensors
        p, margin, reduction = ctx.args
        n, c = x.shape
        rows = np.arange(n)
        picked = x[rows, t._data].unsqueeze(1)
        z = (x - picked + margin)
        mask = (z > 0)._data.copy()
        mask[rows, t._data] = False
        m = _const(mask.astype(x._data.dtype))
        dz = m * (z * 2 if p == 2 else 1)
        if w is not None:
            dz = dz * w[t].unsqueeze(1)
        f = _scale(g, reduction, n) / c
        if reduction == "none":
            f = f.unsqueeze(1)
        gx = dz * f
        onehot = _const(np.eye(c, dtype=x._data.dtype)[t._data])
        gx = gx - onehot * gx.sum(1, keepdim=True)
        return gx, None, None, None, None, None
