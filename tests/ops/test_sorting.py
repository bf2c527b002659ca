"""Sorting and selection against PyTorch where values tie: which index topk, kthvalue and
mode return among equal values (PyTorch's CPU algorithms, replayed in ops/_select_order.py)."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same
from numtorch.ops._select_order import quick_select, ranks, sort_order, topk_order

_rng = np.random.default_rng(11)
# rows with many ties, some with NaNs; lengths across the partial_sort / nth_element switch
TIED = [np.round(_rng.uniform(0, 3, n)).astype(np.float32) for n in (1, 2, 5, 13, 40, 200)]
TIED[3][[2, 7]] = np.nan


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("row", TIED, ids=[str(len(r)) for r in TIED])
def test_topk_ties(torch, row, largest):
    for k in sorted({0, 1, min(2, len(row)), len(row) // 3, len(row)}):
        check_same(lambda lib: lib.from_numpy(row.copy()).topk(k, largest=largest).indices
                   .tolist(), exact=True)


@pytest.mark.parametrize("row", TIED, ids=[str(len(r)) for r in TIED])
def test_kthvalue_and_mode_ties(torch, row):
    for k in sorted({1, len(row) // 2 + 1, len(row)}):
        check_same(lambda lib: lib.from_numpy(row.copy()).kthvalue(k).indices.item(),
                   exact=True)
    check_same(lambda lib: tuple(lib.from_numpy(row.copy()).mode()), exact=False)


def test_ties_along_a_dim_of_a_batch(torch):
    x = np.round(_rng.uniform(0, 2, (4, 3, 30))).astype(np.int64)
    check_same(lambda lib: lib.from_numpy(x.copy()).topk(5, dim=2).indices, exact=True)
    check_same(lambda lib: lib.from_numpy(x.copy()).topk(2, dim=1).indices, exact=True)
    check_same(lambda lib: lib.from_numpy(x.copy()).kthvalue(4, dim=2).indices, exact=True)
    check_same(lambda lib: lib.from_numpy(x.copy()).mode(dim=2).indices, exact=True)


def test_topk_ties_gradient_follows_the_chosen_index(torch):
    def grad(lib):
        x = lib.tensor([1.0, 3.0, 3.0, 2.0, 3.0], requires_grad=True)
        x.topk(2).values.sum().backward()
        return x.grad
    check_same(grad)


# ---- the replayed algorithms alone (no torch) ------------------------------------------------
def test_replays_are_permutations_and_ordered():
    keys = ranks(np.array([2.0, 1.0, 2.0, np.nan, 1.0, 0.0]), largest=False)
    order = sort_order(keys)
    assert sorted(order) == list(range(6))
    assert [keys[i] for i in order] == sorted(keys)
    assert [keys[i] for i in topk_order(keys, 3)] == sorted(keys)[:3]
    assert keys[quick_select(keys, 2)] == sorted(keys)[2]


# ---- ops that order values refuse complex input, with PyTorch's errors ----------------------
def _z(lib):
    return lib.tensor([1 + 1j, 2 - 1j])


COMPLEX_ORDERING = [
    ("max", lambda lib: _z(lib).max()), ("min-dim", lambda lib: _z(lib).min(0)),
    ("max-other", lambda lib: lib.max(lib.ones(2), _z(lib))),
    ("argmax", lambda lib: _z(lib).argmax()), ("amax", lambda lib: _z(lib).amax()),
    ("aminmax", lambda lib: _z(lib).aminmax()),
    ("sort", lambda lib: _z(lib).sort()), ("argsort", lambda lib: _z(lib).argsort()),
    ("topk", lambda lib: _z(lib).topk(1)), ("kthvalue", lambda lib: _z(lib).kthvalue(1)),
    ("median", lambda lib: _z(lib).median()), ("median-dim", lambda lib: _z(lib).median(0)),
    ("mode", lambda lib: _z(lib).mode()), ("unique", lambda lib: _z(lib).unique()),
    ("cummax", lambda lib: _z(lib).cummax(0)),
    ("maximum", lambda lib: lib.maximum(_z(lib), _z(lib))),
    ("fmin", lambda lib: lib.fmin(lib.ones(2), _z(lib))),
    ("lt", lambda lib: _z(lib) < 1), ("ge-other", lambda lib: lib.ones(2) >= _z(lib)),
    ("clamp", lambda lib: _z(lib).clamp(0, 1)), ("round", lambda lib: _z(lib).round()),
]


@pytest.mark.parametrize("name, fn", COMPLEX_ORDERING, ids=[c[0] for c in COMPLEX_ORDERING])
def test_complex_ordering_errors(name, fn):
    check_error(fn)


NAN_CASES = [
    ("unique", lambda lib: lib.unique(lib.tensor([2.0, float("nan"), 1.0, float("nan")]),
                                      return_inverse=True, return_counts=True)),
    ("cummax", lambda lib: lib.tensor([1.0, float("nan"), 2, float("nan"), 3]).cummax(0)),
    ("cummin", lambda lib: lib.tensor([[float("nan"), 1.0], [0.5, float("nan")]]).cummin(1)),
]


@pytest.mark.parametrize("name, fn", NAN_CASES, ids=[c[0] for c in NAN_CASES])
def test_nan_handling(torch, name, fn):
    check_same(fn)
