"""``torch.distributions.categorical``."""
from ._families import Categorical

__all__ = ["Categorical"]
