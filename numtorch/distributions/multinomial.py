"""``torch.distributions.multinomial``."""
from ._counts import Multinomial

__all__ = ["Multinomial"]
