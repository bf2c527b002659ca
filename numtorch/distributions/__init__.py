"""``torch.distributions`` (a part): Categorical, Bernoulli, Normal, Uniform and
``kl_divergence`` between two of a kind, with PyTorch's sampling calls, formulas, argument
validation and reprs. Other distributions raise NotProvidedError naming them.

>>> import numtorch as torch
>>> _ = torch.manual_seed(0)
>>> torch.distributions.Categorical(torch.tensor([0.2, 0.8])).sample()
tensor(1)
"""
from . import constraints
from ._families import Bernoulli, Categorical, Normal, Uniform
from .distribution import Distribution
from .kl import kl_divergence

__all__ = ["Bernoulli", "Categorical", "Distribution", "Normal", "Uniform", "constraints",
           "kl_divergence"]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .._lazy import NotProvidedError
    raise NotProvidedError(f"numtorch does not provide torch.distributions.{name} (yet)")
