"""In-place array updates rounding as PyTorch's CPU kernels do (for the optimizers).

PyTorch's ``add_(other, alpha)``, ``lerp_`` and ``addcmul_`` are fused multiply-adds in its
vectorised kernels; ``addcdiv_`` multiplies, divides, then adds. (PyTorch's float ``sqrt``
goes through MKL's vector math, which is not correctly rounded, so optimizers that take a
square root agree to about one ulp per step, not bit for bit.) Scalars are cast to the array's dtype
first, as the kernels do, so float32 state stays float32 step for step.

A scalar-times-array fused multiply-add (``add_``, ``lerp_``) runs on the hardware through
BLAS ``?axpy`` (or ``?gemm``, where only that fuses) when SciPy is installed and it proves,
once per dtype, to round exactly as the emulation in ``_random`` does (see
``_axpy_is_fma``); otherwise, and for the array-times-array ``addcmul_``, the emulation
runs.

>>> import numpy as np
>>> x = np.ones(2, np.float32)
>>> _ = add_(x, np.full(2, 2, np.float32), alpha=-0.5); x
array([0., 0.], dtype=float32)
"""
import math
import os

import numpy as np

from .. import _random as R

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_AXPY = {}                  # dtype -> verified BLAS axpy, or None where it cannot be used
_BLAS_MAX = 2 ** 31 - 1     # SciPy's BLAS takes 32-bit lengths
_CHUNK = 8192               # axpy length per call, below OpenBLAS's threading threshold
_SMALL = 1024               # below this, temporaries cost less than extra in-place calls


def fma(a, b, c, out=None):
    """a * b + c rounded once (float32/float64), else plainly; into ``out`` when given."""
    if out is c and type(b) is not type(a) and _axpy_(c, a, b):     # scalar * array
        return c
    dt = np.result_type(a, c)
    if dt == np.float32:
        return R._fma32(a, b, c, out=out)
    res = R._fma64(a, b, c) if dt == np.float64 else a * b + c
    if out is None:
        return res
    out[...] = res
    return out


def _axpy_(y, a, b):
    """y += a * b in place with one rounding through BLAS, if it applies; True if done.

    It applies when one factor is a scalar of ``y``'s dtype and the other an array of ``y``'s
    dtype and shape, both contiguous and not overlapping.
    """
    if isinstance(a, np.ndarray) and a.ndim:
        a, b = b, a
    if not (isinstance(a, np.floating) and type(b) is np.ndarray and type(y) is np.ndarray
            and a.dtype == y.dtype == b.dtype and b.shape == y.shape):
        return False
    # NOTE: OpenBLAS skips alpha == 0 (no -0 + 0 = +0, no 0 * inf = nan), so that stays
    # with the emulation, as do non-finite scalars
    if a == 0 or not math.isfinite(a) or not 0 < y.size <= _BLAS_MAX:
        return False
    fy, fb = y.flags, b.flags
    if not (fy.c_contiguous and fb.c_contiguous and fy.writeable and fy.aligned
            and fb.aligned) or (b is not y and np.may_share_memory(b, y)):
        return False
    axpy = _blas_axpy(y.dtype)
    if axpy is None:
        return False
    _chunked(axpy, b.reshape(-1), y.reshape(-1), a)
    return True


def _chunked(axpy, x, y, a):
    """axpy on 1-D contiguous ``x``, ``y`` in pieces of ``_CHUNK``: y += a * x in place
    (in one piece where OpenBLAS runs on one thread).

    NOTE: OpenBLAS threads an axpy longer than 10000; waking its threads on a busy machine
    costs milliseconds, a piece costs a microsecond.
    """
    n = y.size
    if n <= _CHUNK or _one_blas_thread():
        return axpy(x, y, a=a)
    res = None
    for i in range(0, n, _CHUNK):
        res = axpy(x[i:i + _CHUNK], y[i:i + _CHUNK], a=a)
    return res


_ONE_THREAD = []            # _one_blas_thread's answer, once known


def _one_blas_thread():
    """Whether OpenBLAS runs on one thread: the machine has one core, or the variable it reads
    first of OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS, OMP_NUM_THREADS says 1 (read once: it
    reads them when it loads)."""
    if not _ONE_THREAD:
        one = (os.cpu_count() or 1) == 1
        for var in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"):
            value = os.environ.get(var, "").strip()
            if value:
                one = one or value == "1"
                break
        _ONE_THREAD.append(one)
    return _ONE_THREAD[0]


def _blas_axpy(dt):
    """An ``axpy(x, y, a=)`` (y += a * x in place, returning y) of SciPy's BLAS for ``dt``
    that rounds as a true fused multiply-add: ``?axpy`` itself, else ``?gemm`` made one
    (``_gemm_axpy``), else None."""
    if dt not in _AXPY:
        try:
            from scipy.linalg import blas
        except ImportError:
            _AXPY[dt] = None
        else:
            _AXPY[dt] = None
            if dt in (_F32, _F64):
                double = dt == _F64
                for axpy in (blas.daxpy if double else blas.saxpy,
                             _gemm_axpy(blas.dgemm if double else blas.sgemm, dt)):
                    if _axpy_is_fma(axpy, dt):
                        _AXPY[dt] = axpy
                        break
    return _AXPY[dt]


def _gemm_axpy(gemm, dt):
    """y += a * x as the product of the column ``x`` and the 1x1 matrix [1], added to the
    column ``y`` by ``gemm`` (C = alpha A B + C).

    NOTE: where OpenBLAS's ``?axpy`` kernel multiplies and adds apart (two roundings: seen
    on AMD EPYC), its gemm kernels still finish each element with one fused multiply-add,
    C = alpha * (A B) + C, and A B is exactly x: the fused update, in ~1/3 of the time of
    the float64 emulation. ``_axpy_is_fma`` checks that on every machine before use.
    """
    one = np.ones((1, 1), dt)

    def axpy(x, y, a=1.0):
        gemm(a, x.reshape(-1, 1), one, beta=1.0, c=y.reshape(-1, 1), overwrite_c=1)
        return y
    return axpy


def _axpy_is_fma(axpy, dt):
    """Whether ``axpy`` matches the exact emulation bit for bit, in place, at every position.

    Vector kernels process blocks and finish with a scalar loop, so every length up to 70
    and two long ones are tried, each element once on a product whose separate rounding
    would change the sum, once on random values.
    """
    rng = np.random.RandomState(0)
    exact = R._fma32 if dt == _F32 else R._fma64
    for n in list(range(1, 71)) + [1001, _CHUNK + 37]:
        for b, y, a in (_double_rounding_case(n, dt, rng), _random_case(n, dt, rng)):
            got = y.copy()
            res = _chunked(axpy, b, got, a)
            want = np.asarray(exact(a, b, y), dt)
            if not (np.shares_memory(res, got) and _same_bits(got, want)):
                return False
    return True


def _double_rounding_case(n, dt, rng):
    """(1 + u)^2 - (1 + 2u) = u^2, scaled by random powers of two and signs: a fused
    multiply-add gives u^2 * scale, a rounded product then a sum gives 0."""
    u = 2.0 ** (-12 if dt == _F32 else -27)
    scale = np.ldexp(rng.choice([-1.0, 1.0], n), rng.randint(-40, 40, n))
    b = ((1 + u) * scale).astype(dt)
    return b, (-(1 + 2 * u) * scale).astype(dt), dt.type(1 + u)


def _random_case(n, dt, rng):
    b = (rng.standard_normal(n) * np.ldexp(1.0, rng.randint(-8, 8, n))).astype(dt)
    return b, rng.standard_normal(n).astype(dt), dt.type(rng.standard_normal())


def _same_bits(x, y):
    return x.shape == y.shape and x.tobytes() == y.tobytes()


def _s(x, v):
    return x.dtype.type(v)


def add_(x, other, alpha=1):
    """x += alpha * other (one fma)."""
    if alpha == 1:
        np.add(x, other, out=x)
    else:
        fma(other, _s(x, alpha), x, out=x)
    return x


def descend_(t, g, lr):
    """``t -= lr * g`` for a Tensor ``t`` and an array ``g``: ``add_(t._data, g, -lr)`` (one
    rounding) and the change counted. The usual call (a verified BLAS axpy for the dtype, the
    same shape and dtype, contiguous, no overlap) takes one axpy with the checks inline: the
    plain SGD step of every parameter."""
    y = t._data
    dt = y.dtype
    axpy = _AXPY.get(dt)
    a = dt.type(-lr)
    n = y.size
    if axpy is not None and g.dtype is dt and g.shape == y.shape and a != 0 and \
            math.isfinite(a) and 0 < n <= _BLAS_MAX and (n <= _CHUNK or _one_blas_thread()):
        fy, fg = y.flags, g.flags
        if fy.c_contiguous and fg.c_contiguous and fy.writeable and fy.aligned and \
                fg.aligned and not np.may_share_memory(g, y):
            axpy(g.reshape(-1), y.reshape(-1), a=a)
            bump(t)
            return
    add_(y, g, -lr)
    bump(t)


def add(x, other, alpha=1):
    return add_(x.copy(), other, alpha)


def mul_(x, v):
    np.multiply(x, _s(x, v) if np.ndim(v) == 0 else v, out=x)
    return x


def lerp_(x, end, weight):
    """x += weight * (end - x), PyTorch's two-sided formula."""
    w = _s(x, weight)
    diff = end - x
    if abs(float(w)) < 0.5:
        fma(w, diff, x, out=x)
    elif type(end) is np.ndarray and end.dtype == x.dtype and end.shape == x.shape:
        np.copyto(x, end)           # x = (w - 1) * diff + end, with end moved in first
        fma(w - _s(x, 1), diff, x, out=x)
    else:
        fma(w - _s(x, 1), diff, end, out=x)
    return x


def addcmul_(x, t1, t2, value=1):
    """x += value * t1 * t2 (PyTorch's kernel fuses the last multiply with the add)."""
    fma(_s(x, value) * t1, t2, x, out=x)
    return x


def addcdiv_(x, t1, t2, value=1):
    """x += value * t1 / t2."""
    q = _s(x, value) * t1
    if (type(q) is np.ndarray and q.size > _SMALL and q.dtype == x.dtype == t2.dtype
            and q.shape == x.shape):
        np.divide(q, t2, out=q)     # the same roundings as below, without temporaries
        np.add(x, q, out=x)
    else:
        x[...] = x + q / t2
    return x


def sqrt_div_add(v, div, add):
    """sqrt(v) / div + add as a new array of v's dtype (one allocation, not three)."""
    if v.size <= _SMALL:
        r = np.sqrt(v)
        return (r if div == 1 else r / _s(v, div)) + _s(v, add)
    r = np.sqrt(v, out=np.empty_like(v))
    if div != 1:            # x / 1 is x exactly
        np.divide(r, _s(v, div), out=r)
    np.add(r, _s(v, add), out=r)
    return r


def bump(t):
    """Count an in-place change of Tensor ``t``."""
    vc = t._vcs  # (None: no counter list yet, version 0; see Tensor._vc)
    if vc is None:
        t._vcs = [1]
    else:
        vc[0] += 1
