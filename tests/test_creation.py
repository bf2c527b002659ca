"""Creation functions: tensor() inference, from_numpy, filled tensors, ranges, eye."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, check_same_outcome


@pytest.fixture(autouse=True)
def _default_dtype_restored():
    yield
    numtorch.set_default_dtype(numtorch.float32)


# ---- tensor(): dtype inference -------------------------------------------------------------
DATA = [
    ("int", lambda lib: 3), ("float", lambda lib: 2.5), ("bool", lambda lib: True),
    ("complex", lambda lib: 1 - 2j), ("int-list", lambda lib: [1, 2, 3]),
    ("float-list", lambda lib: [1.0, 2.5]), ("mixed-int-float", lambda lib: [1, 2.5]),
    ("bool-int", lambda lib: [True, 2]), ("bool-float", lambda lib: [True, 2.5]),
    ("int-complex", lambda lib: [1, 2j]), ("nested", lambda lib: [[1, 2], [3, 4]]),
    ("nested-3d", lambda lib: [[[1.5]], [[2.5]]]), ("tuple", lambda lib: ((1, 2), (3, 4))),
    ("empty", lambda lib: []), ("empty-nested", lambda lib: [[]]),
    ("empty-2", lambda lib: [[], []]), ("range", lambda lib: range(4)),
    ("bools", lambda lib: [[True, False]]),
    ("np-float32-scalar", lambda lib: np.float32(1.5)),
    ("np-float64-scalar", lambda lib: np.float64(1.5)),
    ("np-int16-scalar", lambda lib: np.int16(7)), ("np-bool-scalar", lambda lib: np.bool_(1)),
    ("np-scalars-in-list", lambda lib: [np.float32(1.5), 2]),
    ("np-f64-in-list", lambda lib: [np.float64(1.5)]),
    ("np-int32-in-list", lambda lib: [np.int32(1), 2]),
    ("np-f16-with-float", lambda lib: [np.float16(1), 2.5]),
    ("np-array-int16", lambda lib: np.array([1, 2], np.int16)),
    ("np-array-f64", lambda lib: np.array([[1.5, 2]])),
    ("np-array-bool", lambda lib: np.array([True])),
    ("np-array-0d", lambda lib: np.array(1.5, np.float32)),
    ("np-array-transposed", lambda lib: np.arange(6.0).reshape(2, 3).T),
    ("tensors-in-list", lambda lib: [lib.tensor(1), 2.5]),
    ("int32-tensors-in-list", lambda lib: [lib.tensor(1, dtype=lib.int32),
                                           lib.tensor(2, dtype=lib.int32)]),
    ("1-elem-tensors", lambda lib: [lib.tensor([1.0]), lib.tensor([2.0])]),
    ("nested-tensors", lambda lib: [[lib.tensor(1.5), 2], [3, lib.tensor(4)]]),
    ("f64-tensor-with-int", lambda lib: [lib.tensor(1.0, dtype=lib.float64), 3]),
]


@pytest.mark.parametrize("data", [d[1] for d in DATA], ids=[d[0] for d in DATA])
def test_tensor_inference(torch, data):
    check_same(lambda lib: lib.tensor(data(lib)))


@pytest.mark.parametrize("data", [d[1] for d in DATA], ids=[d[0] for d in DATA])
def test_tensor_inference_default_float64(torch, data):
    def fn(lib):
        lib.set_default_dtype(lib.float64)
        try:
            return lib.tensor(data(lib))
        finally:
            lib.set_default_dtype(lib.float32)
    check_same(fn)


@pytest.mark.parametrize("dtype", ["float16", "float64", "int32", "uint8", "bool",
                                   "complex64"])
def test_tensor_with_dtype(torch, dtype):
    check_same(lambda lib: lib.tensor([[1, 0], [3, 4]], dtype=getattr(lib, dtype)))
    check_same(lambda lib: lib.tensor([0.0, 1.75, 2.5, -0.0], dtype=getattr(lib, dtype)))
    if dtype != "uint8":
        check_same(lambda lib: lib.tensor([-1.0, -2.5], dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("data, dtype", [([-1], "uint8"), ([-255, 7], "uint8"),
                                         ([-2**62], "int64"), ([True, 2.5], "bool"),
                                         ([2**64], "float32")],
                         ids=str)
def test_tensor_integral_wraps(torch, data, dtype):
    check_same(lambda lib: lib.tensor(data, dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("data, dtype", [([-2.5], "uint8"), ([300], "uint8"),
                                         ([-256], "uint8"), ([40000], "int16"),
                                         ([2**31], "int32"), ([1e10], "int32"),
                                         ([float("nan")], "int64"), ([2**63], None),
                                         ([1j], "float32"),
                                         ([[1, 2.5], [3, -1.5]], "uint8")], ids=str)
def test_tensor_dtype_overflow_errors(torch, data, dtype):
    check_error(lambda lib: lib.tensor(data, dtype=dtype and getattr(lib, dtype)))


def test_tensor_copies_and_requires_grad(torch):
    def fn(lib):
        a = np.ones(3)
        t = lib.tensor(a, requires_grad=True)
        a[0] = 5
        return t.detach(), t.requires_grad, t.is_leaf, t.grad_fn
    check_same(fn)


def test_tensor_from_tensor_warns_and_copies(torch):
    for lib in (numtorch, torch):
        src = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning, match="To copy construct from a tensor"):
            t = lib.tensor(src)
        assert not t.requires_grad and t.is_leaf
        t.add_(1)
        assert src.tolist() == [1.0, 1.0]


BAD_DATA = [
    ("ragged", lambda lib: [[1, 2], [3]]),
    ("ragged-deep", lambda lib: [[[1], [2]], [[3], [4, 5]]]),
    ("not-a-sequence", lambda lib: [[1, 2], 3]),
    ("list-in-leaf", lambda lib: [1, [2, 3]]),
    ("list-in-float-leaf", lambda lib: [1.5, [2, 3]]),
    ("multi-elem-tensors", lambda lib: [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])]),
    ("str", lambda lib: "a"), ("str-in-list", lambda lib: ["a"]),
    ("none", lambda lib: None), ("none-in-list", lambda lib: [None]),
    ("dict", lambda lib: {1: 2}), ("object", lambda lib: object()),
    ("float-in-int-requires-grad", lambda lib: "requires_grad"),
]


@pytest.mark.parametrize("data", [d[1] for d in BAD_DATA], ids=[d[0] for d in BAD_DATA])
def test_tensor_errors(torch, data):
    def fn(lib):
        d = data(lib)
        if d == "requires_grad":
            return lib.tensor([1, 2], requires_grad=True)
        return lib.tensor(d)
    check_error(fn)


def test_as_tensor_shares_when_it_can(torch):
    def fn(lib):
        a = np.zeros(3)
        same = lib.as_tensor(a)
        converted = lib.as_tensor(a, dtype=lib.float32)
        a[0] = 7
        t = lib.ones(2)
        return same, converted, lib.as_tensor(t) is t, lib.as_tensor([1, 2]),
    check_same(fn)


# ---- from_numpy ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8, np.uint8,
                                   np.bool_, np.complex64, np.float16, np.int16, np.int32])
def test_from_numpy_shares_memory(torch, dtype):
    def fn(lib):
        a = np.zeros((2, 3), dtype)
        t = lib.from_numpy(a)
        a[1, 2] = 1
        t[0, 0] = 1
        return t, a.tolist(), t.is_leaf, t.requires_grad
    check_same(fn)


def test_from_numpy_keeps_strides(torch):
    def fn(lib):
        a = np.arange(12.0).reshape(3, 4)
        return [(t.stride(), t.is_contiguous(), t) for t in
                (lib.from_numpy(a.T), lib.from_numpy(a[:, ::2]), lib.from_numpy(a[1]))]
    check_same(fn)


@pytest.mark.parametrize("bad", [lambda: [1, 2], lambda: np.array(["a"]),
                                 lambda: np.array([1], object), lambda: 3.0],
                         ids=["list", "str", "object", "float"])
def test_from_numpy_errors(torch, bad):
    check_error(lambda lib: lib.from_numpy(bad()))


# ---- filled tensors ------------------------------------------------------------------------
FILLED = [
    ("zeros", lambda lib: lib.zeros(2, 3)), ("zeros-tuple", lambda lib: lib.zeros((2, 3))),
    ("zeros-list", lambda lib: lib.zeros([4])), ("zeros-size", lambda lib: lib.zeros(
        lib.ones(2, 1).shape)), ("zeros-0d", lambda lib: lib.zeros(())),
    ("zeros-empty", lambda lib: lib.zeros(0, 3)),
    ("ones-int", lambda lib: lib.ones(2, dtype=lib.int32)),
    ("ones-bool", lambda lib: lib.ones(2, 2, dtype=lib.bool)),
    ("empty-shape", lambda lib: lib.empty(2, 3).shape),
    ("full-int", lambda lib: lib.full((2,), 7)), ("full-float", lambda lib: lib.full((2,), 1.5)),
    ("full-bool", lambda lib: lib.full((2,), True)),
    ("full-complex", lambda lib: lib.full((1,), 1j)),
    ("full-int-size", lambda lib: lib.full([2, 2], -1.0, dtype=lib.float64)),
    ("full-0d-tensor", lambda lib: lib.full((2,), lib.tensor(2.5))),
    ("requires-grad", lambda lib: lib.ones(2, requires_grad=True)),
    ("zeros-like", lambda lib: lib.zeros_like(lib.ones(2, 3, dtype=lib.int16))),
    ("ones-like-dtype", lambda lib: lib.ones_like(lib.ones(2), dtype=lib.float64)),
    ("full-like", lambda lib: lib.full_like(lib.ones(2, dtype=lib.int32), 2.7)),
    ("empty-like", lambda lib: lib.empty_like(lib.ones(2, 3, dtype=lib.uint8)).dtype),
    ("like-of-view", lambda lib: lib.zeros_like(lib.ones(2, 3).t()).stride()),
    ("like-requires-grad", lambda lib: lib.ones_like(lib.ones(2), requires_grad=True)),
    ("new-zeros", lambda lib: lib.ones(2, dtype=lib.int8).new_zeros(3)),
    ("new-ones", lambda lib: lib.ones(2, dtype=lib.float64).new_ones((2, 2))),
    ("new-full", lambda lib: lib.ones(1, dtype=lib.int16).new_full((2,), 3.9)),
    ("new-empty", lambda lib: lib.ones(1, dtype=lib.float16).new_empty(2).dtype),
    ("new-tensor", lambda lib: lib.ones(1, dtype=lib.float64).new_tensor([1, 2])),
    ("new-tensor-dtype", lambda lib: lib.ones(1).new_tensor([1.5], dtype=lib.int32)),
    ("new-requires-grad", lambda lib: lib.ones(1).new_zeros(2, requires_grad=True)),
    ("eye", lambda lib: lib.eye(3)), ("eye-rect", lambda lib: lib.eye(2, 4)),
    ("eye-int", lambda lib: lib.eye(3, dtype=lib.int64)),
    ("eye-0", lambda lib: lib.eye(0)),
]


@pytest.mark.parametrize("make", [f[1] for f in FILLED], ids=[f[0] for f in FILLED])
def test_filled(torch, make):
    check_same(make)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.zeros(-1), lambda lib: lib.zeros(2, 1.5), lambda lib: lib.ones("a"),
    lambda lib: lib.zeros(2, dtype=lib.int64, requires_grad=True),
    lambda lib: lib.full((2,), 1, requires_grad=True),
    lambda lib: lib.ones(1).new_zeros(2, dtype=lib.int64, requires_grad=True),
    lambda lib: lib.eye(-1), lambda lib: lib.eye(2, -1), lambda lib: lib.eye(2.5),
    lambda lib: lib.zeros(2, -3), lambda lib: lib.ones(-1, -2), lambda lib: lib.empty(2, -1),
    lambda lib: lib.full([2, -1], 1.0), lambda lib: lib.full(2, 1.0),
    lambda lib: lib.ones((2.0,)), lambda lib: lib.ones(2, 3.0), lambda lib: lib.zeros(1.5),
    lambda lib: lib.zeros(None), lambda lib: lib.zeros(True), lambda lib: lib.zeros([2, "a"]),
    lambda lib: lib.zeros_like([1]),
], ids=["negative", "float-size", "str-size", "int-requires-grad", "full-int-grad",
        "new-int-grad", "eye-negative", "eye-m-negative", "eye-float", "zeros-negative",
        "ones-negative", "empty-negative", "full-negative", "full-int-size", "float-first",
        "float-second", "float-alone", "none", "bool", "str-in-list", "like-not-tensor"])
def test_filled_errors(torch, fn):
    check_error(fn)


# ---- ranges --------------------------------------------------------------------------------
def _range_cases(seed=0, n=60):
    """(start, end, steps) triples: fixed awkward ones, then random ones."""
    cases = [(0, 1, 5), (-1, 1, 2), (0.1, 0.7, 7), (3, -2.5, 11), (1e-3, 1e3, 50),
             (-7.3, 11.9, 101), (2.5, 2.5, 4), (1 / 3, 2 / 3, 100), (0, 10, 1), (0, 1, 0),
             (-100.25, 33.1, 257), (5, 0, 1000)]
    rng = np.random.default_rng(seed)
    for _ in range(n):
        cases.append((float(rng.uniform(-100, 100)), float(rng.uniform(-100, 100)),
                      int(rng.integers(1, 300))))
    return cases


RANGE_DTYPES = ["float32", "float64", "float16", "int64", "int32"]


def _exact(lib_fn, torch):
    """Both libraries give bit-identical values and the same dtype (or the same error)."""
    try:
        ref = lib_fn(torch)
    except (RuntimeError, ValueError):
        check_error(lib_fn)
        return
    mine = lib_fn(numtorch)
    assert str(mine.dtype) == str(ref.dtype)
    np.testing.assert_array_equal(mine.numpy(), ref.numpy())


@pytest.mark.parametrize("dtype", RANGE_DTYPES)
def test_linspace_rounding(torch, dtype):
    for start, end, steps in _range_cases():
        _exact(lambda lib: lib.linspace(start, end, steps, dtype=getattr(lib, dtype)), torch)


@pytest.mark.parametrize("dtype", RANGE_DTYPES)
def test_logspace_rounding(torch, dtype):
    for start, end, steps in _range_cases(seed=1):
        _exact(lambda lib: lib.logspace(start / 40, end / 40, steps,
                                        dtype=getattr(lib, dtype)), torch)
        _exact(lambda lib: lib.logspace(start / 20, end / 20, steps, base=2.0,
                                        dtype=getattr(lib, dtype)), torch)


@pytest.mark.parametrize("dtype", RANGE_DTYPES)
def test_arange_rounding(torch, dtype):
    for start, end, steps in _range_cases(seed=2):
        step = (end - start) / max(steps, 1) if end != start else 1.0
        _exact(lambda lib: lib.arange(start, end, step, dtype=getattr(lib, dtype)), torch)


@pytest.mark.parametrize("args", [(5,), (2, 9), (2, 9, 3), (9, 2, -2), (-1, 1, 7), (0, 0),
                                  (0.5, 3), (0, 1, 0.1), (1, 2.5, 0.5), (10, 0, -0.3),
                                  (0, 1e-3, 1e-5)], ids=str)
def test_arange_default_dtypes(torch, args):
    _exact(lambda lib: lib.arange(*args), torch)


def test_arange_with_tensor_bounds_and_int_dtype(torch):
    _exact(lambda lib: lib.arange(lib.tensor(3)), torch)
    _exact(lambda lib: lib.arange(0.3, 2.9, 0.7, dtype=lib.int32), torch)
    _exact(lambda lib: lib.arange(0.5, 2.5, dtype=lib.int64), torch)
    _exact(lambda lib: lib.linspace(2.7, 9.1, 5, dtype=lib.int64), torch)
    _exact(lambda lib: lib.linspace(-1, 3, 3, dtype=lib.uint8), torch)
    _exact(lambda lib: lib.linspace(1 + 1j, 2, 3), torch)
    _exact(lambda lib: lib.logspace(0, 400, 3, dtype=lib.float64), torch)


def test_default_dtype_float64_ranges(torch):
    def fn(lib):
        lib.set_default_dtype(lib.float64)
        try:
            return lib.arange(0.5, 2), lib.linspace(0, 1, 3), lib.logspace(0, 1, 2)
        finally:
            lib.set_default_dtype(lib.float32)
    check_same(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.arange(0, 5, 0), lambda lib: lib.arange(0, 5, -1),
    lambda lib: lib.arange(0, float("inf")), lambda lib: lib.arange(3, dtype=lib.bool),
    lambda lib: lib.arange(0, 2.5, 0.5, dtype=lib.int64),
    lambda lib: lib.linspace(0, 1, -1), lambda lib: lib.linspace(0, 1, 3, dtype=lib.bool),
    lambda lib: lib.linspace(-300, 3, 3, dtype=lib.int8),
    lambda lib: lib.linspace(float("nan"), 1, 3, dtype=lib.int32),
    lambda lib: lib.logspace(0, 1, 3, dtype=lib.bool),
], ids=["step-0", "wrong-sign", "inf", "bool", "int-step-truncates-to-0", "negative-steps",
        "linspace-bool", "overflow", "nan-int", "logspace-bool"])
def test_range_errors(torch, fn):
    check_error(fn)


def test_linspace_steps_must_be_int(torch):
    # NOTE: PyTorch's message lists every overload; numtorch names the argument instead
    for lib in (numtorch, torch):
        with pytest.raises(TypeError):
            lib.linspace(0, 1, 2.5)


@pytest.mark.parametrize("data", ["a", ["a"], [1, "a"], [[1], ["a"]], b"a", [b"a"]],
                         ids=["str", "list-str", "int-str", "nested", "bytes", "list-bytes"])
def test_tensor_of_strings_errors(data):
    check_error(lambda lib: lib.tensor(data))


OVERFLOW_CASES = [
    ("fill_-int8", lambda lib: lib.zeros(2, dtype=lib.int8).fill_(300)),
    ("fill_-half", lambda lib: lib.zeros(2, dtype=lib.float16).fill_(1e6)),
    ("fill_-uint8-wraps", lambda lib: lib.zeros(2, dtype=lib.uint8).fill_(-1)),
    ("fill_-int-float", lambda lib: lib.zeros(2, dtype=lib.int64).fill_(2.7)),
    ("masked_fill", lambda lib: lib.zeros(2, dtype=lib.int8).masked_fill(
        lib.tensor([True, False]), 300)),
    ("index_fill", lambda lib: lib.zeros(2, dtype=lib.int8).index_fill(0, lib.tensor([0]),
                                                                         300)),
    ("clamp", lambda lib: lib.tensor([1, 2], dtype=lib.int8).clamp(max=300)),
    ("clamp-float-bound", lambda lib: lib.tensor([1, 2], dtype=lib.int8).clamp(max=3.5)),
    ("where", lambda lib: lib.where(lib.tensor([True, False]), lib.zeros(2, dtype=lib.int8),
                                    300)),
    ("where-float", lambda lib: lib.where(lib.tensor([True, False]),
                                          lib.zeros(2, dtype=lib.int8), 3.5)),
    ("add-wraps", lambda lib: lib.zeros(2, dtype=lib.int8) + 300),
    ("tensor-of-int-tensors", lambda lib: lib.tensor([lib.tensor([1, 2]), lib.tensor([3, 4])])),
    ("tensor-of-float-tensors", lambda lib: lib.tensor([lib.tensor([1.0, 2]),
                                                        lib.tensor([3.0, 4])])),
    ("zeros-size-kw", lambda lib: lib.zeros(size=(2,))),
    ("ones-size-kw", lambda lib: lib.ones(size=[2, 1])),
    ("zeros-size-twice", lambda lib: lib.zeros(2, size=(2,))),
    ("from_numpy-big-endian", lambda lib: lib.from_numpy(np.array([1, 2], dtype=">i4"))),
]


@pytest.mark.parametrize("name, fn", OVERFLOW_CASES, ids=[c[0] for c in OVERFLOW_CASES])
def test_checked_scalar_conversions(name, fn):
    check_same_outcome(fn)


@pytest.mark.parametrize("key", [0, [0, 1], slice(1, None)])
def test_setitem_overflow(torch, key):
    def put(lib):
        x = lib.zeros(3, dtype=lib.int8)
        x[key] = 300
    check_error(put)
