"""Connectionist temporal classification loss (Graves et al. 2006), as PyTorch's CPU kernel.

Forward runs the alpha recursion in log space over the blank-extended targets, vectorised over
the batch and the target positions. Backward runs the beta recursion and returns PyTorch's
gradient ``exp(lp) - exp(log(alpha*beta summed over the positions of c) + nll - lp)``, which
assumes ``log_probs`` come from a log_softmax (with it, the chain gives softmax - occupancy).
As in PyTorch, the backward itself cannot be differentiated.

>>> import numtorch as torch
>>> lp = torch.tensor([[[0.5, 0.5]], [[0.5, 0.5]]]).log()
>>> CtcLoss.apply(lp, np.array([[1]]), [2], [1], 0, False)
tensor([0.2877])
"""
import numpy as np

from ._base import BuiltinFunction

__all__ = ["CtcLoss", "ctc_targets"]

_NEG_INF = -np.inf


def ctc_targets(targets, target_lengths):
    """Each sample's target labels, from padded (N, S) or concatenated (sum S_i,) targets."""
    if targets.ndim == 2:
        return [targets[b, :n] for b, n in enumerate(target_lengths)]
    offsets = np.concatenate([[0], np.cumsum(target_lengths)]).astype(np.int64)
    return [targets[offsets[b]:offsets[b + 1]] for b in range(len(target_lengths))]


def _extended(labels, blank):
    """(N, 2*S+1) blank-interleaved labels, the valid-position mask, and where a position may
    be entered from two positions back (its label differs from that one's, as in PyTorch's
    kernel: so never onto a blank, but onto a target equal to ``blank`` it may)."""
    width = 2 * max((len(t) for t in labels), default=0) + 1
    ext = np.full((len(labels), width), blank, np.int64)
    for b, t in enumerate(labels):
        ext[b, 1:2 * len(t):2] = t
    lengths = np.array([2 * len(t) + 1 for t in labels])
    valid = np.arange(width)[None, :] < lengths[:, None]
    skip = np.zeros_like(valid)
    skip[:, 2:] = ext[:, 2:] != ext[:, :-2]
    return ext, valid, skip


def _logsumexp3(a, b, c):
    m = np.maximum(np.maximum(a, b), c)
    safe = np.where(np.isfinite(m), m, 0.0)
    return np.log(np.exp(a - safe) + np.exp(b - safe) + np.exp(c - safe)) + safe


def _shift(x, k):
    """x moved k positions right along the last axis, -inf filling."""
    out = np.full_like(x, _NEG_INF)
    out[..., k:] = x[..., :x.shape[-1] - k]
    return out


def _shift_left(x, k):
    out = np.full_like(x, _NEG_INF)
    out[..., :x.shape[-1] - k] = x[..., k:]
    return out


def _emissions(lp, ext):
    """lp_ext[t, b, s] = lp[t, b, ext[b, s]]."""
    return np.take_along_axis(lp, np.broadcast_to(ext[None], (lp.shape[0],) + ext.shape),
                              axis=2)


def _alpha(em, valid, skip, target_lengths):
    alpha = np.full(em.shape, _NEG_INF)
    alpha[0, :, 0] = em[0, :, 0]
    has = np.asarray(target_lengths) > 0
    alpha[0, has, 1] = em[0, has, 1]
    for t in range(1, em.shape[0]):
        prev = alpha[t - 1]
        two = np.where(skip, _shift(prev, 2), _NEG_INF)
        alpha[t] = np.where(valid, _logsumexp3(prev, _shift(prev, 1), two) + em[t], _NEG_INF)
    return alpha


def _beta(em, valid, skip, input_lengths, target_lengths):
    steps, batch, width = em.shape
    beta = np.full(em.shape, _NEG_INF)
    last = 2 * np.asarray(target_lengths)
    rows = np.arange(batch)
    il = np.asarray(input_lengths)
    skip_next = _shift_left(skip.astype(float), 2) > 0  # may s jump to s + 2
    for t in range(steps - 1, -1, -1):
        init = np.full((batch, width), _NEG_INF)
        init[rows, last] = em[t, rows, last]
        has = last > 0
        init[rows[has], last[has] - 1] = em[t, rows[has], last[has] - 1]
        if t + 1 < steps:
            nxt = beta[t + 1]
            two = np.where(skip_next, _shift_left(nxt, 2), _NEG_INF)
            rec = np.where(valid, _logsumexp3(nxt, _shift_left(nxt, 1), two) + em[t], _NEG_INF)
        else:
            rec = init
        beta[t] = np.where((t == il - 1)[:, None], init,
                           np.where((t < il - 1)[:, None], rec, _NEG_INF))
    return beta


def _nll(alpha, input_lengths, target_lengths):
    out = np.empty(alpha.shape[1])
    for b, (n, m) in enumerate(zip(input_lengths, target_lengths)):
        if n == 0:
            out[b] = 0.0 if m == 0 else np.inf
            continue
        end = alpha[n - 1, b, 2 * m]
        out[b] = -(np.logaddexp(end, alpha[n - 1, b, 2 * m - 1]) if m > 0 else end)
    return out


class CtcLoss(BuiltinFunction):
    """out[b] = -log p(target_b | log_probs[:, b]);  d log_probs: PyTorch's CTC gradient."""
    _backward_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
        lp = log_probs.astype(np.float64)
        labels = ctc_targets(targets, target_lengths)
        ext, valid, skip = _extended(labels, blank)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            em = _emissions(lp, ext)
            alpha = _alpha(em, valid, skip, target_lengths)
            nll = _nll(alpha, input_lengths, target_lengths)
        ctx.save_for_backward(log_probs)
        ctx.args = (targets, input_lengths, target_lengths, blank, zero_infinity)
        ctx.alpha, ctx.nll = alpha, nll
        return nll.astype(log_probs.dtype)

    @staticmethod
    def backward(ctx, g):
        (log_probs,) = ctx.saved_tensors
        grad = CtcLossGrad.apply(g, log_probs, ctx.alpha, ctx.nll, *ctx.args)
        return grad, None, None, None, None, None


class CtcLossGrad(BuiltinFunction):
    """PyTorch's ``_ctc_loss_backward`` (not differentiable, as in PyTorch)."""
    _backward_name = "NotImplemented"

    @staticmethod
    def forward(ctx, g, log_probs, alpha, nll, targets, input_lengths, target_lengths, blank,
                zero_infinity):
        lp = log_probs.astype(np.float64)
        ext, valid, skip = _extended(ctc_targets(targets, target_lengths), blank)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            em = _emissions(lp, ext)
            beta = _beta(em, valid, skip, input_lengths, target_lengths)
            occupancy = _class_logsum(_last_step_quirk(alpha + beta, ext, input_lengths,
                                                       target_lengths, blank), ext, lp.shape[2])
            grad = np.exp(lp) - np.exp(occupancy + nll[None, :, None] - lp)
        grad = grad * g.astype(np.float64)[None, :, None]
        live = np.arange(lp.shape[0])[:, None] < np.asarray(input_lengths)[None, :]
        if zero_infinity:
            live = live & ~np.isinf(nll)[None, :]
        return np.where(live[:, :, None], grad, 0.0).astype(log_probs.dtype)

    @staticmethod
    def backward(ctx, gg):
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


def _last_step_quirk(ab, ext, input_lengths, target_lengths, blank):
    """NOTE: at a sample's last step PyTorch's kernel sets (not adds) the blank's occupancy
    from the last target when that target is the blank label (invalid input, but matched)."""
    for b, (n, m) in enumerate(zip(input_lengths, target_lengths)):
        if n > 0 and m > 0 and ext[b, 2 * m - 1] == blank:
            ab[n - 1, b, 2 * m] = _NEG_INF
    return ab


def _class_logsum(ab, ext, classes):
    """log of sum over positions s with ext[b, s] == c of exp(ab[t, b, s]): (T, N, C)."""
    steps, batch, _ = ab.shape
    top = np.max(ab, axis=2, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    acc = np.zeros((steps, batch, classes))
    index = np.broadcast_to(ext[None], ab.shape)
    t_idx, b_idx = np.meshgrid(np.arange(steps), np.arange(batch), indexing="ij")
    np.add.at(acc, (t_idx[..., None], b_idx[..., None], index), np.exp(ab - top))
    return np.log(acc) + top


# ---- the public function: argument checks (PyTorch's messages) and reductions -------------
_WHERE = " (while checking arguments for ctc_loss_allocate_outputs)"


def _check_length_types(args):
    """PyTorch's overloads take both lengths as tensors or both as sequences of ints."""
    from .._tensor import Tensor
    def kind(v):
        if isinstance(v, Tensor):
            return "tensor"
        return "ints" if isinstance(v, (list, tuple)) else None
    if kind(args[2]) is not None and kind(args[2]) == kind(args[3]):
        return
    names = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    raise TypeError(
        f"ctc_loss() received an invalid combination of arguments - got ({names}), but "
        "expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, "
        "tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, "
        "bool zero_infinity = False)\n * (Tensor log_probs, Tensor targets, Tensor "
        "input_lengths, Tensor target_lengths, int blank = 0, int reduction = "
        "at::Reduction::Mean, bool zero_infinity = False)\n")


def _lengths(value, name):
    """A list of ints from a tensor, list or tuple of lengths."""
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point or value.dtype.is_complex:
            raise RuntimeError(f"{name} must be integral")
        value = value.reshape(-1).tolist()
    return [int(v) for v in value]


def _check_targets(targets, target_lengths, batch):
    """PyTorch's checks of the target lengths and the targets' shape."""
    for n in target_lengths:
        if n < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got "
                               f"value {n}{_WHERE}")
    arg = "argument #2 'targets'"
    if targets.ndim == 1:
        total = sum(target_lengths)
        if targets.shape[0] != total:
            raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got "
                               f"size {targets.shape[0]} for {arg}{_WHERE}")
        return
    if targets.shape[0] != batch:
        raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size "
                           f"{targets.shape[0]} for {arg}{_WHERE}")
    longest = max(target_lengths, default=0)
    if targets.shape[1] < longest:
        raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, "
                           f"but got size {targets.shape[1]} for {arg}{_WHERE}")


def _check_args(log_probs, targets, input_lengths, target_lengths, blank):
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    _check_targets(targets, target_lengths, batch)
    for n in input_lengths:
        if n < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got "
                               f"value {n}{_WHERE}")
        if n > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got "
                               f"value {n}{_WHERE}")


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
             zero_infinity):
    """The CTC loss of (T, N, C) or (T, C) ``log_probs``; ``reduction`` already checked."""
    from .elementwise import where
    from .. import tensor, zeros
    batched = log_probs.dim() == 3
    if log_probs.dim() not in (2, 3):
        raise RuntimeError(f"ctc_loss: expected log_probs to be 2-D or 3-D, but got "
                           f"{log_probs.dim()}-D")
    _check_length_types((log_probs, targets, input_lengths, target_lengths, blank, 1,
                         zero_infinity))
    lp = log_probs if batched else log_probs.unsqueeze(1)
    input_lengths = _lengths(input_lengths, "input_lengths")
    target_lengths = _lengths(target_lengths, "target_lengths")
    labels = np.asarray(targets._data if hasattr(targets, "_data") else targets).astype(
        np.int64)
    if not batched and labels.ndim == 1 and len(target_lengths) == 1:
        labels = labels.reshape(-1)
    _check_args(lp._data, labels, input_lengths, target_lengths, blank)
    res = CtcLoss.apply(lp, labels, input_lengths, target_lengths, blank, zero_infinity)
    if zero_infinity:
        res = where(res == float("inf"), zeros((), dtype=res.dtype), res)
    if reduction == "mean":
        return (res / tensor(target_lengths, dtype=res.dtype).clamp_min(1)).mean()
    if reduction == "sum":
        return res.sum()
    return res if batched else res.squeeze(0)
