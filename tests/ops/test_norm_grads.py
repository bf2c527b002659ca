"""First and second derivatives of norms, SVD-based matrix norms and eig/eigvals/solve/inv
against PyTorch, at zero and non-zero inputs (NaNs must sit where PyTorch's do)."""
import numpy as np
import pytest
import torch

import numtorch

INF = float("inf")
VECTORS = {"zero": np.zeros(5), "mixed": np.array([0.0, 1.5, -2.0, 0.0, 0.3]),
           "rand": np.random.default_rng(0).standard_normal(5), "empty": np.zeros(0)}


def _grads(lib, fn, x, seed=1):
    """(dx, (d2x, d2g)): a VJP of ``fn`` at ``x`` and the VJP of that VJP."""
    xt = lib.from_numpy(x.copy()).requires_grad_(True)
    y = fn(lib, xt)
    g = lib.from_numpy(_random(y, seed)).requires_grad_(True)
    (gx,) = lib.autograd.grad(y, xt, g, create_graph=True)
    v = lib.from_numpy(_random(gx, seed + 2))
    gg = lib.autograd.grad(gx, [xt, g], v, allow_unused=True)
    return [gx.detach()] + list(gg)


def _random(like, seed):
    """Random values of ``like``'s shape (complex when it is complex), as an array."""
    rng = np.random.default_rng(seed)
    out = rng.standard_normal(tuple(like.shape))
    if like.is_complex():
        out = out + 1j * rng.standard_normal(tuple(like.shape))
    return np.asarray(out)


def _as_np(t):
    if t is None:
        return None
    return t.resolve_conj().numpy(force=True) if isinstance(t, torch.Tensor) else t.numpy()


def check(fn, x):
    try:
        ref = _grads(torch, fn, x)
    except RuntimeError:  # e.g. a -inf norm of an empty tensor: numtorch must refuse too
        with pytest.raises(RuntimeError):
            _grads(numtorch, fn, x)
        return
    mine = _grads(numtorch, fn, x)
    for what, r, m in zip(("grad", "gradgrad x", "gradgrad g"), ref, mine):
        r, m = _as_np(r), _as_np(m)
        if r is None or m is None:
            assert r is None or not np.any(r), what
            assert m is None or not np.any(m), what
            continue
        np.testing.assert_allclose(m, r, rtol=1e-7, atol=1e-9, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("p", [0.5, 1, 1.5, 2, 3.5, -0.5, -1, -2, -3.5, INF, -INF])
@pytest.mark.parametrize("kind", list(VECTORS))
@pytest.mark.parametrize("keepdim", [False, True])
def test_vector_norm_grads(p, kind, keepdim):
    check(lambda L, t: L.linalg.vector_norm(t, p, keepdim=keepdim), VECTORS[kind])


def test_vector_norm_dim_grads():
    x = np.random.default_rng(2).standard_normal((3, 4))
    x[1] = 0  # one zero row: a zero norm beside non-zero ones
    for p in (0.5, 1.5, 3.5):
        check(lambda L, t: L.linalg.vector_norm(t, p, dim=1), x)


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
@pytest.mark.parametrize("shape", [(5, 5), (3, 4), (4, 3)])
@pytest.mark.parametrize("zero", [True, False])
def test_svd_matrix_norm_grads(ord, shape, zero):
    x = np.zeros(shape) if zero else np.random.default_rng(3).standard_normal(shape)
    check(lambda L, t: L.linalg.matrix_norm(t, ord), x)


def test_svdvals_of_zero_matrix_has_finite_grad():
    check(lambda L, t: L.linalg.svdvals(t), np.zeros((3, 3)))
    check(lambda L, t: L.linalg.svd(t)[1], np.zeros((3, 3)))


@pytest.mark.parametrize("fn", [lambda L, t: L.linalg.eigvals(t),
                                lambda L, t: L.linalg.eig(t)[0],
                                lambda L, t: L.linalg.eig(t)[1].abs()])
def test_eig_grads(fn):
    check(fn, np.random.default_rng(4).standard_normal((4, 4)))


@pytest.mark.parametrize("name", ["solve", "solve_vec", "inv", "det"])
def test_complex_linalg_grads(name):
    """Complex inputs: the gradients use the conjugate transpose (eig's backward needs it)."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    b = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    fns = {"solve": lambda L, t: L.linalg.solve(t, L.from_numpy(b.copy())),
           "solve_vec": lambda L, t: L.linalg.solve(t, L.from_numpy(b[:, 0].copy())),
           "inv": lambda L, t: L.linalg.inv(t),
           "det": lambda L, t: L.linalg.det(t)}
    check(fns[name], a)
