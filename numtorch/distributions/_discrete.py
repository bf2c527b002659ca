"""Poisson, Binomial, Geometric and OneHotCategorical: PyTorch's formulas, drawn with
``torch.poisson`` / ``torch.binomial`` / ``Categorical.sample`` as PyTorch does."""

from .. import _size as _S
from . import constraints
from ._families import Categorical, ProbsOrLogits
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import _is_number, broadcast_all

__all__ = ["Poisson", "Binomial", "Geometric", "OneHotCategorical",
           "OneHotCategoricalStraightThrough"]


def _no_grad():
    from ..autograd.grad_mode import no_grad
    return no_grad()


class Poisson(ExponentialFamily):
    """Counts with mean ``rate``."""
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch = _S.Size() if _is_number(rate) else self.rate.size()
        super().__init__(batch, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=_S.Size()):
        from .. import poisson
        with _no_grad():
            return poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    # (entropy: ExponentialFamily's, which raises NotImplementedError as PyTorch's does:
    # Poisson has no _mean_carrier_measure)

    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, x):
        return x.exp()


def _clamp_by_zero(x):
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(ProbsOrLogits):
    """Successes in ``total_count`` trials of probability ``probs`` (or ``logits``)."""
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        batch = self._set_counted(total_count, probs, logits)
        super().__init__(batch, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=_S.Size()):
        from .. import binomial
        shape = self._extended_shape(sample_shape)
        with _no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        from .. import lgamma
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_factorial_n = lgamma(n + 1)
        log_factorial_k = lgamma(value + 1)
        log_factorial_nmk = lgamma(n - value + 1)
        # NOTE: n * log(1 + exp(logits)), written to stay finite for large |logits|
        normalize_term = (n * _clamp_by_zero(self.logits)
                          + n * (-self.logits.abs()).exp().log1p() - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what):
        total = int(self.total_count.max())
        if not self.total_count.min() == total:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total

    def entropy(self):
        total = self._homogeneous_count("entropy")  # noqa: F841  (checks first)
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        from .. import arange
        total = self._homogeneous_count("enumerate_support")
        values = arange(1 + total, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + self._batch_shape) if expand else values


class Geometric(ProbsOrLogits):
    """Failures before the first success, each trial of probability ``probs``."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(self._set_param(probs, logits), validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(f"Expected parameter probs ({type(value).__name__} of shape "
                                 f"{tuple(value.shape)}) of distribution {self!r} to be "
                                 f"positive but found invalid values:\n"
                                 f"{value.data[~valid]}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        from .. import zeros_like
        return zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=_S.Size()):
        from .. import _dtype as D, empty
        shape = self._extended_shape(sample_shape)
        tiny = D.finfo(self.probs.dtype).tiny
        with _no_grad():
            u = empty(shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        from ..nn.functional import binary_cross_entropy_with_logits as bce
        return bce(self.logits, self.probs, reduction="none") / self.probs


class OneHotCategorical(Distribution):
    """A Categorical draw as a one-hot vector over the last dim."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = _S.Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        from ..nn.functional import one_hot
        probs = self._categorical.probs
        return one_hot(probs.argmax(-1), num_classes=probs.shape[-1]).to(probs)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=_S.Size()):
        from ..nn.functional import one_hot
        probs = self._categorical.probs
        indices = self._categorical.sample(_S.Size(sample_shape))
        return one_hot(indices, self._categorical._num_events).to(probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        from .. import eye
        n = self._event_shape[0]
        values = eye(n, dtype=self._param.dtype)
        values = values.view((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n,) + self._batch_shape + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A OneHotCategorical whose ``rsample`` passes gradients straight through to ``probs``
    (the one-hot draw plus ``probs - probs.detach()``; Bengio et al., 2013)."""
    has_rsample = True

    def rsample(self, sample_shape=_S.Size()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
