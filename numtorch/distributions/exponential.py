"""``torch.distributions.exponential``."""
from ._gamma import Exponential

__all__ = ["Exponential"]
