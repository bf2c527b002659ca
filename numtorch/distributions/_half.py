"""The shared part of HalfNormal and HalfCauchy: |X| for X symmetric about 0 (density doubled
on x >= 0, -inf below)."""
import math

from .. import _creation as C
from . import constraints
from ._families import _borrow

__all__ = ["folded_at_zero"]


class _FoldedAtZero:
    """Template (never a base): the members HalfNormal and HalfCauchy share; their
    ``base_dist`` is centred at 0 and passed through AbsTransform."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return C.zeros_like(self.scale)

    def log_prob(self, value):
        from .. import as_tensor, where
        if self._validate_args:
            self._validate_sample(value)
        if self._value_as_tensor:  # (HalfCauchy converts a number; HalfNormal does not)
            value = as_tensor(value, dtype=self.base_dist.scale.dtype)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


def folded_at_zero(cls):
    """Class decorator: give ``cls`` (a TransformedDistribution) the shared members, keeping
    its MRO PyTorch's."""
    names = [n for n in vars(_FoldedAtZero) if not n.startswith("__")]
    return _borrow(_FoldedAtZero, *names)(cls)
