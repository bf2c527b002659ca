"""``torch.distributions.beta``."""
from ._gamma import Beta

__all__ = ["Beta"]
