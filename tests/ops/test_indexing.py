"""Indexing against PyTorch: basic (views), advanced and boolean keys, their gradients to
second order and grad_fn names; gather/scatter/index_select/masked ops; errors; numerical
gradient checks without PyTorch."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op, check_same, check_same_outcome, numerical_grad_check

_rng = np.random.default_rng(3)
X = _rng.uniform(-2, 2, size=(3, 4, 5)).astype(np.float32)


def lib_of(t):
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


def idx(t, values):
    """An int64 index tensor in ``t``'s library."""
    return lib_of(t).tensor(values)


KEYS = [
    ("int", lambda x: x[1]), ("negative", lambda x: x[-1]), ("int-int", lambda x: x[1, 2]),
    ("int-int-int", lambda x: x[1, 2, 3]), ("slice", lambda x: x[1:]),
    ("slice-step", lambda x: x[::2, 1::2]), ("slice-neg", lambda x: x[-2:, :-1]),
    ("slice-empty", lambda x: x[2:1]), ("slice-beyond", lambda x: x[1:10]),
    ("none", lambda x: x[None]), ("none-mid", lambda x: x[:, None, 1]),
    ("ellipsis", lambda x: x[..., 1]), ("ellipsis-mid", lambda x: x[0, ..., 2:]),
    ("full", lambda x: x[:]), ("full-ellipsis", lambda x: x[...]),
    ("list", lambda x: x[[0, 2]]), ("list-repeat", lambda x: x[[1, 1, 0]]),
    ("list-neg", lambda x: x[[-1, 0]]), ("tensor", lambda x: x[idx(x, [2, 0])]),
    ("tensor-2d", lambda x: x[idx(x, [[0, 1], [2, 2]])]), ("tensor-0d", lambda x: x[idx(x, 1)]),
    ("pair", lambda x: x[[0, 2], [1, 3]]), ("pair-broadcast", lambda x: x[[[0], [2]], [1, 3]]),
    ("adv-slice", lambda x: x[:, [0, 3]]), ("adv-separated", lambda x: x[[0, 1], :, [2, 4]]),
    ("adv-int", lambda x: x[1, [0, 2], 1:]), ("mask", lambda x: x[x > 0]),
    ("mask-rows", lambda x: x[idx(x, [True, False, True])]),
    ("mask-2d", lambda x: x[x[:, :, 0] > 0]), ("mask-and-slice", lambda x: x[:, x[0, :, 0] > 0]),
    ("bool-true", lambda x: x[True]), ("bool-false", lambda x: x[False]),
    ("tuple-list-tensor", lambda x: x[(idx(x, [0, 1]),)]),
    ("int32-index", lambda x: x[lib_of(x).tensor([1, 0], dtype=lib_of(x).int32)]),
    ("uint8-mask", lambda x: x[lib_of(x).tensor([1, 0, 1], dtype=lib_of(x).uint8)]),
]


@pytest.mark.parametrize("fn", [k[1] for k in KEYS], ids=[k[0] for k in KEYS])
def test_getitem(fn, recwarn):
    check_op(fn, X)


@pytest.mark.parametrize("fn", [k[1] for k in KEYS], ids=[k[0] for k in KEYS])
def test_getitem_view_or_copy(torch, fn, recwarn):
    def run(lib):
        x = lib.tensor(X)
        y = fn(x)
        return y._base is x, np.shares_memory(y.numpy(), x.numpy())
    check_same(run)


def test_getitem_on_ints_and_0d(torch):
    check_same(lambda lib: (lib.arange(10)[3], lib.arange(10)[::3], lib.tensor(5)[None],
                            lib.tensor(5)[...], lib.arange(6).view(2, 3)[:, lib.tensor([2])]))


def test_index_with_numpy_values(torch):
    check_same(lambda lib: (lib.tensor(X)[np.int64(1)].shape, lib.tensor(X)[np.array([0, 2])],
                            lib.tensor(X)[np.array([True, False, True])].shape))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(3)[3], lambda lib: lib.ones(3)[-4], lambda lib: lib.ones(2, 3)[0, 5],
    lambda lib: lib.ones(3)[[0, 5]], lambda lib: lib.ones(3)[lib.tensor([1.0])],
    lambda lib: lib.ones(3)[1.5], lambda lib: lib.tensor(1.0)[0], lambda lib: lib.ones(3)[0, 0],
    lambda lib: lib.ones(3)[lib.tensor([True, False])], lambda lib: lib.ones(3)["a"],
    lambda lib: lib.ones(3)[::-1], lambda lib: lib.ones(3)[::0],
], ids=["int-range", "neg-range", "second-range", "list-range", "float-tensor", "float",
        "0d-int", "too-many", "mask-shape", "str", "negative-step", "zero-step"])
def test_getitem_errors(fn):
    check_error(fn)


# ---- gather, scatter and friends -----------------------------------------------------------
GATHER = [
    ("gather", lambda x: x.gather(1, idx(x, [[[0], [2]], [[1], [1]], [[3], [0]]]).expand(3, 2, 5))),
    ("gather-last", lambda x: x.gather(-1, idx(x, np.zeros((3, 4, 2), np.int64).tolist()))),
    ("index-select", lambda x: x.index_select(1, idx(x, [3, 0, 0]))),
    ("index-select-0", lambda x: x.index_select(0, idx(x, [2]))),
    ("take", lambda x: x.take(idx(x, [0, 17, 59, 17]))),
    ("take-along-dim", lambda x: lib_of(x).take_along_dim(x, x.argmax(2, keepdim=True), 2)),
    ("take-along-flat", lambda x: lib_of(x).take_along_dim(x, idx(x, [3, 5]))),
    ("masked-fill", lambda x: x.masked_fill(x > 1, 0.5)),
    ("masked-fill-bcast", lambda x: x.masked_fill(idx(x, [True, False, True, False, True]), -1.0)),
    ("masked-select", lambda x: x.masked_select(x < 0)),
    ("masked-select-bcast", lambda x: x.masked_select(idx(x, [True, False, True, True, False]))),
    ("scatter-src", lambda x: x.scatter(2, idx(x, np.tile([[4, 0]], (3, 4, 1)).tolist()),
                                        x[:, :, :2] * 2)),
    ("scatter-value", lambda x: x.scatter(0, idx(x, [[[1, 0, 2, 0, 1]]]), 7.0)),
    ("scatter-add", lambda x: x.scatter_add(1, idx(x, [[[0] * 5, [0] * 5]] * 3), x[:, :2] * 3)),
    ("index-put", lambda x: x.index_put((idx(x, [0, 2]),), x[:1, 0, 0].expand(2, 4, 5) * 2)),
    ("index-put-acc", lambda x: x.index_put((idx(x, [0, 0]),), x[1] * 1, accumulate=True)),
]


@pytest.mark.parametrize("fn", [g[1] for g in GATHER], ids=[g[0] for g in GATHER])
def test_gather_scatter(fn):
    check_op(fn, X)


def test_masked_fill_with_tensor_value():
    check_op(lambda x, v: x.masked_fill(x > 0, v), X[0], np.array(2.5, np.float32))


def test_nonzero_argwhere_where(torch):
    m = np.array([[0, 1, 0], [2, 0, 3]])
    check_same(lambda lib: (lib.tensor(m).nonzero(), lib.nonzero(lib.tensor(m), as_tuple=True),
                            lib.argwhere(lib.tensor(m)), lib.where(lib.tensor(m) > 0),
                            lib.tensor(5).nonzero(), lib.tensor(0).nonzero(as_tuple=True),
                            lib.zeros(0).nonzero()))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(3).gather(0, lib.tensor([0.0])),
    lambda lib: lib.ones(2, 3).gather(1, lib.tensor([0])),
    lambda lib: lib.ones(3).index_select(0, lib.tensor([[0]])),
    lambda lib: lib.ones(3).index_select(0, lib.tensor([5])),
    lambda lib: lib.ones(3).masked_fill(lib.ones(3), 1.0),
    lambda lib: lib.ones(3).masked_fill(lib.ones(3) > 0, lib.ones(2)),
    lambda lib: lib.ones(3).take(lib.tensor([7])),
    lambda lib: lib.ones(3).scatter(0, lib.tensor([0]), lib.ones(1, dtype=lib.float64)),
], ids=["gather-float-index", "gather-ndim", "index-select-2d", "index-select-range",
        "masked-fill-mask", "masked-fill-value", "take-range", "scatter-dtype"])
def test_gather_scatter_errors(fn):
    check_error(fn)


# ---- numerical checks (no PyTorch needed) --------------------------------------------------
NUMERICAL = [
    ("basic", lambda x: x[1:, ::2] * x[0, :2] + x[1:, 1:2]),
    ("advanced", lambda x: x[[0, 2, 2], [1, 0, 0]] * x[[1, 1, 2]].sum(1)),
    ("mask", lambda x: x[x > 0] ** 2),
    ("gather-scatter", lambda x: x.gather(1, numtorch.tensor([[2, 0], [1, 1], [0, 2]])) *
     x.scatter_add(0, numtorch.tensor([[0, 0, 1]]), x[:1] * 3)[0, :2]),
    ("index-select-take", lambda x: x.index_select(1, numtorch.tensor([2, 2])) +
     x.take(numtorch.tensor([0, 4, 8])).view(3, 1)),
    ("masked", lambda x: x.masked_fill(x < 0, 1.5) * x.masked_select(x > -5).view(3, 3)),
]


@pytest.mark.parametrize("f", [n[1] for n in NUMERICAL], ids=[n[0] for n in NUMERICAL])
def test_numerical_gradients(f):
    numerical_grad_check(f, [np.array([[0.3, -0.7, 1.2], [0.9, 0.4, -1.5], [0.2, 1.1, -0.4]])])


# OpInfo regressions: one line per case
OPINFO_FIXES = [
    ("gather-empty-index", lambda a, i: lib_of(a).gather(a, 0, i), np.arange(5.0),
     np.zeros((2, 0), np.uint8)),
    ("gather-0d", lambda a, i: lib_of(a).gather(a, 0, i), np.array(1.5), np.array([0])),
    ("gather-small-index", lambda a, i: lib_of(a).gather(a, 0, i), np.ones((10, 5)),
     np.array([[1, 2], [0, 9]])),
    ("scatter_add-0d", lambda a, i, s: lib_of(a).scatter_add(a, 0, i, s), np.array(1.5),
     np.array(0), np.array(2.0)),
    ("scatter_add-small-index", lambda a, i, s: lib_of(a).scatter_add(a, 1, i, s),
     np.ones((3, 5)), np.array([[1, 1], [0, 4]]), np.arange(9.0).reshape(3, 3)),
    ("scatter-multiply", lambda a, i: lib_of(a).scatter(a, 0, i, 3.0, reduce="multiply"),
     np.full(3, 2.0), np.array([0, 0])),
    ("scatter-add-value", lambda a, i: lib_of(a).scatter(a, 0, i, 2.5, reduce="add"),
     np.full(3, 2.0), np.array([0, 0])),
    ("index_select-0d", lambda a, i: lib_of(a).index_select(a, 0, i), np.array(1.5),
     np.array([0])),
]


# no gradient: scatter(reduce=...) has no derivative, an index smaller than src is refused
NO_GRAD = ("scatter-multiply", "scatter-add-value", "scatter_add-small-index")


@pytest.mark.parametrize("name, fn, inputs", [(c[0], c[1], c[2:]) for c in OPINFO_FIXES],
                         ids=[c[0] for c in OPINFO_FIXES])
def test_opinfo_fixes(name, fn, inputs):
    check_op(fn, *inputs, grad=name not in NO_GRAD)


# ---- errors found by sweeping scripts against torch: masks, index broadcasting, bounds ------
def _cube(lib):
    return lib.zeros(3, 4, 5)


SWEEP_INDEX_ERRORS = [
    ("mask-after-slice", lambda lib: _cube(lib)[:, lib.tensor([True, False, True])]),
    ("mask-after-int", lambda lib: _cube(lib)[0, lib.tensor([True, True])]),
    ("mask-after-none", lambda lib: _cube(lib)[None, 1, lib.tensor([True, False, True])]),
    ("mask-after-ellipsis", lambda lib: _cube(lib)[..., lib.tensor([True])]),
    ("mask-2d", lambda lib: _cube(lib)[:, lib.ones(4, 4, dtype=lib.bool)]),
    ("index-broadcast", lambda lib: _cube(lib)[[0, 1], [1, 2, 0]]),
    ("index-broadcast-2d", lambda lib: _cube(lib)[lib.tensor([[0, 1]]), lib.tensor([0, 1, 2])]),
    ("gather-oob", lambda lib: lib.gather(lib.zeros(3, 4), 1, lib.tensor([[5]]))),
    ("gather-negative", lambda lib: lib.gather(lib.zeros(3, 4), 1, lib.tensor([[-1]]))),
    ("scatter-oob", lambda lib: lib.zeros(3, 4).scatter(0, lib.tensor([[3]]), 1.0)),
    ("scatter_add-negative", lambda lib: lib.zeros(3, 4).scatter_add(
        1, lib.tensor([[-1]]), lib.ones(1, 1))),
    ("scatter_reduce-oob", lambda lib: lib.zeros(3, 4).scatter_reduce(
        1, lib.tensor([[4]]), lib.ones(1, 1), "sum")),
    ("index_select-dim0", lambda lib: lib.zeros(3, 4).index_select(0, lib.tensor([3]))),
    ("index_select-negative", lambda lib: lib.zeros(3, 4).index_select(0, lib.tensor([-1]))),
    ("index_select-dim1", lambda lib: lib.zeros(3, 4).index_select(1, lib.tensor([9]))),
    ("index_add-negative", lambda lib: lib.zeros(3, 4).index_add(
        0, lib.tensor([-1]), lib.ones(1, 4))),
    ("index_copy-oob", lambda lib: lib.zeros(3, 4).index_copy(
        0, lib.tensor([3]), lib.ones(1, 4))),
    ("index_fill-oob", lambda lib: lib.zeros(3, 4).index_fill(0, lib.tensor([-4]), 2.0)),
    ("put-negative", lambda lib: lib.zeros(3, 4).put(lib.tensor([0, -20]), lib.ones(2))),
]


@pytest.mark.parametrize("name, fn", SWEEP_INDEX_ERRORS, ids=[c[0] for c in SWEEP_INDEX_ERRORS])
def test_sweep_index_errors(name, fn):
    check_error(fn)


def test_index_mask_setitem_error_matches(torch):
    def put(lib):
        x = _cube(lib)
        x[:, lib.tensor([True, False, True])] = 1.0
    check_error(put)


def test_index_fill_wraps_negative(torch):
    check_same(lambda lib: lib.zeros(3, 4).index_fill(1, lib.tensor([-1]), 2.0))


def test_index_select_float_index_error(torch):
    check_error(lambda lib: lib.tensor([1.0, 2.0]).index_select(0, lib.tensor([0.0])))


# ---- index_put / scatter / gather checks, in PyTorch's order and words ----------------------
def _put(key, value):
    def fn(lib):
        x = lib.zeros(3, 4)
        x[key(lib)] = value(lib)
        return x
    return fn


PUT_CASES = [
    ("list-long-value", _put(lambda lib: [0], lambda lib: lib.tensor([1, 2, 3, 4]))),
    ("mask-0d-double", _put(lambda lib: lib.ones(3, 4, dtype=lib.bool),
                            lambda lib: lib.tensor(1, dtype=lib.float64))),
    ("mask-1elem-long", _put(lambda lib: lib.tensor([True, False, True]),
                             lambda lib: lib.tensor([5]))),
    ("list-bool-value", _put(lambda lib: ([0, 1], [1, 2]), lambda lib: lib.tensor([True, False]))),
    ("basic-long-value", _put(lambda lib: 0, lambda lib: lib.tensor([1, 2, 3, 4]))),
    ("index_put-dtype", lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0]),),
                                                              lib.tensor([1, 2, 3, 4]))),
    ("index_put-shape-first", lambda lib: lib.zeros(3, 4).index_put(
        (lib.tensor([0]),), lib.tensor([1.0, 2.0], dtype=lib.float64))),
    ("index_put-too-many", lambda lib: lib.zeros(3, 4).index_put(
        (lib.tensor([0]), lib.tensor([0]), lib.tensor([0])), lib.tensor(1.0))),
    ("masked_scatter-short", lambda lib: lib.zeros(3, 4).masked_scatter(
        lib.ones(3, 4, dtype=lib.bool), lib.arange(5.0))),
    ("masked_scatter-dtype", lambda lib: lib.zeros(3, 4).masked_scatter(
        lib.ones(3, 4, dtype=lib.bool), lib.arange(12))),
    ("masked_scatter-mask", lambda lib: lib.zeros(3, 4).masked_scatter(
        lib.ones(3, 4, dtype=lib.int32), lib.arange(12.0))),
    ("scatter-ndim", lambda lib: lib.zeros(3, 4).scatter(1, lib.tensor([0]), 1.0)),
    ("scatter-src-ndim", lambda lib: lib.zeros(3, 4).scatter(1, lib.tensor([[0, 1]]),
                                                             lib.ones(1))),
    ("scatter-index-large", lambda lib: lib.zeros(3, 4).scatter(1, lib.tensor([[0]] * 4),
                                                                lib.ones(4, 1))),
    ("scatter_add-src-small", lambda lib: lib.zeros(3, 4).scatter_add(
        1, lib.tensor([[0, 1]]), lib.ones(1, 1))),
    ("gather-index-large", lambda lib: lib.gather(lib.zeros(3, 4), 1, lib.tensor([[0]] * 4))),
    ("einsum-dtypes", lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 3),
                                             lib.ones(3, 2, dtype=lib.float64))),
    ("einsum-no-operands", lambda lib: lib.einsum("ij->ji")),
]


@pytest.mark.parametrize("name, fn", PUT_CASES, ids=[c[0] for c in PUT_CASES])
def test_put_scatter_gather_checks(name, fn):
    check_same_outcome(fn)


LIST_KEYS = [[0, slice(None)], [0, None], [0, Ellipsis], [[0, 1], [1, 2]], [[0, 1]], [0, 1],
             [True, False, True]]


@pytest.mark.parametrize("key", LIST_KEYS, ids=[str(k) for k in LIST_KEYS])
def test_list_key_is_a_tuple_when_it_holds_sequences(torch, key):
    """PyTorch's legacy rule: a short list holding a sequence, slice, None or ... is a
    tuple of indices (with a deprecation warning)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_same_outcome(lambda lib: lib.arange(12).view(3, 4)[key])


def test_take_along_dim_counts_negative_indices_from_the_end():
    def fn(lib):
        x = lib.arange(10.0).view(2, 5).requires_grad_()
        out = lib.take_along_dim(x, lib.tensor([[-5, -1, 0]]), 1)
        out.sum().backward()
        return out, x.grad
    check_same(fn)
    check_error(lambda lib: lib.take_along_dim(lib.arange(4.0), lib.tensor([-1])))
