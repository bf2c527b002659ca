"""``torch.distributions.continuous_bernoulli``: the continuous Bernoulli on [0, 1]
(Loaiza-Ganem and Cunningham, 2019), with PyTorch's Taylor expansions near probs = 1/2 and
draws by inverting the cdf at ``torch.rand``."""
import math

from .. import _creation as C, _size as _S
from . import constraints
from ._families import _borrow, ProbsOrLogits, check_one_of
from .exp_family import ExponentialFamily
from .utils import _is_number, broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


def _where(cond, a, b):
    from .. import where
    return where(cond, a, b)


@_borrow(ProbsOrLogits, "param_shape")
class ContinuousBernoulli(ExponentialFamily):
    """Continuous Bernoulli with ``probs`` (clamped into (0, 1)) or ``logits``; ``lims``
    bound the unstable region around 1/2 where Taylor expansions are used.

    >>> import numtorch as torch
    >>> ContinuousBernoulli(torch.tensor([0.5])).mean
    tensor([0.5000])
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        check_one_of(probs, logits)
        if probs is not None:
            is_scalar = _is_number(probs)
            (self.probs,) = broadcast_all(probs)
            # NOTE: checked here (any validate_args given) because the clamp below would
            # hide an out-of-range value from the generic check
            if validate_args is not None:
                if not self.arg_constraints["probs"].check(self.probs).all():
                    raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = _is_number(logits)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(_S.Size() if is_scalar else self._param.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = _S.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        ExponentialFamily.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        from .. import max as max_
        return max_(self.probs.le(self._lims[0]), self.probs.gt(self._lims[1]))

    def _cut_probs(self):
        return _where(self._outside_unstable_region(), self.probs,
                      self._lims[0] * C.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log C(probs), the log of the normalising constant."""
        cut = self._cut_probs()
        below = _where(cut.le(0.5), cut, C.zeros_like(cut))
        above = _where(cut.ge(0.5), cut, C.ones_like(cut))
        log_norm = ((-cut).log1p() - cut.log()).abs().log() - _where(
            cut.le(0.5), (-2.0 * below).log1p(), (2.0 * above - 1.0).log())
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return _where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return _where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        cut = self._cut_probs()
        vars_ = (cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2)
                 + 1.0 / ((-cut).log1p() - cut.log()).pow(2))
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return _where(self._outside_unstable_region(), vars_, taylor)

    @lazy_property
    def logits(self):
        from .utils import probs_to_logits
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def sample(self, sample_shape=_S.Size()):
        from .. import rand
        from ..autograd.grad_mode import no_grad
        u = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=_S.Size()):
        from .. import rand
        u = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        from ..nn.functional import binary_cross_entropy_with_logits as bce
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -bce(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = _where(self._outside_unstable_region(), cdfs, value)
        return _where(value.le(0.0), C.zeros_like(value),
                      _where(value.ge(1.0), C.ones_like(value), unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        inverted = (((-cut + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p())
                    / (cut.log() - (-cut).log1p()))
        return _where(self._outside_unstable_region(), inverted, value)

    def entropy(self):
        log_probs0 = (-self.probs).log1p()
        log_probs1 = self.probs.log()
        return (self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm()
                - log_probs0)

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        from .. import max as max_, special
        lo, hi = self._lims[0] - 0.5, self._lims[1] - 0.5
        out_unst_reg = max_(x.le(lo), x.gt(hi))
        cut_nat_params = _where(out_unst_reg, x, lo * C.ones_like(x))
        log_norm = special.expm1(cut_nat_params).abs().log() - cut_nat_params.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return _where(out_unst_reg, log_norm, taylor)
