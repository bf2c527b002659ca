"""dtypes and PyTorch's type promotion, checked over every pair of dtypes."""
import copy
import itertools
import pickle
import warnings

import numpy as np
import pytest

import numtorch
from numtorch import _dtype as D
from helpers import check_error, check_same, check_same_outcome, dtype_name

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
         "complex64", "complex128"]
PAIRS = list(itertools.product(NAMES, NAMES))
SCALARS = [True, 3, 2.5, 1 + 2j]


@pytest.fixture(autouse=True)
def _default_dtype_restored():
    yield
    numtorch.set_default_dtype(numtorch.float32)


def _tensor(lib, name, ndim):
    """A tensor of dtype ``name``: 1-d ([1, 1]) or 0-d (1)."""
    shape = (2,) * ndim
    return lib.ones(shape, dtype=getattr(lib, name))


def _mismatches(fn, torch, cases):
    """The cases where ``fn(lib, *case)`` differs between numtorch and torch."""
    bad = []
    for case in cases:
        ref = _torch_result(fn, torch, case)
        if ref is None:
            continue  # torch refuses this case: the op tests compare the errors
        mine, ref = dtype_name(fn(numtorch, *case)), dtype_name(ref)
        # NOTE: NumPy has no complex32; numtorch uses complex64 where PyTorch uses it
        if mine != ref and (mine, ref) != ("complex64", "complex32"):
            bad.append((case, mine, ref))
    return bad


def _torch_result(fn, torch, case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "ComplexHalf support is experimental"
        try:
            return fn(torch, *case)
        except (RuntimeError, NotImplementedError):
            return None


def test_promote_types_all_pairs(torch):
    fn = lambda lib, a, b: lib.promote_types(getattr(lib, a), getattr(lib, b))  # noqa: E731
    assert _mismatches(fn, torch, PAIRS) == []


@pytest.mark.parametrize("ndim_a, ndim_b", [(1, 1), (1, 0), (0, 1), (0, 0)])
def test_result_type_tensor_pairs(torch, ndim_a, ndim_b):
    def fn(lib, a, b):
        return lib.result_type(_tensor(lib, a, ndim_a), _tensor(lib, b, ndim_b))
    assert _mismatches(fn, torch, PAIRS) == []


@pytest.mark.parametrize("ndim", [1, 0])
def test_result_type_with_python_scalars(torch, ndim):
    def fn(lib, a, s):
        return lib.result_type(_tensor(lib, a, ndim), s)
    assert _mismatches(fn, torch, itertools.product(NAMES, SCALARS)) == []


@pytest.mark.parametrize("default", ["float64", "float16"])
def test_result_type_follows_default_dtype(torch, default):
    def fn(lib, a, s):
        old = lib.get_default_dtype()
        lib.set_default_dtype(getattr(lib, default))
        try:
            return lib.result_type(_tensor(lib, a, 1), s)
        finally:
            lib.set_default_dtype(old)
    assert _mismatches(fn, torch, itertools.product(NAMES, SCALARS)) == []


@pytest.mark.parametrize("op", ["add", "mul", "div", "eq", "maximum", "where"])
def test_binary_ops_promote_like_torch(torch, op):
    """The dtype that ops (not just result_type) produce, for tensors of every dtype pair."""
    def fn(lib, a, b, ndim_b):
        x, y = _tensor(lib, a, 1), _tensor(lib, b, ndim_b)
        if op == "where":
            return lib.where(lib.ones(2, dtype=lib.bool), x, y).dtype
        return getattr(lib, op)(x, y).dtype
    cases = [(a, b, nd) for a, b in PAIRS for nd in (1, 0)]
    assert _mismatches(fn, torch, cases) == []


@pytest.mark.parametrize("op", ["add", "mul", "div", "sub", "pow", "eq", "remainder"])
def test_scalar_operands_promote_like_torch(torch, op):
    def fn(lib, a, s, reflected):
        x = _tensor(lib, a, 1)
        if reflected:
            return {"add": lambda: s + x, "mul": lambda: s * x, "div": lambda: s / x,
                    "sub": lambda: s - x, "pow": lambda: s ** x, "eq": lambda: s == x,
                    "remainder": lambda: s % x}[op]().dtype
        return getattr(lib, op)(x, s).dtype
    cases = itertools.product(NAMES, SCALARS, (False, True))
    assert _mismatches(fn, torch, cases) == []


def test_can_cast_all_pairs(torch):
    bad = [(a, b) for a, b in PAIRS
           if numtorch.can_cast(getattr(numtorch, a), getattr(numtorch, b))
           != torch.can_cast(getattr(torch, a), getattr(torch, b))]
    assert bad == []


@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes(torch, name):
    check_same(lambda lib: (repr(getattr(lib, name)), getattr(lib, name).is_floating_point,
                            getattr(lib, name).is_complex, getattr(lib, name).is_signed,
                            getattr(lib, name).itemsize))


@pytest.mark.parametrize("alias", ["float", "double", "half", "long", "int", "short", "bool",
                                   "cfloat", "cdouble", "uint8", "int8"])
def test_dtype_aliases(torch, alias):
    assert repr(getattr(numtorch, alias)) == repr(getattr(torch, alias))


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128"])
def test_to_complex_and_real(torch, name):
    d, t = getattr(numtorch, name), getattr(torch, name)
    if name == "float16":  # NOTE: PyTorch's complex32 has no NumPy counterpart
        assert d.to_complex() is numtorch.complex64
    else:
        assert repr(d.to_complex()) == repr(t.to_complex())
    assert repr(d.to_real()) == repr(t.to_real())


@pytest.mark.parametrize("name", NAMES)
def test_dtype_identity_survives_copy_and_pickle(name):
    d = getattr(numtorch, name)
    assert pickle.loads(pickle.dumps(d)) is d
    assert copy.copy(d) is d and copy.deepcopy(d) is d


def test_default_dtype(torch):
    assert numtorch.get_default_dtype() is numtorch.float32
    numtorch.set_default_dtype(numtorch.float64)
    assert numtorch.tensor([1.5]).dtype is numtorch.float64
    assert numtorch.tensor([1j]).dtype is numtorch.complex128
    assert numtorch.ones(2).dtype is numtorch.float64
    assert (numtorch.tensor([1, 2]) * 0.5).dtype is numtorch.float64
    numtorch.set_default_dtype(numtorch.float32)
    assert numtorch.tensor([1j]).dtype is numtorch.complex64


@pytest.mark.parametrize("bad", ["int32", "bool", "complex64"])
def test_set_default_dtype_rejects(torch, bad):
    check_error(lambda lib: lib.set_default_dtype(getattr(lib, bad)))


@pytest.mark.parametrize("np_dtype, name", [(np.float32, "float32"), (np.int16, "int16"),
                                            (np.bool_, "bool"), (np.complex128, "complex128"),
                                            (np.uint8, "uint8")])
def test_numpy_dtype_mapping(np_dtype, name):
    assert D.from_numpy_dtype(np.dtype(np_dtype)) is getattr(numtorch, name)
    assert getattr(numtorch, name).np == np.dtype(np_dtype)


def test_numpy_dtype_without_torch_counterpart(torch):
    check_error(lambda lib: lib.from_numpy(np.array(["a"])))


def test_finfo_iinfo_match_torch(torch):
    check_same(lambda lib: [repr(lib.finfo(d)) for d in (lib.float16, lib.float32, lib.complex128)]
               + [repr(lib.finfo()), repr(lib.iinfo(lib.int64)), lib.iinfo(lib.uint8).bits,
                  lib.finfo(lib.float32).tiny, lib.finfo(lib.float16).resolution], exact=True)
    check_error(lambda lib: lib.iinfo(lib.float32))


# ---- dtype= arguments of the factories (PyTorch's parser: a dtype or float/int/bool/complex)
BAD_DTYPES = ["float32", np.float32, np.dtype("float32"), 3]
FACTORIES = {
    "tensor": lambda lib, d: lib.tensor([1, 2], dtype=d),
    "as_tensor": lambda lib, d: lib.as_tensor([1, 2], dtype=d),
    "zeros": lambda lib, d: lib.zeros(2, dtype=d),
    "ones": lambda lib, d: lib.ones((2, 2), dtype=d),
    "empty": lambda lib, d: lib.empty(0, dtype=d),
    "full": lambda lib, d: lib.full((2,), 1, dtype=d),
    "zeros_like": lambda lib, d: lib.zeros_like(lib.ones(2), dtype=d),
    "full_like": lambda lib, d: lib.full_like(lib.ones(2), 3, dtype=d),
    "new_zeros": lambda lib, d: lib.ones(2).new_zeros(2, dtype=d),
    "new_full": lambda lib, d: lib.ones(2).new_full((2,), 1, dtype=d),
    "new_tensor": lambda lib, d: lib.ones(2).new_tensor([1], dtype=d),
    "arange": lambda lib, d: lib.arange(3, dtype=d),
    "arange3": lambda lib, d: lib.arange(0, 5, 2, dtype=d),
    "linspace": lambda lib, d: lib.linspace(0, 1, 3, dtype=d),
    "logspace": lambda lib, d: lib.logspace(0, 1, 3, dtype=d),
    "eye": lambda lib, d: lib.eye(2, dtype=d),
    "rand": lambda lib, d: lib.rand(2, 3, dtype=d),
    "randn": lambda lib, d: lib.randn(2, dtype=d),
}


@pytest.mark.parametrize("bad", BAD_DTYPES, ids=["str", "np_type", "np_dtype", "int"])
@pytest.mark.parametrize("name", list(FACTORIES))
def test_factory_rejects_non_torch_dtype(name, bad):
    check_error(lambda lib: FACTORIES[name](lib, bad))


@pytest.mark.parametrize("py_type", [float, int, bool, complex])
@pytest.mark.parametrize("name", ["tensor", "zeros", "full", "zeros_like", "new_zeros",
                                  "linspace"])
def test_factory_takes_python_types_as_dtypes(torch, name, py_type):
    check_same_outcome(lambda lib: dtype_name(FACTORIES[name](lib, py_type).dtype))


@pytest.mark.parametrize("arg", [None, "float32", np.float32, np.dtype("float64"), 3])
def test_finfo_iinfo_reject_non_dtypes(arg):
    check_error(lambda lib: lib.finfo(arg))
    check_error(lambda lib: lib.iinfo(arg))


def test_finfo_iinfo_take_python_types(torch):
    check_same(lambda lib: (repr(lib.finfo(float)), repr(lib.iinfo(int)), repr(lib.finfo())))


@pytest.mark.parametrize("arg", [float, "float64", None, np.float64])
def test_set_default_dtype_rejects_non_dtypes(arg):
    check_error(lambda lib: lib.set_default_dtype(arg))
