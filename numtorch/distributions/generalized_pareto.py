"""``torch.distributions.generalized_pareto``: the generalized Pareto distribution, drawn by
inverting its cdf at ``torch.rand`` as PyTorch does."""
import math

from .. import _creation as C, _size as _S
from . import constraints
from .distribution import Distribution
from .utils import _is_number, broadcast_all

__all__ = ["GeneralizedPareto"]


def _safe(concentration, zero=None):
    """(where concentration is ~0, concentration with 1 there): the xi = 0 limit is taken
    separately, so the general formula never divides by 0. ``zero``: what PyTorch compares
    with (log_prob's default float32 0-dim zero refuses float64 parameters, as there)."""
    from .. import isclose, where
    eq_zero = isclose(concentration, C.zeros_like(concentration) if zero is None else zero)
    return eq_zero, where(eq_zero, C.ones_like(concentration), concentration)


class GeneralizedPareto(Distribution):
    """Generalized Pareto with ``loc``, ``scale`` and shape ``concentration`` (xi): for
    xi < 0 the support is bounded above by loc - scale / xi.

    >>> import numtorch as torch
    >>> GeneralizedPareto(0., 1., 0.).cdf(torch.tensor([1.]))
    tensor([0.6321])
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers = _is_number(loc) and _is_number(scale) and _is_number(concentration)
        super().__init__(_S.Size() if numbers else self.loc.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = _S.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=_S.Size()):
        from .. import rand
        u = rand(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        from .. import where
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = _safe(self.concentration, C.tensor(0.0))
        y = 1 / safe_conc + C.ones_like(z)
        where_nonzero = where(y == 0, y, y * (safe_conc * z).log1p())
        return -self.scale.log() - where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        from .. import where
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = _safe(self.concentration, C.tensor(0.0))
        where_nonzero = -(safe_conc * z).log1p() / safe_conc
        return where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        from .. import where
        eq_zero, safe_conc = _safe(self.concentration)
        logu = (-value).log1p()
        where_nonzero = self.loc + self.scale / safe_conc * (-safe_conc * logu).expm1()
        where_zero = self.loc - self.scale * logu
        return where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        from .. import where
        valid = self.concentration < 1
        safe_conc = where(valid, self.concentration, 0.5)
        return where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self):
        from .. import where
        valid = self.concentration < 0.5
        safe_conc = where(valid, self.concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return where(valid, result, math.nan)

    def entropy(self):
        from .. import broadcast_to
        return broadcast_to(self.scale.log() + self.concentration + 1, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        from .. import where
        lower = self.loc
        upper = where(self.concentration < 0, lower - self.scale / self.concentration,
                      math.inf)
        return constraints.interval(lower, upper)
