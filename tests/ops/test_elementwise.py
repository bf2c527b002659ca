"""Elementwise ops against PyTorch: values, dtypes, broadcasting, gradients, second
derivatives and grad_fn names (``check_op``), errors (``check_error``), and numerical
gradient checks that need no PyTorch."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op, check_same, check_same_outcome, numerical_grad_check

_rng = np.random.default_rng(0)


def r(*shape, lo=-2.0, hi=2.0, dtype=np.float32):
    """Random values in [lo, hi) of ``shape`` and ``dtype`` (kept away from zero when lo > 0)."""
    return _rng.uniform(lo, hi, size=shape).astype(dtype)


def ri(*shape, lo=-5, hi=6, dtype=np.int64):
    return _rng.integers(lo, hi, size=shape).astype(dtype)


POS = dict(lo=0.5, hi=2.5)    # for log, sqrt, pow bases ...
UNIT = dict(lo=-0.9, hi=0.9)  # for asin, atanh ...

# ---- binary arithmetic ---------------------------------------------------------------------
BINARY = [
    ("add", "add", r(3, 4), r(3, 4)),
    ("add-broadcast", "add", r(2, 1, 4), r(3, 1)),
    ("add-scalar", "add", r(3), 2.5),
    ("add-alpha", lambda a, b: a.add(b, alpha=-2), r(3), r(3)),
    ("add-int-float", "add", ri(3), r(3)),
    ("add-0d", "add", r(4), r()),
    ("add-f64-0d", "add", r(4), r(dtype=np.float64)),
    ("sub", "sub", r(2, 3), r(3)),
    ("sub-alpha", lambda a, b: a.sub(b, alpha=0.5), r(2, 3), r(3)),
    ("mul", "mul", r(4, 1), r(1, 5)),
    ("mul-f64", "mul", r(3, dtype=np.float64), r(3)),
    ("mul-scalar-int", "mul", r(2, 2), 3),
    ("div", "div", r(3, 2), r(2, **POS)),
    ("div-int", "div", ri(4), ri(4, lo=1)),
    ("div-scalar", "div", r(3), 4),
    ("pow", "pow", r(3, **POS), r(3)),
    ("pow-scalar", "pow", r(4), 3),
    ("pow-square", "pow", r(4), 2),
    ("pow-half", "pow", r(4, **POS), 0.5),
    ("pow-zero", "pow", r(4), 0),
    ("pow-negative", "pow", r(4, **POS), -1.5),
    ("pow-broadcast", "pow", r(2, 1, **POS), r(3)),
    ("remainder", "remainder", r(5, lo=-4, hi=4), r(5, **POS)),
    ("remainder-scalar", "remainder", r(5, lo=-4, hi=4), 1.5),
    ("fmod", "fmod", r(5, lo=-4, hi=4), r(5, **POS)),
    ("atan2", "atan2", r(3, 2), r(3, 2)),
    ("maximum", "maximum", r(4), r(4)),
    ("minimum", "minimum", r(2, 3), r(3)),
    ("maximum-ties", "maximum", np.array([1.0, 2.0, 3.0], np.float32),
     np.array([1.0, 1.0, 3.0], np.float32)),
    ("hypot", "hypot", r(3), r(3)),
    ("float_power", "float_power", r(3, **POS), r(3)),
]


@pytest.mark.parametrize("op, a, b", [c[1:] for c in BINARY], ids=[c[0] for c in BINARY])
def test_binary(op, a, b):
    check_op(op, a, b)


OPERATORS = [
    ("+", lambda a, b: a + b), ("-", lambda a, b: a - b), ("*", lambda a, b: a * b),
    ("/", lambda a, b: a / b), ("**", lambda a, b: a.abs() ** b),
    ("%", lambda a, b: a % b), ("@", lambda a, b: a @ b.t()),
]


@pytest.mark.parametrize("fn", [o[1] for o in OPERATORS], ids=[o[0] for o in OPERATORS])
def test_operators(fn):
    check_op(fn, r(3, 3, **POS), r(3, 3, **POS))


REFLECTED = [
    ("radd", lambda x: 2 + x), ("rsub", lambda x: 2 - x), ("rmul", lambda x: 2.5 * x),
    ("rdiv", lambda x: 2 / x), ("rpow", lambda x: 2 ** x), ("rmod", lambda x: 3 % x),
    ("neg", lambda x: -x), ("pos", lambda x: +x), ("abs", lambda x: abs(x)),
    ("rsub-int", lambda x: 1 - x.long() + x), ("int-rdiv", lambda x: 1 / x.long().abs().add(1)),
]


@pytest.mark.parametrize("fn", [o[1] for o in REFLECTED], ids=[o[0] for o in REFLECTED])
def test_reflected_and_unary_operators(fn):
    # NOTE: PyTorch has no derivative for a scalar % tensor (its grad_fn is NotImplemented)
    rmod = fn is REFLECTED[5][1]
    check_op(fn, r(2, 3, **POS), grad=not rmod, grad_fn=not rmod)


def test_numpy_scalar_operands(torch):
    check_same(lambda lib: (lib.ones(2) * np.float64(2.5), lib.ones(2) + np.int64(3),
                            np.float32(2) * lib.ones(2),
                            lib.ones(2, dtype=lib.int32) * np.int64(2)))


# ---- unary math ----------------------------------------------------------------------------
UNARY = [
    ("exp", {}), ("exp2", {}), ("expm1", {}), ("log", POS), ("log2", POS), ("log10", POS),
    ("log1p", POS), ("sqrt", POS), ("rsqrt", POS), ("reciprocal", POS), ("sin", {}),
    ("cos", {}), ("tan", UNIT), ("asin", UNIT), ("acos", UNIT), ("atan", {}), ("sinh", {}),
    ("cosh", {}), ("tanh", {}), ("asinh", {}), ("acosh", dict(lo=1.2, hi=3.0)),
    ("atanh", UNIT), ("sigmoid", {}), ("relu", {}), ("abs", {}), ("neg", {}), ("square", {}),
    ("sign", {}), ("sgn", {}), ("floor", {}), ("ceil", {}), ("trunc", {}), ("round", {}),
    ("frac", {}), ("deg2rad", {}), ("rad2deg", {}), ("logit", dict(lo=0.1, hi=0.9)),
]


@pytest.mark.parametrize("op, rng", UNARY, ids=[u[0] for u in UNARY])
def test_unary(op, rng):
    check_op(op, r(2, 3, **rng))


@pytest.mark.parametrize("op, rng", UNARY, ids=[u[0] for u in UNARY])
def test_unary_float64_and_0d(op, rng):
    check_op(op, r(**rng, dtype=np.float64))


@pytest.mark.parametrize("op", ["exp", "sqrt", "sin", "sigmoid", "abs", "neg", "relu",
                                "floor", "sign", "square", "log"])
def test_unary_on_ints(op):
    check_op(op, ri(5, lo=1))


@pytest.mark.parametrize("op", ["exp", "sin", "tanh", "sigmoid", "sqrt"])
def test_unary_float16(op):
    check_op(op, r(4, **POS, dtype=np.float16), gradgrad=False)


def test_unary_methods_and_out(torch):
    check_same(lambda lib: (lib.ones(3).exp(), lib.tensor([4.0]).sqrt(),
                            lib.exp(lib.zeros(2), out=lib.empty(2))))


@pytest.mark.parametrize("fn", [
    lambda x: x.round(decimals=2), lambda x: x.clamp(-0.5, 0.5), lambda x: x.clamp(min=0),
    lambda x: x.clamp(max=0.3), lambda x: x.clip(-1, 1), lambda x: x.clamp_min(0.1),
    lambda x: x.clamp_max(-0.1), lambda x: x.nan_to_num(),
], ids=["round-decimals", "clamp", "clamp-min", "clamp-max", "clip", "clamp_min", "clamp_max",
        "nan_to_num"])
def test_rounding_and_clamp(fn):
    check_op(fn, r(3, 4))


@pytest.mark.parametrize("fn", [
    lambda x, lo: x.clamp(lo), lambda x, lo: x.clamp(lo, lo + 1),
    lambda x, lo: x.clamp(max=lo), lambda x, lo: x.clamp_min(lo), lambda x, lo: x.clamp_max(lo),
], ids=["min", "both", "max", "clamp_min", "clamp_max"])
def test_clamp_tensor_bounds(fn):
    check_op(fn, r(3, 4), r(4, lo=-1, hi=1))


def test_clamp_int_and_float_bounds():
    check_op(lambda x: x.clamp(-1.5, 2.5), ri(6))
    check_op(lambda x: x.clamp(-1, 2), ri(6))


# ---- ternary and composite -----------------------------------------------------------------
COMPOSITE = [
    ("where", lambda c, a, b: a.where(c > 0, b), r(3, 4), r(3, 4), r(4)),
    ("where-fn", "where", np.array([True, False, True]), r(3), r(2, 1)),
    ("lerp", "lerp", r(3), r(3), 0.3),
    ("lerp-tensor-weight", "lerp", r(3), r(3), r(3, lo=0, hi=1)),
    ("addcmul", lambda a, b, c: a.addcmul(b, c, value=0.5), r(3), r(3), r(3)),
    ("addcdiv", lambda a, b, c: a.addcdiv(b, c, value=2), r(3), r(3), r(3, **POS)),
    ("xlogy", "xlogy", r(4, lo=0, hi=2), r(4, **POS)),
    ("logaddexp", "logaddexp", r(4), r(4)),
    ("copysign", "copysign", r(4), r(4)),
]


@pytest.mark.parametrize("op, inputs", [(c[1], c[2:]) for c in COMPOSITE],
                         ids=[c[0] for c in COMPOSITE])
def test_composite(op, inputs):
    check_op(op, *inputs)


def test_where_with_scalars():
    check_op(lambda c, x: numtorch_or_torch(x).where(c, x, 0.0), np.array([True, False]),
             r(2))
    check_op(lambda c, x: numtorch_or_torch(x).where(c, 1.0, x), np.array([True, False]),
             r(2))


def numtorch_or_torch(t):
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


# ---- comparisons, logical, bitwise (values and dtypes only) --------------------------------
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum"]


@pytest.mark.parametrize("op", COMPARE)
@pytest.mark.parametrize("b", [ri(3, 4), ri(4, dtype=np.int32), 2, 1.5, ri(1, 4, dtype=np.uint8)],
                         ids=["same", "int32-bcast", "int", "float", "uint8"])
def test_comparisons(op, b):
    if op in ("maximum", "minimum") and not isinstance(b, np.ndarray):
        check_error(lambda lib: getattr(lib, op)(lib.ones(2), b))  # tensors only
    else:
        check_op(op, ri(3, 4), b)


@pytest.mark.parametrize("op", ["logical_and", "logical_or", "logical_xor", "bitwise_and",
                                "bitwise_or", "bitwise_xor"])
@pytest.mark.parametrize("a, b", [(ri(5, lo=0, hi=4), ri(5, lo=0, hi=4)),
                                  (ri(5, lo=0, hi=2).astype(bool), ri(5, lo=0, hi=2).astype(bool)),
                                  (ri(5, dtype=np.int32), ri(5, dtype=np.int16))],
                         ids=["int64", "bool", "int32-int16"])
def test_logical_and_bitwise(op, a, b):
    check_op(op, a, b)


@pytest.mark.parametrize("fn", [lambda a: a & 3, lambda a: 6 | a, lambda a: a ^ 5, lambda a: ~a,
                                lambda a: a << 2, lambda a: a >> 1, lambda a: (a > 0) & (a < 3),
                                lambda a: ~(a > 0), lambda a: (a > 0) | True],
                         ids=["and", "ror", "xor", "invert", "lshift", "rshift", "bool-and",
                              "bool-invert", "bool-or-scalar"])
def test_bitwise_operators(fn):
    check_op(fn, ri(6, lo=0))


PREDICATES = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "logical_not"]


@pytest.mark.parametrize("op", PREDICATES)
def test_predicates(op):
    check_op(op, np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5], np.float32))


def test_isclose_allclose_equal(torch):
    a = np.array([1.0, 2.0, np.nan], np.float32)
    b = np.array([1.0 + 1e-7, 2.1, np.nan], np.float32)
    check_same(lambda lib: (lib.isclose(lib.tensor(a), lib.tensor(b)),
                            lib.isclose(lib.tensor(a), lib.tensor(b), equal_nan=True),
                            lib.allclose(lib.tensor(a[:2]), lib.tensor(b[:2]), atol=0.2),
                            lib.equal(lib.tensor(a[:2]), lib.tensor(a[:2])),
                            lib.equal(lib.ones(2), lib.ones(3))))


# ---- special values ------------------------------------------------------------------------
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 1e30], np.float32)


@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "sigmoid", "tanh", "reciprocal", "sign",
                                "relu", "abs", "floor"])
def test_special_values(op):
    check_op(op, SPECIAL, grad=False)


def test_division_by_zero(torch):
    check_same(lambda lib: (lib.tensor([1.0, -1.0, 0.0]) / 0, lib.tensor([1.0, -1.0]) % 0,
                            lib.tensor([5, -5]) // 2, lib.tensor([5.5, -5.5]) // 2,
                            lib.tensor([5, -5]).div(2, rounding_mode="trunc"),
                            lib.tensor([5, -5]).div(2, rounding_mode="floor")))


# ---- in-place forms ------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda x, y: x.mul(1).add_(y), lambda x, y: x.mul(1).mul_(y), lambda x, y: x.mul(1).div_(y),
    lambda x, y: x.mul(1).sub_(y, alpha=2), lambda x, y: x.mul(1).pow_(2),
    lambda x, y: x.mul(1).exp_(), lambda x, y: x.mul(1).clamp_(-0.5, 0.5),
    lambda x, y: x.mul(1).addcmul_(y, y), lambda x, y: x.mul(1).lerp_(y, 0.25),
], ids=["add_", "mul_", "div_", "sub_", "pow_", "exp_", "clamp_", "addcmul_", "lerp_"])
def test_inplace_forms(fn):
    check_op(fn, r(3, **POS), r(3, **POS))


# ---- errors --------------------------------------------------------------------------------
ERRORS = [
    ("broadcast", lambda lib: lib.ones(2, 3) + lib.ones(4)),
    ("broadcast-mul", lambda lib: lib.ones(3, 1, 2) * lib.ones(4, 3)),
    ("bool-sub", lambda lib: lib.ones(2, dtype=lib.bool) - lib.ones(2, dtype=lib.bool)),
    ("bool-neg", lambda lib: -lib.ones(2, dtype=lib.bool)),
    ("bitwise-float", lambda lib: lib.ones(2) & lib.ones(2)),
    ("invert-float", lambda lib: ~lib.ones(2)),
    ("int-negative-pow", lambda lib: lib.tensor([2, 3]) ** -1),
    ("add-string", lambda lib: lib.ones(2) + "a"),
    ("add-list", lambda lib: lib.add(lib.ones(2), [1, 2])),
    ("where-not-bool", lambda lib: lib.where(lib.ones(2), lib.ones(2), lib.zeros(2))),
    ("clamp-no-bounds", lambda lib: lib.clamp(lib.ones(2))),
    ("div-rounding-mode", lambda lib: lib.ones(2).div(2, rounding_mode="round")),
    ("int-div-zero", lambda lib: lib.tensor([1, 2]) // 0),
    ("int-remainder-zero", lambda lib: lib.tensor([1, 2]) % 0),
    ("inplace-int-by-float", lambda lib: lib.tensor([1, 2]).mul_(1.5)),
    ("inplace-broadcast-out", lambda lib: lib.ones(3).add_(lib.ones(2, 3))),
]


@pytest.mark.parametrize("fn", [e[1] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors(fn):
    check_error(fn)


# ---- numerical checks (no PyTorch needed) --------------------------------------------------
NUMERICAL = [
    ("mul-add", lambda x, y: x * y + x / (y * y + 1)),
    ("pow", lambda x, y: (x * x + 1) ** y),
    ("exp-log", lambda x, y: (x.exp() + y.exp()).log()),
    ("trig", lambda x, y: x.sin() * y.cos() + x.tanh() - y.atan()),
    ("sigmoid-sqrt", lambda x, y: x.sigmoid() * (y * y + 1).sqrt()),
    ("broadcast", lambda x, y: x.view(2, 1) * y.view(1, 2) - x.view(2, 1) ** 2),
    ("maximum", lambda x, y: x.maximum(y * 3) + x.abs()),
    ("where", lambda x, y: numtorch.where(x > y, x * y, x - y)),
]


@pytest.mark.parametrize("f", [n[1] for n in NUMERICAL], ids=[n[0] for n in NUMERICAL])
def test_numerical_gradients(f):
    numerical_grad_check(f, [np.array([0.3, -0.7]), np.array([1.1, 0.4])])


def _lib(t):
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


# OpInfo regressions: one line per case
OPINFO_FIXES = [
    ("sub-uint8-alpha", lambda a, b: _lib(a).sub(a, b, alpha=-3), np.array([1, 200], np.uint8),
     np.array([7, 9], np.uint8)),
    ("add-uint8-alpha", lambda a, b: _lib(a).add(a, b, alpha=-3), np.array([1, 200], np.uint8),
     np.array([7, 9], np.uint8)),
    ("rsub-uint8-alpha", lambda a, b: _lib(a).rsub(a, b, alpha=-3), np.array([1, 2], np.uint8),
     np.array([7, 9], np.uint8)),
    ("sign-bool", lambda a: a.sign(), np.array([True, False])),
    ("sgn-bool", lambda a: a.sgn(), np.array([True, False])),
    ("square-bool", lambda a: _lib(a).square(a), np.array([True, False])),
    ("div-trunc-grad", lambda a, b: _lib(a).div(a, b, rounding_mode="trunc"),
     np.array([2.5, -3.5]), np.array([1.5, 2.0])),
    ("div-floor-grad", lambda a, b: _lib(a).div(a, b, rounding_mode="floor"),
     np.array([2.5, -3.5]), np.array([1.5, 2.0])),
    ("rpow-negative-int", lambda a: 2 ** a, np.array([-2, -1, 0, 3])),
    ("pow-int-negative-tensor", lambda a, b: a ** b, np.array([-1, 1, 2, -1]),
     np.array([-3, -2, -1, -2])),
    ("to-positional-flags", lambda a: a.to(_lib(a).float64, False, True), np.array([1.0, 2.0])),
]


@pytest.mark.parametrize("fn, inputs", [(c[1], c[2:]) for c in OPINFO_FIXES],
                         ids=[c[0] for c in OPINFO_FIXES])
def test_opinfo_fixes(fn, inputs):
    check_op(fn, *inputs)


def test_div_grad_fn_name_and_no_tensor_rsub():
    x = lambda lib: lib.ones(2, requires_grad=True)
    check_same(lambda lib: (x(lib).div(x(lib), rounding_mode=None).grad_fn.name(),
                            lib.div(x(lib), 2).grad_fn.name(), hasattr(x(lib), "rsub")))


# ---- found by sweeping scripts against torch ---------------------------------------------
def test_float_remainder_keeps_fmod_zero_sign(torch):
    check_same(lambda lib: lib.remainder(lib.tensor([0.0, -0.0, 5.0, -5.0, 2.5, 1.0]), -2.5)
               .tolist(), exact=True)
    check_same(lambda lib: str(lib.remainder(lib.tensor([0.0, -0.0, 5.0]), 2.5)), exact=True)
    check_same(lambda lib: str(lib.tensor([-3.5, 3.5]) % lib.tensor([2.0, -2.0])), exact=True)


ALPHA_ERRORS = [
    ("int-float-alpha", lambda lib: lib.add(lib.tensor([1]), lib.tensor([1]), alpha=0.5)),
    ("int-float-alpha-integral", lambda lib: lib.add(lib.tensor([1]), 1, alpha=2.0)),
    ("sub-int-float-alpha", lambda lib: lib.sub(lib.tensor([1]), 1, alpha=0.5)),
    ("bool-alpha", lambda lib: lib.add(lib.tensor([1]), lib.tensor([1]), alpha=True)),
    ("complex-alpha", lambda lib: lib.add(lib.tensor([1.0]), 1, alpha=2j)),
    ("method-alpha", lambda lib: lib.tensor([1]).add(lib.tensor([1]), alpha=0.5)),
    ("isclose-dtypes", lambda lib: lib.isclose(lib.tensor([1]), lib.tensor([1.0]))),
    ("allclose-dtypes", lambda lib: lib.allclose(lib.tensor([1.0]),
                                                 lib.tensor([1.0], dtype=lib.float64))),
    ("isclose-shapes", lambda lib: lib.isclose(lib.tensor([1.0, 2.0]), lib.ones(3))),
]


@pytest.mark.parametrize("name, fn", ALPHA_ERRORS, ids=[c[0] for c in ALPHA_ERRORS])
def test_alpha_and_isclose_errors(name, fn):
    check_error(fn)


def test_float_alpha_on_float_result(torch):
    check_same(lambda lib: lib.add(lib.tensor([1]), lib.tensor([1.0]), alpha=0.5))
    check_same(lambda lib: lib.isclose(lib.tensor([[1.0, 2.0]]), lib.tensor([[1.0], [2.0]])))


MORE_ERRORS = [
    ("lt-broadcast", lambda lib: lib.ones(2, 3) < lib.ones(3, 2)),
    ("eq-broadcast", lambda lib: lib.eq(lib.ones(2, 3), lib.ones(3, 2))),
    ("logical_and-broadcast", lambda lib: lib.logical_and(lib.ones(2, 3), lib.ones(3, 2))),
    ("bitwise-broadcast", lambda lib: lib.ones(2, 3, dtype=lib.int64) & lib.ones(3, 2,
                                                                                 dtype=lib.int64)),
    ("lerp-broadcast", lambda lib: lib.ones(2).lerp(lib.ones(2), lib.ones(3))),
    ("lerp-int", lambda lib: lib.ones(2, dtype=lib.int64).lerp(lib.ones(2, dtype=lib.int64),
                                                                0.5)),
    ("lerp-int-tensor", lambda lib: lib.ones(2, dtype=lib.int64).lerp(
        lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64))),
    ("lerp-end-dtype", lambda lib: lib.ones(2).lerp(lib.ones(2, dtype=lib.float64), 0.5)),
    ("lerp-weight-dtype", lambda lib: lib.ones(2).lerp(lib.ones(2),
                                                       lib.ones(2, dtype=lib.float64))),
]


@pytest.mark.parametrize("name, fn", MORE_ERRORS, ids=[c[0] for c in MORE_ERRORS])
def test_more_sweep_errors(name, fn):
    check_error(fn)


def test_lerp_is_exact_at_the_ends(torch):
    """PyTorch's two-sided formula: weight 1 gives ``end`` exactly."""
    check_same(lambda lib: lib.lerp(lib.tensor([0.1, 0.2]), lib.tensor([0.7, 0.9]), 1.0)
               .tolist(), exact=True)
    check_same(lambda lib: lib.lerp(lib.tensor([0.1, 0.2]), lib.tensor([0.7, 0.9]),
                                    lib.tensor([1.0, 0.6])).tolist(), exact=True)


BOOL_INT_CASES = [
    ("floor-bool", lambda lib: lib.floor(lib.tensor([True, False]))),
    ("ceil-bool-method", lambda lib: lib.tensor([True, False]).ceil()),
    ("abs-bool", lambda lib: lib.abs(lib.tensor([True]))),
    ("frac-bool", lambda lib: lib.frac(lib.tensor([True]))),
    ("relu-bool", lambda lib: lib.relu(lib.tensor([True]))),
    ("round-bool", lambda lib: lib.round(lib.tensor([True]))),
    ("round-int-decimals0", lambda lib: lib.round(lib.tensor([5, 15]), decimals=0)),
    ("round-int-decimals1", lambda lib: lib.round(lib.tensor([5, 15]), decimals=1)),
    ("round-int", lambda lib: lib.tensor([5, 15]).round()),
    ("round-float-decimals0", lambda lib: lib.tensor([1.25, 15.5]).round(decimals=0)),
    ("clamp-bool-int", lambda lib: lib.clamp(lib.tensor([True, False]), min=0)),
    ("clamp-bool-bool", lambda lib: lib.clamp(lib.tensor([True, False]), min=True)),
    ("clamp-bool-both", lambda lib: lib.clamp(lib.tensor([True, False]), False, True)),
    ("fmod-int-zero", lambda lib: lib.fmod(lib.tensor([1]), 0)),
    ("fmod-float-zero", lambda lib: lib.fmod(lib.tensor([1.0]), 0)),
    ("isclose-negative-rtol", lambda lib: lib.isclose(lib.ones(1), lib.ones(1), rtol=-0.5)),
    ("allclose-negative-atol", lambda lib: lib.allclose(lib.ones(1), lib.ones(1), atol=-1e-5)),
]


@pytest.mark.parametrize("name, fn", BOOL_INT_CASES, ids=[c[0] for c in BOOL_INT_CASES])
def test_bool_int_edge_cases(name, fn):
    check_same_outcome(fn)
