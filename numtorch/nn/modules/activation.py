"""Activation layers: thin Modules over ``numtorch.nn.functional`` with PyTorch's reprs.

>>> import numtorch as torch
>>> torch.nn.LeakyReLU(0.2, inplace=True)
LeakyReLU(negative_slope=0.2, inplace=True)
"""
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh",
           "SiLU", "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink",
           "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink", "PReLU", "Softsign",
           "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax"]


def _inplace_repr(inplace, lead=""):
    if not inplace:
        return lead
    return f"{lead}, inplace=True" if lead else "inplace=True"


class _Inplace(Module):
    """Base of the activations whose only option is ``inplace``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Threshold(Module):
    """y = x if x > threshold else value.

    >>> Threshold(0.1, 20.0)
    Threshold(threshold=0.1, value=20.0)
    """

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"threshold={self.threshold}, value={self.value}")


class ReLU(_Inplace):
    """max(0, x).

    >>> ReLU()(torch.tensor([-1.0, 1.0]))
    tensor([0., 1.])
    """

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class RReLU(Module):
    """Randomised leaky ReLU (random slopes in training, their mean in eval).

    >>> RReLU(0.1, 0.3)
    RReLU(lower=0.1, upper=0.3)
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"lower={self.lower}, upper={self.upper}")


class Hardtanh(Module):
    """clamp(x, min_val, max_val).

    >>> Hardtanh(-2, 2)
    Hardtanh(min_val=-2, max_val=2)
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            import warnings
            warnings.warn("keyword argument `min_value` is deprecated and rename to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            import warnings
            warnings.warn("keyword argument `max_value` is deprecated and rename to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val "
                                 f"({min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"min_val={self.min_val}, max_val={self.max_val}")


class ReLU6(Hardtanh):
    """min(max(0, x), 6).

    >>> ReLU6()
    ReLU6()
    """

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Sigmoid(Module):
    """1 / (1 + exp(-x)).

    >>> Sigmoid()(torch.tensor([0.0]))
    tensor([0.5000])
    """

    def forward(self, input):
        return input.sigmoid()


class Hardsigmoid(_Inplace):
    """clamp(x / 6 + 1 / 2, 0, 1).

    >>> Hardsigmoid()(torch.tensor([0.0]))
    tensor([0.5000])
    """

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Tanh(Module):
    """Hyperbolic tangent.

    >>> Tanh()(torch.tensor([0.0]))
    tensor([0.])
    """

    def forward(self, input):
        return input.tanh()


class SiLU(_Inplace):
    """x * sigmoid(x).

    >>> SiLU()
    SiLU()
    """

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Mish(_Inplace):
    """x * tanh(softplus(x)).

    >>> Mish()
    Mish()
    """

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardswish(_Inplace):
    """x * hardsigmoid(x).

    >>> Hardswish()
    Hardswish()
    """

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class ELU(Module):
    """x if x > 0 else alpha * (exp(x) - 1).

    >>> ELU()
    ELU(alpha=1.0)
    """

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"alpha={self.alpha}")


class CELU(ELU):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    >>> CELU()
    CELU(alpha=1.0)
    """

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(_Inplace):
    """scale * elu(x, alpha) with the self-normalising constants.

    >>> SELU()
    SELU()
    """

    def forward(self, input):
        return F.selu(input, self.inplace)


class GLU(Module):
    """a * sigmoid(b), the halves of the input along ``dim``.

    >>> GLU()
    GLU(dim=-1)
    """

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """x * Phi(x) (or its tanh approximation).

    >>> GELU(approximate='tanh')
    GELU(approximate='tanh')
    """

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """x outside [-lambd, lambd], else 0.

    >>> Hardshrink()
    Hardshrink(0.5)
    """

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """x - lambd / x + lambd outside [-lambd, lambd], else 0.

    >>> Softshrink()
    Softshrink(0.5)
    """

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class LeakyReLU(Module):
    """x if x > 0 else negative_slope * x.

    >>> LeakyReLU()
    LeakyReLU(negative_slope=0.01)
    """

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"negative_slope={self.negative_slope}")


class LogSigmoid(Module):
    """log(sigmoid(x)).

    >>> LogSigmoid()
    LogSigmoid()
    """

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta.

    >>> Softplus()
    Softplus(beta=1.0, threshold=20.0)
    """

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """x if x > 0 else a * x with a learnable ``a`` (one or one per channel).

    >>> PReLU(3)
    PReLU(num_parameters=3)
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        from ... import empty
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """x / (1 + |x|).

    >>> Softsign()
    Softsign()
    """

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x).

    >>> Tanhshrink()
    Tanhshrink()
    """

    def forward(self, input):
        return F.tanhshrink(input)


class _DimSoftmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(_DimSoftmax):
    """softmax(-x) along ``dim``.

    >>> Softmin(1)
    Softmin(dim=1)
    """

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax(_DimSoftmax):
    """exp(x) / sum(exp(x)) along ``dim``.

    >>> Softmax(dim=-1)(torch.zeros(2))
    tensor([0.5000, 0.5000])
    """

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_DimSoftmax):
    """log(softmax(x)) along ``dim``.

    >>> LogSoftmax(1)
    LogSoftmax(dim=1)
    """

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Softmax over the channels of (N, C, H, W) or (C, H, W) input.

    >>> Softmax2d()(torch.zeros(2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)
