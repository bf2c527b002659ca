"""``torch.distributions.half_cauchy``: |X| for X ~ Cauchy(0, scale)."""
import math

from .. import _creation as C
from . import constraints  # noqa: F401  (PyTorch's module namespace)
from ._half import folded_at_zero
from ._transformed import TransformedDistribution
from .cauchy import Cauchy
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


@folded_at_zero
class HalfCauchy(TransformedDistribution):
    """Half-Cauchy with ``scale``: infinite mean and variance.

    >>> import numtorch as torch
    >>> HalfCauchy(torch.tensor([1.])).mean
    tensor([inf])
    """
    _value_as_tensor = True

    def __init__(self, scale, validate_args=None):
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return C.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance
