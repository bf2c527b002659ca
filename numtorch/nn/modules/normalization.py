"""``LayerNorm``, ``GroupNorm``, ``RMSNorm``, ``LocalResponseNorm``.

>>> import numtorch as torch
>>> torch.nn.LayerNorm(3)
LayerNorm((3,), eps=1e-05, elementwise_affine=True, bias=True)
"""
import numbers

from .. import functional as F
from .. import init
from ._factory import new_param
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


def _shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (normalized_shape,)
    return tuple(normalized_shape)


class _AffineNorm(Module):
    """A normalisation with an optional per-element ``weight`` (ones) and ``bias`` (zeros)."""

    def _init_affine(self, shape, affine, bias, device, dtype):
        """Create ``weight`` and ``bias`` of ``shape`` (registered as None when absent)."""
        if affine:
            self.weight = new_param(*shape, device=device, dtype=dtype)
            if bias:
                self.bias = new_param(*shape, device=device, dtype=dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)


class LayerNorm(_AffineNorm):
    """Normalise over the trailing ``normalized_shape`` dims, with per-element affine.

    >>> LayerNorm(2)(torch.tensor([[1.0, 3.0]]))
    tensor([[-1.0000,  1.0000]], grad_fn=<NativeLayerNormBackward0>)
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self._init_affine(self.normalized_shape, elementwise_affine, bias, device, dtype)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class GroupNorm(_AffineNorm):
    """Normalise groups of channels per sample, with per-channel affine.

    >>> GroupNorm(2, 4)
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        self._init_affine((num_channels,), affine, bias, device, dtype)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{num_groups}, {num_channels}, eps={eps}, affine={affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class RMSNorm(Module):
    """x / sqrt(mean(x^2) + eps) over the trailing dims, times a learnable weight.

    >>> RMSNorm(3)
    RMSNorm((3,), eps=None, elementwise_affine=True)
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = new_param(*self.normalized_shape, device=device, dtype=dtype)
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}"
                .format(**self.__dict__))


class LocalResponseNorm(Module):
    """Normalise by the summed squares of ``size`` neighbouring channels.

    >>> LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class CrossMapLRN2d(Module):
    """Legacy cross-channel LRN over (N, C, H, W), PyTorch's own window and backward.

    >>> CrossMapLRN2d(3)
    CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        from ...ops.normalization import CrossMapLRN2d as _Op
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        return _Op.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
