"""``Identity``, ``Linear``, ``Bilinear`` (``LazyLinear``: lazy.py).

>>> import numtorch as torch
>>> _ = torch.manual_seed(0)
>>> torch.nn.Linear(3, 2).weight
Parameter containing:
tensor([[-0.0043,  0.3097, -0.4752],
        [-0.4249, -0.2224,  0.1548]], requires_grad=True)
"""
import math

from .. import functional as F
from .. import init
from ._factory import new_param
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


class Identity(Module):
    """Returns its input (any constructor arguments are ignored).

    >>> Identity(54, unused='x')(torch.ones(1))
    tensor([1.])
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b, with W (out, in) and b drawn from U(-1/sqrt(in), 1/sqrt(in)).

    >>> Linear(3, 2, bias=False)
    Linear(in_features=3, out_features=2, bias=False)
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = new_param(out_features, in_features, device=device, dtype=dtype)
        if bias:
            self.bias = new_param(out_features, device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # kaiming_uniform_ with a = sqrt(5) is U(-1/sqrt(in), 1/sqrt(in))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """y = x1^T A x2 + b, with A (out, in1, in2).

    >>> Bilinear(2, 3, 4)
    Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = new_param(out_features, in1_features, in2_features, device=device,
                                dtype=dtype)
        if bias:
            self.bias = new_param(out_features, device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features="
                             f"{self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
