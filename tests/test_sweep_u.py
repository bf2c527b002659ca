"""Regression tests from the sweep of the legacy constructors (sweep U): ``torch.Tensor(...)``,
``torch.FloatTensor(...)`` and friends, ``Tensor.new``/``new_*``, ``Tensor.type``, and the
NumPy arrays they are made from, against PyTorch."""
import warnings

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, check_same_outcome


def _outcome(fn, lib):
    """``fn(lib)``'s repr (and requires_grad), or its exception's type name and message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(lib)
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e)
    return repr(out), getattr(out, "requires_grad", None)


def _same(fn, torch):
    assert _outcome(fn, numtorch) == _outcome(fn, torch)


# ---- keywords: only device= (and the argument's own name) --------------------------------
LEGACY_CALLS = [
    lambda t: t.Tensor([1.], dtype=t.float64),
    lambda t: t.Tensor([1.], requires_grad=True),
    lambda t: t.FloatTensor([1], dtype=t.float64),
    lambda t: t.LongTensor([1], requires_grad=True),
    lambda t: t.Tensor(2, 3, requires_grad=True),
    lambda t: t.Tensor(2, 3, 4, requires_grad=True),
    lambda t: t.Tensor([1.], dtype=t.float64, requires_grad=True),
    lambda t: t.Tensor(dtype=t.float64),
    lambda t: t.Tensor(foo=1),
    lambda t: t.Tensor(3, device=None, foo=2),
    lambda t: t.Tensor(device="cpu", foo=1),
    lambda t: t.Tensor([1], data=[2]),
    lambda t: t.Tensor(data=[1], device="cpu"),
    lambda t: t.Tensor(data=2),
    lambda t: t.Tensor(data=t.ones(2)),
    lambda t: t.Tensor(size=[2, 3], device="cpu").shape,
    lambda t: t.Tensor(size=2),
    lambda t: t.Tensor(size=[2.5]),
    lambda t: t.Tensor(other=t.ones(1)),
    lambda t: t.Tensor(other=[1, 2]),
    lambda t: t.Tensor(size=(2,), data=[1]),
    lambda t: t.ones(2).new([1], dtype=t.long),
    lambda t: t.ones(2).new(2, 3, requires_grad=True),
]


@pytest.mark.parametrize("fn", LEGACY_CALLS)
def test_legacy_keywords(torch, fn):
    _same(fn, torch)


# ---- positional arguments no overload takes, devices --------------------------------------
POSITIONAL_CALLS = [
    lambda t: t.Tensor([2, 3], [1]),
    lambda t: t.Tensor([1], "cpu"),
    lambda t: t.Tensor(t.ones(2), t.ones(2)),
    lambda t: t.Tensor(t.ones(2), 3),
    lambda t: t.Tensor(2.0, 3),
    lambda t: t.Tensor(True, 2),
    lambda t: t.Tensor(np.bool_(True), 3),
    lambda t: t.Tensor([1, 2], None),
    lambda t: t.Tensor(t.tensor(2), 3).shape,
    lambda t: t.Tensor(t.tensor([2]), 3).shape,
    lambda t: t.Tensor(2, np.int32(3)).shape,
    lambda t: t.Tensor(2, "a"),
    lambda t: t.Tensor(t.ones(2), device="cpu"),
    lambda t: t.Tensor(t.ones(2), device=None),
    lambda t: t.Tensor(other=t.ones(1), device="cpu"),
    lambda t: t.LongTensor(t.ones(2), device="cpu"),
    lambda t: t.ones(2).new(t.ones(2), device="cpu"),
    lambda t: t.Tensor([1, 2], device="cuda"),
    lambda t: t.Tensor(2, device="meta"),
    lambda t: t.ones(2).new([1], device="cuda"),
    lambda t: t.Tensor([1], device=0),
    lambda t: t.Tensor(3, device="cpu:0").shape,
]


@pytest.mark.parametrize("fn", POSITIONAL_CALLS)
def test_legacy_positional(torch, fn):
    _same(fn, torch)


# ---- a tensor argument gives an alias of it -------------------------------------------------
def test_tensor_argument_is_an_alias(torch):
    def fn(lib):
        a = lib.arange(3.)
        b = lib.Tensor(a)
        b[0] = 9
        return a, a._version, b._version, b._base is a, b is a
    check_same(fn, exact=True)


@pytest.mark.parametrize("ctor", ["Tensor", "FloatTensor", "new"])
def test_tensor_argument_alias_in_graph(torch, ctor):
    def fn(lib):
        y = lib.ones(2, requires_grad=True)
        z = y.new(y) if ctor == "new" else getattr(lib, ctor)(y)
        z.sum().backward()
        return repr(z), z.is_leaf, y.grad
    check_same(fn, exact=True)


def test_subclass_constructor_and_repr(torch):
    def fn(lib):
        class MyT(lib.Tensor):
            pass
        y = lib.ones(2, requires_grad=True)
        return repr(MyT([1, 2])), type(MyT(y)).__name__, repr(MyT(y))
    check_same(fn, exact=True)


# ---- data of the wrong kind with a dtype given ------------------------------------------------
BAD_DATA = [None, "a", [None], ["a"], [1, None], [1, "a"], [[1], [None]], [1, {}],
            [1, np.float32(2)], [1, [2]]]


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64", "uint8"])
@pytest.mark.parametrize("data", BAD_DATA, ids=repr)
def test_tensor_bad_leaves_with_dtype(torch, dtype, data):
    _same(lambda lib: lib.tensor(data, dtype=getattr(lib, dtype)), torch)


@pytest.mark.parametrize("ctor", ["Tensor", "LongTensor", "BoolTensor"])
@pytest.mark.parametrize("data", [[1, None], ["a"], [1, "a"]], ids=repr)
def test_legacy_bad_leaves(torch, ctor, data):
    _same(lambda lib: getattr(lib, ctor)(data), torch)


# ---- new_* -------------------------------------------------------------------------------------
NEW_CALLS = [
    lambda t: t.ones(2).new_zeros(),
    lambda t: t.ones(2).new_ones(),
    lambda t: t.ones(2).new_empty(),
    lambda t: t.ones(2).new_tensor(),
    lambda t: t.ones(2).new_full(),
    lambda t: t.ones(2).new_zeros(2, device="cuda"),
    lambda t: t.ones(2).new_tensor([1], device="cuda"),
    lambda t: t.ones(2).new_full((2,), 1, device="cuda"),
    lambda t: t.ones(2).new_tensor("a"),
    lambda t: t.ones(2).new_tensor(None),
    lambda t: t.ones(2).new_tensor([1], foo=1),
    lambda t: t.ones(2).new_full((2,), "a"),
    lambda t: t.ones(2).new_full((2,), t.tensor([3.])),
    lambda t: t.ones(2).new_full((2,), t.tensor(3.)),
    lambda t: t.full((2,), t.tensor([3.])),
    lambda t: t.ones(2, requires_grad=True).new_tensor([1., 2.]),
]


@pytest.mark.parametrize("fn", NEW_CALLS)
def test_new_factories(torch, fn):
    _same(fn, torch)


def test_new_tensor_from_tensor_warns():
    x = numtorch.ones(2)
    with pytest.warns(UserWarning, match=r"rather than tensor\.new_tensor\(sourceTensor\)") as rec:
        x.new_tensor(numtorch.ones(2))
    assert rec[0].filename == __file__


# ---- Tensor.type ---------------------------------------------------------------------------------
TYPE_CALLS = [
    lambda t: t.arange(3).type(t.Tensor),
    lambda t: t.arange(3).type("torch.Tensor"),
    lambda t: t.arange(3).type(t.nn.Parameter),
    lambda t: t.arange(3).type(np.float32),
    lambda t: t.arange(3).type(str),
    lambda t: t.arange(3).type("torch.float32"),
    lambda t: t.arange(3).type("torch.ComplexFloatTensor"),
    lambda t: t.arange(3).type(1.5),
    lambda t: t.arange(3).type([1]),
    lambda t: t.arange(3).type(3),
    lambda t: t.arange(3).type(t.FloatTensor, foo=1),
    lambda t: t.arange(3).type(t.FloatTensor, non_blocking=True),
    lambda t: t.zeros(2, dtype=t.complex64).type(t.zeros(2, dtype=t.complex64).type()),
]


@pytest.mark.parametrize("fn", TYPE_CALLS)
def test_type(torch, fn):
    _same(fn, torch)


# ---- NumPy arrays: shared by the legacy constructors, checked as PyTorch does ---------------
@pytest.mark.parametrize("ctor,npdt", [("DoubleTensor", "float64"), ("LongTensor", "int64"),
                                       ("IntTensor", "int32"), ("Tensor", "float32"),
                                       ("Tensor", "float64"), ("new", "float32")])
def test_legacy_numpy_sharing(torch, ctor, npdt):
    def fn(lib):
        a = np.arange(4).astype(npdt)[::2]
        t = lib.ones(1).new(a) if ctor == "new" else getattr(lib, ctor)(a)
        a[0] = 7
        return t
    check_same(fn, exact=True)


@pytest.mark.parametrize("make", ["tensor", "as_tensor", "asarray", "from_numpy", "Tensor",
                                  "DoubleTensor"])
@pytest.mark.parametrize("arr", [np.arange(6.).reshape(2, 3)[::-1],
                                 np.arange(6.).reshape(2, 3)[:, ::-1], np.arange(1.)[::-1],
                                 np.arange(0.)[::-1], np.arange(2.).astype(">f8")],
                         ids=["rows", "cols", "one", "empty", "big-endian"])
def test_numpy_negative_strides_and_byte_order(torch, make, arr):
    check_same_outcome(lambda lib: getattr(lib, make)(arr))


def test_tensor_from_negative_strides_with_dtype(torch):
    check_error(lambda lib: lib.tensor(np.arange(3.)[::-1], dtype=lib.float32))


def test_readonly_numpy_warns_once_where_shared(monkeypatch):
    from numtorch import _creation
    ro = np.arange(3.)
    ro.flags.writeable = False
    monkeypatch.setattr(_creation, "_WARNED_ONCE", {})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numtorch.tensor(ro)  # a copy: no warning
    with pytest.warns(UserWarning, match="The given NumPy array is not writable") as rec:
        numtorch.DoubleTensor(ro)
    assert rec[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numtorch.from_numpy(ro)  # suppressed for the rest of the program
