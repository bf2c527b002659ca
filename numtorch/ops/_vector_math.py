"""float32 math as PyTorch's vectorised CPU kernels compute it, bit for bit.

PyTorch computes ``torch.exp`` itself with MKL's vector math, but its fused kernels
(``sigmoid``, ``silu``, ``gelu``, ``softmax``, ...) call ``Vectorized<float>::exp``, which is
SLEEF's ``expf`` with 1-ulp accuracy, and ``Vectorized<float>::erf``, a rational
approximation of its own. SLEEF's exp is the correctly rounded one in only ~90 % of
elements, so a correctly rounded ``exp`` (``ops._libm``) gives such kernels' last bit wrong
in a few percent of their outputs. ``expf(x)`` here follows SLEEF's steps in the same
float32 roundings: ``x = q ln2 + s`` (q an integer, ln2 split in two parts), a degree-6
polynomial in ``s`` evaluated by fused multiply-adds, then scaling by ``2**q``:

>>> x = np.float32([0.5, 1.0847852])
>>> expf(x).view(np.int32)  # the second is 1 below the correctly rounded 1077763341
array([1070795084, 1077763340], dtype=int32)

A fused multiply-add of float32 operands is replayed in float64: the product of two float32
numbers is exact there, and the sum is rounded once more only in the rare case it needs
more than 53 bits (never seen to change a result).

The kernels run their vector code only on part of the elements (``by_vector_runs``,
``inner_vector_mask``); the others take the scalar formula with the C library's functions,
which ``ops._libm``'s correctly rounded ones stand in for.
"""
import numpy as np

from ._cascade import VEC_LANES

__all__ = ["expf", "erf", "vector_part", "by_vector_runs", "inner_vector_mask",
           "REPLAY_LIMIT", "GRAIN"]

_F32, _F64 = np.float32, np.float64
_LOG2E = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
# ln 2 split into a high part with trailing zero bits (q * high is exact) and the rest
_LN2_HI = _F64(_F32(0.693145751953125))
_LN2_LO = _F64(_F32(1.428606765330187045e-06))
# the polynomial's coefficients, highest degree first (float32 values)
_POLY = tuple(_F64(_F32(c)) for c in (
    0.000198527617612853646278381, 0.00139304355252534151077271,
    0.00833336077630519866943359, 0.0416664853692054748535156,
    0.166666671633720397949219, 0.5))
# beyond these the result is 0 or inf (SLEEF's own cut-offs, not float32's range ends)
_UNDER, _OVER = _F32(-104.0), _F32(100.0)

# Above this many elements the replay (about ten times NumPy's exp) is not made: the
# correctly rounded exp stands in, off in the last bit for a few percent of elements.
REPLAY_LIMIT = 1 << 16


def expf(x):
    """SLEEF's ``expf`` (1-ulp) of float32 array ``x``, bit for bit; NaN stays NaN."""
    x = np.asarray(x, dtype=_F32)
    # (in range the clip changes nothing; outside it, and for NaN, the end fixes the result)
    d = np.fmax(np.fmin(x, _F32(100.5)), _F32(-104.5))
    q = np.rint(d * _LOG2E)  # the float32 product, rounded to nearest even
    # fma(q, -ln2_hi, d): q * ln2_hi and the difference are exact in float32 already
    s = d - q * _F32(_LN2_HI)
    q64 = q.astype(_F64)
    s = s.astype(_F64)
    s -= q64 * _LN2_LO
    s = s.astype(_F32).astype(_F64)  # fma(q, -ln2_lo, s): one float32 rounding
    u = s * _POLY[0]
    for c in _POLY[1:-1]:  # fma(u, s, c) each
        u += c
        u = u.astype(_F32).astype(_F64)
        u *= s
    u += _POLY[-1]
    u = u.astype(_F32).astype(_F64)
    u *= (s * s).astype(_F32)
    u += s
    u = u.astype(_F32).astype(_F64)  # fma(s*s, u, s)
    u += 1.0
    u = u.astype(_F32)
    # times 2**q: SLEEF multiplies by 2**(q//2) (exact) and 2**(q - q//2) (one rounding, in
    # the subnormal range only): the same as scaling exactly in float64 and rounding once
    with np.errstate(over="ignore"):
        u = np.ldexp(u.astype(_F64), q.astype(np.int32)).astype(_F32)
    if not (d == x).all():
        u[x < _UNDER] = 0
        u[x > _OVER] = np.inf
        u[np.isnan(x)] = np.nan
    return u


# ATen's erf: 1 - (p1 t + p2 t^2 + ... + p5 t^5) exp(-x^2), t = 1 / (1 + p |x|)
_ERF_P = _F64(_F32(0.3275911))
_ERF_POLY = tuple(_F64(_F32(c)) for c in (1.061405429, -1.453152027, 1.421413741,
                                          -0.284496736, 0.254829592))


def erf(x):
    """``Vectorized<float>::erf`` of float32 array ``x``, bit for bit: the rational
    approximation above (max. error ~1.5e-7, so not the C library's erf), with SLEEF's exp.

    >>> erf(np.float32([0.5, -1.0]))
    array([ 0.5205001 , -0.84270066], dtype=float32)
    """
    x = np.asarray(x, dtype=_F32)
    a = np.abs(x).astype(_F64)
    t = (_F32(1) / (a * _ERF_P + 1.0).astype(_F32)).astype(_F64)  # 1 / fma(p, |x|, 1)
    r = np.full_like(t, _ERF_POLY[0])
    for c in _ERF_POLY[1:]:  # fma(r, t, c) each
        r *= t
        r += c
        r = r.astype(_F32).astype(_F64)
    e = expf(-(x * x))
    u = (-e * t.astype(_F32)).astype(_F64)  # -exp(-x^2) * t, one float32 rounding
    u *= r
    u += 1.0  # fma(u, r, 1)
    u = u.astype(_F32)
    return np.where(np.signbit(x), -u, u)  # (x's sign bit on the result, as ATen's xor)


def vector_part(n):
    """Leading elements of a contiguous run of ``n`` that PyTorch's elementwise loop
    (``cpu_kernel_vec``) computes with vectors: whole pairs of them."""
    step = 2 * VEC_LANES
    return n - n % step


def by_vector_runs(x, vector_fn, scalar_fn):
    """``f(x)`` for an elementwise float32 kernel PyTorch computes with ``vector_fn`` on the
    elements its loop vectorises and ``scalar_fn`` on the others (both map an array to one
    of its shape). Its loop runs over memory: over all of ``x`` when ``x`` is dense in some
    order of its axes (split in one range per thread above PyTorch's grain size), else over
    each row when the last axis is contiguous; a run's leading ``vector_part`` elements are
    vectorised. Elsewhere, and above ``REPLAY_LIMIT`` elements, ``scalar_fn`` does all. The
    result is laid out as ``x``."""
    n = x.size
    if not 0 < n <= REPLAY_LIMIT or x.dtype != _F32:
        return scalar_fn(x)
    order = _dense_order(x)
    if order is not None:
        y = x.transpose(order)
        flat = y.reshape(-1)  # (a view: y is C-contiguous)
        out = vector_fn(flat)
        for lo, hi in _thread_ranges(n):
            tail = lo + vector_part(hi - lo)
            if tail < hi:
                out[tail:hi] = scalar_fn(flat[tail:hi])
        return out.reshape(y.shape).transpose(np.argsort(order))
    if x.ndim and x.strides[-1] == x.itemsize:
        k = vector_part(x.shape[-1])
        if k:
            out = np.empty(x.shape, _F32)
            out[..., :k] = vector_fn(x[..., :k])
            if k < x.shape[-1]:
                out[..., k:] = scalar_fn(x[..., k:])
            return out
    return scalar_fn(x)


def _dense_order(x):
    """The order of ``x``'s axes in which it is C-contiguous (outermost first), or None."""
    if x.flags.c_contiguous:
        return tuple(range(x.ndim))
    order = tuple(sorted(range(x.ndim), key=lambda i: (-x.strides[i], i)))
    return order if x.transpose(order).flags.c_contiguous else None


GRAIN = 32768  # PyTorch's at::internal::GRAIN_SIZE


def _thread_ranges(n, grain=GRAIN):
    """The ranges ``at::parallel_for(0, n, grain)`` hands its threads: as many as PyTorch's
    thread count allows, one grain each at least, of equal (rounded up) length."""
    from .._threads import get_num_threads
    tasks = max(1, min(get_num_threads(), -(-n // grain)))
    size = -(-n // tasks) or 1  # (n = 0: no range)
    return [(lo, min(n, lo + size)) for lo in range(0, n, size)]


def inner_vector_mask(outer, inner, grain):
    """Which of ``outer * inner`` positions (as an (outer, inner) bool array) a kernel that
    walks them in order, one thread range each (``at::parallel_for`` with ``grain``), takes
    a vector of ``VEC_LANES`` at a time: in every piece of an inner row inside one range,
    the whole vectors from the piece's start; the rest one by one."""
    n = outer * inner
    p = np.arange(n)
    piece_start = p - p % inner
    piece_end = piece_start + inner
    for lo, hi in _thread_ranges(n, grain):
        if lo or hi < n:
            inside = (p >= lo) & (p < hi)
            piece_start[inside] = np.maximum(piece_start[inside], lo)
            piece_end[inside] = np.minimum(piece_end[inside], hi)
    length = piece_end - piece_start
    return (p - piece_start < length - length % VEC_LANES).reshape(outer, inner)
