"""``torch.distributions.bernoulli``."""
from ._families import Bernoulli

__all__ = ["Bernoulli"]
