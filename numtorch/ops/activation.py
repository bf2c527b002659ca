"""Activation functions of ``torch.nn.functional`` as built-in ops.

Forward runs on arrays in the input's dtype; backward is written with Tensor ops (masks
from comparisons are constants), so every activation differentiates twice.

>>> import numtorch as torch
>>> from numtorch.ops import activation as A
>>> x = torch.tensor([-1.0, 2.0], requires_grad=True)
>>> y = A.LeakyRelu.apply(x, 0.1); y
tensor([-0.1000,  2.0000], grad_fn=<LeakyReluBackward0>)
"""
import math

import numpy as np

from .._tensor import Tensor
from ._base import NULL_CTX, BuiltinFunction
from ._util import float_np

_make = Tensor._make
_SQRT1_2 = 0.70710678118654752440
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_ONE_SIXTH_F32 = float(np.float32(1.0) / np.float32(6.0))


def _mask(cond, like):
    """A comparison result as 0/1 in ``like``'s dtype (a constant for autograd)."""
    return cond.to(like.dtype)


def _s(x, value):
    """``value`` as a scalar of ``x``'s dtype, so float32 math stays float32."""
    return x.dtype.type(value)


def erf(x):
    """Elementwise error function on an array (SciPy when present, else ``math.erf``).

    >>> erf(np.array([0.0, 1.0]))
    array([0.        , 0.84270079])
    """
    try:
        from scipy.special import erf as _erf
        return _erf(x)
    except ImportError:
        # NOTE: math.erf is correctly rounded in double; slower, but exact enough to round
        # to float32 as PyTorch's kernel does.
        return np.vectorize(math.erf, otypes=[np.float64])(x).astype(x.dtype)


class LeakyRelu(BuiltinFunction):
    """out = x > 0 ? x : slope * x;  dx = g * (x > 0 ? 1 : slope)."""
    _backward_name = "LeakyReluBackward0"

    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return np.where(x > 0, x, x * _s(x, slope))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        m = _mask(x > 0, g)
        return g * (m * (1 - ctx.slope) + ctx.slope), None


class Elu(BuiltinFunction):
    """out = x > 0 ? scale * x : scale * alpha * (exp(x * input_scale) - 1)."""
    _backward_name = "EluBackward0"

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale):
        ctx.save_for_backward(x)
        ctx.args = (alpha, scale, input_scale)
        neg = np.expm1(x * _s(x, input_scale)) * _s(x, alpha * scale)
        return np.where(x > 0, x * _s(x, scale), neg)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        alpha, scale, input_scale = ctx.args
        pos = _mask(x > 0, g)
        neg = g * input_scale * (alpha * scale) * (x * input_scale).exp()
        return pos * (g * scale) + (1 - pos) * neg, None, None, None


class Celu(Elu):
    """Elu with input_scale = 1 / alpha.  NOTE: PyTorch's backward uses 1 / float32(alpha)."""
    _backward_name = "CeluBackward0"

    @staticmethod
    def backward(ctx, g):
        alpha, scale, _ = ctx.args
        ctx.args = (alpha, scale, 1.0 / float(np.float32(alpha)))
        return Elu.backward(ctx, g)


class Gelu(BuiltinFunction):
    """out = x * Phi(x) (erf) or its tanh approximation;  dx = g * d/dx."""
    _backward_name = "GeluBackward0"

    @staticmethod
    def forward(ctx, x, approximate):
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        half = _s(x, 0.5)
        if approximate == "tanh":
            inner = _s(x, _SQRT_2_OVER_PI) * (x + _s(x, 0.044715) * x * x * x)
            return half * x * (1 + np.tanh(inner))
        return x * half * (1 + erf(x * _s(x, _SQRT1_2)).astype(x.dtype))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if ctx.approximate == "tanh":
            k = 0.044715
            t = ((x + x * x * x * k) * _SQRT_2_OVER_PI).tanh()
            dinner = (x * x * (3 * k) + 1) * _SQRT_2_OVER_PI
            return g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * dinner), None
        cdf = (GeluErf.apply(x) + 1) * 0.5
        pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
        return g * (cdf + x * pdf), None


class GeluErf(BuiltinFunction):
    """out = erf(x / sqrt(2));  dx = g * sqrt(2/pi) * exp(-x^2 / 2)."""
    _backward_name = "ErfBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return erf(x * _s(x, _SQRT1_2)).astype(x.dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x * x * -0.5).exp() * (2 * _INV_SQRT_2PI)


def _sigmoid_np(x):
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1 / (1 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1 + e)
    return out


class Silu(BuiltinFunction):
    """out = x * sigmoid(x);  dx = g * s * (1 + x * (1 - s))."""
    _backward_name = "SiluBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (1 + np.exp(-x))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        s = x.sigmoid()
        return g * s * (1 + x * (1 - s))


def _softplus_np(x, beta, threshold):
    bx = x * _s(x, beta)
    return np.where(bx > threshold, x, np.log1p(np.exp(bx)) / _s(x, beta))


class Mish(BuiltinFunction):
    """out = x * tanh(softplus(x));  dx = g * (t + x * sigmoid(x) * (1 - t^2))."""
    _backward_name = "MishBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * np.tanh(np.log1p(np.exp(x)))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        t = Softplus.apply(x, 1.0, 20.0).tanh()
        return g * (t + x * x.sigmoid() * (1 - t * t))


class Softplus(BuiltinFunction):
    """out = log(1 + exp(beta x)) / beta (x where beta x > threshold);  dx = g * sigmoid(beta x)."""
    _backward_name = "SoftplusBackward0"

    @staticmethod
    def forward(ctx, x, beta, threshold):
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        return _softplus_np(x, beta, threshold)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        bx = x * ctx.beta
        lin = _mask(bx > ctx.threshold, g)
        return g * (lin + (1 - lin) * bx.sigmoid()), None, None


class Hardtanh(BuiltinFunction):
    """out = clamp(x, lo, hi);  dx = g where lo < x < hi (strictly), else 0."""
    _backward_name = "HardtanhBackward0"

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return np.minimum(np.maximum(x, _s(x, lo)), _s(x, hi))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _mask((x > ctx.lo) & (x < ctx.hi), g), None, None


class Hardsigmoid(BuiltinFunction):
    """out = clamp(x + 3, 0, 6) / 6;  dx = g / 6 where -3 < x < 3."""
    _backward_name = "HardsigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.minimum(np.maximum(x + _s(x, 3), _s(x, 0)), _s(x, 6)) / _s(x, 6)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        # NOTE: PyTorch multiplies by the float32 constant 1.0f / 6.0f, in any dtype
        return g * _mask((x > -3) & (x < 3), g) * _ONE_SIXTH_F32


class Hardswish(BuiltinFunction):
    """out = x * clamp(x + 3, 0, 6) / 6;  dx = g * (x < -3 ? 0 : x <= 3 ? x/3 + 1/2 : 1)."""
    _backward_name = "HardswishBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * np.minimum(np.maximum(x + _s(x, 3), _s(x, 0)), _s(x, 6)) / _s(x, 6)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        mid = _mask((x >= -3) & (x <= 3), g)
        hi = _mask(x > 3, g)
        return g * (mid * (x / 3 + 0.5) + hi)


class LogSigmoid(BuiltinFunction):
    """out = -softplus(-x) = min(x, 0) - log1p(exp(-|x|));  dx = g * sigmoid(-x)."""
    _backward_name = "LogSigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.minimum(x, _s(x, 0)) - np.log1p(np.exp(-np.abs(x)))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (-x).sigmoid()


class Threshold(BuiltinFunction):
    """out = x > threshold ? x : value;  dx = g where x > threshold."""
    _backward_name = "ThresholdBackward0"

    @staticmethod
    def forward(ctx, x, threshold, value):
        ctx.save_for_backward(x)
        ctx.threshold = threshold
        return np.where(x > threshold, x, np.asarray(value, x.dtype))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _mask(x > ctx.threshold, g), None, None


class Hardshrink(BuiltinFunction):
    """out = x outside [-lambd, lambd], else 0;  dx = g outside it."""
    _backward_name = "HardshrinkBackward0"

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        return np.where((x > lambd) | (x < -lambd), x, _s(x, 0))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _mask((x > ctx.lambd) | (x < -ctx.lambd), g), None


class Softshrink(BuiltinFunction):
    """out = x - lambd (x > lambd), x + lambd (x < -lambd), else 0;  dx = g outside."""
    _backward_name = "SoftshrinkBackward0"

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        lam = _s(x, lambd)
        return np.where(x > lam, x - lam, np.where(x < -lam, x + lam, _s(x, 0)))

    backward = Hardshrink.backward


class Prelu(BuiltinFunction):
    """out = x > 0 ? x : w * x (w per channel, dim 1);  dx, dw from the two branches."""
    _backward_name = "PreluKernelBackward0"

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return np.where(x > 0, x, w * x)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        pos = _mask(x > 0, g)
        gx = g * (pos + (1 - pos) * w) if ctx.needs_input_grad[0] else None
        gw = g * (1 - pos) * x if ctx.needs_input_grad[1] else None
        return gx, gw


class Glu(BuiltinFunction):
    """out = a * sigmoid(b) with (a, b) the halves of x along dim;  dx = both halves' grads."""
    _backward_name = "GluBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        ctx.save_for_backward(x)
        ctx.dim = dim
        a, b = np.split(x, 2, axis=dim)
        return a * _sigmoid_np(b)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        a, b = x.chunk(2, ctx.dim)
        s = b.sigmoid()
        from .shape import cat
        return cat([g * s, g * a * s * (1 - s)], ctx.dim), None


class RreluWithNoise(BuiltinFunction):
    """out = x >= 0 ? x : noise * x, noise drawn per element;  dx = g * (noise or 1)."""
    _backward_name = "RreluWithNoiseBackward0"

    @staticmethod
    def forward(ctx, x, noise):
        ctx.save_for_backward(noise)
        return x * noise

    @staticmethod
    def backward(ctx, g):
        (noise,) = ctx.saved_tensors
        return g * noise, None


# ---- in-place forms that save their output, as PyTorch's do ---------------------------------
# (so changing the output in place before backward is an error, as in PyTorch)
_NEGATIVE_SLOPE = ("In-place leakyReLu backward calculation is triggered with a negative slope "
                   "which is not supported. This is caused by calling in-place forward function "
                   "with a negative slope, please call out-of-place version instead. File an "
                   "issue at https://github.com/pytorch/pytorch if you do require supporting "
                   "in-place leakRelu backward calculation with negative slope")
_NEGATIVE_ALPHA = ("In-place elu backward calculation is triggered with a negative slope which "
                   "is not supported. This is caused by calling in-place forward function with "
                   "a negative slope, please call out-of-place version instead.")


class LeakyReluResult(BuiltinFunction):
    """leaky_relu_: y = x > 0 ? x : slope * x;  dx = g * (y > 0 ? 1 : slope)."""
    _backward_name = "LeakyReluBackward1"

    @staticmethod
    def forward(ctx, x, slope):
        out = np.where(x > 0, x, x * _s(x, slope))
        ctx.save_for_backward(out)
        ctx.slope = slope
        return out

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        if ctx.slope < 0:
            raise RuntimeError(_NEGATIVE_SLOPE)
        m = _mask(y > 0, g)
        return g * (m * (1 - ctx.slope) + ctx.slope), None


class EluResult(BuiltinFunction):
    """elu_: y as Elu;  dx = g * (y > 0 ? scale : input_scale * (y + alpha * scale))."""
    _backward_name = "EluBackward1"

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale):
        out = Elu.forward(NULL_CTX, x, alpha, scale, input_scale)
        ctx.save_for_backward(out)
        ctx.args = (alpha, scale, input_scale)
        return out

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        alpha, scale, input_scale = ctx.args
        if alpha < 0:
            raise RuntimeError(_NEGATIVE_ALPHA)
        pos = _mask(y > 0, g)
        return pos * (g * scale) + (1 - pos) * (g * input_scale * (y + alpha * scale)), None, \
            None, None


class CeluResult(EluResult):
    """celu_: EluResult with input_scale = 1 / float32(alpha), as PyTorch's backward."""
    _backward_name = "CeluBackward1"

    @staticmethod
    def backward(ctx, g):
        alpha, scale, _ = ctx.args
        ctx.args = (alpha, scale, 1.0 / float(np.float32(alpha)))
        return EluResult.backward(ctx, g)


class RreluWithNoiseResult(BuiltinFunction):
    """rrelu_ (training): y = x * noise;  dx = g * noise (the output is saved all the same)."""
    _backward_name = "RreluWithNoiseBackward1"

    @staticmethod
    def forward(ctx, x, noise):
        out = x * noise
        ctx.save_for_backward(out, noise)
        return out

    @staticmethod
    def backward(ctx, g):
        return g * ctx.saved_tensors[1], None


class ThresholdInPlace(Threshold):
    """threshold_: as Threshold (PyTorch names its node ThresholdBackward1)."""
    _backward_name = "ThresholdBackward1"


INPLACE_VARIANTS = {LeakyRelu: LeakyReluResult, Elu: EluResult, Celu: CeluResult,
                    RreluWithNoise: RreluWithNoiseResult, Threshold: ThresholdInPlace}


def float_input(x):
    """Integer inputs of float-only activations become the default float dtype."""
    dt = float_np(x._data.dtype)
    return x if dt == x._data.dtype else x.to(_dtype_of(dt))


def _dtype_of(npdt):
    from .. import _dtype as D
    return D._FROM_NP[npdt]
