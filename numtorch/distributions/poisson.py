"""``torch.distributions.poisson``."""
from ._discrete import Poisson

__all__ = ["Poisson"]
