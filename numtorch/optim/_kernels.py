"""In-place array updates rounding as PyTorch's CPU kernels do (for the optimizers).

PyTorch's ``add_(other, alpha)``, ``lerp_`` and ``addcmul_`` are fused multiply-adds in its
vectorised kernels; ``addcdiv_`` multiplies, divides, then adds. (PyTorch's float ``sqrt``
goes through MKL's vector math, which is not correctly rounded, so optimizers that take a
square root agree to about one ulp per step, not bit for bit.) Scalars are cast to the array's dtype
first, as the kernels do, so float32 state stays float32 step for step.

>>> import numpy as np
>>> x = np.ones(2, np.float32)
>>> _ = add_(x, np.full(2, 2, np.float32), alpha=-0.5); x
array([0., 0.], dtype=float32)
"""
import numpy as np

from .. import _random as R


def fma(a, b, c, out=None):
    """a * b + c rounded once (float32/float64), else plainly; into ``out`` when given."""
    dt = np.result_type(a, c)
    if dt == np.float32:
        return R._fma32(a, b, c, out=out)
    res = R._fma64(a, b, c) if dt == np.float64 else a * b + c
    if out is None:
        return res
    out[...] = res
    return out


def _s(x, v):
    return x.dtype.type(v)


def add_(x, other, alpha=1):
    """x += alpha * other (one fma)."""
    if alpha == 1:
        np.add(x, other, out=x)
    else:
        fma(other, _s(x, alpha), x, out=x)
    return x


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
    else:
        fma(w - _s(x, 1), diff, end, out=x)
    return x


def addcmul_(x, t1, t2, value=1):
    """x += value * t1 * t2 (PyTorch's kernel fuses the last multiply with the add)."""
    fma(_s(x, value) * t1, t2, x, out=x)
    return x


def addcdiv_(x, t1, t2, value=1):
    """x += value * t1 / t2."""
    x[...] = x + _s(x, value) * t1 / t2
    return x


def bump(t):
    """Count an in-place change of Tensor ``t``."""
    t._vc[0] += 1
