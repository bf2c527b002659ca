"""``SparseAdam``: PyTorch's argument checks, and its error for dense gradients (numtorch has
no sparse tensors)."""
import pytest

from helpers import check_error


@pytest.mark.parametrize("kwargs", [{"lr": 0.0}, {"eps": -1.0}, {"betas": (1.0, 0.9)},
                                    {"betas": (0.9, -0.1)}], ids=["lr", "eps", "beta0", "beta1"])
def test_sparse_adam_argument_errors(kwargs):
    check_error(lambda lib: lib.optim.SparseAdam([lib.nn.Parameter(lib.ones(2))], **kwargs))


def test_sparse_adam_refuses_dense_gradients():
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SparseAdam([p])
        (p * 2).sum().backward()
        opt.step()
    check_error(run)
