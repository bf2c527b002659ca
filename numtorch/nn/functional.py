"""``torch.nn.functional``: activations, losses, convolution, pooling, normalisation, ...

Ops PyTorch implements as fused kernels are built-in Functions (``numtorch.ops.activation``,
``loss``, ``conv``, ``pooling``, ``normalization``) with PyTorch's ``grad_fn`` names; ops
PyTorch composes from other ops are composed the same way here. Random ops (dropout) draw
from PyTorch's random stream in PyTorch's order.

>>> import numtorch as torch
>>> import numtorch.nn.functional as F
>>> F.relu(torch.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""
import math
import warnings

import numpy as np

from .. import _dtype as D
from .._device import channels_last as _channels_last
from .._tensor import Tensor
from ..autograd._interpose import STATE as _FW
from ..autograd.grad_mode import is_grad_enabled as _grad_enabled, no_grad
from ..ops import activation as A
from ..ops._base import BuiltinFunction
from ..ops import elementwise as E
from ..ops import loss as LS
from ..ops import normalization as N
from ..ops import pooling as P
from ..ops import _resample as RS
from ..ops import reduction as R
from ..ops import shape as S
from ..ops.conv import Convolution, ConvGeom, ConvTranspose
from ..ops._arg_errors import parser_int
from ..ops.inplace import inplace as _inplace
from ..ops.linalg import linear, einsum
from ..ops._util import invalid_arguments, not_a_tensor, number_argument, wrap_dim
from ..autograd._saved_attrs import keep_given, negative
from .modules.utils import _ntuple, _pair, _single, _triple

_make = Tensor._make


def _tensor_args(op, *args):
    """PyTorch's TypeError for the first non-tensor among ``args`` ((name, value, position)
    triples, in the order PyTorch's parser reads them)."""
    for name, value, position in args:
        if not isinstance(value, Tensor):
            raise not_a_tensor(op, value, name, position)


def _const(a):
    return _make(np.asarray(a), None, False)


class _Relabel(BuiltinFunction):
    """out = x;  dx = g. Gives a composite's result the node PyTorch's fused kernel has."""
    _backward_name = "RelabelBackward0"

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g


def _relabel(out, backward_name):
    """``out`` (a fresh composite result) with grad_fn named ``backward_name``."""
    if out.grad_fn is None:
        return out
    return P.named(_Relabel, backward_name).apply(out)


# ---- activations -------------------------------------------------------------------------
# PyTorch's kernel names (in its "not implemented for 'Long'" errors) where not "<name>_cpu"
_INPLACE_KERNELS = {"selu": "elu_cpu", "celu": "elu_cpu", "rrelu": "leaky_relu_cpu"}


def _act(x, op, *args, inplace=False, keep_int=False, name=None):
    """Apply activation ``op`` (a BuiltinFunction), in place when asked; ``name`` is the
    public op's, for PyTorch's TypeError on a non-tensor.

    Integer inputs become float unless ``keep_int`` (clamping ops keep the dtype, as PyTorch).
    """
    if inplace:  # some in-place forms save their output instead of the input (PyTorch's)
        if not isinstance(x, Tensor):
            raise not_a_tensor(f"{name}_", x)
        if not keep_int and x.dtype.category < D._FLOAT:  # no integer result to write
            _floating_only(x, _INPLACE_KERNELS.get(name, f"{name}_cpu"))
        op = A.INPLACE_VARIANTS.get(op, op)
        return _inplace(x, lambda t: op.apply(t, *args))
    if keep_int:
        if not isinstance(x, Tensor):
            raise not_a_tensor(name, x)
        return op.apply(x, *args)
    return op.apply(A.float_input(x, name), *args)


def _int_scalars(input, *values):
    """``values`` as scalars of an integer ``input``'s dtype (truncated and range-checked
    as PyTorch converts them); unchanged for other dtypes."""
    if not isinstance(input, Tensor) or input.dtype.category != D._INT:
        return values
    from .._creation import scalar_as
    return tuple(scalar_as(v, input.dtype) for v in values)


def relu(input, inplace=False):
    """max(x, 0).

    >>> relu(torch.tensor([-1.0, 1.0]))
    tensor([0., 1.])
    """
    return input.relu_() if inplace else E.relu(input)


def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    """min(max(x, 0), 6) (grad_fn ``HardtanhBackward0``, as PyTorch)."""
    if not isinstance(input, Tensor):
        raise not_a_tensor("relu6", input)
    return hardtanh(input, 0, 6, inplace)  # (ints: PyTorch's node shows 0 and 6)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp to [min_val, max_val].

    >>> hardtanh(torch.tensor([-2.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if isinstance(input, Tensor) and input.dtype is D.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if isinstance(input, Tensor) and input.dtype is D.uint8 and min(
            int(min_val), int(max_val)) < 0:
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    min_val, max_val = _int_scalars(input, min_val, max_val)
    return _act(input, A.Hardtanh, min_val, max_val, inplace=inplace, keep_int=True,
                name="hardtanh")


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x.

    >>> leaky_relu(torch.tensor([-1.0, 1.0]), 0.1)
    tensor([-0.1000,  1.0000])
    """
    return _act(input, A.LeakyRelu, negative_slope, inplace=inplace, name="leaky_relu")


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else alpha * (exp(x) - 1).

    >>> elu(torch.tensor([-1.0, 1.0]))
    tensor([-0.6321,  1.0000])
    """
    return _act(input, A.Elu, alpha, 1.0, 1.0, inplace=inplace, name="elu")


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the self-normalising constants.

    >>> selu(torch.tensor([1.0]))
    tensor([1.0507])
    """
    return _act(input, A.Elu, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace=inplace, name="selu")


def selu_(input):
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    >>> celu(torch.tensor([-1.0]), 2.0)
    tensor([-0.7869])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _act(input, A.Celu, alpha, 1.0, 1.0 / alpha, inplace=inplace, name="celu")


def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


def gelu(input, approximate="none"):
    """x * Phi(x), exactly (erf) or with the tanh approximation.

    >>> gelu(torch.tensor([1.0])), gelu(torch.tensor([1.0]), approximate='tanh')
    (tensor([0.8413]), tensor([0.8412]))
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return A.Gelu.apply(A.float_input(input, "gelu"), approximate)


def silu(input, inplace=False):
    """x * sigmoid(x).

    >>> silu(torch.tensor([1.0]))
    tensor([0.7311])
    """
    return _act(input, A.Silu, inplace=inplace, name="silu")


def mish(input, inplace=False):
    """x * tanh(softplus(x)).

    >>> mish(torch.tensor([1.0]))
    tensor([0.8651])
    """
    return _act(input, A.Mish, inplace=inplace, name="mish")


def softplus(input, beta=1, threshold=20):  # (ints, as PyTorch's node shows them)
    """log(1 + exp(beta * x)) / beta, linear above ``threshold``.

    >>> softplus(torch.tensor([0.0]))
    tensor([0.6931])
    """
    return A.Softplus.apply(A.float_input(input, "softplus"), beta, threshold)


def softsign(input):
    """x / (1 + |x|).

    >>> softsign(torch.tensor([1.0]))
    tensor([0.5000])
    """
    return input / (input.abs() + 1)


def hardsigmoid(input, inplace=False):
    """clamp(x / 6 + 1 / 2, 0, 1).

    >>> hardsigmoid(torch.tensor([0.0, 4.0]))
    tensor([0.5000, 1.0000])
    """
    return _act(input, A.Hardsigmoid, inplace=inplace, name="hardsigmoid")


def hardswish(input, inplace=False):
    """x * hardsigmoid(x).

    >>> hardswish(torch.tensor([1.0]))
    tensor([0.6667])
    """
    return _act(input, A.Hardswish, inplace=inplace, name="hardswish")


def sigmoid(input):
    """1 / (1 + exp(-x)).

    >>> sigmoid(torch.tensor([0.0]))
    tensor([0.5000])
    """
    return input.sigmoid()  # a method call, as PyTorch's (its AttributeError for a list)


def tanh(input):
    """Hyperbolic tangent.

    >>> tanh(torch.tensor([0.0]))
    tensor([0.])
    """
    return input.tanh()  # a method call, as PyTorch's (its AttributeError for a list)


def logsigmoid(input):
    """log(sigmoid(x)), computed stably.

    >>> logsigmoid(torch.tensor([0.0]))
    tensor([-0.6931])
    """
    return A.LogSigmoid.apply(A.float_input(input, "log_sigmoid"))


def tanhshrink(input):
    """x - tanh(x).

    >>> tanhshrink(torch.tensor([1.0]))
    tensor([0.2384])
    """
    return input - input.tanh()


def softshrink(input, lambd=0.5):
    """x - lambd / x + lambd outside [-lambd, lambd], else 0.

    >>> softshrink(torch.tensor([-1.0, 0.2, 1.0]))
    tensor([-0.5000,  0.0000,  0.5000])
    """
    return A.Softshrink.apply(A.float_input(input, "softshrink"), lambd)


def hardshrink(input, lambd=0.5):
    """x outside [-lambd, lambd], else 0.

    >>> hardshrink(torch.tensor([-1.0, 0.2]))
    tensor([-1.,  0.])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("hardshrink", input)
    lambd = number_argument(lambd, "hardshrink", "lambd", 2)
    _floating_only(input, "hardshrink_cpu")
    return A.Hardshrink.apply(input, lambd)


def _float_kernel(kernel, tensor):
    """PyTorch's NotImplementedError where a loss kernel has no version for ``tensor``'s
    integer or bool dtype (call it only once the dtype is known not to be floating)."""
    raise NotImplementedError(f'"{kernel}" not implemented for '
                              f"'{D.SCALAR_NAMES[tensor.dtype]}'")


def _floating_only(input, kernel):
    """PyTorch's error for a kernel that has no integer, bool or complex version."""
    if input.dtype.category != D._FLOAT:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{D.SCALAR_NAMES[input.dtype]}'")


def _threshold(input, threshold, value, inplace=False):
    """x if x > threshold else value.

    >>> _threshold(torch.tensor([0.5, 2.0]), 1.0, -1.0)
    tensor([-1.,  2.])
    """
    if isinstance(input, Tensor) and input.dtype is D.bool_:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    threshold, value = _int_scalars(input, threshold, value)
    return _act(input, A.Threshold, threshold, value, inplace=inplace, keep_int=True,
                name="threshold")


threshold = _threshold  # (PyTorch's F.threshold is named _threshold, as its TypeErrors say)


def threshold_(input, threshold_value, value):
    return threshold(input, threshold_value, value, True)


def prelu(input, weight):
    """x if x > 0 else weight * x, weight per channel (dim 1) or shared.

    >>> prelu(torch.tensor([[-1.0, 1.0]]), torch.tensor([0.25]))
    tensor([[-0.2500,  1.0000]])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("prelu", input)
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu(): argument 'weight' (position 2) must be Tensor, not "
                        f"{type(weight).__name__}")
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{D.SCALAR_NAMES[input.dtype]} and {D.SCALAR_NAMES[weight.dtype]}")
    _floating_only(input, "prelu_cpu")
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim >= 2 else 1
        if weight.numel() != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if weight.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    if weight.ndim != input.ndim:
        # as PyTorch: the weight viewed with the input's ndim (channels at dim 1), so the
        # node saves it that way ((1, 1) for one shared slope on a 2-D input)
        shape = [1] * input.ndim
        if input.ndim > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return A.Prelu.apply(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomised leaky ReLU: slope ~ U(lower, upper) per negative element when training.

    >>> rrelu(torch.tensor([-1.0, 1.0]))
    tensor([-0.2292,  1.0000])
    """
    return _rrelu(input, lower, upper, training, inplace)


def _is_batched(data):
    """Whether ``data`` is a batched tensor's inside vmap."""
    from ..func._batching import BatchedData
    return isinstance(data, BatchedData)


def _rrelu(input, lower, upper, training, inplace, generator=None):
    """``rrelu``, drawing from ``generator`` (``torch.rrelu`` takes one)."""
    if not isinstance(input, Tensor):
        raise not_a_tensor("rrelu", input)
    if type(input._data) is not np.ndarray and _is_batched(input._data):
        # PyTorch has no batching rule (nor fallback) for it, training or not
        raise RuntimeError(f"vmap: we do not yet support aten::rrelu{'_' if inplace else ''}. "
                           "Please file an issue")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if input.dtype.category < D._FLOAT and (inplace or training):
        _floating_only(input, "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu")
    if not training:
        if inplace:
            op = P.named(A.LeakyReluResult, "RreluWithNoiseBackward1")
            return _inplace(input, lambda t: op.apply(t, (lower + upper) / 2))
        return _act(input, A.RreluEval, lower, upper, name="rrelu")
    noise = _rrelu_noise(input._data, lower, upper, generator)
    if inplace:
        return _inplace(input, lambda t: A.RreluWithNoiseResult.apply(t, _const(noise)))
    return A.RreluWithNoise.apply(input, noise, lower, upper)


def _rrelu_noise(x, lower, upper, generator):
    """rrelu's slopes: one double uniform per element ``x <= 0``, in memory order (a NaN
    element is not drawn for: its slope stays 1), 1 elsewhere."""
    from .. import _random as R_
    noise = np.ones(x.shape, x.dtype)
    neg = x <= 0
    if x.dtype != np.float64:  # the bounds as PyTorch's math type (float) holds them
        lower, upper = float(np.float32(lower)), float(np.float32(upper))
    # NOTE: at::uniform_real_distribution<double> computes u * (to - from) + from unfused
    # (uniform_ contracts it into one fma), so R_.uniform would differ in the last bit
    u = R_._gen(generator)._uniform64(int(neg.sum()))
    noise[neg] = (u * (upper - lower) + lower).astype(x.dtype)
    return noise


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place ``rrelu``."""
    return rrelu(input, lower, upper, training, True)


def glu(input, dim=-1):
    """a * sigmoid(b) where a, b are the halves of ``input`` along ``dim``.

    >>> glu(torch.tensor([1.0, 0.0]))
    tensor([0.5000])
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = input._wrap_dim(dim)
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")
    if input._data.dtype.kind not in "fc":
        _floating_only(input, "glu_cpu")
    out = A.Glu.apply(input, d)
    return keep_given(out, dim=dim) if negative(dim) else out


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim``.

    >>> softmax(torch.tensor([0.0, 0.0]), 0)
    tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return R.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along ``dim``, computed stably.

    >>> log_softmax(torch.tensor([0.0, 0.0]), 0)
    tensor([-0.6931, -0.6931])
    """
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return R.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along ``dim``.

    >>> softmin(torch.tensor([0.0, 1.0]), 0)
    tensor([0.7311, 0.2689])
    """
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return R.softmax(-input, dim, dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Softmax of (logits + Gumbel noise) / tau; one-hot (straight-through) when ``hard``.

    >>> gumbel_softmax(torch.zeros(3), hard=True).sum()
    tensor(1.)
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    from .._creation import empty_like, zeros_like
    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ---- linear ------------------------------------------------------------------------------
def bilinear(input1, input2, weight, bias=None):
    """out[..., k] = x1 W[k] x2 + b[k].

    >>> bilinear(torch.ones(1, 2), torch.ones(1, 3), torch.ones(4, 2, 3)).shape
    torch.Size([1, 4])
    """
    _tensor_args("bilinear", ("input1", input1, 1), ("input2", input2, 2))
    _check_bilinear(input1, input2, weight, bias)
    named = (("input1", input1), ("input2", input2), ("weight", weight)) + \
        ((("bias", bias),) if bias is not None else ())
    if len({t.dtype for _, t in named}) > 1:
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{n}: {D.SCALAR_NAMES[t.dtype].lower()}" for n, t in named))
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    out = einsum("bi,kij,bj->bk", x1, weight, x2).reshape(lead + (weight.shape[0],))
    # NOTE: the bias goes on last, so the output's grad_fn is AddBackward0 as PyTorch's
    return out if bias is None else out + bias


def _check_bilinear(input1, input2, weight, bias):
    """PyTorch's bilinear checks, in its order: dims, batch sizes, then sizes per weight."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and "
                           f"{input2.dim()}")
    for i, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {a} and {b}")
    for k, x in ((1, input1), (2, input2)):
        if x.shape[-1] != weight.shape[k]:
            raise RuntimeError(f"bilinear(): input{k} size does not match weight size: got "
                               f"{x.shape[-1]} but expected {weight.shape[k]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")


# ---- dropout -----------------------------------------------------------------------------
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise(input, p, feature):
    """PyTorch's dropout mask: bernoulli_(1 - p) on an input-like (or (N, C, 1...)) tensor.

    NOTE: PyTorch's ``empty_like`` keeps the input's memory layout and the kernel fills
    memory in order, so for a transposed input the draws land in transposed order too.
    """
    from .. import _random as R
    x = input._data
    if feature:
        if x.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(x.shape[:2]) + (1,) * (x.ndim - 2)
        return _make(R.bernoulli_scalar(shape, 1 - p, x.dtype), None, False)
    order = np.argsort([-st for st in x.strides], kind="stable") if x.ndim > 1 else \
        list(range(x.ndim))  # a 0-dim input draws one value
    drawn = R.bernoulli_scalar(tuple(x.shape[i] for i in order), 1 - p, x.dtype)
    return _make(np.ascontiguousarray(drawn.transpose(np.argsort(order))) if x.ndim > 1
                 else drawn, None, False)


def _dropout_impl(input, p, training, inplace, feature=False, alpha=False):
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = _make(np.zeros((), input._data.dtype), None, False)
        return input.mul_(zero) if inplace else input * zero
    noise = _noise(input, p, feature)
    b = None
    if alpha:
        a_ = 1.7580993408473766
        a = 1.0 / math.sqrt((a_ * a_ * p + 1) * (1 - p))
        if noise.dtype.category != D._FLOAT:
            # NOTE: PyTorch scales the noise in place; a bool noise became long at ``- 1``
            kind = "Long" if noise.dtype.category == D._BOOL else D.SCALAR_NAMES[noise.dtype]
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{kind}")
        b = (noise - 1) * (a_ * a) + a_ * a * p
        noise = noise * a
    else:
        noise.div_(1 - p)
    out = input.mul_(noise) if inplace else input * noise
    if b is not None:
        out = out.add_(b) if inplace else out + b
    return out


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p).

    >>> _ = torch.manual_seed(0)
    >>> dropout(torch.ones(4), 0.5)
    tensor([0., 0., 2., 0.])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("dropout", input)
    return _dropout_impl(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's self-normalising mean and variance.

    >>> alpha_dropout(torch.ones(2), 0.5)
    tensor([1., 1.])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("alpha_dropout", input)
    return _dropout_impl(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels.

    >>> feature_alpha_dropout(torch.ones(1, 2), 0.5)
    tensor([[1., 1.]])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("feature_alpha_dropout", input)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=True)


def _feature_dropout(input, p, training, inplace, name, dims):
    _check_p(p)
    ndim = input.dim()
    if ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}: Expected {dims + 1}D or {dims + 2}D input, but received a "
                           f"{ndim}D input. Note that {name} exists to provide channel-wise "
                           f"dropout on inputs with {dims} spatial dimension"
                           f"{'s' if dims > 1 else ''}, a channel dimension, and an optional "
                           f"batch dimension (i.e. {dims + 1}D or {dims + 2}D inputs).")
    batched = ndim == dims + 2
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _dropout_impl(input, p, training, inplace, feature=True)
    if not batched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) input.

    >>> dropout1d(torch.ones(2, 3), training=False).shape
    torch.Size([2, 3])
    """
    return _feature_dropout(input, p, training, inplace, "dropout1d", 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) input.

    >>> dropout2d(torch.ones(1, 2, 3, 3), training=False).shape
    torch.Size([1, 2, 3, 3])
    """
    _check_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated "
                      "and will result in an error in a future release. To retain the behavior "
                      "and silence this warning, please use dropout instead. Note that "
                      "dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension "
                      "(i.e. 3D or 4D inputs).", stacklevel=2)
    if ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change "
                      "in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.",
                      stacklevel=2)
    return _dropout_impl(input, p, training, inplace, feature=True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input.

    >>> dropout3d(torch.ones(1, 2, 1, 1, 1), training=False).shape
    torch.Size([1, 2, 1, 1, 1])
    """
    _check_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {ndim}-D input to dropout3d, which is deprecated "
                      "and will result in an error in a future release. To retain the behavior "
                      "and silence this warning, please use dropout instead. Note that "
                      "dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension "
                      "(i.e. 4D or 5D inputs).", stacklevel=2)
    batched = ndim == 5
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _dropout_impl(input, p, training, inplace, feature=True)
    if not batched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out


# ---- losses ------------------------------------------------------------------------------
def _legacy_reduction(size_average, reduce, emit_warning=True):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else ("sum" if reduce else "none")
    if emit_warning:
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{ret}' instead.", stacklevel=3)
    return ret


def _reduction(reduction, size_average=None, reduce=None):
    """The reduction string, from the legacy flags when given; checked as PyTorch."""
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use "
                      "reduction='mean' instead.", stacklevel=3)
        return "mean"
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _warn_size(input, target):
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input "
                      f"size ({input.size()}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", stacklevel=3)


def _weighted(errors, weight, input, reduction, plain_mean=False):
    """``errors * weight`` reduced as PyTorch's weighted losses: 'mean' is the weighted
    average (sum / sum of weights), or with ``plain_mean`` (huber_loss's) the mean."""
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    errors = errors * weight
    if reduction == "none":
        return errors
    if reduction == "sum":
        return errors.sum()
    if reduction == "mean":
        return errors.mean() if plain_mean else errors.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def _pointwise(op, input, target, reduction, *args, kernel=None):
    """``op`` on the promoted pair; ``kernel`` names PyTorch's float-only kernel for its
    error on an integer or bool result type."""
    x, t = _promoted(input, target)
    if kernel is not None and x._data.dtype.kind not in "fc":
        _float_kernel(kernel, x)
    return op.apply(x, t, reduction, *args)


def _promoted(input, target):
    """``input`` and ``target`` broadcast and cast to PyTorch's result type of the two (a
    float32 input with an int64 target computes in float32, not NumPy's float64; the types
    of the broadcast pair, as PyTorch's Python wrappers broadcast first)."""
    x, t = S.broadcast_tensors(input, target)
    if x.dtype is not t.dtype:
        dt = D.result_type(x, t)
        x, t = x.to(dt), t.to(dt)
    return x, t


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error.

    >>> mse_loss(torch.tensor([1.0, 3.0]), torch.zeros(2))
    tensor(5.)
    """
    _warn_size(input, target)
    if weight is not None:
        return _weighted((input - target).pow(2), weight, input,
                         _legacy_or(reduction, size_average, reduce))
    return _pointwise(LS.MseLoss, input, target, _reduction(reduction, size_average, reduce),
                      kernel="mse_cpu")


def _legacy_or(reduction, size_average, reduce):
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    return reduction


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error.

    >>> l1_loss(torch.tensor([1.0, -3.0]), torch.zeros(2))
    tensor(2.)
    """
    _warn_size(input, target)
    reduction = _legacy_or(reduction, size_average, reduce)
    x, t = S.broadcast_tensors(input, target)
    if weight is not None:
        return _weighted((x - t).abs(), weight, input, reduction)
    return _reduce((x - t).abs(), _reduction(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error below ``beta``, absolute error above it.

    >>> smooth_l1_loss(torch.tensor([0.5, 3.0]), torch.zeros(2))
    tensor(1.3125)
    """
    _warn_size(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:   # PyTorch falls back to the composite l1 loss
        x, t = S.broadcast_tensors(input, target)
        return _reduce((x - t).abs(), reduction)
    return _pointwise(LS.SmoothL1Loss, input, target, reduction, float(beta),
                      kernel="smooth_l1_cpu")


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error below ``delta``, delta-scaled absolute error above it.

    >>> huber_loss(torch.tensor([0.5, 3.0]), torch.zeros(2))
    tensor(1.3125)
    """
    _warn_size(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    op, args = LS.HuberLoss, (float(delta),)
    if input.dtype is not target.dtype:  # (its backward refuses the pair, as PyTorch's)
        op = LS.HuberLossMixedDtypes
        args += (input.dtype, target.dtype)
    if weight is not None:
        loss = _pointwise(op, input, target, "none", *args, kernel="huber_cpu")
        return _weighted(_huber_out(loss, input), weight, input, reduction, plain_mean=True)
    loss = _pointwise(op, input, target, _reduction(reduction), *args, kernel="huber_cpu")
    return _huber_out(loss, input)


def _huber_out(loss, input):
    """PyTorch writes huber_loss into a tensor of the input's dtype: the promoted result is
    cast back (float16 input, float32 target: float16), or refused for an integer input."""
    if loss.dtype is input.dtype:
        return loss
    if input.dtype.category != D._FLOAT:
        raise RuntimeError(f"result type {D.SCALAR_NAMES[loss.dtype]} can't be cast to the "
                           f"desired output type {D.SCALAR_NAMES[input.dtype]}")
    return loss.to(input.dtype)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-y x)), averaged.

    >>> soft_margin_loss(torch.tensor([0.0]), torch.tensor([1.0]))
    tensor(0.6931)
    """
    _tensor_args("soft_margin_loss", ("input", input, 1), ("target", target, 2))
    if input._data.dtype.kind not in "fc":  # PyTorch writes the loss into input's dtype
        if input.dtype is D.bool_:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        res = D.promote_types(input.dtype, target.dtype)
        res = res if res.category == D._FLOAT else D.get_default_dtype()
        raise RuntimeError(f"result type {D.SCALAR_NAMES[res]} can't be cast to the desired "
                           f"output type {D.SCALAR_NAMES[input.dtype]}")
    reduction = _reduction(reduction, size_average, reduce)
    _nondiff(target, "soft_margin_loss", "target")  # (PyTorch's error; no edge for it)
    # NOTE: PyTorch computes in place on -input (mul_ by the target, exp_, log1p_): in the
    # input's dtype whatever the target's, so the target is cast to it
    x, t = S.broadcast_tensors(input, target)
    t = t if t.dtype is x.dtype else t.to(x.dtype)
    return LS.SoftMarginLoss.apply(x, _nondiff(t, "soft_margin_loss", "target"), reduction)


def _nll_shapes(input, target):
    try:
        xs, ts = input._data.shape, target._data.shape
    except AttributeError:
        _tensor_args("nll_loss_nd", ("input", input, 1), ("target", target, 2))
        raise
    if len(xs) < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {len(xs)})")
    if len(xs) == 1:
        if len(ts) > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if len(ts) == 1:  # PyTorch checks the target's dtype before its size here
            _check_target_dtype(target, byte_ok=True)
            if ts[0] != 1:
                raise ValueError(f"For 1D input, 1D target must have size 1, but got target "
                                 f"size: {ts[0]}")
        return input, target, True  # (NllLoss takes an unbatched input as it is)
    if len(ts) == 0 or xs[0] != ts[0]:
        raise ValueError(f"Expected input batch_size ({xs[0]}) to match target "
                         f"batch_size ({ts[0] if ts else 0}).")
    if len(xs) == 2 and len(ts) != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if len(xs) == 4:    # PyTorch's nll_loss2d kernel, with its own checks
        if len(ts) != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but "
                               f"got targets of dimension: {len(ts)}")
        if ts[1:] != xs[2:]:
            raise RuntimeError(f"size mismatch (got input: {_dims(xs)} , target: "
                               f"{_dims(ts)}")
    elif len(xs) > 2 and ts[1:] != xs[2:]:
        raise RuntimeError(f"Expected target size {_dims(xs[:1] + xs[2:])}, got {_dims(ts)}")
    return input, target, False


def _dims(shape):
    return "[" + ", ".join(map(str, shape)) + "]"


_SCALAR_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                 "uint8": "Byte", "bool": "Bool", "float16": "Half", "bfloat16": "BFloat16",
                 "float32": "Float", "float64": "Double"}


def _check_targets(target, n_classes, ignore_index, byte_ok=False):
    """Check class-index targets; True when all are classes (none is ``ignore_index``).

    ``byte_ok``: nll_loss, whose first check takes Long or Byte targets; its N-d kernel
    (target of 2 or more dims) then takes only Long.
    """
    t = target._data
    if t.dtype != np.int64:
        _check_target_dtype(target, byte_ok)
    # NOTE: seen as unsigned, a negative target is huge: one max checks both bounds (plain
    # arrays only: under vmap the general check below runs)
    if type(t) is np.ndarray and t.size and t.view(f"u{t.itemsize}").max() < n_classes:
        return not 0 <= ignore_index < n_classes or not (t == ignore_index).any()
    bad = (t != ignore_index) & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
    return False


def _check_target_dtype(target, byte_ok):
    """PyTorch's errors for class-index targets that are not Long (see _check_targets)."""
    name = _SCALAR_NAMES.get(target.dtype.name, target.dtype.name)
    if byte_ok and target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {name}")
    if target._data.dtype != np.int64 and not (byte_ok and target.dim() <= 1):
        raise RuntimeError(f"expected scalar type Long but found {name}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log likelihood of the target classes (input holds log-probabilities).

    >>> nll_loss(torch.tensor([[-1.0, -2.0]]), torch.tensor([1]))
    tensor(2.)
    """
    reduction = _reduction(reduction, size_average, reduce)
    x, t, unbatched = _nll_shapes(input, target)
    if unbatched and not LS.plain_arrays():  # (the batching rules know (N, C) inputs)
        x, t = x.unsqueeze(0), t.reshape(1)
    n_classes = x.shape[0] if unbatched and x.dim() == 1 else x.shape[1]
    all_classes = _check_targets(t, n_classes, ignore_index, byte_ok=True)
    if weight is not None and weight.numel() != n_classes:
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} "
                           f"classes or no classes but got weight tensor of shape: "
                           f"{_dims(weight.shape)}")
    op = LS.NllLoss2d if x.dim() >= 3 else LS.NllLoss
    if all_classes and op is LS.NllLoss and LS.plain_arrays():
        op = LS.NllLossAllClasses
    w = _nondiff(weight, "nll_loss_forward", "weight")
    t = t if t._data.dtype == np.int64 else t.to(D.int64)  # (uint8 targets are allowed)
    out = op.apply(x, t, w, reduction, ignore_index)
    if reduction == "none" and (x.dim() == 3 or x.dim() > 4):
        # PyTorch runs a 3-d or 5+-d input through nll_loss2d as (N, C, 1, -1) and views the
        # unreduced loss back: its grad_fn is a ViewBackward0
        out = out.view(out.shape)
    return out.reshape(()) if unbatched and x.dim() == 2 and reduction == "none" else out


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """log_softmax over dim 1 then nll_loss; class-index or class-probability targets.

    >>> cross_entropy(torch.tensor([[0.0, 0.0]]), torch.tensor([1]))
    tensor(0.6931)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing}")
    try:
        class_dim = 0 if input.dim() == 1 else 1
        probs = input.shape == target.shape  # PyTorch: same shapes mean class probabilities
    except AttributeError:
        _tensor_args("cross_entropy_loss", ("input", input, 1), ("target", target, 2))
        raise
    if probs:
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {D.SCALAR_NAMES[target.dtype]}")
        logp = log_softmax(input, class_dim)
        return _ce_probs(logp, target, weight, reduction, label_smoothing, class_dim)
    logp = log_softmax(input, class_dim)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if label_smoothing == 0.0:
        return nll
    return _ce_smoothing(logp, target, weight, reduction, ignore_index, label_smoothing,
                         class_dim, nll)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """cross_entropy of ``linear(input, linear_weight, linear_bias)``; a weight of shape
    (C, d_1, ..., d_K, in_features) gives K-dimensional logits (N, C, d_1, ..., d_K).

    Only PyTorch's reference path (``options=None``) is provided: the chunked path raises.

    >>> linear_cross_entropy(torch.ones(1, 2), torch.zeros(3, 2), torch.tensor([0]))
    tensor(1.0986)
    """
    if options is not None:
        raise NotImplementedError("numtorch does not provide the chunked path of "
                                  "linear_cross_entropy (options=...); use options=None")
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    classes = (linear_weight.shape[0], *linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != classes:
        raise RuntimeError(f"expected linear_bias shape {classes}, got "
                           f"{tuple(linear_bias.shape)}")
    if len(classes) > 1 and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*batch, *classes)
    # same shapes mean class probabilities (cross_entropy's own test), where ignore_index
    # has no meaning
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    size = math.prod(classes)
    logits = linear(input, linear_weight.reshape(size, in_features),
                    None if linear_bias is None else linear_bias.reshape(size))
    return cross_entropy(logits.reshape(logits_shape), target, weight=weight,
                         reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         label_smoothing=label_smoothing)


def _scalar_op(base, backward_name):
    """``base`` (Mul or Div) of a tensor by a Python number as PyTorch's ATen composites
    call it (``mul(Scalar)``): ``backward_name`` (MulBackward1), no edge for the number."""
    cls = _SCALAR_OPS.get(backward_name)
    if cls is None:
        cls = _SCALAR_OPS[backward_name] = type(
            backward_name, (base,), {"_backward_name": backward_name, "_wrapped_scalars": (),
                                     "__module__": __name__})
    return cls


_SCALAR_OPS = {}


def _class_view(weight, ndim, class_dim):
    shape = [1] * ndim
    shape[class_dim] = weight.numel()
    return weight.reshape(shape)


def _ce_probs(logp, target, weight, reduction, smoothing, class_dim):
    n_classes = logp.shape[class_dim]
    if weight is not None and weight.numel() != n_classes:
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{n_classes} classes or no classes but got weight tensor of "
                           f"shape: {_dims(weight.shape)}")
    if smoothing > 0:
        target = target * (1 - smoothing) + smoothing / n_classes
    prod = logp * target
    if weight is not None:
        prod = prod * _class_view(weight, logp.ndim, class_dim)
    if reduction == "mean":   # PyTorch divides by a Scalar: DivBackward1
        return _scalar_op(E.Div, "DivBackward1").apply(-prod.sum(), logp.numel() // n_classes)
    if reduction == "sum":
        return -prod.sum()
    return -prod.sum(class_dim)


def _ce_smoothing(logp, target, weight, reduction, ignore_index, smoothing, class_dim, nll):
    n_classes = logp.shape[class_dim]
    ignore = target == ignore_index
    if weight is not None:
        smooth = -(logp * _class_view(weight, logp.ndim, class_dim)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignore, 0.0)
    if reduction == "mean":
        if weight is not None:
            denom = weight.gather(0, target.masked_select(~ignore).flatten()).sum()
        else:
            denom = (~ignore).sum()
        ret = smooth.sum() / denom
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    mul = _scalar_op(E.Mul, "MulBackward1")
    return mul.apply(nll, 1 - smoothing) + mul.apply(ret, smoothing / n_classes)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """-(t log x + (1 - t) log(1 - x)), logs clamped at -100.

    >>> binary_cross_entropy(torch.tensor([0.5]), torch.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the "
                         f"input size ({input.size()}) is deprecated. Please ensure they have "
                         "the same size.")
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {_SCALAR_NAMES.get(target.dtype.name)} but expected "
                           f"{_SCALAR_NAMES.get(input.dtype.name)}")
    x = input._data
    if x.dtype.kind not in "fc":
        _float_kernel("binary_cross_entropy", input)
    if x.size and ((x < 0) | (x > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if weight is not None:
        weight = _nondiff(weight, "binary_cross_entropy", "weight")
        shape = np.broadcast_shapes(tuple(target.shape), tuple(weight.shape))
        weight = weight.expand(shape) if isinstance(weight, Tensor) else \
            np.broadcast_to(weight, shape)
    return LS.BinaryCrossEntropy.apply(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """BCE on sigmoid(input), computed stably; ``pos_weight`` weighs positive targets.

    >>> binary_cross_entropy_with_logits(torch.tensor([0.0]), torch.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    if input._data.dtype.kind not in "fc":  # PyTorch's first kernel: log_sigmoid(input)
        _float_kernel("log_sigmoid_cpu", input)
    # NOTE: PyTorch builds the loss in place on (1 - target): its dtype is the target's, and
    # an integer target cannot hold it
    dt = target.dtype
    if dt is D.bool_:  # PyTorch's ``1 - target`` wraps the 1 as a bool too
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if not (target.is_floating_point() or target.is_complex()):
        from .._dtype import promote_types
        shown = _SCALAR_NAMES.get(promote_types(input.dtype, dt).name)
        raise RuntimeError(f"result type {shown} can't be cast to the desired output type "
                           f"{_SCALAR_NAMES.get(dt.name)}")
    input, weight, pos_weight = (_as_dtype(t, dt) for t in (input, weight, pos_weight))
    op = "binary_cross_entropy_with_logits"
    return LS.BinaryCrossEntropyWithLogits.apply(input, target, _nondiff(weight, op, "weight"),
                                                 _nondiff(pos_weight, op, "pos_weight"),
                                                 reduction)


def _as_dtype(t, dtype):
    return t if t is None or t.dtype == dtype else t.to(dtype)


def _nondiff(t, op, name):
    """``t``, an argument PyTorch's ``op`` does not differentiate (a loss's weight), as a
    plain array: its node then has no edge for it, as PyTorch's has none. PyTorch's error
    if it requires grad (where grad mode is on). Under a functorch transform the tensor
    stays (the transform's rules see every tensor argument)."""
    if t is None:
        return None
    if t.requires_grad and _grad_enabled():
        raise RuntimeError(f"The function '{op}' is not differentiable with respect to "
                           f"argument '{name}'. This input cannot have requires_grad True.")
    return t._data if LS.plain_arrays() else t


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist temporal classification loss of (T, N, C) log-probabilities against
    padded (N, S) or concatenated targets; ``zero_infinity`` zeroes impossible alignments.

    >>> lp = torch.tensor([[[0.5, 0.5]], [[0.5, 0.5]]]).log()
    >>> ctc_loss(lp, torch.tensor([[1]]), [2], [1])
    tensor(0.2877)
    """
    from ..ops.ctc import ctc_loss as _ctc
    return _ctc(log_probs, targets, input_lengths, target_lengths, blank,
                _reduction(reduction), zero_infinity)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL(target || input) with ``input`` in log space.

    >>> kl_div(torch.tensor([0.0]), torch.tensor([1.0]), reduction='sum')
    tensor(0.)
    """
    if size_average is not None or reduce is not None:
        red = _legacy_reduction(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        red = "sum" if reduction == "batchmean" else _reduction(reduction)
    _tensor_args("kl_div", ("input", input, 1), ("target", target, 2))
    if input._data.dtype.kind not in "fc" or target._data.dtype.kind not in "fc":
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = E.xlogy(target, target) - target * input
    out = _reduce(loss, red)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.size()[0]
    return out


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Poisson negative log likelihood (optionally with Stirling's term).

    >>> poisson_nll_loss(torch.tensor([0.0]), torch.tensor([1.0]))
    tensor(1.)
    """
    _tensor_args("poisson_nll_loss", ("input", input, 1), ("target", target, 2))
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        # (PyTorch's C++ ``input + eps``: AddBackward1, no edge for eps)
        loss = input - target * E.AddScalar.apply(input, eps).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood with predicted variance ``var``.

    >>> gaussian_nll_loss(torch.tensor([0.0]), torch.tensor([0.0]), torch.tensor([1.0]))
    tensor(0.)
    """
    from .._creation import ones_like
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(
                y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _zeros_like(t):
    from .._creation import zeros_like
    return zeros_like(t)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """x where y == 1, max(0, margin - x) where y == -1.

    >>> hinge_embedding_loss(torch.tensor([0.3, 2.0]), torch.tensor([1.0, -1.0]))
    tensor(0.1500)
    """
    _tensor_args("hinge_embedding_loss", ("input", input, 1), ("target", target, 2))
    reduction = _reduction(reduction, size_average, reduce)
    zeros = _zeros_like(input)
    # NOTE: PyTorch fills a tensor like the input with the margin: an integer input keeps
    # its dtype (the margin truncated)
    (margin,) = _int_scalars(input, margin)
    # (PyTorch's C++ ``margin - self``: SubBackward0 with the margin a wrapped number)
    margin_clamp = E.Sub.apply(margin, input).clamp_min(0)
    out = E.where(target != 1, margin_clamp, zeros) + E.where(target != -1, input, zeros)
    return _reduce(out, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -y (x1 - x2) + margin).

    >>> margin_ranking_loss(torch.tensor([1.0]), torch.tensor([2.0]), torch.tensor([1.0]))
    tensor(1.)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    # NOTE: PyTorch's margin is a double: integer inputs give a float loss; its C++ adds it
    # as a Scalar (AddBackward1, one edge)
    return _reduce(E.AddScalar.apply(-target * (input1 - input2), float(margin)).clamp_min(0),
                   reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(x1, x2) where y == 1, max(0, cos(x1, x2) - margin) where y == -1.

    >>> cosine_embedding_loss(torch.ones(1, 2), torch.ones(1, 2), torch.tensor([1]))
    tensor(0.)
    """
    _tensor_args("cosine_embedding_loss", ("input1", input1, 1), ("input2", input2, 2))
    reduction = _reduction(reduction, size_average, reduce)
    tdim = target.dim()
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if tdim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if tdim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    eps = 1e-12
    # NOTE: the nodes of PyTorch's C++ composite: ``+ eps`` and ``- margin`` are the Scalar
    # overloads (AddBackward1, SubBackward1: one edge), ``1 - cos`` a SubBackward0
    prod = (input1 * input2).sum(tdim)
    denom = (E.AddScalar.apply((input1 * input1).sum(tdim), eps)
             * E.AddScalar.apply((input2 * input2).sum(tdim), eps)).sqrt()
    cos = prod / denom
    zeros = _zeros_like(cos)
    out = E.where(target == 1, E.Sub.apply(1, cos), zeros) + \
        E.where(target == -1, E.SubScalar.apply(cos, margin).clamp_min(0), zeros)
    return _reduce(out, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, d(a, p) - d(a, n) + margin) with pairwise p-norm distances.

    >>> triplet_margin_loss(torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2))
    tensor(0.)
    """
    _tensor_args("triplet_margin_loss",
                 ("anchor", anchor, 1),
                 ("positive", positive, 2),
                 ("negative", negative, 3))
    reduction = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = anchor.dim(), positive.dim(), negative.dim()
    if not dims[0] == dims[1] == dims[2]:  # (broadcasting would hide a mismatch)
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {dims[0]}D, "
                           f"positive {dims[1]}D, and negative {dims[2]}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = E.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    # (PyTorch's order, ``margin + d_pos - d_neg``: AddBackward1 then SubBackward0)
    return _reduce((E.AddScalar.apply(d_pos, margin) - d_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """Triplet loss with a custom distance (pairwise_distance by default).

    >>> triplet_margin_with_distance_loss(torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2))
    tensor(0.)
    """
    # NOTE: the functional form words these checks unlike the module's constructor (which
    # checks the margin first with its own message): PyTorch's order and texts.
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {dims[0]}D, positive "
                           f"{dims[1]}D, and negative {dims[2]}D inputs")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = E.minimum(d_neg, dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Per-class logistic loss averaged over classes.

    >>> multilabel_soft_margin_loss(torch.zeros(1, 2), torch.ones(1, 2))
    tensor(0.6931)
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("log_sigmoid", input)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss: sum_j max(0, margin - x[y] + x[j])^p / C.

    >>> multi_margin_loss(torch.tensor([[0.0, 0.0]]), torch.tensor([0]))
    tensor(0.5000)
    """
    _tensor_args("multi_margin_loss", ("input", input, 1), ("target", target, 2))
    reduction = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    nframe, dim = _margin_shape(input)
    if target.dim() > 1 or target.numel() != nframe:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{nframe}], but got {_dims(target.shape)}. Input has shape "
                           f"{_dims(input.shape)}.")
    if weight is not None and weight.numel() != dim:
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got "
                           f"{_dims(weight.shape)}")
    if input._data.dtype.kind not in "fc":
        _float_kernel("multi_margin_loss_cpu_kernel", input)
    if target._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {D.SCALAR_NAMES[target.dtype]}")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {D.SCALAR_NAMES[input.dtype]} but found "
                           f"{D.SCALAR_NAMES[weight.dtype]}")
    tv = target._data
    if ((tv < 0) | (tv >= dim)).any():
        raise RuntimeError("target out of range")
    # (no view node where the shapes already fit, as in PyTorch)
    x = input if input.dim() == 2 else input.reshape(nframe, dim)
    t = target if target.dim() == 1 else target.reshape(nframe)
    weight = _nondiff(weight, "multi_margin_loss", "weight")
    out = LS.MultiMarginLoss.apply(x, t, p, margin, weight, reduction)
    # PyTorch's 'none' result has one loss per target: a 0-d target gives a 0-d loss
    return out.reshape(()) if reduction == "none" and target.dim() == 0 else out


def _margin_shape(input):
    """(samples, classes) of multi_margin_loss's or multilabel_margin_loss's input (a vector
    is one sample, a scalar one class), or PyTorch's error for an empty or N-d input."""
    nd = input.dim()
    if nd > 2 or (nd > 0 and input.shape[-1] == 0) or (nd == 1 and input.numel() == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {_dims(input.shape)}")
    if nd <= 1:
        return 1, (1 if nd == 0 else input.shape[0])
    return input.shape[0], input.shape[1]


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """sum over target classes j and other classes i of max(0, 1 - (x[j] - x[i])) / C.

    ``target`` lists class indices per sample, ended by the first -1.

    >>> multilabel_margin_loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    _tensor_args("multilabel_margin_loss", ("input", input, 1), ("target", target, 2))
    reduction = _reduction(reduction, size_average, reduce)
    nframe, c = _margin_shape(input)
    if (target.dim() > 1 or target.numel() != c) if input.dim() <= 1 else \
            tuple(target.shape) != (nframe, c):
        raise RuntimeError(f"inconsistent target size: {_dims(target.shape)} for input of size: "
                           f"{_dims(input.shape)}")
    if target._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {D.SCALAR_NAMES[target.dtype]}")
    if ((target._data < -1) | (target._data >= c)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    if input._data.dtype.kind not in "fc":
        _float_kernel("multilabel_margin_loss_forward_out_frame", input)
    if _FW.fw_levels:   # PyTorch has no forward-AD formula for it
        from ..autograd._tangents import refuse_duals
        refuse_duals("multilabel_margin_loss_forward", input)
    tv = target._data.reshape(nframe, c)
    ended = np.cumsum(tv < 0, axis=1) > 0
    # NOTE: a class listed twice counts twice (PyTorch loops over the listed targets)
    count = np.zeros((nframe, c), np.int64)
    rows, cols = np.nonzero(~ended)
    np.add.at(count, (rows, tv[rows, cols]), 1)
    return LS.MultilabelMarginLoss.apply(input, target, count, reduction,
                                         input.dim() < 2 and reduction == "none")


# ---- embeddings and distances -------------------------------------------------------------
class _Embedding(BuiltinFunction):
    """out = weight[idx];  dweight = g added back at idx (padding row kept at zero)."""
    _backward_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, weight, idx, padding_idx, scale_by_freq, sparse=False):
        ctx.shape, ctx.idx = weight.shape, idx
        ctx.padding_idx, ctx.scale, ctx.sparse = padding_idx, scale_by_freq, sparse
        ctx.save_for_backward(idx)  # (PyTorch keeps the indices: grad_fn._saved_indices)
        return weight[idx]

    @staticmethod
    def backward(ctx, g):
        if type(ctx) is not _BagRows:
            ctx.saved_tensors  # (the version check of the indices)
        idx = ctx.idx.reshape(-1)
        gflat = g.reshape(-1, ctx.shape[1])
        keep = np.ones(idx.shape, g._data.dtype)
        if ctx.padding_idx >= 0:
            keep[idx == ctx.padding_idx] = 0
        if ctx.scale:
            counts = np.bincount(idx, minlength=ctx.shape[0])
            keep = keep / counts[idx]
        from ..ops.indexing import IndexAddInto
        return IndexAddInto.apply(gflat * _const(keep[:, None]), ctx.shape, (idx,)), None, \
            None, None, None


def _embedding_renorm(weight, idx, max_norm, norm_type):
    """PyTorch's embedding_renorm_: each distinct row whose norm exceeds ``max_norm`` is
    scaled by max_norm / (norm + 1e-7), the norm taken in the weight's dtype."""
    n, dim = weight.shape
    bad = idx[(idx >= n) | (idx < -n)] if idx.size else idx
    if bad.size:  # PyTorch selects each row, so select() reports the first bad index
        raise IndexError(f"select(): index {int(bad[0])} out of range for tensor of size "
                         f"[{n}, {dim}] at dimension 0")
    rows = np.unique(np.where(idx < 0, idx + n, idx))
    w = weight._data
    with no_grad():
        norms = R.VectorNorm.apply(weight.detach()[rows], float(norm_type), (1,), False)._data
    for r, norm in zip(rows, norms.tolist()):
        if norm > max_norm:
            w[r] = w[r] * w.dtype.type(max_norm / (norm + 1e-7))
    weight._vc[0] += 1


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` at the indices in ``input``.

    >>> embedding(torch.tensor([1]), torch.eye(2))
    tensor([[0., 1.]])
    """
    if not isinstance(weight, Tensor) or not isinstance(input, Tensor):
        _tensor_args("embedding", ("weight", weight, 1), ("indices", input, 2))
    n = weight.size(0)
    if padding_idx is not None:
        if padding_idx >= n or padding_idx < -n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx + n if padding_idx < 0 else padding_idx
    else:
        padding_idx = -1
    idx = input._data
    if idx.dtype != np.int64 and idx.dtype != np.int32:
        raise _indices_dtype_error(input, "embedding")
    if max_norm is not None:    # PyTorch renormalises first, so its errors come first
        _embedding_renorm(weight, idx, max_norm, norm_type)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    # (the indices as a Tensor: saved, they are version-checked in backward)
    return _Embedding.apply(weight, input, padding_idx, scale_grad_by_freq, bool(sparse))


def _bag_inputs(input, offsets, per_sample_weights, include_last_offset):
    """Flatten 2-D (fixed-length bags) input; bag boundaries as an array of B + 1 offsets."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        n, length = input.shape
        bounds = np.arange(0, n * length + 1, length)
        psw = None if per_sample_weights is None else per_sample_weights.reshape(-1)
        return input.reshape(-1), bounds, psw
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    bounds = offsets._data.astype(np.int64)
    if bounds.size and bounds[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {bounds[0]}\n"
                           f"[ {offsets.type()}{{}} ]")
    if bounds.size and bounds[-1] > input.shape[0]:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length "
                           f"{input.shape[0]} but got offsets[-1] of {bounds[-1]}")
    if not include_last_offset:
        bounds = np.append(bounds, input.shape[0])
    return input, bounds, per_sample_weights


def _indices_dtype_error(t, op):
    """PyTorch's error for indices that are not int32/int64 (uint8 and int16 too)."""
    cat = t.dtype.category
    name = t.type() if cat in (D._INT, D._FLOAT) else f"CPU{D.SCALAR_NAMES[t.dtype]}Type"
    return RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                        f"following scalar types: Long, Int; but got {name} instead (while "
                        f"checking arguments for {op})")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings (bags from ``offsets`` or 2-D rows).

    >>> embedding_bag(torch.tensor([0, 1, 1]), torch.eye(2), torch.tensor([0, 2]))
    tensor([[0.5000, 0.5000],
            [0.0000, 1.0000]])
    """
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    for t in (input, offsets):
        if t is not None and t.dtype.category > D._INT:
            raise _indices_dtype_error(t, "embedding_bag")
    flat, bounds, psw = _bag_inputs(input, offsets, per_sample_weights, include_last_offset)
    if flat.dtype != D.int64:  # PyTorch's bag kernel takes bool and uint8 indices as well
        flat = flat.long()
    bad = (flat._data < 0) | (flat._data >= weight.shape[0])
    if input.dim() == 1 and bad.any():
        k = int(np.argmax(bad))
        raise RuntimeError(f"Index {k} of input takes value {flat._data[k]} which is not in the "
                           f"valid range [0, {weight.shape[0]})")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if _FW.fw_levels:   # PyTorch has no forward-AD formula for it
        from ..autograd._tangents import refuse_duals
        refuse_duals("_embedding_bag", weight, per_sample_weights)
    if psw is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    if max_norm is not None:    # (embedding's renorm, its checks first)
        _embedding_renorm(weight, flat._data, max_norm, norm_type)
    if bad.any():
        raise IndexError("index out of range in self")
    bag = _Bag(flat._data, bounds, padding_idx, ("sum", "mean", "max").index(mode),
               offsets._data.astype(np.int64) if input.dim() == 1 else bounds[:-1])
    # (a placeholder where there are no per_sample_weights: PyTorch's node has its edge)
    return _EmbeddingBag.apply(weight, _NO_WEIGHTS if psw is None else psw, bag,
                               scale_grad_by_freq, bool(sparse), psw is not None)


_NO_WEIGHTS = _const(np.empty(0, np.float32))


class _Bag:
    """The bags of an ``embedding_bag`` call: flat indices ``idx``, bag ``bounds`` (B + 1
    offsets), ``padding_idx`` (or None), ``mode`` (0 sum, 1 mean, 2 max), the ``offsets``
    PyTorch's node keeps; ``member`` is the (B, N) 0/1 table of which index is in which bag
    (the padding index in none)."""

    def __init__(self, idx, bounds, padding_idx, mode, offsets):
        self.idx, self.bounds, self.padding_idx = idx, bounds, padding_idx
        self.mode, self.offsets = mode, offsets
        pos = np.arange(idx.shape[0])
        keep = idx != (padding_idx if padding_idx is not None else -1)
        self.member = (pos >= bounds[:-1, None]) & (pos < bounds[1:, None]) & keep
        self.max_indices = None


class _EmbeddingBag(BuiltinFunction):
    """out[b] = sum / mean / max of weight[idx] over bag b (times per_sample_weights);
    dweight = g scattered back to the rows (max: to the row that won), dpsw = g . row.

    One node with edges (weight, per_sample_weights), as PyTorch's EmbeddingBagBackward0."""
    _backward_name = "EmbeddingBagBackward0"

    @staticmethod
    def forward(ctx, weight, psw, bag, scale, sparse, has_psw):
        ctx.bag, ctx.shape, ctx.scale, ctx.sparse = bag, weight.shape, scale, sparse
        psw = psw if has_psw else None
        # (PyTorch keeps the weight only for the per_sample_weights' gradient)
        ctx.save_for_backward(psw, weight if has_psw and ctx.needs_input_grad[1] else None)
        rows = weight[bag.idx]
        if bag.mode == 2:
            return _bag_max(rows, bag, weight)
        ctx.rows = rows if psw is not None else None
        if psw is not None:
            rows = rows * psw[:, None]
        m = bag.member.astype(weight.dtype)
        if bag.mode == 1:
            m = m / np.maximum(m.sum(1, keepdims=True), 1)
        ctx.m = m
        return np.matmul(m, rows)

    @staticmethod
    def backward(ctx, g):
        psw = ctx.saved_tensors[0]
        bag = ctx.bag
        if bag.mode == 2:
            win = bag.max_indices  # (B, D) weight rows; -1 for an empty bag
            cols = np.broadcast_to(np.arange(win.shape[1]), win.shape)
            ok = win >= 0
            from ..ops.indexing import IndexAddInto
            return IndexAddInto.apply(g[_const(ok)], ctx.shape, (win[ok], cols[ok])), \
                None, None, None, None, None
        d_rows = _const(ctx.m).t().matmul(g)
        d_psw = None
        if psw is not None and ctx.needs_input_grad[1]:
            d_psw = (d_rows * _const(ctx.rows)).sum(1)
        if psw is not None:
            d_rows = d_rows * psw.unsqueeze(1)
        d_w = None
        if ctx.needs_input_grad[0]:
            d_w = _Embedding.backward(_BagRows(ctx), d_rows)[0]
        return d_w, d_psw, None, None, None, None


class _BagRows:
    """What ``_Embedding.backward`` reads of its ctx, for the rows of a bag (the padding
    index is out of every bag already, so none here)."""
    __slots__ = ("idx", "shape", "padding_idx", "scale")

    def __init__(self, ctx):
        self.idx, self.shape, self.padding_idx, self.scale = \
            ctx.bag.idx, ctx.shape, -1, ctx.scale


def _bag_max(rows, bag, weight):
    """Each bag's elementwise maximum (zeros for an empty bag); keeps on ``bag`` which row
    won each entry (the first of equal ones, as PyTorch's kernel)."""
    out = np.zeros((bag.member.shape[0], weight.shape[1]), weight.dtype)
    win = np.full(out.shape, -1, np.int64)
    for b, member in enumerate(bag.member):
        sel = np.nonzero(member)[0]
        if sel.size:
            first = rows[sel].argmax(0)
            out[b] = rows[sel[first], np.arange(weight.shape[1])]
            win[b] = bag.idx[sel[first]]
    bag.max_indices = win
    return out


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding with ``num_classes`` classes (max + 1 by default).

    >>> one_hot(torch.tensor([0, 2]))
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    if not isinstance(tensor, Tensor):
        raise not_a_tensor("one_hot", tensor)
    x = tensor._data
    if x.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if x.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(x.max()) + 1
    if x.size and x.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if x.size and x.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _const((x[..., None] == np.arange(num_classes)).astype(np.int64))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``.

    >>> normalize(torch.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    if isinstance(input, Tensor) and input._data.dtype.kind not in "fc":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {D.SCALAR_NAMES[input.dtype]}")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    res = input / denom
    if out is not None:
        out.copy_(res)
        return out
    return res


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim.

    >>> pairwise_distance(torch.tensor([[0.0, 0.0]]), torch.tensor([[3.0, 4.0]]), eps=0)
    tensor([5.])
    """
    _tensor_args("pairwise_distance", ("x1", x1, 1), ("x2", x2, 2))
    ndim = max(x1.dim(), x2.dim())
    diff = E.AddScalar.apply(x1 - x2, eps)  # (its C++ add.Scalar: AddBackward1, one edge)
    # NOTE: PyTorch calls at::norm here, whose node is NormBackward1 (not linalg's)
    return P.named(R.VectorNorm, "NormBackward1").apply(diff, float(p), (ndim - 1,), keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between x1 and x2 along ``dim``.

    >>> cosine_similarity(torch.tensor([[1.0, 0.0]]), torch.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    _tensor_args("cosine_similarity", ("x1", x1, 1), ("x2", x2, 2))
    dt = D.result_type(x1, x2)
    if dt.category != D._FLOAT:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{D.SCALAR_NAMES[dt]}")
    if eps < 0:
        raise RuntimeError(f"eps must be non-negative, got: {eps}")
    x1, x2 = S.broadcast_tensors(x1.to(dt), x2.to(dt))
    n1 = R.vector_norm(x1, 2, dim, True)
    n2 = R.vector_norm(x2, 2, dim, True)
    # NOTE: PyTorch clamps clones of the norms in place under no_grad: the clamp is
    # invisible to autograd (CloneBackward0 nodes)
    n1, n2 = n1.clone(), n2.clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pdist(input, p=2):
    """Distances between all pairs of rows (upper triangle, row-major).

    >>> pdist(torch.tensor([[0.0, 0.0], [3.0, 4.0]]))
    tensor([5.])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("pdist", input)
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if input.dtype.category != D._FLOAT:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if _FW.fw_levels:   # PyTorch has no forward-AD formula for it
        from ..autograd._tangents import refuse_duals
        refuse_duals("_pdist_forward", input)
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    return _relabel((input[_const(i)] - input[_const(j)]).norm(p, 1), "PdistBackward0")


# ---- padding -----------------------------------------------------------------------------
def _pad_pairs(pad, ndim):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{ndim}")
    pairs = [(int(pad[2 * i]), int(pad[2 * i + 1])) for i in range(len(pad) // 2)]
    return tuple(reversed(pairs))


# NOTE: PyTorch pads circularly with slice copies, so its node is CopySlices
_PAD_NAMES = {"reflect": "ReflectionPad{}DBackward0", "replicate": "ReplicationPad{}DBackward0",
              "circular": "CopySlices"}
P.named(P.IndexPad, "CopySlices")._node_name = "torch::autograd::CopySlices"


def pad(input, pad, mode="constant", value=None):
    """Pad the trailing dims: ``pad`` = (left_last, right_last, left_prev, right_prev, ...).

    >>> pad(torch.ones(1, 2), (1, 1))
    tensor([[0., 1., 1., 0.]])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("pad", input)
    if type(pad) is not tuple or not _INT_TYPES.issuperset(map(type, pad)):
        _check_pad_arg(pad)
    pairs = _pad_pairs(pad, input.dim())
    if mode == "constant":
        if any(lo < 0 or hi < 0 for lo, hi in pairs):
            _check_crop(input, pairs)
        return P.ConstantPadNd.apply(input, pairs, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode not in _PAD_NAMES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    k = len(pairs)
    if input.dim() not in (k + 1, k + 2) or k > 3:
        raise NotImplementedError(
            f"Padding size {2 * k} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    _check_pad_size(input, pairs, mode)
    return P.index_pad(input, pairs, mode, _PAD_NAMES[mode].format(k))


def _check_pad_arg(pad):
    """PyTorch's parser errors for a ``pad`` that is no list of ints (F.pad passes it on
    positionally, so the message always says position 2)."""
    from ..ops._arg_errors import _bad_element
    from ..ops._util import tp_name
    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not "
                        f"{tp_name(pad)}")
    bad = _bad_element(pad)
    if bad == 0:
        raise TypeError("pad(): argument 'pad' (position 2) must be tuple of ints, but found "
                        f"element of type {tp_name(pad[0])} at pos 0")
    if bad is not None:  # NOTE: the parser words a bad later entry differently, counting from 1
        raise TypeError(f"pad(): argument 'pad' failed to unpack the object at pos {bad + 1} "
                        f"with error \"type must be tuple of ints,but got {tp_name(pad[bad])}\"")


def _check_crop(input, pairs):
    """Negative constant pads crop with ``narrow`` (low side first), which refuses a crop
    past the dim's size, as in PyTorch."""
    for n, (lo, hi) in zip(input.shape[input.dim() - len(pairs):], pairs):
        if lo < 0 and n + lo < 0 or hi < 0 and n + min(lo, 0) + hi < 0:
            raise RuntimeError("narrow(): length must be non-negative.")


def _check_pad_size(input, pairs, mode):
    sizes = input.shape[input.dim() - len(pairs):]
    # PyTorch checks the last dim first; its argument number counts pads from the last dim
    for j, (n, (lo, hi)) in enumerate(reversed(list(zip(sizes, pairs)))):
        dim = input.dim() - 1 - j
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(f"Argument #{4 + 2 * j}: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({lo}, {hi}) "
                               f"at dimension {dim} of input {list(input.shape)}")
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "replicate" and n == 0:
            raise RuntimeError(f"Expected {input.dim()}D tensor with non-zero sizes")


# ---- convolution -------------------------------------------------------------------------
def _conv_padding(padding, x_size, kernel, dilation, stride, nsp):
    """Per-dim (low, high) pads; 'same' puts an odd extra pad on the high side."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * nsp
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        out = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            out.append((total // 2, total - total // 2))
        if any(lo != hi for lo, hi in out):
            _warn_once("Using padding='same' with even kernel lengths and odd dilation may "
                       "require a zero-padded copy of the input be created")
        return tuple(out)
    return tuple((p, p) for p in _ntuple(nsp)(padding))


_WARNED = set()


def _warn_once(message):
    """PyTorch's TORCH_WARN_ONCE: a UserWarning the first time only."""
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=4)


_CONV_SIGNATURES = tuple(
    "(Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, "
    f"{pad}, tuple of ints dilation = 1, int groups = 1)"
    for pad in ("tuple of ints padding = 0", 'str padding = "valid"'))
_CONV_DEFAULTS = (None, 1, 0, 1, 1)  # bias, stride, padding, dilation, groups


def _is_int(v):
    """An int as PyTorch's parser reads one: Python/NumPy ints, not bools (nor tensors)."""
    return type(v) is int or parser_int(v, allow_tensor=False)


_INT_TYPES = frozenset((int,))


def _is_ints(v):
    """An int or a list/tuple of ints (PyTorch's ``tuple of ints`` parameter)."""
    if type(v) is tuple and _INT_TYPES.issuperset(map(type, v)):  # the common case, first
        return True
    return _is_int(v) or isinstance(v, (tuple, list)) and all(map(_is_int, v))


def _conv_type_error(name, args):
    """PyTorch's TypeError where conv's arguments fit neither overload, else None.

    The call's own form is gone by now, so it is rebuilt: the leading arguments positionally,
    a later non-default one by keyword after a skipped default; a module passes stride etc. as
    tuples, and then all seven (as PyTorch's modules do)."""
    input, weight, bias, stride, padding, dilation, groups = args
    if isinstance(input, Tensor) and isinstance(weight, Tensor) and (
            bias is None or isinstance(bias, Tensor)) and _is_ints(stride) and \
            _is_ints(dilation) and (_is_ints(padding) or isinstance(padding, str)) and \
            _is_int(groups):
        return None
    names = ("bias", "stride", "padding", "dilation", "groups")
    if isinstance(stride, tuple) and isinstance(dilation, tuple):
        return invalid_arguments(name, args, {}, _CONV_SIGNATURES)
    given = [k for k, (v, d) in enumerate(zip(args[2:], _CONV_DEFAULTS))
             if not (v is d or type(v) is type(d) and v == d)]
    positional = list(args[:2])
    for k in range(5):
        if k not in given:
            break
        positional.append(args[2 + k])
    kwargs = {names[k]: args[2 + k] for k in given if k >= len(positional) - 2}
    return invalid_arguments(name, tuple(positional), kwargs, _CONV_SIGNATURES)


def _expand_param(value, what, dim):
    """A conv parameter as a list of ``dim`` values (PyTorch's expand_param_if_needed)."""
    value = list(value)
    if len(value) == 1:
        return value * dim
    if len(value) != dim:
        raise RuntimeError(f"expected {what} to be a single integer value or a list of {dim} "
                           f"values to match the convolution dimensions, but got "
                           f"{what}={value}")
    return value


def _check_conv_params(x, w, bias, stride, padding, dilation, groups, nsp):
    """The parameter and weight checks PyTorch's convolution runs first, in its order;
    returns stride, padding (None for a padding string) and dilation as lists."""
    if w.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dim = w.dim() - 2
    stride = _expand_param(_ntuple(nsp)(stride), "stride", dim)
    if not isinstance(padding, str):
        padding = _expand_param(_ntuple(nsp)(padding), "padding", dim)
    dilation = _expand_param(_ntuple(nsp)(dilation), "dilation", dim)
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    _check_conv_weight(x, w, groups)
    return stride, padding, dilation


def _check_conv_weight(x, w, groups):
    """The weight's rank against the input's and its output channels against ``groups``
    (after the parameter checks, in PyTorch's order)."""
    if w.dim() != x.dim():
        raise RuntimeError(f"Expected {w.dim()}-dimensional input for {w.dim()}-dimensional "
                           f"weight {list(w.shape)}, but got {x.dim()}-dimensional input of "
                           f"size {list(x.shape)} instead")
    if w.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(w.shape)} instead")
    if w.shape[0] % groups:
        # NOTE: PyTorch's message really has the doubled brackets
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size [{list(w.shape)}] "
                           "instead")


def _check_conv(x, w, bias, groups, nsp, name):
    """Channel and bias shape checks of a (non-transposed) convolution."""
    if x.shape[1] != w.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(w.shape)}, expected "
                           f"input{list(x.shape)} to have {w.shape[1] * groups} channels, but "
                           f"got {x.shape[1]} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != w.shape[0]):
        raise RuntimeError(f"Given weight of size {list(w.shape)}, expected bias to be "
                           f"1-dimensional with {w.shape[0]} elements, but got bias of size "
                           f"{list(bias.shape)} instead")


def _check_conv_dtypes(input, weight, bias):
    """PyTorch's first conv check: a bias of another dtype than the input."""
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({D.CPP_NAMES[input.dtype]}) and bias type "
                           f"({D.CPP_NAMES[bias.dtype]}) should be the same")


def _check_conv_kernel(x, w, dilation, nsp, kernel):
    """The kernel's own checks, after the shapes: dilation, then the weight's dtype (a
    boolean input has no kernel)."""
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got "
                           f"{[1] * (2 - nsp) + list(dilation)}")
    if x.dtype is D.bool_:
        kernel = "compute_columns3d" if nsp == 3 else kernel
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    if w.dtype is not x.dtype:
        raise RuntimeError(f"expected scalar type {D.SCALAR_NAMES[x.dtype]} but found "
                           f"{D.SCALAR_NAMES[w.dtype]}")


def _conv(input, weight, bias, stride, padding, dilation, groups, nsp, name):
    error = _conv_type_error(name, (input, weight, bias, stride, padding, dilation, groups))
    if error is not None:
        raise error
    _check_conv_dtypes(input, weight, bias)
    unbatched = input.dim() == nsp + 1
    if not unbatched and input.dim() != nsp + 2:
        raise RuntimeError(f"Expected {nsp + 1}D (unbatched) or {nsp + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    x = input.unsqueeze(0) if unbatched else input
    stride, padding, dilation = _check_conv_params(x, weight, bias, stride, padding, dilation,
                                                   groups, nsp)
    _check_conv(x, weight, bias, groups, nsp, name)
    stride, dilation = tuple(stride), tuple(dilation)
    kernel = tuple(weight.shape[2:])
    pads = _conv_padding(padding, x.shape[2:], kernel, dilation, stride, nsp)
    geom = ConvGeom(x.shape[2:], kernel, stride, pads, dilation, groups)
    padded = geom.padded_size()
    eff = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, eff))}). Kernel size can't be greater than "
                           "actual input size")
    _check_conv_kernel(x, weight, dilation, nsp, 'slow_conv2d_cpu')
    out = Convolution.apply(x, weight, bias, geom)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D cross-correlation over (N, C, L) input.

    >>> conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 2))
    tensor([[[2., 2., 2.]]])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation over (N, C, H, W) input.

    >>> conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2)).shape
    torch.Size([1, 1, 2, 2])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D cross-correlation over (N, C, D, H, W) input.

    >>> conv3d(torch.ones(1, 1, 2, 2, 2), torch.ones(1, 1, 2, 2, 2))
    tensor([[[[[8.]]]]])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                    nsp, name):
    for pos, (arg, value) in enumerate((("input", input), ("weight", weight))):
        if not isinstance(value, Tensor):
            raise not_a_tensor(name, value, arg, pos + 1)
    if not (_is_ints(stride) and _is_ints(padding) and _is_ints(output_padding) and
            _is_ints(dilation) and _is_int(groups)):
        raise _conv_transpose_type_error(name, (input, weight, bias, stride, padding,
                                                output_padding, groups, dilation))
    unbatched = input.dim() == nsp + 1
    x = input.unsqueeze(0) if unbatched else input
    if x.dim() != nsp + 2:
        raise RuntimeError(f"Expected {nsp + 1}D (unbatched) or {nsp + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    stride, padding, dilation = _check_conv_params(x, weight, bias, stride, padding, dilation,
                                                   groups, nsp)
    output_padding = _expand_param(_ntuple(nsp)(output_padding), "output_padding", nsp)
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    _check_conv_transpose(x, weight, bias, groups, stride, output_padding, dilation, nsp)
    kernel = tuple(weight.shape[2:])
    size = tuple((n - 1) * s - 2 * p + d * (k - 1) + op + 1 for n, s, p, d, k, op in
                 zip(x.shape[2:], stride, padding, dilation, kernel, output_padding))
    if any(n < 1 for n in size):
        pad = (1,) * (2 - nsp)  # 1-d runs as 2-d with a height of 1
        raise RuntimeError(f"Given input size per channel: "
                           f"({' x '.join(map(str, pad + tuple(x.shape[2:])))}). Calculated "
                           f"output size per channel: ({' x '.join(map(str, pad + size))}). "
                           "Output size is too small")
    _check_conv_kernel(x, weight, (1,), nsp, 'slow_conv_transpose2d_out_cpu')
    if bias is not None and bias.dtype is not x.dtype:  # PyTorch's kernel casts the bias
        bias = bias.to(x.dtype)
    geom = ConvGeom(size, kernel, tuple(stride), tuple((p, p) for p in padding),
                    tuple(dilation), groups, out=x.shape[2:])
    out = ConvTranspose.apply(x, weight, bias, geom)
    return out.squeeze(0) if unbatched else out


_CONV_T_SIGNATURE = ("(Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride "
                     "= 1, tuple of ints padding = 0, tuple of ints output_padding = 0, int "
                     "groups = 1, tuple of ints dilation = 1)")


def _conv_transpose_type_error(name, args):
    """PyTorch's parser error for conv_transpose arguments of the wrong type (``padding=
    'same'``, which it has no overload for). The call is rebuilt as in ``_conv_type_error``:
    the leading given arguments positionally, later ones by keyword; a module's call (stride
    a tuple) passes all eight positionally."""
    from ..ops._arg_errors import bad_call, parse_error
    if isinstance(args[3], tuple):
        return parse_error(name, [_CONV_T_SIGNATURE], args, {})
    names = ("bias", "stride", "padding", "output_padding", "groups", "dilation")
    given = [k for k, (v, d) in enumerate(zip(args[2:], (None, 1, 0, 0, 1, 1)))
             if not (v is d or type(v) is type(d) and v == d)]
    npos = next((k for k in range(6) if k not in given), 6)
    kwargs = {names[k]: args[2 + k] for k in given if k >= npos}
    guess = parse_error(name, [_CONV_T_SIGNATURE], args[:2 + npos], kwargs)
    return bad_call(name, [_CONV_T_SIGNATURE], guess)  # the user's own call, where readable


def _check_conv_transpose(x, w, bias, groups, stride, output_padding, dilation, nsp):
    """The channel and bias checks of a transposed convolution, then its kernel's: dilation
    and output padding (named per dim, 1-d as 2-d with a height of 1)."""
    if x.shape[1] != w.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(w.shape)}, expected "
                           f"input{list(x.shape)} to have {w.shape[0]} channels, but got "
                           f"{x.shape[1]} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != w.shape[1] * groups):
        raise RuntimeError(f"Given transposed=1, weight of size {list(w.shape)}, expected bias "
                           f"to be 1-dimensional with {w.shape[1] * groups} elements, but got "
                           f"bias of size {list(bias.shape)} instead")
    ones = [1] * (2 - nsp)
    dims = ("depth", "height", "width")[3 - max(nsp, 2):]
    stride, output_padding, dilation = ones + stride, [0] * (2 - nsp) + output_padding, \
        ones + dilation
    if any(d <= 0 for d in dilation):
        got = ", ".join(f"dilation_{n}: {d}" for n, d in zip(dims, dilation))
        raise RuntimeError(f"dilation should be greater than zero, but got {got}")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        got = " ".join(f"{what}_{n}: {v}" for what, values in (
            ("output_padding", output_padding), ("stride", stride), ("dilation", dilation))
            for n, v in zip(dims, values))
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, "
                           f"but got {got}")


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 1-D convolution (the gradient of conv1d in its input).

    >>> conv_transpose1d(torch.ones(1, 1, 2), torch.ones(1, 1, 2))
    tensor([[[1., 2., 1.]]])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1, "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-D convolution.

    >>> conv_transpose2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2)).shape
    torch.Size([1, 1, 3, 3])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2, "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 3-D convolution.

    >>> conv_transpose3d(torch.ones(1, 1, 1, 1, 1), torch.ones(1, 1, 2, 2, 2)).shape
    torch.Size([1, 1, 2, 2, 2])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 3, "conv_transpose3d")


class _Im2Col(BuiltinFunction):
    """out (N, C*prod(K), L) = sliding windows;  dx = col2im(g)."""
    _backward_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, x, geom):
        from ..ops.conv import im2col
        ctx.geom = geom
        L = geom.out_size()
        cols = im2col(x, geom, L)
        if not cols.flags.writeable:  # a 1x1 kernel's windows are x itself (a read-only view)
            cols = cols.copy()
        # explicit sizes: an empty batch leaves -1 undetermined
        return cols.reshape(x.shape[0], x.shape[1] * int(np.prod(geom.kernel)),
                            int(np.prod(L)))

    @staticmethod
    def backward(ctx, g):
        return _Col2Im.apply(g, ctx.geom), None


class _Col2Im(BuiltinFunction):
    """out = sum of the columns back into image positions;  dcols = im2col(g)."""
    _backward_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, cols, geom):
        from ..ops.conv import col2im
        ctx.geom = geom
        L = geom.out_size()
        n = cols.shape[0]
        c = cols.shape[1] // int(np.prod(geom.kernel))
        return col2im(cols.reshape((n, c) + geom.kernel + L), geom)

    @staticmethod
    def backward(ctx, g):
        return _Im2Col.apply(g, ctx.geom), None


def _im2col_pair(value, name):
    """An im2col / col2im size argument as a pair (an int repeats), or PyTorch's error."""
    t = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(t) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(t)}")
    return t


def _im2col_args(kernel_size, dilation, padding, stride, fold):
    """(k, dil, pad, st) pairs checked positive (padding non-negative) in PyTorch's order."""
    k, dil, pad, st = (_im2col_pair(v, n) for v, n in (
        (kernel_size, "kernel_size"), (dilation, "dilation"), (padding, "padding"),
        (stride, "stride")))
    checks = [(min(k) > 0, f"kernel size should be greater than zero, but got kernel_height: "
                           f"{k[0]} kernel_width: {k[1]}"),
              (min(dil) > 0, f"dilation should be greater than zero, but got dilation_height: "
                             f"{dil[0]} dilation_width: {dil[1]}"),
              (min(pad) >= 0, f"padding should be non-negative, but got pad_height: {pad[0]} "
                              f"pad_width: {pad[1]}"),
              (min(st) > 0, f"stride should be greater than zero, but got stride_height: "
                            f"{st[0]} stride_width: {st[1]}")]
    if fold:  # col2im checks the stride second
        checks.insert(1, checks.pop())
    for ok, message in checks:
        if not ok:
            raise RuntimeError(message)
    return k, dil, pad, st


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of (N, C, H, W) as columns (N, C*kh*kw, L).

    >>> unfold(torch.ones(1, 1, 3, 3), 2).shape
    torch.Size([1, 4, 4])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("im2col", input)
    k, dil, pad, st = _im2col_args(kernel_size, dilation, padding, stride, False)
    # NOTE: PyTorch reads sizes 1 and 2 before it checks the dims (an IndexError below 3-D)
    nonzero = input.size(1) != 0 and input.size(2) != 0
    if not ((input.dim() == 3 and input.size(0) != 0 and nonzero) or
            (input.dim() == 4 and nonzero and input.size(3) != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    blocks = tuple((n + 2 * p - d * (kk - 1) - 1) // s + 1
                   for n, kk, s, p, d in zip(x.shape[2:], k, st, pad, dil))
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(x.shape[2:])}, kernel_size="
                           f"{k}, dilation={dil}, padding={pad}, calculated shape of the array "
                           f"of sliding blocks as {blocks}, but its components must be at "
                           "least one.")
    if x.dtype.category == D._INT:  # (bool, floating and complex kernels exist)
        _float_kernel("im2col_out_cpu", x)
    geom = ConvGeom(x.shape[2:], k, st, tuple((p, p) for p in pad), dil, 1)
    out = _Im2Col.apply(x, geom)
    return out if batched else out.squeeze(0)


def _check_col2im(input, out_size, k, dil, pad, st):
    """PyTorch's col2im shape checks: (C*kh*kw, L) columns, L the number of blocks."""
    d = input.dim()
    if not ((d == 2 and input.size(0) != 0 and input.size(1) != 0) or
            (d == 3 and input.size(1) != 0 and input.size(2) != 0)):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    planes, length = input.shape[-2:]
    if planes % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={planes} and "
                           f"kernel_size={k}.")
    blocks = [(n + 2 * p - di * (kk - 1) - 1) // s + 1
              for n, kk, s, p, di in zip(out_size, k, st, pad, dil)]
    given = (f"Given output_size={out_size}, kernel_size={k}, dilation={dil}, padding={pad}, "
             f"stride={st}, ")
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(f"{given}expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    if min(blocks) < 1:
        raise RuntimeError(f"{given}calculated shape of the array of sliding blocks as "
                           f"{tuple(blocks)}, which is invalid.")


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum columns (N, C*kh*kw, L) back into an (N, C, H, W) image (the adjoint of unfold).

    >>> fold(torch.ones(1, 4, 4), (3, 3), 2)[0, 0]
    tensor([[1., 2., 1.],
            [2., 4., 2.],
            [1., 2., 1.]])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("col2im", input)
    out_size = _im2col_pair(output_size, "output_size")
    k, dil, pad, st = _im2col_args(kernel_size, dilation, padding, stride, True)
    _check_col2im(input, out_size, k, dil, pad, st)
    if input.dtype.category == D._INT:  # (bool, floating and complex kernels exist)
        _float_kernel("col2im_out_cpu", input)
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    geom = ConvGeom(out_size, k, st, tuple((p, p) for p in pad), dil, 1)
    out = _Col2Im.apply(x, geom)
    return out if batched else out.squeeze(0)


# ---- pooling -----------------------------------------------------------------------------
def _pool_out(size, k, s, p, d, ceil_mode):
    """PyTorch's pooling output length (ceil mode drops a window starting in the padding)."""
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


_HOW_MANY = {2: "two", 3: "three"}


def _pool_tuple(value, nsp, what, name, omitted=""):
    """``value`` as an ``nsp``-tuple: an int or a 1-sequence repeats (PyTorch's rule)."""
    t = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if len(t) == 1:
        return t * nsp
    if len(t) == nsp:
        return t
    # NOTE: PyTorch's avg_pool3d words its messages without "either"
    must = "be" if name == "avg_pool3d" else "either be"
    if what == "dilation":
        must = "be either"
    raise RuntimeError(f"{name}: {what} must {must} {omitted}a single int, or a tuple of "
                       f"{_HOW_MANY[nsp]} ints")


def _pool_geom(x, kernel_size, stride, padding, dilation, ceil_mode, nsp, name):
    k = _pool_tuple(kernel_size, nsp, "kernel_size", name)
    s = k if stride is None or stride == [] or stride == () else _pool_tuple(
        stride, nsp, "stride", name, "omitted, ")
    p = _pool_tuple(padding, nsp, "padding", name)
    d = _pool_tuple(dilation, nsp, "dilation", name)
    for pi, ki, si, di in zip(p, k, s, d):  # PyTorch's pooling_output_shape, per dim
        if si == 0:
            raise RuntimeError("stride should not be zero")
        if pi < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {pi}")
        if pi > (di * (ki - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pi}, kernel_size={ki} and dilation={di}")
    sizes = x.shape[x.dim() - nsp:]
    L = tuple(_pool_out(n, ki, si, pi, di, ceil_mode) for n, ki, si, pi, di in
              zip(sizes, k, s, p, d))
    _check_pool_shape(x, k, s, d, nsp, name)
    if any(n <= 0 for n in L):
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, x.shape[-nsp - 1:]))}). "
                           f"Calculated output size: "
                           f"({'x'.join(map(str, (x.shape[-nsp - 1],) + L))}). "
                           "Output size is too small")
    pads = tuple((pi, max((li - 1) * si + di * (ki - 1) + 1 - n - pi, 0)) for
                 pi, li, si, di, ki, n in zip(p, L, s, d, k, sizes))
    return P.PoolGeom(sizes, k, s, pads, d), p


def _check_pool_shape(x, k, s, d, nsp, name):
    """PyTorch's pool{2,3}d_shape_check: kernel, stride and dilation positive (named per
    dim), avg_pool3d's input at least its kernel."""
    dims = ("T", "H", "W")[3 - nsp:]
    for what, values in (("kernel size", k), ("stride", s), ("dilation", d)):
        if any(v <= 0 for v in values):
            prefix = {"kernel size": "k", "stride": "d", "dilation": "dilation"}[what]
            got = " ".join(f"{prefix}{n}: {v}" for n, v in zip(dims, values))
            raise RuntimeError(f"{what} should be greater than zero, but got {got}")
    shape = list(x.shape)
    if nsp == 2 and 0 in shape[1:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{shape}")
    if nsp == 3 and 0 in shape[x.dim() - 4:]:
        fn = "max_pool3d_with_indices_out_cpu_template" if name == "max_pool3d" else name
        # NOTE: PyTorch prints the empty dim's size (0) where it means to name the dim
        raise RuntimeError(f"{fn}(): Expected input's non-batch dimensions to have positive "
                           f"length, but input has a shape of {shape} and non-batch dimension "
                           "0 has length zero!")
    sizes = x.shape[x.dim() - nsp:]
    if name == "avg_pool3d" and any(n < ki for n, ki in zip(sizes, k)):
        raise RuntimeError(f"input image (T: {sizes[0]} H: {sizes[1]} W: {sizes[2]}) smaller "
                           f"than kernel size (kT: {k[0]} kH: {k[1]} kW: {k[2]})")


def _check_pool_dims(x, nsp, name):
    """The input's number of dims, worded as each of PyTorch's pooling kernels words it."""
    if not isinstance(x, Tensor):
        raise not_a_tensor(name, x)
    nd = x.dim()
    if nd in (nsp + 1, nsp + 2):
        return
    if name == "avg_pool1d":
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for "
                           "argument #1 'self' (while checking arguments for avg_pool1d)")
    if name == "avg_pool2d":
        if nd < 3:
            wrap_dim(-3, nd)
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(x.shape)}")
    if name in ("max_pool2d", "max_pool3d", "avg_pool3d"):
        raise RuntimeError(f"non-empty {nsp + 1}D or {nsp + 2}D (batch mode) tensor expected "
                           "for input")
    raise RuntimeError(f"{name}: Expected {nsp + 1}D or {nsp + 2}D input, but got input of "
                       f"size: {list(x.shape)}")


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """PyTorch's own checks of max_pool1d without indices (its words, not max_pool2d's);
    returns the (kernel, stride, padding, dilation) ints."""
    if not isinstance(input, Tensor):
        raise not_a_tensor("max_pool1d", input)
    nd, shape = input.dim(), input.shape
    if not (nd == 2 and shape[0] and shape[1] or nd == 3 and shape[1] and shape[2]):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(shape)}")
    values = {}
    for what, v, article in (("kernel_size", kernel_size, ""), ("stride", stride, "None, "),
                             ("padding", padding, ","), ("dilation", dilation, "")):
        t = list(v) if isinstance(v, (tuple, list)) else [v]
        if len(t) != 1 and not (what == "stride" and not t):
            sep = "," if what in ("stride", "padding") else ""
            lead = "None, " if what == "stride" else ""
            raise RuntimeError(f"max_pool1d() {what} must be {lead}an int, list of ints{sep} or "
                               f"tuple of ints of size 1 but got size {len(t)}")
        values[what] = t[0] if t else None
    k, st, p, d = values["kernel_size"], values["stride"], values["padding"], values["dilation"]
    st = k if st is None else st
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if st <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {st}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = _pool_out(shape[-1], k, st, p, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    if input.dtype.category not in (D._FLOAT,):
        raise NotImplementedError(f'"max_pool1d_impl" not implemented for '
                                  f"'{D.SCALAR_NAMES[input.dtype]}'")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of (N, C, H, W) (indices are flat per-plane positions).

    >>> max_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     2)


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nsp):
    _check_pool_dims(input, nsp, f"max_pool{nsp}d")
    geom, orig = _pool_geom(input, kernel_size, stride, padding, dilation, ceil_mode, nsp,
                            f"max_pool{nsp}d")
    if input.dtype is D.bool_:
        raise NotImplementedError(f'"max_pool{nsp}d" not implemented for \'Bool\'')
    cls = P.named(P.MaxPool, f"MaxPool{nsp}DWithIndicesBackward0")
    # NOTE: without indices the op returns the values alone and skips the flat-index
    # arithmetic (its backward needs only each window's kernel offset)
    out = cls.apply(input, geom, bool(return_indices))
    return P.keep_args(out, kernel_size=geom.kernel, stride=_shown_stride(stride, geom),
                       padding=orig, dilation=geom.dilation, ceil_mode=bool(ceil_mode))


def _shown_stride(stride, geom):
    """A pooling stride as PyTorch's node keeps it: () where none was given."""
    return () if stride is None or stride == [] or stride == () else geom.stride


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of (N, C, L).

    >>> max_pool1d(torch.tensor([[[1., 3., 2., 4.]]]), 2)
    tensor([[[3., 4.]]])
    """
    if return_indices:
        _check_pool_dims(input, 1, "max_pool1d")
    else:
        _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    one = lambda v: (1,) + _single(v)
    # (PyTorch's 1-d pool passes its kernel as the stride when none is given)
    st = one(kernel_size) if stride is None or stride == [] else one(stride)
    res = _max_pool(input.unsqueeze(-2), one(kernel_size), st, (0,) + _single(padding),
                    one(dilation), ceil_mode, return_indices, 2)
    if return_indices:
        return res[0].squeeze(-2), res[1].squeeze(-2)
    return res.squeeze(-2)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of (N, C, D, H, W).

    >>> max_pool3d(torch.ones(1, 1, 2, 2, 2), 2).shape
    torch.Size([1, 1, 1, 1, 1])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     3)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Place values back at their max_pool1d indices (zeros elsewhere)."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Place values back at their max_pool2d indices (zeros elsewhere).

    >>> x, i = max_pool2d(torch.arange(4.).reshape(1, 1, 2, 2), 2, return_indices=True)
    >>> max_unpool2d(x, i, 2)
    tensor([[[[0., 0.],
              [0., 3.]]]])
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Place values back at their max_pool3d indices (zeros elsewhere).

    >>> x, i = max_pool3d(torch.arange(8.).reshape(1, 1, 2, 2, 2), 2, return_indices=True)
    >>> max_unpool3d(x, i, 2).flatten()
    tensor([0., 0., 0., 0., 0., 0., 0., 7.])
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool1d` returning (values, indices) whatever ``return_indices``."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool2d` returning (values, indices) whatever ``return_indices``.

    >>> max_pool2d_with_indices(torch.arange(4.).reshape(1, 1, 2, 2), 2)[1]
    tensor([[[[3]]]])
    """
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool3d` returning (values, indices) whatever ``return_indices``."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _unpool_output_size(input, k, s, p, output_size):
    """The spatial output size of a max_unpool: the pooling's input size by default, or
    ``output_size`` checked to lie strictly within a stride of it."""
    nsp = len(k)
    sizes = input.shape[input.dim() - nsp:]
    default = [(n - 1) * si + ki - 2 * pi for n, si, pi, ki in zip(sizes, s, p, k)]
    if output_size is None:
        return default
    if len(output_size) == nsp + 2:
        output_size = output_size[2:]
    if len(output_size) != nsp:
        raise ValueError(f"output_size should be a sequence containing {nsp} or {nsp + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for d in range(nsp):
        lo, hi = default[d] - s[d], default[d] + s[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f'{lo} and {hi})')
    return [int(n) for n in output_size]


def _check_unpool_input(x, i, kdims):
    """PyTorch's max_unpooling{2,3}d kernel checks on the input and its indices."""
    name = f"max_unpooling{kdims}d"
    if x.dim() not in (kdims + 1, kdims + 2):
        raise RuntimeError(f"Input to {name} should be a {kdims + 1}d or {kdims + 2}d Tensor, "
                           f"but got a tensor with {x.dim()} dimensions.")
    if tuple(i.shape) != tuple(x.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(x.shape)}) but got indices tensor with shape: "
                           f"{list(i.shape)}")
    for d in range(x.dim() - kdims - 1, x.dim()):
        if x.shape[d] == 0:
            raise RuntimeError(f"{name}_forward_out_cpu(): Expected input to have non-zero "
                               f"size for non-batch dimensions, but got {list(x.shape)} with "
                               f"dimension {d} being empty.")
    _floating_only(x, f"max_unpool{kdims}d")


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, nsp):
    tup = _ntuple(nsp)
    k = tup(kernel_size)
    s = tup(stride) if stride is not None else k
    p = tup(padding)
    size = _unpool_output_size(input, k, s, p, output_size)
    if isinstance(indices, Tensor) and indices.dtype is not D.int64:
        # NOTE: PyTorch's 3-d kernel does not name the dtype it got
        raise RuntimeError("elements in indices should be type int64" + (
            f" but got: {D.SCALAR_NAMES[indices.dtype]}" if nsp < 3 else ""))
    # PyTorch runs a 1-d unpool as a 2-d one on a trailing dim of 1 (its errors say so)
    x, i = (input.unsqueeze(-1), indices.unsqueeze(-1)) if nsp == 1 else (input, indices)
    size = size + [1] if nsp == 1 else size
    kdims = max(nsp, 2)
    _check_unpool_input(x, i, kdims)
    idx = i._data
    n_out = int(np.prod(size))
    bad = (idx < 0) | (idx >= n_out)
    if n_out and bad.any():  # PyTorch reads no index for an empty output
        raise RuntimeError(f"Found an invalid max index: {idx[bad].flat[0]} (output volumes "
                           f"are of size {'x'.join(map(str, size))})")
    batched = x.dim() == kdims + 2
    if not batched:
        x, i = x.unsqueeze(0), i.unsqueeze(0)
    out_shape = tuple(x.shape[:2]) + tuple(size)
    out = P.named(P.MaxUnpool, f"MaxUnpool{kdims}DBackward0").apply(x, i, out_shape)
    out = out if batched else out.squeeze(0)
    return out.squeeze(-1) if nsp == 1 else out


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override, nsp):
    _check_pool_dims(input, nsp, f"avg_pool{nsp}d")
    if input.dtype.category != D._FLOAT and input.dtype is not D.int64:
        kernel = "avg_pool2d" if nsp == 2 else "avg_pool3d_out_frame"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{D.SCALAR_NAMES[input.dtype]}'")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    geom, orig = _pool_geom(input, kernel_size, stride, padding, 1, ceil_mode, nsp,
                            f"avg_pool{nsp}d")
    div = P.avg_divisor(geom, orig, count_include_pad, divisor_override, input._data.dtype)
    out = P.named(P.WindowSum, f"AvgPool{nsp}DBackward0").apply(input, geom, div)
    return P.keep_args(out, kernel_size=geom.kernel, stride=_shown_stride(stride, geom),
                       padding=orig, ceil_mode=bool(ceil_mode),
                       count_include_pad=bool(count_include_pad),
                       divisor_override=divisor_override)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over sliding windows of (N, C, H, W).

    >>> avg_pool2d(torch.arange(4.).reshape(1, 1, 2, 2), 2)
    tensor([[[[1.5000]]]])
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over sliding windows of (N, C, D, H, W).

    >>> avg_pool3d(torch.ones(1, 1, 2, 2, 2), 2)
    tensor([[[[[1.]]]]])
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 3)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over sliding windows of (N, C, L).

    >>> avg_pool1d(torch.tensor([[[1., 3., 2., 4.]]]), 2)
    tensor([[[2., 3.]]])
    """
    _check_pool_dims(input, 1, "avg_pool1d")
    for what, v in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding)):
        if isinstance(v, (tuple, list)) and len(v) > 1:
            raise RuntimeError(f"avg_pool1d() argument '{what}' should contain one int "
                               f"(got {len(v)})")
    one = lambda v: (1,) + _single(v)
    # (PyTorch's 1-d pool passes its kernel as the stride when none is given)
    st = one(kernel_size) if stride is None or stride == [] or stride == () else one(stride)
    out = _avg_pool(input.unsqueeze(-2), one(kernel_size), st, (0,) + _single(padding),
                    ceil_mode, count_include_pad, None, 2)
    return out.squeeze(-2)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over windows of x^p)^(1/p) for (N, C, L).

    >>> lp_pool1d(torch.tensor([[[3., 4.]]]), 2, 2)
    tensor([[[5.]]])
    """
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over windows of x^p)^(1/p) for (N, C, H, W).

    >>> lp_pool2d(torch.ones(1, 1, 2, 2), 1, 2)
    tensor([[[[4.]]]])
    """
    kw, kh = _pair(kernel_size)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over windows of x^p)^(1/p) for (N, C, D, H, W) (p = inf: max of |x|).

    >>> lp_pool3d(torch.ones(1, 1, 2, 2, 2), 1, 2)
    tensor([[[[[8.]]]]])
    """
    kd, kw, kh = _triple(kernel_size)
    if norm_type == float("inf"):
        return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kd * kw * kh).pow(1.0 / norm_type)


def _adaptive_sizes(x, output_size, nsp):
    """``output_size`` with its Nones filled from ``x`` (PyTorch's _list_with_default)."""
    if not isinstance(output_size, (tuple, list)):
        return _ntuple(nsp)(output_size)
    if x.dim() <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    sizes = x.shape[x.dim() - len(output_size):]
    return tuple(s if o is None else o for s, o in zip(sizes, output_size))


def _adaptive_1d(input, output_size, name):
    """Checks of the 1-d adaptive pools (PyTorch's argument checker words them)."""
    if not isinstance(input, Tensor):
        raise not_a_tensor(name, input)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {name})")
    if name == "adaptive_max_pool1d" and 0 in input.shape[1:]:
        shape = list(input.shape)
        raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                           f"dimensions, but input has sizes {shape} with dimension "
                           f"{shape.index(0, 1)} being empty")
    if isinstance(output_size, (tuple, list)) and len(output_size) != 1:
        raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got "
                           f"{len(output_size)})")
    return (1,) + _single(output_size)


def _check_adaptive(input, out, nsp, kind):
    """PyTorch's checks of adaptive_{avg,max}_pool{2,3}d in each kernel's order and words."""
    name, nd, shape = f"adaptive_{kind}_pool{nsp}d", input.dim(), list(input.shape)
    if kind == "avg":
        if len(out) != nsp:
            raise RuntimeError(f"{name}: output_size must be {nsp}")
        if any(o < 0 for o in out):
            got = ", ".join(map(str, out[:2])) + "".join(f",{o}" for o in out[2:])
            raise RuntimeError(f"{name}: elements of output_size must be greater than or equal "
                               f"to 0 but received {{{got}}}")
    if nd not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"{name}(): Expected {nsp + 1}D or {nsp + 2}D tensor, but got"
                           f"{':' if kind == 'max' else ''} {shape}")
    for i in range(nd - nsp if kind == "avg" and nsp == 2 else 1, nd):
        if shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {shape} with dimension {i} "
                               "being empty")
    if kind == "max":
        if len(out) != nsp:
            raise RuntimeError(f"{name}(): internal error: output_size.size() must be {nsp}")
        if any(o < 0 for o in out):
            full = shape[:nd - nsp] + list(out)
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{next(o for o in out if o < 0)}: {full}")
    if input.dtype.category != D._FLOAT and (kind == "max" or tuple(out) != (1,) * nsp
                                             and input.numel()):
        kernel = name + "_cpu" if nsp == 3 else name
        if nsp == 2 and nd == 4 and kind == "avg" and not input.is_contiguous() and \
                input.is_contiguous(memory_format=_channels_last):
            kernel += "_channels_last"  # the kernel PyTorch picks for that layout
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{D.SCALAR_NAMES[input.dtype]}'")


def _adaptive_avg(input, output_size, nsp):
    input.size()  # PyTorch's wrapper reads it first (a non-tensor's AttributeError)
    out = _adaptive_sizes(input, output_size, nsp)
    _check_adaptive(input, out, nsp, "avg")
    if tuple(out) == (1,) * nsp:   # PyTorch takes the mean here (MeanBackward1), dims (-1, -2)
        return input.mean(tuple(range(-1, -nsp - 1, -1)), keepdim=True)
    return P.named(P.AdaptiveAvgPool, f"AdaptiveAvgPool{nsp}DBackward0").apply(input,
                                                                              tuple(out))


def adaptive_avg_pool2d(input, output_size):
    """Average over adaptive windows giving an ``output_size`` plane.

    >>> adaptive_avg_pool2d(torch.arange(4.).reshape(1, 1, 2, 2), 1)
    tensor([[[[1.5000]]]])
    """
    return _adaptive_avg(input, output_size, 2)


def adaptive_avg_pool3d(input, output_size):
    """Average over adaptive windows giving an ``output_size`` volume."""
    return _adaptive_avg(input, output_size, 3)


def adaptive_avg_pool1d(input, output_size):
    """Average over adaptive windows giving ``output_size`` positions.

    >>> adaptive_avg_pool1d(torch.tensor([[[1., 3., 2., 4.]]]), 2)
    tensor([[[2., 3.]]])
    """
    out = _adaptive_1d(input, output_size, "adaptive_avg_pool1d")
    return _adaptive_avg(input.unsqueeze(-2), out, 2).squeeze(-2)


def _adaptive_max(input, output_size, return_indices, nsp):
    input.size()  # PyTorch's wrapper reads it first (a non-tensor's AttributeError)
    out_size = _adaptive_sizes(input, output_size, nsp)
    _check_adaptive(input, out_size, nsp, "max")
    cls = P.named(P.AdaptiveMaxPool, f"AdaptiveMaxPool{nsp}DBackward0")
    out, idx = cls.apply(input, out_size)
    return (out, idx) if return_indices else out


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over adaptive windows giving an ``output_size`` plane.

    >>> adaptive_max_pool2d(torch.arange(4.).reshape(1, 1, 2, 2), 1)
    tensor([[[[3.]]]])
    """
    return _adaptive_max(input, output_size, return_indices, 2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max over adaptive windows giving ``output_size`` positions.

    >>> adaptive_max_pool1d(torch.tensor([[[1., 3., 2., 4.]]]), 2)
    tensor([[[3., 4.]]])
    """
    out = _adaptive_1d(input, output_size, "adaptive_max_pool1d")
    out, idx = _adaptive_max(input.unsqueeze(-2), out, True, 2)
    out = out.squeeze(-2)
    return (out, idx.squeeze(-2)) if return_indices else out


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max over adaptive windows giving an ``output_size`` volume."""
    return _adaptive_max(input, output_size, return_indices, 3)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool1d` returning (values, indices)."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool2d` returning (values, indices).

    >>> adaptive_max_pool2d_with_indices(torch.arange(4.).reshape(1, 1, 2, 2), 1)[1]
    tensor([[[[3]]]])
    """
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool3d` returning (values, indices)."""
    return adaptive_max_pool3d(input, output_size, True)


def _int_list(value, n, op, name, pos):
    """``value`` (an int or a sequence of ints) as an n-tuple, with PyTorch's argument errors."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * n
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be tuple of ints, "
                        f"not {type(value).__name__}")
    for i, v in enumerate(value):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be tuple of "
                            f"ints, but found element of type {type(v).__name__} at pos {i}")
    return tuple(int(v) for v in value)


def _fractional_checks(input, kernel, out_size, nsp, op):
    """The shape checks of ATen's fractional_max_pool{2,3}d, in its order and words."""
    name = "fractional_max_pool2d()" if nsp == 2 else "fractional_max_pool3d_out()"
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"{name}: Expected {nsp + 1}D or {nsp + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for i in range(1, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError(f"{name}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {i} "
                               "being empty.")
    dims = ("height", "width") if nsp == 2 else ("time", "width", "height")
    order = (0, 1) if nsp == 2 else (0, 2, 1)
    for d, label in zip(order, dims):
        n, k, o = input.shape[input.dim() - nsp + d], kernel[d], out_size[d]
        if (o + k - 1 > n) if nsp == 2 else (o + k - 1 >= n):
            raise RuntimeError(f"{name}: pool {label} {k} too large relative to input "
                               f"{label} {n}")


def _check_samples(input, samples, nsp):
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    batched = input.dim() == nsp + 2
    if samples.shape[0] < (input.shape[0] if batched else 1):
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[-nsp - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nsp:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nsp}; got "
                           f"{samples.shape[2]}.")


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                         _random_samples, nsp):
    from .._creation import rand
    op = f"fractional_max_pool{nsp}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nsp == 2 and len(output_ratio) > 2:
            raise ValueError(f"{op} requires output_ratio to either be a single Int or tuple "
                             "of Ints.")
        ratio = _ntuple(nsp)(output_ratio)
        output_size = [int(input.size(d - nsp) * ratio[d]) for d in range(nsp)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == nsp + 1 else input.size(0)
        _random_samples = rand(n_batch, input.size(-nsp - 1), nsp, dtype=input.dtype)
    kernel = _int_list(kernel_size, nsp, op, "kernel_size", 2)
    out_size = _int_list(output_size, nsp, op, "output_size", 3)
    many = "tuple of Ints" if nsp == 2 else "tuple of three Ints"
    if len(kernel) != nsp:
        raise RuntimeError(f"{op}: kernel_size must either be a single Int or {many}")
    if len(out_size) != nsp:
        raise RuntimeError(f"{op}: output_size must either be a single Int or {many}")
    _fractional_checks(input, kernel, out_size, nsp, op)
    _check_samples(input, _random_samples, nsp)
    if not input.dtype.is_floating_point:
        from .._random import _tname
        raise NotImplementedError(f"\"{op}_out_frame\" not implemented for "
                                  f"'{_tname(input._data.dtype)}'")
    cls = P.named(P.FractionalMaxPool, f"FractionalMaxPool{nsp}DBackward0")
    out, idx = cls.apply(input, _random_samples._data, kernel, out_size)
    return (out, idx) if return_indices else out


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max over ``kernel_size`` windows at pseudo-random steps giving ``output_size`` (or
    ``output_ratio`` of the input), from ``_random_samples`` (N, C, 2) in [0, 1) or fresh
    ``torch.rand`` draws (Graham, "Fractional Max-Pooling").

    >>> u = torch.tensor([[[0.5, 0.5]]])
    >>> fractional_max_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2, output_size=2,
    ...                       _random_samples=u)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                                _random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool2d` over (N, C, T, H, W), ``_random_samples`` (N, C, 3).

    >>> torch.manual_seed(0)  # doctest: +ELLIPSIS
    <...>
    >>> fractional_max_pool3d(torch.ones(1, 1, 5, 5, 5), 2, output_ratio=0.5).shape
    torch.Size([1, 1, 2, 2, 2])
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                                _random_samples, 3)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool2d` returning (values, indices) whatever ``return_indices``."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool3d` returning (values, indices) whatever ``return_indices``."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


# ---- normalisation -----------------------------------------------------------------------
def _verify_batch_size(size):
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{size}")


def _data_or_none(t):
    return None if t is None else t._data


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) by batch (training) or running statistics.

    >>> batch_norm(torch.tensor([[1.0], [3.0]]), None, None, training=True)
    tensor([[-1.0000],
            [ 1.0000]])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("batch_norm", input)
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                       eps)


def _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps):
    """batch_norm past its Python-level checks (``torch.native_batch_norm`` starts here)."""
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean must be defined in evaluation mode")
    # NOTE: PyTorch reads a 1-d input's channel count as 0 (every 1-d call but an empty
    # one with empty statistics fails its size check)
    c = input.shape[1] if input.dim() > 1 else 0
    # (PyTorch checks the running statistics first, then weight and bias)
    for t, what in ((running_mean, "running_mean"), (running_var, "running_var"),
                    (weight, "weight"), (bias, "bias")):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{what} should contain {c} elements not {t.numel()}")
    if input.dtype.category != D._FLOAT:
        raise NotImplementedError(f'"batch_norm" not implemented for '
                                  f"'{D.SCALAR_NAMES[input.dtype]}'")
    _check_norm_dtypes(input, (weight, bias, running_mean, running_var))
    x = input.unsqueeze(0) if input.dim() == 1 else input  # (0,) with empty statistics
    out = N.NativeBatchNorm.apply(x, weight, bias, _data_or_none(running_mean),
                                  _data_or_none(running_var), training, momentum, eps)
    out = out.squeeze(0) if input.dim() == 1 else out
    if training:
        for t in (running_mean, running_var):
            if t is not None:
                t._vc[0] += 1
    return out


def _check_norm_dtypes(input, params, kernel=None):
    """The CPU norm kernels' dtype rules: parameters share the input's dtype, except float
    parameters for a half input; an integer input has no ``kernel``."""
    dt = input.dtype
    for p in params:
        if p is not None and p.dtype is not dt and not (
                p.dtype is D.float32 and dt is D.float16):
            if dt is D.float32:
                raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type "
                                   "of Float")
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if kernel is not None and dt.category != D._FLOAT:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{D.SCALAR_NAMES[dt]}'")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift.

    >>> layer_norm(torch.tensor([[1.0, 3.0]]), (2,))
    tensor([[-1.0000,  1.0000]])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("layer_norm", input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    k = len(shape)
    if tuple(input.shape[input.dim() - k:]) != shape or input.dim() < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    _check_norm_dtypes(input, (weight, bias), "LayerNormKernelImpl")
    _check_norm_param_shapes(shape, weight=weight, bias=bias)
    return N.NativeLayerNorm.apply(input, weight, bias, k, eps)


def _check_norm_param_shapes(shape, **params):
    """layer_norm / rms_norm: each affine parameter has exactly ``normalized_shape``."""
    for name, p in params.items():
        if p is not None and tuple(p.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(p.shape)} and normalized_shape = "
                               f"{list(shape)}")


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise over each group of channels (and all spatial positions) per sample.

    >>> group_norm(torch.tensor([[1.0, 3.0]]), 1)
    tensor([[-1.0000,  1.0000]])
    """
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    c = input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    if weight is not None and (weight.dim() != 1 or weight.numel() != c):
        raise RuntimeError(f"Expected weight to be a vector of size equal to the number of "
                           f"channels in input, but got weight of shape {list(weight.shape)} "
                           f"and input of shape {list(input.shape)}")
    _check_norm_dtypes(input, (weight, bias), "GroupNormKernelImpl")
    return N.NativeGroupNorm.apply(input, weight, bias, num_groups, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each (sample, channel) plane over its spatial positions.

    >>> instance_norm(torch.tensor([[[1.0, 3.0]]]))
    tensor([[[-1.0000,  1.0000]]])
    """
    if use_input_stats:
        sizes = input.size()
        prod = 1
        for s in sizes[2:]:
            prod *= s
        if prod == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {sizes}")
    b, c = input.shape[:2]
    rep = lambda t: None if t is None else t.repeat(b)
    rm, rv = rep(running_mean), rep(running_var)
    x = input.contiguous().view((1, b * c) + tuple(input.shape[2:]))
    out = batch_norm(x, rm, rv, rep(weight), rep(bias), use_input_stats, momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(rm.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(rv.view(b, c).mean(0))
    return out.view(input.shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2) + eps) over the trailing dims, times ``weight``.

    >>> rms_norm(torch.tensor([[3.0, 4.0]]), (2,))
    tensor([[0.8485, 1.1314]])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("rms_norm", input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    k = len(shape)
    if input.dim() < k:
        raise ValueError(f"Input tensor must have at least {k} dimensions, but got "
                         f"{input.dim()}")
    if tuple(input.shape[input.dim() - k:]) != shape:
        # NOTE: PyTorch's rms_norm message has no ", " after the "*" (layer_norm's has)
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    _check_norm_param_shapes(shape, weight=weight)
    _floating_only(input, "rms_norm")
    dims = tuple(range(input.dim() - k, input.dim()))
    x = input.float() if input.dtype in (D.float16,) else input
    if weight is not None and weight.dtype != input.dtype and "rms_norm dtype" not in _WARNED:
        # PyTorch has no fused kernel for mixed dtypes: it warns (once, TORCH_WARN_ONCE)
        _WARNED.add("rms_norm dtype")
        warnings.warn(f"Mismatch dtype between input and weight: input dtype = "
                      f"{D.CPP_NAMES[input.dtype]}, weight dtype = {D.CPP_NAMES[weight.dtype]}, "
                      "Cannot dispatch to fused implementation. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/layer_norm.cpp:346.)",
                      UserWarning, stacklevel=2)
    if eps is None:   # the math type's: float32's for float16 input
        eps = float(np.finfo(x._data.dtype).eps)
    # NOTE: the weight multiplies in the math type (or the weight's wider dtype) before the
    # one cast back to the input's dtype, as PyTorch
    out = x * E.AddScalar.apply(x.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    return (out * weight if weight is not None else out).to(input.dtype)


# ---- torch.native_* normalisation: the output and the statistics kept for backward --------
def _stat(array):
    return _make(np.ascontiguousarray(array), None, False)


def _native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``torch.native_layer_norm``: (out, mean, rstd), the statistics shaped
    ``input.shape[:-k] + (1,) * k`` and not differentiable (as PyTorch).

    >>> out, mean, rstd = _native_layer_norm(torch.tensor([[1.0, 3.0]]), (2,), None, None, 0.)
    >>> mean, rstd
    (tensor([[2.]]), tensor([[1.]]))
    """
    out = layer_norm(input, normalized_shape, weight, bias, eps)
    x = input._data
    k = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    mean, var = N.moments(x, tuple(range(x.ndim - k, x.ndim)))[:2]
    return out, _stat(mean), _stat((1.0 / np.sqrt(var + eps)).astype(x.dtype))


def _native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                      eps):
    """``torch.native_batch_norm``: (out, save_mean, save_invstd) per channel; in
    evaluation mode the saved statistics are empty (PyTorch's CPU kernel).

    >>> out, mean, invstd = _native_batch_norm(torch.tensor([[1.0], [3.0]]), None, None,
    ...                                       None, None, True, 0.1, 0.)
    >>> mean, invstd
    (tensor([2.]), tensor([1.]))
    """
    x = input._data
    out = _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        empty = np.zeros((0,), x.dtype)
        return out, _stat(empty), _stat(empty)
    mean, var, _ = N.moments(x, (0,) + tuple(range(2, x.ndim)))
    invstd = (1.0 / np.sqrt(var + eps)).astype(x.dtype)
    return out, _stat(mean.reshape(-1)), _stat(invstd.reshape(-1))


def _native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """``torch.native_group_norm``: (out, mean, rstd), the statistics (N, group) and, as in
    PyTorch, differentiable.

    >>> out, mean, rstd = _native_group_norm(torch.tensor([[1.0, 3.0]]), None, None, 1, 2, 1,
    ...                                     1, 0.)
    >>> mean, rstd
    (tensor([[2.]]), tensor([[1.]]))
    """
    out = group_norm(input, group, weight, bias, eps)
    xg = input.reshape(N, group, (C // group) * HxW)
    mean = xg.mean(-1)
    rstd = (xg.var(-1, unbiased=False) + eps).rsqrt()
    return out, mean, rstd


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Normalise each channel by the summed squares of ``size`` neighbouring channels.

    >>> local_response_norm(torch.ones(1, 2, 1), 2).shape
    torch.Size([1, 2, 1])
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input "
                         f"(got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    return input / div.mul(alpha).add(k).pow(beta)


# ---- resampling --------------------------------------------------------------------------
def _scale_value(scale, n_in, n_out, align_corners, linear, dt):
    """PyTorch's source-index scale in the kernel's precision ``dt``."""
    if linear and align_corners:
        return dt((n_in - 1) / (n_out - 1)) if n_out > 1 else dt(0)
    if scale is not None and scale > 0:
        return dt(1.0 / scale)
    return dt(n_in) / dt(n_out)


def _nearest_matrix(n_in, n_out, scale, exact):
    m = np.zeros((n_out, n_in))
    i = np.arange(n_out)
    if n_out == n_in:
        src = i
    elif n_out == 2 * n_in and not exact:
        src = i >> 1
    else:
        # NOTE: PyTorch's nearest index math runs in float32 whatever the data dtype
        s = _scale_value(scale, n_in, n_out, False, False, np.float32)
        pos = ((i + 0.5) * np.float64(s)).astype(np.float32) if exact else \
            i.astype(np.float32) * s
        src = np.minimum(np.floor(pos).astype(np.int64), n_in - 1)
    m[i, src] = 1
    return m


def _linear_matrix(n_in, n_out, scale, align_corners, dt):
    m = np.zeros((n_out, n_in), dt)
    i = np.arange(n_out)
    if n_out == n_in:
        m[i, i] = 1
        return m
    s = _scale_value(scale, n_in, n_out, align_corners, True, dt)
    idx = i.astype(dt)
    src = s * idx if align_corners else np.maximum(s * (idx + dt(0.5)) - dt(0.5), dt(0))
    i0 = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), n_in - 1)
    lam1 = np.clip(src - i0.astype(dt), dt(0), dt(1))
    i1 = i0 + (i0 < n_in - 1)
    np.add.at(m, (i, i0), dt(1) - lam1)
    np.add.at(m, (i, i1), lam1)
    return m


def _cubic_matrix(n_in, n_out, scale, align_corners, dt):
    """PyTorch's bicubic resampling along one dim: Keys' taps (a = -0.75) at floor(src) - 1
    ... + 2, the taps' indices clamped to the edges (so border weights pile onto the edge)."""
    s = _scale_value(scale, n_in, n_out, align_corners, True, dt)
    i = np.arange(n_out)
    idx = i.astype(dt)
    # NOTE: unlike linear, the cubic source index is not clamped at 0
    src = s * idx if align_corners else s * (idx + dt(0.5)) - dt(0.5)
    i0 = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), n_in - 1)
    t = np.clip(src - i0.astype(dt), dt(0), dt(1))
    m = np.zeros((n_out, n_in), dt)
    for k, w in enumerate(P._cubic_taps(t)[0]):
        np.add.at(m, (i, np.clip(i0 - 1 + k, 0, n_in - 1)), w)
    return m


def _triangle(t):
    return np.maximum(1.0 - np.abs(t), 0.0)


# (support, filter) of the antialiasing resamplers, float and uint8
_AA_FILTERS = {"bilinear": (1.0, _triangle), "bicubic": (2.0, P.keys_cubic(-0.5))}


def _aa_matrix(n_in, n_out, scale, align_corners, mode, dt):
    """The antialiasing resampler's matrix; PyTorch leaves a dim of unchanged size alone."""
    if n_in == n_out:
        return np.eye(n_in, dtype=dt)
    support, filt = _AA_FILTERS[mode]
    scale = _scale_value(scale, n_in, n_out, align_corners, True, float)
    return P.filter_weights(n_in, n_out, scale, support, filt, align_corners, True).astype(dt)


_INTERP_NAMES = {"nearest": "UpsampleNearest{}DBackward0",
                 "nearest-exact": "UpsampleNearestExact{}DBackward0",
                 "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
                 "trilinear": "UpsampleTrilinear3DBackward0",
                 "bicubic": "UpsampleBicubic2DBackward0"}
_INTERP_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}
# the modes PyTorch's error lists (lanczos then gets numtorch's own error, naming it)
_INTERP_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area",
                 "nearest-exact", "lanczos")


def _interp_sizes(input, size, scale_factor, nsp):
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        out = _ntuple(nsp)(size)
        if isinstance(size, (list, tuple)) and len(size) != nsp:
            raise ValueError(f"Input and output must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(input.shape[2:])} and output size of {size}. Please "
                             "provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                             "size in (o1, o2, ...,oK) format.")
        if isinstance(size, (list, tuple)) and not all(map(_is_integer, size)):
            raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] "
                            "or Tuple[int, int, int], but got size with types "
                            f"{[type(o) for o in size]}")
        # NOTE: a scalar float size stays as given here: PyTorch's kernel call refuses it,
        # after the mode's checks (see _interp_size_error)
        return tuple(out), (None,) * nsp
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)) and len(scale_factor) != nsp:
        raise ValueError(f"Input and scale_factor must have the same number of spatial "
                         f"dimensions, but got input with spatial dimensions of "
                         f"{list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                         "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                         "scale_factor in (s1, s2, ...,sK) format.")
    scales = _ntuple(nsp)(scale_factor)
    out = tuple(int(math.floor(float(n) * s)) for n, s in zip(input.shape[2:], scales))
    return out, tuple(float(s) for s in scales)


def _is_integer(x):
    """Whether interpolate takes ``x`` as an int size (an int, NumPy integer, or a tensor
    that is not floating point), as PyTorch's ``_is_integer`` does."""
    if isinstance(x, (int, np.integer)):
        return True
    return isinstance(x, Tensor) and not x.is_floating_point()


def _interp_size_error(input, out, mode, antialias, nsp):
    """The TypeError of the ATen op interpolate would call with the non-int size ``out``
    (``size=2.5`` reaches the op as a list of floats)."""
    if mode == "area":
        return TypeError(f"adaptive_avg_pool{nsp}d(): argument 'output_size' (position 2) "
                         "must be tuple of ints, but found element of type "
                         f"{type(out[0]).__name__} at pos 0")
    kind = {"nearest": "upsample_nearest", "nearest-exact": "_upsample_nearest_exact"}
    op = kind.get(mode, "upsample_" + mode) + f"{nsp}d"
    if antialias:
        op = "_" + op + "_aa"
    scales = ", ".join(f"float scales{'_' + d if nsp > 1 else ''} = None"
                       for d in "dhw"[-nsp:])
    corners = "" if mode in kind else "bool align_corners, "
    args = (input, list(out)) + (() if mode in kind else (False,)) + (None,)
    return invalid_arguments(op, args, {}, [
        f"(Tensor input, tuple of ints output_size, {corners}tuple of floats scale_factors)",
        f"(Tensor input, tuple of ints output_size, {corners}{scales}, *, Tensor out = None)"])


def _interp_dtype_check(input, mode, nsp, antialias):
    """PyTorch resizes floating tensors, and uint8 ones in the nearest modes and 4-D
    bilinear/bicubic; other dtypes raise naming the kernel that refuses them (area goes
    through the adaptive pools, which check for themselves)."""
    dt = input.dtype
    if dt.is_floating_point or dt.is_complex or mode == "area" or dt is D.uint8 and (
            mode in ("nearest", "nearest-exact", "bilinear", "bicubic")):
        return
    if antialias:
        kernel = "compute_index_ranges_weights"
    elif mode in ("nearest", "nearest-exact"):
        kernel = "upsample_nearest2d_channels_last" if nsp == 2 else \
            "compute_indices_weights_nearest"
    elif mode == "bilinear":
        kernel = "upsample_bilinear2d_channels_last"
    else:
        kernel = "compute_indices_weights_" + ("cubic" if mode == "bicubic" else "linear")
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{D.SCALAR_NAMES[dt]}'")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims (nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
    area); ``antialias`` low-pass filters a bilinear or bicubic downscale, as PIL does.

    >>> interpolate(torch.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    >>> interpolate(torch.tensor([[[[0.0, 1.0]]]]), size=(1, 4), mode="bicubic")
    tensor([[[[-0.1055,  0.2266,  0.7734,  1.1055]]]])
    """
    nsp = input.dim() - 2
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    out, scales = _interp_sizes(input, size, scale_factor, nsp)  # PyTorch's order of checks
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if antialias and not (mode in ("bilinear", "bicubic") and nsp == 2):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    # NOTE: PyTorch names the needed dims for linear modes only; bicubic (and lanczos) on
    # the wrong dims get the general message
    if not 1 <= nsp <= 3 or mode not in _INTERP_MODES or \
            (mode in ("bicubic", "lanczos") and nsp != 2):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.dim()}D) for the modes: nearest | linear | bilinear | "
                                  f"bicubic | trilinear | lanczos | area | nearest-exact (got "
                                  f"{mode})")
    if mode in _INTERP_DIMS and _INTERP_DIMS[mode] != nsp:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{_INTERP_DIMS[mode] + 2}D input")
    if not all(map(_is_integer, out)):
        raise _interp_size_error(input, out, mode, antialias, nsp)
    out = tuple(int(o) for o in out)
    if recompute_scale_factor:
        scales = (None,) * nsp
    sizes = input.shape[2:]
    if mode != "area" and 0 < nsp <= 3 and min(out + tuple(sizes)) <= 0:
        dims = "DHW"[-nsp:]
        raise RuntimeError("Input and output sizes should be greater than 0, but got input (" +
                           ", ".join(f"{d}: {n}" for d, n in zip(dims, sizes)) + ") output (" +
                           ", ".join(f"{d}: {o}" for d, o in zip(dims, out)) + ")")
    _interp_dtype_check(input, mode, nsp, antialias)
    if mode == "area":
        return _adaptive_avg(input, out, nsp) if nsp > 1 else adaptive_avg_pool1d(input, out)
    if mode in ("nearest", "nearest-exact"):
        mats = [_nearest_matrix(n, o, s, mode == "nearest-exact") for n, o, s in
                zip(sizes, out, scales)]
        name = _INTERP_NAMES[mode].format(nsp)
    elif mode in ("bilinear", "bicubic") and input.dtype is D.uint8:
        return _interpolate_uint8(input, out, scales, bool(align_corners), antialias, mode)
    elif mode in _INTERP_DIMS:
        ac = bool(align_corners)
        dt = np.float64 if input._data.dtype == np.float64 else np.float32
        if antialias:
            mats = [_aa_matrix(n, o, s, ac, mode, dt) for n, o, s in zip(sizes, out, scales)]
            name = _INTERP_NAMES[mode].replace("2DBackward0", "2DAaBackward0")
        else:
            matrix = _cubic_matrix if mode == "bicubic" else _linear_matrix
            mats = [matrix(n, o, s, ac, dt) for n, o, s in zip(sizes, out, scales)]
            name = _INTERP_NAMES[mode]
            if mode != "bicubic" and dt == np.float32:
                # the forward rounded as PyTorch's kernels (the matrices serve backward)
                taps = [RS.linear_taps(n, o, s, ac, dt) for n, o, s in zip(sizes, out, scales)]
                return RS.resample_op(input, mats, name, taps, mode)
    else:
        raise NotImplementedError(f"numtorch's interpolate does not support mode '{mode}' "
                                  "(yet): use nearest, nearest-exact, linear, bilinear, "
                                  "bicubic, trilinear or area")
    return P.axis_maps(input, mats, name)


def _interpolate_uint8(input, out, scales, align_corners, antialias, mode="bilinear"):
    """Bilinear or bicubic uint8 resizing with PyTorch's fixed-point kernel (see
    ``FixedPointMaps``). Without antialias, bicubic quantises the float kernel's weights
    (edge taps clamped, not renormalised), unlike bilinear."""
    support, filt = _AA_FILTERS[mode]
    maps = []
    for n, o, s in zip(input.shape[2:], out, scales):
        if n == o:
            maps.append((None, 0))
            continue
        if mode == "bicubic" and not antialias:
            maps.append(P.fixed_point(_cubic_matrix(n, o, s, align_corners, np.float64)))
            continue
        # NOTE: the scale is PyTorch's area_pixel_compute_scale, in double here
        scale = _scale_value(s, n, o, align_corners, True, float)
        maps.append(P.fixed_point(P.filter_weights(n, o, scale, support, filt, align_corners,
                                                   antialias)))
    return P.FixedPointMaps.apply(input, maps)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate` (warns)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: :func:`interpolate` with mode 'nearest' (warns)."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: :func:`interpolate` with mode 'bilinear', align_corners=True (warns)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def channel_shuffle(input, groups):
    """Split the C channels into ``groups`` and interleave them: (g, C/g) -> (C/g, g).

    >>> channel_shuffle(torch.arange(4.).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("channel_shuffle", input)
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value "
                           f"of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    return P.ChannelShuffle.apply(input, groups)


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r).

    >>> pixel_shuffle(torch.arange(4.).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("pixel_shuffle", input)
    r = upscale_factor
    _check_shuffle(input, r, "pixel_shuffle", "upscale_factor")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    from ..ops.shape import PixelShuffle
    return PixelShuffle.apply(input, r)


def _check_shuffle(input, r, op, arg):
    """pixel_(un)shuffle's checks, in PyTorch's order: factor type, rank, factor sign."""
    if not isinstance(r, int) or isinstance(r, bool):
        raise TypeError(f"{op}(): argument '{arg}' (position 2) must be int, not "
                        f"{type(r).__name__}")
    if input.dim() < 3:
        raise RuntimeError(f"{op} expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{op} expects a positive {arg}, but got {r}")


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W).

    >>> pixel_unshuffle(torch.arange(4.).reshape(1, 1, 2, 2), 2).flatten()
    tensor([0., 1., 2., 3.])
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("pixel_unshuffle", input)
    r = downscale_factor
    _check_shuffle(input, r, "pixel_unshuffle", "downscale_factor")
    *lead, c, h, w = input.shape
    for name, d in (("height", -2), ("width", -1)):
        if input.shape[d] % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({d})={input.shape[d]} is not "
                               f"divisible by {r}")
    from ..ops.shape import PixelUnshuffle
    return PixelUnshuffle.apply(input, r)


_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False "
                  "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
                  "See the documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at the normalised ``grid`` positions.

    >>> grid_sample(torch.arange(4.).reshape(1, 1, 2, 2), torch.zeros(1, 1, 1, 2),
    ...             align_corners=False)
    tensor([[[[1.5000]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    _check_grid(input, grid, mode)
    nsp = input.dim() - 2
    cls = P.named(P.GridSampler, f"GridSampler{nsp}DBackward0")
    return cls.apply(input, grid, mode, padding_mode, bool(align_corners))


_GRID_MODES = ("bilinear", "nearest", "bicubic")  # ATen's interpolation_mode numbers
_GRID_PADDINGS = ("zeros", "border", "reflection")  # and padding_mode numbers


def _check_grid(input, grid, mode, nsp=None):
    """ATen's grid sampler checks, in its order: the shapes both kernels share, then the
    rank (``nsp``: 2 or 3 for grid_sampler_2d/3d, None: by the input's), then the dtypes."""
    sizes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.shape[:1] != grid.shape[:1]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got {sizes}")
    if grid.shape[-1:] != (input.dim() - 2,):
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {list(grid.shape)}")
    for i in range(2, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {i} being empty")
    if nsp is None:  # torch.grid_sampler: the 2-d kernel for 4-D input, else the 3-d one
        nsp = 2 if input.dim() == 4 else 3
    if input.dim() != nsp + 2 or grid.dim() != input.dim():
        raise RuntimeError(f"grid_sampler(): expected {nsp + 2}D input and grid with same "
                           f"number of dimensions, but got {sizes}")
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {D.SCALAR_NAMES[input.dtype]} but found "
                           f"{D.SCALAR_NAMES[grid.dtype]}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"grid_sampler_{input.dim() - 2}d_cpu_kernel_impl" not '
                                  f"implemented for '{D.SCALAR_NAMES[input.dtype]}'")


def _grid_sampler(name, nsp, input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler``, ``torch.grid_sampler_2d``/``_3d``: grid_sample with ATen's
    integer mode numbers and no defaults (the functions F.grid_sample calls)."""
    for i, (arg, v) in enumerate((("input", input), ("grid", grid))):
        if not isinstance(v, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {i + 1}) must be Tensor, "
                            f"not {type(v).__name__}")
    for i, (arg, v, names) in enumerate((("interpolation_mode", interpolation_mode, _GRID_MODES),
                                         ("padding_mode", padding_mode, _GRID_PADDINGS))):
        if not parser_int(v, allow_tensor=False):
            raise TypeError(f"{name}(): argument '{arg}' (position {i + 3}) must be int, not "
                            f"{type(v).__name__}")
        if not 0 <= v < len(names):
            raise RuntimeError(f"{name}(): numtorch supports {arg} " + ", ".join(
                f"{k} ({n})" for k, n in enumerate(names)) + f", not {v}")
    if not isinstance(align_corners, bool):
        raise TypeError(f"{name}(): argument 'align_corners' (position 5) must be bool, not "
                        f"{type(align_corners).__name__}")
    mode, padding = _GRID_MODES[interpolation_mode], _GRID_PADDINGS[padding_mode]
    _check_grid(input, grid, mode, nsp)
    cls = P.named(P.GridSampler, f"GridSampler{input.dim() - 2}DBackward0")
    return cls.apply(input, grid, mode, padding, align_corners)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` (N, 2, 3) or (N, 3, 4) for ``size``.

    >>> affine_grid(torch.tensor([[[1., 0., 0.], [0., 1., 0.]]]), (1, 1, 1, 2),
    ...             align_corners=False)
    tensor([[[[-0.5000,  0.0000],
              [ 0.5000,  0.0000]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    k = len(size) - 2
    if k not in (2, 3):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {tuple(size)}.")
    if theta.dim() != 3 or tuple(theta.shape[-2:]) != (k, k + 1):
        raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} for "
                         f"size {tuple(size)}. Got {theta.shape}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {tuple(size)}")
    if theta.shape[0] != size[0]:  # PyTorch's kernel: base grid (N, .., k+1) bmm theta^T
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {k + 1}] but got: [{theta.shape[0]}, {k + 1}].")
    base = P.affine_base(size[2:], bool(align_corners), theta._data.dtype)
    return P.AffineGridGenerator.apply(theta, base)


# ---- attention ---------------------------------------------------------------------------
# the C++ names PyTorch's attention checks print for dtypes
_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                   "int64": "long int", "int32": "int", "int16": "short int",
                   "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
                   "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _check_sdpa(query, key, value, attn_mask, is_causal):
    """scaled_dot_product_attention's input checks, with PyTorch's messages and order."""
    name = lambda t: _CPP_TYPE_NAMES.get(t.dtype.name, t.dtype.name)  # noqa: E731
    if not query.dtype is key.dtype is value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {name(query)} key.dtype: {name(key)} and value.dtype: "
                           f"{name(value)} instead.")
    if attn_mask is not None and attn_mask.dtype not in (D.bool_, D.float32, query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {name(attn_mask)} and  "
                           f"query.dtype: {name(query)} instead.")
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {query.dim()} key.dim: {key.dim()} and "
                           f"value.dim: {value.dim()} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(q k^T * scale + mask) v, as PyTorch's math reference.

    >>> scaled_dot_product_attention(torch.ones(1, 2, 4), torch.ones(1, 2, 4),
    ...                              torch.ones(1, 2, 4)).shape
    torch.Size([1, 2, 4])
    """
    from .._creation import zeros, ones
    _check_sdpa(query, key, value, attn_mask, is_causal)
    L, Sk = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    bias = zeros(L, Sk, dtype=query.dtype)
    if is_causal:
        mask = ones(L, Sk, dtype=D.bool_).tril(0)
        bias = bias.masked_fill(~mask, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype is D.bool_:
            bias = bias.masked_fill(~attn_mask, float("-inf"))
        else:
            bias = attn_mask + bias
    if enable_gqa:
        key = key.repeat_interleave(query.size(-3) // key.size(-3), -3)
        value = value.repeat_interleave(query.size(-3) // value.size(-3), -3)
    weight = query @ key.transpose(-2, -1) * scale_factor
    weight = (weight + bias).softmax(-1)
    if dropout_p > 0.0:
        weight = dropout(weight, dropout_p, True)
    return weight @ value


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Sequence-first multi-head attention from explicit weights (nn.MultiheadAttention's math).

    >>> e = 4
    >>> out, w = multi_head_attention_forward(
    ...     torch.ones(3, 1, e), torch.ones(3, 1, e), torch.ones(3, 1, e), e, 2,
    ...     torch.ones(3 * e, e), None, None, None, False, 0.0, torch.eye(e), None)
    >>> out.shape, w.shape
    (torch.Size([3, 1, 4]), torch.Size([1, 3, 3]))
    """
    from types import SimpleNamespace
    from .modules.transformer import multi_head_attention
    if use_separate_proj_weight and (q_proj_weight is None or k_proj_weight is None
                                     or v_proj_weight is None):
        raise AssertionError("use_separate_proj_weight is True but q_proj_weight, "
                             "k_proj_weight or v_proj_weight is None")
    if bias_k is not None and static_k is not None:
        raise AssertionError("bias cannot be added to static key.")
    mha = SimpleNamespace(
        embed_dim=embed_dim_to_check, num_heads=num_heads,
        head_dim=embed_dim_to_check // num_heads, in_proj_weight=in_proj_weight,
        in_proj_bias=in_proj_bias, _qkv_same_embed_dim=not use_separate_proj_weight,
        q_proj_weight=q_proj_weight, k_proj_weight=k_proj_weight, v_proj_weight=v_proj_weight,
        bias_k=bias_k, bias_v=bias_v, add_zero_attn=add_zero_attn, dropout=dropout_p,
        training=training, static_k=static_k, static_v=static_v,
        out_proj=SimpleNamespace(weight=out_proj_weight, bias=out_proj_bias))
    return multi_head_attention(mha, query, key, value, key_padding_mask, need_weights,
                                attn_mask, average_attn_weights, is_causal)


# NOTE: PyTorch's functional module re-exports ``torch.nn.grad`` as ``F.grad`` (the docs'
# examples call ``F.grad.conv2d_input``); imported last because grad.py uses the checks above
from . import grad  # noqa: E402,F401
