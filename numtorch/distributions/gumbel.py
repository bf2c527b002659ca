"""``torch.distributions.gumbel``: Gumbel (type-I extreme value) as PyTorch builds it, a
Uniform(tiny, 1 - eps) pushed through -log(-log(u)) then the affine map."""
import math

from .. import _creation as C, _dtype as D
from . import constraints
from ._families import Uniform
from ._transformed import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import _is_number, broadcast_all

__all__ = ["Gumbel"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni


class Gumbel(TransformedDistribution):
    """Gumbel with location ``loc`` (the mode) and scale ``scale``.

    >>> import numtorch as torch
    >>> Gumbel(torch.tensor([0.]), torch.tensor([1.])).mean
    tensor([0.5772])
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = D.finfo(self.loc.dtype)
        if _is_number(loc) and _is_number(scale):
            base_dist = Uniform(finfo.tiny, 1 - finfo.eps, validate_args=validate_args)
        else:
            base_dist = Uniform(C.full_like(self.loc, finfo.tiny),
                                C.full_like(self.loc, 1 - finfo.eps),
                                validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-C.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)
