"""``torch.distributions.binomial``."""
from ._discrete import Binomial

__all__ = ["Binomial"]
