"""Elementwise ops: arithmetic with PyTorch's type promotion, comparisons, unary math.

Each differentiable op is a ``BuiltinFunction``: forward on ndarrays, backward as Tensor
expressions (so it differentiates again). Gradients come back in the broadcast shape; the
engine sums them down to each input's shape.

>>> import numtorch as torch
>>> x = torch.tensor([1., 2.], requires_grad=True)
>>> (x * x + 1).sum().backward(); x.grad
tensor([2., 4.])
"""
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._base import BuiltinFunction
from ._util import binary_dtype, cast, float_np, result_np, as_array

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
    raise TypeError(f"{op}(): argument 'other' (position 1) must be Tensor, not "
                    f"{type(x).__name__}")


def _save_pair(ctx, a, b):
    """Save array operands; a Python-scalar operand is kept as a ctx attribute."""
    ctx.save_for_backward(a if type(a) is _ndarray else None,
                          b if type(b) is _ndarray else None)
    if type(a) is not _ndarray:
        ctx.scalar = a
    elif type(b) is not _ndarray:
        ctx.scalar = b


def _pair(ctx):
    a, b = ctx.saved_tensors
    if a is None:
        a = ctx.scalar
    if b is None:
        b = ctx.scalar
    return a, b


# ---- arithmetic ------------------------------------------------------------------------
class Add(BuiltinFunction):
    """out = a + alpha * b;  da = g, db = alpha * g."""
    _backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        dt = binary_dtype(a, b)
        ctx.alpha = alpha
        if alpha != 1:
            b = np.multiply(cast(b, dt), alpha) if type(b) is _ndarray else b * alpha
        return np.add(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad[:2]
        return (g if na else None), ((g if ctx.alpha == 1 else g * ctx.alpha) if nb else None)


class Sub(BuiltinFunction):
    """out = a - alpha * b;  da = g, db = -alpha * g."""
    _backward_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        dt = binary_dtype(a, b)
        if dt.kind == "b":
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                               "supported. Use the `^` or `logical_xor()` operator instead.")
        ctx.alpha = alpha
        if alpha != 1:
            b = np.multiply(cast(b, dt), alpha) if type(b) is _ndarray else b * alpha
        return np.subtract(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad[:2]
        return (g if na else None), ((-g if ctx.alpha == 1 else g * -ctx.alpha) if nb else None)


class Rsub(BuiltinFunction):
    """out = b - alpha * a (``scalar - tensor``);  da = -alpha * g."""
    _backward_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        dt = binary_dtype(a, b)
        ctx.alpha = alpha
        return np.subtract(cast(b, dt), np.multiply(cast(a, dt), alpha) if alpha != 1
                           else cast(a, dt))

    @staticmethod
    def backward(ctx, g):
        return (-g if ctx.alpha == 1 else g * -ctx.alpha), None


class Mul(BuiltinFunction):
    """out = a * b;  da = g * b, db = g * a."""
    _backward_name = "MulBackward0"

    @staticmethod
    def forward(ctx, a, b):
        dt = binary_dtype(a, b)
        _save_pair(ctx, a, b)
        return np.multiply(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        na, nb = ctx.needs_input_grad[:2]
        return (g * b if na else None), (g * a if nb else None)


def _true_div_dtype(a, b):
    dt = binary_dtype(a, b)
    return dt if dt.kind in "fc" else D._state["default"].np


class Div(BuiltinFunction):
    """out = a / b;  da = g / b, db = -g * a / b**2."""
    _backward_name = "DivBackward0"

    @staticmethod
    def forward(ctx, a, b):
        dt = _true_div_dtype(a, b)
        _save_pair(ctx, a, b)
        return np.true_divide(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        na, nb = ctx.needs_input_grad[:2]
        return (g / b if na else None), (-g * a / (b * b) if nb else None)


class Pow(BuiltinFunction):
    """out = a ** b;  da = g * b * a**(b-1), db = g * out * log(a)."""
    _backward_name = "PowBackward0"

    @staticmethod
    def forward(ctx, a, b):
        dt = binary_dtype(a, b)
        if dt.kind in "iu" and _has_negative(b):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        _save_pair(ctx, a, b)
        return np.power(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        na, nb = ctx.needs_input_grad[:2]
        ga = gb = None
        if na:
            if isinstance(b, Tensor):
                ga = g * b * pow(a, b - 1)
            else:
                ga = g * 0 if b == 0 else g * b * pow(a, b - 1)
        if nb:
            out = pow(a, b)
            gb = g * out * (log(a) if isinstance(a, Tensor) else math.log(a))
            if isinstance(a, Tensor):
                gb = where(((a == 0) & (b >= 0)) if isinstance(b, Tensor) else (a == 0),
                           0.0, gb)
        return ga, gb


class PowTensor(Pow):
    _backward_name = "PowBackward1"


class PowScalarBase(Pow):
    _backward_name = "PowBackward2"


def _has_negative(b):
    return (b < 0).any() if type(b) is _ndarray else b < 0


def _floor_divide_arrays(a, b):
    dt = binary_dtype(a, b)
    a, b = cast(a, dt), cast(b, dt)
    if dt.kind in "iub" and (np.asarray(b) == 0).any():
        raise RuntimeError("ZeroDivisionError")
    return np.floor_divide(a, b)


class Remainder(BuiltinFunction):
    """out = a - floor(a / b) * b;  da = g, db = -g * floor(a / b)."""
    _backward_name = "RemainderBackward0"

    @staticmethod
    def forward(ctx, a, b):
        dt = binary_dtype(a, b)
        _save_pair(ctx, a, b)
        a, b = cast(a, dt), cast(b, dt)
        if dt.kind in "iu" and (np.asarray(b) == 0).any():
            raise RuntimeError("ZeroDivisionError")
        return np.remainder(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        na, nb = ctx.needs_input_grad[:2]
        return (g if na else None), (-g * floor_divide(a, b) if nb else None)


class Fmod(BuiltinFunction):
    """out = a - trunc(a / b) * b;  da = g, db = -g * trunc(a / b)."""
    _backward_name = "FmodBackward0"

    @staticmethod
    def forward(ctx, a, b):
        dt = binary_dtype(a, b)
        _save_pair(ctx, a, b)
        return np.fmod(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        na, nb = ctx.needs_input_grad[:2]
        return (g if na else None), (-g * trunc(div(a, b)) if nb else None)


class Atan2(BuiltinFunction):
    """out = atan2(a, b);  da = g * b / (a²+b²), db = -g * a / (a²+b²)."""
    _backward_name = "Atan2Backward0"

    @staticmethod
    def forward(ctx, a, b):
        dt = float_np(binary_dtype(a, b))
        _save_pair(ctx, a, b)
        return np.arctan2(cast(a, dt), cast(b, dt))

    @staticmethod
    def backward(ctx, g):
        a, b = _pair(ctx)
        denom = a * a + b * b
        na, nb = ctx.needs_input_grad[:2]
        return (g * b / denom if na else None), (-g * a / denom if nb else None)


class Maximum(BuiltinFunction):
    """out = max(a, b);  the gradient goes to the larger input (split evenly on ties)."""
    _backward_name = "MaximumBackward0"

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
def _unary(name, np_fn, grad, uses="x", float_only=True, bw=None, int_ok=True):
    """Make a unary op class: ``grad(g, x, out)`` gives the input gradient as Tensors."""

    def forward(ctx, x):
        if float_only and x.dtype.kind not in "fc":
            x = x.astype(D._state["default"].np)
        out = np_fn(x)
        if uses == "x":
            ctx.save_for_backward(x)
        elif uses == "out":
            ctx.save_for_backward(out)
        elif uses == "both":
            ctx.save_for_backward(x, out)
        return out

    def backward(ctx, g):
        saved = ctx.saved_tensors
        if uses == "x":
            return grad(g, saved[0], None)
        if uses == "out":
            return grad(g, None, saved[0])
        if uses == "both":
            return grad(g, saved[0], saved[1])
        return grad(g, None, None)

    cls = type(name, (BuiltinFunction,), {
        "_backward_name": bw or f"{name}Backward0", "__doc__": f"Elementwise {name.lower()}.",
        "forward": staticmethod(forward), "backward": staticmethod(backward),
        "__module__": __name__})
    return cls


_LN2, _LN10 = math.log(2.0), math.log(10.0)

Neg = _unary("Neg", np.negative, lambda g, x, o: -g, uses=None, float_only=False)
Exp = _unary("Exp", np.exp, lambda g, x, o: g * o, uses="out")
Exp2 = _unary("Exp2", np.exp2, lambda g, x, o: g * o * _LN2, uses="out")
Expm1 = _unary("Expm1", np.expm1, lambda g, x, o: g * (o + 1), uses="out")
Log = _unary("Log", np.log, lambda g, x, o: g / x)
Log2 = _unary("Log2", np.log2, lambda g, x, o: g / (x * _LN2))
Log10 = _unary("Log10", np.log10, lambda g, x, o: g / (x * _LN10))
Log1p = _unary("Log1p", np.log1p, lambda g, x, o: g / (x + 1))
Sqrt = _unary("Sqrt", np.sqrt, lambda g, x, o: g / (o * 2), uses="out")
Rsqrt = _unary("Rsqrt", lambda x: 1 / np.sqrt(x), lambda g, x, o: g * o.pow(3) * -0.5,
               uses="out")
Reciprocal = _unary("Reciprocal", np.reciprocal, lambda g, x, o: -g * o * o, uses="out")
Sin = _unary("Sin", np.sin, lambda g, x, o: g * x.cos())
Cos = _unary("Cos", np.cos, lambda g, x, o: g * -x.sin())
Tan = _unary("Tan", np.tan, lambda g, x, o: g * (o * o + 1), uses="out")
Asin = _unary("Asin", np.arcsin, lambda g, x, o: g * (1 - x * x).rsqrt())
Acos = _unary("Acos", np.arccos, lambda g, x, o: -g * (1 - x * x).rsqrt())
Atan = _unary("Atan", np.arctan, lambda g, x, o: g / (x * x + 1))
Sinh = _unary("Sinh", np.sinh, lambda g, x, o: g * x.cosh())
Cosh = _unary("Cosh", np.cosh, lambda g, x, o: g * x.sinh())
Tanh = _unary("Tanh", np.tanh, lambda g, x, o: g * (1 - o * o), uses="out")
Asinh = _unary("Asinh", np.arcsinh, lambda g, x, o: g * (x * x + 1).rsqrt())
Acosh = _unary("Acosh", np.arccosh, lambda g, x, o: g * (x * x - 1).rsqrt())
Atanh = _unary("Atanh", np.arctanh, lambda g, x, o: g / (1 - x * x))
Sigmoid = _unary("Sigmoid", lambda x: _sigmoid(x), lambda g, x, o: g * o * (1 - o), uses="out")
Abs = _unary("Abs", np.abs, lambda g, x, o: g * x.sgn(), float_only=False)
Relu = _unary("Relu", lambda x: np.maximum(x, 0), lambda g, x, o: g * (o > 0).to(g.dtype),
              uses="out", float_only=False)
Square = _unary("Square", np.square, lambda g, x, o: g * x * 2, bw="PowBackward0",
                float_only=False)


def _zero_grad_op(name, np_fn):
    return _unary(name, np_fn, lambda g, x, o: g * 0, uses=None, float_only=False)


Sign = _zero_grad_op("Sign", np.sign)
Sgn = _zero_grad_op("Sgn", np.sign)
Floor = _zero_grad_op("Floor", np.floor)
Ceil = _zero_grad_op("Ceil", np.ceil)
Trunc = _zero_grad_op("Trunc", np.trunc)
Round = _zero_grad_op("Round", np.round)
Frac = _unary("Frac", lambda x: x - np.trunc(x), lambda g, x, o: g, uses=None)


def _sigmoid(x):
    # NOTE: split by sign so that exp never overflows for large |x|.
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1 / (1 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1 + e)
    return out


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
        out = x
        if lo is not None:
            out = np.maximum(out, cast(lo, out.dtype))
        if hi is not None:
            out = np.minimum(out, cast(hi, out.dtype))
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


class ClampTensor(BuiltinFunction):
    """Clamp with tensor bounds: gradients flow to x inside, to the active bound outside."""
    _backward_name = "ClampBackward0"

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x, lo if type(lo) is _ndarray else None,
                              hi if type(hi) is _ndarray else None)
        dt = result_np(*(v for v in (x, lo, hi) if v is not None))
        out = cast(x, dt)
        if lo is not None:
            out = np.maximum(out, cast(lo, dt))
        if hi is not None:
            out = np.minimum(out, cast(hi, dt))
        return np.array(out, copy=True) if out is x else out

    @staticmethod
    def backward(ctx, g):
        x, lo, hi = ctx.saved_tensors
        inside = ones_bool(x)
        glo = ghi = None
        if lo is not None:
            below = x < lo
            inside = inside & ~below
            glo = g * below.to(g.dtype)
        if hi is not None:
            above = x > hi
            inside = inside & ~above
            ghi = g * above.to(g.dtype)
        return g * inside.to(g.dtype), glo, ghi


def ones_bool(x):
    return _make(np.ones(x._data.shape, bool), None, False)


class Where(BuiltinFunction):
    """out = cond ? a : b;  da = g where cond, db = g elsewhere."""
    _backward_name = "WhereBackward0"

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
def _out(out, result):
    """Write ``result`` into the ``out=`` tensor (resizing it if needed) and return it."""
    if out is None:
        return result
    if out._data.shape == result._data.shape:
        np.copyto(out._data, result._data, casting="unsafe")
    else:
        out._data = result._data.astype(out._data.dtype)
    out._vc[0] += 1
    return out


def _tensor_first(input, other, op):
    if not isinstance(input, Tensor):
        if isinstance(other, Tensor):
            return operand(input, op), other
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input, operand(other, op)


def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` with broadcasting and type promotion."""
    input, other = _tensor_first(input, other, "add")
    if not isinstance(input, Tensor):
        return _out(out, Add.apply(other, input, alpha) if alpha == 1 else
                    Rsub.apply(other, input, -alpha))
    return _out(out, Add.apply(input, other, alpha))


def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other``."""
    input, other = _tensor_first(input, other, "sub")
    if not isinstance(input, Tensor):
        return _out(out, Rsub.apply(other, input, alpha))
    return _out(out, Sub.apply(input, other, alpha))


subtract = sub


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    return Rsub.apply(input, operand(other, "rsub"), alpha)


def mul(input, other, *, out=None):
    """``input * other``."""
    input, other = _tensor_first(input, other, "mul")
    if not isinstance(input, Tensor):
        input, other = other, input
    return _out(out, Mul.apply(input, other))


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    """``input / other``; ``rounding_mode`` 'trunc' or 'floor' rounds the quotient."""
    input, other = _tensor_first(input, other, "div")
    if rounding_mode is None:
        if not isinstance(input, Tensor):
            return _out(out, mul(reciprocal(other), input))
        return _out(out, Div.apply(input, other))
    if rounding_mode == "floor":
        return _out(out, floor_divide(input, other))
    if rounding_mode == "trunc":
        a = input._data if isinstance(input, Tensor) else input
        b = other._data if isinstance(other, Tensor) else other
        dt = binary_dtype(a, b)
        if dt.kind in "iu":
            if (np.asarray(b) == 0).any():
                raise RuntimeError("ZeroDivisionError")
            q = np.trunc(np.true_divide(a, b)).astype(dt)
        else:
            q = np.trunc(np.true_divide(cast(a, dt), cast(b, dt)))
        return _out(out, _make(as_array(q), None, False))
    raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


divide = div
true_divide = div


def floor_divide(input, other, *, out=None):
    """``floor(input / other)`` (no gradient, as in PyTorch)."""
    input, other = _tensor_first(input, other, "floor_divide")
    a = input._data if isinstance(input, Tensor) else input
    b = other._data if isinstance(other, Tensor) else other
    return _out(out, _make(as_array(_floor_divide_arrays(a, b)), None, False))


def remainder(input, other, *, out=None):
    """Python-style modulus (the result has the sign of ``other``)."""
    input, other = _tensor_first(input, other, "remainder")
    if not isinstance(input, Tensor):
        input = _make(np.asarray(input, result_np(input)), None, False)
    return _out(out, Remainder.apply(input, other))


def fmod(input, other, *, out=None):
    """C-style modulus (the result has the sign of ``input``)."""
    return _out(out, Fmod.apply(input, operand(other, "fmod")))


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
    """``input ** exponent`` computed in float64."""
    a = input.double() if isinstance(input, Tensor) else float(input)
    e = exponent.double() if isinstance(exponent, Tensor) else exponent
    return pow(a, e)


def atan2(input, other, *, out=None):
    return _out(out, Atan2.apply(input, operand(other, "atan2")))


arctan2 = atan2


def maximum(input, other, *, out=None):
    return _out(out, Maximum.apply(input, operand(other, "maximum")))


def minimum(input, other, *, out=None):
    return _out(out, Minimum.apply(input, operand(other, "minimum")))


def fmax(input, other, *, out=None):
    res = maximum(input, other)
    return _out(out, where(isnan(input), other, where(isnan(other), input, res)))


def fmin(input, other, *, out=None):
    res = minimum(input, other)
    return _out(out, where(isnan(input), other, where(isnan(other), input, res)))


def _unary_fn(cls, name):
    def fn(input, *, out=None):
        return _out(out, cls.apply(input))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of ``input``."
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
    return _out(out, Neg.apply(input))


negative = neg


def round(input, *, decimals=0, out=None):
    """Round half to even; with ``decimals``, to that many decimal places."""
    if decimals:
        scale = 10.0 ** decimals
        return _out(out, Round.apply(input * scale) / scale)
    return _out(out, Round.apply(input))


def clamp(input, min=None, max=None, *, out=None):
    """Limit ``input`` to [min, max]; bounds may be scalars or tensors."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = operand(min, "clamp") if min is not None else None
        hi = operand(max, "clamp") if max is not None else None
        return _out(out, ClampTensor.apply(input, lo, hi))
    return _out(out, Clamp.apply(input, min, max))


clip = clamp


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


def where(condition, input=None, other=None, *, out=None):
    """``input`` where ``condition`` holds, else ``other``; one argument: ``nonzero`` tuples."""
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    cond = condition if isinstance(condition, Tensor) else _make(np.asarray(condition), None,
                                                                  False)
    if cond._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a "
                           f"tensor with dtype {cond.dtype.name.capitalize()}")
    input, other = operand(input, "where"), operand(other, "where")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        dt = result_np(input, other)
        input = _make(np.asarray(input, dt), None, False)
    return _out(out, Where.apply(cond, input, other))


def lerp(input, end, weight):
    """``input + weight * (end - input)``."""
    return input + weight * (end - input)


def addcmul(input, tensor1, tensor2, *, value=1):
    return input + value * tensor1 * tensor2


def addcdiv(input, tensor1, tensor2, *, value=1):
    return input + value * tensor1 / tensor2


def hypot(input, other):
    return sqrt(input * input + other * other)


def xlogy(input, other):
    return where(input == 0, 0.0, input * log(operand(other)))


def logaddexp(input, other):
    m = maximum(input, other).detach()
    return m + log(exp(input - m) + exp(other - m))


def logit(input, eps=None):
    x = input if eps is None else clamp(input, eps, 1 - eps)
    return log(x / (1 - x))


def deg2rad(input):
    return input * (math.pi / 180)


def rad2deg(input):
    return input * (180 / math.pi)


def copysign(input, other):
    o = other._data if isinstance(other, Tensor) else other
    return abs(input) * _make(np.where(np.signbit(o), -1.0, 1.0).astype(
        float_np(input._data.dtype)), None, False)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    data = np.nan_to_num(input._data, nan=nan, posinf=posinf, neginf=neginf)
    keep = _make(np.isfinite(input._data), None, False)
    return _out(out, where(keep, input, _make(data, None, False)))


# ---- comparisons, logical and bitwise (not differentiable) -------------------------------
def _compare(np_fn, name):
    def fn(input, other, *, out=None):
        input, other = _tensor_first(input, other, name)
        a = input._data if isinstance(input, Tensor) else input
        b = other._data if isinstance(other, Tensor) else other
        dt = binary_dtype(a, b)
        return _out(out, _make(as_array(np_fn(cast(a, dt), cast(b, dt))), None, False))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` comparison; returns a bool tensor."
    return fn


eq = _compare(np.equal, "eq")
ne = not_equal = _compare(np.not_equal, "ne")
lt = less = _compare(np.less, "lt")
le = less_equal = _compare(np.less_equal, "le")
gt = greater = _compare(np.greater, "gt")
ge = greater_equal = _compare(np.greater_equal, "ge")


def _logical(np_fn, name):
    def fn(input, other, *, out=None):
        a = input._data
        b = other._data if isinstance(other, Tensor) else other
        return _out(out, _make(as_array(np_fn(a, b)), None, False))
    fn.__name__ = fn.__qualname__ = name
    return fn


logical_and = _logical(np.logical_and, "logical_and")
logical_or = _logical(np.logical_or, "logical_or")
logical_xor = _logical(np.logical_xor, "logical_xor")


def logical_not(input, *, out=None):
    return _out(out, _make(np.logical_not(input._data), None, False))


def _bitwise(np_fn, name):
    def fn(input, other, *, out=None):
        input, other = _tensor_first(input, other, name)
        a = input._data if isinstance(input, Tensor) else input
        b = other._data if isinstance(other, Tensor) else other
        dt = binary_dtype(a, b)
        if dt.kind in "fc":
            raise RuntimeError(f'"{name}_cpu" not implemented for '
                               f"'{D._FROM_NP[dt].name.capitalize()}'")
        return _out(out, _make(as_array(np_fn(cast(a, dt), cast(b, dt))), None, False))
    fn.__name__ = fn.__qualname__ = name
    return fn


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")
bitwise_left_shift = _bitwise(np.left_shift, "bitwise_left_shift")
bitwise_right_shift = _bitwise(np.right_shift, "bitwise_right_shift")


def bitwise_not(input, *, out=None):
    if input._data.dtype.kind in "fc":
        raise RuntimeError(f"\"bitwise_not_cpu\" not implemented for "
                           f"'{input.dtype.name.capitalize()}'")
    return _out(out, _make(np.invert(input._data), None, False))


def isnan(input):
    return _make(np.isnan(input._data), None, False)


def isinf(input):
    return _make(np.isinf(input._data), None, False)


def isfinite(input):
    return _make(np.isfinite(input._data), None, False)


def isposinf(input):
    return _make(np.isposinf(input._data), None, False)


def isneginf(input):
    return _make(np.isneginf(input._data), None, False)


def signbit(input):
    return _make(np.signbit(input._data), None, False)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    b = other._data if isinstance(other, Tensor) else other
    return _make(as_array(np.isclose(input._data, b, rtol=rtol, atol=atol,
                                     equal_nan=equal_nan)), None, False)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element of ``input`` is close to ``other``."""
    b = other._data if isinstance(other, Tensor) else other
    return bool(np.allclose(input._data, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input, other):
    """True when both tensors have the same shape and elements."""
    return input._data.shape == other._data.shape and bool(
        np.array_equal(input._data, other._data))
