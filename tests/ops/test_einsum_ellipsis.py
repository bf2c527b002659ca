"""``einsum`` with '...', broadcasting, implicit outputs and repeated labels, against PyTorch
(values and gradients), numerically to second order, and PyTorch's errors."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op, numerical_grad_check

CASES = [
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 3, 4), (4, 5)]),
    ("i...->...", [(3, 2, 4)]),
    ("...i,...i->...", [(2, 3), (3,)]),
    ("b...,b...->b", [(2, 3, 4), (2, 3, 4)]),
    ("...", [(2, 3)]),
    ("...->", [(2, 3)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("a...b,b...->a...", [(2, 3, 4), (4, 3)]),
    ("ij...,jk...->ik...", [(2, 3, 5), (3, 4, 1)]),
    ("...ij,...j->...i", [(1, 3, 4), (5, 1, 4)]),
    ("ij,jk", [(2, 3), (1, 4)]),
    ("ii", [(3, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("ii,j->j", [(3, 3), (2,)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]),
    ("... ij , ...jk -> ...ik", [(2, 3, 4), (2, 4, 5)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
]


def _einsum(tensors, equation):
    """``einsum`` of the library the tensors belong to."""
    lib = numtorch if isinstance(tensors[0], numtorch.Tensor) else pytest.importorskip("torch")
    return lib.einsum(equation, *tensors)


@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(torch, equation, shapes):
    rng = np.random.RandomState(0)
    inputs = [rng.randn(*s) for s in shapes]
    check_op(lambda *xs: _einsum(xs, equation), *inputs, grad_fn=False)


@pytest.mark.parametrize("equation,shapes", [
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 2)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("ii", [(3, 3)]),
    ("i...,...->i", [(2, 3), (1,)]),
])
def test_second_derivatives(equation, shapes):
    rng = np.random.RandomState(1)
    numerical_grad_check(lambda *xs: numtorch.einsum(equation, *xs),
                         [rng.randn(*s) for s in shapes])


ERRORS = [
    lambda lib: lib.einsum("ij,jk", lib.ones(2, 3), lib.ones(4, 4)),
    lambda lib: lib.einsum("ij", lib.ones(2, 3, 4)),
    lambda lib: lib.einsum("i.j", lib.ones(2, 3)),
    lambda lib: lib.einsum("ij->ik", lib.ones(2, 3)),
    lambda lib: lib.einsum("ij,jk", lib.ones(2, 3)),
    lambda lib: lib.einsum("ij->ii", lib.ones(2, 2)),
    lambda lib: lib.einsum("ij...->...j...", lib.ones(2, 2)),
    lambda lib: lib.einsum("i...j...", lib.ones(2, 2)),
    lambda lib: lib.einsum("ijk...", lib.ones(2, 2)),
    lambda lib: lib.einsum("i", lib.ones(2), lib.ones(2)),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(fn):
    check_error(fn)


@pytest.mark.parametrize("eq,shapes,dtype", [
    ("i->", [(3,)], "int32"), ("ij->i", [(2, 3)], "int32"), ("iji->j", [(2, 3, 2)], "int32"),
    ("i,j->ij", [(2,), (3,)], "int32"), ("ij->ij", [(2, 3)], "int32"),
    ("i,i->", [(3,), (3,)], "int32"), ("i->", [(3,)], "bool"), ("i->", [(3,)], "uint8"),
    ("ii->i", [(2, 2)], "int16"), ("...i->...", [(2, 3)], "int32"), ("i->", [(3,)], "float32"),
    ("...ik,...j->ij", [(1, 2, 3), (3,)], "int32"), ("ik,j->ij", [(2, 3), (4,)], "int64")])
def test_integer_sums_promote_as_torch_sum(eq, shapes, dtype, torch):
    # an integer operand summed over a label of its own sums to int64 (torch.sum's
    # promotion); products and contractions keep the dtype
    def run(lib):
        return str(lib.einsum(eq, *[lib.ones(*s, dtype=getattr(lib, dtype)) for s in shapes]))
    assert run(numtorch) == run(torch)
