"""``torch.distributions.laplace``."""
from ._multivariate import Laplace

__all__ = ["Laplace"]
