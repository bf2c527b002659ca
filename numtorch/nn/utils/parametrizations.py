"""``torch.nn.utils.parametrizations``: ``weight_norm``, ``spectral_norm`` and
``orthogonal`` as parametrizations (see ``parametrize``).

>>> import numtorch as torch
>>> _ = torch.manual_seed(0)
>>> m = weight_norm(torch.nn.Linear(3, 2))
>>> sorted(n for n, _ in m.named_parameters())
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
>>> m.parametrizations.weight.original0
Parameter containing:
tensor([[0.5672],
        [0.5039]], requires_grad=True)
"""
from enum import Enum, auto

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops.weight_norm import norm_except_dim, weight_norm as _weight_norm
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---- weight_norm ------------------------------------------------------------------------------
class _WeightNorm(Module):
    """weight = g * v / ||v||, with originals (g, v)."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (the norm over every dim but
    ``dim``; the whole tensor when ``dim`` is None): ``original0`` is g, ``original1`` is v.
    State dicts of the deprecated ``nn.utils.weight_norm`` (``<name>_g``/``<name>_v``)
    load too."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def compat(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
               error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)
    module._register_load_state_dict_pre_hook(compat)
    return module


# ---- spectral_norm ----------------------------------------------------------------------------
class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value by power iteration (buffers _u,
    _v; iterated in training mode)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.mH.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm, estimated by ``n_power_iterations``
    power iterations per training-mode access (dim 1 for transposed convolutions, else 0)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) \
            else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations,
                                                                     dim, eps))
    return module


# ---- orthogonal -------------------------------------------------------------------------------
class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _is_orthogonal(Q):
    import numpy as np
    from ... import allclose, eye
    n, k = Q.size(-2), Q.size(-1)
    eps = 10.0 * n * float(np.finfo(Q._data.dtype).eps)
    return allclose(Q.mH @ Q, eye(k, dtype=Q.dtype), atol=eps)


def _make_orthogonal(A):
    """The Q of A = QR with a non-negative diagonal of R (A tall)."""
    from ... import geqrf
    from ... import linalg
    X, tau = geqrf(A)
    Q = linalg.householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """An orthogonal (or unitary) matrix from an unconstrained one, by the matrix
    exponential or the Cayley map of a skew-symmetric matrix, or Householder products;
    with ``use_trivialization`` the result is multiplied by the buffer ``base``."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map == _OrthMaps.householder:
            Q = self._householder(X)
        else:
            Q = self._skew_map(X, n, k)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def _skew_map(self, X, n, k):
        from ... import cat, eye, linalg
        X = X.tril()
        if n != k:
            X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
        A = X - X.mH
        if self.orthogonal_map == _OrthMaps.matrix_exp:
            Q = linalg.matrix_exp(A)
        else:
            Id = eye(n, dtype=A.dtype)
            Q = linalg.solve(Id - 0.5 * A, Id + 0.5 * A)
        return Q[..., :k] if n != k else Q

    @staticmethod
    def _householder(X):
        from ... import linalg
        A = X.tril(diagonal=-1)
        tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
        Q = linalg.householder_product(A, tau)
        # the diagonal of X (1s and -1s) is not differentiated through, hence int()
        return Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        from ... import cat, randn, zeros_like
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q, n, k = Q.mT, k, n
        if not hasattr(self, "base"):
            return self._householder_inverse(Q, transpose)
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            N = randn(*(tuple(Q.size()[:-2]) + (n, n - k)), dtype=Q.dtype)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        neg_id = zeros_like(Q_init)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id

    def _householder_inverse(self, Q, transpose):
        from ... import geqrf
        if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
            raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                      "or the Cayley parametrizations when "
                                      "use_trivialization=False.")
        A, tau = geqrf(Q)
        diag = A.diagonal(dim1=-2, dim2=-1)
        diag.sign_()
        diag[tau == 0.0] *= -1
        return A.mT if transpose else A


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain the matrix (or batch of matrices) ``module.<name>`` to be orthogonal.

    Args:
        module, name: the module and its tensor.
        orthogonal_map: "matrix_exp" (default for square or complex), "cayley" or
            "householder" (default otherwise).
        use_trivialization: keep the current matrix as a base the map multiplies.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module

