"""``torch.distributions.dirichlet``."""
from ._gamma import Dirichlet

__all__ = ["Dirichlet"]
