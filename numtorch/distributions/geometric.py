"""``torch.distributions.geometric``."""
from ._discrete import Geometric

__all__ = ["Geometric"]
