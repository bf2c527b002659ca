"""Pooling layers (max, average, adaptive, power-average, unpooling).

>>> import numtorch as torch
>>> torch.nn.MaxPool2d(2)
MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
"""
from .. import functional as F
from .module import Module
from .utils import _pair, _single, _triple

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "MaxUnpool3d"]


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, "
                "dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return self._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                        ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """Max over sliding windows of (N, C, L).

    >>> MaxPool1d(2)(torch.tensor([[[1., 3., 2., 4.]]]))
    tensor([[[3., 4.]]])
    """
    _fn = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """Max over sliding windows of (N, C, H, W).

    >>> MaxPool2d(2, 1)
    MaxPool2d(kernel_size=2, stride=1, padding=0, dilation=1, ceil_mode=False)
    """
    _fn = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """Max over sliding windows of (N, C, D, H, W).

    >>> MaxPool3d(2)
    MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """
    _fn = staticmethod(F.max_pool3d)


class _MaxUnpoolNd(Module):
    _tup = staticmethod(_single)

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = self._tup(kernel_size)
        self.stride = self._tup(stride if stride is not None else kernel_size)
        self.padding = self._tup(padding)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Inverse of MaxPool1d given its indices.

    >>> MaxUnpool1d(2)
    MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """Inverse of MaxPool2d given its indices.

    >>> MaxUnpool2d(2)
    MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
    """
    _tup = staticmethod(_pair)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """Inverse of MaxPool3d given its indices.

    >>> MaxUnpool3d(2)
    MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))
    """
    _tup = staticmethod(_triple)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class AvgPool1d(Module):
    """Mean over sliding windows of (N, C, L).

    >>> AvgPool1d(2)
    AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(Module):
    """Mean over sliding windows of (N, C, H, W).

    >>> AvgPool2d(2)
    AvgPool2d(kernel_size=2, stride=2, padding=0)
    """
    _fn = staticmethod(F.avg_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):
        return self._fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                        self.count_include_pad, self.divisor_override)


class AvgPool3d(AvgPool2d):
    """Mean over sliding windows of (N, C, D, H, W).

    >>> AvgPool3d(2)
    AvgPool3d(kernel_size=2, stride=2, padding=0)
    """
    _fn = staticmethod(F.avg_pool3d)


class _AdaptiveNd(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveNd):
    """Average over adaptive windows to ``output_size`` positions.

    >>> AdaptiveAvgPool1d(4)
    AdaptiveAvgPool1d(output_size=4)
    """

    def __init__(self, output_size):
        super().__init__(output_size)

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(AdaptiveAvgPool1d):
    """Average over adaptive windows to an ``output_size`` plane.

    >>> AdaptiveAvgPool2d((1, 1))
    AdaptiveAvgPool2d(output_size=(1, 1))
    """

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(AdaptiveAvgPool1d):
    """Average over adaptive windows to an ``output_size`` volume."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool1d(_AdaptiveNd):
    """Max over adaptive windows to ``output_size`` positions.

    >>> AdaptiveMaxPool1d(2)
    AdaptiveMaxPool1d(output_size=2)
    """

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveNd):
    """Max over adaptive windows to an ``output_size`` plane.

    >>> AdaptiveMaxPool2d(1)
    AdaptiveMaxPool2d(output_size=1)
    """

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveNd):
    """Max over adaptive windows to an ``output_size`` volume."""

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def extra_repr(self):
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))


class LPPool1d(_LPPoolNd):
    """Power-average pooling over (N, C, L).

    >>> LPPool1d(2, 3)
    LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Power-average pooling over (N, C, H, W).

    >>> LPPool2d(2, 3)
    LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over (N, C, D, H, W).

    >>> LPPool3d(2, 3)
    LPPool3d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    def forward(self, input):
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)
