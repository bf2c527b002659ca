"""torch.linalg as scripts print it: singular vectors' signs, the ``_ex`` variants' info and
partial results, legacy wrappers' shapes and the errors' wording, against PyTorch."""
import numpy as np
import pytest

import numtorch as nt
from tests.helpers import check_error, check_same

torch = pytest.importorskip("torch")


def _seeded(lib, *shape, dtype="float32"):
    lib.manual_seed(0)
    return lib.randn(*shape, dtype=getattr(lib, dtype))


@pytest.mark.parametrize("shape", [(4, 3), (8, 5), (5, 3), (3, 3), (3, 4), (5, 8), (2, 4, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("full", [False, True])
def test_svd_signs_match_lapack(shape, dtype, full):
    # signs included (no .abs()): PyTorch's vectors for tall, square and nearly square wide A
    check_same(lambda L: tuple(L.linalg.svd(_seeded(L, *shape, dtype=dtype), full)))


def test_legacy_svd_without_uv_gives_square_zero_factors():
    check_same(lambda L: tuple(L.svd(_seeded(L, 2, 4, 3), compute_uv=False)))
    check_same(lambda L: tuple(L.svd(_seeded(L, 3, 5), some=True, compute_uv=False)))


def test_solve_ex_reports_singular_matrix():
    a = [[[1., 0.], [0., 1.]], [[0., 0.], [0., 0.]]]
    check_same(lambda L: tuple(L.linalg.solve_ex(L.tensor(a), L.ones(2, 2))))
    check_same(lambda L: tuple(L.linalg.solve_ex(L.tensor([[1., 2.], [2., 4.]]),
                                                 L.ones(2, 1))))
    check_error(lambda L: L.linalg.solve_ex(L.zeros(2, 2), L.ones(2), check_errors=True))


NOT_PD = [[[4., 2., 1.], [2., 1., 3.], [1., 3., 5.]],
          [[4., 2., 1., 0.], [2., 5., 3., 1.], [1., 3., -5., 2.], [0., 1., 2., 3.]]]


@pytest.mark.parametrize("a", NOT_PD)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_leaves_lapack_partial_factor(a, upper):
    check_same(lambda L: tuple(L.linalg.cholesky_ex(L.tensor(a), upper=upper)), exact=True)


@pytest.mark.filterwarnings("ignore:torch.(cholesky|lu) is deprecated")
def test_cholesky_error_names_the_op():
    check_error(lambda L: L.cholesky(L.tensor(NOT_PD[0])))
    check_error(lambda L: L.linalg.cholesky_ex(L.tensor(NOT_PD[0]), check_errors=True))
    check_error(lambda L: L.linalg.cholesky(L.tensor(NOT_PD[0])))


def test_lu_factor_raises_on_zero_pivot():
    check_error(lambda L: L.linalg.lu_factor(L.zeros(2, 2)))
    batch = [[[1., 0.], [0., 1.]], [[0., 0.], [0., 0.]]]
    check_error(lambda L: L.linalg.lu_factor(L.tensor(batch)))
    check_error(lambda L: L.linalg.lu_factor_ex(L.tensor(batch), check_errors=True))
    check_same(lambda L: tuple(L.linalg.lu_factor_ex(L.tensor(batch))))


@pytest.mark.filterwarnings("ignore:torch.(cholesky|lu) is deprecated")
def test_legacy_lu_with_infos_is_a_named_tuple():
    a = [[1., 2., 3.], [4., 5., 6.], [7., 8., 10.]]
    mine = nt.lu(nt.tensor(a), get_infos=True)
    ref = torch.lu(torch.tensor(a), get_infos=True)
    assert repr(mine) == repr(ref)
    assert mine.info.item() == 0


def test_eigh_uplo_checked_like_torch():
    check_error(lambda L: L.linalg.eigh(L.eye(2), UPLO="X"))
    check_same(lambda L: L.linalg.eigvalsh(L.tensor([[2., 1.], [5., 3.]]), UPLO="u"))
    check_same(lambda L: L.linalg.eigvalsh(L.tensor([[2., 1.], [5., 3.]]), UPLO="l"))


def test_svd_gradient_unchanged_by_driver():
    a = np.random.default_rng(1).standard_normal((4, 3))

    def f(L):
        x = L.tensor(a, requires_grad=True)
        U, S, Vh = L.linalg.svd(x, full_matrices=False)
        (U[:, :2].sum() + S.sum() + (Vh ** 2).sum()).backward()
        return x.grad
    check_same(f)
