"""Convolution layers: ``Conv1d/2d/3d`` and ``ConvTranspose1d/2d/3d``.

Weights and biases are initialised as PyTorch's ``reset_parameters`` does (kaiming uniform
with a = sqrt(5), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))), drawing the same numbers.

>>> import numtorch as torch
>>> torch.nn.Conv2d(3, 8, 3, padding=1)
Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
"""
import math

from .. import functional as F
from .. import init
from ._factory import new_param
from .module import Module
from .utils import _ntuple, _reverse_repeat_tuple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _check_conv_args(in_channels, out_channels, groups, padding, stride, padding_mode):
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")
    if isinstance(padding, str):
        if padding not in _PADDING_STRINGS:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                             f"{_PADDING_STRINGS}")
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                         f"padding_mode='{padding_mode}'")


def _reversed_padding(padding, kernel_size, dilation):
    """F.pad's argument for non-zero padding modes ('same' puts the odd pad on the right)."""
    if not isinstance(padding, str):
        return _reverse_repeat_tuple(padding, 2)
    out = [0, 0] * len(kernel_size)
    if padding == "same":
        for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
            total = d * (k - 1)
            out[2 * i], out[2 * i + 1] = total // 2, total - total // 2
    return tuple(out)


class _ConvNd(Module):
    """Shared state of the convolution layers (PyTorch's ``_ConvNd``)."""

    _nsp = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None, transposed=False, output_padding=0):
        super().__init__()
        tup = _ntuple(self._nsp)
        kernel_size, stride, dilation = tup(kernel_size), tup(stride), tup(dilation)
        padding = padding if isinstance(padding, str) else tup(padding)
        _check_conv_args(in_channels, out_channels, groups, padding, stride, padding_mode)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.transposed = dilation, transposed
        self.output_padding, self.groups = tup(output_padding), groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _reversed_padding(padding, kernel_size,
                                                                  dilation)
        shape = (in_channels, out_channels // groups) if transposed else \
            (out_channels, in_channels // groups)
        self.weight = new_param(*shape, *kernel_size, device=device, dtype=dtype)
        if bias:
            self.bias = new_param(out_channels, device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        n = len(self.kernel_size)
        if self.padding != (0,) * n:
            s += ", padding={padding}"
        if self.dilation != (1,) * n:
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * n:
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


_CONV_FNS = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONVT_FNS = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


class _Conv(_ConvNd):
    def _conv_forward(self, input, weight, bias):
        fn = _CONV_FNS[self._nsp]
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution over (N, C_in, L).

    >>> Conv1d(2, 3, 3, padding=1)
    Conv1d(2, 3, kernel_size=(3,), stride=(1,), padding=(1,))
    """
    _nsp = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)


class Conv2d(_Conv):
    """2-D convolution over (N, C_in, H, W).

    >>> Conv2d(1, 2, (3, 5), stride=2, bias=False)
    Conv2d(1, 2, kernel_size=(3, 5), stride=(2, 2), bias=False)
    """
    _nsp = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)


class Conv3d(_Conv):
    """3-D convolution over (N, C_in, D, H, W).

    >>> Conv3d(1, 1, 2)
    Conv3d(1, 1, kernel_size=(2, 2, 2), stride=(1, 1, 1))
    """
    _nsp = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f'{self.__class__.__name__}')
        if isinstance(padding, str):  # PyTorch's _single/_pair split it into its letters
            padding = tuple(padding)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, True, output_padding)

    def _output_padding(self, input, output_size):
        if output_size is None:
            return self.output_padding
        n = self._nsp
        lead = 2 if input.dim() == n + 2 else 1     # batch and channel dims, or channel only
        if len(output_size) == lead + n:
            output_size = output_size[lead:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must "
                             f"have {n} or {n + lead} elements (got {len(output_size)})")
        min_sizes = [(input.size(d + lead) - 1) * self.stride[d] - 2 * self.padding[d] +
                     self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, self.stride)]
        for size, lo, hi in zip(output_size, min_sizes, max_sizes):
            if not lo <= size <= hi:
                # NOTE: PyTorch names the input's size from dim 2 on, even when unbatched
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {min_sizes} to {max_sizes} (for an input of "
                                 f"{input.size()[2:]})")
        return tuple(int(size) - lo for size, lo in zip(output_size, min_sizes))

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        return _CONVT_FNS[self._nsp](input, self.weight, self.bias, self.stride, self.padding,
                                     op, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution (weight (C_in, C_out / groups, K)).

    >>> ConvTranspose1d(2, 3, 3, stride=2)
    ConvTranspose1d(2, 3, kernel_size=(3,), stride=(2,))
    """
    _nsp = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution.

    >>> ConvTranspose2d(2, 3, 3, output_padding=1, stride=2)
    ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))
    """
    _nsp = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution.

    >>> ConvTranspose3d(1, 1, 2)
    ConvTranspose3d(1, 1, kernel_size=(2, 2, 2), stride=(1, 1, 1))
    """
    _nsp = 3
