"""The optimizers' fused multiply-add kernels: exact against Fraction arithmetic on ties,
the BLAS axpy path bit for bit equal to the emulation, and every case that must fall back."""
from fractions import Fraction

import numpy as np
import pytest

import numtorch
from numtorch import _random as R
from numtorch.optim import _kernels as K

F32, F64 = np.float32, np.float64


@pytest.fixture
def no_blas(monkeypatch):
    """Force the emulated fused multiply-add (as where SciPy is missing)."""
    monkeypatch.setattr(K, "_AXPY", {K._F32: None, K._F64: None})


def _round_f32(e):
    """The float32 nearest the Fraction ``e``, ties to even."""
    r = np.float32(float(e))
    cands = [np.nextafter(r, F32(-np.inf)), r, np.nextafter(r, F32(np.inf))]
    return min(cands, key=lambda c: (abs(Fraction(float(c)) - e), int(c.view(np.int32)) & 1))


def _exact32(a, b, c):
    a, b, c = np.broadcast_arrays(a, b, c)
    return np.array([_round_f32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                     for x, y, z in zip(a.ravel(), b.ravel(), c.ravel())], F32).reshape(a.shape)


def _bits(x):
    return np.asarray(x).tobytes()


# c = 2 + 2^-22 has an odd float32 mantissa; p = a * b is 2^-23 (exact: a float32 midpoint)
# or 2^-23 - 2^-53 (the float64 sum rounds onto the midpoint): +-p give all four cases
_C = F32(2 + 2.0 ** -22)
_A = F32(2.0 ** -23 * (1 + 2.0 ** -15))
_B = F32(1 - 2.0 ** -15)
TIES = [(F32(2.0 ** -23), F32(1), _C), (F32(-(2.0 ** -23)), F32(1), _C),
        (_A, _B, _C), (-_A, _B, _C), (_A, -_B, -_C), (-_A, -_B, -_C)]


@pytest.mark.parametrize("a,b,c", TIES)
def test_fma32_ties_match_fraction(a, b, c):
    assert _bits(R._fma32(a, b, c)) == _bits(_exact32(a, b, c))


@pytest.mark.parametrize("n", [1, 37, 20000])
def test_ties_inside_arrays_both_paths(n, monkeypatch):
    rng = np.random.default_rng(n)
    for a, b, c in TIES:       # scalar b, as add_ passes alpha: the BLAS path when it applies
        x = rng.standard_normal(n).astype(F32)
        other = rng.standard_normal(n).astype(F32)
        other[n // 2], x[n // 2] = a, c
        want = _exact32(other, b, x) if n < 100 else None
        fast = K.add_(x.copy(), other, b)
        monkeypatch.setattr(K, "_AXPY", {K._F32: None, K._F64: None})
        slow = K.add_(x.copy(), other, b)
        monkeypatch.undo()
        assert _bits(fast) == _bits(slow)
        assert fast[n // 2] == _exact32(a, b, c)
        if want is not None:
            assert _bits(fast) == _bits(want)


def test_fma32_broadcast_scalar_and_0d_against_fraction():
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 1)) * 1e-3).astype(F32)
    b = rng.standard_normal((1, 4)).astype(F32)
    c = rng.standard_normal((3, 4)).astype(F32)
    assert _bits(R._fma32(a, b, c)) == _bits(_exact32(a, b, c))
    assert _bits(R._fma32(a, b, c[0])) == _bits(_exact32(a, b, c[0]))
    zero_d = R._fma32(np.array(a[0, 0]), b[0, 0], np.array(c[0, 0]))
    assert zero_d.shape == () and _bits(zero_d) == _bits(_exact32(a[0, 0], b[0, 0], c[0, 0]))
    out = c.copy()
    assert R._fma32(a, b, out, out=out) is out and _bits(out) == _bits(_exact32(a, b, c))


def _emulated(fn, *args):
    """Run kernel ``fn`` on copies with the BLAS path off."""
    saved = dict(K._AXPY)
    K._AXPY.update({K._F32: None, K._F64: None})
    try:
        return fn(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    finally:
        K._AXPY.clear()
        K._AXPY.update(saved)


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("n", [1, 7, 64, 8192, 8193, 30011])
def test_blas_path_equals_emulation(dtype, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(dtype)
    other = rng.standard_normal(n).astype(dtype)
    for fn, args in ((K.add_, (x, other, -0.0123)), (K.lerp_, (x, other, 0.1)),
                     (K.lerp_, (x, other, 0.7)), (K.add, (x, other, 3.3))):
        got = fn(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        assert _bits(got) == _bits(_emulated(fn, *args)), (fn.__name__, args[2])


def test_blas_axpy_is_verified_here():
    # the fast path these tests cover: saxpy where it fuses, else sgemm (one of them fuses on
    # every x86-64 OpenBLAS seen); whichever is taken passed the exactness check
    pytest.importorskip("scipy")
    from scipy.linalg import blas
    axpy = K._blas_axpy(K._F32)
    assert axpy is not None
    assert axpy is blas.saxpy or not K._axpy_is_fma(blas.saxpy, K._F32)


def test_gemm_axpy_fuses_where_taken():
    pytest.importorskip("scipy")
    from scipy.linalg import blas
    axpy = K._gemm_axpy(blas.sgemm, K._F32)
    if not K._axpy_is_fma(axpy, K._F32):
        pytest.skip("this BLAS's sgemm does not fuse either: the emulation serves")
    b, y, a = K._double_rounding_case(37, K._F32, np.random.RandomState(1))
    got = y.copy()
    assert axpy(b, got, a=a) is got
    assert _bits(got) == _bits(np.asarray(R._fma32(a, b, y), np.float32))


def _double_rounding_axpy(x, y, n=None, a=1.0):
    y += (np.float32(a) * x).astype(y.dtype)      # product rounded, then the sum: not fused
    return y


def test_self_check_rejects_unfused_axpy():
    assert not K._axpy_is_fma(_double_rounding_axpy, K._F32)


def test_without_scipy_falls_back(monkeypatch):
    import sys
    monkeypatch.setattr(K, "_AXPY", {})
    monkeypatch.setitem(sys.modules, "scipy.linalg", None)    # `import` now raises
    assert K._blas_axpy(K._F32) is None
    x = np.ones(3, F32)
    assert K.add_(x, np.full(3, 2, F32), -0.25).tolist() == [0.5] * 3


@pytest.mark.parametrize("case", ["noncontig", "broadcast", "0d", "alias", "overlap",
                                  "f16", "c64", "readonly_other", "alpha0"])
def test_fallbacks_equal_emulation(case):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(40).astype(F32)
    other = rng.standard_normal(40).astype(F32)
    alpha = -0.37
    if case == "noncontig":
        x, other = x[::2], other[1::2]
    elif case == "broadcast":
        x, other = x.reshape(4, 10), other[:10]
    elif case == "0d":
        x, other = np.array(x[0]), np.array(other[0])
    elif case == "f16":
        x, other = x.astype(np.float16), other.astype(np.float16)
    elif case == "c64":
        x, other = x.astype(np.complex64) * 1j, other.astype(np.complex64)
    elif case == "readonly_other":
        other.flags.writeable = False
    elif case == "alpha0":
        x[0], other[0], alpha = -0.0, 1.0, 0.0
    if case in ("alias", "overlap"):
        buf = x.copy()
        got = K.add_(buf[1:] if case == "overlap" else buf, buf[:-1] if case == "overlap"
                     else buf, alpha)
        ref_buf = x.copy()
        want = _emulated(lambda b: K.add_(b[1:] if case == "overlap" else b,
                                          b[:-1] if case == "overlap" else b, alpha), ref_buf)
    else:
        got = K.add_(x.copy(), other, alpha)
        want = _emulated(K.add_, x, other, alpha)
    assert got.dtype == want.dtype and _bits(got) == _bits(want)
    if case == "alpha0":
        assert np.signbit(got[0]) == np.False_      # -0 + 0 * other is +0, as a fused op gives


def test_lerp_large_weight_with_aliasing_end():
    x = np.linspace(-1, 1, 50, dtype=F32)
    want = _emulated(K.lerp_, x, x, 0.75)
    got = x.copy()
    assert _bits(K.lerp_(got, got, 0.75)) == _bits(want)


def test_addcdiv_and_sqrt_div_add_match_plain_expressions():
    rng = np.random.default_rng(2)
    x, t1 = rng.standard_normal((2, 33)).astype(F32)
    t2 = np.abs(rng.standard_normal(33)).astype(F32) + F32(0.5)
    want = x + F32(-0.3) * t1 / t2
    assert _bits(K.addcdiv_(x.copy(), t1, t2, -0.3)) == _bits(want)
    assert _bits(K.sqrt_div_add(t2, 0.7, 1e-8)) == _bits(np.sqrt(t2) / F32(0.7) + F32(1e-8))
    zero_d = K.sqrt_div_add(np.array(t2[0]), 1, 1e-8)
    assert zero_d.shape == () and zero_d == np.sqrt(t2[0]) + F32(1e-8)


def test_sgd_maximize_weight_decay_on_0d_parameter(torch):
    """Regression: -grad of a 0-d gradient was a NumPy scalar, and weight decay failed."""
    res = []
    for lib in (numtorch, torch):
        w = lib.nn.Parameter(lib.tensor(1.5))
        opt = lib.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.01, maximize=True)
        for _ in range(3):
            opt.zero_grad()
            (w * w).backward()
            opt.step()
        res.append(w.detach().numpy().copy())
    assert _bits(res[0]) == _bits(res[1])


def _counting_axpy(calls):
    def axpy(x, y, a):
        calls.append(x.size)
        y += a * x
        return y
    return axpy


@pytest.mark.parametrize("one_thread", [True, False])
def test_chunked_axpy_in_one_call_when_blas_has_one_thread(monkeypatch, one_thread):
    monkeypatch.setattr(K, "_ONE_THREAD", [one_thread])
    calls = []
    n = 2 * K._CHUNK + 5
    y = np.zeros(n, np.float32)
    K._chunked(_counting_axpy(calls), np.ones(n, np.float32), y, np.float32(2))
    assert calls == ([n] if one_thread else [K._CHUNK, K._CHUNK, 5])
    assert (y == 2).all()


@pytest.mark.parametrize("env,one", [({"OPENBLAS_NUM_THREADS": "1"}, True),
                                     ({"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "1"},
                                      False),
                                     ({"OMP_NUM_THREADS": "1"}, True),
                                     ({"GOTO_NUM_THREADS": "4", "OMP_NUM_THREADS": "1"}, False)])
def test_one_blas_thread_reads_openblas_variables_in_its_order(monkeypatch, env, one):
    for var in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    monkeypatch.setattr(K, "_ONE_THREAD", [])
    monkeypatch.setattr(K.os, "cpu_count", lambda: 8)
    assert K._one_blas_thread() is one


_DESCEND_CASES = {
    "float32": lambda rng: (rng.standard_normal((7, 5)).astype(F32), None),
    "float64": lambda rng: (rng.standard_normal((7, 5)), None),
    "float16": lambda rng: (rng.standard_normal((7, 5)).astype(np.float16), None),
    "0-d": lambda rng: (np.array(F32(1.5)), None),
    "strided-param": lambda rng: (rng.standard_normal((7, 10)).astype(F32)[:, ::2], None),
    "strided-grad": lambda rng: (rng.standard_normal((7, 5)).astype(F32),
                                 rng.standard_normal((7, 10)).astype(F32)[:, ::2]),
    "grad-is-param": lambda rng: (rng.standard_normal((7, 5)).astype(F32), "same"),
    "long": lambda rng: (rng.standard_normal(K._CHUNK * 2 + 5).astype(F32), None),
}


@pytest.mark.parametrize("lr", [0.01, 0.0, -1.0, float("inf")])
@pytest.mark.parametrize("case", list(_DESCEND_CASES))
def test_descend_is_add_with_minus_lr(case, lr):
    # SGD's plain step (descend_: the axpy with its checks inline) rounds as add_ does, on
    # every layout, and falls back where the axpy cannot serve
    rng = np.random.default_rng(0)
    y, g = _DESCEND_CASES[case](rng)
    if isinstance(g, str):  # ("same")
        g = y
    elif g is None:
        g = rng.standard_normal(y.shape).astype(y.dtype)
    want = K.add_(y.copy(), g.copy() if g is not y else y.copy(), -lr)
    t = numtorch.from_numpy(y)
    before = t._version
    with np.errstate(all="ignore"):
        K.descend_(t, g, lr)
    assert _bits(t._data) == _bits(want) and t._version == before + 1


def test_sgd_plain_step_matches_torch(torch):
    def fn(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.Tanh(), lib.nn.Linear(3, 2))
        unused = lib.nn.Parameter(lib.ones(2))  # no gradient: left as it is
        lr = lib.tensor(0.05)  # a tensor learning rate
        opt = lib.optim.SGD([{"params": model[0].parameters()},
                             {"params": list(model[2].parameters()) + [unused], "lr": lr}],
                            lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            model(lib.randn(5, 4)).pow(2).sum().backward()
            opt.step()
        return [p.detach().clone() for p in model.parameters()], unused
    from helpers import check_same
    check_same(fn)
