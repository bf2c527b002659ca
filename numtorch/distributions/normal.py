"""``torch.distributions.normal``."""
from ._families import Normal

__all__ = ["Normal"]
