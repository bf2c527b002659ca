"""``torch.distributions.independent``."""
from ._multivariate import Independent

__all__ = ["Independent"]
