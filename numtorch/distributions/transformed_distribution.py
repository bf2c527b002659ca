"""``torch.distributions.transformed_distribution``."""
from ._transformed import TransformedDistribution

__all__ = ["TransformedDistribution"]
