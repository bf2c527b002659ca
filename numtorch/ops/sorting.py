"""Sorting and selection: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode,
quantile, nanquantile, unique, unique_consecutive, searchsorted, bucketize.

NaN sorts as the largest value (as in PyTorch); ties keep their input order (stable).
The value-selecting ops differentiate by sending the gradient back to the selected indices.

>>> import numtorch as torch
>>> torch.sort(torch.tensor([3., 1., 2.])).values
tensor([1., 2., 3.])
>>> torch.topk(torch.tensor([1., 5., 3.]), 2).indices
tensor([1, 2])
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd._interpose import STATE as _FW
from ..autograd.grad_mode import STATE as _GRAD
from ._base import BuiltinFunction
from ..autograd._saved_attrs import keep_given
from ._util import index_argument, wrap_dim, no_bool, no_complex, write_out, write_out_pair
from . import return_types

_make = Tensor._make


def _const(a):
    return _make(np.asarray(a), None, False)


def _sort_arrays(x, dim, descending, stable=True):
    """(values, int64 indices) of a sort along ``dim``; NaN counts as largest. Stable, or
    with ``stable=False`` ties in the order PyTorch's unstable sort leaves them."""
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    if descending:
        # NOTE: a stable ascending sort of the reversed data, reversed again, is a stable
        # descending sort (negating would break unsigned ints and NaN's place).
        idx = np.argsort(np.flip(x, dim), axis=dim, kind="stable")
        idx = x.shape[dim] - 1 - np.flip(idx, dim)
    else:
        idx = np.argsort(x, axis=dim, kind="stable")
    vals, idx = np.take_along_axis(x, idx, dim), idx.astype(np.int64)
    if not stable:
        _unstable_ties(x, vals, idx, dim, descending)
    return vals, idx


def _unstable_ties(x, vals, idx, dim, descending):
    """Reorder the ties of a stable sort (``vals``/``idx``, rewritten) as PyTorch's CPU sort
    without ``stable=True`` leaves them: it runs ``std::sort`` on (value, index) pairs.

    NOTE: ``std::sort`` is an insertion sort up to 16 elements, stable there; longer rows
    holding ties are replayed (``_select_order``), up to ``_REPLAY_LIMIT`` elements. PyTorch
    sorts stably anyway a 1-d integer tensor of ``_RADIX_MIN`` or more elements in ascending
    order (a radix sort), and leaves the identity order along a dim of stride 0."""
    n = x.shape[dim]
    if n <= 16 or n > _REPLAY_LIMIT or x.size == 0 or x.strides[dim] == 0:
        return
    if x.ndim == 1 and not descending and x.dtype.kind in "iu" and n >= _RADIX_MIN:
        return
    from ._select_order import ranks, sort_order
    srows, xrows = _rows(vals, dim), _rows(x, dim)
    for r in _tied(srows, n):
        order = sort_order(ranks(xrows[r], descending))
        _put_rows(idx, dim, r, order)
        _put_rows(vals, dim, r, xrows[r][order])


def _scatter_back(g, idx, shape, dim, keepdim=True):
    """The gradient of a selection: ``g`` placed at ``idx`` along ``dim`` in zeros(shape)."""
    from .indexing import scatter
    from .._creation import zeros
    if len(shape) == 0:
        return g.reshape(())
    if not keepdim:
        g, idx = g.unsqueeze(dim), idx.unsqueeze(dim)
    # NOTE: written, not added, into the zeros (as PyTorch): a -0.0 gradient stays -0.0
    return scatter(zeros(shape, dtype=g.dtype), dim, idx, g)


class Sort(BuiltinFunction):
    """(values, indices) = sort(x, dim);  dx = g scattered back to the indices."""
    _backward_name = "SortBackward0"

    @staticmethod
    def forward(ctx, x, dim, descending, stable):
        vals, idx = _sort_arrays(x, dim, descending, stable)
        ctx.save_for_backward(idx)
        ctx.shape, ctx.dim = x.shape, dim
        return vals, idx

    @staticmethod
    def backward(ctx, g, _gi):
        (idx,) = ctx.saved_tensors
        return _scatter_back(g, idx, ctx.shape, ctx.dim), None, None, None


class SortStable(Sort):
    _backward_name = "SortBackward1"


def sort(input, dim=-1, descending=False, stable=None, *, out=None):
    """Sort along ``dim``: a ``(values, indices)`` named tuple (ties stay in input order).

    >>> import numtorch as torch
    >>> torch.sort(torch.tensor([2, 0, 1]), descending=True).indices
    tensor([0, 2, 1])
    """
    if out is not None:
        return write_out_pair(out, sort(input, dim, descending, stable), "sort")
    no_complex(input, ' Sort does not support complex dtypes on CPU', RuntimeError)
    if isinstance(dim, bool):  # sort(input, stable, dim, descending) overload
        dim, stable = -1, dim
    cls = Sort if stable is None else SortStable
    d = wrap_dim(dim, input.ndim)
    res = return_types.sort(*cls.apply(input, d, bool(descending), bool(stable)))
    if d != dim:  # (negative: kept as given, see keep_given)
        return keep_given(res, dim=dim)
    return res


def argsort(input, dim=-1, descending=False, stable=False):
    """Indices that sort ``input`` along ``dim``."""
    no_complex(input, ' Sort does not support complex dtypes on CPU', RuntimeError)
    d = wrap_dim(dim, input.ndim)
    return _const(_sort_arrays(input._data, d, descending, bool(stable))[1])


def msort(input):
    """``input`` sorted along its first dimension."""
    no_complex(input, ' Sort does not support complex dtypes on CPU', RuntimeError)
    return sort(input, 0).values


class Topk(BuiltinFunction):
    """(values, indices) = the k largest (smallest) along dim;  dx = g at the indices."""
    _backward_name = "TopkBackward0"

    @staticmethod
    def forward(ctx, x, k, dim, largest):
        vals, idx = _sort_arrays(x, dim, largest)
        if x.ndim:
            _topk_ties(x, vals, idx, k, dim, largest)
            vals = np.take(vals, np.arange(k), axis=dim)
            idx = np.take(idx, np.arange(k), axis=dim)
        ctx.save_for_backward(idx)
        ctx.shape, ctx.dim = x.shape, dim
        return vals, idx

    @staticmethod
    def backward(ctx, g, _gi):
        (idx,) = ctx.saved_tensors
        return _scatter_back(g, idx, ctx.shape, ctx.dim), None, None, None


# NOTE: rows longer than this keep the stable sort's choice among ties: replaying the C++
# algorithms in Python would cost seconds
_REPLAY_LIMIT = 100_000
_RADIX_MIN = 32768  # PyTorch's GRAIN_SIZE: from there its CPU sort may take a radix sort


def _rows(a, dim):
    """``a`` with ``dim`` moved last, as a 2-d view of rows (a copy when needed)."""
    m = np.moveaxis(a, dim, -1)
    return m.reshape(-1, m.shape[-1]) if m.size else m.reshape(0, m.shape[-1])


def _put_rows(a, dim, r, row_values):
    np.moveaxis(a, dim, -1).reshape(-1, a.shape[dim])[r] = row_values


def _tied(sorted_rows, upto):
    """Rows whose first ``upto`` sorted values hold two equal ones (NaNs included)."""
    head = sorted_rows[:, :upto]
    same = head[:, 1:] == head[:, :-1]
    if head.dtype.kind in "fc":
        nan = np.isnan(head)
        same |= nan[:, 1:] & nan[:, :-1]
    return np.nonzero(same.any(axis=1))[0]


def _topk_ties(x, vals, idx, k, dim, largest):
    """Among equal values, the indices PyTorch's topk picks (rewrites ``vals``/``idx``)."""
    n = x.shape[dim]
    if k == 0 or n > _REPLAY_LIMIT or not idx.flags.writeable:
        return
    from ._select_order import topk_order
    srows, xrows = _rows(vals, dim), _rows(x, dim)
    for r in _tied(srows, min(k + 1, n)):
        order = topk_order(xrows[r], k, largest=largest)
        row_idx = np.arange(n)
        row_idx[:k] = order
        _put_rows(idx, dim, r, row_idx)
        _put_rows(vals, dim, r, xrows[r][row_idx])


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices."""
    no_complex(input, ' topk does not support complex dtypes on CPU', RuntimeError)
    no_bool(input, 'topk does not support bool dtypes on CPU', RuntimeError)
    if type(k) is not int:
        k = index_argument(k, "topk", "k")
    d = wrap_dim(dim, input.ndim)
    n = input._data.shape[d] if input.ndim else 1
    if k < 0 or k > n:
        raise RuntimeError("selected index k out of range")
    res = return_types.topk(*Topk.apply(input, int(k), d, bool(largest)))
    if d != dim:  # (negative: kept as given, see keep_given)
        keep_given(res.values, dim=dim)
    return res if out is None else write_out_pair(out, res, "topk")


class Kthvalue(BuiltinFunction):
    """(values, indices) = the k-th smallest along dim;  dx = g at the index."""
    _backward_name = "KthvalueBackward0"

    @staticmethod
    def forward(ctx, x, k, dim, keepdim):
        vals, idx = _sort_arrays(x, dim, False)
        if x.ndim:
            _kth_ties(x, vals, idx, k, dim)
            vals = np.take(vals, [k - 1], axis=dim)
            idx = np.take(idx, [k - 1], axis=dim)
            if not keepdim:
                vals, idx = vals.squeeze(dim), idx.squeeze(dim)
        ctx.save_for_backward(idx)
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return vals, idx

    @staticmethod
    def backward(ctx, g, _gi):
        (idx,) = ctx.saved_tensors
        return _scatter_back(g, idx, ctx.shape, ctx.dim, ctx.keepdim), None, None, None


def _kth_ties(x, vals, idx, k, dim):
    """Where the k-th value is tied, the index PyTorch's quickselect returns (rewrites
    ``idx`` at position k - 1)."""
    n = x.shape[dim]
    if n > _REPLAY_LIMIT:
        return
    from ._select_order import quick_select, ranks
    srows, xrows = _rows(vals, dim), _rows(x, dim)
    kth = srows[:, k - 1:k]
    same = (srows == kth)
    if x.dtype.kind in "fc":
        same |= np.isnan(srows) & np.isnan(kth)
    for r in np.nonzero(same.sum(axis=1) > 1)[0]:
        row_idx = _rows(idx, dim)[r].copy()
        row_idx[k - 1] = quick_select(ranks(xrows[r], False), k - 1)
        _put_rows(idx, dim, r, row_idx)


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest element along ``dim`` (1-based) and its index."""
    no_complex(input, '"kthvalue_cpu" not implemented for \'{T}\'', NotImplementedError)
    no_bool(input, '"kthvalue_cpu" not implemented for \'{T}\'', NotImplementedError)
    if type(k) is not int:
        k = index_argument(k, "kthvalue", "k")
    d = wrap_dim(dim, input.ndim)
    n = input._data.shape[d] if input.ndim else 1
    if k < 1 or k > n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    res = return_types.kthvalue(*Kthvalue.apply(input, int(k), d, bool(keepdim)))
    return res if out is None else write_out_pair(out, res, "kthvalue")


# ---- median and mode ---------------------------------------------------------------------
def _median_arrays(x, dim, ignore_nan):
    """Lower median along ``dim`` (keepdim) and its index; NaN propagates unless ignored."""
    vals, idx = _sort_arrays(x, dim, False)
    n = x.shape[dim]
    if ignore_nan and x.dtype.kind in "fc":
        count = np.sum(~np.isnan(x), axis=dim, keepdims=True)
        pos = np.maximum((count - 1) // 2, 0)
    else:
        pos = np.full(vals.shape[:dim] + (1,) + vals.shape[dim + 1:], (n - 1) // 2)
        if x.dtype.kind in "fc":
            nan = np.isnan(x)
            first_nan = np.argmax(np.take_along_axis(nan, idx, dim), axis=dim, keepdims=True)
            pos = np.where(np.any(nan, axis=dim, keepdims=True), first_nan, pos)
    pos = pos.astype(np.int64)
    return np.take_along_axis(vals, pos, dim), np.take_along_axis(idx, pos, dim)


class MedianDim(BuiltinFunction):
    """(values, indices) = median(x, dim);  dx = g at the index."""
    _backward_name = "MedianBackward1"
    _ignore_nan = False

    @classmethod
    def forward(cls, ctx, x, dim, keepdim):
        if x.ndim == 0:
            vals, idx = x.copy(), np.zeros((), np.int64)
        else:
            vals, idx = _median_arrays(x, dim, cls._ignore_nan)
            if not keepdim:
                vals, idx = vals.squeeze(dim), idx.squeeze(dim)
        ctx.save_for_backward(idx)
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return vals, idx

    @staticmethod
    def backward(ctx, g, _gi):
        (idx,) = ctx.saved_tensors
        return _scatter_back(g, idx, ctx.shape, ctx.dim, ctx.keepdim), None, None


class NanmedianDim(MedianDim):
    _backward_name = "NanmedianBackward1"
    _ignore_nan = True


class MedianAll(BuiltinFunction):
    """out = median of all elements;  dx = g split evenly among the elements equal to it."""
    _backward_name = "MedianBackward0"
    _ignore_nan = False

    @classmethod
    def forward(cls, ctx, x):
        if x.size == 0:
            return np.full((), np.nan, x.dtype)
        vals, _ = _median_arrays(x.reshape(-1), 0, cls._ignore_nan)
        out = vals.reshape(())
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        mask = (x == out) | (x.isnan() & out.isnan())
        mask = mask.to(g.dtype)
        return g * mask / mask.sum()


class NanmedianAll(MedianAll):
    _backward_name = "NanmedianBackward0"
    _ignore_nan = True


_NOT_GIVEN = object()  # (median's dim: None given is the parser's error, as in PyTorch)


def _check_median_args(op, dim, keepdim):
    """PyTorch's parser errors for a median's ``dim`` given as None, or a keepdim that is no
    bool or comes without a dim."""
    if dim is _NOT_GIVEN:  # (a keepdim or out= needs the dim overload)
        raise TypeError(f'{op}() missing 1 required positional arguments: "dim"')
    if dim is None:
        msg = f"{op}(): argument 'dim' must be int, not NoneType"
    elif keepdim is not False and keepdim is not True:
        msg = f"{op}(): argument 'keepdim' must be bool, not {type(keepdim).__name__}"
    else:
        return
    from ._arg_errors import bad_argument
    raise bad_argument(TypeError(msg))


def median(input, dim=_NOT_GIVEN, keepdim=False, *, out=None):
    """The lower median (of all elements, or along ``dim`` with its index).

    >>> import numtorch as torch
    >>> torch.median(torch.tensor([4., 1., 3., 2.]))
    tensor(2.)
    """
    if dim is _NOT_GIVEN and keepdim is False and out is None:
        dim = None
    else:
        _check_median_args("median", dim, keepdim)
    if out is not None:
        # (out= is the dim overload's only: a dim is given)
        return write_out_pair(out, median(input, dim, keepdim), "median")
    _check_median_dtype(input, dim)
    if dim is None:
        return MedianAll.apply(input)
    return _median_dim(MedianDim, "median", input, dim, keepdim)


def nanmedian(input, dim=_NOT_GIVEN, keepdim=False, *, out=None):
    """``median`` ignoring NaN values."""
    if dim is _NOT_GIVEN and keepdim is False and out is None:
        dim = None
    else:
        _check_median_args("nanmedian", dim, keepdim)
    if out is not None:
        # (out= is the dim overload's only: a dim is given)
        return write_out_pair(out, nanmedian(input, dim, keepdim), "nanmedian")
    _check_median_dtype(input, dim)
    if dim is None:
        return NanmedianAll.apply(input)
    return _median_dim(NanmedianDim, "nanmedian", input, dim, keepdim)


def _check_median_dtype(input, dim):
    """PyTorch's median kernels take neither complex nor bool values."""
    kernel = "median_cpu" if dim is None else "median_out"
    no_complex(input, f'"{kernel}" not implemented for ' + "'{T}'")
    no_bool(input, f'"{kernel}" not implemented for ' + "'{T}'")


def _median_dim(cls, name, input, dim, keepdim):
    d = wrap_dim(dim, input.ndim)
    if input.ndim and input._data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return getattr(return_types, name)(*cls.apply(input, d, bool(keepdim)))


class Mode(BuiltinFunction):
    """(values, indices) = the most frequent value along dim (the smallest on ties) and its
    last index;  dx = g at the index."""
    _backward_name = "ModeBackward0"

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        if x.ndim == 0:
            vals, idx = x.copy(), np.zeros((), np.int64)
        else:
            vals, idx = _mode_arrays(x, dim)
            if not keepdim:
                vals, idx = vals.squeeze(dim), idx.squeeze(dim)
        ctx.save_for_backward(idx)
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return vals, idx

    @staticmethod
    def backward(ctx, g, _gi):
        (idx,) = ctx.saved_tensors
        return _scatter_back(g, idx, ctx.shape, ctx.dim, ctx.keepdim), None, None


def _mode_arrays(x, dim):
    xm = np.moveaxis(x, dim, -1)
    lead, n = xm.shape[:-1], xm.shape[-1]
    flat = xm.reshape(-1, n)
    vals = np.empty(flat.shape[0], x.dtype)
    idx = np.empty(flat.shape[0], np.int64)
    for r, row in enumerate(flat):
        if n <= _REPLAY_LIMIT // 5:  # a full sort per row: a lower limit
            idx[r] = _mode_index(row)
            vals[r] = row[idx[r]]
            continue
        uniq, counts = np.unique(row, return_counts=True)
        best = uniq[np.argmax(counts)]  # np.unique sorts, argmax takes the first: smallest
        vals[r] = best
        hits = np.nonzero((row == best) | (row != row) & (best != best))[0]
        idx[r] = hits[-1]
    shape = lead + (1,)
    return (np.moveaxis(vals.reshape(shape), -1, dim),
            np.moveaxis(idx.reshape(shape), -1, dim))


def _mode_index(row):
    """PyTorch's mode: ``std::sort`` the (value, index) pairs by value (not stable; NaN
    compares false both ways), then the first longest run of equal values wins, and its last
    pair gives the index."""
    from ._select_order import sort_order
    values = row.tolist()
    order = sort_order(values)
    best, best_len, run = 0, 0, 0
    for pos, i in enumerate(order):
        run += 1
        if pos == len(order) - 1 or values[i] != values[order[pos + 1]]:
            if run > best_len:
                best, best_len = i, run
            run = 0
    return best


def mode(input, dim=-1, keepdim=False, *, out=None):
    """The most frequent value along ``dim`` and the index of its last occurrence."""
    if out is not None:
        return write_out_pair(out, mode(input, dim, keepdim), "mode")
    no_complex(input, '"mode_cpu" not implemented for \'{T}\'', NotImplementedError)
    d = wrap_dim(dim, input.ndim)
    return return_types.mode(*Mode.apply(input, d, bool(keepdim)))


# ---- quantiles ---------------------------------------------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_checks(input, q, interpolation):
    """The q values as an array, after PyTorch's checks in its order (quantile and
    nanquantile share them, and both name ``quantile()`` in their messages)."""
    if not isinstance(q, Tensor) and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if input._data.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if isinstance(q, Tensor) and q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype is not D.float32 and input.dtype is not D.float64:
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if not isinstance(q, Tensor):
        return np.asarray(q, input._data.dtype)
    if q.dtype is not input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    qv = q._data
    if qv.size and (np.any(qv < 0) or np.any(qv > 1)):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    return qv


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    """Quantiles as differentiable Tensor ops: sort, then interpolate between neighbours."""
    from .elementwise import where
    qv = _quantile_checks(input, q, interpolation)
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else wrap_dim(dim, input.ndim)
    if x.ndim == 0:
        x = x.reshape(1)
    s = sort(x, d).values.movedim(d, -1)  # (..., n), NaN last
    n = s.shape[-1]
    nan = s.isnan()
    if ignore_nan:
        count = (~nan).sum(-1, keepdim=True)._data.astype(s._data.dtype)
    else:
        count = np.full(s._data.shape[:-1] + (1,), n, s._data.dtype)
    rank = qv.reshape(-1) * (count - 1)  # (..., len(q))
    lo, hi = np.floor(rank), np.ceil(rank)
    if interpolation == "lower":
        hi = lo
    elif interpolation == "higher":
        lo = hi
    elif interpolation == "nearest":
        lo = hi = np.round(rank)
    clip = np.maximum(n - 1, 0)
    lo_i = _const(np.clip(lo, 0, clip).astype(np.int64))
    hi_i = _const(np.clip(hi, 0, clip).astype(np.int64))
    v_lo, v_hi = s.gather(-1, lo_i), s.gather(-1, hi_i)
    if interpolation == "midpoint":
        w = _const(np.where(hi > lo, 0.5, 0.0).astype(s._data.dtype))
    elif interpolation == "linear" and isinstance(q, Tensor) and q.requires_grad:
        w = q.reshape(-1) * _const(count - 1) - _const(lo.astype(s._data.dtype))
    else:
        w = _const((rank - lo).astype(s._data.dtype))
    out = v_lo + w * (v_hi - v_lo)
    bad = (count == 0) if ignore_nan else np.any(nan._data, axis=-1, keepdims=True)
    out = where(_const(np.broadcast_to(bad, out._data.shape)), float("nan"), out)
    return _quantile_shape(out, input, dim, d, keepdim, np.ndim(qv))


def _quantile_shape(out, input, dim, d, keepdim, q_ndim):
    """(..., len(q)) -> PyTorch's layout: q's dim first, reduced dim dropped or kept as 1."""
    out = out.movedim(-1, 0)  # (len(q), ...rest)
    if keepdim:
        if dim is None:
            out = out.reshape((out.shape[0],) + (1,) * input.ndim)
        elif input.ndim:
            out = out.unsqueeze(d + 1)
    if q_ndim == 0:
        out = out.squeeze(0)
    return out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The ``q``-th quantiles of ``input`` (all elements, or along ``dim``).

    >>> import numtorch as torch
    >>> torch.quantile(torch.tensor([0., 1., 2., 3.]), 0.5)
    tensor(1.5000)
    """
    if out is not None:
        return write_out(out, quantile(input, q, dim, keepdim, interpolation=interpolation))
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``quantile`` ignoring NaN values (NaN where a slice has none left)."""
    if out is not None:
        return write_out(out, nanquantile(input, q, dim, keepdim, interpolation=interpolation))
    return _quantile(input, q, dim, keepdim, interpolation, True)


# ---- unique --------------------------------------------------------------------------------
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or slices along ``dim``), sorted; optionally the inverse
    indices and the counts."""
    no_complex(input, '"unique" not implemented for \'{T}\'', NotImplementedError)
    if _FW.fw_levels:   # PyTorch has no forward-AD formula for it
        from ..autograd._tangents import refuse_duals
        refuse_duals("_unique2" if dim is None else "unique_dim", input)
    x = input._data
    if dim is None:
        # NOTE: NaN != NaN, so each NaN stays a value of its own, as in PyTorch
        vals, inv, counts = np.unique(x.reshape(-1), return_inverse=True, return_counts=True,
                                      equal_nan=False)
        inv = inv.reshape(x.shape)
    else:
        d = _unique_dim(input, dim)
        vals, inv, counts = np.unique(x, return_inverse=True, return_counts=True, axis=d)
        inv = inv.reshape(-1)
    vals = _recorded(input, vals, "_unique2" if dim is None else "unique_dim")
    return _unique_result(vals, inv, counts, return_inverse, return_counts)


class UniqueValues(BuiltinFunction):
    """out = the distinct values (computed before); recorded as PyTorch records them, with
    no derivative."""
    _backward_name = "Unique2Backward0"

    @staticmethod
    def forward(ctx, x, vals, op):
        ctx.op = op
        return vals

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError(f"the derivative for '{ctx.op}' is not implemented.")


_UNIQUE_NODES = {"_unique2": "Unique2Backward0", "unique_dim": "UniqueDimBackward0",
                 "unique_consecutive": "UniqueConsecutiveBackward0"}


def _recorded(input, vals, op):
    """``vals`` as a Tensor, in the graph (without a derivative) where ``input`` is."""
    if not (input._rg and _GRAD.enabled):
        return _const(vals)
    from .pooling import named
    return named(UniqueValues, _UNIQUE_NODES[op]).apply(input, vals, op)


def _unique_dim(input, dim):
    """``dim`` of ``unique``/``unique_consecutive`` wrapped, with PyTorch's checks: the input
    has dims, and if it is empty, its one empty dim is ``dim``."""
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim)
    shape = input._data.shape
    if 0 in shape:
        if shape.count(0) > 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique "
                               "cannot be applied ")
        if shape[d] != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                               "unique cannot be applied")
    return d


def _unique_result(vals, inv, counts, return_inverse, return_counts):
    out = [vals]
    if return_inverse:
        out.append(_const(inv.astype(np.int64)))
    if return_counts:
        out.append(_const(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (or slices along ``dim``)."""
    if _FW.fw_levels:   # PyTorch has no forward-AD formula for it
        from ..autograd._tangents import refuse_duals
        refuse_duals("unique_consecutive", input)
    x = input._data
    if dim is None:
        flat = x.reshape(-1)
        starts = np.ones(flat.shape[0], bool)
        starts[1:] = flat[1:] != flat[:-1]
        vals = flat[starts]
        inv = (np.cumsum(starts) - 1).reshape(x.shape)
    else:
        d = _unique_dim(input, dim)
        xm = np.moveaxis(x, d, 0).reshape(x.shape[d], int(np.prod(x.shape)) // max(
            x.shape[d], 1))
        starts = np.ones(xm.shape[0], bool)
        starts[1:] = np.any(xm[1:] != xm[:-1], axis=1)
        vals = np.compress(starts, x, axis=d)
        inv = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.nonzero(starts)[0], starts.shape[0]))
    vals = _recorded(input, vals, "unique_consecutive")
    return _unique_result(vals, inv, counts, return_inverse, return_counts)


# ---- searchsorted and bucketize --------------------------------------------------------------
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Indices where ``input`` values would be inserted into the innermost dimension of
    ``sorted_sequence`` to keep it sorted (``right``/``side`` choose the tie side)."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites,"
                               " got side of left while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, -1)
    scalar = not isinstance(input, Tensor)
    vals = np.asarray(input) if scalar else input._data
    res = _searchsorted_arrays(seq, vals, "right" if right else "left")
    return _const(res.astype(np.int32 if out_int32 else np.int64))


def _searchsorted_arrays(seq, vals, side):
    if seq.ndim <= 1:
        return _bisect(seq.reshape(1, -1), vals.reshape(1, -1), side).reshape(vals.shape)
    if vals.shape[:-1] != seq.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           "the first N-1 dimensions of boundaries tensor and input value "
                           "tensor must match, but we got boundaries tensor "
                           f"[{', '.join(map(str, seq.shape))}] and input value tensor "
                           f"[{', '.join(map(str, vals.shape))}]")
    rows = int(np.prod(seq.shape[:-1]))
    if rows == 0:
        return np.zeros(vals.shape, np.int64)
    flat_seq = seq.reshape(rows, seq.shape[-1])
    flat_vals = vals.reshape(rows, vals.shape[-1])
    return _bisect(flat_seq, flat_vals, side).reshape(vals.shape)


def _bisect(seq, vals, side):
    """Per row, PyTorch's binary search of ``vals`` in ``seq`` (2-d arrays, one row of seq
    for each row of vals, or one for all).

    NOTE: the same steps as PyTorch's, not NumPy's searchsorted: a NaN compares false both
    ways, so it lands where PyTorch's comparisons send it (NumPy sorts NaN last)."""
    n = seq.shape[-1]
    lo = np.zeros(vals.shape, np.int64)
    hi = np.full(vals.shape, n, np.int64)
    if seq.shape[0] != vals.shape[0]:
        seq = np.broadcast_to(seq, (vals.shape[0], n))
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) >> 1
        at = np.take_along_axis(seq, np.minimum(mid, n - 1), -1) if n else vals
        below = ~(at > vals) if side == "right" else ~(at >= vals)
        lo = np.where(active & below, mid + 1, lo)
        hi = np.where(active & ~below, mid, hi)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket index of each ``input`` value given 1-d sorted ``boundaries``."""
    if boundaries.ndim != 1:
        raise RuntimeError("boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


METHODS = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode",
           "quantile", "nanquantile", "unique", "unique_consecutive"]
