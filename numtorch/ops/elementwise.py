"""Elementwise ops: arithmetic with PyTorch's type promotion, comparisons, unary math.

Each differentiable op is a ``BuiltinFunction``: forward on ndarrays, backward as Tensor
expressions (so it differentiates again). Gradients come back in the broadcast shape; the
engine sums them down to each input's shape.

>>> import numtorch as torch
>>> x = torch.tensor([1., 2.], requires_grad=True)
>>> (x * x + 1).sum().backward(); x.grad
tensor([2., 4.])
"""
import cmath
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd._interpose import STATE as _FW, Unbatchable as _Unbatchable
from . import _base as _B, _libm, _vector_math
from ._base import BuiltinFunction
from ..autograd.grad_mode import STATE
from ..autograd.function import saved_one
from ..autograd.graph import unpack_saved
from ._util import (not_a_tensor, no_complex, no_complex_kernel, binary_dtype, cast, float_np,
                    result_np, as_array, scalar_array, zero_where, _SCALARS)

_ndarray = np.ndarray
_make = Tensor._make


def operand(x, op="add"):
    """Normalise a binary op's operand: Tensor or Python scalar (NumPy values converted)."""
    if isinstance(x, Tensor) or type(x) in (int, float, bool, complex):
        return x
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return _make(x, None, False)
    if isinstance(x, (int, float, complex)):
        return x
    raise TypeError(f"{op}(): argument 'other' (position 2) must be Tensor, not "
                    f"{type(x).__name__}")


_UNSAVED = object()  # _save_pair's operand that backward will not need (saved as None)


def _save_pair(ctx, a, b):
    """Save array operands; a Python-scalar operand is kept as a ctx attribute."""
    ctx.save_for_backward(a if type(a) is _ndarray else None,
                          b if type(b) is _ndarray else None)
    if a is _UNSAVED:
        if type(b) is not _ndarray:
            ctx.scalar = b
    elif type(a) is not _ndarray:
        ctx.scalar = a
    elif type(b) is not _ndarray:
        ctx.scalar = b


def saved_other_first(ctx):
    """``ctx.saved_tensors`` of a binary op's node that saved ``(self, other)``, unpacked
    ``other`` first, as PyTorch's MulBackward0 / DivBackward0 / Atan2Backward0 do (the order
    saved-tensor unpack hooks run in)."""
    saved = ctx._saved
    if type(saved) is tuple and len(saved) == 2 and \
            not ctx._forward_cls.clear_saved_tensors_on_access:
        b = unpack_saved(saved[1], ctx)
        return unpack_saved(saved[0], ctx), b
    return ctx.saved_tensors


def _pair(ctx):
    a, b = saved_other_first(ctx)
    if a is None:
        a = ctx.scalar
    if b is None:
        b = ctx.scalar
    return a, b


def _cj(x):
    """``conj(x)`` for a complex Tensor or Python complex, else ``x`` itself: PyTorch's gradients
    are conjugate Wirtinger derivatives (``d(a*b)/da`` gives ``g * conj(b)``). A dtype check
    only, so the real path builds no extra node."""
    if type(x) is complex:
        return x.conjugate()
    if isinstance(x, Tensor) and x._data.dtype.kind == "c":
        return x.conj()
    return x


def _alpha(alpha, dt):
    """``alpha`` for an integer result wrapped into ``dt`` (uint8 with alpha=-3: 253)."""
    return alpha if dt.kind in "fc" else cast(alpha, dt)


# ---- arithmetic ------------------------------------------------------------------------
class Add(BuiltinFunction):
    """out = a + alpha * b;  da = g, db = alpha * g."""
    _backward_name = "AddBackward0"
    _wrapped_scalars = (0, 1)

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        if alpha == 1 and type(a) is _ndarray:  # fast paths: same dtypes, or a Python number
            tb = type(b)
            if tb is _ndarray:
                if a.dtype is b.dtype:
                    return np.add(a, b)
            elif (tb is float or tb is int) and a.dtype.kind in "fc":
                return np.add(a, scalar_array(b, a.dtype))
        dt = binary_dtype(a, b)
        if alpha != 1:
            ctx.alpha = alpha
            if dt is _F16:
                return _half_axpy(cast(a, dt), cast(b, dt), alpha)
            b = np.multiply(cast(b, dt), _alpha(alpha, dt)) if type(b) is _ndarray else b * alpha
        return np.add(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad[:2]
        if not nb:  # ``tensor + number`` (no alpha lookup: getattr's default costs a raise)
            return (g if na else None), None
        alpha = getattr(ctx, "alpha", 1)
        return (g if na else None), (g if alpha == 1 else g * alpha)

    @staticmethod
    def _np_backward(ctx, d):
        na, nb = ctx.needs_input_grad[:2]
        if not nb:
            return (d if na else None), None
        if "alpha" in ctx.__dict__:
            return NotImplemented
        return (d if na else None), d


def _is_bool(v):
    return type(v) is bool or type(v) is _ndarray and v.dtype.kind == "b"


def _bool_sub_error(dt):
    """PyTorch refuses ``-`` with any bool operand (a Python bool included)."""
    if dt.kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                       "If you are trying to invert a mask, use the `~` or `logical_not()` "
                       "operator instead.")


class AddScalar(Add):
    """ATen's ``add.Scalar``: ``tensor + number`` inside PyTorch's C++ composites (rms_norm's
    ``+ eps``), whose node is AddBackward1 with no edge for the number (Python's
    ``t + 2.0`` is AddBackward0, the number wrapped as a tensor with edge ``(None, 0)``)."""
    _backward_name = "AddBackward1"
    _wrapped_scalars = ()


class Sub(BuiltinFunction):
    """out = a - alpha * b;  da = g, db = -alpha * g."""
    _backward_name = "SubBackward0"
    _wrapped_scalars = (0, 1)

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        dt = binary_dtype(a, b)
        if dt.kind == "b" or _is_bool(a) or _is_bool(b):
            _bool_sub_error(dt)
        ctx.alpha = alpha
        if alpha != 1:
            if dt is _F16:
                return _half_axpy(cast(a, dt), cast(b, dt), -alpha)
            b = np.multiply(cast(b, dt), _alpha(alpha, dt)) if type(b) is _ndarray else b * alpha
        return np.subtract(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad[:2]
        return (g if na else None), ((-g if ctx.alpha == 1 else g * -ctx.alpha) if nb else None)

    @staticmethod
    def _np_backward(ctx, d):
        if ctx.alpha != 1:
            return NotImplemented
        na, nb = ctx.needs_input_grad[:2]
        return (d if na else None), (as_array(np.negative(d)) if nb else None)


class SubScalar(Sub):
    """ATen's ``sub.Scalar``: ``tensor - number`` inside PyTorch's C++ composites
    (cosine_embedding_loss's ``cos - margin``): SubBackward1, no edge for the number."""
    _backward_name = "SubBackward1"
    _wrapped_scalars = ()


class Rsub(BuiltinFunction):
    """out = b - alpha * a (``scalar - tensor``);  da = -alpha * g."""
    _backward_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        ctx.alpha = alpha
        if alpha == 1 and type(a) is _ndarray and (type(b) is float or type(b) is int) \
                and a.dtype.kind in "fc":  # fast path: Python number - float tensor
            return np.subtract(scalar_array(b, a.dtype), a)
        dt = binary_dtype(a, b)
        if dt.kind == "b" or _is_bool(a) or _is_bool(b):
            _bool_sub_error(dt)
        return np.subtract(cast(b, dt), np.multiply(cast(a, dt), _alpha(alpha, dt)) if alpha != 1
                           else cast(a, dt))

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad[:2]   # b is a tensor in torch.rsub(x, y)
        return (-g if ctx.alpha == 1 else g * -ctx.alpha) if na else None, g if nb else None


class Mul(BuiltinFunction):
    """out = a * b;  da = g * b, db = g * a."""
    _backward_name = "MulBackward0"
    _saves_operands = True
    _wrapped_scalars = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        if type(a) is _ndarray:  # fast paths: same dtypes, or a Python number
            tb = type(b)
            if tb is _ndarray:
                if a.dtype is b.dtype:
                    # as PyTorch: each operand is saved only for the other one's gradient
                    na, nb = ctx.needs_input_grad[:2]
                    ctx.save_for_backward(a if nb else None, b if na else None)
                    return np.multiply(a, b)
            elif (tb is float or tb is int) and a.dtype.kind in "fc":
                ctx.scalar = b  # a Python number: the tensor itself is not needed
                ctx._saved = _B.SCALAR_SAVED
                dt = a.dtype
                if dt is _F16:
                    return _half_scalar(np.multiply, a, b)
                return np.multiply(a, scalar_array(b, dt))
        dt = binary_dtype(a, b)
        _save_pair(ctx, a, b)
        if dt is _F16 and _cpu_scalar(b):
            return _half_scalar(np.multiply, cast(a, dt), b)
        return np.multiply(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        if ctx._saved is _B.SCALAR_SAVED:  # tensor * Python number (once freed, the
            # general path's saved_tensors raises)
            return (_times(g, ctx.scalar) if ctx.needs_input_grad[0] else None), None
        na, nb = ctx.needs_input_grad[:2]
        a, b = saved_other_first(ctx)
        return (_times(g, ctx.scalar if b is None else b) if na else None), \
            (_times(g, ctx.scalar if a is None else a) if nb else None)

    @staticmethod
    def _np_backward(ctx, d):
        # NOTE: for real floating data of one dtype, the np.multiply the Tensor op in
        # _times would call; anything else is the Tensor formula's
        dt = d.dtype
        if dt.kind != "f" or dt is _F16:
            return NotImplemented
        na, nb = ctx.needs_input_grad[:2]
        if ctx._saved is _B.SCALAR_SAVED:  # tensor * Python number (not yet freed)
            v = ctx.scalar
            if not na:
                return None, None
            tv = type(v)
            if tv is float or tv is int:
                return as_array(np.multiply(d, number_array(v, dt))), None
            return NotImplemented
        a, b = saved_other_first(ctx)
        ga = gb = None
        if na:
            ga = _times_array(d, ctx.scalar if b is None else b)
            if ga is None:
                return NotImplemented
        if nb:
            gb = _times_array(d, ctx.scalar if a is None else a)
            if gb is None:
                return NotImplemented
        return ga, gb


def _times_array(d, v):
    """``d * v`` on arrays for a Tensor or Python number ``v`` of ``d``'s real floating
    dtype (the np.multiply of ``_times``'s Tensor op); None where the Tensor op must run."""
    dt = d.dtype
    tv = type(v)
    if tv is Tensor:
        if v._data.dtype is not dt:
            return None
        r = np.multiply(d, v._data)
    elif tv is float or tv is int:
        r = np.multiply(d, number_array(v, dt))
    else:
        return None
    return as_array(r)


def _times(g, v):
    """``g * conj(v)``, ``v`` a Tensor or a Python number."""
    return g * _cj(v)


def _true_div_dtype(a, b):
    dt = binary_dtype(a, b)
    return dt if dt.kind in "fc" else D._state["default"].np


class Div(BuiltinFunction):
    """out = a / b;  da = g / b, db = -g * ((a / b) / b) (PyTorch's order: no overflow of b*b)."""
    _backward_name = "DivBackward0"
    _wrapped_scalars = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        dt = _true_div_dtype(a, b)
        if type(a) is _ndarray and not ctx.needs_input_grad[1]:
            # as PyTorch: the dividend is saved only for the divisor's gradient (so changing
            # it in place after ``x / 2`` is no error at backward)
            _save_pair(ctx, _UNSAVED, b)
        else:
            _save_pair(ctx, a, b)
        if dt is _F16 and _cpu_scalar(b):
            return _half_scalar(np.true_divide, cast(a, dt), b)
        return np.true_divide(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad[:2]
        if nb:
            a, b = _pair(ctx)
        else:
            a, b = saved_other_first(ctx)
            if b is None:
                b = ctx.scalar
        return (g / _cj(b) if na else None), (-g * _cj((a / b) / b) if nb else None)

    @staticmethod
    def _np_backward(ctx, d):
        # NOTE: real floating data of one dtype: the true_divide / negative / multiply calls
        # the Tensor formula makes (a Python-number divisor cast as Div's forward casts it)
        dt = d.dtype
        if dt.kind != "f" or dt is _F16:
            return NotImplemented
        a, b = saved_other_first(ctx)
        na, nb = ctx.needs_input_grad[:2]
        if b is None:  # tensor / Python number
            s = ctx.scalar
            if nb or not (type(s) is float or type(s) is int):
                return NotImplemented
            return (as_array(np.true_divide(d, cast(s, dt))) if na else None), None
        y = b._data
        if y.dtype is not dt or (nb and (a is None or a._data.dtype is not dt)):
            return NotImplemented
        ga = as_array(np.true_divide(d, y)) if na else None
        gb = as_array(np.multiply(np.negative(d), np.true_divide(np.true_divide(a._data, y), y))) \
            if nb else None
        return ga, gb


class DivRounding(BuiltinFunction):
    """out = a / b rounded ('trunc' or 'floor');  da = db = 0 (PyTorch keeps the node)."""
    _backward_name = "DivBackward2"
    _wrapped_scalars = (0, 1)

    @staticmethod
    def forward(ctx, a, b, mode):
        if mode == "floor":
            return _floor_divide_arrays(a, b)
        dt = binary_dtype(a, b)
        _no_bool_result(dt, "div_trunc_cpu")
        if dt.kind in "iu":
            if (np.asarray(b) == 0).any():
                raise RuntimeError("ZeroDivisionError")
            return np.trunc(np.true_divide(a, b)).astype(dt)
        return np.trunc(np.true_divide(cast(a, dt), cast(b, dt)))

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad[:2]
        return (g * 0 if na else None), (g * 0 if nb else None)


class Pow(BuiltinFunction):
    """out = a ** b;  da = g * b * a**(b-1), db = g * out * log(a)."""
    _backward_name = "PowBackward0"

    @staticmethod
    def forward(ctx, a, b):
        dt = binary_dtype(a, b)
        if dt.kind in "iu" and _has_negative(b):
            if type(b) is not _ndarray:  # PyTorch raises only for a Python-number exponent
                raise RuntimeError("Integers to negative integer powers are not allowed.")
            _save_pair(ctx, a, b)
            return _int_pow_negative(cast(a, dt), cast(b, dt))
        _save_pair(ctx, a, b)
        if dt.kind == "b":
            if type(b) is _ndarray:
                raise NotImplementedError('"pow" not implemented for \'Bool\'')
            return np.power(a.astype(np.uint8), int(b)).astype(dt)  # NumPy would give int8
        if dt is _F32 or dt is _F64:
            return _float_pow(cast(a, dt), cast(b, dt))
        return np.power(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        na, nb = ctx.needs_input_grad[:2]
        ga = gb = None
        if na:
            if isinstance(b, Tensor):
                # (PyTorch's pow_backward_self: 0 where the exponent is 0, even at a 0 base)
                ga = where(b == 0, 0.0, g * _cj(b * pow(a, b - 1)))
            else:
                # (PyTorch's pow_backward: zeros, not g * 0, for a zero exponent)
                ga = _make(np.zeros_like(a._data), None, False) if b == 0 else \
                    g * _cj(b * pow(a, b - 1))
        if nb:
            d = pow(a, b) * (log(a) if isinstance(a, Tensor) else _log_scalar(a))
            # a zero base contributes 0 (not NaN from 0 * log 0) where the exponent is >= 0;
            # masked before g multiplies in, so a NaN g still propagates (as in PyTorch)
            if isinstance(a, Tensor):
                d = where(((a == 0) & _nonneg(b)) if isinstance(b, Tensor) else (a == 0),
                          0.0, d)
            elif a == 0 and isinstance(b, Tensor):
                d = where(_nonneg(b), 0.0, d)
            gb = g * _cj(d)
        return ga, gb


def _log_scalar(a):
    """log of a Python-number base, as a float32/64 log would give it: -inf at 0 and NaN for
    a negative real base (math.log raises there; PyTorch's gradient is NaN)."""
    if type(a) is complex:
        return cmath.log(a)
    if a > 0:
        return math.log(a)
    return -math.inf if a == 0 else math.nan


def _nonneg(b):
    """``b >= 0`` (for complex ``b``: real and non-negative, as PyTorch's pow gradient)."""
    if b._data.dtype.kind == "c":
        return (b.imag == 0) & (b.real >= 0)
    return b >= 0


class PowTensor(Pow):
    _backward_name = "PowBackward1"
    _int_edges = (0, 1)  # (an integer tensor there has an edge too)


def _float_pow(a, b):
    """float32/float64 ``a ** b`` as PyTorch's CPU kernel computes it: a scalar exponent of
    2, 3, -1 or -2 by multiplications and a division (``x ** 3`` is ``x * x * x``, rounded
    twice), 0.5 and -0.5 as square roots; any other power of float32 through float64,
    rounded once (PyTorch's vectorised pow is within an ulp; NumPy's float32 one misses the
    correctly rounded result in a fifth of elements)."""
    if type(b) is not _ndarray or b.ndim == 0:
        e = float(b)
        if e == 2:
            return np.multiply(a, a)
        if e == 3:
            return np.multiply(np.multiply(a, a), a)
        if e == -1:
            return np.reciprocal(a)
        if e == -2:
            return np.reciprocal(np.multiply(a, a))
        if e == 0.5:
            return np.sqrt(a)
        if e == -0.5:
            return _rsqrt_np(a)
    if getattr(a, "dtype", None) is _F32 or getattr(b, "dtype", None) is _F32:
        r = np.power(a, b, dtype=np.float64)
        return r.astype(_F32) if type(r) is _ndarray else _F32.type(r)
    return np.power(a, b)


def _pow_array(a, e):
    """``Pow.forward``'s result for array ``a`` and a Python number ``e`` of its dtype."""
    dt = a.dtype
    return _float_pow(a, cast(e, dt)) if dt is _F32 or dt is _F64 else np.power(a, cast(e, dt))


class PowScalarBase(Pow):
    _backward_name = "PowBackward2"


def _int_pow_negative(a, b):
    """Integer ``a ** b`` where some ``b < 0``: as PyTorch, 1 for a == 1, +-1 for a == -1,
    else 0."""
    neg = b < 0
    out = np.power(a, np.where(neg, 0, b).astype(b.dtype))
    low = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 0, 1, -1), 0))
    return np.where(neg, low, out).astype(out.dtype)


def _has_negative(b):
    return (b < 0).any() if type(b) is _ndarray else b < 0


def _no_bool_result(dt, kernel):
    """PyTorch has no bool (nor complex) kernel for the integer-division family."""
    if dt.kind == "b":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    no_complex_kernel(dt, f'"{kernel}"')


def _floor_divide_arrays(a, b):
    dt = binary_dtype(a, b)
    _no_bool_result(dt, "div_floor_cpu")
    a, b = cast(a, dt), cast(b, dt)
    if dt.kind in "iub" and (np.asarray(b) == 0).any():
        raise RuntimeError("ZeroDivisionError")
    return np.floor_divide(a, b)


class Remainder(BuiltinFunction):
    """out = a - floor(a / b) * b;  da = g, db = -g * floor(a / b)."""
    _backward_name = "RemainderBackward0"  # a scalar b; RemainderTensor for a tensor b

    @staticmethod
    def forward(ctx, a, b):
        dt = binary_dtype(a, b)
        _no_bool_result(dt, "remainder_cpu")
        _save_pair(ctx, a, b)
        a, b = cast(a, dt), cast(b, dt)
        if dt.kind in "iu" and (np.asarray(b) == 0).any():
            raise RuntimeError("ZeroDivisionError")
        if dt.kind != "f":
            return np.remainder(a, b)
        # NOTE: PyTorch corrects fmod's result by b where the signs differ, so a zero keeps
        # fmod's sign (remainder(0., -2.5) is 0., where NumPy gives -0.)
        out = np.fmod(a, b)
        fix = (out != 0) & ((out < 0) != (np.asarray(b) < 0))
        return np.add(out, b, out=as_array(out), where=fix) if fix.any() else out

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        na, nb = ctx.needs_input_grad[:2]
        return (g if na else None), (-g * floor_divide(a, b) if nb else None)


class Fmod(BuiltinFunction):
    """out = a - trunc(a / b) * b;  da = g, db = -g * trunc(a / b)."""
    _backward_name = "FmodBackward0"  # a scalar b; FmodTensor for a tensor b

    @staticmethod
    def forward(ctx, a, b):
        dt = binary_dtype(a, b)
        _no_bool_result(dt, "fmod_cpu")
        if len(ctx.needs_input_grad) > 1 and ctx.needs_input_grad[1]:
            _save_pair(ctx, a, b)  # as PyTorch: the operands only for b's gradient
        if dt.kind in "iu" and (np.asarray(b) == 0).any():
            raise RuntimeError("ZeroDivisionError")
        return np.fmod(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad[:2]
        if not nb:
            return (g if na else None), None
        a, b = _pair(ctx)
        return (g if na else None), -g * trunc(div(a, b))


class RemainderTensor(Remainder):
    _backward_name = "RemainderBackward1"
    _int_edges = (0, 1)  # (an integer tensor there has an edge too)


class FmodTensor(Fmod):
    _backward_name = "FmodBackward1"
    _int_edges = (0, 1)  # (an integer tensor there has an edge too)


class Atan2(BuiltinFunction):
    """out = atan2(a, b);  da = g * b / (a²+b²), db = -g * a / (a²+b²)."""
    _backward_name = "Atan2Backward0"
    _int_edges = (0, 1)  # (an integer tensor there has an edge too)

    @staticmethod
    def forward(ctx, a, b):
        dt = float_np(binary_dtype(a, b))
        no_complex_kernel(dt, '"atan2_cpu"')
        _save_pair(ctx, a, b)
        return np.arctan2(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        denom = a * a + b * b
        # NOTE: as PyTorch's atan2_backward, times a reciprocal (not a division: other
        # roundings), which is 0 where a² + b² is 0 (gradients 0 there, not NaN)
        recip = denom.reciprocal().masked_fill(denom == 0, 0)
        na, nb = ctx.needs_input_grad[:2]
        return (g * b * recip if na else None), (g * -a * recip if nb else None)


class Maximum(BuiltinFunction):
    """out = max(a, b);  the gradient goes to the larger input (split evenly on ties)."""
    _backward_name = "MaximumBackward0"
    _int_edges = (0, 1)  # (an integer tensor there has an edge too)

    @staticmethod
    def forward(ctx, a, b):
        dt = binary_dtype(a, b)
        _save_pair(ctx, a, b)
        return np.maximum(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        return _minmax_grads(ctx, g, a > b, a == b)


class Minimum(BuiltinFunction):
    """out = min(a, b);  the gradient goes to the smaller input (split evenly on ties)."""
    _backward_name = "MinimumBackward0"
    _int_edges = (0, 1)  # (an integer tensor there has an edge too)

    @staticmethod
    def forward(ctx, a, b):
        dt = binary_dtype(a, b)
        _save_pair(ctx, a, b)
        return np.minimum(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        return _minmax_grads(ctx, g, a < b, a == b)


def _minmax_grads(ctx, g, first, tie):
    na, nb = ctx.needs_input_grad[:2]
    half = tie.to(g.dtype) * 0.5
    w = first.to(g.dtype) + half
    return (g * w if na else None), (g * (1 - w) if nb else None)


# ---- unary ops ---------------------------------------------------------------------------
def _unary(name, np_fn, grad, uses="x", float_only=True, bw=None, int_ok=True,
           np_grad=None):
    """Make a unary op class: ``grad(g, x, out)`` gives the input gradient as Tensors.

    ``np_grad(g, x, out)``, where given, is the same gradient on the ndarrays of real
    floating data: exactly the NumPy calls ``grad`` makes through the Tensor ops, so the
    result is bit for bit the same. A backward pass that records nothing (no
    ``create_graph``) runs it instead of ``grad``: one Tensor and no op dispatch per call.
    """

    # NOTE: one forward/backward pair per ``uses``, so the hot path makes no choices
    def prepare(x):
        if float_only and x.dtype.kind not in "fc":
            return x.astype(D._state["default"].np)
        return x

    if uses == "x":
        def forward(ctx, x):
            if x.dtype.kind not in "fc":
                x = prepare(x)
            ctx.save_for_backward(x)
            return np_fn(x)

        def backward(ctx, g):
            return grad(g, saved_one(ctx), None)
    elif uses == "out":
        def forward(ctx, x):
            out = np_fn(x if x.dtype.kind in "fc" else prepare(x))
            ctx.save_for_backward(out)
            return out

        def backward(ctx, g):
            return grad(g, None, saved_one(ctx))
    elif uses == "both":
        def forward(ctx, x):
            x = prepare(x)
            out = np_fn(x)
            ctx.save_for_backward(x, out)
            return out

        def backward(ctx, g):
            x, out = ctx.saved_tensors
            return grad(g, x, out)
    else:
        def forward(ctx, x):
            return np_fn(prepare(x))

        def backward(ctx, g):
            return grad(g, None, None)

    body = {"_backward_name": bw or f"{name}Backward0", "__doc__": f"Elementwise {name.lower()}.",
            "forward": staticmethod(forward), "__module__": __name__}
    if np_grad is not None:
        body["_np_backward"] = staticmethod(_array_backward(np_grad, uses))
    body["backward"] = staticmethod(backward)
    cls = type(name, (BuiltinFunction,), body)
    # forward on float data, for the fast paths of ``_unary_fn``
    cls._np_fn = staticmethod(np_fn)
    cls._uses = uses
    # the two gradient formulas, for tests (test_elementwise_fast_backward)
    cls._grad = staticmethod(grad)
    cls._np_grad = staticmethod(np_grad) if np_grad is not None else None
    return cls


def _array_backward(np_grad, uses):
    """The ``_np_backward`` of a unary op: ``np_grad`` on the gradient's array and the saved
    array when the data is real floating point, of one dtype in both. Anything else (complex
    data, saved-tensor hooks, a saved tensor modified in place or freed) returns
    NotImplemented: the Tensor formula runs, and raises PyTorch's errors."""
    if uses is None:
        def array_backward(ctx, d):
            if d.dtype.kind == "f":
                r = np_grad(d, None, None)
                return r if type(r) is _ndarray else np.asarray(r)
            return NotImplemented
        return array_backward
    on_out = uses == "out"

    def array_backward(ctx, d):
        # NOTE: the one saved tensor's array, read without making a Tensor where it was
        # saved plainly (autograd/graph.py pack_saved: an input in the compact form, a
        # Tensor, or kind 0 (kind, tensor, version); kind 1 the output (kind, array,
        # counter, version, ...)) and is still at its saved version
        saved = ctx._saved
        s = None
        if ctx._forward_cls.clear_saved_tensors_on_access:
            pass
        elif type(saved) is Tensor:
            vc = saved._vcs  # (None: never bumped, version 0; see Tensor._vc)
            if (0 if vc is None else vc[0]) == ctx._one_saved_ver:
                s = saved._data
        elif type(saved) is tuple and len(saved) == 1:
            e = saved[0]
            kind = e[0]
            if kind == 1:
                s = e[1] if e[2][0] == e[3] else None
            elif kind == 0 and e[1]._vc[0] == e[2]:
                s = e[1]._data
        if s is not None and d.dtype is s.dtype and s.dtype.kind == "f":
            r = np_grad(d, None, s) if on_out else np_grad(d, s, None)
            return r if type(r) is _ndarray else np.asarray(r)
        return NotImplemented
    return array_backward


def _into(ufunc, a, b, t):
    """``ufunc(a, b)``, written into ``t`` (a fresh temporary that is ``a`` or ``b``) when
    it has the result's shape: the same values, one allocation less."""
    other = b if t is a else a
    if type(t) is _ndarray and (other.shape == t.shape or other.ndim == 0):
        return ufunc(a, b, out=t)
    return ufunc(a, b)


# float32/float64: Python number -> scalar_array(number, dtype), keyed by the number alone
# (hashing a NumPy dtype costs as much as the rest of the lookup). Shared with the operator
# fast paths in ops/__init__.py.
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_BY_F32, _BY_F64 = {}, {}
_BY_DTYPE = {_F32: _BY_F32, _F64: _BY_F64}


def number_array(x, dt):
    """``scalar_array(x, dt)`` (the 0-d array the Tensor ops combine a Python number as)."""
    cache = _BY_F32 if dt is _F32 else _BY_F64 if dt is _F64 else None
    if cache is not None:
        z = cache.get(x)
        if z is not None:
            return z
    z = scalar_array(x, dt)
    # NOTE: remembered only where scalar_array caches it too (not 0, NaN, overflow)
    if cache is not None and _SCALARS.get((x, dt)) is z:
        if len(cache) >= 512:
            cache.clear()
        cache[x] = z
    return z


_F16 = np.dtype(np.float16)


def _cpu_scalar(x):
    """Whether ``x`` is what PyTorch's binary kernels treat as a CPU scalar: a Python number
    or a 0-dim tensor (real)."""
    t = type(x)
    if t is float or t is int or t is bool:
        return True
    return t is _ndarray and x.ndim == 0 and x.dtype.kind in "biuf"


def _half_scalar(ufunc, a, s):
    """``ufunc(a, s)`` for float16 data ``a`` and a CPU scalar ``s`` (a Python number or a
    0-d array) as PyTorch's half mul/div kernels compute it.

    NOTE: they read the scalar as float32 (the "opmath" type of half), compute in float32 and
    round to half once; NumPy would round the scalar to half first (``x * 0.1`` differs in a
    third of the elements).
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        r = ufunc(a.astype(np.float32), np.asarray(s, np.float32))
        return np.asarray(r.astype(_F16))


def _half_axpy(a, b, alpha):
    """``a + alpha * b`` for float16 operands as PyTorch's half add/sub kernels compute it.

    NOTE: alpha is rounded to half, then ``a + alpha * b`` is one fused multiply-add in
    float32. float64 holds the product of two halves exactly (and, short of extreme exponent
    gaps, the sum), so rounding it to float32 and then to half is that fused result.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        al = float(np.float16(alpha))
        r = np.add(np.asarray(a, np.float64), np.multiply(np.asarray(b, np.float64), al))
        return np.asarray(r.astype(np.float32).astype(_F16))


def _num(ufunc, a, x):
    """``ufunc(a, x)`` for an array ``a`` and a Python number ``x`` (``a (op) x``)."""
    return ufunc(a, number_array(x, a.dtype))


def _num_into(ufunc, t, x):
    """``ufunc(t, x)`` for a fresh temporary ``t`` (never a saved array: it is overwritten)
    and a Python number ``x``."""
    return _into(ufunc, t, number_array(x, t.dtype), t)


def _rsqrt_np(x):
    if x.dtype is _F16:  # NOTE: in float32, rounded once, as PyTorch's half kernel
        return (1 / np.sqrt(x.astype(np.float32))).astype(_F16)
    return 1 / np.sqrt(x)


_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _real(t):
    return t._data.dtype.kind != "c"


def _c(t):
    """``conj(t)`` of a complex Tensor, ``t`` itself for a real one (no node, no copy)."""
    return t if t._data.dtype.kind != "c" else t.conj()


# NOTE: each ``np_grad`` repeats its Tensor formula's NumPy calls in order (operands in the
# same places; ``x (op) number`` with the number as ``number_array``), in place only on
# fresh temporaries; test_elementwise_fast_backward checks them bit for bit.
Neg = _unary("Neg", np.negative, lambda g, x, o: -g, uses=None, float_only=False,
             np_grad=lambda g, x, o: np.negative(g))
# NOTE: each derivative is conjugated (``_c``) for complex data, PyTorch's convention
Exp = _unary("Exp", _libm.wrap(np.exp), lambda g, x, o: g * _c(o), uses="out",
             np_grad=lambda g, x, o: np.multiply(g, o))
Exp2 = _unary("Exp2", _libm.wrap(np.exp2), lambda g, x, o: g * _c(o) * _LN2, uses="out",
              np_grad=lambda g, x, o: _num_into(np.multiply, np.multiply(g, o), _LN2))
Expm1 = _unary("Expm1", _libm.wrap(np.expm1), lambda g, x, o: g * (_c(o) + 1), uses="out",
               np_grad=lambda g, x, o: _mul_into(g, _num(np.add, o, 1)))
Log = _unary("Log", _libm.wrap(np.log), lambda g, x, o: g / _c(x),
             np_grad=lambda g, x, o: np.true_divide(g, x))
Log2 = _unary("Log2", _libm.wrap(np.log2), lambda g, x, o: g / (_c(x) * _LN2),
              np_grad=lambda g, x, o: _div_into(g, _num(np.multiply, x, _LN2)))
Log10 = _unary("Log10", _libm.wrap(np.log10), lambda g, x, o: g / (_c(x) * _LN10),
               np_grad=lambda g, x, o: _div_into(g, _num(np.multiply, x, _LN10)))
Log1p = _unary("Log1p", _libm.wrap(np.log1p), lambda g, x, o: g / (_c(x) + 1), bw="Log1PBackward0",
               np_grad=lambda g, x, o: _div_into(g, _num(np.add, x, 1)))
Sqrt = _unary("Sqrt", np.sqrt, lambda g, x, o: g / (_c(o) * 2), uses="out",
              np_grad=lambda g, x, o: _div_into(g, _num(np.multiply, o, 2)))
Rsqrt = _unary("Rsqrt", _rsqrt_np, lambda g, x, o: g * _c(o.pow(3)) * -0.5, uses="out",
               np_grad=lambda g, x, o: _num_into(
                   np.multiply, _mul_into(g, _pow_array(o, 3)), -0.5))
def _reciprocal(x):
    """``1 / x``; complex data divided as PyTorch (and NumPy's ``true_divide``) do: Smith's
    algorithm, so 1/(2+0j) is 0.5+0j and 1/0j is inf+nanj (``np.reciprocal`` gives -0j, nan)."""
    if x.dtype.kind != "c":
        return np.reciprocal(x)
    with np.errstate(all="ignore"):
        return np.true_divide(x.dtype.type(1), x)


Reciprocal = _unary("Reciprocal", _reciprocal, lambda g, x, o: -g * _c(o * o), uses="out",
                    np_grad=lambda g, x, o: _mul_into(np.negative(g), np.multiply(o, o)))
Sin = _unary("Sin", _libm.wrap(np.sin), lambda g, x, o: g * _c(x.cos()),
             np_grad=lambda g, x, o: _mul_into(g, _libm.cos(x)))
Cos = _unary("Cos", _libm.wrap(np.cos), lambda g, x, o: g * -_c(x.sin()),
             np_grad=lambda g, x, o: _mul_into(g, _neg_into(_libm.sin(x))))
Tan = _unary("Tan", _libm.wrap(np.tan), lambda g, x, o: g * _c(o * o + 1), uses="out",
             np_grad=lambda g, x, o: _mul_into(g, _num_into(np.add, np.multiply(o, o), 1)))
Asin = _unary("Asin", _libm.wrap(np.arcsin), lambda g, x, o: g * _c((1 - x * x).rsqrt()),
              np_grad=lambda g, x, o: _mul_into(g, _rsqrt_np(_one_minus_sq(x))))
Acos = _unary("Acos", _libm.wrap(np.arccos), lambda g, x, o: -g * _c((1 - x * x).rsqrt()),
              np_grad=lambda g, x, o: _mul_into(np.negative(g), _rsqrt_np(_one_minus_sq(x))))
Atan = _unary("Atan", _libm.wrap(np.arctan), lambda g, x, o: g / _c(x * x + 1),
              np_grad=lambda g, x, o: _div_into(g, _num_into(np.add, np.multiply(x, x), 1)))
Sinh = _unary("Sinh", _libm.wrap(np.sinh), lambda g, x, o: g * _c(x.cosh()),
              np_grad=lambda g, x, o: _mul_into(g, _libm.cosh(x)))
Cosh = _unary("Cosh", _libm.wrap(np.cosh), lambda g, x, o: g * _c(x.sinh()),
              np_grad=lambda g, x, o: _mul_into(g, _libm.sinh(x)))
Tanh = _unary("Tanh", _libm.wrap(np.tanh), lambda g, x, o: tanh_backward(g, o) if _real(o) else
              g * (1 - o * o).conj(), uses="out", np_grad=lambda g, x, o: _tanh_bw(g, o))
Asinh = _unary("Asinh", np.arcsinh, lambda g, x, o: g * _c((x * x + 1).rsqrt()),
               np_grad=lambda g, x, o: _mul_into(
                   g, _rsqrt_np(_num_into(np.add, np.multiply(x, x), 1))))
# NOTE: sqrt(x*y) == sqrt(x)*sqrt(y) only for real x, y > 0 (PyTorch splits it for complex)
Acosh = _unary("Acosh", np.arccosh, lambda g, x, o: g * (x * x - 1).rsqrt() if _real(x) else
               g * ((x + 1).rsqrt() * (x - 1).rsqrt()).conj(),
               np_grad=lambda g, x, o: _mul_into(
                   g, _rsqrt_np(_num_into(np.subtract, np.multiply(x, x), 1))))
Atanh = _unary("Atanh", _libm.wrap(np.arctanh), lambda g, x, o: g / _c(1 - x * x),
               np_grad=lambda g, x, o: _div_into(g, _one_minus_sq(x)))
Sigmoid = _unary("Sigmoid", lambda x: _sigmoid_kernel(x), lambda g, x, o: sigmoid_backward(g, o)
                 if _real(o) else g * (o * (1 - o)).conj(), uses="out",
                 np_grad=lambda g, x, o: _sigmoid_bw(g, o))


def _div_into(g, t):
    """``g / t``, written into ``t`` (a fresh temporary) when the shapes allow."""
    return _into(np.true_divide, g, t, t)


def _neg_into(t):
    """``-t`` for a fresh temporary ``t``, in place where it is an array."""
    return np.negative(t, out=t) if type(t) is _ndarray else np.negative(t)


def _one_minus_sq(x):
    """``1 - x * x`` as the Tensor ops compute it (``number - tensor``: ``_fast_rsub``)."""
    t = np.multiply(x, x)
    return _into(np.subtract, number_array(1, t.dtype), t, t)


def _tanh_bw(g, y):
    """``g * (1 - y*y)`` rounded as PyTorch's tanh_backward kernel: ``1 - y*y`` is one fused
    multiply-add (a single rounding); half precision computes in float32."""
    kind = y.dtype.char
    if kind == "e" and g.dtype.char == "e":
        out = _tanh_bw(g.astype(np.float32), y.astype(np.float32))
        return out.astype(np.float16)
    if kind == "f":
        y64 = y.astype(np.float64)
        # NOTE: a float32 square is exact in float64, so one float64 subtraction rounded
        # to float32 is the fused result (up to a double rounding never seen in tests)
        return _mul_into(g, np.subtract(1.0, np.multiply(y64, y64, out=y64), out=y64)
                         .astype(np.float32))
    if kind == "d":
        return _mul_into(g, _fused_one_minus_sq64(y))
    # NOTE: a 0-d one (NumPy is faster so than with a Python 1); in place on a temporary
    return _mul_into(g, np.subtract(number_array(1, y.dtype), np.multiply(y, y)))


def _fused_one_minus_sq64(y):
    """``fma(-y, y, 1)`` for a float64 array: ``1 - y*y`` with one rounding. NumPy has no
    fma, so the square's rounding error comes from Dekker's exact product (Veltkamp split)
    and the subtraction's from Knuth's two-sum, added back before the one final rounding."""
    with np.errstate(invalid="ignore", over="ignore"):
        return _fused_one_minus_sq64_body(y)


def _fused_one_minus_sq64_body(y):
    """The arithmetic of ``_fused_one_minus_sq64`` (overflow and inf - inf are expected)."""
    p = y * y
    c = y * 134217729.0  # 2**27 + 1: splits y into two 26-bit halves
    hi = c - (c - y)
    lo = y - hi
    e = ((hi * hi - p) + 2.0 * hi * lo) + lo * lo  # y*y == p + e exactly
    s = 1.0 - p
    b = s - 1.0
    err = (1.0 - (s - b)) + (-p - b)  # 1 - p == s + err exactly
    out = s + (err - e)
    # NOTE: huge or non-finite y makes the correction terms inf/nan: those keep the plain
    # result, which is then the fused one too (the rounding errors are negligible there)
    return np.where(np.isfinite(out), out, s)


def _sigmoid_bw(g, y):
    """``g * (1 - y) * y`` in PyTorch's kernel's order (``(g * (1 - y)) * y``)."""
    return np.multiply(_mul_into(g, np.subtract(number_array(1, y.dtype), y)), y)


class TanhBackward(BuiltinFunction):
    """PyTorch's ``tanh_backward``: out = g * (1 - y**2);  dg = gg * (1 - y**2),
    dy = -2 * gg * g * y. One op instead of three in every tanh backward."""
    _backward_name = "TanhBackwardBackward0"

    @staticmethod
    def forward(ctx, g, y):
        dt = g.dtype
        if y.dtype is not dt:
            dt = binary_dtype(g, y)
            g, y = cast(g, dt), cast(y, dt)
        ctx.save_for_backward(g, y)
        return _tanh_bw(g, y)

    @staticmethod
    def backward(ctx, gg):
        g, y = ctx.saved_tensors
        ng, ny = ctx.needs_input_grad[:2]
        return (tanh_backward(gg, y) if ng else None), (gg * g * y * -2 if ny else None)


class SigmoidBackward(BuiltinFunction):
    """PyTorch's ``sigmoid_backward``: out = g * y * (1 - y);  dg = gg * y * (1 - y),
    dy = gg * g * (1 - 2 * y)."""
    _backward_name = "SigmoidBackwardBackward0"

    @staticmethod
    def forward(ctx, g, y):
        dt = g.dtype
        if y.dtype is not dt:
            dt = binary_dtype(g, y)
            g, y = cast(g, dt), cast(y, dt)
        ctx.save_for_backward(g, y)
        return _sigmoid_bw(g, y)


    @staticmethod
    def backward(ctx, gg):
        g, y = ctx.saved_tensors
        ng, ny = ctx.needs_input_grad[:2]
        return (sigmoid_backward(gg, y) if ng else None), \
            (gg * g * (1 - 2 * y) if ny else None)


def _fused_backward(cls, kernel):
    """``cls.apply(g, y)``, computing ``kernel`` inline when nothing is recorded (the case
    inside every first-order backward pass)."""
    apply = cls.apply

    def call(g, y):
        if type(g) is Tensor and type(y) is Tensor and _B._interpose is None and \
                not ((g._rg or y._rg) and STATE.enabled):
            a, b = g._data, y._data
            if a.dtype is b.dtype:
                return _make(as_array(kernel(a, b)), None, False)
        return apply(g, y)
    return call


tanh_backward = _fused_backward(TanhBackward, _tanh_bw)
sigmoid_backward = _fused_backward(SigmoidBackward, _sigmoid_bw)


def _mul_into(g, t):
    """``g * t``, written into ``t`` (a fresh temporary) when the shapes allow."""
    if type(t) is _ndarray and g.shape == t.shape:
        return np.multiply(g, t, out=t)
    return np.multiply(g, t)


Abs = _unary("Abs", np.abs, lambda g, x, o: g * x.sgn(), float_only=False,
             np_grad=lambda g, x, o: _mul_into(g, _sign(x)))
# NOTE: the gradient is PyTorch's threshold_backward(g, out, 0): g where the output is
# positive, else +0 (it selects, it does not multiply: a negative g gives 0., not -0.; a NaN
# output passes g), an op whose own backward keeps the output in the graph
# NOTE: the bound first: NumPy returns its second argument on ties, so -0. stays -0. (as
# PyTorch's clamp_min keeps x)
Relu = _unary("Relu", lambda x: np.maximum(0, x), lambda g, x, o: _threshold_backward(g, o),
              uses="out", float_only=False,
              np_grad=lambda g, x, o: _relu_grad(g, o))


def _threshold_backward(g, o):
    from .activation import ThresholdBackwardKernel  # activation builds on this module
    return ThresholdBackwardKernel.apply(g, o, 0)


def _relu_grad(g, o):
    """``where(o <= 0, +0, g)`` on arrays (PyTorch's threshold_backward)."""
    return zero_where(np.less_equal(o, 0), g)


Square = _unary("Square", lambda x: np.square(x.astype(np.int64) if x.dtype.kind == "b" else x),
                # PyTorch's pow_backward: g * conj(2 * x.pow(1)), so that the second
                # derivative is still a graph (through x.pow(1)) and the third is zeros
                lambda g, x, o: g * _c(2 * x.pow(1)), bw="PowBackward0",
                float_only=False,
                np_grad=lambda g, x, o: np.multiply(g, _num_into(np.multiply, np.power(
                    x, number_array(1, x.dtype)), 2)))


def _zero_grad_op(name, np_fn):
    return _unary(name, np_fn, lambda g, x, o: g * 0, uses=None, float_only=False)


def _sign(x):
    if x.dtype.kind == "b":
        return x.copy()
    return np.where(np.isnan(x), 0, np.sign(x)).astype(x.dtype)  # PyTorch: sign(nan) == 0


Sign = _zero_grad_op("Sign", _sign)


class Sgn(BuiltinFunction):
    """out = x / |x| (the sign for real x);  dx = 0 for real x, else (g - out² conj(g)) / 2|x|
    (0 where x == 0): sgn is not holomorphic, so both Wirtinger derivatives contribute."""
    _backward_name = "SgnBackward0"

    @staticmethod
    def forward(ctx, x):
        if x.dtype.kind == "c":
            ctx.save_for_backward(x)
            ctx.is_complex = True
        return _sign(x)

    @staticmethod
    def backward(ctx, g):
        if not getattr(ctx, "is_complex", False):
            return g * 0
        (x,) = ctx.saved_tensors
        s, a = x.sgn(), x.abs()
        return where(a == 0, 0.0, (g - s * s * g.conj()) / (a * 2))
Floor = _zero_grad_op("Floor", np.floor)
Ceil = _zero_grad_op("Ceil", np.ceil)
Trunc = _zero_grad_op("Trunc", np.trunc)
Round = _zero_grad_op("Round", np.round)


class RoundDecimals(BuiltinFunction):
    """out = x rounded to ``decimals`` places;  dx = 0."""
    _backward_name = "RoundBackward1"

    @staticmethod
    def forward(ctx, x, decimals):
        if x.dtype is _F16:  # NOTE: PyTorch rounds half in float32, then to half once
            return RoundDecimals.forward(ctx, x.astype(np.float32), decimals).astype(_F16)
        # NOTE: this module's abs/round shadow the builtins
        ten_pow = np.asarray(10.0 ** (decimals if decimals > 0 else -decimals),
                             x.dtype if x.dtype.kind == "f" else None)
        if decimals > 0:
            return np.round(x * ten_pow) / ten_pow
        return np.round(x / ten_pow) * ten_pow

    @staticmethod
    def backward(ctx, g):
        return g * 0, None
Frac = _unary("Frac", lambda x: x - np.trunc(x), lambda g, x, o: g, uses=None)


def _sigmoid(x, out=None):
    """sigmoid(x) as a new array, or written into ``out`` (x's shape and dtype; may be x)."""
    # NOTE: PyTorch's formula 1 / (1 + exp(-x)), in place on one temporary. Below about -88
    # (float32) exp overflows to inf and the result is the exact limit 0, as PyTorch's; the
    # overflow warning is silenced (complex exp can also raise 'invalid' on its way to inf).
    if x.dtype.itemsize < 4 and x.dtype.kind == "f":  # half types: in float, as PyTorch
        res = _sigmoid(x.astype(np.float32)).astype(x.dtype)
        if out is None:
            return res
        out[...] = res
        return out
    e = np.negative(x, out=np.empty_like(x) if out is None else out)
    with np.errstate(over="ignore", invalid="ignore"):
        _libm.exp(e, out=e)
    one = scalar_array(1, e.dtype)
    np.add(e, one, out=e)
    return np.divide(one, e, out=e)


def _sigmoid_kernel(x):
    """``torch.sigmoid``'s values: as ``_sigmoid``, but where PyTorch's float32 loop runs its
    vector code (whole vector pairs of a contiguous run, ``_vector_math.by_vector_runs``) the
    exponential is SLEEF's, as there. (LSTM/GRU gates keep ``_sigmoid``: a replay over every
    step's gates would cost more than the cell.)"""
    if x.dtype is _F32 and x.size >= 16:
        return _vector_math.by_vector_runs(x, _sigmoid_vector, _sigmoid)
    return _sigmoid(x)


def _sigmoid_vector(x):
    """PyTorch's vectorised float32 sigmoid: 1 / (1 + exp(-x)), SLEEF's exp."""
    e = _vector_math.expf(np.negative(x))
    one = _F32_ONE
    e += one
    return np.divide(one, e, out=e)


_F32_ONE = np.float32(1)


class Clamp(BuiltinFunction):
    """out = clamp(x, min, max);  dx = g where min <= x <= max, else 0."""
    _backward_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        if x.dtype.kind in "iub":
            kinds = [v for v in (lo, hi) if v is not None]
            if any(isinstance(v, float) for v in kinds):
                x = x.astype(D._state["default"].np)
            elif x.dtype.kind == "b":  # a bool tensor and int bounds: int64, as PyTorch
                x = x.astype(np.int64)
        out = x
        if lo is not None:
            out = np.maximum(cast(lo, out.dtype), out)  # ties keep x (-0.)
        if hi is not None:
            out = np.minimum(cast(hi, out.dtype), out)
        return np.array(out, copy=True) if out is x else out

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        mask = None
        if ctx.lo is not None:
            mask = x >= ctx.lo
        if ctx.hi is not None:
            m2 = x <= ctx.hi
            mask = m2 if mask is None else mask & m2
        return g * mask.to(g.dtype), None, None


class ClampMin(Clamp):
    _backward_name = "ClampMinBackward0"


class ClampMax(Clamp):
    _backward_name = "ClampMaxBackward0"


class ClampTensor(BuiltinFunction):
    """Clamp with tensor bounds: gradients flow to x inside, to the active bound outside."""
    _backward_name = "ClampBackward0"
    _wrapped_scalars = (1, 2)  # an absent bound (None) still has an edge, as in PyTorch

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x, lo if type(lo) is _ndarray else None,
                              hi if type(hi) is _ndarray else None)
        dt = result_np(*(v for v in (x, lo, hi) if v is not None))
        out = cast(x, dt)
        if lo is not None:
            out = np.maximum(cast(lo, dt), out)
        if hi is not None:
            out = np.minimum(cast(hi, dt), out)
        return np.array(out, copy=True) if out is x else out

    @staticmethod
    def backward(ctx, g):
        x, lo, hi = ctx.saved_tensors
        inside = ones_bool(x)
        glo = ghi = None
        above = None
        if hi is not None:  # NOTE: out = min(max(x, lo), hi): hi wins where lo > hi
            above = (maximum(x, lo) if lo is not None else x) > hi
            inside = inside & ~above
            ghi = g * above.to(g.dtype)
        if lo is not None:
            below = x < lo
            if above is not None:
                below = below & ~above
            inside = inside & ~below
            glo = g * below.to(g.dtype)
        return g * inside.to(g.dtype), glo, ghi


class ClampMinTensor(ClampTensor):
    _backward_name = "ClampMinBackward1"


class ClampMaxTensor(ClampTensor):
    _backward_name = "ClampMaxBackward1"


def ones_bool(x):
    return _make(np.ones(x._data.shape, bool), None, False)


class Where(BuiltinFunction):
    """out = cond ? a : b;  da = g where cond, db = g elsewhere."""
    _backward_name = "WhereBackward0"
    _wrapped_scalars = (1, 2)

    @staticmethod
    def forward(ctx, cond, a, b):
        dt = binary_dtype(a, b)
        ctx.save_for_backward(cond)
        return np.where(cond, cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        (cond,) = ctx.saved_tensors
        zero = _make(np.zeros((), g._data.dtype), None, False)
        _, na, nb = ctx.needs_input_grad[:3]
        return (None, where(cond, g, zero) if na else None,
                where(cond, zero, g) if nb else None)


# ---- public functions --------------------------------------------------------------------
def _out(out, result, check_cast=True):
    """Write ``result`` into the ``out=`` tensor (resizing it if needed) and return it.

    ``check_cast``: PyTorch's elementwise ops refuse a result of a higher category (float
    into an integer ``out``); ``write_out`` (other families' ops, which have their own rules)
    passes False."""
    if out is None:
        return result
    if (result._rg or out._rg) and STATE.enabled:
        raise _out_grad_error(result)
    if check_cast and result.dtype is not out.dtype:
        _check_out_dtype(out, result, check_cast)
    if out._data.shape == result._data.shape:
        dst = out._data
        if not dst.flags.writeable:  # an expanded out: PyTorch's overlap error
            from .inplace import writable_alias
            dst = writable_alias(out)
        np.copyto(dst, result._data, casting="unsafe")
    else:
        if out._data.size:
            _warn_resized(out._data.shape, result._data.shape)
        out._data = result._data.astype(out._data.dtype)
    out._vc[0] += 1
    return out


def _warn_resized(old, new):
    """PyTorch's deprecation warning for an ``out=`` tensor with elements that is resized."""
    from ._util import warn_user
    fmt = lambda shape: "[" + ", ".join(map(str, shape)) + "]"  # noqa: E731
    warn_user(f"An output with one or more elements was resized since it had shape {fmt(old)},"
              f" which does not match the required output shape {fmt(new)}. This behavior is "
              "deprecated, and in a future PyTorch release outputs will not be resized unless "
              "they have zero elements. You can explicitly reuse an out tensor t by resizing "
              "it, inplace, to zero elements with t.resize_(0). (Triggered internally at "
              "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)")


_OUT_HELPERS = ("_out", "write_out", "_write_out", "write_out_pair", "write_result")

# unary ops whose out= must have the result's dtype exactly (PyTorch's "Found dtype" check)
_SAME_DTYPE_OUT = frozenset({"abs", "floor", "ceil", "trunc", "frac", "sign", "sgn"})


def _check_out_dtype(out, result, rule):
    """PyTorch's refusal of an ``out=`` dtype that differs from the result's: ``rule`` True,
    one of a lower category; "same" (neg, abs, round, clamp ...) or "where": any other."""
    from .inplace import _check_cast, _type_name
    if rule is True:
        _check_cast(out, result.dtype)
    elif rule == "where":
        raise RuntimeError(f"Expected out type to be {_type_name(result.dtype)} but got "
                           f"{_type_name(out.dtype)}")
    else:
        raise RuntimeError(f"Found dtype {_type_name(out.dtype)} but expected "
                           f"{_type_name(result.dtype)}")


def _out_grad_error(result):
    """PyTorch's error for ``out=`` while an argument requires grad (with grad mode on). The
    op is named by the public function that called ``_out`` or, where that is a generated
    one (the unary ops' ``fn``), by the result's node (``SinBackward0`` -> ``sin``)."""
    import re
    import sys
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name in _OUT_HELPERS:
        frame = frame.f_back
    name = frame.f_code.co_name if frame is not None else ""
    if not name.isidentifier() or name in ("fn", "slow", "call", "wrapper") or name[0] == "_":
        fn = result._grad_fn
        base = re.sub(r"Backward\d*$", "", fn.name()) if fn is not None else "op"
        name = re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower()
    return RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                        "differentiation, but one of the arguments requires grad.")


def _tensor_first(input, other, op):
    if not isinstance(input, Tensor):
        if isinstance(other, Tensor):
            return operand(input, op), other
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input, operand(other, op)


def _check_alpha(alpha, a, b):
    """PyTorch's rule: alpha must be representable in the result's kind."""
    dt = result_np(a._data if isinstance(a, Tensor) else a,
                   b._data if isinstance(b, Tensor) else b)
    if isinstance(alpha, (bool, np.bool_)):
        if dt.kind != "b":
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, (float, np.floating)) and dt.kind in "iub":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    elif isinstance(alpha, (complex, np.complexfloating)) and dt.kind != "c":
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                           "complex number.")


def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` with broadcasting and type promotion."""
    input, other = _tensor_first(input, other, "add")
    if type(alpha) is not int:
        _check_alpha(alpha, input, other)
    if not isinstance(input, Tensor):
        return _out(out, Add.apply(other, input) if alpha == 1 else
                    Rsub.apply(other, input, -alpha))
    # NOTE: alpha is passed only when it is not 1, so that the node has one edge per tensor
    # operand, as PyTorch's AddBackward0 does
    return _out(out, Add.apply(input, other) if alpha == 1 else
                Add.apply(input, other, alpha))


def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other``."""
    input, other = _tensor_first(input, other, "sub")
    if type(alpha) is not int:
        _check_alpha(alpha, input, other)
    if not isinstance(input, Tensor):
        return _out(out, Rsub.apply(other, input, alpha))
    return _out(out, Sub.apply(input, other) if alpha == 1 else Sub.apply(input, other, alpha))


subtract = sub


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    if type(alpha) is not int:
        _check_alpha(alpha, input, other)
    return Rsub.apply(input, operand(other, "rsub"), alpha)


def mul(input, other, *, out=None):
    """``input * other``."""
    input, other = _tensor_first(input, other, "mul")
    if not isinstance(input, Tensor):
        input, other = other, input
    return _out(out, Mul.apply(input, other))


multiply = mul


class _DivNone(Div):
    """``div`` given ``rounding_mode=None`` explicitly (PyTorch's ``div.Tensor_mode``)."""
    _backward_name = "DivBackward2"


_NO_MODE = object()


def div(input, other, *, rounding_mode=_NO_MODE, out=None):
    """``input / other``; ``rounding_mode`` 'trunc' or 'floor' rounds the quotient."""
    input, other = _tensor_first(input, other, "div")
    if rounding_mode is None or rounding_mode is _NO_MODE:
        if not isinstance(input, Tensor):
            return _out(out, mul(reciprocal(other), input))
        return _out(out, (Div if rounding_mode is _NO_MODE else _DivNone).apply(input, other))
    if rounding_mode == "floor" or rounding_mode == "trunc":
        return _out(out, DivRounding.apply(input, other, rounding_mode))
    raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


divide = div
true_divide = div


def floor_divide(input, other, *, out=None):
    """``floor(input / other)`` (no gradient, as in PyTorch)."""
    input, other = _tensor_first(input, other, "floor_divide")
    if _FW.fw_levels:   # PyTorch has no forward-AD formula for it
        from ..autograd._tangents import refuse_duals
        refuse_duals("floor_divide", input, other, not_yet=False)
    a = input._data if isinstance(input, Tensor) else input
    b = other._data if isinstance(other, Tensor) else other
    return _out(out, _make(as_array(_floor_divide_arrays(a, b)), None, False))


def remainder(input, other, *, out=None):
    """Python-style modulus (the result has the sign of ``other``)."""
    input, other = _tensor_first(input, other, "remainder")
    if not isinstance(input, Tensor):
        input = _make(np.asarray(input, result_np(input)), None, False)
    cls = RemainderTensor if isinstance(other, Tensor) else Remainder
    return _out(out, cls.apply(input, other))


def fmod(input, other, *, out=None):
    """C-style modulus (the result has the sign of ``input``)."""
    other = operand(other, "fmod")
    return _out(out, (FmodTensor if isinstance(other, Tensor) else Fmod).apply(input, other))


def pow(input, exponent, *, out=None):
    """``input ** exponent``; either may be a scalar."""
    if not isinstance(input, Tensor):
        return _out(out, PowScalarBase.apply(operand(input, "pow"), exponent))
    exponent = operand(exponent, "pow")
    if isinstance(exponent, Tensor):
        return _out(out, PowTensor.apply(input, exponent))
    if exponent == 2 and input._data.dtype.kind == "f":
        return _out(out, Square.apply(input))
    return _out(out, Pow.apply(input, exponent))


def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (complex128 where either is complex)."""
    def is_complex(x):
        return x._data.dtype.kind == "c" if isinstance(x, Tensor) else \
            isinstance(x, (complex, np.complexfloating))
    wide = D.complex128 if is_complex(input) or is_complex(exponent) else D.float64
    a = input.to(wide) if isinstance(input, Tensor) else wide.np.type(input).item()
    e = exponent.to(wide) if isinstance(exponent, Tensor) else exponent
    return pow(a, e)


def atan2(input, other, *, out=None):
    _tensor_input(input, "atan2")
    return _out(out, Atan2.apply(input, _tensor_other(other, "atan2")))


arctan2 = atan2


def _tensor_input(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input


def _floating_pair(input, other, op, kernel, complex_ok=False):
    """Two tensors for an op with only floating (and maybe complex) kernels: PyTorch's
    errors, then both converted to the result dtype (0-dim tensors do not upcast)."""
    _tensor_input(input, op)
    _tensor_other(other, op)
    dt = D._FROM_NP[result_np(input._data, other._data)]
    if not (dt.is_floating_point or complex_ok and dt.is_complex):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{D.SCALAR_NAMES[dt]}\'')
    if input.dtype is not dt or other.dtype is not dt:
        input, other = input.to(dt), other.to(dt)
    return input, other


def _tensor_other(other, op):
    if not isinstance(other, Tensor):
        raise TypeError(f"{op}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    return other


def maximum(input, other, *, out=None):
    _tensor_input(input, "maximum")
    _tensor_other(other, "maximum")  # (the argument's type is checked before the dtypes)
    no_complex(input, "maximum not implemented for complex tensors.", RuntimeError)
    no_complex(other, "maximum not implemented for complex tensors.", RuntimeError)
    return _out(out, Maximum.apply(input, other))


def minimum(input, other, *, out=None):
    _tensor_input(input, "minimum")
    _tensor_other(other, "minimum")  # (the argument's type is checked before the dtypes)
    no_complex(input, "minimum not implemented for complex tensors.", RuntimeError)
    no_complex(other, "minimum not implemented for complex tensors.", RuntimeError)
    return _out(out, Minimum.apply(input, other))


def fmax(input, other, *, out=None):
    _tensor_input(input, "fmax")
    _tensor_other(other, "fmax")
    no_complex(input, "fmax not implemented for complex tensors.", RuntimeError)
    no_complex(other, "fmax not implemented for complex tensors.", RuntimeError)
    res = maximum(input, other)
    return _out(out, where(isnan(input), other, where(isnan(other), input, res)))


def fmin(input, other, *, out=None):
    _tensor_input(input, "fmin")
    _tensor_other(other, "fmin")
    no_complex(input, "fmin not implemented for complex tensors.", RuntimeError)
    no_complex(other, "fmin not implemented for complex tensors.", RuntimeError)
    res = minimum(input, other)
    return _out(out, where(isnan(input), other, where(isnan(other), input, res)))


# unary ops PyTorch refuses bool input for, with its error
_NO_BOOL_KERNELS = {
    **{name: (NotImplementedError, f'"{kernel}" not implemented for \'Bool\'') for name, kernel
       in (("floor", "floor_vml_cpu"), ("ceil", "ceil_vml_cpu"), ("trunc", "trunc_vml_cpu"),
           ("abs", "abs_cpu"), ("frac", "frac_cpu"))},
    "relu": (RuntimeError, "Boolean inputs not supported for relu"),
}


# unary ops PyTorch refuses complex input for, with its error ({T}: the dtype's name)
_NO_COMPLEX_KERNELS = {
    **{name: (NotImplementedError, f"{name} is not supported for complex inputs")
       for name in ("floor", "ceil", "trunc")},
    "frac": (NotImplementedError, '"frac_cpu" not implemented for \'{T}\''),
    "sign": (NotImplementedError, "Unlike NumPy, torch.sign is not intended to support "
             "complex numbers. Please use torch.sgn instead."),
    "relu": (NotImplementedError, "clamp is not supported for complex types"),
    **{name: (RuntimeError, f"{name} is not supported for complex tensors.")
       for name in ("deg2rad", "rad2deg")},
}


def _no_bool(input, error):
    if isinstance(input, Tensor):
        kind = input._data.dtype.kind
        if kind == "b":
            raise error[0](error[1])
        if kind in "iu" and error[1].startswith('"frac_cpu"'):  # frac has no integer kernel
            raise NotImplementedError(error[1].replace("Bool", D.SCALAR_NAMES[input.dtype]))


def _unary_fn(cls, name):
    apply = cls.apply
    np_fn = cls.__dict__.get("_np_fn")
    np_fn = np_fn.__func__ if np_fn is not None else None
    uses = cls.__dict__.get("_uses")
    record = _B.record_unary
    bool_kernel = _NO_BOOL_KERNELS.get(name)
    complex_kernel = _NO_COMPLEX_KERNELS.get(name)
    # the dtype kinds the fast path takes: complex data of a real-only op takes the slow one
    fast_kinds = "fc" if complex_kernel is None else "f"
    out_rule = "same" if name in _SAME_DTYPE_OUT else True

    def slow(input, *, out=None):
        _check_args(input, out)
        if bool_kernel is not None:
            _no_bool(input, bool_kernel)
        if complex_kernel is not None:
            no_complex(input, complex_kernel[1], complex_kernel[0])
        result = apply(input)
        return result if out is None else _out(out, result, out_rule)

    def _check_args(input, out):
        if not isinstance(input, Tensor):
            raise not_a_tensor(name, input)
        if out is not None and not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")

    if np_fn is None:
        fn = slow
    else:
        def fn(input, *, out=None):
            # NOTE: fast paths for float data and no out= (e.g. ``x.cos()`` in a backward
            # formula, ``torch.sin(x)`` in a model): the forward is just the NumPy function
            if type(input) is Tensor and out is None and _B._interpose is None:
                d = input._data
                dt = d.dtype
                if dt is _F32 or dt is _F64 or dt.kind in fast_kinds:
                    if input._rg and STATE.enabled:
                        return record(cls, input, np_fn(d), uses)
                    r = np_fn(d)
                    return _make(r if type(r) is _ndarray else np.asarray(r), None, False)
            _check_args(input, out)
            if bool_kernel is not None:
                _no_bool(input, bool_kernel)
            if complex_kernel is not None:
                no_complex(input, complex_kernel[1], complex_kernel[0])
            result = apply(input)
            return result if out is None else _out(out, result, out_rule)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of ``input``."
    fn._unary_op = True  # installed directly as the Tensor method (see ops/__init__.py)
    return fn


exp = _unary_fn(Exp, "exp")
exp2 = _unary_fn(Exp2, "exp2")
expm1 = _unary_fn(Expm1, "expm1")
log = _unary_fn(Log, "log")
log2 = _unary_fn(Log2, "log2")
log10 = _unary_fn(Log10, "log10")
log1p = _unary_fn(Log1p, "log1p")
sqrt = _unary_fn(Sqrt, "sqrt")
rsqrt = _unary_fn(Rsqrt, "rsqrt")
reciprocal = _unary_fn(Reciprocal, "reciprocal")
sin = _unary_fn(Sin, "sin")
cos = _unary_fn(Cos, "cos")
tan = _unary_fn(Tan, "tan")
asin = arcsin = _unary_fn(Asin, "asin")
acos = arccos = _unary_fn(Acos, "acos")
atan = arctan = _unary_fn(Atan, "atan")
sinh = _unary_fn(Sinh, "sinh")
cosh = _unary_fn(Cosh, "cosh")
tanh = _unary_fn(Tanh, "tanh")
asinh = arcsinh = _unary_fn(Asinh, "asinh")
acosh = arccosh = _unary_fn(Acosh, "acosh")
atanh = arctanh = _unary_fn(Atanh, "atanh")
sigmoid = _unary_fn(Sigmoid, "sigmoid")
relu = _unary_fn(Relu, "relu")
abs = absolute = _unary_fn(Abs, "abs")
square = _unary_fn(Square, "square")
floor = _unary_fn(Floor, "floor")
ceil = _unary_fn(Ceil, "ceil")
trunc = fix = _unary_fn(Trunc, "trunc")
frac = _unary_fn(Frac, "frac")
sign = _unary_fn(Sign, "sign")
sgn = _unary_fn(Sgn, "sgn")


def neg(input, *, out=None):
    """``-input``."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return _out(out, Neg.apply(input), "same")


negative = neg


def round(input, *, decimals=None, out=None):
    """Round half to even; with ``decimals``, to that many decimal places."""
    no_complex(input, '"round_vml_cpu" not implemented for \'{T}\'')
    kind = input._data.dtype.kind
    if kind == "b" or (kind in "iu" and decimals is not None):
        kernel = "round_cpu" if decimals else "round_vml_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{D.SCALAR_NAMES[input.dtype]}'")
    if decimals:
        return _out(out, RoundDecimals.apply(input, decimals), "same")
    return _out(out, Round.apply(input), "same")


def clamp(input, min=None, max=None, *, out=None, _op="clamp"):
    """Limit ``input`` to [min, max]; bounds may be scalars or tensors."""
    no_complex(input, "clamp is not supported for complex types")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if (min is not None and max is not None) and \
            isinstance(min, Tensor) is not isinstance(max, Tensor):
        min, max = _mixed_bounds(input, min, max, _op)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = operand(min, "clamp") if min is not None else None
        hi = operand(max, "clamp") if max is not None else None
        return _out(out, ClampTensor.apply(input, lo, hi), "same")
    if input._data.dtype.kind in "iub":
        bounds = [v for v in (min, max) if v is not None]
        dt = result_np(input._data, *bounds)
        if dt.kind == "b":
            kernel = "clamp" if len(bounds) == 2 else "clamp_min" if max is None else "clamp_max"
            raise NotImplementedError(f'"{kernel}_scalar_cpu" not implemented for \'Bool\'')
        _check_scalars_fit(dt, min, max)
    return _out(out, Clamp.apply(input, min, max), "same")


_CLAMP_SIGNATURES = ("(Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)",
                     "(Tensor input, Number min = None, Number max = None, *, Tensor out = None)")


def _mixed_bounds(input, min, max, op):
    """A tensor bound with a number bound: PyTorch's parser reads a 0-dim tensor that needs
    no gradient as a number (the Scalar overload, ClampBackward1); any other tensor fits
    neither overload (TypeError)."""
    t = min if isinstance(min, Tensor) else max
    if t.dim() != 0 or t.requires_grad:
        from ._util import invalid_arguments
        raise invalid_arguments(op, (input, min, max), {}, _CLAMP_SIGNATURES)
    v = t.item()
    return (v, max) if t is min else (min, v)


def _check_scalars_fit(npdt, *values):
    """PyTorch's overflow error for Python numbers that an integer result cannot hold."""
    if npdt.kind in "iu":
        from .._creation import scalar_as
        for v in values:
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                scalar_as(v, D._FROM_NP[npdt])


def clip(input, min=None, max=None, *, out=None):
    """Alias of ``clamp``."""
    return clamp(input, min, max, out=out, _op="clip")


def clamp_min(input, min):
    """``max(input, min)`` elementwise (gradient to ``input`` where it is not below)."""
    if isinstance(min, Tensor):
        return ClampMinTensor.apply(input, min, None)
    return ClampMin.apply(input, min, None)


def clamp_max(input, max):
    """``min(input, max)`` elementwise (gradient to ``input`` where it is not above)."""
    if isinstance(max, Tensor):
        return ClampMaxTensor.apply(input, None, max)
    return ClampMax.apply(input, None, max)


def where(condition, input=None, other=None, *, out=None):
    """``input`` where ``condition`` holds, else ``other``; one argument: ``nonzero`` tuples."""
    if not isinstance(condition, (Tensor, _ndarray)):
        raise _where_invalid(condition, input, other)
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    cond = condition if isinstance(condition, Tensor) else _make(np.asarray(condition), None,
                                                                  False)
    if cond._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a "
                           f"tensor with dtype {D.SCALAR_NAMES[cond.dtype]}")
    input, other = operand(input, "where"), operand(other, "where")
    if isinstance(input, Tensor) != isinstance(other, Tensor):
        scalar = other if isinstance(input, Tensor) else input
        tensor = input if isinstance(input, Tensor) else other
        _check_scalars_fit(result_np(tensor._data, scalar), scalar)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        dt = result_np(input, other)
        input = _make(np.asarray(input, dt), None, False)
    return _out(out, Where.apply(cond, input, other), "where")


_WHERE_SIGNATURES = ("(Tensor condition)",
                     "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None)",
                     "(Tensor condition, Number self, Tensor other)",
                     "(Tensor condition, Tensor input, Number other)",
                     "(Tensor condition, Number self, Number other)")


def _where_invalid(condition, input, other):
    """PyTorch's parser error for ``torch.where`` with a ``condition`` that is no Tensor."""
    from ._util import invalid_arguments
    args = (condition,) if input is None and other is None else (condition, input, other)
    return invalid_arguments("where", args, {}, _WHERE_SIGNATURES)


def _lerp_arrays(a, b, w):
    """PyTorch's two-sided formula: exact at both ends (w = 0 gives a, w = 1 gives b)."""
    if a.dtype is _F16:  # NOTE: PyTorch computes half in float32 (w read as float32)
        w = w.astype(np.float32) if type(w) is _ndarray else np.float32(w)
        return _lerp_arrays(a.astype(np.float32), b.astype(np.float32), w).astype(_F16)
    if type(w) is not _ndarray:
        w = a.dtype.type(w) if a.dtype.kind in "fc" else w
        return np.asarray(a + w * (b - a) if np.abs(w) < 0.5 else b - (b - a) * (1 - w))
    small = np.abs(w) < 0.5
    return np.where(small, a + w * (b - a), b - (b - a) * (1 - w))


class Lerp(BuiltinFunction):
    """out = a + w * (b - a), scalar w;  da = g * (1 - w), db = g * w."""
    _backward_name = "LerpBackward0"

    @staticmethod
    def forward(ctx, a, b, w):
        ctx.w = w
        return _lerp_arrays(a, b, w)

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad[:2]
        w = _cj(ctx.w)
        return (g * (1 - w) if na else None), (g * w if nb else None), None


class LerpTensor(BuiltinFunction):
    """out = a + w * (b - a), tensor w;  da = g (1 - w), db = g w, dw = g (b - a)."""
    _backward_name = "LerpBackward1"

    @staticmethod
    def forward(ctx, a, b, w):
        ctx.save_for_backward(a, b, w)
        return _lerp_arrays(a, b, w)

    @staticmethod
    def backward(ctx, g):
        a, b, w = ctx.saved_tensors
        na, nb, nw = ctx.needs_input_grad[:3]
        return ((g * _cj(1 - w) if na else None), (g * _cj(w) if nb else None),
                (g * _cj(b - a) if nw else None))


def lerp(input, end, weight):
    """``input + weight * (end - input)``."""
    _check_lerp(input, end, weight)
    if isinstance(weight, Tensor):
        return LerpTensor.apply(input, end, weight)
    return Lerp.apply(input, end, weight)


def _check_lerp(input, end, weight):
    """PyTorch's dtype and shape checks for lerp."""
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype is not input.dtype:
            raise RuntimeError(f"expected dtype {D.CPP_NAMES[input.dtype]} for `{name}` but "
                               f"got dtype {D.CPP_NAMES[t.dtype]}")
    if input.dtype.category not in (D._FLOAT, D._COMPLEX):
        kind = "tensor" if isinstance(weight, Tensor) else "scalar"
        raise NotImplementedError(f'"lerp_kernel_{kind}" not implemented for '
                                  f"'{D.SCALAR_NAMES[input.dtype]}'")
    shape = input._data.shape
    for t in (end, weight):
        if isinstance(t, Tensor):
            try:
                shape = np.broadcast_shapes(shape, t._data.shape)
            except ValueError as e:
                raise _B._translate(e, [np.empty(shape), t._data]) from None


def _opmath(dt, *args):
    """Operands of a half op in float32 (PyTorch's "opmath"): arrays cast to ``dt`` first
    (the op's common dtype), the trailing Python number read as float32."""
    *arrays, value = args
    out = [np.asarray(x, dt).astype(np.float32) for x in arrays]
    return out + [np.float32(value) if isinstance(value, (int, float)) else value]


class Addcmul(BuiltinFunction):
    """out = a + v * t1 * t2;  da = g, dt1 = g v t2, dt2 = g v t1."""
    _backward_name = "AddcmulBackward0"
    _int_edges = (0, 1, 2)  # (an integer tensor there has an edge too)

    @staticmethod
    def forward(ctx, a, t1, t2, value):
        ctx.save_for_backward(t1, t2)
        ctx.value = value
        dt = result_np(a, t1, t2)
        if dt is _F16:  # NOTE: in float32 (value too), rounded once, as PyTorch's half kernel
            a, t1, t2, value = _opmath(dt, a, t1, t2, value)
        return np.asarray(a + value * t1 * t2, dtype=dt)

    @staticmethod
    def backward(ctx, g):
        t1, t2 = ctx.saved_tensors
        na, n1, n2 = ctx.needs_input_grad[:3]
        v = _cj(ctx.value)
        return ((g if na else None), (g * v * _cj(t2) if n1 else None),
                (g * v * _cj(t1) if n2 else None), None)


class Addcdiv(BuiltinFunction):
    """out = a + v * t1 / t2;  da = g, dt1 = g v / t2, dt2 = -g v t1 / t2**2."""
    _backward_name = "AddcdivBackward0"
    _int_edges = (0, 1, 2)  # (an integer tensor there has an edge too)

    @staticmethod
    def forward(ctx, a, t1, t2, value):
        ctx.save_for_backward(t1, t2)
        ctx.value = value
        dt = result_np(a, t1, t2)
        if dt is _F16:  # NOTE: in float32, as addcmul
            a, t1, t2, value = _opmath(dt, a, t1, t2, value)
        return np.asarray(a + value * t1 / t2, dtype=dt)

    @staticmethod
    def backward(ctx, g):
        t1, t2 = ctx.saved_tensors
        na, n1, n2 = ctx.needs_input_grad[:3]
        v = _cj(ctx.value)
        return ((g if na else None), (g * v / _cj(t2) if n1 else None),
                (-g * v * _cj(t1 / (t2 * t2)) if n2 else None), None)


def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``."""
    return Addcmul.apply(input, tensor1, tensor2, value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``."""
    if tensor1._data.dtype.kind in "iub" and tensor2._data.dtype.kind in "iub":
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
            "for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    return Addcdiv.apply(input, tensor1, tensor2, value)


class Hypot(BuiltinFunction):
    """out = sqrt(a**2 + b**2);  da = g a / out, db = g b / out."""
    _backward_name = "HypotBackward0"
    _int_edges = (0, 1)  # (an integer tensor there has an edge too)

    @staticmethod
    def forward(ctx, a, b):
        out = np.hypot(a, b)
        na, nb = ctx.needs_input_grad[:2]  # as PyTorch: each operand only for its own grad
        ctx.save_for_backward(a if na else None, b if nb else None, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, b, out = ctx.saved_tensors
        na, nb = ctx.needs_input_grad[:2]
        return (g * a / out if na else None), (g * b / out if nb else None)


def hypot(input, other):
    """``sqrt(input**2 + other**2)`` elementwise (floating point only)."""
    return Hypot.apply(*_floating_pair(input, other, "hypot", "hypot_cpu"))


class Xlogy(BuiltinFunction):
    """out = x * log(y) (0 where x == 0);  dx = g log(y) where x != 0, dy = g x / y."""
    _backward_name = "XlogyBackward0"
    _int_edges = (0, 1)  # (an integer tensor there has an edge too)
    _wrapped_scalars = ()

    @staticmethod
    def forward(ctx, x, y):
        dt = float_np(binary_dtype(x, y))
        no_complex_kernel(dt, '"xlogy_cpu"')
        _save_pair(ctx, x, y)
        x, y = cast(x, dt), cast(y, dt)
        with np.errstate(all="ignore"):
            out = np.where(np.asarray(x) == 0, 0, x * np.log(y))
        return np.where(np.isnan(y), np.nan, out).astype(dt)

    @staticmethod
    def backward(ctx, g):
        x, y = _pair(ctx)
        nx, ny = ctx.needs_input_grad[:2]
        gx = gy = None
        if nx:
            logy = log(y) if isinstance(y, Tensor) else math.log(y)
            gx = g * where(x != 0, logy, 0.0) if isinstance(x, Tensor) else None
        if ny:
            gy = g * x / y
        return gx, gy


class XlogyScalarOther(Xlogy):
    _backward_name = "XlogyBackward2"


class XlogyScalarSelf(Xlogy):
    _backward_name = "XlogyBackward1"


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input`` is 0."""
    if not isinstance(input, Tensor):
        return XlogyScalarSelf.apply(input, operand(other, "xlogy"))
    if not isinstance(other, Tensor):
        return XlogyScalarOther.apply(input, operand(other, "xlogy"))
    return Xlogy.apply(input, other)


def complex_logaddexp(a, b):
    """``log(exp(a) + exp(b))`` of complex arrays as PyTorch computes it: with the operands
    ordered by real part, ``hi + log1p(exp(lo - hi))``; nan+nanj where either has a nan part,
    and equal infinite real parts apart (-inf: ``lo`` itself; +inf: the plain formula)."""
    a, b = np.broadcast_arrays(a, b)
    first = a.real < b.real
    lo, hi = np.where(first, a, b), np.where(first, b, a)
    with np.errstate(all="ignore"):
        out = np.log1p(np.exp(lo - hi)) + hi
        inf = ~np.isfinite(lo.real) & (lo.real == hi.real)
        if inf.any():
            out = np.where(inf, np.where(lo.real < 0, lo, np.log(np.exp(lo) + np.exp(hi))), out)
    nan = np.isnan(a) | np.isnan(b)
    return np.where(nan, complex(np.nan, np.nan), out).astype(a.dtype)


class Logaddexp(BuiltinFunction):
    """out = log(exp(a) + exp(b));  da = g / (1 + exp(b - a)), db = g / (1 + exp(a - b))
    (conjugated for complex data)."""
    _backward_name = "LogaddexpBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        if a.dtype.kind == "c":  # (NumPy's logaddexp is real-only)
            return complex_logaddexp(a, b)
        return np.logaddexp(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        na, nb = ctx.needs_input_grad[:2]
        return ((g / _c((b - a).exp() + 1) if na else None),
                (g / _c((a - b).exp() + 1) if nb else None))


def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` computed stably."""
    return Logaddexp.apply(*_floating_pair(input, other, "logaddexp", "logaddexp_cpu", True))


class Logit(BuiltinFunction):
    """out = log(x / (1 - x)) (x clamped to [eps, 1 - eps]);  dx = g / (x (1 - x)) inside."""
    _backward_name = "LogitBackward0"

    @staticmethod
    def forward(ctx, x, eps):
        no_complex_kernel(x.dtype, '"logit_cpu"')
        if x.dtype.kind not in "fc":
            x = x.astype(D._state["default"].np)
        ctx.save_for_backward(x)
        ctx.eps = eps
        z = x if eps is None else np.clip(x, eps, 1 - eps)
        return _libm.log(z / (1 - z))  # (rounded as PyTorch's log: see _libm)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        grad = g / (x * (1 - x))
        if ctx.eps is None:
            return grad, None
        inside = (x >= ctx.eps) & (x <= 1 - ctx.eps)
        return where(inside, grad, 0.0), None


def logit(input, eps=None):
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when given."""
    return Logit.apply(input, eps)


Deg2Rad = _unary("Deg2Rad", lambda x: x * np.asarray(math.pi / 180, x.dtype),
                 lambda g, x, o: g * (math.pi / 180), uses=None)
Rad2Deg = _unary("Rad2Deg", lambda x: x * np.asarray(180 / math.pi, x.dtype),
                 lambda g, x, o: g * (180 / math.pi), uses=None)
deg2rad = _unary_fn(Deg2Rad, "deg2rad")
rad2deg = _unary_fn(Rad2Deg, "rad2deg")


class Copysign(BuiltinFunction):
    """out = |a| with the sign of b;  da = g * sign(a) * sign(out) (0 where a == 0)."""
    _backward_name = "CopysignBackward0"
    _int_edges = (0, 1)  # (an integer tensor there has an edge too)

    @staticmethod
    def forward(ctx, a, b):
        dt = float_np(binary_dtype(a, b))
        no_complex_kernel(dt, '"copysign_cpu"')
        out = np.copysign(cast(a, dt), cast(b, dt))
        if ctx.needs_input_grad[0]:  # as PyTorch: b's gradient (zero) needs neither
            ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, g):
        ga = None
        if ctx.needs_input_grad[0]:
            a, out = ctx.saved_tensors
            ga = g * where(a == 0, 0.0, a.sgn() * out.sgn())
        gb = g * 0 if len(ctx.needs_input_grad) > 1 and ctx.needs_input_grad[1] else None
        return ga, gb


class CopysignScalar(Copysign):
    _backward_name = "CopysignBackward1"


def copysign(input, other):
    """``|input|`` with the sign of ``other``."""
    if isinstance(other, Tensor):
        return Copysign.apply(input, other)
    return CopysignScalar.apply(input, operand(other, "copysign"))


class NanToNum(BuiltinFunction):
    """out = x with nan/inf replaced;  dx = g where x is finite, else 0."""
    _backward_name = "NanToNumBackward0"

    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        ctx.save_for_backward(x)
        return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return where(x.isfinite(), g, 0.0), None, None, None


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """``input`` with nan, +inf and -inf replaced by finite values."""
    return _out(out, NanToNum.apply(input, nan, posinf, neginf))


# ---- comparisons, logical and bitwise (not differentiable) -------------------------------
def _compare(np_fn, name):
    ordered = name not in ("eq", "ne")

    def fn(input, other, *, out=None):
        input, other = _tensor_first(input, other, name)
        a = input._data if isinstance(input, Tensor) else input
        b = other._data if isinstance(other, Tensor) else other
        try:
            dt = binary_dtype(a, b)
            if ordered and dt.kind == "c":  # (named after the dtype the operands promote to)
                no_complex_kernel(dt, f'"{name}_cpu"')
            res = np_fn(cast(a, dt), cast(b, dt))
        except ValueError as e:
            raise _B._translate(e, [a, b]) from None
        except _Unbatchable:   # inside vmap: once on the physical tensors
            return _batched_elementwise(fn, (input, other), out)
        return _out(out, _make(as_array(res), None, False))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` comparison; returns a bool tensor."
    return fn


def _batched_elementwise(fn, args, out=None, **kwargs):
    """A value op (comparison, logical, bitwise, predicate) with a batched argument: the
    batched path of ``numtorch.func`` (its failure branch: reached only inside vmap)."""
    if out is not None:
        raise _Unbatchable("out= of a batched value op")
    from ..func import _batched_values
    return _batched_values.elementwise(fn, args, **kwargs)


eq = _compare(np.equal, "eq")
ne = not_equal = _compare(np.not_equal, "ne")
lt = less = _compare(np.less, "lt")
le = less_equal = _compare(np.less_equal, "le")
gt = greater = _compare(np.greater, "gt")
ge = greater_equal = _compare(np.greater_equal, "ge")


def _logical(np_fn, name):
    def fn(input, other, *, out=None):
        _tensor_input(input, name)
        _tensor_other(other, name)
        a = input._data
        b = other._data if isinstance(other, Tensor) else other
        try:
            res = np_fn(a, b)
        except ValueError as e:
            raise _B._translate(e, [a, b]) from None
        except _Unbatchable:
            return _batched_elementwise(fn, (input, other), out)
        return _out(out, _make(as_array(res), None, False))
    fn.__name__ = fn.__qualname__ = name
    return fn


logical_and = _logical(np.logical_and, "logical_and")
logical_or = _logical(np.logical_or, "logical_or")
logical_xor = _logical(np.logical_xor, "logical_xor")


def logical_not(input, *, out=None):
    try:
        return _out(out, _make(np.logical_not(input._data), None, False))
    except _Unbatchable:
        return _batched_elementwise(logical_not, (input,), out)


def _bitwise(np_fn, name):
    def fn(input, other, *, out=None):
        input, other = _tensor_first(input, other, name)
        a = input._data if isinstance(input, Tensor) else input
        b = other._data if isinstance(other, Tensor) else other
        try:
            dt = binary_dtype(a, b)
        except _Unbatchable:
            return _batched_elementwise(fn, (input, other), out)
        if dt.kind in "fc":
            kernel = {"bitwise_left_shift": "lshift", "bitwise_right_shift": "rshift"}.get(
                name, name)
            raise NotImplementedError(f'"{kernel}_cpu" not implemented for '
                                      f"'{D.SCALAR_NAMES[D._FROM_NP[dt]]}'")
        try:
            res = np_fn(cast(a, dt), cast(b, dt))
        except ValueError as e:
            raise _B._translate(e, [a, b]) from None
        except _Unbatchable:
            return _batched_elementwise(fn, (input, other), out)
        return _out(out, _make(as_array(res), None, False))
    fn.__name__ = fn.__qualname__ = name
    return fn


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")
bitwise_left_shift = _bitwise(np.left_shift, "bitwise_left_shift")
bitwise_right_shift = _bitwise(np.right_shift, "bitwise_right_shift")


def bitwise_not(input, *, out=None):
    if input._data.dtype.kind in "fc":
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for "
                                  f"'{D.SCALAR_NAMES[input.dtype]}'")
    try:
        return _out(out, _make(np.invert(input._data), None, False))
    except _Unbatchable:
        return _batched_elementwise(bitwise_not, (input,), out)


def isnan(input):
    try:
        return _make(np.isnan(input._data), None, False)
    except _Unbatchable:
        return _batched_elementwise(isnan, (input,))


def isinf(input):
    try:
        return _make(np.isinf(input._data), None, False)
    except _Unbatchable:
        return _batched_elementwise(isinf, (input,))


def isfinite(input):
    try:
        return _make(np.isfinite(input._data), None, False)
    except _Unbatchable:
        return _batched_elementwise(isfinite, (input,))


def isposinf(input):
    no_complex(input, "isposinf does not support complex inputs.", RuntimeError)
    try:
        return _make(np.isposinf(input._data), None, False)
    except _Unbatchable:
        return _batched_elementwise(isposinf, (input,))


def isneginf(input):
    no_complex(input, "isneginf does not support complex inputs.", RuntimeError)
    try:
        return _make(np.isneginf(input._data), None, False)
    except _Unbatchable:
        return _batched_elementwise(isneginf, (input,))


def signbit(input):
    no_complex(input, "signbit is not implemented for complex tensors.")
    try:
        return _make(np.signbit(input._data), None, False)
    except _Unbatchable:
        return _batched_elementwise(signbit, (input,))


def _close_arrays(input, other, rtol, atol, equal_nan):
    _check_tolerances(rtol, atol)
    b = other._data if isinstance(other, Tensor) else other
    if isinstance(other, Tensor) and input.dtype is not other.dtype:
        raise RuntimeError(f"{D.SCALAR_NAMES[input.dtype]} did not match "
                           f"{D.SCALAR_NAMES[other.dtype]}")
    try:
        shape = np.broadcast_shapes(input._data.shape, np.shape(b))
    except ValueError as e:
        raise _B._translate(e, [input._data, np.asarray(b)]) from None
    return np.broadcast_to(np.isclose(input._data, b, rtol=rtol, atol=atol,
                                      equal_nan=equal_nan), shape)


def _check_tolerances(rtol, atol):
    for name, v in (("rtol", rtol), ("atol", atol)):
        if v < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {v:g}")


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (both of one dtype)."""
    try:
        return _make(as_array(_close_arrays(input, other, rtol, atol, equal_nan)).copy(), None,
                     False)
    except _Unbatchable:
        return _batched_elementwise(isclose, (input, other), rtol=rtol, atol=atol,
                                    equal_nan=equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element of ``input`` is close to ``other``."""
    try:
        return bool(_close_arrays(input, other, rtol, atol, equal_nan).all())
    except _Unbatchable:   # inside vmap, as PyTorch: no per-sample fallback
        raise RuntimeError("vmap over torch.allclose isn't supported yet. Please file an issue "
                           "at https://github.com/pytorch/pytorch/issues if you need this "
                           "feature.") from None


def equal(input, other):
    """True when both tensors have the same shape and elements."""
    try:
        return input._data.shape == other._data.shape and bool(
            np.array_equal(input._data, other._data))
    except _Unbatchable:   # inside vmap, as PyTorch: no per-sample fallback
        raise RuntimeError("Batching rule not implemented for aten::equal. We could not "
                           "generate a fallback.") from None
