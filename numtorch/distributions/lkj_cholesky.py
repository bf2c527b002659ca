"""``torch.distributions.lkj_cholesky``: the LKJ distribution over Cholesky factors of
correlation matrices, drawn by the onion method (Beta and normal draws) as PyTorch does.

>>> import numtorch as torch
>>> LKJCholesky(2, 1.0).log_prob(torch.eye(2))
tensor(-0.6931)
"""
import math

from .. import _size as _S
from . import constraints
from ._gamma import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Cholesky factors L of ``dim`` x ``dim`` correlation matrices M = L L^T, with density
    proportional to det(M)^(concentration - 1)."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        from .. import arange, cat
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), _S.Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = _S.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=_S.Size()):
        from .. import _dtype as D, diag_embed, randn
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        # the first row is 0 / 0 above: it is (1, 0, ..., 0) once the diagonal is added
        u_hypersphere[..., 0, :].fill_(0.0)
        w = y.sqrt() * u_hypersphere
        diag_elems = (1 - (w ** 2).sum(dim=-1)).clamp(min=D.finfo(w.dtype).tiny).sqrt()
        w += diag_embed(diag_elems)
        return w

    def log_prob(self, value):
        from .. import arange, lgamma, mvlgamma
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = (order * diag_elems.log()).sum(dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = lgamma(alpha) * dm1
        numerator = mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)
