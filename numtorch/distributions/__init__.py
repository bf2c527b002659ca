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
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .fishersnedecor import FisherSnedecor
from .generalized_pareto import GeneralizedPareto
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .inverse_gamma import InverseGamma
from .kumaraswamy import Kumaraswamy
from .logistic_normal import LogisticNormal
from .pareto import Pareto
from .studentT import StudentT
from .weibull import Weibull
from .kl import kl_divergence, register_kl
# multivariate / discrete additions, the constraint registry and the structural transforms
from ._counts import Multinomial, NegativeBinomial
from ._discrete import OneHotCategoricalStraightThrough
from .constraint_registry import biject_to, transform_to
from .lkj_cholesky import LKJCholesky
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .transforms import (CatTransform, CorrCholeskyTransform, CumulativeDistributionTransform,
                         IndependentTransform, LowerCholeskyTransform,
                         PositiveDefiniteTransform, ReshapeTransform, StackTransform,
                         StickBreakingTransform)
from .von_mises import VonMises
from .wishart import Wishart
from . import _kl_lowrank  # noqa: E402,F401  (registers its KL pairs)
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
__all__ += ["CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform",
            "IndependentTransform", "LKJCholesky", "LowRankMultivariateNormal",
            "LowerCholeskyTransform", "Multinomial", "NegativeBinomial",
            "OneHotCategoricalStraightThrough", "PositiveDefiniteTransform",
            "ReshapeTransform", "StackTransform", "StickBreakingTransform", "VonMises",
            "Wishart", "biject_to", "transform_to"]

# the continuous univariate families and the exponential-family base
__all__ += ["Cauchy", "ContinuousBernoulli", "ExponentialFamily", "FisherSnedecor",
            "GeneralizedPareto", "Gumbel", "HalfCauchy", "HalfNormal", "InverseGamma",
            "Kumaraswamy", "LogisticNormal", "Pareto", "StudentT", "Weibull"]


def _use_torch_homes():
    """Name each class after the public module PyTorch defines it in (``Normal`` shows as
    ``torch.distributions.normal.Normal`` where ``torch`` is numtorch), whichever private
    module numtorch defines it in: the home is the public submodule whose ``__all__`` lists
    it (``normal.py`` re-exports ``_families.Normal``)."""
    import importlib
    import os
    from .._naming import torch_named
    here = os.path.dirname(__file__)
    for file in sorted(os.listdir(here)):
        if not file.endswith(".py") or file.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{file[:-3]}")
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name, None)
            if isinstance(value, type) and value.__module__.startswith(__name__ + "."):
                torch_named(value, module.__name__)


_use_torch_homes()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .._lazy import NotProvidedError
    raise NotProvidedError(f"numtorch does not provide torch.distributions.{name} (yet)")
