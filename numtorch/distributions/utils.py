"""Helpers of the distributions: broadcasting parameters, probabilities <-> logits."""
import numbers

from .. import _creation as C, _dtype as D
from .._tensor import Tensor

__all__ = ["broadcast_all", "clamp_probs", "logits_to_probs", "probs_to_logits",
           "lazy_property", "_sum_rightmost", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def broadcast_all(*values):
    """Tensors (numbers become tensors of the first tensor's dtype, or the default dtype)
    broadcast to one shape."""
    from ..ops.shape import broadcast_tensors
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if all(isinstance(v, Tensor) for v in values):
        return broadcast_tensors(*values)
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), D.get_default_dtype())
    values = [v if isinstance(v, Tensor) else C.tensor(v, dtype=dtype) for v in values]
    return broadcast_tensors(*values)


def clamp_probs(probs):
    eps = D.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    from ..nn import functional as F
    return logits.sigmoid() if is_binary else F.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    p = clamp_probs(probs)
    return (p.log() - (-p).log1p()) if is_binary else p.log()


class lazy_property:
    """Computed on first read, then stored on the instance (a parameter given in the other
    form: ``logits`` from ``probs``)."""

    def __init__(self, fn):
        self.wrapped = fn
        self.__doc__ = fn.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        from ..autograd.grad_mode import enable_grad
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _sum_rightmost(value, dim):
    """``value`` summed over its ``dim`` rightmost dims (0: unchanged)."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1)


def _is_number(x):
    return isinstance(x, numbers.Number) and not isinstance(x, bool)


def _tril_mask(n, diag):
    from .. import arange
    idx = arange(n)
    return idx < idx.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The entries of ``mat`` on and below diagonal ``diag``, row by row, as a vector."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of ``tril_matrix_to_vec``: a (batched) D x D matrix, zero above ``diag``."""
    # the positive root of D^2 + (1 + 2 diag) D - |diag| (diag + 1) - 2 len = 0
    b = 1 + 2 * diag
    n = (-b + (b ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > D.finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    mat[..., _tril_mask(n, diag)] = vec
    return mat
