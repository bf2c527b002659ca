"""The values of ``arange``, ``linspace`` and ``logspace``, rounded exactly as PyTorch's CPU
kernels round them.

PyTorch computes these element by element in C++, so its last bits depend on the order of
operations, on the precision of each step and on whether the compiler fused a multiply and an
add (its AVX2 kernels are built with FMA contraction, its baseline kernels are not; on a CPU
with AVX2, PyTorch runs the AVX2 build, also where it reports AVX512, since range kernels have
no AVX512 build). This module replays those operations with NumPy:

- ``arange``: in the accumulate type (double for float/double, float for half), element ``i``
  is ``start + step * i``; in chunks of one 32-byte vector, elements are ``base + k * step``
  from the chunk's first element ``base`` (two chunks per loop turn; the tail is scalar).
- ``linspace``: in the output type, the first half ``start + step * i``, the second half
  ``end - step * (steps - 1 - i)``, with ``step = (end - start) / (steps - 1)``.
- ``logspace``: ``base ** e`` in double, with the exponent from a linspace in double whose
  start, end and difference are first rounded to the output type (no FMA: built once).

>>> import numpy as np
>>> linspace_values(0.0, 1.0, 3, np.dtype(np.float32)).tolist()
[0.0, 0.5, 1.0]
"""
import math
import os

import numpy as np

__all__ = ["arange_values", "arange_size", "linspace_values", "logspace_values"]

_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)
_VECTOR_BYTES = 32  # the AVX2 and baseline builds both use 256-bit Vectorized<T>


def _detect_fma():
    """Whether PyTorch on this CPU runs kernels compiled with fused multiply-adds."""
    capability = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if capability == "default":
        return False
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # NumPy < 2
        from numpy.core._multiarray_umath import __cpu_features__ as features
    return bool(features.get("AVX2") and features.get("FMA3"))


FMA = _detect_fma()


# ---- fused multiply-add in float64 --------------------------------------------------------
_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitter for float64


def _split(a):
    t = _SPLIT * a
    hi = t - (t - a)
    return hi, a - hi


def fma64(a, b, c):
    """``a * b + c`` with a single rounding (float64 arrays), as an FMA instruction computes it.

    NOTE: the product's rounding error comes from Dekker's exact product and the sum's from
    Knuth's two-sum, so the result is the correctly rounded value except where adding the two
    error terms rounds again across a tie: vanishingly rare, and never for the small integer
    multipliers the range kernels use with ``|a * b|`` below 2**1000.
    """
    a, b, c = (np.asarray(v, _F64) for v in (a, b, c))
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    p_err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    s_err = (p - (s - bb)) + (c - bb)
    out = s + (p_err + s_err)
    return np.where(np.isfinite(p) & np.isfinite(s), out, s)


def fma32(a, b, c):
    """``a * b + c`` for float32 values with one rounding to float32.

    The product of two float32 values is exact in float64; the sum is rounded to float64 and
    then to float32, and the rare tie that this double rounding creates is settled with the
    sum's exact error term.
    """
    a, b, c = (np.asarray(v, _F32).astype(_F64) for v in (a, b, c))
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    r = s.astype(_F32)
    toward = np.nextafter(r, np.where(s > r.astype(_F64), np.inf, -np.inf).astype(_F32))
    tie = (s - r.astype(_F64)) * 2 == (toward.astype(_F64) - r.astype(_F64))
    move = tie & (err != 0) & (np.sign(err) == np.sign(s - r.astype(_F64)))
    return np.where(move, toward, r)


def _mul_add(a, b, c, precision):
    """``a * b + c`` as PyTorch's kernel computes it in ``precision`` (float32 or float64)."""
    if precision == _F32:
        if FMA:
            return fma32(a, b, c)
        return (np.asarray(a, _F32) * np.asarray(b, _F32) + np.asarray(c, _F32)).astype(_F32)
    if FMA:
        return fma64(a, b, c)
    return np.asarray(a, _F64) * np.asarray(b, _F64) + np.asarray(c, _F64)


# ---- arange ------------------------------------------------------------------------------
def arange_size(start, end, step, npdt):
    """The element count PyTorch gives ``arange(start, end, step)`` for output ``npdt``."""
    if npdt == np.dtype(np.int64):
        sgn = (step > 0) - (step < 0)
        num = end - start + step - sgn
        quotient = abs(num) // abs(step)  # C++ integer division truncates toward zero
        return max(0, quotient if (num >= 0) == (step > 0) else -quotient)
    return max(0, int(np.ceil((float(end) - float(start)) / float(step))))


def arange_values(start, step, n, npdt):
    """``n`` values ``start + step * i`` in ``npdt``, rounded as PyTorch's arange kernel."""
    if npdt.kind in "iub":
        return (start + step * np.arange(n, dtype=np.int64)).astype(npdt)
    acc = _F32 if npdt == _F16 else _F64  # at::acc_type on the CPU
    idx = np.arange(n, dtype=_F64)
    width = _VECTOR_BYTES // npdt.itemsize
    n_vec = n // (2 * width) * 2 * width  # vector chunks, two per loop turn; tail is scalar
    chunk = np.floor(idx[:n_vec] / width) * width
    base = _mul_add(step, chunk, start, acc).astype(npdt).astype(acc)
    out = np.empty(n, npdt)
    out[:n_vec] = _mul_add(idx[:n_vec] - chunk, step, base, acc).astype(npdt)
    out[n_vec:] = _mul_add(step, idx[n_vec:], start, acc).astype(npdt)
    return out


# ---- linspace ----------------------------------------------------------------------------
def linspace_values(start, end, steps, npdt):
    """``steps`` values from ``start`` to ``end``, rounded as PyTorch's linspace kernel."""
    if steps == 0:
        return np.zeros(0, npdt)
    if steps == 1:
        return np.full(1, start, npdt)
    if npdt == _F16:
        return _linspace_half(start, end, steps)
    if npdt.kind == "c":
        return _linspace_plain(start, end, steps, npdt)
    if npdt.kind in "iub":
        # NOTE: integral outputs step in double from start and end truncated to the type
        s, e = float(to_integral(start, npdt)), float(to_integral(end, npdt))
        step = (e - s) / (steps - 1)
        work = _F64
    else:
        work = npdt
        s, e = work.type(start), work.type(end)
        step = work.type(work.type(e - s) / work.type(steps - 1))
    half = steps // 2
    idx = np.arange(steps, dtype=_F64)
    first = _mul_add(step, idx[:half], s, work)
    second = _mul_add(-step, steps - 1 - idx[half:], e, work)
    out = np.concatenate([np.asarray(first, work), np.asarray(second, work)])
    if npdt.kind in "iub":
        out = np.trunc(out)
    return out.astype(npdt)


def _linspace_half(start, end, steps):
    """float16: every operation rounds to half through float, as c10::Half arithmetic does."""
    h = np.float16
    s, e = h(start), h(end)
    step = h(np.float32(h(np.float32(e) - np.float32(s))) / np.float32(h(steps - 1)))
    half = steps // 2
    idx = np.arange(steps)
    fwd = (np.float32(step) * idx[:half].astype(_F16).astype(_F32)).astype(_F16)
    bwd = (np.float32(step) * (steps - 1 - idx[half:]).astype(_F16).astype(_F32)).astype(_F16)
    first = (np.float32(s) + fwd.astype(_F32)).astype(_F16)
    second = (np.float32(e) - bwd.astype(_F32)).astype(_F16)
    return np.concatenate([first, second])


def _linspace_plain(start, end, steps, npdt):
    s, e = npdt.type(start), npdt.type(end)
    step = (e - s) / (steps - 1)
    idx = np.arange(steps)
    half = steps // 2
    return np.concatenate([s + step * idx[:half], e - step * (steps - 1 - idx[half:])]
                          ).astype(npdt)


_C_TYPES = {"int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
            "uint8": "uint8_t"}


def to_integral(value, npdt):
    """``value`` converted to an integral dtype as c10's checked Scalar conversion does: floats
    truncate and must fit; negative ints wrap into unsigned types (down to -max)."""
    if isinstance(value, complex):
        value = value.real
    if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 64:
        raise OverflowError("int too big to convert")
    if npdt.kind == "b":
        return np.bool_(value)
    info = np.iinfo(npdt)
    if isinstance(value, float):
        ok = info.min <= value <= info.max  # False for nan and inf
    elif info.min == 0:
        ok = -int(info.max) <= value <= info.max
    else:
        ok = info.min <= value <= info.max
    if not ok:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPES[npdt.name]} without "
                           "overflow")
    return np.array(int(value)).astype(npdt)[()]


# ---- logspace ----------------------------------------------------------------------------
def logspace_values(start, end, steps, base, npdt):
    """``base ** linspace(start, end)``, rounded as PyTorch's logspace loop."""
    if steps == 0:
        return np.zeros(0, npdt)
    if steps == 1:
        return np.full(1, math.pow(float(base), float(start)), npdt)
    if npdt.kind == "c":
        return np.power(complex(base), _linspace_plain(start, end, steps, npdt)).astype(npdt)
    if npdt.kind in "iub":
        s, e = to_integral(start, npdt), to_integral(end, npdt)
    else:
        s, e = npdt.type(start), npdt.type(end)
    if npdt.kind in "iub":  # NOTE: C++ promotes types narrower than int: uint8 2 - 4 is -2
        diff = float(int(e) - int(s)) if npdt.itemsize < 4 else float((e - s).astype(npdt))
    else:
        diff = float(npdt.type(e - s))
    step = diff / (steps - 1)
    half = steps // 2
    idx = np.arange(steps, dtype=_F64)
    exps = np.concatenate([float(s) + step * idx[:half],
                           float(e) - step * (steps - 1 - idx[half:])])
    out = np.array([_pow(float(base), x) for x in exps.tolist()], _F64)
    if npdt == _F16:
        out = out.astype(_F32)  # c10::Half converts a double through float
    return (np.trunc(out) if npdt.kind in "iub" else out).astype(npdt)


def _pow(base, exponent):
    """``base ** exponent`` through the C library's pow, as PyTorch's loop calls it.

    NOTE: NumPy's own vectorised power can differ from libm's in the last bit.
    """
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan
