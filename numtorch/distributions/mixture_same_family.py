"""``torch.distributions.mixture_same_family``."""
from ._transformed import MixtureSameFamily

__all__ = ["MixtureSameFamily"]
