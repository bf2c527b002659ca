"""``torch.distributions.half_normal``: |X| for X ~ Normal(0, scale)."""
import math

from . import constraints  # noqa: F401  (PyTorch's module namespace)
from ._families import Normal
from ._half import folded_at_zero
from ._transformed import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


@folded_at_zero
class HalfNormal(TransformedDistribution):
    """Half-normal with ``scale`` (the scale of the Normal folded at 0).

    >>> import numtorch as torch
    >>> HalfNormal(torch.tensor([2.])).mode
    tensor([0.])
    """
    _value_as_tensor = False

    def __init__(self, scale, validate_args=None):
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
