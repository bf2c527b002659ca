"""``torch.distributions.log_normal``."""
from ._transformed import LogNormal

__all__ = ["LogNormal"]
