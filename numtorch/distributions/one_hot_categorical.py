"""``torch.distributions.one_hot_categorical``."""
from ._discrete import OneHotCategorical

__all__ = ["OneHotCategorical"]
