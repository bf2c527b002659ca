"""Which of several equal elements a selection returns, as PyTorch's CPU kernels decide it.

``topk`` keeps ``(value, index)`` pairs and runs the C++ standard library's ``partial_sort``
(when ``k * 64 <= n``) or ``nth_element`` followed by ``sort`` of the first ``k - 1``; both
compare values only, so among ties the indices that come out depend on those algorithms'
exact steps. ``kthvalue`` and ``median`` run PyTorch's own quickselect. This module replays
those steps (libstdc++'s introselect, introsort and heap routines; PyTorch's
``quick_select_template``) on integer ranks, so ties resolve as they do in PyTorch.

The callers use it only for rows that hold ties; without ties every correct algorithm gives
the same answer, and a NumPy sort is much faster.

>>> topk_order([1, 3, 3, 2], 2, largest=True)
[1, 2]
"""
import numpy as np


def ranks(row, largest):
    """Integer keys for ``row``: equal values equal keys, NaN above everything, and
    ``a < b`` exactly when PyTorch's comparator puts ``a`` first."""
    _, inv = np.unique(row, return_inverse=True)  # NaNs collapse into one, sorted last
    inv = inv.reshape(-1).astype(np.int64)
    return (-inv if largest else inv).tolist()


def topk_order(keys, k, largest=None):
    """The positions PyTorch's topk returns for ``keys`` (ranks, or raw values when
    ``largest`` is given), in output order."""
    if largest is not None:
        keys = ranks(np.asarray(keys), largest)
    pairs = [(key, i) for i, key in enumerate(keys)]
    n = len(pairs)
    if k == 0:
        return []
    if k * 64 <= n:
        _partial_sort(pairs, 0, k, n)
    else:
        _nth_element(pairs, 0, k - 1, n)
        _sort(pairs, 0, k - 1)
    return [i for _, i in pairs[:k]]


def sort_order(keys):
    """The positions of ``keys`` in the order ``std::sort`` (not stable) leaves them."""
    pairs = [(key, i) for i, key in enumerate(keys)]
    _sort(pairs, 0, len(pairs))
    return [i for _, i in pairs]


def _lg(n):
    return n.bit_length() - 1


# ---- libstdc++ <bits/stl_algo.h> and <bits/stl_heap.h>, comparing on pair[0] -----------------
def _nth_element(a, first, nth, last):
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last)


def _sort(a, first, last):
    if last - first > 1:
        _introsort_loop(a, first, last, _lg(last - first) * 2)
        if last - first > 16:
            _insertion_sort(a, first, first + 16)
            for i in range(first + 16, last):
                _linear_insert(a, i)
        else:
            _insertion_sort(a, first, last)


def _introsort_loop(a, first, last, depth):
    while last - first > 16:
        if depth == 0:
            _partial_sort(a, first, last, last)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        _introsort_loop(a, cut, last, depth)
        last = cut


def _partition_pivot(a, first, last):
    mid = first + (last - first) // 2
    _median_to_first(a, first, first + 1, mid, last - 1)
    pivot = a[first][0]
    lo, hi = first + 1, last
    while True:
        while a[lo][0] < pivot:
            lo += 1
        hi -= 1
        while pivot < a[hi][0]:
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _median_to_first(a, result, x, y, z):
    kx, ky, kz = a[x][0], a[y][0], a[z][0]
    if kx < ky:
        pick = y if ky < kz else z if kx < kz else x
    else:
        pick = x if kx < kz else z if ky < kz else y
    a[result], a[pick] = a[pick], a[result]


def _insertion_sort(a, first, last):
    for i in range(first + 1, last):
        if a[i][0] < a[first][0]:
            val = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            _linear_insert(a, i)


def _linear_insert(a, last):
    val = a[last]
    nxt = last - 1
    while val[0] < a[nxt][0]:
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _partial_sort(a, first, middle, last):
    _heap_select(a, first, middle, last)
    while middle - first > 1:
        middle -= 1
        _pop_heap(a, first, middle, middle)


def _heap_select(a, first, middle, last):
    _make_heap(a, first, middle)
    for i in range(middle, last):
        if a[i][0] < a[first][0]:
            _pop_heap(a, first, middle, i)


def _make_heap(a, first, last):
    n = last - first
    if n < 2:
        return
    parent = (n - 2) // 2
    while True:
        _adjust_heap(a, first, parent, n, a[first + parent])
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a, first, last, result):
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value)


def _adjust_heap(a, first, hole, n, value):
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if a[first + child][0] < a[first + child - 1][0]:
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and a[first + parent][0] < value[0]:
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


# ---- PyTorch's quick_select_template (aten/src/ATen/native/SortingUtils.h) -------------------
def quick_select(keys, k):
    """The position of the ``k``-th smallest key (0-based) that PyTorch's quickselect picks."""
    arr = [(key, i) for i, key in enumerate(keys)]
    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            return arr[k][1]
        if hi == lo + 1:
            if arr[lo][0] > arr[hi][0]:
                arr[lo], arr[hi] = arr[hi], arr[lo]
            return arr[k][1]
        p = lo + (hi - lo) // 2
        arr[p], arr[lo + 1] = arr[lo + 1], arr[p]
        if arr[lo + 1][0] > arr[hi][0]:
            arr[lo + 1], arr[hi] = arr[hi], arr[lo + 1]
        if arr[lo][0] > arr[hi][0]:
            arr[lo], arr[hi] = arr[hi], arr[lo]
        if arr[lo + 1][0] > arr[lo][0]:
            arr[lo + 1], arr[lo] = arr[lo], arr[lo + 1]
        i, j = lo + 1, hi
        piv = arr[lo][0]
        while True:
            i += 1
            while piv > arr[i][0]:
                i += 1
            j -= 1
            while arr[j][0] > piv:
                j -= 1
            if j < i:
                break
            arr[i], arr[j] = arr[j], arr[i]
        arr[lo], arr[j] = arr[j], arr[lo]
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
