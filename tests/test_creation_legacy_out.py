"""out= on the creation functions, the legacy typed constructors (torch.LongTensor ...),
torch.Tensor(...) / Tensor.new(...) and torch.Size arithmetic, against PyTorch."""
import doctest
import warnings

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same


# ---- out= -----------------------------------------------------------------------------------
OUT_CALLS = {
    "zeros": lambda L, o: L.zeros(2, out=o),
    "ones-resize": lambda L, o: L.ones(2, 2, out=o),
    "empty": lambda L, o: L.empty(3, out=o).shape,
    "full": lambda L, o: L.full((3,), 2, out=o),
    "arange": lambda L, o: L.arange(3, out=o),
    "arange-float": lambda L, o: L.arange(0, 1, 1 / 3, out=o),
    "linspace": lambda L, o: L.linspace(0, 1, 4, out=o),
    "logspace": lambda L, o: L.logspace(0, 2, 3, out=o),
    "eye": lambda L, o: L.eye(2, out=o),
}


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize("name", OUT_CALLS)
def test_out_is_written_in_its_dtype(name, dtype):
    def run(lib):
        out = lib.zeros(3, dtype=getattr(lib, dtype))
        res = OUT_CALLS[name](lib, out)
        return res is out if res is out else res, out, out._version > 0
    check_same(run, exact=True)


def test_range_into_out_of_the_same_count_keeps_its_shape():
    check_same(lambda L: L.arange(4., out=L.zeros(2, 2)), exact=True)
    check_same(lambda L: L.linspace(0, 1, 6, out=L.zeros(3, 2)), exact=True)


def test_arange_warns_when_it_resizes_out(torch):
    with pytest.warns(UserWarning) as ref:
        torch.arange(5, out=torch.zeros(3))
    with pytest.warns(UserWarning) as mine:
        numtorch.arange(5, out=numtorch.zeros(3))
    assert str(mine[0].message) == str(ref[0].message)
    assert mine[0].filename == __file__


def test_out_of_a_view_writes_the_base():
    def run(lib):
        base = lib.zeros(4)
        lib.ones(2, out=base[1:3])
        return base
    check_same(run, exact=True)


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(2, out=L.zeros(2, dtype=L.int32), dtype=L.float32),
    lambda L: L.arange(3, out=L.zeros(3, dtype=L.float64), dtype=L.float32),
    lambda L: L.linspace(0, 1, 3, out=L.zeros(3, dtype=L.float64), dtype=L.float32),
    lambda L: L.eye(2, out=L.zeros(2, dtype=L.int32), dtype=L.float32),
    lambda L: L.full((2,), 1., out=L.zeros(2, dtype=L.int32), dtype=L.float32),
    lambda L: L.zeros(2, out=L.zeros(2, requires_grad=True)),
    lambda L: L.full((2,), "a"),
])
def test_creation_errors(call):
    check_error(call)


# ---- legacy typed constructors --------------------------------------------------------------
LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
          "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_constructors(name):
    check_same(lambda L: getattr(L, name)([1.7, 0, -2.2] if name != "ByteTensor" else [1, 0]),
               exact=True)
    check_same(lambda L: getattr(L, name)(2, 3).shape, exact=True)
    check_same(lambda L: getattr(L, name)(), exact=True)
    check_same(lambda L: (isinstance(getattr(L, name)(1), getattr(L, name)),
                          isinstance(L.zeros(1, dtype=L.float32), getattr(L, name)),
                          getattr(L, name).dtype, getattr(L, name).__name__,
                          str(getattr(L, name)), type(getattr(L, name)(1)).__name__,
                          L.zeros(2).type(getattr(L, name))), exact=True)


@pytest.mark.parametrize("call", [
    lambda L: L.FloatTensor(L.tensor([1, 2])),
    lambda L: L.LongTensor(3.5),
    lambda L: L.Tensor(True),
    lambda L: L.Tensor(None),
    lambda L: L.Tensor("ab"),
    lambda L: L.Tensor(np.float64(2.0)),
    lambda L: L.Tensor(-1),
    lambda L: L.Tensor(2, 3.0),
    lambda L: L.tensor([1], dtype=L.int32).new(L.tensor([1.])),
])
def test_legacy_constructor_errors(call):
    check_error(call)


@pytest.mark.parametrize("call", [
    lambda L: L.Tensor(L.tensor([1, 2])),
    lambda L: L.Tensor(np.array([1, 2])),
    lambda L: L.Tensor(range(3)),
    lambda L: L.Tensor(L.Size([2])).shape,
    lambda L: L.LongTensor(L.Size([2])).shape,
    lambda L: L.DoubleTensor(L.tensor([1.], dtype=L.float64)),
    lambda L: L.tensor([1, 2], dtype=L.int32).new([1.5, 2]),
    lambda L: L.tensor([1, 2], dtype=L.int32).new(2, 3).shape,
    lambda L: L.tensor([1, 2], dtype=L.int32).new(),
])
def test_tensor_from_data_or_sizes(call):
    check_same(call, exact=True)


# ---- asarray ----------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda L, t: L.asarray(t) is t,
    lambda L, t: L.asarray(t, dtype=L.float64),
    lambda L, t: L.asarray(t, requires_grad=True) is t and t.requires_grad,
    lambda L, t: L.asarray([1.5, 2], dtype=L.int64),
    lambda L, t: L.asarray(np.array([1, 2], dtype=np.int32), dtype=L.float32),
    lambda L, t: (L.asarray(3), L.asarray(True), L.asarray(2.5, requires_grad=True)),
])
def test_asarray(call):
    check_same(lambda L: call(L, L.tensor([1., 2.])), exact=True)


def test_asarray_shares_or_copies_as_asked():
    def run(lib):
        a, t = np.array([1., 2.]), lib.tensor([1., 2.])
        shared, copied, cast = lib.asarray(a), lib.asarray(a, copy=True), lib.asarray(t, copy=True)
        a[0] = t[1] = 9
        return shared, copied, cast
    check_same(run, exact=True)


def test_asarray_copy_of_a_graph_tensor(torch):
    def run(lib):
        x = lib.tensor([1.], requires_grad=True)
        kept, dropped = lib.asarray(x, copy=True), lib.asarray(x, copy=True, requires_grad=False)
        return type(kept.grad_fn).__name__, dropped.requires_grad, dropped.grad_fn
    with warnings.catch_warnings():  # the unset-requires_grad warning (once per process)
        warnings.simplefilter("ignore", UserWarning)
        check_same(run, exact=True)


@pytest.mark.parametrize("call", [
    lambda L: L.asarray(L.ones(2), dtype=L.float64, copy=False),
    lambda L: L.asarray(np.ones(2), dtype=L.float32, copy=False),
    lambda L: L.asarray([1, 2], copy=False),
    lambda L: L.asarray([1, 2], requires_grad=True),
])
def test_asarray_errors(call):
    check_error(call)


# ---- torch.Size --------------------------------------------------------------------------------
@pytest.mark.parametrize("expr", ["s * 2", "2 * s", "s * 0", "s + (5,)", "(1,) + s", "s[1:]",
                                  "s + [1]", "s * 1.5", "1.5 * s"])
def test_size_arithmetic(torch, expr):
    def run(lib):
        s = lib.Size([2, 3])
        try:
            r = eval(expr)
        except TypeError as e:
            return "TypeError", str(e)
        return repr(r), type(r).__name__
    assert run(numtorch) == run(torch)


def test_docstring_examples():
    from numtorch import _legacy_types
    assert doctest.testmod(_legacy_types).failed == 0
