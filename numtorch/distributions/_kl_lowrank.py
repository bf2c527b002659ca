"""The KL pairs PyTorch registers for LowRankMultivariateNormal (with itself and with
MultivariateNormal), in PyTorch's expansions of tr(inv(q cov) p cov)."""
from .kl import register_kl
from ._multivariate import MultivariateNormal, _batch_mahalanobis
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                          _batch_lowrank_mahalanobis)

__all__ = []


def _batch_trace_XXT(bmat):
    """tr(X X^T) over the trailing two dims of ``bmat``."""
    n, m = bmat.size(-1), bmat.size(-2)
    return bmat.reshape(-1, m * n).pow(2).sum(-1).reshape(bmat.shape[:-2])


def _check_events(p, q, what):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with" + " " * 26
                         + "different event shapes cannot be computed")


def _logdet(d):
    return _batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag,
                                 d._capacitance_tril)


def _mahalanobis(q, p):
    return _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                      q.loc - p.loc, q._capacitance_tril)


def _woodbury_A(q):
    """A with inv(q cov) = inv(qD) - A^T A."""
    from .. import linalg
    qWt_qDinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return linalg.solve_triangular(q._capacitance_tril, qWt_qDinv, upper=False)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    _check_events(p, q, "Low Rank Multivariate Normals")
    term1 = _logdet(q) - _logdet(p)
    term3 = _mahalanobis(q, p)
    A = _woodbury_A(q)
    pW, pD, qD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, q._unbroadcasted_cov_diag
    term21 = (pD / qD).sum(-1)
    term22 = _batch_trace_XXT(pW * qD.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_XXT(A * pD.sqrt().unsqueeze(-2))
    term24 = _batch_trace_XXT(A.matmul(pW))
    term2 = term21 + term22 - term23 - term24
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrank(p, q):
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    pL = p._unbroadcasted_scale_tril
    term1 = _logdet(q) - 2 * pL.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    term3 = _mahalanobis(q, p)
    A = _woodbury_A(q)
    term21 = _batch_trace_XXT(pL * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term22 = _batch_trace_XXT(A.matmul(pL))
    return 0.5 * (term1 + (term21 - term22) + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_multivariatenormal(p, q):
    from .. import broadcast_shapes, diag_embed, linalg
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    qL = q._unbroadcasted_scale_tril
    term1 = 2 * qL.diagonal(dim1=-2, dim2=-1).log().sum(-1) - _logdet(p)
    term3 = _batch_mahalanobis(qL, q.loc - p.loc)
    batch = broadcast_shapes(qL.shape[:-2], p._unbroadcasted_cov_factor.shape[:-2])
    n = p.event_shape[0]
    q_scale_tril = qL.expand(batch + (n, n))
    p_cov_factor = p._unbroadcasted_cov_factor.expand(batch + (n, p.cov_factor.size(-1)))
    p_cov_diag = diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    term21 = _batch_trace_XXT(linalg.solve_triangular(q_scale_tril, p_cov_factor, upper=False))
    term22 = _batch_trace_XXT(linalg.solve_triangular(q_scale_tril, p_cov_diag, upper=False))
    return 0.5 * (term1 + (term21 + term22) + term3 - p.event_shape[0])
