"""``torch.distributions.logistic_normal``: a Normal pushed onto the simplex by the
stick-breaking transform (K normals give a point of the K-simplex, K + 1 coordinates)."""
from . import constraints
from ._families import Normal
from ._transformed import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """Logistic-normal with ``loc`` and ``scale`` (of the underlying Normal, batched over
    its last dim, which becomes the event).

    >>> import numtorch as torch
    >>> LogisticNormal(torch.zeros(2), torch.ones(2)).event_shape
    torch.Size([3])
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale
