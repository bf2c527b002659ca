"""Dropout layers (PyTorch's random stream: bernoulli_(1 - p) masks).

>>> import numtorch as torch
>>> torch.nn.Dropout(0.2)
Dropout(p=0.2, inplace=False)
"""
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"

    def forward(self, input):
        return self._fn(input, self.p, self.training, self.inplace)


class Dropout(_DropoutNd):
    """Zero elements with probability p in training, scaling the rest by 1 / (1 - p).

    >>> Dropout().eval()(torch.ones(2))
    tensor([1., 1.])
    """
    _fn = staticmethod(F.dropout)


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) input."""
    _fn = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) input."""
    _fn = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) input."""
    _fn = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout keeping SELU's self-normalisation."""
    _fn = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""
    _fn = staticmethod(F.feature_alpha_dropout)
