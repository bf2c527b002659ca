"""``ExponentialFamily``: the base of the distributions whose density is
exp(<t(x), theta> - F(theta) + k(x)); entropy (and, in ``kl``, KL between two members of
one family) follow from the log normalizer F by Bregman divergence.

>>> import numtorch as torch
>>> from numtorch.distributions import Exponential
>>> isinstance(Exponential(torch.tensor(2.)), ExponentialFamily)
True
"""
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Subclasses give ``_natural_params`` (a tuple of tensors theta), ``_log_normalizer``
    F(*theta) and ``_mean_carrier_measure`` E[k(x)]; ``entropy`` is then
    F(theta) - <theta, grad F(theta)> - E[k(x)], the gradient taken by autograd."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        from ..autograd import grad
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        # NOTE: create_graph so the entropy stays differentiable in the natural parameters
        gradients = grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for theta, g in zip(nparams, gradients):
            result = result - (theta * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
