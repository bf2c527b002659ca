"""``torch.distributions.lowrank_multivariate_normal``: a Gaussian whose covariance is
``cov_factor @ cov_factor.T + diag(cov_diag)``, with log_prob and entropy through the small
"capacitance" matrix (Woodbury identity, matrix determinant lemma), as PyTorch computes them.

>>> import numtorch as torch
>>> m = LowRankMultivariateNormal(torch.zeros(2), torch.tensor([[1.0], [0.0]]), torch.ones(2))
>>> m.covariance_matrix
tensor([[2., 0.],
        [0., 1.]])
"""
import math

from .. import _size as _S
from . import constraints
from ._multivariate import _batch_mahalanobis, _batch_mv
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _add_identity(K):
    from .. import eye
    return K + eye(K.shape[-1], dtype=K.dtype)


def _batch_capacitance_tril(W, D):
    """Cholesky factor of I + W^T D^{-1} W."""
    from .. import linalg
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return linalg.cholesky(_add_identity(Wt_Dinv @ W))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """log |W W^T + D| = log |C| + log |D| (matrix determinant lemma)."""
    return (2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
            + D.log().sum(-1))


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """x^T (W W^T + D)^{-1} x through the Woodbury identity."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    term1 = (x.pow(2) / D).sum(-1)
    term2 = _batch_mahalanobis(capacitance_tril, _batch_mv(Wt_Dinv, x))
    return term1 - term2


class LowRankMultivariateNormal(Distribution):
    """Gaussian over the last dim of ``loc`` with covariance W W^T + diag(D) (``cov_factor``
    W of shape (..., n, rank), ``cov_diag`` D of shape (..., n))."""
    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        from ..ops.shape import broadcast_tensors
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError("cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = _S.Size(batch_shape)
        loc_shape = batch_shape + self._event_shape
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + self.cov_factor.shape[-1:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _full(self, m):
        return m.expand(self._batch_shape + self._event_shape + self._event_shape)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return ((self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag)
                .expand(self._batch_shape + self._event_shape))

    @lazy_property
    def scale_tril(self):
        from .. import linalg
        # NOTE: W W^T + D = D^1/2 (I + D^-1/2 W W^T D^-1/2) D^1/2; the middle factor has
        # eigenvalues >= 1, so its Cholesky factorisation is well conditioned
        sqrt_d = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / sqrt_d
        K = _add_identity(Dinvsqrt_W @ Dinvsqrt_W.mT)
        return self._full(sqrt_d * linalg.cholesky(K))

    @lazy_property
    def covariance_matrix(self):
        from .. import diag_embed
        W = self._unbroadcasted_cov_factor
        return self._full(W @ W.mT + diag_embed(self._unbroadcasted_cov_diag))

    @lazy_property
    def precision_matrix(self):
        from .. import diag_embed, linalg
        # Woodbury: D^-1 - D^-1 W C^-1 W^T D^-1
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        return self._full(diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A)

    def rsample(self, sample_shape=_S.Size()):
        from .. import empty
        shape = self._extended_shape(sample_shape)
        W_shape = shape[:-1] + self.cov_factor.shape[-1:]
        eps_W = empty(W_shape, dtype=self.loc.dtype).normal_()
        eps_D = empty(shape, dtype=self.loc.dtype).normal_()
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def _log_det(self):
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                     self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor,
                                       self._unbroadcasted_cov_diag, value - self.loc,
                                       self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + M)

    def entropy(self):
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
