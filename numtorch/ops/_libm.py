"""Elementwise math functions rounded as PyTorch's CPU kernels round them.

NumPy's float32 ``exp``, ``tanh``, ``log``, ``sin``... are fast SIMD approximations that
miss the correctly rounded result in 10-40 % of elements. PyTorch's kernels (SLEEF, MKL's
vector math) are within an ulp and most often correctly rounded, so NumPy's float32 results
differ from PyTorch's in the last bit that often, and a printed ``loss.item()`` follows.
Evaluating in float64 and rounding once to float32 gives PyTorch's bits almost everywhere
(measured on 5,000 normal samples, elements that differ from PyTorch, NumPy's float32 ->
rounded float64: exp 2012 -> 45, tanh 1661 -> 7, expm1 594 -> 4, log10 2507 -> 3, cosh
1882 -> 3; log, sin, cos, atan about halve). For float64 the same holds of a few functions
through long double, where the platform has a wider one (x86 Linux): exp 246 -> 26, tanh
1041 -> 34, cosh 341 -> 4; above ``WIDE64_LIMIT`` elements it would cost too much (long
double math is scalar), and those keep NumPy's float64.

``wrap(np_fn)`` returns the rounded version of a NumPy ufunc (itself when nothing applies):

>>> x = np.float32([0.37719065])
>>> int(exp(x).view(np.uint32)[0]), int(np.exp(x).view(np.uint32)[0])
(1069196728, 1069196727)
"""
import numpy as np

__all__ = ["wrap", "exp", "expm1", "log", "log1p", "sin", "cos", "sinh", "cosh", "tanh"]

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_HAS_WIDE = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant
WIDE64_LIMIT = 1 << 16

# float32 functions better rounded through float64 (all PyTorch's float32 transcendentals
# measured, except asinh/acosh: PyTorch composes those from other functions)
_WIDE32 = (np.exp, np.exp2, np.expm1, np.log, np.log2, np.log10, np.log1p, np.sin, np.cos,
           np.tan, np.sinh, np.cosh, np.tanh, np.arcsin, np.arccos, np.arctan, np.arctanh)
# float64 functions better rounded through long double (for asin/acos it is worse)
_WIDE64 = (np.exp, np.log, np.log10, np.sin, np.cos, np.tan, np.sinh, np.cosh, np.tanh,
           np.arctanh)


def wrap(np_fn):
    """``np_fn`` evaluated one precision up for float32 (and, for some, float64) arrays and
    rounded once to the input's dtype; other dtypes (and scalars) as ``np_fn`` itself."""
    if np_fn not in _WIDE32:
        return np_fn
    wide64 = _HAS_WIDE and np_fn in _WIDE64

    def rounded(x, out=None):
        dt = getattr(x, "dtype", None)
        if dt is _F32:
            # (NumPy scalars have astype too: a 0-d input stays a scalar, as with np_fn)
            r = np_fn(x, dtype=np.float64)
        elif dt is _F64 and wide64 and x.size <= WIDE64_LIMIT:
            r = np_fn(x.astype(np.longdouble))
        else:
            return np_fn(x) if out is None else np_fn(x, out=out)
        if out is None:
            return r.astype(dt)
        np.copyto(out, r, casting="unsafe")
        return out
    rounded.__name__ = rounded.__qualname__ = np_fn.__name__
    rounded.__doc__ = f"``np.{np_fn.__name__}``, rounded as PyTorch's kernel (see numtorch.ops._libm)."
    return rounded


exp, expm1, log, log1p = wrap(np.exp), wrap(np.expm1), wrap(np.log), wrap(np.log1p)
sin, cos, sinh, cosh, tanh = wrap(np.sin), wrap(np.cos), wrap(np.sinh), wrap(np.cosh), \
    wrap(np.tanh)

