"""Multinomial and NegativeBinomial: PyTorch's formulas, drawn as PyTorch draws them
(``total_count`` Categorical draws scattered into counts; a Gamma-Poisson mixture).

>>> import numtorch as torch
>>> _ = torch.manual_seed(0)
>>> Multinomial(10, torch.tensor([0.2, 0.8])).sample()
tensor([1., 9.])
"""
import math

from .. import _size as _S
from . import constraints
from ._discrete import Binomial
from ._families import Categorical, OverCategorical, ProbsOrLogits, _borrow
from ._gamma import Gamma
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["Multinomial", "NegativeBinomial"]


@_borrow(OverCategorical, "param_shape", "logits", "probs")
class Multinomial(Distribution):
    """Counts of ``total_count`` Categorical(``probs`` / ``logits``) draws over the last
    dim (``total_count`` only matters to sample / entropy; log_prob reads it from the
    value)."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = _S.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=_S.Size()):
        from .. import ones_like
        sample_shape = _S.Size(sample_shape)
        # (total_count, sample, batch) class indices, the draw dim then moved last
        samples = self._categorical.sample(_S.Size((self.total_count,)) + sample_shape)
        order = list(range(1, samples.dim())) + [0]
        samples = samples.permute(*order)
        counts = samples.new_zeros(self._extended_shape(sample_shape))
        counts.scatter_add_(-1, samples, ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self):
        from .. import lgamma, tensor
        n = tensor(self.total_count)
        term1 = n * self._categorical.entropy() - lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(support).exp()
        term2 = (binomial_probs * lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        from .. import lgamma
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = lgamma(value.sum(-1) + 1)
        log_factorial_xs = lgamma(value + 1).sum(-1)
        # NOTE: 0 * log(0) counts as 0 (a class of probability 0 never drawn)
        logits[(value == 0) & (logits == -math.inf)] = 0
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)


@_borrow(ProbsOrLogits, "_set_counted", "logits", "probs", "param_shape")
class NegativeBinomial(Distribution):
    """Successes before ``total_count`` failures, each trial a success with ``probs`` (or
    ``logits``)."""
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        batch = self._set_counted(total_count, probs, logits)
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = _S.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(batch_shape)
                new._param = new.__dict__[name]
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    @lazy_property
    def _gamma(self):
        # not validated: total_count may be 0
        return Gamma(concentration=self.total_count, rate=(-self.logits).exp(),
                     validate_args=False)

    def sample(self, sample_shape=_S.Size()):
        from .. import poisson
        from ..autograd.grad_mode import no_grad
        with no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        from .. import lgamma
        from ..nn.functional import logsigmoid
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * logsigmoid(-self.logits)
                                 + value * logsigmoid(self.logits))
        log_normalization = (-lgamma(self.total_count + value) + lgamma(1.0 + value)
                             + lgamma(self.total_count))
        # NOTE: total_count == 0 with value == 0 has probability 1 (lgamma(0) is inf)
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
