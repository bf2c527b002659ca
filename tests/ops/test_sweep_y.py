"""Sweep Y (tensor ops, second pass): the memory layout of advanced-index, cat and stack
results; grad_fn names of index_add/copy/fill/reduce, put, masked_scatter and the *_scatter
ops, unique's recorded (underivable) node, rot90's; sort's gradient keeping -0.0;
searchsorted's NaN handling; and PyTorch's errors for bincount, histc, searchsorted, put,
take, masked_select, tensor_split, unbind, roll, meshgrid, cartesian_prod and gcd; the
reflected and in-place shift operators.

Every case runs in numtorch and in PyTorch (the oracle; skipped without it)."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op, check_same, check_same_outcome


def _layout(t):
    return tuple(t.shape), t.stride(), t.is_contiguous()


# ---- advanced indexing: the result's layout follows PyTorch's TensorIterator ----------------
_KEYS = [
    lambda lib, x: (slice(None), [0, 1]),
    lambda lib, x: ([0, 1], slice(None), [1, 0]),
    lambda lib, x: (Ellipsis, [0, 1]),
    lambda lib, x: (slice(None), slice(None), [1, 0], [0, 1]),
    lambda lib, x: (slice(None, None, 2), [0, 1]),
    lambda lib, x: (None, slice(None), [1, 0]),
    lambda lib, x: (slice(None), lib.tensor([[0, 1], [1, 0]]).t()),
    lambda lib, x: (slice(None), [[0], [1]], [1, 0]),
    lambda lib, x: ([0, 1], None, [1, 0]),
    lambda lib, x: (lib.arange(x.shape[0]) % 2 == 0, Ellipsis, [0]),
    lambda lib, x: (0, slice(None), [1, 0]),
    lambda lib, x: (slice(None), [1], slice(None)),
]


@pytest.mark.parametrize("perm", [(0, 1, 2, 3), (3, 2, 1, 0), (1, 0, 3, 2), (2, 0, 3, 1)])
@pytest.mark.parametrize("key", range(len(_KEYS)))
def test_advanced_index_layout_matches_torch(perm, key):
    def run(lib):
        x = lib.arange(120).reshape(2, 3, 4, 5).permute(*perm)
        r = x[_KEYS[key](lib, x)]
        return _layout(r), r
    check_same(run, exact=True)


def test_advanced_index_of_contiguous_tensor_is_contiguous_and_views(torch):
    # NumPy lays x[:, [0, 2], [1, 3]] out transposed; PyTorch's result is contiguous, so
    # .view works on it
    check_same(lambda lib: lib.arange(60).reshape(3, 4, 5)[:, [0, 2], [1, 3]].view(-1),
               exact=True)
    check_same(lambda lib: _layout(lib.arange(60).reshape(3, 4, 5)[..., [1]]), exact=True)


def test_advanced_index_gradient_unchanged():
    x = np.arange(24.).reshape(2, 3, 4)
    check_op(lambda a: a.transpose(0, 2)[:, [0, 2], [1, 0]], x)


# ---- cat / stack layout ----------------------------------------------------------------------
@pytest.mark.parametrize("case", range(6))
def test_cat_stack_layout_matches_torch(case):
    def run(lib):
        a = lib.arange(120.).reshape(2, 3, 4, 5)
        cl = a.to(memory_format=lib.channels_last)
        t = lib.arange(6.).reshape(3, 2).t()
        r = [lambda: lib.cat([t, t]), lambda: lib.stack([t, t]), lambda: lib.cat([cl, cl], 1),
             lambda: lib.cat([cl, a], 1), lambda: lib.stack([cl, cl]),
             lambda: lib.cat([a.transpose(0, 1), a.transpose(0, 1)])][case]()
        return _layout(r), r
    check_same(run, exact=True)


# ---- grad_fn names ---------------------------------------------------------------------------
_IDX = np.array([0, 2])


@pytest.mark.parametrize("op", [
    lambda a, s: a.index_add(0, _t(a, _IDX), s, alpha=2.0),
    lambda a, s: a.index_copy(0, _t(a, _IDX), s),
    lambda a, s: a.index_fill(1, _t(a, _IDX), 1.5) * s.sum(),
    lambda a, s: a.index_fill(0, _t(a, _IDX), s[0, 0]),
    lambda a, s: a.put(_t(a, np.array([0, 5, 3, 1, 7, 8])), s),
    lambda a, s: a.masked_scatter(a > 0, s),
    lambda a, s: _lib(a).select_scatter(a, s[0], 0, 1),
    lambda a, s: _lib(a).slice_scatter(a, s, 0, 0, 2),
    lambda a, s: _lib(a).diagonal_scatter(a, s[0]),
    lambda a, s: a.view(3, 3).rot90(1, [0, 1]),
    lambda a, s: a.view(3, 3).rot90(-2, [1, 0]),
    lambda a, s: a.view(3, 3).rot90(3),
])
def test_grad_fn_names_and_gradients(op):
    a = np.linspace(-1, 1, 9).reshape(3, 3)
    s = np.arange(1., 7.).reshape(2, 3)
    check_op(op, a, s)


def test_index_reduce_grad_fn_name(torch):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's "index_reduce() is in beta"
        check_op(lambda a, s: a.index_reduce(0, _t(a, _IDX), s, "amax"),
                 np.linspace(-1, 1, 9).reshape(3, 3), np.arange(6.).reshape(2, 3),
                 gradgrad=False)


def _lib(t):
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


def _t(like, array):
    return _lib(like).tensor(array)


@pytest.mark.parametrize("call", [
    lambda lib, a: lib.unique(a), lambda lib, a: lib.unique(a, return_counts=True)[0],
    lambda lib, a: lib.unique(a, dim=0), lambda lib, a: lib.unique_consecutive(a),
    lambda lib, a: lib.unique_consecutive(a, dim=0)])
def test_unique_records_a_node_without_derivative(torch, call):
    def run(lib):
        a = lib.tensor([3., 1., 3.], requires_grad=True)
        out = call(lib, a)
        return out.grad_fn.name(), out.detach()
    check_same(run, exact=True)
    check_error(lambda lib: call(lib, lib.tensor([3., 1., 3.], requires_grad=True)).sum()
                .backward())


def test_sort_gradient_keeps_negative_zero(torch):
    def run(lib):
        z = lib.tensor([0.5, -0.0, 0.0, -0.5], requires_grad=True)
        z.sort().values.pow(2).sum().backward()
        return np.signbit(z.grad.numpy()).tolist()
    check_same(run, exact=True)


# ---- searchsorted: PyTorch's binary search --------------------------------------------------
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_with_nan_matches_torch(right):
    def run(lib):
        seq = lib.tensor([1., 2., 2., 5., float("nan")])
        vals = lib.tensor([float("nan"), 0., 2., 3., 7.])
        rows = lib.tensor([[1., float("nan"), 3.], [0., 1., 2.]])
        return (lib.searchsorted(seq, vals, right=right),
                lib.searchsorted(rows, lib.tensor([[2., 0.5], [1., 9.]]), right=right),
                lib.bucketize(vals, seq, right=right), lib.searchsorted(seq, 2))
    check_same(run, exact=True)


# ---- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda lib: lib.bincount(lib.tensor([1, 2]), minlength=-1),
    lambda lib: lib.bincount(lib.tensor([-1, 2]), minlength=-1),
    lambda lib: lib.bincount(lib.tensor([1, 2]), weights=lib.tensor([1.])),
    lambda lib: lib.bincount(lib.tensor([1, 2]), weights=lib.tensor([[1., 2.]])),
    lambda lib: lib.histc(lib.tensor([1., 2.]), bins=0),
    lambda lib: lib.histc(lib.tensor([1., 2.]), bins=-3),
    lambda lib: lib.histc(lib.tensor([1., float("inf")])),
    lambda lib: lib.histc(lib.tensor([1., float("nan")])),
    lambda lib: lib.histc(lib.tensor([1., 2.]), min=1e-20, max=float("inf")),
    lambda lib: lib.searchsorted(lib.ones(2, 5), lib.ones(1, 2)),
    lambda lib: lib.searchsorted(lib.ones(2, 5), lib.ones(2)),
    lambda lib: lib.zeros(2, 3).put(lib.tensor([0.]), lib.tensor([1.])),
    lambda lib: lib.zeros(2, 3).put(lib.tensor([0, 1]), lib.tensor([1.])),
    lambda lib: lib.zeros(2, 3).put(lib.tensor([0, 1]), lib.tensor([1, 2])),
    lambda lib: lib.zeros(2, 3).put(lib.tensor([0, 1], dtype=lib.int32), lib.tensor([1., 2])),
    lambda lib: lib.take(lib.zeros(2, 3), lib.tensor([1.])),
    lambda lib: lib.zeros(2, 3).masked_select(lib.tensor([True, False])),
    lambda lib: lib.arange(10).tensor_split(0),
    lambda lib: lib.arange(10).tensor_split(-2),
    lambda lib: lib.arange(10).tensor_split(lib.tensor([[1]])),
    lambda lib: lib.arange(10).tensor_split(lib.tensor([1.])),
    lambda lib: lib.tensor(1).tensor_split(2),
    lambda lib: lib.tensor(1).unbind(),
    lambda lib: lib.roll(lib.arange(8).view(4, 2), shifts=(2, 1)),
    lambda lib: lib.roll(lib.tensor(5.), 1, 0),
    lambda lib: lib.meshgrid(lib.arange(3), lib.ones(2), indexing="ij"),
    lambda lib: lib.cartesian_prod(lib.arange(3).view(3, 1), lib.arange(2)),
    lambda lib: lib.gcd(lib.tensor([1.]), lib.tensor([2])),
])
def test_errors_match_torch(call):
    check_error(call)


@pytest.mark.parametrize("call", [
    lambda lib: lib.histc(lib.tensor([2., 2., 2.]), bins=3),
    lambda lib: lib.histc(lib.tensor([], dtype=lib.float32), bins=3),
    lambda lib: lib.roll(lib.tensor(5.), 1),
    lambda lib: lib.roll(lib.arange(6), [2]),
    lambda lib: lib.flip(lib.tensor(5), [0]),
    lambda lib: lib.arange(10).tensor_split(lib.tensor(3)),
    lambda lib: lib.bincount(lib.tensor([0, 1, 1]), weights=lib.tensor([1, 2, 3])),
    lambda lib: lib.zeros(2, 3).put(lib.tensor([1, -1, 1]), lib.tensor([1., 2., 3.]),
                                    accumulate=True),
])
def test_values_match_torch(call):
    check_same_outcome(call)


# ---- shift operators -------------------------------------------------------------------------
def test_reflected_and_inplace_shifts(torch):
    def run(lib):
        x = lib.tensor([1, 2])
        alias = x
        x <<= 2
        first = alias.clone()
        x >>= lib.tensor([1, 3])
        return (first, alias, 1 << lib.tensor([3, 4]), 300 >> lib.tensor([2]),
                1 << lib.tensor([3], dtype=lib.uint8))
    check_same(run, exact=True)
    check_error(lambda lib: 2.5 << lib.tensor([1]))
