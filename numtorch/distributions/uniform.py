"""``torch.distributions.uniform``."""
from ._families import Uniform

__all__ = ["Uniform"]
