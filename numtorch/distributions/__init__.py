"""``torch.distributions`` (a part): the distributions RL, VAE and Bayesian scripts use,
transforms, and ``kl_divergence`` for PyTorch's registered pairs, with PyTorch's sampling
calls, formulas, argument validation and reprs. Other distributions raise NotProvidedError
naming them.

>>> import numtorch as torch
>>> _ = torch.manual_seed(0)
>>> torch.distributions.Categorical(torch.tensor([0.2, 0.8])).sample()
tensor(1)
"""
from . import constraints, transforms
from ._discrete import Binomial, Geometric, OneHotCategorical, Poisson
from ._families import Bernoulli, Categorical, Normal, Uniform
from ._gamma import Beta, Chi2, Dirichlet, Exponential, Gamma
from ._multivariate import Independent, Laplace, MultivariateNormal
from ._transformed import (ExpRelaxedCategorical, LogitRelaxedBernoulli, LogNormal,
                           MixtureSameFamily, RelaxedBernoulli, RelaxedOneHotCategorical,
                           TransformedDistribution)
from .distribution import Distribution
from .kl import kl_divergence, register_kl
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform,
                         PowerTransform, SigmoidTransform, SoftmaxTransform,
                         SoftplusTransform, TanhTransform, Transform, identity_transform)

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical",
           "Chi2", "ComposeTransform", "Dirichlet", "Distribution", "ExpRelaxedCategorical",
           "ExpTransform", "Exponential", "Gamma", "Geometric", "Independent", "Laplace",
           "LogNormal", "LogitRelaxedBernoulli", "MixtureSameFamily", "MultivariateNormal",
           "Normal", "OneHotCategorical", "Poisson", "PowerTransform", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "TanhTransform", "Transform", "TransformedDistribution",
           "Uniform", "constraints", "identity_transform", "kl_divergence", "register_kl",
           "transforms"]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .._lazy import NotProvidedError
    raise NotProvidedError(f"numtorch does not provide torch.distributions.{name} (yet)")
