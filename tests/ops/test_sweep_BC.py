"""Sweep BC: dtype coverage of elementwise ops, reductions and comparisons against PyTorch.

Real-only kernels refuse complex input with PyTorch's error (not a NumPy TypeError or a value
computed from the real part), comparisons with a complex Python number raise, quantile's
checks and messages, mvlgamma without a domain check, and the complex results PyTorch does
compute (logaddexp, logcumsumexp, reciprocal, float_power) agree with it.

PyTorch is the oracle (each test is skipped without it)."""
import pytest

from helpers import check_error, check_same, check_same_outcome


def _c(t):
    return t.tensor([[1 + 1j, -2.5 + 0.5j], [0j, 3 - 2j]])


def _f(t):
    return t.tensor([[1.5, -2.0], [0.0, 3.0]])


# ---- real-only kernels given complex data --------------------------------------------------
_COMPLEX_REFUSED = [
    ("floor", lambda t: _c(t).floor()),
    ("ceil", lambda t: t.ceil(_c(t))),
    ("trunc", lambda t: _c(t).trunc()),
    ("fix", lambda t: t.fix(_c(t))),
    ("frac", lambda t: _c(t).frac()),
    ("sign", lambda t: _c(t).sign()),
    ("relu", lambda t: _c(t).relu()),
    ("deg2rad", lambda t: _c(t).deg2rad()),
    ("rad2deg", lambda t: t.rad2deg(_c(t))),
    ("signbit", lambda t: _c(t).signbit()),
    ("isposinf", lambda t: _c(t).isposinf()),
    ("isneginf", lambda t: t.isneginf(_c(t))),
    ("erf", lambda t: _c(t).erf()),
    ("erfc", lambda t: _c(t).erfc()),
    ("erfinv", lambda t: _c(t).erfinv()),
    ("lgamma", lambda t: _c(t).lgamma()),
    ("digamma", lambda t: _c(t).digamma()),
    ("i0", lambda t: _c(t).i0()),
    ("logit", lambda t: _c(t).logit()),
    ("trigamma", lambda t: _c(t).polygamma(1)),
    ("polygamma3", lambda t: t.polygamma(3, _c(t))),
    ("ndtr", lambda t: t.special.ndtr(_c(t))),
    ("erfcx", lambda t: t.special.erfcx(_c(t))),
    ("i1e", lambda t: t.special.i1e(_c(t))),
    ("bessel_j0", lambda t: t.special.bessel_j0(_c(t))),
    ("modified_bessel_k1", lambda t: t.special.modified_bessel_k1(_c(t))),
    ("xlog1py", lambda t: t.special.xlog1py(_c(t), 2.0)),
    ("zeta", lambda t: t.special.zeta(2.0, _c(t))),
    ("igammac", lambda t: t.igammac(_f(t), _c(t))),
    ("legendre", lambda t: t.special.legendre_polynomial_p(_c(t), 2)),
    ("shifted_chebyshev_u", lambda t: t.special.shifted_chebyshev_polynomial_u(_c(t), 2)),
    ("fmod", lambda t: t.fmod(_c(t), 2)),
    ("fmod_complex_number", lambda t: t.fmod(_f(t), 1j)),
    ("remainder", lambda t: _c(t) % 2),
    ("rremainder", lambda t: 2 % _c(t)),
    ("floor_divide", lambda t: _c(t) // _f(t)),
    ("int_floordiv_complex", lambda t: t.tensor([1, 2]) // 1j),
    ("div_trunc", lambda t: t.div(_c(t), 2, rounding_mode="trunc")),
    ("copysign", lambda t: t.copysign(_f(t), 1j)),
    ("atan2", lambda t: t.atan2(_c(t), _f(t))),
    ("xlogy", lambda t: t.xlogy(_c(t), 2)),
    ("nextafter", lambda t: t.nextafter(_c(t), _c(t))),
    ("nextafter_long", lambda t: t.nextafter(t.tensor([1]), t.tensor([2]))),
    ("nextafter_bool", lambda t: t.nextafter(t.tensor([True]), t.tensor([False]))),
    ("heaviside", lambda t: t.heaviside(_c(t), _c(t))),
    ("logaddexp2", lambda t: t.logaddexp2(_c(t), _c(t))),
    ("nansum", lambda t: _c(t).nansum()),
    ("nanmean", lambda t: _c(t).nanmean(0)),
    ("lt_number", lambda t: _f(t) < 1j),
    ("gt_number_reflected", lambda t: 1j < t.tensor([1, 2])),
    ("lt_promoted_name", lambda t: _f(t).double() < _c(t)),
    ("lt_0dim", lambda t: _f(t) < t.tensor(1j, dtype=t.complex128)),
    ("maximum_number", lambda t: t.maximum(_c(t), 2)),
    ("gcd_half", lambda t: t.gcd(_f(t).half(), _f(t).half())),
    ("lcm_complex", lambda t: t.lcm(_c(t), _c(t))),
    ("trace_bool", lambda t: t.tensor([[True, False], [True, True]]).trace()),
    ("histc_bool", lambda t: t.histc(t.tensor([True, False]), bins=3, min=0, max=3)),
    ("histc_complex", lambda t: t.histc(_c(t), bins=3)),
    ("histc_complex_range", lambda t: t.histc(_c(t), bins=3, min=0, max=3)),
    ("inv_int", lambda t: t.linalg.inv(t.ones(2, 2, dtype=t.uint8))),
    ("det_int8", lambda t: t.det(t.ones(2, 2, dtype=t.int8))),
    ("complex_mixed_dtypes", lambda t: t.complex(_f(t), _f(t).double())),
    ("complex_int8", lambda t: t.complex(t.tensor([1], dtype=t.int8),
                                         t.tensor([2], dtype=t.int8))),
]


@pytest.mark.parametrize("name,fn", _COMPLEX_REFUSED, ids=[c[0] for c in _COMPLEX_REFUSED])
def test_unsupported_dtype_error_matches_torch(name, fn):
    check_error(fn)


# ---- quantile / nanquantile checks ---------------------------------------------------------
_QUANTILE_CASES = [
    ("nan_q_range", lambda t: _f(t).nanquantile(2.0)),
    ("q_range_int_printed", lambda t: _f(t).quantile(2)),
    ("q_range_negative", lambda t: _f(t).quantile(-0.25)),
    ("interpolation", lambda t: _f(t).quantile(0.5, interpolation="x")),
    ("nan_interpolation", lambda t: _f(t).nanquantile(0.5, interpolation="x")),
    ("q_dtype", lambda t: _f(t).nanquantile(t.tensor([0.5], dtype=t.float64))),
    ("half", lambda t: _f(t).half().quantile(0.5)),
    ("nan_half", lambda t: _f(t).half().nanquantile(0.5)),
    ("nan_int", lambda t: t.tensor([1, 2]).nanquantile(0.5)),
    ("empty", lambda t: t.empty(0).quantile(0.5)),
    ("nan_empty", lambda t: t.empty(0).nanquantile(0.5)),
    ("q_2d", lambda t: _f(t).nanquantile(t.tensor([[0.5]]))),
    ("q_values", lambda t: _f(t).quantile(t.tensor([0.5, 1.5]))),
    ("interpolation_before_dtype", lambda t: t.tensor([1]).quantile(0.5, interpolation="x")),
    ("range_before_interpolation", lambda t: t.tensor([1]).quantile(2.0, interpolation="x")),
]


@pytest.mark.parametrize("name,fn", _QUANTILE_CASES, ids=[c[0] for c in _QUANTILE_CASES])
def test_quantile_checks_match_torch(name, fn):
    check_error(fn)


def test_quantile_values_still_match_torch():
    check_same(lambda t: _f(t).quantile(t.tensor([0.25, 0.75]), dim=1))
    check_same(lambda t: t.tensor([1.0, float("nan"), 3.0]).nanquantile(0.5))


# ---- values ----------------------------------------------------------------------------------
_VALUE_CASES = [
    ("mvlgamma_outside_domain", lambda t: t.tensor([0.2, 1.0, 3.5]).mvlgamma(2)),
    ("mvlgamma_int", lambda t: t.tensor([1, 2, 5]).mvlgamma(1)),
    ("mvlgamma_bool", lambda t: t.tensor([True]).mvlgamma(1)),
    ("float_power_complex", lambda t: t.float_power(_c(t).to(t.complex64), 2)),
    ("float_power_complex_exponent", lambda t: t.float_power(_f(t), 1j)),
    ("float_power_number_base", lambda t: t.float_power(2, _c(t))),
    ("float_power_real", lambda t: t.float_power(t.tensor([2, 3]), t.tensor([3, 2]))),
    ("reciprocal_complex", lambda t: t.tensor([0j, 2 + 0j, -3.5 + 0j, 1 + 1j]).reciprocal()),
    ("logaddexp_complex", lambda t: t.logaddexp(_c(t), _c(t).conj() * 0.5)),
    ("logaddexp_complex_edges", lambda t: t.logaddexp(
        t.tensor([float("inf") + 0j, -float("inf") + 1j, 1 + 0j]),
        t.tensor([float("inf") + 1j, -float("inf") + 2j, float("nan") + 0j]))),
    ("logcumsumexp_complex", lambda t: _c(t).to(t.complex128).logcumsumexp(1)),
]


@pytest.mark.parametrize("name,fn", _VALUE_CASES, ids=[c[0] for c in _VALUE_CASES])
def test_values_match_torch(name, fn):
    check_same_outcome(fn)


def test_complex_reciprocal_keeps_positive_zero_imaginary():
    # 1 / (2+0j) is 0.5+0j in PyTorch (NumPy's reciprocal gives 0.5-0j): compare the sign bits
    check_same(lambda t: t.tensor([2 + 0j]).reciprocal().imag.signbit(), exact=True)


def test_real_ops_unchanged_by_complex_checks():
    check_same(lambda t: _f(t).floor() + _f(t).sign() + _f(t).frac())
    check_same(lambda t: t.fmod(_f(t), 1.5) + t.atan2(_f(t), _f(t) + 4))
    check_same(lambda t: (_f(t) < 1.0, t.tensor([1, 2]) < 1.5), exact=True)
