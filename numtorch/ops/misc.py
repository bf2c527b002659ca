"""Assorted ops: differences and integrals, histograms, distances, grids and combinations,
integer math, and the top-level aliases of ``torch.linalg`` functions.

Most are compositions of differentiable ops (so gradients and second derivatives come from
their parts); the counting ops (histc, bincount ...) have no gradient, as in PyTorch.

>>> import numtorch as torch
>>> torch.diff(torch.tensor([1, 4, 9]))
tensor([3, 5])
>>> torch.trapezoid(torch.tensor([1., 2., 3.]))
tensor(4.)
"""
import itertools
import math
import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd._interpose import STATE as _FW
from ._base import BuiltinFunction
from ._util import wrap_dim, result_np, write_out, no_complex

_make = Tensor._make


def _const(a, dtype=None):
    return _make(np.asarray(a) if dtype is None else np.asarray(a, dtype), None, False)


# ---- differences and integrals ---------------------------------------------------------
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (after ``prepend``/``append``)."""
    from .shape import cat, narrow
    d = wrap_dim(dim, input.ndim)
    x = input
    if n == 0:
        return input
    if prepend is not None or append is not None:
        parts = [p if p.ndim else p.expand(_with(x.shape, d, 1))
                 for p in (prepend, x, append) if p is not None]
        x = cat(parts, d)
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        if x._data.dtype == np.bool_:
            x = narrow(x, d, 1, m - 1) ^ narrow(x, d, 0, m - 1)
        else:
            x = narrow(x, d, 1, m - 1) - narrow(x, d, 0, m - 1)
    return x


def _with(shape, d, n):
    s = list(shape)
    s[d] = n
    return tuple(s)


def _trapezoid_parts(y, x, dx, dim, cumulative):
    """PyTorch's formulas (integer inputs wrap as they do there); None for an empty dim."""
    from .shape import narrow
    d = wrap_dim(dim, y.ndim)
    n = y.shape[d]
    if n == 0:
        return None, d
    pair_sums = narrow(y, d, 1, n - 1) + narrow(y, d, 0, n - 1)
    if isinstance(x, Tensor):
        steps = diff(x, dim=-1 if x.ndim == 1 else d)
        if x.ndim == 1:
            steps = steps.reshape((-1,) + (1,) * (y.ndim - 1 - d))
        prod = steps * pair_sums
        return (prod.cumsum(d) if cumulative else prod.sum(d)) / 2, d
    h = x if x is not None else (1 if dx is None else dx)
    if cumulative:
        return (pair_sums / 2).cumsum(d) * h, d
    ends = y.select(d, 0) + y.select(d, n - 1)
    return (y.sum(d) - ends * 0.5) * h, d


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal-rule integral of ``y`` along ``dim`` (spacing ``x`` or ``dx``)."""
    out, d = _trapezoid_parts(y, x, dx, dim, False)
    if out is None:
        from .._creation import zeros
        return zeros(_without(y.shape, d), dtype=_float_dtype(y))
    return out


def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of ``trapezoid``."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal-rule integral of ``y`` along ``dim``."""
    out, d = _trapezoid_parts(y, x, dx, dim, True)
    if out is None:
        from .._creation import zeros
        return zeros(y.shape, dtype=_float_dtype(y))
    return out


def _without(shape, d):
    return tuple(n for i, n in enumerate(shape) if i != d)


def _float_dtype(t):
    return t.dtype if t.dtype.is_floating_point else D.get_default_dtype()


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates of the derivative along each of ``dim`` by central differences (one-sided
    at the edges); a tuple of tensors, one per dim."""
    dims = list(range(input.ndim)) if dim is None else (
        [wrap_dim(dim, input.ndim)] if isinstance(dim, int) else
        [wrap_dim(d, input.ndim) for d in dim])
    spacings = _spacings(spacing, len(dims))
    return tuple(_gradient_1d(input, d, h, edge_order) for d, h in zip(dims, spacings))


def _spacings(spacing, n):
    if spacing is None:
        return [1] * n
    if isinstance(spacing, (int, float)):
        return [spacing] * n
    items = list(spacing)
    if len(items) == 1 and n > 1:
        items = items * n
    return [s.item() if isinstance(s, Tensor) and s.ndim == 0 else s for s in items]


def _gradient_1d(y, d, h, edge_order):
    from .shape import narrow, cat
    n = y.shape[d]
    if n < edge_order + 1:
        raise RuntimeError("torch.gradient expected each dimension size to be at least "
                           f"edge_order+1")
    if y._data.dtype.kind not in "fc":
        y = y.to(D.get_default_dtype())
    if isinstance(h, Tensor):
        return _gradient_coords(y, d, h, edge_order)
    inner = (narrow(y, d, 2, n - 2) - narrow(y, d, 0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (narrow(y, d, 1, 1) - narrow(y, d, 0, 1)) / h
        last = (narrow(y, d, n - 1, 1) - narrow(y, d, n - 2, 1)) / h
    else:
        first = (narrow(y, d, 0, 1) * -1.5 + narrow(y, d, 1, 1) * 2 -
                 narrow(y, d, 2, 1) * 0.5) / h
        last = (narrow(y, d, n - 3, 1) * 0.5 - narrow(y, d, n - 2, 1) * 2 +
                narrow(y, d, n - 1, 1) * 1.5) / h
    return cat([first, inner, last], d)


def _gradient_coords(y, d, x, edge_order):
    """Second-order accurate differences for uneven coordinates ``x`` (NumPy's formulas)."""
    from .shape import narrow, cat
    n = y.shape[d]
    shape = [1] * y.ndim
    shape[d] = -1
    dx = diff(x).to(y.dtype)
    a = narrow(dx, 0, 0, n - 2).reshape(shape)
    b = narrow(dx, 0, 1, n - 2).reshape(shape)
    yl, yc, yr = narrow(y, d, 0, n - 2), narrow(y, d, 1, n - 2), narrow(y, d, 2, n - 2)
    inner = (-b / (a * (a + b))) * yl + ((b - a) / (a * b)) * yc + (a / (b * (a + b))) * yr
    h0 = dx[0]
    hn = dx[-1]
    if edge_order == 1:
        first = (narrow(y, d, 1, 1) - narrow(y, d, 0, 1)) / h0
        last = (narrow(y, d, n - 1, 1) - narrow(y, d, n - 2, 1)) / hn
    else:
        h1, hm = dx[1], dx[-2]
        first = (-(2 * h0 + h1) / (h0 * (h0 + h1)) * narrow(y, d, 0, 1) +
                 (h0 + h1) / (h0 * h1) * narrow(y, d, 1, 1) -
                 h0 / (h1 * (h0 + h1)) * narrow(y, d, 2, 1))
        last = (hn / (hm * (hm + hn)) * narrow(y, d, n - 3, 1) -
                (hn + hm) / (hm * hn) * narrow(y, d, n - 2, 1) +
                (2 * hn + hm) / (hn * (hm + hn)) * narrow(y, d, n - 1, 1))
    return cat([first, inner, last], d)


# ---- scans -------------------------------------------------------------------------------
def _complex_logcumsumexp(x, dim):
    """The running complex log-add-exp of ``x`` along ``dim``, one step at a time as
    PyTorch's scan (NumPy's logaddexp is real-only)."""
    from .elementwise import complex_logaddexp
    out = np.moveaxis(x.copy(), dim, 0)
    for i in range(1, out.shape[0]):
        out[i] = complex_logaddexp(out[i - 1], out[i])
    return np.moveaxis(out, 0, dim)


class Logcumsumexp(BuiltinFunction):
    """out_j = log(sum_{i<=j} exp(x_i));  dx_i = sum_{j>=i} g_j exp(x_i - out_j)."""
    _backward_name = "LogcumsumexpBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        if not x.ndim:
            out = x.copy()
        elif x.dtype.kind == "f" and x.dtype.itemsize < 8:
            # NOTE: PyTorch's CPU scan accumulates in the wider type (float32 in double, half
            # in float32), rounding each partial result
            acc = np.float64 if x.dtype.itemsize == 4 else np.float32
            out = np.logaddexp.accumulate(x.astype(acc), axis=dim).astype(x.dtype)
        elif x.dtype.kind == "c":
            out = _complex_logcumsumexp(x, dim)
        else:
            out = np.logaddexp.accumulate(x, axis=dim)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        from .elementwise import where
        x, out = ctx.saved_tensors
        if x.ndim == 0:
            return g, None
        d = ctx.dim
        xm, om, gm = x.movedim(d, -1), out.movedim(d, -1), g.movedim(d, -1)
        n = xm.shape[-1]
        later = _const(np.triu(np.ones((n, n), bool)))  # [i, j]: j >= i
        expo = where(later, xm.unsqueeze(-1) - om.unsqueeze(-2), float("-inf")).exp()
        gx = (expo * gm.unsqueeze(-2)).sum(-1)
        return gx.movedim(-1, d), None


def logcumsumexp(input, dim, *, out=None):
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably (floating point only)."""
    if out is not None:
        return write_out(out, logcumsumexp(input, dim))
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError('"logcumsumexp_out_cpu" not implemented for '
                                  f"'{D.SCALAR_NAMES[input.dtype]}'")
    return Logcumsumexp.apply(input, wrap_dim(dim, input.ndim))


# ---- histograms and counting (no gradient) -----------------------------------------------
def histc(input, bins=100, min=0, max=0, *, out=None):
    """Histogram of ``input`` with ``bins`` equal bins over [min, max] (the data's range when
    both are 0); values outside are ignored."""
    x = input._data
    if x.dtype.kind != "f":
        # (the kernel PyTorch fails in: bool at its bin edges, complex at the data's range
        # when no range is given, others in the histogram itself)
        kernel = "linspace_cpu" if x.dtype.kind == "b" else "aminmax_cpu" \
            if x.dtype.kind == "c" and float(min) == float(max) else "histogram_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{_type_name(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())
        if lo != lo or hi != hi:  # NaN data: PyTorch's min/max come out as -nan
            lo, hi = (-np.nan if v != v else v for v in (lo, hi))
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_c_double(lo)}, {_c_double(hi)}] is not "
                           "finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    keep = x[(x >= lo) & (x <= hi)].astype(np.float64)
    idx = np.floor((keep - lo) * bins / (hi - lo)).astype(np.int64)
    idx = np.minimum(idx, bins - 1)
    return _const(np.bincount(idx, minlength=bins).astype(x.dtype))


def _c_double(v):
    """``v`` as C++'s ``operator<<`` writes a double (6 significant digits, -nan kept)."""
    if v != v:
        return "-nan" if np.signbit(v) else "nan"
    return f"{v:g}"


def _type_name(d):
    """PyTorch's scalar type name of dtype ``d`` ('Long', 'Half', 'ComplexFloat')."""
    return D.SCALAR_NAMES[d]


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """``(hist, bin_edges)`` of ``input`` (a bin count or explicit edges)."""
    from . import return_types
    w = None if weight is None else weight.reshape(-1, 1)
    hist, edges = histogramdd(input.reshape(-1, 1), [bins], range=range, weight=w,
                              density=density)
    return return_types.histogram(hist, edges[0])


def histogramdd(input, bins=10, *, range=None, weight=None, density=False, out=None):
    """A multi-dimensional histogram of the points in the rows of ``input`` (last dim is the
    coordinate); ``bins``: counts or edge tensors per dimension. The last bin includes its
    right edge; points outside the edges are ignored."""
    from . import return_types
    x = input._data
    pts = x.reshape(-1, x.shape[-1])
    edges = _hist_edges(pts, bins, range)
    hist = np.zeros([len(e) - 1 for e in edges], x.dtype)
    keep = np.ones(pts.shape[0], bool)
    where = []
    for k, e in enumerate(edges):
        v = pts[:, k]
        pos = np.searchsorted(e, v, side="right") - 1
        where.append(np.where(v == e[-1], len(e) - 2, pos))
        keep &= (v >= e[0]) & (v <= e[-1])
    w = np.ones(pts.shape[0], x.dtype) if weight is None else weight._data.reshape(-1)
    np.add.at(hist, tuple(p[keep] for p in where), w[keep])
    if density:
        volume = np.ones((), np.float64)
        for e in edges:
            volume = np.multiply.outer(volume, np.diff(e))
        hist = (hist / (hist.sum() * volume)).astype(x.dtype)
    return return_types.histogramdd(_const(hist), [_const(e) for e in edges])


def _hist_edges(pts, bins, rng):
    """Bin edges per coordinate: given edge tensors, or equal bins over the range."""
    dims = pts.shape[1]
    if isinstance(bins, Tensor):
        bins = [bins]
    if isinstance(bins, int):
        bins = [bins] * dims
    edges = []
    for k, b in enumerate(bins):
        if isinstance(b, Tensor):
            edges.append(b._data.astype(pts.dtype))
            continue
        if rng is not None:
            lo, hi = float(rng[2 * k]), float(rng[2 * k + 1])
        elif pts.shape[0]:
            lo, hi = float(pts[:, k].min()), float(pts[:, k].max())
        else:
            lo, hi = 0.0, 1.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(np.linspace(lo, hi, int(b) + 1).astype(pts.dtype))
    return edges


def bincount(input, weights=None, minlength=0):
    """Counts of each non-negative integer in the 1-d ``input`` (summed ``weights``)."""
    x = input._data
    if x.dtype.kind not in "iu":
        raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                  f"'{D.SCALAR_NAMES[input.dtype]}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if x.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if x.size and x.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and weights._data.shape != x.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        return _const(np.bincount(x, minlength=minlength).astype(np.int64))
    w = weights._data
    dt = w.dtype if w.dtype == np.float32 else np.float64
    return _const(np.bincount(x, weights=w, minlength=minlength).astype(dt))


# ---- distances ---------------------------------------------------------------------------
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` and each row of ``x2`` (batched)."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    modes = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
             "donot_use_mm_for_euclid_dist": 2}
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    from .distance import cdist as _cdist
    return _cdist(x1, x2, p, modes[compute_mode])


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other``."""
    from .distance import dist as _dist
    return _dist(input, other, p)


def _renorm_factor(x, p, others, maxnorm):
    """The Tensor ``x``'s slice norms and ``where(norm > maxnorm, maxnorm / (norm + 1e-7), 1)``."""
    from .reduction import vector_norm
    from .elementwise import where
    norm = vector_norm(x, p, others, keepdim=True)
    return norm, where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)


class Renorm(BuiltinFunction):
    """out = x * factor (slices along ``dim`` scaled to p-norm <= maxnorm);
    dx = PyTorch's renorm_backward (through the norm where a slice is scaled)."""
    _backward_name = "RenormBackward0"

    @staticmethod
    def forward(ctx, x, p, others, maxnorm):
        ctx.save_for_backward(x)
        ctx.args = (p, others, maxnorm)
        t = Tensor._make(x, None, False)
        return (t * _renorm_factor(t, p, others, maxnorm)[1])._data

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        p, others, maxnorm = ctx.args
        from .elementwise import where
        norm = _renorm_factor(x, p, others, maxnorm)[0]
        nb = _norm_backward((x * g).sum(others, keepdim=True), x, p, norm, others)
        invnorm = (norm + 1e-7).reciprocal()
        factor = invnorm * maxnorm
        return where(norm > maxnorm, factor * g - (factor * invnorm) * nb, g), None, None, None


def _norm_backward(go, x, p, norm, dims):
    """d(p-norm of x over ``dims``, kept)/dx times ``go`` (PyTorch's norm_backward cases)."""
    from .elementwise import where
    zero = Tensor._make(np.zeros((), x._data.dtype), None, False)
    if p == 0:
        return x * 0
    if p == 1:
        return x.sgn() * go
    if p == 2:
        return go * where(norm == 0, zero, x / norm)
    if math.isinf(p):
        hit = (x.abs() == norm).logical_or(x.isnan().logical_and(norm.isnan())).to(x.dtype)
        return x.sgn() * hit * (go / hit.sum(dims, keepdim=True))
    if p < 1:
        scaled = x.sgn() * where(x == 0, zero, x.abs().pow(p - 1))
        return scaled * go / norm.pow(p - 1)
    scaled = x.sgn() * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
    return scaled * where(norm == 0, zero, go / norm.pow(p - 1))


def renorm(input, p, dim, maxnorm):
    """Each slice along ``dim`` rescaled so that its ``p``-norm is at most ``maxnorm``."""
    d = wrap_dim(dim, input.ndim)
    others = tuple(i for i in range(input.ndim) if i != d)
    return Renorm.apply(input, float(p), others, maxnorm)


# ---- construction: grids, combinations, block diagonals ----------------------------------
def meshgrid(*tensors, indexing=None):
    """Coordinate grids (views) from 1-d tensors; ``indexing`` 'ij' (default) or 'xy'."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument. (Triggered internally at /__w/pytorch/pytorch/aten/"
                      "src/ATen/native/TensorShape.cpp:4215.)", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError("torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    ts = list(tensors)
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if any(t.dtype is not ts[0].dtype for t in ts):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    for t in ts:
        if t.ndim > 1:  # NOTE: PyTorch goes on to print the tensor in its legacy format
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: [ torch.{D.LEGACY_NAMES[t.dtype]}"
                               f"{{{','.join(map(str, t.shape))}}} ]")
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        out.append(t.reshape(view).expand(shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def cartesian_prod(*tensors):
    """The Cartesian product of 1-d tensors as rows of a 2-d tensor."""
    from .shape import stack
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of the elements of the 1-d ``input`` as rows."""
    from .shape import stack
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:  # empty, but in the graph as in PyTorch
        return input[_const(np.zeros((0,), np.int64))]
    pick = (itertools.combinations_with_replacement if with_replacement else
            itertools.combinations)
    rows = np.array(list(pick(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    return stack([input[_const(rows[:, k])] for k in range(r)], 1)


def block_diag(*tensors):
    """The tensors (0-d, 1-d or 2-d) arranged as blocks on a diagonal, zeros elsewhere."""
    from .shape import cat
    from .._creation import zeros
    if not tensors:
        return zeros(1, 0)
    mats = [t.reshape(1, 1) if t.ndim == 0 else t.reshape(1, -1) if t.ndim == 1 else t
            for t in tensors]
    for t in mats:
        if t.ndim != 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input 0 has {t.ndim} dimensions")
    dt = D._FROM_NP[result_np(*[m._data for m in mats])]
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        rows.append(cat([zeros(r, left, dtype=dt), m.to(dt), zeros(r, width - left - c,
                                                                   dtype=dt)], 1))
        left += c
    return cat(rows, 0)


def _index_grid_args(op, *values):
    """``row``, ``col`` and ``offset`` as ints (PyTorch's parser error for another type)."""
    from ._util import int_argument
    return tuple(v if type(v) is int else int_argument(v, op, name)
                 for v, name in zip(values, ("row", "col", "offset")))


def _index_grid(row, col, offset, upper):
    r, c = np.indices((row, col)) if row and col else (np.empty((0, 0), int),) * 2
    keep = (c - r >= offset) if upper else (c - r <= offset)
    return np.stack([r[keep], c[keep]]).astype(np.int64).reshape(2, -1)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, n) row/column indices of the lower triangle of a ``row`` x ``col`` matrix."""
    row, col, offset = _index_grid_args("tril_indices", row, col, offset)
    out = _index_grid(row, col, offset, False)
    return _const(out.astype(D.to_dtype(dtype).np if dtype is not None else np.int64))


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, n) row/column indices of the upper triangle of a ``row`` x ``col`` matrix."""
    row, col, offset = _index_grid_args("triu_indices", row, col, offset)
    out = _index_grid(row, col, offset, True)
    return _const(out.astype(D.to_dtype(dtype).np if dtype is not None else np.int64))


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-d ``x``: columns are powers (decreasing by default)."""
    from .shape import stack
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    x = x if x._data.dtype != np.bool_ else x.long()
    if x._data.dtype.kind in "iub":
        x = x.long()
    cols = _powers(x, n)
    if not cols:
        return _const(np.empty((x.shape[0], 0), x._data.dtype))
    out = stack(cols, -1)
    return out if increasing else out.flip(-1)


def _powers(x, n):
    from .._creation import ones_like
    cols, p = [], None
    for k in range(n):
        p = ones_like(x) if k == 0 else (x if k == 1 else p * x)
        cols.append(p)
    return cols


def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first towards the
    second)."""
    if type(k) is not int:
        from ._util import int_argument
        k = int_argument(k, "rot90", "k")
    if type(dims) is not tuple or len(dims) != 2 or type(dims[0]) is not int or \
            type(dims[1]) is not int:
        dims = _rot90_dims(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    return Rot90.apply(input, k % 4, d0, d1)


def _rot90_dims(dims):
    """``dims`` of rot90 as a tuple of ints (NumPy ints and 0-d integer tensors read as
    ints), else PyTorch's parser error for the user's call (a bare int is no list here)."""
    from ._util import tp_name
    if not isinstance(dims, (list, tuple)):
        from ._arg_errors import bad_argument
        raise bad_argument(TypeError(f"rot90(): argument 'dims' must be tuple of ints, not "
                                     f"{tp_name(dims)}"))
    from .shape import _int_list
    return tuple(_int_list(dims, "rot90", "dims"))


class Rot90(BuiltinFunction):
    """out = x rotated ``k`` quarter turns from ``d0`` towards ``d1`` (a copy; for odd ``k``
    laid out as PyTorch's flip-then-transpose);  dx = g rotated back."""
    _backward_name = "Rot90Backward0"

    @staticmethod
    def forward(ctx, x, k, d0, d1):
        ctx.k, ctx.d0, ctx.d1 = k, d0, d1
        if k == 1:
            return np.flip(x, d1).copy().swapaxes(d0, d1)
        if k == 2:
            return np.flip(x, (d0, d1)).copy()
        if k == 3:
            return np.flip(x, d0).copy().swapaxes(d0, d1)
        return x.copy()

    @staticmethod
    def backward(ctx, g):
        return Rot90.apply(g, (4 - ctx.k) % 4, ctx.d0, ctx.d1), None, None, None


def diagflat(input, offset=0):
    """A 2-d tensor with the flattened ``input`` on its ``offset`` diagonal."""
    from .shape import diag
    return diag(input.reshape(-1), offset)


def inner(input, other, *, out=None):
    """The inner product over the last dimension (a product when either is 0-d)."""
    if out is not None:
        return write_out(out, inner(input, other))
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    from .linalg import tensordot
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([input.ndim - 1], [other.ndim - 1]))


# ---- statistics ----------------------------------------------------------------------------
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in
    columns), with frequency and observation weights."""
    x = input if input.ndim == 2 else input.reshape(1, -1)
    if x._data.dtype.kind not in "fc":
        x = x.to(D.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1, keepdim=True)
        wsum = n
        norm = n - correction
    else:
        wsum = w.sum()  # NOTE: in the weights' own dtype, as PyTorch does
        avg = (x * w).sum(1, keepdim=True) / wsum
        if aweights is None:
            norm = wsum - correction
        else:
            norm = wsum - correction * (w * aweights).sum() / wsum
    xc = x - avg
    xw = xc if w is None else xc * w
    from .elementwise import clamp
    norm_t = norm if isinstance(norm, Tensor) else float(norm)
    if isinstance(norm_t, Tensor):
        norm_t = clamp(norm_t, min=0)
    else:
        norm_t = max(norm_t, 0.0)
    out = (xw @ xc.transpose(0, 1).conj() if xc.is_complex() else xw @ xc.transpose(0, 1))
    out = out / norm_t
    return out.reshape(()) if input.ndim < 2 or input.shape[0] == 1 else out


def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of ``input``."""
    from .elementwise import clamp
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    std = d.sqrt()
    out = c / std.unsqueeze(1) / std.unsqueeze(0)
    return clamp(out, -1, 1) if not out.is_complex() else out


# ---- integer and float bit math (no gradient unless noted) ----------------------------------
def _int_binary(np_fn, name):
    def fn(input, other, *, out=None):
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        if out is not None:
            return write_out(out, fn(input, other))
        a, b = input._data, other._data
        dt = result_np(a, b)
        if dt.kind not in "iu":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                                      f"'{_type_name(D._FROM_NP[dt])}'")
        return _const(np.asarray(np_fn(a.astype(dt), b.astype(dt))).astype(dt))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of integer tensors."
    return fn


gcd = _int_binary(np.gcd, "gcd")
lcm = _int_binary(np.lcm, "lcm")


def heaviside(input, values, *, out=None):
    """0 where input < 0, ``values`` where input == 0, 1 where input > 0."""
    if _FW.fw_levels:   # PyTorch has no forward-AD formula for it
        from ..autograd._tangents import refuse_duals
        refuse_duals("heaviside", input, values, not_yet=False)
    a, v = input._data, values._data
    if a.dtype.kind == "c" or v.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if a.dtype != v.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes")
    res = np.where(a == 0, v, (a > 0).astype(a.dtype)).astype(a.dtype)
    return _const(np.where(np.isnan(a), a, res) if a.dtype.kind == "f" else res)


def ldexp(input, other, *, out=None):
    """``input * 2 ** other`` (a float result)."""
    from .elementwise import pow
    res = input * pow(2.0, other)
    return res if res._data.dtype.kind in "fc" else res.to(D.get_default_dtype())


class Frexp(BuiltinFunction):
    """(mantissa, exponent) = frexp(x);  dx = g / 2**exponent (through the mantissa)."""
    _backward_name = "FrexpBackward0"

    @staticmethod
    def forward(ctx, x):
        m, e = np.frexp(x)
        ctx.save_for_backward(e.astype(x.dtype))
        return m.astype(x.dtype), e.astype(np.int32)

    @staticmethod
    def backward(ctx, g, _ge):
        (e,) = ctx.saved_tensors
        return g / e.exp2()


def frexp(input, *, out=None):
    """``(mantissa, exponent)`` with input = mantissa * 2 ** exponent, |mantissa| in [0.5, 1)."""
    from . import return_types
    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return return_types.frexp(*Frexp.apply(input))


class Nextafter(BuiltinFunction):
    """out = the next float after a towards b;  da = g, db = 0 (PyTorch's convention)."""
    _backward_name = "NextafterBackward0"

    @staticmethod
    def forward(ctx, a, b):
        dt = result_np(a, b)
        if dt.kind != "f":  # PyTorch's kernel has only floating versions
            raise NotImplementedError('"nextafter_cpu" not implemented for '
                                      f"'{D.SCALAR_NAMES[D._FROM_NP[dt]]}'")
        return np.asarray(np.nextafter(a.astype(dt), np.asarray(b).astype(dt)))

    @staticmethod
    def backward(ctx, g):
        return g, (g * 0 if ctx.needs_input_grad[1] else None)


def nextafter(input, other, *, out=None):
    """The next representable float after ``input`` towards ``other``."""
    return Nextafter.apply(input, other if isinstance(other, Tensor) else _const(other))


def logaddexp2(input, other, *, out=None):
    """``log2(2 ** input + 2 ** other)`` computed stably."""
    from .elementwise import maximum, log2, exp2, where, isinf
    for t in (input, other):
        no_complex(t, '"logaddexp2_cpu" not implemented for \'{T}\'')
    m = maximum(input, other).detach()
    m = where(isinf(m), 0.0, m)
    return m + log2(exp2(input - m) + exp2(other - m))


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of ``elements`` occurs in ``test_elements``."""
    a = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    b = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(
        test_elements)
    return _const(np.isin(a, b, invert=invert))


def isreal(input):
    """True where the imaginary part is zero (everywhere for real tensors)."""
    x = input._data
    return _const(np.imag(x) == 0 if x.dtype.kind == "c" else np.ones(x.shape, bool))


def positive(input):
    """``input`` itself (bool tensors are refused, as in PyTorch)."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def unravel_index(indices, shape):
    """The coordinates (a tuple of int64 tensors) of flat ``indices`` in ``shape``."""
    idx = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError("expected 'indices' to be integer dtype, but got "
                        f"{indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    total = math.prod(shape)
    if idx.size and (idx.min() < -total or idx.max() >= total):
        raise RuntimeError("'indices' must be in range [-prod(shape), prod(shape) - 1]")
    idx = idx.astype(np.int64)
    idx = np.where(idx < 0, idx + total, idx)
    if not shape:
        return ()
    return tuple(_const(c.astype(np.int64)) for c in np.unravel_index(idx, shape))


# ---- top-level aliases of torch.linalg and the legacy linear-algebra API ---------------------
def _linalg():
    from .. import linalg
    return linalg


def det(input):
    """Alias of ``torch.linalg.det``."""
    return _linalg().det(input)


def logdet(input):
    """log(det(input)) (NaN for a negative determinant)."""
    return _linalg().logdet(input)


def slogdet(input):
    """``torch.linalg.slogdet`` as a ``torch.return_types.slogdet`` (the legacy name)."""
    from . import return_types
    return return_types.slogdet(*_linalg().slogdet(input))


def inverse(input, *, out=None):
    """Alias of ``torch.linalg.inv``."""
    if out is not None:
        return write_out(out, inverse(input))
    return _linalg().inv(input)


def matrix_power(input, n):
    """Alias of ``torch.linalg.matrix_power``."""
    return _linalg().matrix_power(input, n)


def pinverse(input, rcond=1e-15):
    """The pseudo-inverse (``torch.linalg.pinv`` with relative tolerance ``rcond``)."""
    return _linalg().pinv(input, rtol=rcond)


def svd(input, some=True, compute_uv=True, *, out=None):
    """The legacy ``torch.svd``: ``(U, S, V)`` with V (not Vh); ``some`` gives reduced
    factors."""
    from . import return_types
    if not compute_uv:  # PyTorch's zero U and V are square (m x m, n x n) whatever ``some``
        from .._creation import zeros
        S = _linalg().svdvals(input)
        batch, (m, n) = tuple(input.shape[:-2]), tuple(input.shape[-2:])
        return return_types.svd(zeros(batch + (m, m), dtype=input.dtype), S,
                                zeros(batch + (n, n), dtype=input.dtype))
    U, S, Vh = _linalg().svd(input, full_matrices=not some)
    return return_types.svd(U, S, Vh.mT.conj() if Vh.is_complex() else Vh.mT)


def qr(input, some=True, *, out=None):
    """The legacy ``torch.qr`` (``some`` -> mode 'reduced', else 'complete'), returned as a
    ``torch.return_types.qr``."""
    from . import return_types
    return return_types.qr(*_linalg().qr(input, "reduced" if some else "complete"))


def cholesky(input, upper=False, *, out=None):
    """The legacy ``torch.cholesky`` (use ``torch.linalg.cholesky``)."""
    L = _linalg()
    L._square(input, "cholesky")
    return L.Cholesky.apply(input, upper, "cholesky")


def chain_matmul(*matrices, out=None):
    """The product of the matrices (use ``torch.linalg.multi_dot``)."""
    return _linalg().multi_dot(list(matrices))


METHODS = ["diff", "logcumsumexp", "histc", "histogram", "bincount", "renorm", "rot90",
           "diagflat", "inner", "cov", "corrcoef", "gcd", "lcm", "heaviside", "ldexp",
           "frexp", "nextafter", "logaddexp2", "isreal", "positive", "det", "logdet",
           "slogdet", "inverse", "matrix_power", "pinverse", "svd", "qr", "cholesky", "dist"]
INPLACE = ["renorm", "gcd", "lcm", "heaviside", "ldexp", "nextafter"]


# ---- copies of view ops, splits ------------------------------------------------------------
def _copy_of(view_name, doc):
    def fn(input, *args, **kwargs):
        res = getattr(input, view_name)(*args, **kwargs)
        if isinstance(res, tuple):
            return tuple(r.clone() for r in res)
        return res.clone()
    fn.__name__ = fn.__qualname__ = f"{view_name}_copy"
    fn.__doc__ = f"``{view_name}`` returning a new tensor instead of a view. {doc}"
    return fn


diagonal_copy = _copy_of("diagonal", "")
expand_copy = _copy_of("expand", "")
permute_copy = _copy_of("permute", "")
squeeze_copy = _copy_of("squeeze", "")
t_copy = _copy_of("t", "")
transpose_copy = _copy_of("transpose", "")
unbind_copy = _copy_of("unbind", "")
unfold_copy = _copy_of("unfold", "")
unsqueeze_copy = _copy_of("unsqueeze", "")
view_copy = _copy_of("view", "")
narrow_copy = _copy_of("narrow", "")
split_with_sizes_copy = _copy_of("split", "")


def alias_copy(input):
    """A copy of ``input``."""
    return input.clone()


def split_with_sizes(input, split_sizes, dim=0):
    """Split into pieces of the listed sizes along ``dim``."""
    from .shape import split
    return split(input, list(split_sizes), dim)


class UnsafeSplit(BuiltinFunction):
    """outs = consecutive slices of ``sizes`` along ``dim``, sharing memory with ``x`` but not
    views to autograd (no view tracking, own version counters);  dx = the grads joined."""
    _backward_name = "UnsafeSplitBackward0"

    @staticmethod
    def forward(ctx, x, dim, sizes):
        ctx.dim, ctx.sizes = dim, sizes  # (sizes: for _saved_split_size(s))
        starts = np.cumsum((0,) + sizes)
        lead = (slice(None),) * dim
        return tuple(x[lead + (slice(int(a), int(a) + n),)] for a, n in zip(starts, sizes))

    @staticmethod
    def backward(ctx, *grads):
        from .shape import cat
        return cat(grads, ctx.dim), None, None


class UnsafeSplitWithSizes(UnsafeSplit):
    _backward_name = "UnsafeSplitWithSizesBackward0"


def _unsafe_pieces(input, pieces, dim, cls, split_size=None):
    """The pieces ``split``/``chunk`` made of ``input.detach()`` (their checks), remade as
    outputs of ``cls``; the node keeps a negative ``dim`` and ``split_size`` as given."""
    from ..autograd._saved_attrs import keep_given
    d = wrap_dim(dim, input.ndim)
    out = cls.apply(input, d, tuple(p._data.shape[d] for p in pieces))
    if dim < 0:
        keep_given(out, dim=dim)
    if split_size is not None:
        keep_given(out, split_size=split_size)
    return out


def unsafe_split(input, split_size_or_sections, dim=0):
    """``split`` whose pieces autograd does not treat as views: changing one in place is
    allowed (PyTorch: "unsafe", the caller promises not to rely on the aliasing)."""
    from .shape import split
    pieces = split(input.detach(), split_size_or_sections, dim)
    if isinstance(split_size_or_sections, int):
        return _unsafe_pieces(input, pieces, dim, UnsafeSplit, split_size_or_sections)
    return _unsafe_pieces(input, pieces, dim, UnsafeSplitWithSizes)


def unsafe_chunk(input, chunks, dim=0):
    """``chunk`` with ``unsafe_split``'s pieces."""
    from .shape import chunk
    return _unsafe_pieces(input, chunk(input.detach(), chunks, dim), dim, UnsafeSplit)


def _nsplit(input, sections, dim, op, min_dims):
    from .shape import tensor_split
    if input.ndim < min_dims:
        raise RuntimeError(f"torch.{op} requires a tensor with at least {min_dims} dimension, "
                           f"but got a tensor with {input.ndim} dimensions!")
    if isinstance(sections, int) and input.shape[dim] % sections:
        raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the size "
                           f"of the dimension {input.shape[dim]} is not divisible by the split_"
                           f"size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections):
    """Split along dim 1 (dim 0 for 1-d tensors)."""
    return _nsplit(input, indices_or_sections, 1 if input.ndim > 1 else 0, "hsplit", 1)


def vsplit(input, indices_or_sections):
    """Split along dim 0 of a tensor with at least 2 dims."""
    return _nsplit(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input, indices_or_sections):
    """Split along dim 2 of a tensor with at least 3 dims."""
    return _nsplit(input, indices_or_sections, 2, "dsplit", 3)


# ---- creation-like and whole-tensor ops --------------------------------------------------------
def fill(input, value):
    """A tensor like ``input`` filled with ``value`` (a number or 0-d tensor)."""
    from .._creation import full_like
    if isinstance(value, Tensor):
        return input * 0 + value.to(input.dtype)
    if input.requires_grad:  # PyTorch's result is in the graph (with a zero gradient)
        return input * 0 + value
    return full_like(input, value)


def zero_(input):
    """Fill ``input`` with zeros in place."""
    return input.zero_()


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None,
                  requires_grad=False):
    """A 0-d tensor holding ``s`` (the default float dtype unless ``dtype`` is given)."""
    from .._creation import tensor
    return tensor(s, dtype=dtype if dtype is not None else D.get_default_dtype(),
                  requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialised tensor of ``size`` (numtorch tensors are contiguous; ``stride`` is
    accepted for compatibility)."""
    from .._creation import _shape, empty
    return empty(_shape((size,), "empty_strided"), dtype=dtype, requires_grad=requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialised tensor of ``size`` (the memory layout is numtorch's own)."""
    from .._creation import empty
    return empty(tuple(size), dtype=dtype, requires_grad=requires_grad)


def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero`` padded with ``fill_value`` (or truncated) to exactly ``size`` rows."""
    found = np.argwhere(input._data).astype(np.int64)[:size]
    out = np.full((size, input.ndim), fill_value, np.int64)
    out[:found.shape[0]] = found
    return _const(out)


def constant_pad_nd(input, pad, value=0):
    """Pad the last dims by ``pad`` (left, right pairs from the last dim) with ``value``;
    negative pads trim."""
    from .shape import cat
    from .._creation import full
    x = input
    for k in range(len(pad) // 2):
        d = input.ndim - 1 - k
        left, right = pad[2 * k], pad[2 * k + 1]
        if left < 0:
            x = x.narrow(d, -left, x.shape[d] + left)
        if right < 0:
            x = x.narrow(d, 0, x.shape[d] + right)
        parts = [x]
        for n, at_end in ((left, False), (right, True)):
            if n > 0:
                shape = list(x.shape)
                shape[d] = n
                block = full(shape, value, dtype=x.dtype)
                parts = parts + [block] if at_end else [block] + parts
        x = cat(parts, d) if len(parts) > 1 else x
    return x


def sum_to_size(input, *size):
    """``input`` summed down to the broadcast-compatible ``size``."""
    from .reduction import sum_to_shape
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if not size:  # PyTorch sums to a 0-d target even from 0-d (ints become int64)
        return input.sum()
    return sum_to_shape(input, tuple(size))


# ---- matrix exponential ------------------------------------------------------------------
class MatrixExp(BuiltinFunction):
    """out = exp(A);  dA = the upper-right block of exp([[A^H, G], [0, A^H]])."""
    _backward_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx, A):
        from .special_ops import _scipy_linalg
        expm = _scipy_linalg().expm
        ctx.save_for_backward(A)
        if A.shape[-1] == 0:
            return A.copy()
        return np.asarray(expm(A.astype(np.complex128 if A.dtype.kind == "c" else
                                        np.float64))).astype(A.dtype)

    @staticmethod
    def backward(ctx, g):
        from .shape import cat
        (A,) = ctx.saved_tensors
        n = A.shape[-1]
        Ah = A.transpose(-2, -1).conj() if A.is_complex() else A.transpose(-2, -1)
        zero = Ah * 0
        big = cat([cat([Ah, g], -1), cat([zero, Ah], -1)], -2)
        return matrix_exp(big)[..., :n, n:]


def matrix_exp(input):
    """The matrix exponential of the square matrices in the last two dims (SciPy's expm)."""
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError("linalg.matrix_exp: A must be batches of square matrices, but they "
                           f"are {input.shape[-2]} by {input.shape[-1]} matrices")
    x = input if input._data.dtype.kind in "fc" else input.to(D.get_default_dtype())
    return MatrixExp.apply(x)


METHODS += ["diagonal_copy", "expand_copy", "permute_copy", "squeeze_copy", "t_copy",
            "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy",
            "narrow_copy", "split_with_sizes", "unsafe_split", "unsafe_chunk", "hsplit",
            "vsplit", "dsplit", "sum_to_size", "matrix_exp", "nonzero_static"]


# ---- resizing in place ------------------------------------------------------------------------
def _resize_(input, *sizes, memory_format=None):
    """Give ``input`` the shape ``sizes`` in place, keeping its first elements (new ones are
    uninitialised, here zeros)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    if input.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    new = np.zeros(tuple(int(n) for n in sizes), input._data.dtype)
    n = min(new.size, input._data.size)
    new.reshape(-1)[:n] = input._data.reshape(-1)[:n]
    input._data = new
    input._vc[0] += 1
    return input


def resize_as_(input, the_template, *, memory_format=None):
    """``resize_`` to the shape of ``the_template``."""
    return _resize_(input, tuple(the_template.shape))


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                       requires_grad=False, pin_memory=False):
    from .._creation import empty
    return empty(tuple(size), dtype=dtype or self.dtype, requires_grad=requires_grad)


Tensor.resize_ = _resize_
Tensor.resize_as_ = resize_as_
Tensor.new_empty_strided = _new_empty_strided


# ---- random fills with PyTorch's CPU samplers (serial, one double draw per element) -------------
def _draw(self, generator, make, kernel=None):
    """Fill ``self`` in place with ``make(generator, n) -> float64 array``, cast as C++ casts.

    ``kernel`` names the CPU kernel for PyTorch's dispatch error on a non-floating (or,
    for geometric_, bool/complex) tensor; like the dispatch it fires only for n > 0.
    """
    from .. import _random as R
    from .conversion import _random_inplace
    dt = self._data.dtype
    if kernel is not None and self._data.size and (
            dt.kind != "f" if kernel != "geometric_cpu" else dt.kind in "bc"):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{R._tname(dt)}'")
    gen = R._gen(generator)
    return _random_inplace(self, lambda shape, _: R._from_double(
        make(gen, int(np.prod(shape))), dt).reshape(shape))


def _cauchy_(self, median=0, sigma=1, *, generator=None):
    """Fill with Cauchy samples: median + sigma * tan(pi * (u - 0.5))."""
    from .. import _random as R
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={R._g(sigma)}")
    dt = self._data.dtype
    if dt.kind != "f":      # checked before dispatch, so even an empty tensor fails
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. "
                           "dtype must be a floating point but you specified "
                           f"{R._CPP_NAMES.get(dt.name, dt.name)}")
    return _draw(self, generator, lambda g, n: median + sigma * np.tan(
        math.pi * (g._uniform64(n) - 0.5)))


def _geometric_(self, p, *, generator=None):
    """Fill with geometric samples (trials until the first success): ceil(log u / log(1-p))."""
    from .. import _random as R
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={R._g(p)}")
    return _draw(self, generator, lambda g, n: np.ceil(np.log(g._uniform64(n)) /
                                                      math.log1p(-p)), "geometric_cpu")


def _log_normal_(self, mean=1, std=2, *, generator=None):
    """Fill with log-normal samples: exp(normal(mean, std)), PyTorch's double sampler."""
    from .. import _random as R
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={R._g(std)}")
    return _draw(self, generator, lambda g, n: np.exp(R._normal_scalar(g, n, mean, std)),
                 "log_normal_cpu")


Tensor.cauchy_ = _cauchy_
Tensor.geometric_ = _geometric_
Tensor.log_normal_ = _log_normal_
