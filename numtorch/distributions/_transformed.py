"""TransformedDistribution and the distributions built on it (LogNormal, RelaxedBernoulli,
RelaxedOneHotCategorical), plus MixtureSameFamily; PyTorch's formulas and draws."""

from .. import _size as _S
from . import constraints
from ._families import Categorical, Normal, OverCategorical, ProbsOrLogits, _borrow
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, ExpTransform, SigmoidTransform, Transform
from .utils import _sum_rightmost, broadcast_all, clamp_probs

__all__ = ["TransformedDistribution", "LogNormal", "LogitRelaxedBernoulli",
           "RelaxedBernoulli", "ExpRelaxedCategorical", "RelaxedOneHotCategorical",
           "MixtureSameFamily"]


def _no_grad():
    from ..autograd.grad_mode import no_grad
    return no_grad()


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (one or a list, in order);
    log_prob subtracts each transform's log |det Jacobian|."""
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{transform.domain.event_dim}, but got {base_shape}.")
        forward_shape = transform.forward_shape(base_shape)
        expanded_base_shape = transform.inverse_shape(forward_shape)
        if base_shape != expanded_base_shape:
            base_batch = expanded_base_shape[:len(expanded_base_shape) - base_event_dim]
            base_distribution = base_distribution.expand(base_batch)
        reinterpreted = transform.domain.event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = _S.Size(batch_shape)
        shape = batch_shape + self._event_shape
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_batch = shape[:len(shape) - len(self.base_dist.event_shape)]
        new.base_dist = self.base_dist.expand(base_batch)
        new.transforms = self.transforms
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self._event_shape) > support.event_dim:
            support = constraints.independent(support,
                                              len(self._event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def sample(self, sample_shape=_S.Size()):
        with _no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=_S.Size()):
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self._event_shape)
        log_prob, y = 0.0, value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(t.log_abs_det_jacobian(x, y),
                                                 event_dim - t.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for t in self.transforms[::-1]:
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value


class LogNormal(TransformedDistribution):
    """exp of Normal(``loc``, ``scale``)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale2 = self.scale.pow(2)
        return scale2.expm1() * (2 * self.loc + scale2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class LogitRelaxedBernoulli(ProbsOrLogits):
    """The logit of a RelaxedBernoulli (Concrete) draw at ``temperature``."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        super().__init__(self._set_param(probs, logits), validate_args=validate_args)

    def rsample(self, sample_shape=_S.Size()):
        from .. import rand
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log()
                - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class _Relaxed(TransformedDistribution):
    """A relaxed distribution: a transform of a base distribution that holds its
    ``temperature``, ``logits`` and ``probs``."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class RelaxedBernoulli(_Relaxed):
    """A relaxed (Concrete / Gumbel-sigmoid) Bernoulli in (0, 1), reparameterised."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)



@_borrow(OverCategorical, "param_shape", "logits", "probs")
class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical (Gumbel-softmax) draw at ``temperature``."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = _S.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=_S.Size()):
        from .. import rand
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        from .. import full_like
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = (full_like(self.temperature, float(K)).lgamma()
                     - self.temperature.log().mul(-(K - 1)))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(_Relaxed):
    """A relaxed (Gumbel-softmax) one-hot draw on the simplex, reparameterised."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)



class MixtureSameFamily(Distribution):
    """A mixture picked by a Categorical over the rightmost batch dim of
    ``component_distribution``."""
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of "
                             "torch.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(cdbs, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = _S.Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(new, batch_shape, new._component_distribution.event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(dim=-1 - self._event_ndims)

    @property
    def variance(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_cond_var = (probs * self.component_distribution.variance).sum(dim=dim)
        var_cond_mean = (probs * (self.component_distribution.mean
                                  - self._pad(self.mean)).pow(2.0)).sum(dim=dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return (cdf_x * self.mixture_distribution.probs).sum(dim=-1)

    def log_prob(self, x):
        from ..nn.functional import log_softmax
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = log_softmax(self.mixture_distribution.logits, dim=-1)
        return (log_prob_x + log_mix_prob).logsumexp(dim=-1)

    def sample(self, sample_shape=_S.Size()):
        from .. import gather
        with _no_grad():
            sample_shape = _S.Size(sample_shape)
            gather_dim = len(sample_shape) + len(self._batch_shape)
            es = self._event_shape
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = mix_sample.shape
            comp_samples = self.component_distribution.sample(sample_shape)
            index = mix_sample.reshape(mix_shape + _S.Size([1] * (len(es) + 1)))
            index = index.repeat(_S.Size([1] * len(mix_shape)) + _S.Size([1]) + es)
            return gather(comp_samples, gather_dim, index).squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        dist_batch_ndims = len(self._batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = x.shape
        return x.reshape(xs[:-1] + _S.Size(pad_ndims * [1]) + xs[-1:]
                         + _S.Size(self._event_ndims * [1]))

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self.mixture_distribution},\n"
                f"  {self.component_distribution})")
