"""Pooling, padding and resampling ops (any number of spatial dims).

Max pooling takes the argmax of a strided window view; its backward scatters the gradient to
the argmax positions with ``scatter_add`` (whose own backward is ``gather``). Average pooling
and the index-based paddings have linear adjoints written as ops too, and resampling applies
one small matrix per spatial dim, so all of these differentiate twice.

>>> import numtorch as torch
>>> from numtorch.ops.pooling import MaxPool, PoolGeom
>>> x = torch.tensor([[[[1., 2.], [3., 4.]]]])
>>> MaxPool.apply(x, PoolGeom((2, 2), (2, 2), (2, 2), ((0, 0), (0, 0)), (1, 1)))[0]
tensor([[[[4.]]]])
"""
import numpy as np

from .._tensor import Tensor
from ._base import BuiltinFunction
from .conv import ConvGeom, col2im, pad_array, windows

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
    """out = max over each window, indices = flat spatial argmax;  dx = g scattered there."""
    _backward_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, geom):
        L = geom.out_size()
        xp = pad_array(x, geom.pad, _min_value(x.dtype))
        win = windows(xp, L, geom.kernel, geom.stride, geom.dilation)
        flat = win.reshape(win.shape[:x.ndim] + (-1,))
        arg = np.argmax(flat, axis=-1)
        out = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
        ctx.shape, ctx.nsp = x.shape, len(L)
        idx = _flat_index(arg, L, geom)
        ctx.save_for_backward(idx)
        return np.ascontiguousarray(out), idx

    @staticmethod
    def backward(ctx, g, _gidx=None):
        (idx,) = ctx.saved_tensors
        return scatter_back(g, idx, ctx.shape, ctx.nsp), None


def _flat_index(arg, L, geom):
    """Window-local argmax -> flat index into the unpadded input's spatial dims."""
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


def scatter_back(g, idx, shape, nsp):
    """Add ``g`` into a zero tensor of ``shape`` at the flat indices ``idx`` of the last
    ``nsp`` dims."""
    from .._creation import zeros
    lead = tuple(shape[:len(shape) - nsp])
    flat_g = g.reshape(lead + (-1,))
    flat_i = idx.reshape(lead + (-1,))
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
        np.put_along_axis(out, idx.reshape(lead + (-1,)), x.reshape(lead + (-1,)), -1)
        return out.reshape(out_shape)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        lead = tuple(g.shape[:2])
        flat = g.reshape(lead + (-1,)).gather(2, idx.reshape(lead + (-1,)))
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


class WindowSum(BuiltinFunction):
    """out = sum over each (zero-padded) window;  dx = WindowScatter(g)."""
    _backward_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, geom, divisor):
        ctx.geom, ctx.divisor = geom, divisor
        win = windows(pad_array(x, geom.pad), geom.out_size(), geom.kernel, geom.stride,
                      geom.dilation)
        nsp = len(geom.kernel)
        s = win.sum(axis=tuple(range(x.ndim, x.ndim + nsp)), dtype=x.dtype)
        return s / divisor if divisor is not None else s

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
        cols = np.broadcast_to(g.reshape(g.shape + (1,) * nsp), g.shape + geom.kernel)
        return np.ascontiguousarray(col2im(cols, geom))

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


def adaptive_ranges(n_in, n_out):
    """PyTorch's adaptive windows: [floor(i n / m), ceil((i + 1) n / m))."""
    i = np.arange(n_out)
    start = (i * n_in) // n_out
    end = -((-(i + 1) * n_in) // n_out)
    return start, end


def adaptive_avg_matrix(n_in, n_out):
    start, end = adaptive_ranges(n_in, n_out)
    cols = np.arange(n_in)
    inside = (cols >= start[:, None]) & (cols < end[:, None])
    return inside / (end - start)[:, None]


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
        ctx.save_for_backward(idx)
        return out, idx

    backward = MaxPool.backward


def _padded_indices(n, lo, hi, mode):
    """Source index of each padded position along one dim, for reflect/replicate/circular."""
    pos = np.arange(-lo, n + hi)
    if mode == "replicate":
        return np.clip(pos, 0, n - 1)
    if mode == "circular":
        return pos % n
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
