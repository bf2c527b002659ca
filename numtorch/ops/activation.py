"""Activation functions of ``torch.nn.functional`` as built-in ops.

Forward runs on arrays in the input's dtype. Backward SELECTS per element, as PyTorch's
kernels do, never multiplies by a 0/1 mask: a position the activation is flat at gets +0 for
any incoming gradient (-3, inf, NaN), and the unused branch (``exp(200) = inf``) cannot leak a
NaN. The piecewise activations' backward is an op of its own (``*BackwardKernel``: PyTorch's
``*_backward`` on arrays, its derivatives PyTorch's double-backward formulas), so first and
second derivatives match PyTorch's bits; the smooth ones are written with Tensor ops.

NOTE: PyTorch's vectorised CPU loop and its scalar tail disagree on NaN inputs for hardtanh,
the shrinks, hardswish and elu (``blendv`` on ``x > lo`` vs ``x <= lo ? 0 : g``); the tail
only covers the last few elements of a tensor (all of one below 16), so numtorch follows the
vectorised loop.

>>> import numtorch as torch
>>> from numtorch.ops import activation as A
>>> x = torch.tensor([-1.0, 2.0], requires_grad=True)
>>> y = A.LeakyRelu.apply(x, 0.1); y
tensor([-0.1000,  2.0000], grad_fn=<LeakyReluBackward0>)
"""
import math

import numpy as np

from .._tensor import Tensor
from . import _libm, _vector_math
from ._base import NULL_CTX, BuiltinFunction
from ._util import float_np, zero_where, half_in_float32

_make = Tensor._make
_SQRT1_2 = 0.70710678118654752440
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_ONE_SIXTH_F32 = float(np.float32(1.0) / np.float32(6.0))


def _mask(cond, like):
    """A comparison result as 0/1 in ``like``'s dtype (a constant for autograd); only where
    PyTorch's own formula multiplies by such a mask (its double-backward formulas)."""
    return cond.to(like.dtype)


def _s(x, value):
    """``value`` as a scalar of ``x``'s dtype, so float32 math stays float32."""
    return x.dtype.type(value)


def _zeros(x):
    """A constant +0 tensor like ``x`` (PyTorch's ``zeros_like(grad)`` double backward)."""
    return _make(np.zeros(x._data.shape, x._data.dtype), None, False)


def _pick(cond, a, b):
    """``cond ? a : b`` with ``a`` and ``b`` Tensor constants or scalars (no gradient)."""
    from .elementwise import where
    return where(cond, a, b)


class _GradKernel(BuiltinFunction):
    """Base of PyTorch's ``<act>_backward(g, x, *args)`` kernels as ops.

    ``kernel`` computes the gradient on arrays by selection. The op is linear in ``g``, so
    d/dg applies the same kernel to ``gg``; d/dx is ``x_grad`` (PyTorch's double-backward
    formula: zeros for the piecewise-linear activations).
    """

    @classmethod
    def forward(cls, ctx, g, x, *args):
        ctx.save_for_backward(g, x)
        ctx.args = args
        return cls.kernel(g, x, *args)

    @classmethod
    def backward(cls, ctx, gg):
        g, x = ctx.saved_tensors
        ng, nx = ctx.needs_input_grad[:2]
        dg = cls.apply(gg, x, *ctx.args) if ng else None
        dx = cls.x_grad(gg, g, x, *ctx.args) if nx else None
        return (dg, dx) + (None,) * len(ctx.args)

    @staticmethod
    def x_grad(gg, g, x, *args):
        return _zeros(x)


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
    """out = x > 0 ? x : slope * x;  dx = x > 0 ? g : g * slope."""
    _backward_name = "LeakyReluBackward0"

    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return np.where(x > 0, x, x * _s(x, slope))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return LeakyReluBackwardKernel.apply(g, x, ctx.slope), None


class LeakyReluBackwardKernel(_GradKernel):
    """leaky_relu_backward: dx = x > 0 ? g : g * slope (NaN x: g * slope)."""
    _backward_name = "LeakyReluBackwardBackward0"

    @staticmethod
    def kernel(g, x, slope):
        return np.where(x > 0, g, g * _s(g, slope))


class Elu(BuiltinFunction):
    """out = x > 0 ? scale * x : scale * alpha * (exp(x * input_scale) - 1)."""
    _backward_name = "EluBackward0"

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale):
        ctx.save_for_backward(x)
        ctx.args = (alpha, scale, input_scale)
        neg = _libm.expm1(x * _s(x, input_scale)) * _s(x, alpha * scale)
        # NOTE: PyTorch's forward gives a zero input (either sign) its scale * x: with a
        # negative alpha the other branch would flip the zero's sign
        return np.where(x >= 0, x * _s(x, scale), neg)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return EluBackwardKernel.apply(g, x, *ctx.args, False), None, None, None


class Celu(Elu):
    """Elu with input_scale = 1 / alpha.  NOTE: PyTorch's backward uses 1 / float32(alpha)."""
    _backward_name = "CeluBackward0"

    @staticmethod
    def backward(ctx, g):
        alpha, scale, _ = ctx.args
        ctx.args = (alpha, scale, 1.0 / float(np.float32(alpha)))
        return Elu.backward(ctx, g)


def _elu_coefs(x, alpha, scale, input_scale):
    """PyTorch's (negcoef, poscoef, negiptcoef) in x's math type: alpha * scale is rounded
    as a product of two float32 numbers for float32 input."""
    a, s, i = _s(x, alpha), _s(x, scale), _s(x, input_scale)
    return a * s, s, i


class EluBackwardKernel(_GradKernel):
    """elu_backward: dx = x > 0 ? g * scale : g * input_scale * alpha * scale * exp(x *
    input_scale); from the result y: g * input_scale * (y + alpha * scale) for y <= 0."""
    _backward_name = "EluBackwardBackward0"

    @staticmethod
    def kernel(g, x, alpha, scale, input_scale, is_result):
        neg, pos, ipt = _elu_coefs(x, alpha, scale, input_scale)
        if is_result:
            return np.where(x > 0, g * pos, g * ipt * (x + neg))
        return np.where(x > 0, g * pos, g * ipt * neg * np.exp(x * ipt))

    @staticmethod
    def x_grad(gg, g, x, alpha, scale, input_scale, is_result):
        # NOTE: PyTorch's elu_double_backward multiplies by the mask (x < 0), so it gives
        # -0 or NaN where that is 0; followed here bit for bit
        v = gg * g * input_scale
        if not is_result:
            v = EluBackwardKernel.apply(v, x, alpha, scale, input_scale, False)
        return v * _mask(x < 0, gg)


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
            return half * x * (1 + _libm.tanh(inner))
        if x.dtype == np.float32:
            return _gelu_erf32(x)
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


def _gelu_erf32(x):
    """PyTorch's float32 gelu (erf): x * 0.5 * (1 + erf(x / sqrt 2)). Its vector code uses
    ATen's own erf approximation (``_vector_math.erf``); the scalar tails the C library's.
    A C-contiguous input goes to oneDNN's gelu, which has no scalar tail and whose erf is
    close to ATen's (not the same: ~20 % of its last bits differ)."""
    def vector(a):
        return (a * _F32_HALF) * (_vector_math.erf(a * _F32_SQRT1_2) + np.float32(1))

    def scalar(a):
        return (a * _F32_HALF) * (erf(a * _F32_SQRT1_2).astype(np.float32) + np.float32(1))
    if x.flags.c_contiguous and x.size <= _vector_math.REPLAY_LIMIT:
        return vector(x)
    return _vector_math.by_vector_runs(x, vector, scalar)


_F32_HALF, _F32_SQRT1_2 = np.float32(0.5), np.float32(_SQRT1_2)


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


def _silu(x):
    """x / (1 + exp(-x)), PyTorch's scalar formula (the C library's exp)."""
    return x / (1 + _libm.exp(-x))


def _silu_vector(x):
    """PyTorch's vectorised float32 silu: the same formula with SLEEF's exp."""
    e = _vector_math.expf(np.negative(x))
    e += np.float32(1)
    return np.divide(x, e, out=e)


class Silu(BuiltinFunction):
    """out = x * sigmoid(x);  dx = g * s * (1 + x * (1 - s))."""
    _backward_name = "SiluBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        if x.dtype == np.float32:
            return _vector_math.by_vector_runs(x, _silu_vector, _silu)
        return _silu(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        s = x.sigmoid()
        return g * s * (1 + x * (1 - s))


def _softplus_np(x, beta, threshold):
    bx = x * _s(x, beta)
    return np.where(bx > threshold, x, _libm.log1p(_libm.exp(bx)) / _s(x, beta))


class Mish(BuiltinFunction):
    """out = x * tanh(softplus(x));  dx = g * (t + x * sigmoid(x) * (1 - t^2))."""
    _backward_name = "MishBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * _libm.tanh(_libm.log1p(_libm.exp(x)))

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
        return SoftplusBackwardKernel.apply(g, x, ctx.beta, ctx.threshold), None, None


class SoftplusBackwardKernel(_GradKernel):
    """softplus_backward: dx = beta x > threshold ? g : g * z / (z + 1), z = exp(beta x)."""
    _backward_name = "SoftplusBackwardBackward0"

    @staticmethod
    def kernel(g, x, beta, threshold):
        bx = x * _s(x, beta)
        z = np.exp(bx)
        return np.where(bx > _s(x, threshold), g, g * z / (z + _s(x, 1)))

    @staticmethod
    def x_grad(gg, g, x, beta, threshold):
        # NOTE: PyTorch's softplus_double_backward masks by multiplying (beta x < threshold)
        from .elementwise import sigmoid_backward
        bx = x * beta
        return sigmoid_backward(gg * g, bx.sigmoid()) * _mask(bx < threshold, gg) * beta


class Hardtanh(BuiltinFunction):
    """out = clamp(x, lo, hi);  dx = g where lo < x < hi (strictly), else 0."""
    _backward_name = "HardtanhBackward0"

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        # NOTE: the bounds first: NumPy returns the second argument on ties, PyTorch keeps x
        # (hardtanh(-0., 0, 6) is -0.)
        return np.minimum(_s(x, hi), np.maximum(_s(x, lo), x))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return HardtanhBackwardKernel.apply(g, x, ctx.lo, ctx.hi), None, None


class HardtanhBackwardKernel(_GradKernel):
    """hardtanh_backward: dx = lo < x < hi ? g : +0 (NaN x: +0)."""
    _backward_name = "HardtanhBackwardBackward0"

    @staticmethod
    def kernel(g, x, lo, hi):
        return zero_where(~((x > _s(x, lo)) & (x < _s(x, hi))), g)


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
        return HardsigmoidBackwardKernel.apply(g, x)


class HardsigmoidBackwardKernel(_GradKernel):
    """hardsigmoid_backward: dx = -3 < x < 3 ? g / 6 : +0 (PyTorch has no double backward
    for it; numtorch's is d/dg the same kernel, d/dx zero)."""
    _backward_name = "HardsigmoidBackwardBackward0"

    @staticmethod
    def kernel(g, x):
        # NOTE: PyTorch multiplies by the float32 constant 1.0f / 6.0f, in any dtype
        return np.where((x > -3) & (x < 3), g * _s(g, _ONE_SIXTH_F32), _s(g, 0))


class Hardswish(BuiltinFunction):
    """out = x * clamp(x + 3, 0, 6) / 6;  dx = x <= -3 ? 0 : x < 3 ? g * (x/3 + 1/2) : g."""
    _backward_name = "HardswishBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * np.minimum(np.maximum(x + _s(x, 3), _s(x, 0)), _s(x, 6)) / _s(x, 6)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return HardswishBackwardKernel.apply(g, x)


class HardswishBackwardKernel(_GradKernel):
    """hardswish_backward: dx = x <= -3 ? +0 : x < 3 ? g * (x / 3 + 1/2) : g."""
    _backward_name = "HardswishBackwardBackward0"

    @staticmethod
    def kernel(g, x):
        mid = g * (x / _s(x, 3) + _s(x, 0.5))
        return np.where(x <= -3, _s(g, 0), np.where(x >= 3, g, mid))

    @staticmethod
    def x_grad(gg, g, x):
        return _pick((x > -3) & (x < 3), gg * g / 3.0, _zeros(x))


class LogSigmoid(BuiltinFunction):
    """out = -softplus(-x) = min(x, 0) - log1p(exp(-|x|));  dx = g * sigmoid(-x)."""
    _backward_name = "LogSigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        buffer = np.asarray(_libm.exp(-np.abs(x)))
        ctx.save_for_backward(x, buffer)  # (PyTorch keeps exp(-|x|): grad_fn._saved_buffer)
        return np.minimum(x, _s(x, 0)) - _libm.log1p(buffer)

    @staticmethod
    def backward(ctx, g):
        x = ctx.saved_tensors[0]
        return LogSigmoidBackwardKernel.apply(g, x)


class LogSigmoidBackwardKernel(_GradKernel):
    """log_sigmoid_backward: dx = g * (x < 0 ? 1 - q : q), q = z / (1 + z), z = exp(-|x|)
    (not g * sigmoid(-x): that flushes to 0 for x = 100 in float32, and inf * 0 = NaN)."""
    _backward_name = "LogSigmoidBackwardBackward0"

    @staticmethod
    def kernel(g, x):
        z = np.exp(-np.abs(x))
        q = z / (z + _s(x, 1))
        return np.where(x < 0, _s(x, 1) - q, q) * g

    @staticmethod
    def x_grad(gg, g, x):
        z = x.sigmoid()  # PyTorch's log_sigmoid_double_backward(gg * g, x)
        return gg * g * (z - 1) * z


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
        return ThresholdBackwardKernel.apply(g, x, ctx.threshold), None, None


class ThresholdBackwardKernel(_GradKernel):
    """threshold_backward: dx = x <= threshold ? +0 : g (so a NaN x passes g)."""
    _backward_name = "ThresholdBackwardBackward0"

    @staticmethod
    def kernel(g, x, threshold):
        return zero_where(x <= np.asarray(threshold, x.dtype), g)


class Hardshrink(BuiltinFunction):
    """out = x outside [-lambd, lambd], else 0;  dx = g outside it."""
    _backward_name = "HardshrinkBackward0"

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        lam = _s(x, lambd)  # NaN is outside the band: it passes through, as in PyTorch
        return np.where((x >= -lam) & (x <= lam), _s(x, 0), x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return HardshrinkBackwardKernel.apply(g, x, ctx.lambd), None


class HardshrinkBackwardKernel(_GradKernel):
    """hardshrink_backward: dx = x < -lambd or x > lambd ? g : +0 (NaN x: +0)."""
    _backward_name = "HardshrinkBackwardBackward0"

    @staticmethod
    def kernel(g, x, lambd):
        lam = _s(x, lambd)
        return zero_where(~((x < -lam) | (x > lam)), g)


class SoftshrinkBackwardKernel(HardshrinkBackwardKernel):
    _backward_name = "SoftshrinkBackwardBackward0"


class Softshrink(BuiltinFunction):
    """out = x - lambd (x > lambd), x + lambd (x < -lambd), else 0;  dx = g outside."""
    _backward_name = "SoftshrinkBackward0"

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        lam = _s(x, lambd)
        # NOTE: PyTorch's kernel gives x * 0 inside the band: -0. for negative x, NaN for NaN
        return np.where(x > lam, x - lam, np.where(x < -lam, x + lam, x * _s(x, 0)))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return SoftshrinkBackwardKernel.apply(g, x, ctx.lambd), None


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
        return PreluBackwardKernel.apply(g, x, w)


class PreluBackwardKernel(BuiltinFunction):
    """_prelu_kernel_backward: dx = x > 0 ? g : w * g,  dw = x > 0 ? +0 : x * g (in x's
    shape; the engine sums it to w's). Its own derivatives are PyTorch's formulas, which
    select on x >= 0 (so at x = 0 they disagree with the first derivative, as PyTorch's do)."""
    _backward_name = "PreluKernelBackwardBackward0"

    @staticmethod
    def forward(ctx, g, x, w):
        ctx.save_for_backward(g, x, w)
        ctx.set_materialize_grads(False)  # PyTorch's formulas test which grads are defined
        pos = x > 0
        return np.where(pos, g, w * g), np.where(pos, _s(g, 0), x * g)

    @staticmethod
    def backward(ctx, ggx, ggw):
        g, x, w = ctx.saved_tensors
        if ggx is None and ggw is None:
            return None, None, None
        zero = _make(np.zeros((), g._data.dtype), None, False)
        nonneg = x >= 0
        if ggx is None:
            dg = _pick(nonneg, zero, ggw * x)
        else:
            dg = _pick(nonneg, ggx, ggx * w if ggw is None else ggx * w + ggw * x)
        dx = _zeros(x) if ggw is None else _pick(nonneg, zero, g * ggw)
        dw = _zeros(x) if ggx is None else _pick(nonneg, zero, g * ggx)
        return dg, dx, dw


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
    """out = x >= 0 ? x : noise * x, noise drawn per element;  dx = g * (noise or 1).

    ``noise`` is an array, not an input: PyTorch's node has the one edge to ``x`` (and saves
    ``self``, ``noise``, ``lower``, ``upper``, ``training``)."""
    _backward_name = "RreluWithNoiseBackward0"

    @staticmethod
    def forward(ctx, x, noise, lower, upper):
        ctx.save_for_backward(x)
        ctx.noise, ctx.lower, ctx.upper = noise, lower, upper
        return x * noise

    @staticmethod
    def backward(ctx, g):
        return g * _make(ctx.noise, None, False), None, None, None


class RreluEval(LeakyRelu):
    """rrelu outside training: leaky_relu with slope (lower + upper) / 2, on PyTorch's node
    (whose ``noise`` is left unfilled)."""
    _backward_name = "RreluWithNoiseBackward0"

    @staticmethod
    def forward(ctx, x, lower, upper):
        ctx.lower, ctx.upper = lower, upper
        return LeakyRelu.forward(ctx, x, (lower + upper) / 2)

    @staticmethod
    def backward(ctx, g):
        return LeakyRelu.backward(ctx, g) + (None,)


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
    """leaky_relu_: y = x > 0 ? x : slope * x;  dx = y > 0 ? g : g * slope."""
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
        return LeakyReluBackwardKernel.apply(g, y, ctx.slope), None


class EluResult(BuiltinFunction):
    """elu_: y as Elu;  dx = y > 0 ? g * scale : g * input_scale * (y + alpha * scale)."""
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
        return EluBackwardKernel.apply(g, y, alpha, scale, input_scale, True), None, None, \
            None


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


# ---- float16: PyTorch's kernels compute half in float32 ("opmath") and round once ---------
_F16 = np.dtype(np.float16)


def _half_kernel_in_float32(cls):
    """As ``_half_in_float32`` for a ``*BackwardKernel``'s array ``kernel(g, x, *args)``."""
    kernel = cls.__dict__["kernel"].__func__

    def half_kernel(g, x, *args):
        if x.dtype is not _F16:
            return kernel(g, x, *args)
        r = kernel(g.astype(np.float32), x.astype(np.float32), *args)
        return np.asarray(r).astype(_F16)
    cls.kernel = staticmethod(half_kernel)


for _cls in (LeakyRelu, Elu, Gelu, GeluErf, Silu, Mish, Softplus, Hardsigmoid, Hardswish,
             LogSigmoid, Softshrink, Glu, LeakyReluResult):
    half_in_float32(_cls)
for _cls in (LeakyReluBackwardKernel, EluBackwardKernel, SoftplusBackwardKernel,
             HardsigmoidBackwardKernel, HardswishBackwardKernel, LogSigmoidBackwardKernel):
    _half_kernel_in_float32(_cls)
del _cls


# The CPU kernel PyTorch's error names when a float-only activation gets an integer or bool
# tensor (these have no integer kernel: PyTorch raises rather than converting)
_FLOAT_KERNELS = {"elu": "elu_cpu", "selu": "elu_cpu", "celu": "elu_cpu",
                  "gelu": "GeluKernelImpl", "silu": "silu_cpu", "mish": "mish_cpu",
                  "softplus": "softplus_cpu", "log_sigmoid": "log_sigmoid_cpu",
                  "hardsigmoid": "hardsigmoid_cpu", "hardswish": "hardswish_cpu",
                  "leaky_relu": "leaky_relu_cpu", "rrelu": "leaky_relu_cpu",
                  "softshrink": "softshrink_check"}


def float_input(x, op=None):
    """``x`` for a float-only activation ``op``: a non-tensor gets PyTorch's TypeError naming
    ``op``, an integer or bool tensor its NotImplementedError naming the kernel (an op
    without a known kernel name converts it to the default float dtype)."""
    try:
        dt = float_np(x._data.dtype)
    except AttributeError:
        if op is None:
            raise
        from ._util import not_a_tensor
        raise not_a_tensor(op, x) from None
    if dt == x._data.dtype:
        return x
    if op in _FLOAT_KERNELS:
        from .._dtype import SCALAR_NAMES
        raise NotImplementedError(f'"{_FLOAT_KERNELS[op]}" not implemented for '
                                  f"'{SCALAR_NAMES[x.dtype]}'")
    return x.to(_dtype_of(dt))


def _dtype_of(npdt):
    from .. import _dtype as D
    return D._FROM_NP[npdt]
