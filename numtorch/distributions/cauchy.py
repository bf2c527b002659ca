"""``torch.distributions.cauchy``: the Cauchy distribution, drawn by ``Tensor.cauchy_``
(PyTorch's call, so a seeded script gets PyTorch's numbers)."""
import math

from .. import _creation as C, _size as _S
from ._families import LocScale, _borrow
from .distribution import Distribution

__all__ = ["Cauchy"]


@_borrow(LocScale, "arg_constraints", "support", "has_rsample", "__init__")
class Cauchy(Distribution):
    """Cauchy (Lorentz) with median ``loc`` and half width ``scale``: no mean (nan), infinite
    variance.

    >>> import numtorch as torch
    >>> Cauchy(torch.tensor([0.]), torch.tensor([1.])).cdf(torch.tensor([1.]))
    tensor([0.7500])
    """
    @property
    def mean(self):
        return C.full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return C.full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape=_S.Size()):
        eps = C.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        from .. import tan
        return tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
