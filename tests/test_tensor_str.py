"""Tensor printing compared character for character with PyTorch's ``repr``."""
import numpy as np
import pytest

import numtorch
from numtorch import _tensor_str as S

torch = pytest.importorskip("torch")

nan, inf = np.nan, np.inf
f16, f32, f64 = np.float16, np.float32, np.float64
c64, c128 = np.complex64, np.complex128


def _pair(arr, grad=""):
    """The same values as a torch and a numtorch tensor; grad is '', 'leaf' or 'mul'."""
    arr = np.asarray(arr)
    ref = torch.from_numpy(arr.copy())
    mine = numtorch.from_numpy(arr.copy())
    if not grad:
        return ref, mine
    ref.requires_grad_(True)
    mine.requires_grad_(True)
    if grad == "leaf":
        return ref, mine
    return ref * 1, mine * 1  # *1 keeps every value (nan, -0)


def _both_printoptions(**opts):
    torch.set_printoptions(**opts)
    numtorch.set_printoptions(**opts)


@pytest.fixture(autouse=True)
def _restore_state():
    yield
    _both_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    numtorch.set_default_dtype(numtorch.float32)


def _check(arr, grad="", **opts):
    ref, mine = _pair(arr, grad)
    _both_printoptions(**opts)
    assert repr(mine) == repr(ref)
    assert str(mine) == str(ref)


_rng = np.random.default_rng(1234)


def _randn(*shape, scale=1.0, dtype=f32):
    return (_rng.standard_normal(shape) * scale).astype(dtype)


# (id, array, grad, printoptions): one printing situation per line
CASES = [
    ("0d-float", np.array(3.25, f32), "", {}),
    ("0d-int-valued", np.array(-2.0, f32), "", {}),
    ("0d-int", np.array(7), "", {}),
    ("0d-bool", np.array(True), "", {}),
    ("0d-nan", np.array(nan, f32), "", {}),
    ("0d-f64", np.array(1e-7, f64), "", {}),
    ("0d-complex", np.array(1 - 2j, c64), "", {}),
    ("1d-plain", _randn(5), "", {}),
    ("1d-int-valued", np.array([1.0, 2.0, -30.0], f32), "", {}),
    ("1d-neg-zero", np.array([-0.0, 0.0, 1.0], f32), "", {}),
    ("1d-only-zeros", np.zeros(4, f32), "", {}),
    ("1d-nan-inf", np.array([nan, inf, -inf, 1.5, 0.0], f32), "", {}),
    ("1d-nan-inf-int", np.array([nan, -inf, 2.0], f32), "", {}),
    ("1d-only-nonfinite", np.array([nan, inf, -inf], f32), "", {}),
    ("1d-tiny", np.array([1e-10, 2e-10], f32), "", {}),
    ("1d-huge", np.array([1e10, -3e10], f32), "", {}),
    ("1d-ratio-sci", np.array([1.0, 1234.5], f32), "", {}),
    ("1d-int-sci", np.array([1.0, 1e9], f32), "", {}),
    ("1d-sci-e100", np.array([1e-120, 3.0, 1e150], f64), "", {}),
    ("1d-round-up", np.array([9.99995, -0.00004], f64), "", {}),
    ("1d-ints", np.array([1, -20, 300]), "", {}),
    ("1d-int64-extremes", np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max]), "", {}),
    ("1d-int32", np.array([1, 2], np.int32), "", {}),
    ("1d-int16", np.array([-1, 2], np.int16), "", {}),
    ("1d-int8", np.array([-128, 127], np.int8), "", {}),
    ("1d-uint8", np.array([0, 255], np.uint8), "", {}),
    ("1d-bool", np.array([True, False, True]), "", {}),
    ("1d-f16", np.array([0.1, 65504.0, -2.0], f16), "", {}),
    ("1d-f16-int", np.array([1.0, 2.0], f16), "", {}),
    ("1d-f64", _randn(4, dtype=f64), "", {}),
    ("1d-c64", np.array([1 + 2j, -3.5 - 0.25j, 0j], c64), "", {}),
    ("1d-c64-neg-zero-imag", np.array([complex(1.0, -0.0), 2j], c64), "", {}),
    ("1d-c128", np.array([1e-8 + 1j, 2 + 1e9j], c128), "", {}),
    ("1d-complex-nan", np.array([complex(nan, 1.0), complex(2.0, nan), complex(inf, -inf)], c64),
     "", {}),
    ("2d-plain", _randn(3, 4), "", {}),
    ("2d-mixed-sci", _randn(3, 3) * np.logspace(-6, 6, 9).reshape(3, 3).astype(f32), "", {}),
    ("3d-plain", _randn(2, 3, 4), "", {}),
    ("4d-plain", _randn(2, 2, 2, 3), "", {}),
    ("3d-ints", np.arange(24).reshape(2, 3, 4), "", {}),
    ("4d-complex", (_randn(2, 1, 2, 2) + 1j * _randn(2, 1, 2, 2)).astype(c64), "", {}),
    ("empty-1d", np.zeros(0, f32), "", {}),
    ("empty-1d-int", np.zeros(0, np.int64), "", {}),
    ("empty-1d-bool", np.zeros(0, bool), "", {}),
    ("empty-1d-c64", np.zeros(0, c64), "", {}),
    ("empty-0x3", np.zeros((0, 3), f32), "", {}),
    ("empty-2x0-int32", np.zeros((2, 0), np.int32), "", {}),
    ("empty-2x0x4-f64", np.zeros((2, 0, 4), f64), "", {}),
    ("wrap-1d", _randn(40), "", {}),
    ("wrap-2d", _randn(3, 25), "", {}),
    ("wrap-ints", np.arange(0, 100000, 997), "", {}),
    ("wrap-complex", (_randn(20) + 1j * _randn(20)).astype(c64), "", {}),
    ("summary-1d", np.arange(3000, dtype=f32), "", {}),
    ("summary-1d-int", np.arange(3000), "", {}),
    ("summary-2d", _randn(100, 100), "", {}),
    ("summary-3d", _randn(20, 30, 40), "", {}),
    ("summary-narrow-rows", _randn(2, 700), "", {}),
    ("summary-complex", (_randn(40, 40) + 1j * _randn(40, 40)).astype(c128), "", {}),
    ("summary-sci-hidden", np.r_[np.ones(500), 1e9, np.ones(1000)].astype(f32), "", {}),
    ("opt-precision2", _randn(2, 3), "", {"precision": 2}),
    ("opt-precision0", np.array([0.5, 1.5, 2.25], f32), "", {"precision": 0}),
    ("opt-sci-true", _randn(4), "", {"sci_mode": True}),
    ("opt-sci-true-int", np.array([1.0, 2.0], f32), "", {"sci_mode": True}),
    ("opt-sci-false", np.array([1e-8, 1e8], f32), "", {"sci_mode": False}),
    ("opt-linewidth40", _randn(3, 8), "", {"linewidth": 40}),
    ("opt-threshold5", np.arange(10), "", {"threshold": 5}),
    ("opt-edgeitems2", _randn(10, 10), "", {"threshold": 20, "edgeitems": 2}),
    ("opt-edgeitems0-1d", np.arange(10.0, dtype=f32), "", {"threshold": 5, "edgeitems": 0}),
    ("opt-edgeitems0-2d", np.ones((4, 5), f32), "", {"threshold": 5, "edgeitems": 0}),
    ("opt-profile-full", _randn(1200), "", {"profile": "full"}),
    ("opt-profile-short", _randn(50, 50), "", {"profile": "short"}),
    ("grad-leaf", _randn(3), "leaf", {}),
    ("grad-fn", _randn(2, 2), "mul", {}),
    ("grad-fn-f64", _randn(3, dtype=f64), "mul", {}),
    ("grad-leaf-0d", np.array(1.0, f32), "leaf", {}),
    ("grad-suffix-fits", np.arange(-1.0, 9.0, 2.0), "mul", {}),  # one column short of wrapping
    ("grad-suffix-wraps", np.arange(-1.0, 11.0, 2.0), "mul", {}),
    ("grad-dtype-wraps", _randn(3, 9, dtype=f64), "leaf", {}),
    ("grad-linewidth40", _randn(4, dtype=f16), "mul", {"linewidth": 40}),
    ("grad-empty", np.zeros((0, 2), f64), "leaf", {}),
]


@pytest.mark.parametrize("arr, grad, opts", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_repr_matches_torch(arr, grad, opts):
    _check(arr, grad, **opts)


@pytest.mark.parametrize("arr", [np.array([1.5, 2.0]), np.array([1.0 + 1j]),
                                 np.array([1.5], f32), np.array([1j], c64), np.zeros(0),
                                 np.zeros(0, f32)], ids=str)
def test_default_dtype_float64(arr):
    torch.set_default_dtype(torch.float64)
    numtorch.set_default_dtype(numtorch.float64)
    _check(arr)


def test_parameter_repr():
    arr = _randn(2, 3)
    ref = torch.nn.Parameter(torch.from_numpy(arr.copy()))
    assert repr(numtorch.nn.Parameter(numtorch.from_numpy(arr.copy()))) == repr(ref)


def test_tensor_contents_keeps_suffixes():
    ref, mine = _pair(np.ones(3, np.int32), "")
    want = torch._tensor_str._str(ref, tensor_contents="[...]")
    assert S.tensor_repr(mine, tensor_contents="[...]") == want


def test_printoptions_state_matches_torch():
    steps = [dict(precision=2), dict(sci_mode=True), dict(linewidth=40, threshold=7),
             dict(profile="short"), dict(profile="full", edgeitems=5), dict(profile="default")]
    for step in steps:
        _both_printoptions(**step)
        assert S.get_printoptions() == torch._tensor_str.get_printoptions()
        assert S.PRINT_OPTS.threshold == torch._tensor_str.PRINT_OPTS.threshold


def test_printoptions_context_restores():
    S.set_printoptions(precision=6, sci_mode=False)
    before = S.get_printoptions()
    with S.printoptions(precision=1, threshold=3):
        assert S.get_printoptions()["precision"] == 1
        assert repr(numtorch.arange(5)) == "tensor([0, 1, 2, 3, 4])"
    assert S.get_printoptions() == before


def _random_array(rng):
    """A random array: dtype, rank, extent and scale all drawn so the formats vary."""
    shape = tuple(int(rng.integers(0, 6)) for _ in range(rng.integers(0, 4)))
    kind = rng.integers(0, 5)
    if kind == 0:
        return rng.random(shape) < 0.5
    if kind == 1:
        dtype = [np.uint8, np.int8, np.int16, np.int32, np.int64][rng.integers(5)]
        low = 0 if dtype is np.uint8 else -100
        return rng.integers(low, 100, size=shape).astype(dtype)
    # one scale for the whole array, or (less often) one per element to force sci mode
    scale_shape = shape if rng.random() < 0.3 else ()
    values = rng.standard_normal(shape) * 10.0 ** rng.uniform(-10, 10, size=scale_shape)
    if rng.random() < 0.3:
        values = np.round(values)
    if rng.random() < 0.2:
        values = np.where(rng.random(shape) < 0.3, rng.choice([nan, inf, -inf, -0.0]), values)
    dtype = [f16, f32, f64, c64, c128][rng.integers(5)]
    with np.errstate(all="ignore"):
        if np.dtype(dtype).kind == "c":
            values = values + 1j * values[::-1] if values.ndim else values * (1 - 1j)
        return np.asarray(values).astype(dtype)


def test_random_sweep():
    rng = np.random.default_rng(2024)
    for _ in range(300):
        _check(_random_array(rng))


COMPUTED = [
    ("transposed", lambda lib: lib.arange(6.0).view(2, 3).t()),
    ("step-slice", lambda lib: lib.arange(10)[::3]),
    ("sum", lambda lib: lib.ones(2, requires_grad=True).sum()),
    ("matmul", lambda lib: lib.ones(2, 2, requires_grad=True) @ lib.ones(2, 2)),
    ("slice-of-leaf", lambda lib: lib.ones(3, requires_grad=True)[1:]),
    ("int-div", lambda lib: lib.arange(4) / 3),
    ("compare", lambda lib: lib.arange(4) > 1),
    ("double-exp", lambda lib: lib.tensor([0.5, 1.0], dtype=lib.float64,
                                          requires_grad=True).exp()),
    ("expand", lambda lib: lib.tensor([[1.5], [2.0]]).expand(2, 3)),
]


@pytest.mark.parametrize("make", [c[1] for c in COMPUTED], ids=[c[0] for c in COMPUTED])
def test_repr_of_computed_tensors(make):
    assert repr(make(numtorch)) == repr(make(torch))
    assert str(make(numtorch)) == str(make(torch))
