"""Complex-input gradients of the linear-algebra decompositions.

PyTorch's gradient of a real loss L with respect to complex A is the conjugate Wirtinger one,
dL/dRe(A) + i dL/dIm(A). Each case is checked against central finite differences (no torch
needed) and, where torch is installed, against torch's first and second derivatives."""
import numpy as np
import pytest

import numtorch

_rng = np.random.default_rng(0)


def _cplx(*shape):
    return _rng.standard_normal(shape) + 1j * _rng.standard_normal(shape)


def _wellcond(n):
    return _cplx(n, n) + 3 * n * np.eye(n)


def _hpd(n):
    X = _cplx(n, n)
    return X @ X.conj().T + n * np.eye(n)


def _herm(n):
    X = _cplx(n, n)
    return X + X.conj().T


def _sq(x):
    return (x.abs() ** 2).sum()


def _w(L, x, c=1 + 2j):
    return (x * c).real.sum()


def _svd_rec(L, A):  # gauge invariant: U diag(S^2) Vh
    U, S, Vh = L.linalg.svd(A, full_matrices=False)
    return _w(L, U @ (S ** 2).to(U.dtype).diag_embed() @ Vh)


def _eigh_rec(L, A):  # gauge invariant: V diag(w^2) V^H
    w, V = L.linalg.eigh(A)
    return _w(L, V @ (w ** 2).to(V.dtype).diag_embed() @ V.mH)


def _qr(L, A):
    Q, R = L.linalg.qr(A)
    return _sq(Q @ R[..., :Q.shape[-1]]) + _w(L, R) + _w(L, Q, 0.5 - 1j)


CASES = {
    "slogdet": (lambda L, A: L.linalg.slogdet(A)[1] + _w(L, L.linalg.slogdet(A)[0]),
                _wellcond(4)),
    "cholesky": (lambda L, A: _sq(L.linalg.cholesky(A)) + _w(L, L.linalg.cholesky(A)), _hpd(4)),
    "cholesky_upper": (lambda L, A: _w(L, L.linalg.cholesky(A, upper=True), 0.3 + 2j), _hpd(4)),
    "eigvalsh": (lambda L, A: (L.linalg.eigvalsh(A) ** 3).sum(), _herm(4)),
    "eigh": (_eigh_rec, _herm(4)),
    "eigh_abs_vectors": (lambda L, A: (L.linalg.eigh(A)[1].abs() ** 3).sum(), _herm(4)),
    "svdvals": (lambda L, A: (L.linalg.svdvals(A) ** 3).sum(), _cplx(4, 3)),
    "svd_tall": (_svd_rec, _cplx(5, 3)),
    "svd_wide": (_svd_rec, _cplx(3, 5)),
    "svd_abs_vectors": (lambda L, A: (L.linalg.svd(A, full_matrices=False)[0].abs() ** 3).sum()
                        + (L.linalg.svd(A, full_matrices=False)[2].abs() ** 3).sum(),
                        _cplx(5, 3)),
    "matrix_norm_nuc": (lambda L, A: L.linalg.matrix_norm(A, "nuc") + L.linalg.matrix_norm(A, 2),
                        _cplx(4, 3)),
    "qr_tall": (_qr, _cplx(5, 3)),
    "qr_wide": (_qr, _cplx(3, 5)),
    "lu": (lambda L, A: (lambda P, Lo, U: _w(L, Lo) + _sq(U @ U))(*L.linalg.lu(A)),
           _cplx(4, 4)),
    "lu_solve": (lambda L, A: _sq(L.linalg.lu_solve(*L.linalg.lu_factor(A), A.mH @ A,
                                                    adjoint=True)), _wellcond(4)),
    "pinv": (lambda L, A: _sq(L.linalg.pinv(A)) + _w(L, L.linalg.pinv(A)), _cplx(5, 3)),
    "matrix_exp": (lambda L, A: _sq(L.linalg.matrix_exp(A)), 0.5 * _cplx(4, 4)),
    "matrix_power": (lambda L, A: _sq(L.linalg.matrix_power(A, 3))
                     + _w(L, L.linalg.matrix_power(A, -2)), _wellcond(4)),
}
_DIRS = {name: _cplx(*A.shape) for name, (_, A) in CASES.items()}


def _grads(L, f, A0, V0):
    A = L.tensor(A0, requires_grad=True)
    (g,) = L.autograd.grad(f(L, A), A, create_graph=True)
    (h,) = L.autograd.grad((g * L.tensor(V0).conj()).real.sum(), A)
    return g.detach().resolve_conj().numpy(), h.detach().resolve_conj().numpy()


_HERMITIAN_INPUT = {"cholesky", "cholesky_upper", "eigvalsh", "eigh", "eigh_abs_vectors"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_finite_differences(name):
    """Re<g, D> is the derivative of the loss along D (Hermitian D where only a triangle of
    the input is read)."""
    f, A0 = CASES[name]
    g = _grads(numtorch, f, A0, _DIRS[name])[0]
    rng = np.random.default_rng(1)
    for _ in range(4):
        D = rng.standard_normal(A0.shape) + 1j * rng.standard_normal(A0.shape)
        if name in _HERMITIAN_INPUT:
            D = D + D.conj().T
        eps = 1e-6
        fd = (f(numtorch, numtorch.tensor(A0 + eps * D)).item()
              - f(numtorch, numtorch.tensor(A0 - eps * D)).item()) / (2 * eps)
        np.testing.assert_allclose(np.real(np.vdot(g, D)), fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_and_second_derivatives_match_torch(name):
    torch = pytest.importorskip("torch")
    f, A0 = CASES[name]
    ours, theirs = _grads(numtorch, f, A0, _DIRS[name]), _grads(torch, f, A0, _DIRS[name])
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * max(1, np.abs(b).max()))


def test_cholesky_upper_is_conjugate_transpose():
    A = numtorch.tensor(_hpd(3))
    U, L = numtorch.linalg.cholesky(A, upper=True), numtorch.linalg.cholesky(A)
    np.testing.assert_allclose(U.numpy(), L.mH.numpy())
    np.testing.assert_allclose((U.mH @ U).numpy(), A.numpy(), atol=1e-12)


def test_real_input_unchanged_dtype_paths():
    """Real input keeps real gradients (the complex branches stay out of the real path)."""
    A = numtorch.tensor(np.real(_hpd(3)), requires_grad=True)
    loss = (numtorch.linalg.svdvals(A) ** 2).sum() + numtorch.linalg.slogdet(A)[1] \
        + numtorch.linalg.cholesky(A, upper=True).sum() + numtorch.linalg.eigvalsh(A).sum() \
        + numtorch.linalg.qr(A)[1].sum()
    loss.backward()
    assert A.grad.dtype == numtorch.float64
