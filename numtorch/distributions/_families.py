"""Categorical, Bernoulli, Normal and Uniform: PyTorch's formulas and sampling calls, so a
seeded script draws and prints what PyTorch does."""
import math

from .. import _creation as C, _dtype as D, _size as _S
from . import constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import _is_number, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical", "Bernoulli", "Normal", "Uniform"]


def check_one_of(probs, logits):
    """PyTorch's ValueError unless exactly one of ``probs`` and ``logits`` is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class ProbsOrLogits(Distribution):
    """Base of the distributions of Bernoulli trials: one of ``probs`` / ``logits`` (the
    log-odds) is given, the other derived on first use."""

    def _set_param(self, probs, logits):
        """Store the given one of ``probs`` / ``logits`` (broadcast) as the parameter;
        return the batch shape it gives."""
        check_one_of(probs, logits)
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        return _S.Size() if _is_number(given) else param.size()

    def _set_counted(self, total_count, probs, logits):
        """``_set_param`` with a ``total_count`` broadcast against the parameter and cast to
        its dtype (Binomial, NegativeBinomial); return the batch shape."""
        check_one_of(probs, logits)
        count, param = broadcast_all(total_count, probs if probs is not None else logits)
        self.total_count = count.type_as(param)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        return param.size()

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


class LocScale(Distribution):
    """Base of the location-scale families on the reals (``loc`` and ``scale`` broadcast
    together; ``loc`` is the mean and the mode)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch = _S.Size() if _is_number(loc) and _is_number(scale) else self.loc.size()
        # (explicit base: Normal borrows this __init__ without deriving from LocScale)
        Distribution.__init__(self, batch, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


def _borrow(template, *names):
    """Class decorator: copy ``names`` from ``template`` (a helper base whose code is shared)
    into the class, so that its MRO stays PyTorch's (``Normal.__mro__`` is Normal,
    ExponentialFamily, Distribution, object there)."""
    def decorate(cls):
        for name in names:
            if name not in cls.__dict__:
                setattr(cls, name, template.__dict__[name])
        return cls
    return decorate


class OverCategorical(Distribution):
    """Template of the distributions built on a ``Categorical`` kept as ``_categorical``
    (Multinomial, ExpRelaxedCategorical): its parameters are theirs. Borrowed with
    :func:`_borrow`, so their MROs stay PyTorch's."""

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs


class Categorical(Distribution):
    """One of ``K`` classes, from ``probs`` (normalised over the last dim) or ``logits``."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        check_one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch = self._param.size()[:-1] if self._param.ndimension() > 1 else _S.Size()
        super().__init__(batch, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return C.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    variance = mean

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    def sample(self, sample_shape=_S.Size()):
        from .. import multinomial
        if not isinstance(sample_shape, _S.Size):
            sample_shape = _S.Size(sample_shape)
        rows = self.probs.reshape(-1, self._num_events)
        drawn = multinomial(rows, sample_shape.numel(), True).T
        return drawn.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        from ..ops.shape import broadcast_tensors
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=D.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = C.arange(self._num_events, dtype=D.int64)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + self._batch_shape) if expand else values


@_borrow(ProbsOrLogits, "_set_param", "logits", "probs", "param_shape")
class Bernoulli(ExponentialFamily):
    """0 or 1, with probability ``probs`` of 1 (or ``logits``, its log-odds)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(self._set_param(probs, logits), validate_args=validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=_S.Size()):
        from .. import bernoulli
        from ..autograd.grad_mode import no_grad
        with no_grad():
            return bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        from ..nn.functional import binary_cross_entropy_with_logits as bce
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -bce(logits, value, reduction="none")

    def entropy(self):
        from ..nn.functional import binary_cross_entropy_with_logits as bce
        return bce(self.logits, self.probs, reduction="none")

    @property
    def _natural_params(self):
        return (self.probs.logit(),)

    def _log_normalizer(self, x):
        return x.exp().log1p()


@_borrow(LocScale, "arg_constraints", "support", "has_rsample", "__init__", "mean", "mode")
class Normal(ExponentialFamily):
    """Gaussian with mean ``loc`` and standard deviation ``scale``."""
    _mean_carrier_measure = 0

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=_S.Size()):
        from .. import normal
        from ..autograd.grad_mode import no_grad
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=_S.Size()):
        shape = self._extended_shape(sample_shape)
        eps = C.empty(shape, dtype=self.loc.dtype).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = math.log(self.scale) if _is_number(self.scale) else self.scale.log()
        return (-((value - self.loc) ** 2) / (2 * var) - log_scale
                - math.log(math.sqrt(2 * math.pi)))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value):
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()


class Uniform(Distribution):
    """Uniform on [``low``, ``high``)."""
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        batch = _S.Size() if _is_number(low) and _is_number(high) else self.low.size()
        super().__init__(batch, validate_args=validate_args)

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return self.high * math.nan

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=_S.Size()):
        from .. import rand
        u = rand(self._extended_shape(sample_shape), dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = self.low.le(value).type_as(self.low) * self.high.gt(value).type_as(self.low)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()
