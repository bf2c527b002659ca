"""``torch.distributions.negative_binomial``."""
from ._counts import NegativeBinomial

__all__ = ["NegativeBinomial"]
