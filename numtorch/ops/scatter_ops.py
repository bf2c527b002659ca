"""Indexed writes: scatter_reduce, index_add/copy/fill/reduce, put, masked_scatter,
select/slice/diagonal_scatter, as_strided (and their in-place forms).

Each ``index_*`` op is a scatter along ``dim`` with the 1-d index broadcast over the source,
so all of them share the differentiable ``scatter``/``scatter_add``/``ScatterReduce``.

>>> import numtorch as torch
>>> torch.zeros(3).index_add(0, torch.tensor([0, 0, 2]), torch.ones(3))
tensor([2., 0., 1.])
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._base import BuiltinFunction
from ._util import wrap_dim, write_out
from ..storage import data_ptr, root_array

_make = Tensor._make
_REDUCES = ("sum", "prod", "mean", "amax", "amin")
_LEGACY_REDUCES = {"max": "amax", "min": "amin"}  # still accepted by PyTorch's scatter_reduce


def _const(a):
    return _make(np.asarray(a), None, False)


def _identity(reduce, dt):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    big = np.inf if dt.kind == "f" else (np.iinfo(dt).max if dt.kind in "iu" else True)
    small = -np.inf if dt.kind == "f" else (np.iinfo(dt).min if dt.kind in "iu" else False)
    return small if reduce == "amax" else big


_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
           "amin": np.minimum}


class ScatterReduce(BuiltinFunction):
    """out[index] = reduce(x[index] (if include_self), src ...) along dim;  gradients per
    reduction (ties share evenly for amax/amin; zero-safe for prod)."""
    _backward_name = "ScatterReduceBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src, reduce, include_self):
        key = _key(index, dim)
        src_in = src
        src = src[tuple(slice(0, n) for n in index.shape)]
        count = np.zeros(x.shape, np.int64)
        np.add.at(count, key, 1)
        out = x.copy()
        if not include_self:
            out[count > 0] = _identity(reduce, x.dtype)
        _UFUNCS[reduce].at(out, key, src.astype(x.dtype, copy=False))
        if reduce == "mean":
            n = np.maximum(count + (1 if include_self else 0), 1)
            out = (out // n if x.dtype.kind in "iub" else out / n).astype(x.dtype)
        # the input and output arrays themselves, so the backward differentiates again
        ctx.save_for_backward(x, index, src_in, out)
        ctx.dim, ctx.reduce, ctx.include_self, ctx.count = dim, reduce, include_self, count
        return out

    @staticmethod
    def backward(ctx, g):
        x, index, src_full, out = ctx.saved_tensors
        src = src_full[tuple(slice(0, n) for n in index.shape)]
        gx, gsrc = _REDUCE_GRADS[ctx.reduce](ctx, g, x, index, src, out)
        if gsrc is not None and gsrc.shape != src_full.shape:
            from .misc import constant_pad_nd
            pad = []
            for n, m in zip(reversed(src.shape), reversed(src_full.shape)):
                pad += [0, m - n]
            gsrc = constant_pad_nd(gsrc, pad)
        return gx, None, None, gsrc, None, None


def _key(index, dim):
    idx = list(np.indices(index.shape, sparse=True))
    idx[dim] = index
    return tuple(idx)


def _gather(t, dim, index):
    """``t.gather(dim, index)`` where index may be shorter than t in the other dims."""
    key = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
    return t[key].gather(dim, index)


def _not_included(ctx, g):
    """The gradient of x where it takes no part: where some src element landed."""
    from .elementwise import where
    return where(_const(ctx.count > 0), 0.0, g)


def _grad_sum(ctx, g, x, index, src, out):
    gx = g if ctx.include_self else _not_included(ctx, g)
    return gx, _gather(g, ctx.dim, index)


def _grad_mean(ctx, g, x, index, src, out):
    n = np.maximum(ctx.count + (1 if ctx.include_self else 0), 1).astype(g._data.dtype)
    gn = g / _const(n)
    gx = gn if ctx.include_self else _not_included(ctx, g)
    return gx, _gather(gn, ctx.dim, index)


def _grad_extreme(ctx, g, x, index, src, out):
    from .indexing import scatter_add
    dim = ctx.dim
    tie_x = (x == out)
    if not ctx.include_self:
        tie_x = tie_x & _const(ctx.count == 0)
    tie_x = tie_x.to(g.dtype)
    tie_src = (src == _gather(out, dim, index)).to(g.dtype)
    ties = scatter_add(tie_x, dim, index, tie_src)
    share = g / ties
    return share * tie_x, _gather(share, dim, index) * tie_src


def _grad_prod(ctx, g, x, index, src, out):
    from .elementwise import where
    from .indexing import scatter_add
    dim, inc = ctx.dim, ctx.include_self
    if inc:
        x_safe = where(x == 0, 1.0, x)
        gx = g * scatter_reduce(x_safe, dim, index, src, "prod") / x_safe
    else:
        gx = _not_included(ctx, g)
    zero = src == 0
    zeros_there = _gather(scatter_add(x.detach() * 0, dim, index, zero.to(g.dtype)), dim, index)
    single = zero & (zeros_there == 1)
    others = scatter_reduce(x, dim, index, where(single, 1.0, src), "prod", include_self=inc)
    gsrc = where(single, _gather(g * others, dim, index),
                 _gather(g * out, dim, index) / where(zero, 1.0, src))
    return gx, gsrc


_REDUCE_GRADS = {"sum": _grad_sum, "mean": _grad_mean, "amax": _grad_extreme,
                 "amin": _grad_extreme, "prod": _grad_prod}


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """``src`` reduced into ``input`` at ``index`` along ``dim`` ('sum', 'prod', 'mean',
    'amax', 'amin'); ``include_self=False`` leaves the old values out where src lands."""
    reduce = _LEGACY_REDUCES.get(reduce, reduce)
    if reduce not in _REDUCES:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if index._data.dtype != np.int64:
        raise RuntimeError("scatter_reduce(): Expected dtype int64 for index")
    if input.dtype is not src.dtype:
        raise RuntimeError("scatter_reduce(): Expected self.dtype to be equal to src.dtype")
    return _scatter_reduce(ScatterReduce, input, dim, index, src, reduce, include_self)


def _scatter_reduce(cls, input, dim, index, src, reduce, include_self):
    """``cls`` (ScatterReduce or a renamed one) applied after the shape and bound checks."""
    d = wrap_dim(dim, input.ndim)
    from .indexing import _check_bounds, _check_scatter_shape
    _check_scatter_shape(input, d, index, src)
    _check_bounds(input, d, index)
    if input.ndim == 0:
        res = cls.apply(input.reshape(1), 0, index.reshape(-1), src.reshape(-1), reduce,
                        bool(include_self))
        return res.reshape(())
    return cls.apply(input, d, index, src, reduce, bool(include_self))


# ---- index_* ops: a scatter with the index broadcast along dim -------------------------------
def _spread(index, dim, shape):
    """The 1-d ``index`` placed along ``dim`` and broadcast to ``shape`` (an int64 tensor)."""
    idx = index._data.reshape(-1).astype(np.int64)
    view = [1] * len(shape)
    if shape:
        view[dim] = idx.shape[0]
    return _const(np.ascontiguousarray(np.broadcast_to(idx.reshape(view), shape)))


def _index_args(input, dim, index, source, op):
    """The checked arguments of an ``index_*`` op, 0-dim ones made 1-d, negative indices
    wrapped (PyTorch's checks in its order, with each op's own wording)."""
    if not isinstance(index, Tensor):
        from .indexing import tensor_argument
        raise tensor_argument(index, op, "index", 2)
    d = wrap_dim(dim, input.ndim)
    _CHECKS[op](input, d, index, source, op)
    n = input.shape[d] if input.ndim else 1
    idx = index._data.reshape(-1)
    _check_range(idx, n, d, op, input.ndim)
    index = _const(np.where(idx < 0, idx + n, idx))
    if input.ndim == 0:
        return input.reshape(1), 0, index, (None if source is None else source.reshape(-1))
    if source is not None and source.ndim == 0:
        source = source.reshape(1)
    return input, d, index, source


def _shape(t):
    return f"[{', '.join(map(str, t.shape))}]"


def _check_add_args(input, d, index, source, op):
    """index_add / index_reduce: PyTorch's shared checks of index and source."""
    if index.ndim > 1:
        raise IndexError(f"{op}_(): Index is supposed to be a vector, but got dim: {index.ndim} "
                         f"with type: {D.SCALAR_NAMES[index.dtype]} and size: {_shape(index)}")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{op}_(): Expected dtype int32/int64 for index but got: "
                           f"{D.SCALAR_NAMES[index.dtype]}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"{op}_(): self ({D.SCALAR_NAMES[input.dtype]}) and source "
                           f"({D.SCALAR_NAMES[source.dtype]}) must have the same scalar type")
    if d != 0 and d >= source.ndim:
        raise RuntimeError(f"{op}_(): Indexing dim {d} is out of bounds of the source tensor "
                           f"with dim {source.ndim}")
    if source.ndim == 0 and index.numel() != 1:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if index.numel() != (source.shape[d] if source.ndim else 1):
        raise RuntimeError(f"{op}_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({source.shape[d]}), for dim: {d}")
    rest, src_rest = list(input.shape), list(source.shape)
    if input.ndim and source.ndim:
        del rest[d], src_rest[d]
    if rest != src_rest:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {_shape(input)} "
                           f"source.shape = {_shape(source)}")


def _check_copy_args(input, d, index, source, op):
    """index_copy: PyTorch's checks of index and source, in its order and wording."""
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if source.ndim == 0 and index.numel() != 1:
        raise IndexError("index_copy_(): When source is scalar, index should have one element "
                         f"(got {index.numel()})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError("index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.ndim}), "
                         f"destination dimensionality ({input.ndim})")
    if index._data.dtype != np.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got "
                           f"{D.SCALAR_NAMES[index.dtype]}")
    if input.dtype is not source.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {D.SCALAR_NAMES[input.dtype]} and (source) "
                           f"{D.SCALAR_NAMES[source.dtype]}")
    rest, src_rest = list(input.shape), list(source.shape)
    if rest:
        del rest[d]
    if src_rest:
        del src_rest[d]
    if rest != src_rest:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {' '.join(map(str, rest))} at "
                           f"dimension {d} and source slice shape: "
                           f"{' '.join(map(str, src_rest))} at dimension 0.")
    if source.ndim and index.numel() != source.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal "
                         f"to source.size(dim) ({source.shape[d]})")


def _check_fill_args(input, d, index, source, op):
    """index_fill: an int64 index of at most one dim."""
    if index._data.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")


_CHECKS = {"index_add": _check_add_args, "index_reduce": _check_add_args,
           "index_copy": _check_copy_args, "index_fill": _check_fill_args}


def _check_range(idx, n, dim, op, ndim):
    """Each index_* op's own bounds check and wording; only index_fill wraps negatives."""
    if not idx.size:
        return
    lo = -n if op == "index_fill" else 0
    if idx.min() >= lo and idx.max() < n:
        return
    bad = int(idx.min() if idx.min() < lo else idx.max())
    where = f"index {bad} is out of bounds for dimension {dim} with size {n}"
    # NOTE: PyTorch's CPU index_add words the error by kernel: a first or last dim of a
    # tensor of 2+ dims takes the strided path (RuntimeError), the others a per-slice loop
    if op == "index_add" and ndim > 1 and dim in (0, ndim - 1):
        raise RuntimeError(where)
    if op == "index_copy":
        raise IndexError(f"index_copy_(): {where}")
    if op == "index_fill":
        raise IndexError(where)
    raise IndexError("index out of range in self")


def _finish(res, input):
    return res.reshape(()) if input.ndim == 0 else res


def index_add(input, dim, index, source, *, alpha=1, out=None):
    """``input`` with ``alpha * source`` slices added at ``index`` along ``dim``."""
    if out is not None:
        return write_out(out, index_add(input, dim, index, source, alpha=alpha))
    from .indexing import ScatterAdd
    x, d, idx, src = _index_args(input, dim, index, source, "index_add")
    if alpha != 1:
        src = src * alpha
    op = _named(ScatterAdd, "IndexAddBackward0")
    return _finish(op.apply(x, d, _spread(idx, d, src.shape), src.to(x.dtype)), input)


def index_copy(input, dim, index, source):
    """``input`` with ``source`` slices copied in at ``index`` along ``dim``."""
    from .indexing import Scatter
    x, d, idx, src = _index_args(input, dim, index, source, "index_copy")
    op = _named(Scatter, "IndexCopyBackward0")
    return _finish(op.apply(x, d, _spread(idx, d, src.shape), src), input)


def index_fill(input, dim, index, value):
    """``input`` with the slices at ``index`` along ``dim`` set to ``value``."""
    from .indexing import Scatter
    x, d, idx, _ = _index_args(input, dim, index, None, "index_fill")
    idx = _const(np.unique(idx._data))  # a position filled twice takes the value once
    shape = list(x.shape)
    shape[d] = idx.shape[0]
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
        src = value.to(x.dtype).expand(shape)
        op = _named(Scatter, "IndexFillBackward1")
    else:
        op = _named(Scatter, "IndexFillBackward0")
        if isinstance(value, (int, float)) and x._data.dtype.kind in "iu":
            from .._creation import scalar_as
            value = scalar_as(value, x.dtype)  # PyTorch's overflow error
        src = _const(np.full(shape, value, x._data.dtype))
    return _finish(op.apply(x, d, _spread(idx, d, tuple(shape)), src), input)


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """``source`` slices reduced into ``input`` at ``index`` along ``dim`` ('prod', 'mean',
    'amax', 'amin')."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    x, d, idx, src = _index_args(input, dim, index, source, "index_reduce")
    res = _scatter_reduce(_named(ScatterReduce, "IndexReduceBackward0"), x, d,
                          _spread(idx, d, src.shape), src, reduce, include_self)
    return _finish(res, input)


# ---- flat and masked writes ----------------------------------------------------------------
class Put(BuiltinFunction):
    """out = x with src written (added: accumulate) at the flat positions ``index``;
    dx = g (zeroed at index unless accumulate), dsrc = g.flatten()[index]."""
    _backward_name = "PutBackward0"

    @staticmethod
    def forward(ctx, x, index, src, accumulate):
        ctx.index, ctx.accumulate, ctx.src_shape = index, accumulate, src.shape
        out = np.array(x, order="C")
        flat, src = out.reshape(-1), src.astype(x.dtype, copy=False)
        if accumulate:
            np.add.at(flat, index, src.reshape(-1))
        else:
            flat[index] = src.reshape(-1)
        return out

    @staticmethod
    def backward(ctx, g):
        gx = gsrc = None
        if ctx.needs_input_grad[0]:
            gx = g if ctx.accumulate else Put.apply(
                g, ctx.index, np.zeros(ctx.index.shape, g._data.dtype), False)
        if ctx.needs_input_grad[2]:
            gsrc = g.reshape(-1)[_const(ctx.index)].reshape(ctx.src_shape)
        return gx, None, gsrc, None


def _named(base, backward_name):
    from .pooling import named
    return named(base, backward_name)


def put(input, index, source, accumulate=False):
    """``input`` with ``source`` written (or added) at the flat positions ``index``."""
    if index._data.dtype != np.int64:
        raise RuntimeError("put_(): Expected a long tensor for index, but got "
                           f"{D.SCALAR_NAMES[index.dtype]}")
    if input.dtype is not source.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {D.SCALAR_NAMES[input.dtype]} and source.dtype = "
                           f"{D.SCALAR_NAMES[source.dtype]}")
    if index.numel() != source.numel():
        raise IndexError("put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, index.numel() "
                         f"= {index.numel()}")
    return _put(Put, input, index, source, accumulate)


def _put(cls, input, index, source, accumulate=False):
    """``cls`` (Put or a renamed one) applied with ``index`` checked and wrapped."""
    n = input.numel()
    idx = index._data.reshape(-1).astype(np.int64)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = int(idx.min() if idx.min() < -n else idx.max())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")
    return cls.apply(input, np.where(idx < 0, idx + n, idx), source, bool(accumulate))


def masked_scatter(input, mask, source):
    """``input`` with the positions where ``mask`` holds filled, in order, from ``source``."""
    if not isinstance(mask, Tensor):
        from .indexing import tensor_argument
        raise tensor_argument(mask, "masked_scatter", "mask", 1)
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {D.SCALAR_NAMES[mask.dtype]}")
    if source.dtype is not input.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but "
                           f"got{D.SCALAR_NAMES[input.dtype]} and "
                           f"{D.SCALAR_NAMES[source.dtype]}")
    shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    x = input.expand(shape) if input._data.shape != shape else input
    where = np.flatnonzero(np.broadcast_to(mask._data, shape))
    if where.size > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return _put(_named(Put, "MaskedScatterBackward0"), x, _const(where),
                source.reshape(-1)[:where.size])


def _positions(shape):
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def select_scatter(input, src, dim, index):
    """``input`` with ``src`` embedded as its slice ``index`` along ``dim``."""
    d = wrap_dim(dim, input.ndim)
    pos = np.take(_positions(input.shape), index, axis=d)
    return _put(_named(Put, "SelectScatterBackward0"), input, _const(pos), src)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with ``src`` embedded as its slice ``start:end:step`` along ``dim``."""
    d = wrap_dim(dim, input.ndim)
    key = [slice(None)] * input.ndim
    key[d] = slice(start, end, step)
    pos = _positions(input.shape)[tuple(key)]
    return _put(_named(Put, "SliceScatterBackward0"), input, _const(pos), src)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with ``src`` embedded as its diagonal (``offset``, ``dim1``, ``dim2``)."""
    d1, d2 = wrap_dim(dim1, input.ndim), wrap_dim(dim2, input.ndim)
    pos = np.diagonal(_positions(input.shape), offset, d1, d2)
    return _put(_named(Put, "DiagonalScatterBackward0"), input, _const(pos), src)


def _strided_positions(size, stride, storage_offset):
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    pos = np.full(size, storage_offset, np.int64)
    for k, (n, s) in enumerate(zip(size, stride)):
        view = [1] * len(size)
        view[k] = n
        pos = pos + (np.arange(n, dtype=np.int64) * s).reshape(view)
    return pos


class AsStrided(BuiltinFunction):
    """out = storage[pos], the storage holding x at positions ``own`` (the rest constant);
    dx = (zeros(storage) with g added at ``pos``)[own]: PyTorch's as_strided backward,
    overlapping positions summed."""
    _backward_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, x, storage, own, pos):
        ctx.size, ctx.own, ctx.pos = storage.size, own, pos
        buf = storage.copy()
        buf[own.reshape(-1)] = x.reshape(-1)
        return buf[pos]

    @staticmethod
    def backward(ctx, g):
        zeros = _const(np.zeros(ctx.size, g._data.dtype))
        buf = index_add(zeros, 0, _const(ctx.pos.reshape(-1)), g.reshape(-1))
        return buf[_const(ctx.own)], None, None, None


class AsStridedAlias(AsStrided):
    """``AsStrided`` as a view: out = the memory around ``x`` at ``pos``, where ``x``'s own
    elements sit at ``own`` (NumPy's as_strided over x's buffer, so writes go through; a
    replayed view chain gives it another buffer of the same layout); the same backward."""
    _backward_name = "AsStridedBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, n_storage, own, pos, size, stride, offset):
        ctx.size, ctx.own, ctx.pos = n_storage, own, pos
        item = x.itemsize
        root = root_array(x)
        start = (data_ptr(x) - data_ptr(root)) // item - (int(own.flat[0]) if own.size else 0)
        if root.flags.c_contiguous and own.size and 0 <= start and \
                start + n_storage <= root.size:
            flat = root.reshape(-1)[start:]  # the storage, within x's buffer
            # NOTE: as_strided's geometry was checked within n_storage (memory-safe)
            return np.lib.stride_tricks.as_strided(
                flat[offset:] if offset < n_storage else flat[:0], size,
                tuple(st * item for st in stride))
        buf = np.zeros(n_storage, x.dtype)  # (no such buffer: read a copy)
        buf[own.reshape(-1)] = x.reshape(-1)
        return buf[pos]

    @staticmethod
    def backward(ctx, g):
        return AsStrided.backward(ctx, g)[:1] + (None,) * 6


def as_strided(input, size, stride, storage_offset=None, *, _copy=False):
    """The elements of ``input``'s storage at ``storage_offset + sum(i_k * stride_k)``, as a
    view of ``size`` (a copy where numtorch cannot alias the memory: see below).

    For a view, the storage is its base's (as in PyTorch): ``size``, ``stride`` and
    ``storage_offset`` (by default the view's own offset) index the base's memory; a
    C-contiguous tensor is its own storage. Any other tensor (whose memory layout numtorch
    does not promise to be PyTorch's) is read as its contiguous elements, into a copy.

    >>> import numtorch as torch
    >>> torch.arange(6.).as_strided((2, 2), (1, 2), 1)
    tensor([[1., 3.],
            [2., 4.]])
    """
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(st < 0 for st in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, "
                           f"got strides: {list(stride)}")
    if storage_offset is not None and storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    view = _view_storage(input)
    if view is not None:
        storage, own_offset, own_strides = view
        own = _strided_positions(input.shape, own_strides, own_offset)
        offset = own_offset if storage_offset is None else storage_offset
    elif input._data.flags.c_contiguous and input._base is None:
        storage = input._data.reshape(-1)
        own, offset = _positions(input.shape), storage_offset or 0
    else:
        storage = np.zeros(input.numel(), input._data.dtype)
        own = _positions(input.shape)
        offset = storage_offset or 0
    _check_storage(size, stride, offset, storage.size, storage.itemsize)
    pos = _strided_positions(size, stride, offset)
    if _copy:
        return AsStridedCopy.apply(input, storage, own, pos)
    if np.shares_memory(storage, input._data):
        return AsStridedAlias.apply(input, storage.size, own, pos, size, stride, offset)
    return AsStrided.apply(input, storage, own, pos)


def _view_storage(input):
    """``(storage, offset, strides)`` of a view whose base holds C-contiguous memory: the
    base's data flattened, and the view's offset and strides into it in elements; None for
    anything else (which ``as_strided`` reads in its own logical order)."""
    base = input._base
    if base is None or not base._data.flags.c_contiguous or base._data.size == 0:
        return None
    data, item = input._data, input._data.itemsize
    if not np.shares_memory(data, base._data):  # NOTE: a "view" that numtorch had to copy
        return None
    delta = (data.__array_interface__["data"][0]
             - base._data.__array_interface__["data"][0])
    if delta % item or any(st % item for st in data.strides):
        return None
    return base._data.reshape(-1), delta // item, [st // item for st in data.strides]


class AsStridedCopy(AsStrided):
    _backward_name = "AsStridedBackward0_copy"


def as_strided_copy(input, size, stride, storage_offset=None):
    """``as_strided`` (always a copy)."""
    return as_strided(input, size, stride, storage_offset, _copy=True)


class AsStridedScatter(BuiltinFunction):
    """out = x with src written at the flat positions ``pos``;  dsrc = g[pos], and dx = g
    at ``pos`` and zero elsewhere: PyTorch's ``as_strided_scatter_backward`` copies the
    grad's slice into zeros (the complement of what a scatter's derivative would be), and
    numtorch gives the same numbers."""
    _backward_name = "AsStridedScatterBackward0"

    @staticmethod
    def forward(ctx, x, src, pos):
        ctx.pos = pos
        out = np.array(x, order="C")
        out.reshape(-1)[pos.reshape(-1)] = src.reshape(-1)
        return out

    @staticmethod
    def backward(ctx, g):
        pos = ctx.pos
        mask = np.zeros(g.shape, bool)
        mask.reshape(-1)[pos.reshape(-1)] = True
        gx = g * _const(mask) if ctx.needs_input_grad[0] else None
        gsrc = g.reshape(-1)[_const(pos)] if ctx.needs_input_grad[1] else None
        return gx, gsrc, None


def _check_storage(size, stride, offset, n_storage, itemsize):
    """PyTorch's setStorage bounds check of an ``as_strided`` geometry over a storage of
    ``n_storage`` elements (messages in bytes, as PyTorch's)."""
    if any(n == 0 for n in size):
        return
    need = offset + sum((n - 1) * st for n, st in zip(size, stride)) + 1
    if need > n_storage or offset < 0:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {itemsize} requiring a storage size "
                           f"of {need * itemsize} are out of bounds for storage of size "
                           f"{n_storage * itemsize}")


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """``input`` (read as contiguous) with ``src`` written at the ``as_strided`` positions.

    >>> import numtorch as torch
    >>> torch.zeros(2, 2).as_strided_scatter(torch.ones(2), (2,), (3,))
    tensor([[1., 0.],
            [0., 1.]])
    """
    size, stride = tuple(size), tuple(stride)
    offset = storage_offset or 0
    pos = _strided_positions(size, stride, offset)
    _check_storage(size, stride, offset, input.numel(), input._data.itemsize)
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src.shape)}, slice size = {list(size)}")
    if any(n > 1 and st == 0 for n, st in zip(size, stride)):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    return AsStridedScatter.apply(input, src.to(input.dtype), pos)


METHODS = ["scatter_reduce", "index_add", "index_copy", "index_fill", "index_reduce", "put",
           "masked_scatter", "select_scatter", "slice_scatter", "diagonal_scatter",
           "as_strided", "as_strided_scatter"]
INPLACE = ["scatter_reduce", "index_add", "index_copy", "index_fill", "index_reduce", "put",
           "masked_scatter"]
