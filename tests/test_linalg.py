"""torch.linalg: values and gradients against PyTorch (float64, random well-conditioned input)."""
import numpy as np
import pytest

import numtorch as nt

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
M = rng.standard_normal((3, 3))
BATCH = rng.standard_normal((2, 3, 3))
R = rng.standard_normal((4, 3))
B = rng.standard_normal((3, 2))


def _sym_pd(lib):
    return lambda a: a @ a.mT + 3 * lib.eye(3, dtype=lib.float64)


CASES = [
    ("inv", lambda L, a: L.linalg.inv(a), (M,)),
    ("inv batched", lambda L, a: L.linalg.inv(a), (BATCH,)),
    ("det", lambda L, a: L.linalg.det(a), (M,)),
    ("det batched", lambda L, a: L.linalg.det(a), (BATCH,)),
    ("slogdet", lambda L, a: L.linalg.slogdet(a)[1], (M,)),
    ("solve matrix", lambda L, a, b: L.linalg.solve(a, b), (M, B)),
    ("solve vector", lambda L, a, b: L.linalg.solve(a, b), (M, B[:, 0].copy())),
    ("cholesky", lambda L, a: L.linalg.cholesky(_sym_pd(L)(a)), (M,)),
    ("cholesky upper", lambda L, a: L.linalg.cholesky(_sym_pd(L)(a), upper=True), (M,)),
    ("eigh values", lambda L, a: L.linalg.eigh(a + a.mT)[0], (M,)),
    ("eigh vectors", lambda L, a: L.linalg.eigh(a + a.mT)[1].abs(), (M,)),
    ("svdvals", lambda L, a: L.linalg.svdvals(a), (R,)),
    ("svd U tall", lambda L, a: L.linalg.svd(a, full_matrices=False)[0].abs(), (R,)),
    ("svd Vh tall", lambda L, a: L.linalg.svd(a, full_matrices=False)[2].abs(), (R,)),
    ("svd U wide", lambda L, a: L.linalg.svd(a.mT, full_matrices=False)[0].abs(), (R,)),
    ("svd Vh wide", lambda L, a: L.linalg.svd(a.mT, full_matrices=False)[2].abs(), (R,)),
    ("pinv", lambda L, a: L.linalg.pinv(a), (R,)),
    ("matrix_power 3", lambda L, a: L.linalg.matrix_power(a, 3), (M,)),
    ("matrix_power -2", lambda L, a: L.linalg.matrix_power(a, -2), (M,)),
    ("matrix_norm nuc", lambda L, a: L.linalg.matrix_norm(a, "nuc"), (R,)),
    ("matrix_norm 2", lambda L, a: L.linalg.matrix_norm(a, 2), (R,)),
    ("matrix_norm 1", lambda L, a: L.linalg.matrix_norm(a, 1), (R,)),
    ("matrix_norm inf", lambda L, a: L.linalg.matrix_norm(a, float("inf")), (R,)),
    ("norm fro", lambda L, a: L.linalg.norm(a), (R,)),
    ("vector_norm 3", lambda L, a: L.linalg.vector_norm(a, 3, dim=1), (R,)),
    ("multi_dot", lambda L, a, b: L.linalg.multi_dot([a, a, b]), (M, B)),
]


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_value_and_grad(name, fn, arrays):
    ours = [nt.tensor(a, requires_grad=True) for a in arrays]
    ref = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, expected = fn(nt, *ours), fn(torch, *ref)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), atol=1e-10)
    g = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    out.backward(nt.tensor(g))
    expected.backward(torch.tensor(g))
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-8)


def test_det_second_derivative():
    a = nt.tensor(M, requires_grad=True)
    t = torch.tensor(M, requires_grad=True)
    (g1,) = nt.autograd.grad(nt.linalg.det(a), a, create_graph=True)
    (h1,) = nt.autograd.grad(g1.sum(), a)
    (g2,) = torch.autograd.grad(torch.linalg.det(t), t, create_graph=True)
    (h2,) = torch.autograd.grad(g2.sum(), t)
    np.testing.assert_allclose(h1.numpy(), h2.numpy(), atol=1e-10)


def test_errors_match_torch():
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        nt.linalg.inv(nt.ones(2, 3))
    with pytest.raises(RuntimeError, match="singular"):
        nt.linalg.inv(nt.zeros(2, 2))
    with pytest.raises(RuntimeError, match="not positive-definite"):
        nt.linalg.cholesky(-nt.eye(2))


def test_qr_values_and_gradient():
    q, r = nt.linalg.qr(nt.tensor(R))
    np.testing.assert_allclose((q @ r).numpy(), R, atol=1e-12)
    ours, ref = nt.tensor(R, requires_grad=True), torch.tensor(R, requires_grad=True)
    (nt.linalg.qr(ours)[0].sum() + nt.linalg.qr(ours)[1].sum()).backward()
    (torch.linalg.qr(ref)[0].sum() + torch.linalg.qr(ref)[1].sum()).backward()
    np.testing.assert_allclose(ours.grad.numpy(), ref.grad.numpy(), atol=1e-8)


def test_singular_errors_are_linalg_errors():
    for fn in (lambda lib: lib.linalg.inv(lib.zeros(2, 2)),
               lambda lib: lib.linalg.solve(lib.zeros(2, 2), lib.ones(2))):
        for lib in (nt, torch):
            with pytest.raises(lib.linalg.LinAlgError) as e:
                fn(lib)
            assert type(e.value).__name__ == "_LinAlgError"
