"""``torch.distributions.relaxed_bernoulli``."""
from ._transformed import LogitRelaxedBernoulli, RelaxedBernoulli

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]
