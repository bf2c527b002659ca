"""``linalg.matrix_norm`` / ``linalg.norm`` of empty matrices: a max-type norm of nothing is
0 (norms are non-negative); a min-type one raises amin's error, as in PyTorch."""
import pytest

from helpers import check_same_outcome

ORDS = ["fro", "nuc", float("inf"), float("-inf"), 1, -1, 2, -2]
SHAPES = [(0, 0), (0, 3), (3, 0), (2, 0, 0)]


@pytest.mark.parametrize("ord", ORDS)
@pytest.mark.parametrize("shape", SHAPES)
def test_matrix_norm_empty(ord, shape):
    check_same_outcome(lambda lib: lib.linalg.matrix_norm(lib.zeros(*shape), ord))


@pytest.mark.parametrize("ord", ORDS)
def test_norm_empty_keepdim(ord):
    check_same_outcome(lambda lib: lib.linalg.norm(lib.zeros(0, 0), ord, keepdim=True))
