"""``torch.distributions.gamma``."""
from ._gamma import Gamma

__all__ = ["Gamma"]
