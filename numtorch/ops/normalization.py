"""Batch, layer and group normalisation as built-in ops.

Forward follows PyTorch's CPU kernels: statistics accumulate in double for float inputs and
the output is ``x * alpha + beta`` with per-channel ``alpha = invstd * w``, ``beta = b - mean *
alpha``. Backward is the usual normalisation gradient written in Tensor ops; under
``create_graph`` it recomputes the statistics from ``x`` so the second derivative includes
their dependence on ``x``.

>>> import numtorch as torch
>>> from numtorch.ops.normalization import NativeLayerNorm
>>> NativeLayerNorm.apply(torch.tensor([[1., 3.]]), None, None, 1, 1e-5)
tensor([[-1.0000,  1.0000]])
"""
import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import STATE
from ..autograd.function import once_differentiable
from ._base import BuiltinFunction
from .. import _random as R, _threads
from ._cascade import running_sum  # a left-to-right sum along an axis

_make = Tensor._make


def _const(a):
    return _make(np.asarray(a), None, False)


def moments(x, axes):
    """(mean in x's dtype, biased variance in double) over ``axes``, as PyTorch's CPU stats."""
    acc = np.float64 if x.dtype.kind == "f" else x.dtype
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    mean = (x.sum(axis=axes, dtype=acc, keepdims=True) / max(n, 1)).astype(x.dtype)
    d = x.astype(acc) - mean.astype(acc)
    var = (d * d).sum(axis=axes, keepdims=True) / max(n, 1)
    return mean, var, n


def _row_moments(x, axes):
    """``moments`` for float x over trailing ``axes``: one double copy of x, reused."""
    n = max(int(np.prod([x.shape[a] for a in axes], dtype=np.int64)), 1)
    d = x.astype(np.float64)
    mean = (d.sum(axis=axes, keepdims=True) / n).astype(x.dtype)
    d = np.subtract(d, mean.astype(np.float64), out=d)
    return mean, np.multiply(d, d, out=d).sum(axis=axes, keepdims=True) / n


_EXACT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# NOTE: an (N, C) batch's statistics are replayed row by row (a Python loop of fused
# multiply-adds, ~4 us a row): up to this many rows per PyTorch thread block (small-batch
# scripts, ~1 ms at most); longer blocks take the vectorised formula, a last bit apart
_MAX_BLOCK_ROWS = 256


def _fma(a, b, c):
    """a * b + c rounded once, in the dtype of the float32/float64 arrays."""
    return R._fma32(a, b, c) if np.result_type(a, b, c) == np.float32 else R._fma64(a, b, c)


def _bn_exact(x, w, b):
    """Whether batch norm of ``x`` can follow PyTorch's kernels bit for bit here."""
    dt = x.dtype
    return (dt in _EXACT_DTYPES and x.ndim >= 2 and x.size > 0
            and all(t is None or t.dtype == dt for t in (w, b)))


def _bn_stats(x):
    """(mean, var_sum, n) per channel, rounded as PyTorch's CPU batch-norm statistics.

    With spatial positions, each channel sums sequentially in double over (batch, position)
    and its squared deviations (in x's dtype) likewise; an (N, C) input instead is split into
    one block of rows per PyTorch thread, summed in x's dtype (the squares fused into the
    adds), and the blocks combined in double. None where that is too long to replay.
    """
    nb, c = x.shape[:2]
    n = x.size // c
    dt = x.dtype
    if n == nb:                                     # image size 1: PyTorch's channels-last path
        return _bn_stats_rows(x.reshape(nb, c), n)
    # rows in PyTorch's (batch, position) order, one column per channel
    xt = np.ascontiguousarray(x.reshape(nb, c, -1).transpose(0, 2, 1)).reshape(n, c)
    mean = (running_sum(xt.astype(np.float64), 0) / n).astype(dt)
    d = xt - mean
    var_sum = running_sum(np.multiply(d, d, out=d).astype(np.float64), 0).astype(dt)
    return mean, var_sum, n


def _bn_stats_rows(x2, n):
    threads = min(_threads.get_num_threads(), n)
    chunk = -(-n // threads)
    if chunk > _MAX_BLOCK_ROWS:
        return None
    blocks = -(-n // chunk)
    pad = blocks * chunk - n
    dt, c = x2.dtype, x2.shape[1]
    # NOTE: padded rows add 0 (and square a zero deviation), leaving every block's sum as is
    xs = np.concatenate([x2, np.zeros((pad, c), dt)]).reshape(blocks, chunk, c)
    mean = (running_sum(running_sum(xs, 1).astype(np.float64), 0) / n).astype(dt)
    d = xs - mean
    d.reshape(-1, c)[n:] = 0
    acc = np.zeros((blocks, c), dt)
    for r in range(chunk):
        acc = _fma(d[:, r], d[:, r], acc)
    return mean, running_sum(acc.astype(np.float64), 0).astype(dt), n


def _bn_train_exact(x, rm, rv, momentum, eps):
    """Batch statistics (mean, invstd) in x's dtype and PyTorch's running-stat updates, or
    None where ``_bn_stats`` declines."""
    stats = _bn_stats(x)
    if stats is None:
        return None
    mean, var_sum, n = stats
    dt = x.dtype.type
    invstd = (1.0 / np.sqrt((var_sum / dt(n)).astype(np.float64) + eps)).astype(x.dtype)
    # NOTE: PyTorch casts momentum to the buffers' type and blends the mean in that type;
    # the unbiased variance (var_sum / (n - 1) in x's type) is a double, so its product and
    # the sum are in double, the other product in the buffer's type
    mom = dt(momentum)
    if rm is not None:
        rm[...] = mom * mean + (dt(1) - mom) * rm
    if rv is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            unbiased = (var_sum / dt(n - 1)).astype(np.float64)
        rv[...] = np.float64(mom) * unbiased + ((dt(1) - mom) * rv).astype(np.float64)
    return mean, invstd


def _bn_affine_exact(x, mean, invstd, w, b):
    """PyTorch's ``x * alpha + beta`` with alpha = invstd * w and beta = b - mean * alpha,
    both as fused multiply-adds (its vectorised kernel's contraction)."""
    alpha = invstd if w is None else invstd * w
    beta = _fma(-mean, alpha, x.dtype.type(0) if b is None else b)
    cshape = _channel_shape(x.ndim)
    return _fma(x, alpha.reshape(cshape), beta.reshape(cshape))


def _affine(x, mean, invstd, w, b):
    """x * alpha + beta with alpha = invstd * w and beta = b - mean * alpha."""
    alpha = invstd if w is None else invstd * w
    beta = -mean * alpha if b is None else b - mean * alpha
    return x * alpha + beta


def norm_grads(g, x, axes, eps, stats, w_b):
    """Gradients (x, xhat) of normalising over ``axes``; ``w_b`` is w broadcast (or None).

    ``stats`` holds the saved (mean, invstd) constants; under create_graph they are
    recomputed from ``x`` so that higher derivatives see their dependence on x.
    """
    if STATE.enabled:
        mean = x.mean(axes, keepdim=True)
        c = x - mean
        invstd = ((c * c).mean(axes, keepdim=True) + eps).rsqrt()
    else:
        mean, invstd = _const(stats[0]), _const(stats[1])
        c = x - mean
    xhat = c * invstd
    gh = g if w_b is None else g * w_b
    gx = (gh - gh.mean(axes, keepdim=True) - xhat * (gh * xhat).mean(axes, keepdim=True))
    return gx * invstd, xhat


def _channel_shape(ndim):
    return (1, -1) + (1,) * (ndim - 2)


class NativeBatchNorm(BuiltinFunction):
    """out = (x - mean) * invstd * w + b per channel (dim 1); batch or running statistics.
    Training updates running_mean/var in place (unbiased var, ``momentum``)."""
    _backward_name = "NativeBatchNormBackward0"
    # an absent weight/bias (None) still has an edge, (None, 0), as in PyTorch
    _wrapped_scalars = (1, 2)

    @staticmethod
    def forward(ctx, x, w, b, rm, rv, training, momentum, eps):
        axes = (0,) + tuple(range(2, x.ndim))
        cshape = _channel_shape(x.ndim)
        # (the running stats only for grad_fn._saved_running_mean/var, as PyTorch keeps them)
        ctx.save_for_backward(x, w, rm, rv)
        ctx.training, ctx.eps, ctx.axes = training, eps, axes
        exact = _bn_exact(x, w, b) and (training or (rm.dtype == rv.dtype == x.dtype))
        stats = None
        if exact and training:
            stats = _bn_train_exact(x, rm, rv, momentum, eps)
        elif exact:
            stats = rm, x.dtype.type(1) / np.sqrt(rv + x.dtype.type(eps))
        if stats is not None:
            ctx.stats = tuple(t.reshape(cshape) for t in stats)
            return _bn_affine_exact(x, stats[0], stats[1], w, b)
        if training:
            mean, var, n = moments(x, axes)
            invstd = (1.0 / np.sqrt(var + eps)).astype(x.dtype)
            _update_running(rm, rv, mean, var, n, momentum)
        else:
            mean = rm.reshape(cshape)
            invstd = 1 / np.sqrt(rv.reshape(cshape) + x.dtype.type(eps))
        ctx.stats = mean, invstd
        wb = None if w is None else w.reshape(cshape)
        bb = None if b is None else b.reshape(cshape)
        return _affine(x, mean, invstd, wb, bb).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors[:2]
        cshape = _channel_shape(x.ndim)
        wb = None if w is None else w.reshape(cshape)
        nx, nw, nb = ctx.needs_input_grad[:3]
        if ctx.training:
            gx, xhat = norm_grads(g, x, ctx.axes, ctx.eps, ctx.stats, wb)
        else:
            mean, invstd = _const(ctx.stats[0]), _const(ctx.stats[1])
            xhat = (x - mean) * invstd
            gx = g * invstd if wb is None else g * (wb * invstd)
        gw = (g * xhat).sum(ctx.axes) if nw else None
        gb = g.sum(ctx.axes) if nb else None
        return (gx if nx else None), gw, gb, None, None, None, None, None


def _update_running(rm, rv, mean, var, n, momentum):
    # NOTE: PyTorch blends in double and stores back in the buffer's dtype.
    if rm is not None:
        m = mean.reshape(-1).astype(np.float64)
        rm[...] = momentum * m + (1 - momentum) * rm.astype(np.float64)
    if rv is not None:
        unbiased = var.reshape(-1) * n / max(n - 1, 1) if n > 1 else var.reshape(-1) * np.nan
        rv[...] = momentum * unbiased + (1 - momentum) * rv.astype(np.float64)


class NativeLayerNorm(BuiltinFunction):
    """out = (x - mean) * rstd * w + b over the last ``k`` dims;  the normalisation grads."""
    _backward_name = "NativeLayerNormBackward0"
    # an absent weight/bias (None) still has an edge, (None, 0), as in PyTorch
    _wrapped_scalars = (1, 2)

    @staticmethod
    def forward(ctx, x, w, b, k, eps):
        axes = tuple(range(x.ndim - k, x.ndim))
        mean, var = _row_moments(x, axes) if x.dtype.kind == "f" else moments(x, axes)[:2]
        rstd = (1.0 / np.sqrt(var + eps)).astype(x.dtype)
        ctx.save_for_backward(x, w, b)  # (b only for grad_fn._saved_bias, as PyTorch keeps it)
        ctx.stats, ctx.eps, ctx.axes = (mean, rstd), eps, axes
        out = np.multiply(x, rstd)
        out = np.add(out, -rstd * mean, out=out) if out.dtype == x.dtype else out - rstd * mean
        # NOTE: in place only where the result dtype stays; a wider w or b widens, as before
        if w is not None:
            out = np.multiply(out, w, out=out) if w.dtype == out.dtype else out * w
        if b is not None:
            out = np.add(out, b, out=out) if b.dtype == out.dtype else out + b
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors[:2]
        nx, nw, nb = ctx.needs_input_grad[:3]
        lead = tuple(range(x.ndim - len(ctx.axes)))
        gx, xhat = norm_grads(g, x, ctx.axes, ctx.eps, ctx.stats, w)
        gw = (g * xhat).sum(lead) if nw and lead else ((g * xhat) if nw else None)
        gb = (g.sum(lead) if lead else g) if nb else None
        return (gx if nx else None), gw, gb, None, None


def _norm_grads_arrays(g, x, axes, stats, w):
    """``norm_grads`` on arrays, for a first-order backward: the same ufuncs in the same
    order (so the same bits), with fewer temporaries and no graph bookkeeping."""
    mean, invstd = stats
    xhat = np.subtract(x, mean)
    xhat = np.multiply(xhat, invstd, out=xhat)
    gh = g if w is None else np.multiply(g, w)
    a = np.mean(gh, axis=axes, keepdims=True, dtype=gh.dtype)
    t = np.multiply(gh, xhat)
    b = np.mean(t, axis=axes, keepdims=True, dtype=t.dtype)
    gx = np.subtract(gh, a)
    gx = np.subtract(gx, np.multiply(xhat, b, out=t), out=gx)
    return np.multiply(gx, invstd, out=gx), xhat


def _layer_norm_grads_arrays(ctx, g):
    """NativeLayerNorm's first-order gradients (x, w, b) computed on arrays (its
    ``_np_backward``); NotImplemented for mixed dtypes, which the Tensor formula promotes."""
    x, w = ctx.saved_tensors[:2]
    x = x._data
    dt = x.dtype
    if g.dtype != dt or (w is not None and w._data.dtype != dt):
        return NotImplemented
    lead = tuple(range(x.ndim - len(ctx.axes)))
    nx, nw, nb = ctx.needs_input_grad[:3]
    gx, xhat = _norm_grads_arrays(g, x, ctx.axes, ctx.stats, None if w is None else w._data)
    gw = gb = None
    if nw:
        gw = np.multiply(g, xhat, out=xhat)
        gw = np.sum(gw, axis=lead) if lead else gw
    if nb:
        gb = np.sum(g, axis=lead) if lead else g
    return (gx if nx else None), gw, gb, None, None


NativeLayerNorm._np_backward = staticmethod(_layer_norm_grads_arrays)


def _group_size(shape, groups):
    """Elements per (sample, group), spelled out: an empty batch leaves -1 undetermined."""
    return int(np.prod(shape[1:], dtype=np.int64)) // groups


class NativeGroupNorm(BuiltinFunction):
    """out = per-(sample, group) normalisation of x (N, C, *), then per-channel w, b."""
    _backward_name = "NativeGroupNormBackward0"
    # an absent weight/bias (None) still has an edge, (None, 0), as in PyTorch
    _wrapped_scalars = (1, 2)

    @staticmethod
    def forward(ctx, x, w, b, groups, eps):
        n = x.shape[0]
        xg = x.reshape(n, groups, _group_size(x.shape, groups))
        mean, var, _ = moments(xg, (2,))
        rstd = (1.0 / np.sqrt(var + eps)).astype(x.dtype)
        ctx.save_for_backward(x, w)
        ctx.stats, ctx.eps, ctx.groups = (mean, rstd), eps, groups
        out = ((xg - mean) * rstd).reshape(x.shape)
        cshape = _channel_shape(x.ndim)
        if w is not None:
            out = out * w.reshape(cshape)
        if b is not None:
            out = out + b.reshape(cshape)
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        nx, nw, nb = ctx.needs_input_grad[:3]
        n = x.shape[0]
        shape = tuple(x.shape)
        cshape = _channel_shape(x.ndim)
        gh = g if w is None else g * w.reshape(cshape)
        gsize = _group_size(shape, ctx.groups)
        gx, xhat = norm_grads(gh.reshape(n, ctx.groups, gsize), x.reshape(n, ctx.groups, gsize),
                              (2,), ctx.eps, ctx.stats, None)
        xhat = xhat.reshape(shape)
        axes = (0,) + tuple(range(2, x.ndim))
        gw = (g * xhat).sum(axes) if nw else None
        gb = g.sum(axes) if nb else None
        return (gx.reshape(shape) if nx else None), gw, gb, None, None


def _band(c, lows, highs):
    """(C, C) 0/1 matrix with row i selecting channels lows[i] <= j <= highs[i]."""
    j = np.arange(c)
    return ((j >= np.asarray(lows)[:, None]) & (j <= np.asarray(highs)[:, None])).astype(float)


def _channel_mix(m, x):
    """y[:, i] = sum_j m[i, j] x[:, j] for an (N, C, H, W) ndarray."""
    return np.einsum("ij,njhw->nihw", m.astype(x.dtype), x)


class CrossMapLRN2d(BuiltinFunction):
    """out = x (k + alpha/size sum_window x^2)^-beta, with PyTorch's legacy window (channel 0
    never leaves it) and its legacy backward formula (once differentiable, as there)."""
    _backward_name = "CrossMapLRN2dBackward"

    @staticmethod
    def forward(ctx, x, size, alpha, beta, k):
        c = x.shape[1]
        pre = int((size - 1) / 2 + 1)
        i = np.arange(c)
        window = _band(c, i - pre + 1, i + pre - 1)
        window[:, 0] = 1  # NOTE: PyTorch's running window never subtracts channel 0
        scale = _channel_mix(window, x * x) * (alpha / size) + k
        out = scale ** -beta * x
        ctx.params = (size, alpha, beta)
        ctx.scale = scale
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, out = (t._data for t in ctx.saved_tensors)
        size, alpha, beta = ctx.params
        g, scale = g._data, ctx.scale
        c = x.shape[1]
        inv = int(size - (size - 1) / 2)
        i = np.arange(c)
        ratio = _channel_mix(_band(c, i - inv, i + size - 1 - inv), g * out / scale)
        gx = scale ** -beta * g - (2 * alpha * beta / size) * x * ratio
        return Tensor._make(gx.astype(x.dtype), None, False), None, None, None, None


# NOTE: PyTorch normalises half input in float32 (statistics and output) and rounds the
# output once
from ._util import half_in_float32  # noqa: E402
for _cls in (NativeLayerNorm, NativeGroupNorm, NativeBatchNorm):
    half_in_float32(_cls)
del _cls
