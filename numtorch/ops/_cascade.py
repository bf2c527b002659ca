"""PyTorch's CPU summation order for float32 and float64 sums, on NumPy arrays.

PyTorch does not sum floats left to right, nor pairwise as NumPy does: its CPU kernel
(``cascade_sum``) keeps vector accumulators, four of them interleaved, whose partial sums
climb a ladder of levels every 16 (or more) additions, then folds the lanes into one scalar.
The order decides the last bits of every sum, so of ``loss.item()`` after a few training
steps; this module replays it with whole-array NumPy calls, bit for bit.

The pieces, in PyTorch's terms (``aten/src/ATen/native/cpu/SumKernel.cpp``):

- ``multi_row_sum``: a running sum over rows, in a 4-level cascade. Level 0 adds ``step``
  rows (``step = 2**max(4, ceil_log2(rows) // 4)``), then passes its sum up; a level passes
  its sum up once it has taken ``step`` sums from below. What is left in each level at the
  end is added into level 0's remainder, level 1 first.
- ``row_sum``: ``multi_row_sum`` on four interleaved accumulators (element ``i`` goes to
  accumulator ``i % 4``), the rows left over added to the first, then the four added up.
- a sum over a contiguous axis (``inner``) runs ``row_sum`` over vectors of ``LANES``
  elements, adds the elements that fill no vector to 0, then the lanes one by one;
  a sum over a non-contiguous axis (``outer``) runs per column: columns in blocks of four
  vectors take ``multi_row_sum``, the rest ``row_sum``.

The vector widths are AVX2's (8 float32, 4 float64): PyTorch does not dispatch its sum
kernel to AVX-512 (slower there, its comment says), so these hold on every x86 machine with
AVX2 or better. PyTorch splits full sums of 32768 elements or more between threads when
it has several, and the last bits then depend on their number: ``_full_sum`` and
``_strided_full_sum`` split them as it does, by ``get_num_threads()``.

>>> x = np.float32([1e8, 1, -1e8, 1] * 5)
>>> float(torch_sum(x, (0,), np.dtype(np.float32), False)), float(np.sum(x))
(2.0, 1.0)
"""
import math

import numpy as np

from .._threads import get_num_threads

__all__ = ["torch_sum", "column_sums", "vec_sum_lastdim", "VEC_LANES", "nll_sum",
           "running_sum"]

LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
_ILP = 4            # interleaved accumulators of row_sum
_LEVELS = 4         # levels of multi_row_sum
_OUTER_BLOCK = 4    # vectors per column block of the outer sum


def torch_sum(x, dims, npdt, keepdim):
    """``np.add.reduce(x, axis=dims, dtype=npdt, keepdims=keepdim)`` in PyTorch's order where
    that order is known: a full sum of any layout (contiguous, sliced, permuted, expanded;
    but no negative strides), or a sum over some dims of a C-contiguous array. Other
    layouts and dim sets keep NumPy's order."""
    nd = x.ndim
    if npdt is not x.dtype or npdt not in LANES or not x.size:
        return np.add.reduce(x, axis=dims, dtype=npdt, keepdims=keepdim)
    if nd == 2 and len(dims) == 1 and dims[0] in (0, -2):  # a sum over the batch
        out = column_sums(x)
        return out[None] if keepdim else out
    return _sum_in_order(x, dims, npdt, keepdim)


def _sum_in_order(x, dims, npdt, keepdim):
    """``torch_sum`` of a non-empty float32/float64 array past its shortcuts."""
    nd = x.ndim
    if len(dims) == nd and x.flags.c_contiguous:  # (the common full sum, straight through)
        out = _full_sum(x.reshape(-1))
        return out.reshape((1,) * nd if keepdim else ())
    dims = tuple(sorted(d % nd for d in dims)) if nd else ()
    out = _ordered_sum(x, dims)
    if out is None:
        return np.add.reduce(x, axis=dims, dtype=npdt, keepdims=keepdim)
    if keepdim:
        out = out.reshape(tuple(1 if d in dims else n for d, n in enumerate(x.shape)))
    else:
        out = out.reshape(tuple(n for d, n in enumerate(x.shape) if d not in dims))
    return out


def column_sums(x):
    """``torch_sum(x, (0,), x.dtype, False)`` of a 2-D array (a bias gradient, or any sum
    over the batch: torch_sum sends those here). Its usual case, a C-contiguous float array
    of 2 to 255 rows and whole blocks of columns, runs ``_outer``'s steps here without the
    general path's dispatch: sums of chunks of 16 rows, their running sum, then the rows
    left over added first.

    >>> column_sums(np.ones((20, 32), np.float32))[:3]
    array([20., 20., 20.], dtype=float32)
    """
    rows, cols = x.shape
    lanes = LANES.get(x.dtype)
    if lanes is None or not 2 <= rows < _CHUNK_ROWS ** 2 or cols % (_OUTER_BLOCK * lanes) or \
            not x.flags.c_contiguous:
        if lanes is None or not x.size:
            return np.add.reduce(x, axis=0, dtype=x.dtype)
        return _sum_in_order(x, (0,), x.dtype, False)
    full = rows // _CHUNK_ROWS
    split = full * _CHUNK_ROWS
    # (a reduction over a non-innermost axis: NumPy's is then row after row, as running_sum)
    tail = _reduce(x[split:], axis=0) if split < rows else None
    if not full:
        return tail + x.dtype.type(0)
    chunks = _reduce(_reduce(x[:split].reshape(full, _CHUNK_ROWS, cols), axis=1), axis=0)
    return (chunks if tail is None else tail + chunks) + x.dtype.type(0)


_reduce = np.add.reduce
_CHUNK_ROWS = 16    # multi_row_sum's chunk for fewer than 2**20 rows (2 ** max(4, log2 / 4))


def _ordered_sum(x, dims):
    """The sum in PyTorch's order as a flat array of outputs, or None where not replayed."""
    if len(dims) == x.ndim:  # everything, in memory order (how PyTorch's iterator walks it;
        # torch_sum took the C-contiguous case)
        return _full_sum(x.T.reshape(-1)) if x.flags.f_contiguous else _strided_full_sum(x)
    if not x.flags.c_contiguous:
        return None
    if dims != tuple(range(dims[0], dims[-1] + 1)):
        return _runs_sum(x, dims)
    shape = x.shape
    return _run_sum(x, math.prod(shape[:dims[0]]), math.prod(shape[dims[0]:dims[-1] + 1]),
                    math.prod(shape[dims[-1] + 1:]))


def _run_sum(x, pre, red, post):
    """The sums over axis 1 of C-contiguous ``x`` seen as (pre, red, post), flat."""
    if red == 1:  # not a reduction: PyTorch adds each element to a zero
        return x.reshape(-1) + x.dtype.type(0)
    if post == 1:
        return _inner(x.reshape(pre, red))
    return _outer(x.reshape(pre, red, post)).reshape(-1)


def _runs_sum(x, dims):
    """``_ordered_sum`` of a C-contiguous ``x`` over dims that are not adjacent (a per-channel
    ``x.sum((0, 2, 3))``), or None where that is not the case once size-1 dims are dropped.

    PyTorch's iterator drops size-1 dims, puts the reduced dims innermost (by stride) and
    merges adjacent ones into runs. Its 2-D loop then spans the two innermost reduced runs:
    each row of the innermost run is summed (vectorised as ``_inner`` when that run is the
    contiguous last one and fills a vector, else by the scalar ``row_sum``) and added into
    the output, the rows one after the other, the second-innermost run the fastest.
    """
    runs = []  # [reduced, size], outer to inner
    for d, n in enumerate(x.shape):
        if n != 1:
            red = d in dims
            if runs and runs[-1][0] == red:
                runs[-1][1] *= n
            else:
                runs.append([red, n])
    reduced = [i for i, (red, _) in enumerate(runs) if red]
    if len(reduced) < 2:  # one run (or none) once the size-1 dims are gone
        at = reduced[0] if reduced else len(runs)
        return _run_sum(x, math.prod(n for _, n in runs[:at]),
                        runs[at][1] if reduced else 1, math.prod(n for _, n in runs[at + 1:]))
    y = x.reshape([n for _, n in runs])
    keep = [i for i, (red, _) in enumerate(runs) if not red]
    last = reduced[-1]
    z = y.transpose(keep + reduced).reshape(math.prod(y.shape[i] for i in keep), -1, y.shape[last])
    p, m, n = z.shape
    if last == len(runs) - 1 and n >= LANES[x.dtype]:
        rows = _inner(z.reshape(p * m, n)).reshape(p, m)
    else:
        rows = _row_sum(z.transpose(2, 0, 1))
    return running_sum(rows, axis=1, start_zero=True)


GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE: below it a reduction runs on one thread


def _full_sum(v):
    """The sum of the contiguous 1-D array ``v`` as a 1-element array, as PyTorch's
    ``parallel_reduce`` gives it: with ``GRAIN_SIZE`` elements or more and more than one
    intra-op thread, its two-pass reduction (each of ``min(threads, ceil(n / GRAIN_SIZE))``
    threads sums an equal block, as ``at::parallel_for`` splits it, into its slot of a
    zeroed buffer of one slot per thread; then that buffer is summed), else one pass."""
    return _parallel_reduce(v.size, v.dtype,
                            lambda begin, end: _inner(v[begin:end].reshape(1, -1)))


def _parallel_reduce(n, dtype, range_sum):
    """A full reduction of ``n`` elements split as ``parallel_reduce`` splits it (see
    ``_full_sum``): ``range_sum(begin, end)`` sums one block of the iterator's linear index
    range as a 1-element array."""
    threads = get_num_threads()
    if n < GRAIN_SIZE or threads == 1:
        return range_sum(0, n)
    used = min(threads, -(-n // GRAIN_SIZE))
    block = -(-n // used)
    slots = np.zeros((1, threads), dtype)
    for t in range(used):
        if t * block < n:
            slots[0, t] = range_sum(t * block, min(n, (t + 1) * block))[0]
    return _inner(slots)


def _strided_full_sum(x):
    """``_full_sum`` of a non-contiguous array (``x[::2]``, ``x[:, :5]``, a permuted or
    expanded view) as a 1-element array, in the order PyTorch's ``TensorIterator`` walks
    it; None (NumPy's order) for negative strides, which PyTorch's tensors never have.

    The iterator's layout (``_iter_layout``) gives the elements in its linear order; the
    index range, whole or split between threads as ``_full_sum`` splits it, is then walked
    as ``serial_for_each`` does (``_walk``), and every row of every 2-D step is summed by
    the path ``cascade_sum`` takes for that step (``_step_row_sums``); the row sums go into
    the zeroed output (or the thread's slot) one after the other.
    """
    layout = _iter_layout(x)
    if layout is None:
        return None
    v, sizes, strides = layout
    return _parallel_reduce(v.size, v.dtype,
                            lambda begin, end: _range_sum(v, begin, end, sizes, strides))


def _iter_layout(x):
    """``(elements, sizes, byte_strides)`` of ``x`` as PyTorch's iterator sees it for a full
    reduction: the elements (a contiguous copy) in its linear order, then the sizes and
    strides of its dims, innermost first, after ``reorder_dimensions`` and
    ``coalesce_dimensions``; None for negative strides.

    Size-1 dims are dropped first (coalescing removes them; PyTorch may give them other
    strides than NumPy). ``reorder_dimensions`` starts from the dims in reverse and
    insertion-sorts them by stride, where a comparison with a zero (expanded) stride is
    undecided and the search goes on past it; equal strides put the smaller dim first.
    Adjacent dims merge where the outer one's stride is the inner one's span.
    """
    xs = x.squeeze()
    dims = list(zip(xs.shape, xs.strides))
    if any(s < 0 for _, s in dims):
        return None
    perm = list(range(len(dims)))[::-1]
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            order = _dim_order(dims[perm[d0]], dims[perm[d1]])
            if order > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif order < 0:
                break
    sizes, strides = [], []
    for d in perm:
        n, s = dims[d]
        if sizes and sizes[-1] * strides[-1] == s:
            sizes[-1] *= n
        else:
            sizes.append(n)
            strides.append(s)
    return xs.transpose(perm[::-1]).reshape(-1), sizes, strides


def _dim_order(a, b):
    """``reorder_dimensions``' comparison of dims ``a`` and ``b`` (size, stride) of the one
    input: 1 if ``a`` goes outside ``b``, -1 if inside, 0 if undecided."""
    if a[1] == 0 or b[1] == 0:
        return 0
    if a[1] != b[1]:
        return -1 if a[1] < b[1] else 1
    return 1 if a[0] > b[0] else 0


def _range_sum(v, begin, end, sizes, strides):
    """The sum (a 1-element array) that ``cascade_sum`` leaves in a zeroed output after
    walking ``v[begin:end]`` (``v`` in the iterator's order, see ``_iter_layout``)."""
    lanes = LANES[v.dtype]
    in0 = strides[0]
    in1 = strides[1] if len(sizes) > 1 else 0  # (a 1-D iteration: PyTorch passes 0)
    sums = [_step_row_sums(v[at:at + size0 * size1 * count].reshape(count, size1, size0),
                           in0, in1, v.itemsize, lanes)
            for at, size0, size1, count in _walk(begin, end, sizes)]
    total = sums[0] if len(sums) == 1 else np.concatenate(sums)
    return running_sum(total, start_zero=True).reshape(1)


def _walk(begin, end, sizes):
    """The 2-D steps of ``serial_for_each`` over the index range [begin, end) of an
    iteration of ``sizes`` (innermost first), as ``(start, size0, size1, count)``: ``count``
    equal steps of ``size1`` rows of ``size0`` elements from ``start``. ``DimCounter``'s
    steps: the rest of a row, the rest of a plane (the two inner dims), whole planes, then
    the rows and the part of a row left before ``end``."""
    if len(sizes) == 1:
        return [(begin, end - begin, 1, 1)]
    s0, s1 = sizes[0], sizes[1]
    steps = []
    pos = begin
    head = min(-pos % s0, end - pos)
    if head:
        steps.append((pos, head, 1, 1))
        pos += head
    row = pos // s0 % s1
    if row and pos < end:  # (a step stops at the end of its plane)
        rows = min(s1 - row, (end - pos) // s0)
        if rows:
            steps.append((pos, s0, rows, 1))
            pos += rows * s0
    planes = (end - pos) // (s0 * s1)
    if planes:
        steps.append((pos, s0, s1, planes))
        pos += planes * s0 * s1
    rows = (end - pos) // s0
    if rows:
        steps.append((pos, s0, rows, 1))
        pos += rows * s0
    if pos < end:
        steps.append((pos, end - pos, 1, 1))
    return steps


def _step_row_sums(r, in0, in1, itemsize, lanes):
    """The sums of the rows of ``r`` (count, size1, size0): ``count`` equal 2-D steps of
    ``cascade_sum``'s loop, flat, in the order they go into the output. The path follows
    the step's byte strides ``in0`` (along a row) and ``in1`` (between rows):
    ``vectorized_inner_sum`` (``_inner``) when rows are contiguous and fill a vector;
    ``vectorized_outer_sum`` when the rows lie next to each other: rows in groups of four
    vectors summed by ``multi_row_sum``, the others by ``row_sum``; ``scalar_inner_sum``
    (``row_sum`` per row) when ``in0 < in1``; else ``scalar_outer_sum``: rows in groups of
    four by ``multi_row_sum``, the others by ``row_sum``."""
    count, size1, size0 = r.shape
    if in0 == itemsize and size0 >= lanes:
        return _inner(r.reshape(-1, size0))
    # NOTE: the summed axis first, and outermost in memory: NumPy reduces an axis that is
    # contiguous in memory pairwise, not row after row as running_sum needs
    t = np.ascontiguousarray(r.transpose(2, 0, 1))
    if in1 == itemsize and size1 >= lanes:
        group = _OUTER_BLOCK * lanes
    elif in0 < in1:
        return _row_sum(t).reshape(-1)
    else:
        group = _OUTER_BLOCK
    split = size1 // group * group
    if not split:
        return _row_sum(t).reshape(-1)
    if split == size1:
        return _multi_row_sum(t).reshape(-1)
    return np.concatenate([_multi_row_sum(t[:, :, :split]), _row_sum(t[:, :, split:])],
                          axis=1).reshape(-1)


def _inner(x):
    """Sums of the rows of ``x`` (rows, n), each over its contiguous axis."""
    rows, n = x.shape
    lanes = LANES[x.dtype]
    if rows == 1 and n < _ILP * lanes:
        return _small_sum(x[0], n, lanes)
    zero = np.zeros((rows, 1), x.dtype)
    if n < lanes:  # PyTorch's scalar loop: row_sum over the elements, then into a zero
        # NOTE: row_sum written out (its four accumulators hold one element each, or none):
        # element 0, the elements past the first four, then elements 1-3
        if n < _ILP:
            return running_sum(np.concatenate([zero, x], axis=1))
        return running_sum(np.concatenate([zero, x[:, :1], x[:, _ILP:], x[:, 1:_ILP]], axis=1))
    nv = n // lanes
    if nv < _ILP * 16:  # (fewer than 512 float32s: no ladder) one pass, then the fold
        vec = _row_sum_flat(x[:, :nv * lanes].reshape(rows, nv, lanes))
    else:
        vec = _row_sum(x[:, :nv * lanes].reshape(rows, nv, lanes).transpose(1, 0, 2))
    # a zero, the elements that fill no vector, then the lanes of the vector sum, in order
    return running_sum(np.concatenate([zero, x[:, nv * lanes:], vec], axis=1))


def _small_sum(v, n, lanes):
    """``_inner`` of one short row (fewer elements than four vectors), with the fewest NumPy
    calls: the accumulators of ``row_sum`` hold nothing or one item each, so the order is a
    running sum of a permutation of the elements (or of the vectors, then of the elements
    past them and the lanes). A zero ends it, as the zeroed accumulators and output would
    (it only changes the sign of a zero sum)."""
    zero = v.dtype.type(0)
    if n < lanes:  # the scalar loop: element 0, those past the first four, then 1-3
        seq = v if n <= _ILP else v[_SCALAR_ORDER[n]]
        return np.add.accumulate(seq)[-1:] + zero
    nv = n // lanes
    vecs = v[:nv * lanes].reshape(nv, lanes)
    vec = np.add.accumulate(vecs, axis=0)[-1] if nv > 1 else vecs[0]
    return np.add.accumulate(np.concatenate((v[nv * lanes:], vec)))[-1:] + zero


# element order of PyTorch's scalar row_sum for n = 5..7 (n <= 4 keeps the order)
_SCALAR_ORDER = {n: np.array([0] + list(range(_ILP, n)) + [1, 2, 3]) for n in range(5, 16)}


def _outer(x):
    """Sums over axis 1 of ``x`` (pre, rows, cols), per column."""
    pre, rows, cols = x.shape
    lanes = LANES[x.dtype]
    t = x.transpose(1, 0, 2)  # rows first: the summed axis of the helpers below
    # columns summed by multi_row_sum: whole blocks of four vectors, or (fewer columns than
    # a vector) whole groups of four scalars; the others by row_sum
    block = _OUTER_BLOCK * lanes if cols >= lanes else _OUTER_BLOCK
    split = cols // block * block
    if split == cols:  # (a bias gradient's usual case: no second pass, no copy)
        out = _multi_row_sum(t)
    elif not split:
        out = _row_sum(t)
    else:
        out = np.concatenate([_multi_row_sum(t[:, :, :split]), _row_sum(t[:, :, split:])],
                             axis=1)
    return out + x.dtype.type(0)  # each into a zeroed output


def _row_sum_flat(v):
    """``_row_sum`` over axis 1 of ``v`` (rows, nv, lanes) with fewer than 16 rows per
    accumulator (its ladder never climbs): each accumulator's running sum, then the first,
    the vectors left over and the other three, in order."""
    rows, nv, lanes = v.shape
    n = nv // _ILP
    if not n:  # the accumulators hold zeros: the vectors left over, in order
        return running_sum(v, axis=1)
    parts = running_sum(v[:, :n * _ILP].reshape(rows, n, _ILP, lanes), axis=1)
    return running_sum(np.concatenate([parts[:, :1], v[:, n * _ILP:], parts[:, 1:]], axis=1),
                    axis=1)


def _row_sum(v):
    """PyTorch's ``row_sum`` over axis 0 of ``v``: four interleaved accumulators."""
    size = v.shape[0]
    n = size // _ILP
    rest = v.shape[1:]
    parts = _multi_row_sum(v[:n * _ILP].reshape((n, _ILP) + rest))
    # the first accumulator, the rows left over, then the other three accumulators
    seq = np.concatenate([parts[:1], v[n * _ILP:], parts[1:]], axis=0)
    return running_sum(seq, axis=0)


def _multi_row_sum(rows):
    """PyTorch's ``multi_row_sum`` over axis 0 of ``rows``: a running sum in a cascade."""
    size = rows.shape[0]
    rest = rows.shape[1:]
    if size == 0:
        return np.zeros(rest, rows.dtype)
    power = max(4, _ceil_log2(size) // _LEVELS)
    step = 1 << power
    full = size // step
    if full < step:  # one climb at most (under step**2 rows): chunk sums, then the tail
        chunks = running_sum(rows[:full * step].reshape((full, step) + rest), axis=1) \
            if full else None
        total = running_sum(rows[full * step:], axis=0) if full * step < size else None
        if chunks is None:
            return total
        chunks = running_sum(chunks, axis=0)
        return chunks if total is None else total + chunks
    # level 0: sums of whole chunks of ``step`` rows, and the remainder's sum at the end
    level = running_sum(rows[:full * step].reshape((full, step) + rest), axis=1) if full else None
    total = running_sum(rows[full * step:], axis=0, start_zero=True)
    for _ in range(1, _LEVELS - 1):
        if level is None:
            return total
        count = level.shape[0]
        groups = count // step
        # what this level holds at the end: the sums taken since it last passed one up
        total = total + running_sum(level[groups * step:], axis=0, start_zero=True)
        level = running_sum(level[:groups * step].reshape((groups, step) + rest), axis=1) \
            if groups else None
    if level is not None:  # the top level keeps every sum it is given
        total = total + running_sum(level, axis=0, start_zero=True)
    return total


def running_sum(a, axis=-1, start_zero=False):
    """Left-to-right sum along ``axis`` (PyTorch's running accumulator). NumPy reduces an
    axis that is not the innermost one row after row, but pairwise along the innermost one;
    there an accumulate gives the running sum. ``start_zero``: the accumulator starts at +0
    (it only matters for the sign of a zero sum), and an empty axis sums to it."""
    axis %= a.ndim
    n = a.shape[axis]
    if n == 0:
        return np.zeros(a.shape[:axis] + a.shape[axis + 1:], a.dtype)
    if math.prod(a.shape[axis + 1:]) > 1:
        s = np.add.reduce(a, axis=axis)
    elif a.size >= _OUTER_ROWS * n:
        # NOTE: the axis is the innermost one (but for size-1 dims): with enough rows, a copy
        # that makes it the outermost is reduced row by row, 3-10x faster than an accumulate
        moved = a.T if a.ndim == 2 else np.moveaxis(a, axis, 0)
        s = np.add.reduce(np.ascontiguousarray(moved), axis=0)
    elif axis == a.ndim - 1:
        s = np.add.accumulate(a, axis=axis)[..., -1]
    else:
        s = np.take(np.add.accumulate(a, axis=axis), -1, axis=axis)
    return s + a.dtype.type(0) if start_zero else s


# rows from which running_sum sums an innermost axis through a transposed copy (with fewer,
# the copy costs more than the accumulate saves; one row would be reduced pairwise)
_OUTER_ROWS = 8


def _cpu_vector_floats():
    """float32 lanes of the vectors PyTorch's other kernels (softmax, ...) use on this CPU:
    16 with AVX-512 (PyTorch dispatches them to its AVX-512 build), else 8."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return 16 if " avx512f" in line else 8
    except OSError:
        pass
    return 8


VEC_LANES = _cpu_vector_floats()  # for float32; float64 vectors hold half as many


def vec_sum_lastdim(a, lanes):
    """Sums along the last axis of 2-D ``a`` in the order of PyTorch's ``vec::reduce_all``
    (and ``map_reduce_all``) with vectors of ``lanes`` elements: a row shorter than a vector
    left to right; otherwise one running vector sum lane by lane (the tail added into the
    first lanes only), then its lanes folded in halves (lane i with lane i + lanes/2, ...).

    >>> vec_sum_lastdim(np.float32([[1e8, 1, -1e8, 1, 0, 0, 0, 0, 0]]), 8)
    array([2.], dtype=float32)
    """
    rows, n = a.shape
    if n < lanes:
        return running_sum(a, axis=1)
    nv = n // lanes
    acc = running_sum(a[:, :nv * lanes].reshape(rows, nv, lanes), axis=1)
    tail = n - nv * lanes
    if tail:
        acc = acc.copy() if acc.base is not None else acc
        acc[:, :tail] += a[:, nv * lanes:]
    while lanes > 1:
        lanes //= 2
        acc = acc[:, :lanes] + acc[:, lanes:2 * lanes]
    return acc[:, 0]


_NLL_LEVELS, _NLL_STEP = 8, 16


def nll_sum(v, skipped=None):
    """The sum of ``v`` (1-D: a batch's losses, or its weights) in the order of PyTorch's
    ``nll_loss`` kernel, which keeps its own cascade: an 8-level ladder indexed by the batch
    position ``b``; after adding element ``b`` into level 0, level ``j`` passes its sum up
    while ``b`` is a multiple of ``16 ** (j + 1)``, so element 0 climbs to the top at once and
    then groups of 16 climb; finally the levels are added from the bottom to a zero. A
    position in ``skipped`` (an ignored target) adds nothing and passes nothing up.

    Element 0 waits at the top while 1, -1e8, 1 are summed (to -1e8 in float32); left to
    right would give 1.0:

    >>> float(nll_sum(np.float32([1e8, 1.0, -1e8, 1.0])))
    0.0
    """
    n = v.shape[0]
    if skipped is not None and skipped.any():
        return _nll_sum_replay(v, skipped)
    zero = v.dtype.type(0)
    if n == 0:
        return zero
    level = v[1:]
    total = zero
    for _ in range(_NLL_LEVELS - 1):
        if not level.shape[0]:  # this level and those above it hold zeros
            break
        groups = level.shape[0] // _NLL_STEP
        if groups < level.shape[0] / _NLL_STEP:
            total = total + running_sum(level[groups * _NLL_STEP:], axis=0)
        else:
            total = total + zero
        level = running_sum(level[:groups * _NLL_STEP].reshape(groups, _NLL_STEP), axis=1) \
            if groups else level[:0]
    # the top level: element 0, then (beyond 16**7 elements) whole groups from below
    top = zero + v[0]
    if level.shape[0]:
        top = top + running_sum(level, axis=0)
    return (total + zero) + top


def _nll_sum_replay(v, skipped):
    """``nll_sum`` step by step, for a batch with skipped positions (rare: ignored targets)."""
    acc = [v.dtype.type(0)] * _NLL_LEVELS
    mask = _NLL_STEP - 1
    for b in range(v.shape[0]):
        if skipped[b]:
            continue
        acc[0] = acc[0] + v[b]
        for j in range(_NLL_LEVELS - 1):
            if b & (mask << (4 * j)):
                break
            acc[j + 1] = acc[j + 1] + acc[j]
            acc[j] = v.dtype.type(0)
    total = v.dtype.type(0)
    for a in acc:
        total = total + a
    return total


def _ceil_log2(n):
    """``utils::CeilLog2``: 1 up to 2, else the bits of n - 1."""
    return 1 if n <= 2 else int(n - 1).bit_length()
