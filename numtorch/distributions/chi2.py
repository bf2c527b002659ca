"""``torch.distributions.chi2``."""
from ._gamma import Chi2

__all__ = ["Chi2"]
