"""``torch.distributions.multivariate_normal``."""
from ._multivariate import MultivariateNormal

__all__ = ["MultivariateNormal"]
