"""Pooling, padding and resampling ops (any number of spatial dims).

Max pooling scans the kernel offsets, one strided slice of the padded input per offset, and
keeps each window's running max and offset; its backward scatters the gradient to those
offsets (``MaxPoolScatter``, whose own backward is the gather ``MaxPoolGather``). Adaptive and
fractional max pooling scatter to flat indices with ``scatter_add``. Average pooling and the
index-based paddings have linear adjoints written as ops too, and resampling applies one small
matrix per spatial dim, so all of these differentiate twice.

>>> import numtorch as torch
>>> from numtorch.ops.pooling import MaxPool, PoolGeom
>>> x = torch.tensor([[[[1., 2.], [3., 4.]]]])
>>> MaxPool.apply(x, PoolGeom((2, 2), (2, 2), (2, 2), ((0, 0), (0, 0)), (1, 1)))[0]
tensor([[[[4.]]]])
"""
import itertools

import numpy as np

from .._tensor import Tensor
from ..autograd.function import once_differentiable
from ._base import BuiltinFunction
from .conv import ConvGeom, pad_array

_make = Tensor._make


def _const(a):
    return _make(np.ascontiguousarray(a), None, False)


class PoolGeom(ConvGeom):
    """A ConvGeom for pooling: ``pad`` may include the ceil-mode extra on the high side."""

    def __init__(self, in_size, kernel, stride, pad, dilation):
        super().__init__(in_size, kernel, stride, pad, dilation, 1)


def _min_value(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


class MaxPool(BuiltinFunction):
    """out = max over each window (and, with ``with_indices``, the flat spatial argmax);
    dx = g scattered to each window's argmax (``MaxPoolScatter``)."""
    _backward_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, geom, with_indices=True):
        L = geom.out_size()
        xp = pad_array(x, geom.pad, _min_value(x.dtype))
        slices = _offset_slices(geom, L, x.ndim)
        if not (with_indices or ctx.needs_input_grad[0]):
            return _window_max(xp, slices)
        out, arg = _window_argmax(xp, slices, _first_valid(geom, L))
        # (x: PyTorch saves the input, grad_fn._saved_self, and so checks its version)
        ctx.save_for_backward(x, arg)
        ctx.geom, ctx.shape = geom, x.shape
        return (out, _flat_index(arg, L, geom)) if with_indices else out

    @staticmethod
    def backward(ctx, g, _gidx=None):
        arg = ctx.saved_tensors[1]._data
        nsp = len(ctx.geom.kernel)
        cls = named(MaxPoolScatter, f"MaxPool{nsp}DWithIndicesBackwardBackward0")
        return cls.apply(g, arg, ctx.geom, ctx.shape), None, None


def _offset_slices(geom, L, ndim):
    """Per kernel offset (row-major, as PyTorch scans a window), the strided slice of the
    padded input that this offset reads for every output position."""
    lead = (slice(None),) * (ndim - len(L))
    return [lead + tuple(slice(k * d, k * d + (n - 1) * s + 1, s) for k, d, n, s in
                         zip(ks, geom.dilation, L, geom.stride))
            for ks in itertools.product(*(range(k) for k in geom.kernel))]


def _window_max(xp, slices):
    """The max of each window (NaN if the window holds one) without its position."""
    out = xp[slices[0]].copy()
    for sl in slices[1:]:
        np.maximum(out, xp[sl], out=out)
    return out


def _window_argmax(xp, slices, first):
    """Max of each window and its kernel offset number, chosen as PyTorch does: the first
    largest valid value, or the last NaN in a window that holds one.

    Args:
        xp: the input padded with the dtype's minimum (never a strict maximum, so never
            chosen over a real value).
        slices: ``_offset_slices``.
        first: offset number of each window's first in-bounds element (where the scan
            starts, so that a window of ``-inf`` values points inside the input), or 0.
    """
    # NOTE: one pass per kernel offset over output-sized arrays, instead of a copy of all
    # windows and an argmax along a short axis (slow in NumPy). Masked writes (np.where,
    # copyto's where=) are several times slower than arithmetic, so the offset is updated as
    # max(arg, taken * j): j exceeds every offset taken before, and a real value is never
    # taken before its window's first valid offset.
    out = xp[slices[0]].copy()
    dt = _offset_dtype(len(slices))
    arg = np.empty(out.shape, dt)
    arg[...] = first
    for j, sl in enumerate(slices[1:], 1):
        s = xp[sl]
        taken = np.greater(s, out).view(np.int8)
        np.maximum(arg, taken * dt(j), out=arg)
        np.maximum(out, s, out=out)  # NaN propagates; its position is fixed below
    if out.dtype.kind == "f" and np.isnan(out).any():
        for j, sl in enumerate(slices):
            np.copyto(arg, j, where=np.isnan(xp[sl]))
    return out, arg


def _flat_index(arg, L, geom):
    """Window-local argmax (offset number) -> flat index into the unpadded input's spatial
    dims."""
    ks = np.unravel_index(arg, geom.kernel)
    flat = np.zeros(arg.shape, np.int64)
    nsp = len(L)
    for i in range(nsp):
        shape = [1] * arg.ndim
        shape[arg.ndim - nsp + i] = L[i]
        start = np.arange(L[i]).reshape(shape) * geom.stride[i] - geom.pad[i][0]
        pos = start + ks[i] * geom.dilation[i]
        flat = flat * geom.in_size[i] + pos
    return flat


def keep_args(out, **args):
    """Note on the node of ``out`` (a Tensor or a tuple of one node's outputs) the pooling
    arguments as PyTorch's node shows them (``grad_fn._saved_kernel_size`` ...); nothing
    when no node was recorded."""
    node = (out[0] if type(out) is tuple else out)._grad_fn
    if node is not None:
        node.pool_args = args
    return out


def saved_indices(ctx):
    """A max pool's flat indices (PyTorch's ``result1``), derived from the kept offsets."""
    arg = ctx.saved_tensors[1]._data
    nsp = len(ctx.geom.kernel)
    return _make(_flat_index(arg, arg.shape[arg.ndim - nsp:], ctx.geom), None, False)


def _offset_dtype(n):
    return np.int8 if n <= 127 else np.int16 if n <= 32767 else np.int32


def _first_valid(geom, L):
    """Offset number of each window's first in-bounds element: (*L) ints, or 0 unpadded."""
    if not any(lo for lo, _ in geom.pad):
        return 0
    first = np.zeros((), np.int64)
    for i, n in enumerate(L):
        lo, s, d = geom.pad[i][0], geom.stride[i], geom.dilation[i]
        # smallest k with n*s - lo + k*d >= 0
        k = np.maximum(-((np.arange(n) * s - lo) // d), 0)
        first = np.add.outer(first * geom.kernel[i], k)
    return first


class MaxPoolScatter(BuiltinFunction):
    """out = zeros of the input's shape with g added at each window's argmax (``arg``, the
    kernel offset number);  dg = MaxPoolGather(gg): both linear, so this differentiates to
    any order."""
    _backward_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, g, arg, geom, shape):
        ctx.save_for_backward(arg)
        ctx.geom = geom
        nsp = len(geom.kernel)
        lead = tuple(shape[:len(shape) - nsp])
        out = np.zeros(lead + geom.padded_size(), g.dtype)
        slices = _offset_slices(geom, g.shape[g.ndim - nsp:], len(shape))
        disjoint = all(s >= d * (k - 1) + 1 for s, d, k in
                       zip(geom.stride, geom.dilation, geom.kernel))
        # NOTE: g * hit is faster than a masked write but turns an inf or NaN in g into NaN
        # where hit is False; such g takes np.where
        finite = g.dtype.kind != "f" or np.isfinite(g).all()
        for j, sl in enumerate(slices):
            hit = arg == j
            if not finite:
                out[sl] += np.where(hit, g, 0)
            elif disjoint:  # no two windows share an element: write in place
                np.multiply(g, hit, out=out[sl])
            else:
                out[sl] += g * hit
        if disjoint and finite and g.dtype.kind == "f":
            # NOTE: a negative g times a miss is -0.0; PyTorch adds g into zeros (+0.0)
            out += 0
        return _crop(out, geom)

    @staticmethod
    def backward(ctx, gg):
        return MaxPoolGather.apply(gg, ctx.saved_tensors[0]._data, ctx.geom), None, None, None


class MaxPoolGather(BuiltinFunction):
    """out = gg read at each window's argmax;  dgg = MaxPoolScatter(g)."""
    _backward_name = "MaxPoolGatherBackward0"

    @staticmethod
    def forward(ctx, gg, arg, geom):
        ctx.save_for_backward(arg)
        ctx.geom, ctx.shape = geom, gg.shape
        nsp = len(geom.kernel)
        ggp = pad_array(gg, geom.pad)
        out = np.zeros(arg.shape, gg.dtype)
        finite = gg.dtype.kind != "f" or np.isfinite(gg).all()
        for j, sl in enumerate(_offset_slices(geom, arg.shape[arg.ndim - nsp:], gg.ndim)):
            hit = arg == j
            out += ggp[sl] * hit if finite else np.where(hit, ggp[sl], 0)
        return out

    @staticmethod
    def backward(ctx, g):
        return MaxPoolScatter.apply(g, ctx.saved_tensors[0]._data, ctx.geom, ctx.shape), None, \
            None


def _crop(xp, geom):
    """The unpadded part of a padded array (a contiguous copy, or ``xp`` itself)."""
    if not any(lo or hi for lo, hi in geom.pad):
        return xp
    crop = tuple(slice(lo, lo + s) for (lo, _), s in zip(geom.pad, geom.in_size))
    return np.ascontiguousarray(xp[(Ellipsis,) + crop])


def _indices_backward(ctx, g):
    """dx of a pooling op that saved flat spatial indices (adaptive, fractional max)."""
    idx = ctx.saved_tensors[-1]
    return scatter_back(g, idx, ctx.shape, ctx.nsp)


def scatter_back(g, idx, shape, nsp):
    """Add ``g`` into a zero tensor of ``shape`` at the flat indices ``idx`` of the last
    ``nsp`` dims."""
    from .._creation import zeros
    lead = tuple(shape[:len(shape) - nsp])
    n_out = int(np.prod(tuple(idx.shape)[len(lead):]))  # not -1: lead may hold a zero
    flat_g = g.reshape(lead + (n_out,))
    flat_i = idx.reshape(lead + (n_out,))
    out = zeros(lead + (int(np.prod(shape[len(lead):])),), dtype=g.dtype)
    return out.scatter_add(len(lead), flat_i, flat_g).reshape(shape)


class MaxUnpool(BuiltinFunction):
    """out = zeros(size) with x placed at indices;  dx = g gathered at the indices."""
    _backward_name = "MaxUnpool2DBackward0"

    @staticmethod
    def forward(ctx, x, idx, out_shape):
        ctx.save_for_backward(idx)
        lead = x.shape[:2]
        out = np.zeros(lead + (int(np.prod(out_shape[2:])),), x.dtype)
        if out.size:  # (not -1 in the reshape: the batch may be empty)
            n_in = int(np.prod(x.shape[2:]))
            np.put_along_axis(out, idx.reshape(lead + (n_in,)), x.reshape(lead + (n_in,)), -1)
        return out.reshape(out_shape)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        lead = tuple(g.shape[:2])
        if not g.numel():
            return g.new_zeros(tuple(idx.shape)), None, None
        n_out, n_in = int(np.prod(tuple(g.shape[2:]))), int(np.prod(tuple(idx.shape[2:])))
        flat = g.reshape(lead + (n_out,)).gather(2, idx.reshape(lead + (n_in,)))
        return flat.reshape(idx.shape), None, None


def avg_divisor(geom, orig_pad, count_include_pad, divisor_override, dtype):
    """PyTorch's per-window divisor (an array broadcasting over the output's spatial dims)."""
    if divisor_override:
        return np.asarray(divisor_override, dtype)
    L = geom.out_size()
    div = np.ones((), np.int64)
    for i, n in enumerate(L):
        start = np.arange(n) * geom.stride[i] - orig_pad[i]
        end = np.minimum(start + geom.kernel[i], geom.in_size[i] + orig_pad[i])
        if count_include_pad:
            d = end - start
        else:
            d = np.minimum(end, geom.in_size[i]) - np.maximum(start, 0)
        div = np.multiply.outer(div, d)
    return div.astype(dtype)


def _int_divide(a, b):
    """a / b rounded toward zero, as C++ integer division (PyTorch's integer avg_pool)."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q).astype(a.dtype)


class WindowSum(BuiltinFunction):
    """out = sum over each (zero-padded) window;  dx = WindowScatter(g)."""
    _backward_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, geom, divisor):
        ctx.save_for_backward(x)  # (PyTorch keeps the input: grad_fn._saved_self)
        ctx.geom, ctx.divisor = geom, divisor
        xp = pad_array(x, geom.pad)
        slices = _offset_slices(geom, geom.out_size(), x.ndim)
        # NOTE: PyTorch adds a window's elements one by one, in row-major order, to a zero
        # sum (padding adds nothing): the same order here, one pass per kernel offset, so
        # the same rounding (NumPy's pairwise sum of a window rounds differently), and the
        # zero start turns a window of -0.0 into +0.0 as there
        s = np.add(xp[slices[0]], x.dtype.type(0))
        for sl in slices[1:]:
            s += xp[sl]
        if divisor is None:
            return s
        return _int_divide(s, divisor) if x.dtype.kind in "iu" else s / divisor

    @staticmethod
    def backward(ctx, g):
        if ctx.divisor is not None:
            g = g / _const(ctx.divisor)
        return WindowScatter.apply(g, ctx.geom), None, None


class WindowScatter(BuiltinFunction):
    """out = each g value added over its window (the adjoint of WindowSum);  dg = WindowSum."""
    _backward_name = "AvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, g, geom):
        ctx.geom = geom
        nsp = len(geom.kernel)
        lead = g.shape[:g.ndim - nsp]
        out = np.zeros(lead + geom.padded_size(), g.dtype)
        # NOTE: PyTorch adds each window's share in output order; an input element takes
        # the windows covering it in that order when the kernel offsets run backwards
        for sl in reversed(_offset_slices(geom, g.shape[g.ndim - nsp:], g.ndim)):
            out[sl] += g
        return _crop(out, geom)

    @staticmethod
    def backward(ctx, gg):
        return WindowSum.apply(gg, ctx.geom, None), None


class AxisMaps(BuiltinFunction):
    """out = x with one matrix applied along each spatial dim (pooling/resampling maps);
    dx = the transposed matrices applied to g."""
    _backward_name = "AdaptiveAvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, mats, name):
        ctx.mats = mats
        out = x
        nsp = len(mats)
        # the last dim first, so that 2-D maps round as PyTorch's h * (w * x + ...) + ...
        for i, m in reversed(list(enumerate(mats))):
            axis = x.ndim - nsp + i
            out = np.moveaxis(np.tensordot(out, m.astype(x.dtype), axes=([axis], [1])), -1,
                              axis)
        return np.ascontiguousarray(out)

    @staticmethod
    def backward(ctx, g):
        return axis_maps(g, [m.T for m in ctx.mats], "AxisMapsBackward0"), None, None


_NAMED = {}


def named(base, backward_name):
    """A subclass of op ``base`` whose grad_fn is called ``backward_name`` (cached)."""
    cls = _NAMED.get((base, backward_name))
    if cls is None:
        cls = type(backward_name.replace("Backward0", ""), (base,),
                   {"_backward_name": backward_name, "__module__": __name__})
        _NAMED[(base, backward_name)] = cls
    return cls


def axis_maps(x, mats, name):
    """Apply ``mats`` (one (out, in) matrix per trailing spatial dim) with grad_fn ``name``."""
    return named(AxisMaps, name).apply(x, mats, name)


def filter_weights(n_in, n_out, scale, support, filt, align_corners=False, antialias=False):
    """The (n_out, n_in) float64 matrix of PyTorch's separable (antialiasing) resampler.

    Output ``i`` centres on ``scale * (i + 0.5)`` and weighs the inputs within ``support``
    by ``filt`` (stretched by ``scale`` when antialiasing a downscale), normalised to sum 1.
    PyTorch's uint8 kernels use these weights even without antialias (then with a half-pixel
    shift for align_corners), which is why they differ from the float kernels at the borders.

    >>> filter_weights(2, 4, 0.5, 1.0, lambda t: np.maximum(1 - np.abs(t), 0))[1]
    array([0.75, 0.25])
    """
    if antialias and scale >= 1:
        support, inv = support * scale, 1.0 / scale
    else:
        inv = 1.0
    delta = 0.5 if align_corners and not antialias else 0.0
    i = np.arange(n_out)
    center = scale * (i + 0.5 - delta)
    # NOTE: int64 casts truncate toward zero in PyTorch's kernel; trunc keeps that
    lo = np.maximum(np.trunc(center - support + 0.5 + delta), 0).astype(np.int64)
    hi = np.minimum(np.trunc(center + support + 0.5 + delta), n_in).astype(np.int64)
    j = np.arange(n_in)
    inside = (j >= lo[:, None]) & (j < hi[:, None])
    w = np.where(inside, filt((j - center[:, None] + 0.5 - delta) * inv), 0.0)
    total = w.sum(1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total != 0)


def keys_cubic(a):
    """Keys' cubic-convolution kernel with constant ``a``, as a filter for ``filter_weights``.

    PyTorch's plain bicubic uses a = -0.75; its antialiasing bicubic uses a = -0.5 (as PIL).

    >>> keys_cubic(-0.5)(np.array([0.0, 0.5, 1.0, 1.5, 2.5]))
    array([ 1.    ,  0.5625,  0.    , -0.0625,  0.    ])
    """
    def filt(t):
        u = np.abs(t)
        near = ((a + 2) * u - (a + 3)) * u * u + 1
        far = ((a * u - 5 * a) * u + 8 * a) * u - 4 * a
        return np.where(u < 1, near, np.where(u < 2, far, 0.0))
    return filt


def fixed_point(w):
    """PyTorch's int16 quantisation of a weight matrix: (weights, precision in bits), the
    precision being the largest (< 22) that keeps the biggest weight within int16."""
    top = w.max(initial=0.0)
    bits = 0
    while bits < 22 and int(0.5 + top * (1 << (bits + 1))) < (1 << 15):
        bits += 1
    v = w * (1 << bits)
    return np.where(v < 0, np.trunc(v - 0.5), np.trunc(v + 0.5)).astype(np.int64), bits


class FixedPointMaps(BuiltinFunction):
    """uint8 resampling as PyTorch's CPU kernels do it: each spatial dim (the last first)
    is mapped with int16 weights, rounded to nearest and clamped to uint8 between passes.
    Integer tensors never require grad, so there is no backward."""
    _backward_name = "UpsampleBilinear2DBackward0"

    @staticmethod
    def forward(ctx, x, maps):
        out = x
        nsp = len(maps)
        for i, (m, bits) in reversed(list(enumerate(maps))):
            if m is None:  # PyTorch skips a dim whose size is unchanged
                continue
            axis = x.ndim - nsp + i
            acc = np.tensordot(out.astype(np.int64), m, axes=([axis], [1]))
            acc = (acc + (1 << bits >> 1)) >> bits
            out = np.moveaxis(np.clip(acc, 0, 255).astype(x.dtype), -1, axis)
        return np.ascontiguousarray(out)


def adaptive_ranges(n_in, n_out):
    """PyTorch's adaptive windows: [floor(i n / m), ceil((i + 1) n / m))."""
    i = np.arange(n_out)
    start = (i * n_in) // n_out
    end = -((-(i + 1) * n_in) // n_out)
    return start, end


def _adaptive_taps(in_size, out_size):
    """PyTorch's order of adding an adaptive window's elements: per kernel offset (row-major,
    up to the longest window), the index of that element in each dim's windows (clamped
    where a window is shorter), whether it is inside, and each dim's window lengths."""
    ranges = [adaptive_ranges(n, o) for n, o in zip(in_size, out_size)]
    lengths = [end - start for start, end in ranges]
    nsp = len(ranges)
    taps = []
    for offs in itertools.product(*(range(int(n.max(initial=0))) for n in lengths)):
        idx, inside = [], True
        for i, ((start, _), n, k) in enumerate(zip(ranges, lengths, offs)):
            shape = [1] * nsp
            shape[i] = -1
            idx.append(np.minimum(start + k, in_size[i] - 1).reshape(shape))
            inside = inside & (k < n).reshape(shape)
        taps.append((tuple(idx), None if np.all(inside) else inside))
    return taps, lengths


def _accumulator(dtype):
    """PyTorch's accumulation type for a pooling sum (float32 for half precision)."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


class AdaptiveAvgPool(BuiltinFunction):
    """out = each adaptive window's sum (added as PyTorch adds it) / its length per dim;
    dx = AdaptiveAvgScatter(g): the two are each other's adjoint, so this differentiates
    to any order."""
    _backward_name = "AdaptiveAvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, out_size):
        ctx.save_for_backward(x)  # (PyTorch keeps the input: grad_fn._saved_self)
        nsp = len(out_size)
        ctx.in_size = x.shape[x.ndim - nsp:]
        return _adaptive_sum(x, ctx.in_size, tuple(out_size))

    @staticmethod
    def backward(ctx, g):
        nsp = len(ctx.in_size)
        cls = named(AdaptiveAvgScatter, f"AdaptiveAvgPool{nsp}DBackwardBackward0")
        return cls.apply(g, ctx.in_size), None


def _adaptive_sum(x, in_size, out_size):
    nsp = len(out_size)
    lead = x.shape[:x.ndim - nsp]
    acc = np.zeros(lead + out_size, _accumulator(x.dtype))
    taps, lengths = _adaptive_taps(in_size, out_size)
    for idx, inside in taps:
        v = x[(Ellipsis,) + idx]
        acc += v if inside is None else np.where(inside, v, 0)
    for i, n in enumerate(lengths):  # PyTorch: sum / kh / kw
        shape = [1] * nsp
        shape[i] = -1
        acc /= n.astype(acc.dtype).reshape(shape)
    return acc.astype(x.dtype, copy=False)


class AdaptiveAvgScatter(BuiltinFunction):
    """out = each g / window lengths added over its adaptive window (in PyTorch's order);
    dg = AdaptiveAvgPool(gg)."""
    _backward_name = "AdaptiveAvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, g, in_size):
        nsp = len(in_size)
        out_size = g.shape[g.ndim - nsp:]
        ctx.in_size, ctx.out_size = in_size, out_size
        lead = g.shape[:g.ndim - nsp]
        taps, lengths = _adaptive_taps(in_size, out_size)
        delta = g.astype(_accumulator(g.dtype))
        for i, n in enumerate(lengths):  # PyTorch: grad / kh / kw
            shape = [1] * nsp
            shape[i] = -1
            delta = delta / n.astype(delta.dtype).reshape(shape)
        out = np.zeros(lead + tuple(in_size), delta.dtype)
        at = (slice(None),) * len(lead)
        # NOTE: PyTorch adds each window's share in output order (so an element covered by
        # several windows sums them in that order): one np.add.at over (*outputs, tap)
        # indices, which it applies in that C order
        index = tuple(np.stack([np.broadcast_to(idx[d], out_size) for idx, _ in taps], -1)
                      for d in range(nsp))
        inside = np.stack([np.ones(out_size, bool) if m is None else
                           np.broadcast_to(m, out_size) for _, m in taps], -1)
        np.add.at(out, at + index, np.where(inside, delta[..., None], 0))
        return out.astype(g.dtype, copy=False)

    @staticmethod
    def backward(ctx, gg):
        nsp = len(ctx.in_size)
        cls = named(AdaptiveAvgPool, f"AdaptiveAvgPool{nsp}DBackward0")
        return cls.apply(gg, ctx.out_size), None


class AdaptiveMaxPool(BuiltinFunction):
    """out = max over each adaptive window, with flat indices;  dx = g scattered there."""
    _backward_name = "AdaptiveMaxPool2DBackward0"

    @staticmethod
    def forward(ctx, x, out_size):
        nsp = len(out_size)
        S = x.shape[-nsp:]
        ranges = [adaptive_ranges(s, o) for s, o in zip(S, out_size)]
        lead = x.shape[:-nsp]
        out = np.empty(lead + tuple(out_size), x.dtype)
        idx = np.empty(lead + tuple(out_size), np.int64)
        for pos in np.ndindex(*out_size):
            sl = tuple(slice(r[0][p], r[1][p]) for r, p in zip(ranges, pos))
            block = x[(Ellipsis,) + sl].reshape(lead + (-1,))
            a = np.argmax(block, axis=-1)
            out[(Ellipsis,) + pos] = np.take_along_axis(block, a[..., None], -1)[..., 0]
            local = np.unravel_index(a, tuple(s.stop - s.start for s in sl))
            flat = np.zeros(a.shape, np.int64)
            for i in range(nsp):
                flat = flat * S[i] + local[i] + sl[i].start
            idx[(Ellipsis,) + pos] = flat
        ctx.shape, ctx.nsp = x.shape, nsp
        ctx.save_for_backward(x, idx)  # (x: PyTorch's grad_fn._saved_self)
        return out, idx

    @staticmethod
    def backward(ctx, g, _gidx=None):
        return _indices_backward(ctx, g), None


def _padded_indices(n, lo, hi, mode):
    """Source index of each padded position along one dim, for reflect/replicate/circular."""
    pos = np.arange(-lo, n + hi)
    if mode == "replicate":
        return np.clip(pos, 0, n - 1)
    if mode == "circular":
        # NOTE: PyTorch crops a negative pad first, then wraps within what is left
        crop_lo, crop_hi = max(-lo, 0), max(-hi, 0)
        m = n - crop_lo - crop_hi
        return np.arange(-max(lo, 0), m + max(hi, 0)) % m + crop_lo
    period = 2 * (n - 1)
    r = np.abs(pos) % period if period else np.zeros_like(pos)
    return np.where(r >= n, period - r, r)


class IndexPad(BuiltinFunction):
    """out = x gathered at per-dim source indices (reflect/replicate/circular padding);
    dx = g added back at those indices."""
    _backward_name = "ReflectionPad2DBackward0"

    @staticmethod
    def forward(ctx, x, idx):
        ctx.shape = x.shape
        ctx.key = _open_key(x.ndim, idx)
        return np.ascontiguousarray(x[ctx.key])

    @staticmethod
    def backward(ctx, g):
        from .indexing import IndexAddInto
        return IndexAddInto.apply(g, ctx.shape, ctx.key), None


def _open_key(ndim, idx):
    """An advanced-index key selecting idx[i] along each of the trailing dims."""
    nsp = len(idx)
    lead = ndim - nsp
    grids = np.ix_(*idx)
    key = [slice(None)] * lead
    return tuple(key) + tuple(grids)


def index_pad(x, pad, mode, name):
    """Pad trailing dims of ``x`` (pad = ((lo, hi), ...)) by mode, with grad_fn ``name``."""
    nsp = len(pad)
    sizes = x.shape[x.ndim - nsp:]
    idx = [_padded_indices(n, lo, hi, mode) for n, (lo, hi) in zip(sizes, pad)]
    return named(IndexPad, name).apply(x, idx)


class ConstantPadNd(BuiltinFunction):
    """out = x padded (or cropped, for negative pads) with ``value``;  dx = g's inner slice."""
    _backward_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, x, pad, value):
        ctx.pad = pad
        nsp = len(pad)
        crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in
                     zip(x.shape[x.ndim - nsp:], pad))
        x = x[(Ellipsis,) + crop]
        widths = ((0, 0),) * (x.ndim - nsp) + tuple((max(lo, 0), max(hi, 0)) for lo, hi in pad)
        return np.pad(x, widths, constant_values=np.asarray(value).astype(x.dtype))

    @staticmethod
    def backward(ctx, g):
        neg = tuple((-lo, -hi) for lo, hi in ctx.pad)
        return ConstantPadNd.apply(g, neg, 0), None, None


# ---- grid sampling -----------------------------------------------------------------------
def _unnormalize(coord, size, align_corners):
    """Grid coordinate in [-1, 1] -> pixel position, with d(position)/d(coord)."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


def _reflect(c, twice_low, twice_high):
    """PyTorch's reflect_coordinates, with the sign it multiplies the gradient by."""
    if twice_low == twice_high:
        return np.zeros_like(c), np.zeros_like(c)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    c = c - low
    sign = np.where(c < 0, -1, 1).astype(c.dtype)
    c = np.abs(c)
    extra = np.fmod(c, span)
    even = np.floor(c / span) % 2 == 0
    return np.where(even, extra + low, span - extra + low).astype(c.dtype), \
        np.where(even, sign, -sign)


def _pad_coord(c, size, padding_mode, align_corners, masked=True):
    """Pixel position ``c`` moved inside by padding_mode, and d(new)/d(c)."""
    mult = np.ones_like(c)
    if padding_mode == "reflection":
        bounds = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        c, mult = _reflect(c, *bounds)
    if padding_mode != "zeros":
        inside = (c > 0) & (c < size - 1)
        # NOTE: PyTorch's 2-d kernel masks the factor bitwise (a clipped point's is +0.0),
        # its 3-d one multiplies by 0 (-0.0 where reflection flipped the sign): the sign
        # of a zero gradient follows
        mult = np.where(inside, mult, 0).astype(mult.dtype) if masked else mult * inside
        c = np.clip(c, 0, size - 1).astype(mult.dtype)
    return c, mult


def _source(coord, size, padding_mode, align_corners, masked=True):
    """Pixel position of each grid coordinate after padding_mode, and its gradient factor."""
    c, scale = _unnormalize(coord, size, align_corners)
    c, mult = _pad_coord(c, size, padding_mode, align_corners, masked)
    return c.astype(coord.dtype), mult * scale


def _combine_factors(facs, second):
    """A corner's weight from its per-dim factors ``(w_d, dw_d, d2w_d)``: the product of the
    w_d, its derivative in each dim and (``second``) its Hessian in the dims."""
    nsp = len(facs)

    def prod(swap):  # the product in dim order, with the factors in ``swap`` replaced
        out = None
        for d, f in enumerate(facs):
            v = swap.get(d, f[0])
            out = v if out is None else out * v
        return out

    w = np.prod([f[0] for f in facs], axis=0)
    dws = [prod({d: facs[d][1]}) for d in range(nsp)]
    if not second:
        return w, dws, None
    d2 = [[prod({d: facs[d][2]}) if d == e else prod({d: facs[d][1], e: facs[e][1]})
           for e in range(nsp)] for d in range(nsp)]
    return w, dws, d2


def _corners(src, sizes, mode, second=False):
    """[(index per dim, weight, d weight / d src per dim, Hessian or None)] of the sampled
    neighbours (weights of points outside the input are zero)."""
    if mode == "nearest":
        idx = [np.rint(s).astype(np.int64) for s in src]
        w = np.ones_like(src[0])
        zero = np.zeros_like(w)
        d2 = [[zero] * len(src) for _ in src] if second else None
        return [_masked(idx, w, [zero] * len(src), d2, sizes)]
    lo = [np.floor(s) for s in src]
    frac = [s - f for s, f in zip(src, lo)]
    out = []
    for bits in np.ndindex(*(2,) * len(src)):
        one = [np.ones_like(f) for f in frac]
        zero = np.zeros_like(frac[0])
        facs = [(f, o, zero) if b else (1 - f, -o, zero) for f, o, b in zip(frac, one, bits)]
        idx = [f.astype(np.int64) + b for f, b in zip(lo, bits)]
        out.append(_masked(idx, *_combine_factors(facs, second), sizes))
    return out


def _masked(idx, w, dws, d2, sizes):
    valid = np.ones(w.shape, bool)
    for i, n in zip(idx, sizes):
        valid &= (i >= 0) & (i < n)
    idx = [np.where(valid, i, 0) for i in idx]
    if d2 is not None:
        d2 = [[h * valid for h in row] for row in d2]
    return idx, w * valid, [dw * valid for dw in dws], d2


_CUBIC_A = -0.75  # PyTorch's cubic convolution constant (Keys' kernel)


def _cubic_taps(t):
    """Keys' cubic-convolution weights of the taps at offsets -1, 0, 1, 2 from floor(src),
    for fraction ``t``, with their first and second derivatives in ``t``."""
    a = _CUBIC_A

    def near(u):  # |u| <= 1
        return (((a + 2) * u - (a + 3)) * u * u + 1, (3 * (a + 2) * u - 2 * (a + 3)) * u,
                6 * (a + 2) * u - 2 * (a + 3))

    def far(u):  # 1 < |u| < 2
        return (((a * u - 5 * a) * u + 8 * a) * u - 4 * a, (3 * a * u - 10 * a) * u + 8 * a,
                6 * a * u - 10 * a)

    (w0, d0, s0), (w1, d1, s1), (w2, d2, s2), (w3, d3, s3) = \
        far(t + 1), near(t), near(1 - t), far(2 - t)
    return [w0, w1, w2, w3], [d0, d1, -d2, -d3], [s0, s1, s2, s3]


def _bicubic_corners(src, sizes, padding_mode, align_corners, second=False):
    """Like ``_corners`` for the 4 x 4 bicubic taps: padding_mode moves each tap (not the
    sampled point) inside, as PyTorch does, so it adds nothing to the grid gradient."""
    lo = [np.floor(s) for s in src]
    taps = [_cubic_taps(s - f) for s, f in zip(src, lo)]
    out = []
    for ks in np.ndindex(*(4,) * len(src)):
        idx = [_pad_coord(f + (k - 1), n, padding_mode, align_corners)[0].astype(np.int64)
               for f, k, n in zip(lo, ks, sizes)]
        facs = [(t[0][k], t[1][k], t[2][k]) for t, k in zip(taps, ks)]
        out.append(_masked(idx, *_combine_factors(facs, second), sizes))
    return out


def _bicubic_terms(x, grid, padding_mode, align_corners, second):
    nsp = x.ndim - 2
    sizes = x.shape[2:]
    srcs = [_unnormalize(grid[..., nsp - 1 - d], sizes[d], align_corners) for d in range(nsp)]
    n = np.arange(x.shape[0]).reshape((-1,) + (1,) * nsp)
    keys = [((n,) + tuple(i), w, dws, d2) for i, w, dws, d2 in
            _bicubic_corners([s for s, _ in srcs], sizes, padding_mode, align_corners, second)]
    return np.moveaxis(x, 1, -1), keys, [np.full_like(s, m) for s, m in srcs]


def _grid_terms(x, grid, mode, padding_mode, align_corners, second=False):
    """x channels-last, [(gather key, weight, d weight/d src per dim, Hessian or None)] per
    neighbour, and d src/d grid per dim (dims outer to inner: grid's last entry is dim 0)."""
    if mode == "bicubic":
        return _bicubic_terms(x, grid, padding_mode, align_corners, second)
    nsp = x.ndim - 2
    sizes = x.shape[2:]
    srcs = [_source(grid[..., nsp - 1 - d], sizes[d], padding_mode, align_corners, nsp < 3)
            for d in range(nsp)]
    n = np.arange(x.shape[0]).reshape((-1,) + (1,) * nsp)
    keys = [((n,) + tuple(i), w, dws, d2) for i, w, dws, d2 in
            _corners([s for s, _ in srcs], sizes, mode, second)]
    return np.moveaxis(x, 1, -1), keys, [m for _, m in srcs]


def _add_at(target, key, values):
    """``np.add.at(target, key, values)`` over the leading axes of the channels-last
    ``target``. NOTE: float64 goes through np.bincount (many times faster; a bin's sum is
    rounded apart from ``target``'s old value, last-bit noise in float64); other dtypes keep
    np.add.at, whose sums round in their own dtype as ATen's do."""
    if target.dtype != np.float64:
        np.add.at(target, key, values)
        return
    lead, c = target.shape[:-1], target.shape[-1]
    flat = np.ravel_multi_index(tuple(np.broadcast_arrays(*key)), lead)
    idx = (flat[..., None] * c + np.arange(c)).reshape(-1)
    vals = np.broadcast_to(values, flat.shape + (c,)).reshape(-1)
    target += np.bincount(idx, vals, minlength=target.size).reshape(target.shape)


class GridSampler(BuiltinFunction):
    """out[n, :, p] = sum over neighbours k of w_k(grid[n, p]) x[n, :, k];  (dx, dgrid) =
    GridSamplerBackward(g, x, grid), itself differentiable once more (as PyTorch's)."""
    _backward_name = "GridSampler2DBackward0"

    @staticmethod
    def forward(ctx, x, grid, mode, padding_mode, align_corners):
        ctx.opts = (mode, padding_mode, align_corners)
        ctx.save_for_backward(x, grid)
        xt, keys, _ = _grid_terms(x, grid, mode, padding_mode, align_corners)
        out = sum(xt[key] * w[..., None] for key, w, _, _ in keys)
        return np.ascontiguousarray(np.moveaxis(out, -1, 1).astype(x.dtype))

    @staticmethod
    def backward(ctx, g):
        x, grid = ctx.saved_tensors
        cls = named(GridSamplerBackward, f"GridSampler{grid.ndim - 2}DBackwardBackward0")
        gx, ggrid = cls.apply(g, x, grid, *ctx.opts)
        return gx, ggrid, None, None, None


class GridSamplerBackward(BuiltinFunction):
    """(dx, dgrid) of grid sampling for upstream g: dx scatters g with the weights w_k,
    dgrid = sum_k (g . x_k) dw_k/dgrid. Both are linear in g, dgrid also in x, so the
    second derivatives need only the Hessian of w_k in the grid (once differentiable)."""
    _backward_name = "GridSampler2DBackwardBackward0"

    @staticmethod
    def forward(ctx, g, x, grid, mode, padding_mode, align_corners):
        ctx.opts = (mode, padding_mode, align_corners)
        ctx.save_for_backward(g, x, grid)
        xt, keys, mults = _grid_terms(x, grid, mode, padding_mode, align_corners)
        gt = np.moveaxis(g, 1, -1)
        gx = np.zeros_like(xt)
        ggrid = np.zeros_like(grid)
        nsp = len(mults)
        for key, w, dws, _ in keys:
            _add_at(gx, key, gt * w[..., None])
            gdot = (gt * xt[key]).sum(-1)
            for d in range(nsp):
                ggrid[..., nsp - 1 - d] += gdot * dws[d]
        # NOTE: as PyTorch, the sum in source units times d src/d grid last (a clipped
        # point's +0.0 factor then keeps the sum's sign); nearest's gradient is plain zeros
        if mode != "nearest":
            for d in range(nsp):
                ggrid[..., nsp - 1 - d] *= mults[d]
        return np.moveaxis(gx, -1, 1).copy(), ggrid

    @staticmethod
    @once_differentiable
    def backward(ctx, ggx, gggrid):
        g, x, grid = (t._data for t in ctx.saved_tensors)
        xt, keys, mults = _grid_terms(x, grid, *ctx.opts, second=True)
        gt = np.moveaxis(g, 1, -1)
        ggxt = np.moveaxis(ggx._data, 1, -1)
        nsp = len(mults)
        # the upstream of dgrid per dim in src units: gggrid[..., grid entry] * dsrc/dgrid
        v = [gggrid._data[..., nsp - 1 - d] * mults[d] for d in range(nsp)]
        d_g, d_x = np.zeros_like(gt), np.zeros_like(xt)
        d_grid = np.zeros_like(grid)
        for key, w, dws, d2 in keys:
            xk, ggk = xt[key], ggxt[key]
            vdw = sum(vd * dw for vd, dw in zip(v, dws))  # d(dgrid . gggrid) / d gdot
            d_g += ggk * w[..., None] + xk * vdw[..., None]
            _add_at(d_x, key, gt * vdw[..., None])
            gx_dot = (gt * ggk).sum(-1)  # dx's upstream sampled: moves with the weights
            gdot = (gt * xk).sum(-1)
            for e in range(nsp):
                hv = sum(vd * h for vd, h in zip(v, d2[e]))
                d_grid[..., nsp - 1 - e] += (gx_dot * dws[e] + gdot * hv) * mults[e]
        return (_make(np.moveaxis(d_g, -1, 1).astype(g.dtype), None, False),
                _make(np.moveaxis(d_x, -1, 1).copy(), None, False),
                _make(d_grid, None, False), None, None, None)


class AffineGridGenerator(BuiltinFunction):
    """grid[n, p] = theta[n] @ base[p] (base = normalised (x, y[, z], 1));
    dtheta = g^T base."""
    _backward_name = "AffineGridGeneratorBackward0"

    @staticmethod
    def forward(ctx, theta, base):
        ctx.base = base
        n, k = theta.shape[0], theta.shape[1]
        flat = base.reshape(-1, k + 1) @ np.swapaxes(theta, 1, 2)
        return flat.reshape((n,) + base.shape[:-1] + (k,)).astype(theta.dtype)

    @staticmethod
    def backward(ctx, g):
        # ATen's order: (base^T bmm g) transposed, so grad_fn is TransposeBackward0
        n, k = g.shape[0], g.shape[-1]
        base = ctx.base.reshape(1, -1, k + 1).astype(g._data.dtype)
        base_t = _const(np.broadcast_to(base.swapaxes(1, 2), (n, k + 1, base.shape[1])))
        return base_t.bmm(g.reshape(n, -1, k)).transpose(1, 2), None


def affine_base(spatial, align_corners, dtype):
    """The (*spatial, nsp + 1) grid of normalised positions (x fastest) with a ones column."""
    axes = []
    for n in reversed(spatial):
        r = np.linspace(-1, 1, n) if n > 1 else np.zeros(1)
        axes.append(r * (n - 1) / n if not align_corners and n > 1 else r)
    mesh = np.meshgrid(*reversed(axes), indexing="ij")
    cols = list(reversed(mesh)) + [np.ones(tuple(spatial))]
    return np.stack(cols, -1).astype(dtype)


class ChannelShuffle(BuiltinFunction):
    """out = channels (g, C/g) transposed to (C/g, g);  dx = the inverse shuffle of g."""
    _backward_name = "ChannelShuffleBackward0"

    @staticmethod
    def forward(ctx, x, groups):
        n, c = x.shape[:2]
        ctx.inverse = c // groups
        y = x.reshape((n, groups, c // groups) + x.shape[2:]).swapaxes(1, 2)
        return np.ascontiguousarray(y).reshape(x.shape)

    @staticmethod
    def backward(ctx, g):
        return ChannelShuffle.apply(g, ctx.inverse), None


def fractional_starts(samples, in_size, out_size, kernel):
    """PyTorch's pseudo-random window starts along one dim, one row per sample.

    ``start[i] = int((i + u) * alpha) - int(u * alpha)`` with
    ``alpha = (in - k) / (out - 1)``; the last window is pinned to ``in - k``.
    """
    dt = samples.dtype.type
    starts = np.empty(samples.shape + (out_size,), np.int64)
    if out_size > 1:
        # NOTE: every step is rounded to the samples' dtype, as ATen's scalar_t arithmetic.
        alpha = dt(in_size - kernel) / dt(out_size - 1)
        i = np.arange(out_size - 1).astype(samples.dtype)
        u = samples[..., None]
        starts[..., :-1] = ((i + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    if out_size > 0:
        starts[..., -1] = in_size - kernel
    return starts


def _window_flat(starts, kernel, in_size):
    """Flat spatial index of every window element: (B, C, *out, *kernel) ints."""
    nsp = len(starts)
    flat = 0
    for d in range(nsp):
        pos = starts[d][..., None] + np.arange(max(kernel[d], 1))
        # pos: (B, C, out_d, k_d) -> place out_d at axis 2 + d, k_d at axis 2 + nsp + d
        shape = list(pos.shape[:2]) + [1] * (2 * nsp)
        shape[2 + d], shape[2 + nsp + d] = pos.shape[2], pos.shape[3]
        flat = flat * in_size[d] + pos.reshape(shape)
    return flat


class FractionalMaxPool(BuiltinFunction):
    """out = max over pseudo-random windows, indices = flat argmax;  dx = g scattered there."""
    _backward_name = "FractionalMaxPool2DBackward0"

    @staticmethod
    def forward(ctx, x, samples, kernel, out_size):
        nsp = len(kernel)
        S = x.shape[-nsp:]
        B, C = (x.shape[0] if x.ndim == nsp + 2 else 1), x.shape[-nsp - 1]
        # NOTE: ATen's 2-d kernel reads sample 0 for W and 1 for H; the 3-d one T, H, W.
        u = samples[:B, :, ::-1] if nsp == 2 else samples[:B]
        starts = [fractional_starts(u[..., d], S[d], out_size[d], kernel[d])
                  for d in range(nsp)]
        flat = _window_flat(starts, kernel, S)
        flat = flat.reshape(B, C, int(np.prod(out_size)), int(np.prod(flat.shape[2 + nsp:])))
        planes = x.reshape(B, C, int(np.prod(S)))
        if min(kernel) <= 0 or flat.size == 0:  # empty windows: ATen leaves -inf at the start
            idx = flat[..., 0]
            out = np.full(idx.shape, -np.inf, x.dtype)
        else:
            idx, out = _nan_last_argmax(planes, flat)
        ctx.shape, ctx.nsp = x.shape, nsp
        idx = idx.reshape(x.shape[:-nsp] + tuple(out_size))
        ctx.save_for_backward(idx)
        return out.reshape(idx.shape), idx

    @staticmethod
    def backward(ctx, g, _gidx=None):
        return _indices_backward(ctx, g), None, None, None


def _nan_last_argmax(planes, rows):
    """Max of each window (a row of ``rows``, flat indices into ``planes``): the first
    largest value, or the last NaN when there is one (ATen's ``val > max || isnan(val)``)."""
    vals = np.take_along_axis(planes, rows.reshape(rows.shape[:2] + (-1,)), -1)
    vals = vals.reshape(rows.shape)
    arg = np.argmax(vals, axis=-1)
    nan = np.isnan(vals)
    if nan.any():
        last = nan.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
        arg = np.where(nan.any(-1), last, arg)
    idx = np.take_along_axis(rows, arg[..., None], -1)[..., 0]
    out = np.take_along_axis(vals, arg[..., None], -1)[..., 0]
    return idx, out
