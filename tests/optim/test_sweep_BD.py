"""Sweep BD (training scripts: optimizers): each optimizer's learning-rate check as PyTorch
writes it (SGD tests ``lr < 0.0``, so NaN passes and a non-number's TypeError names ``<``;
the others test ``not 0.0 <= lr``)."""
import pytest

from helpers import check_error, check_same

_OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
               "RAdam", "Rprop", "ASGD", "LBFGS"]


def _make(lib, name, lr):
    return getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(1))], lr=lr)


@pytest.mark.parametrize("name", _OPTIMIZERS)
@pytest.mark.parametrize("lr", ["x", None, -1.0])
def test_bad_lr_error(name, lr):
    check_error(lambda lib: _make(lib, name, lr))


@pytest.mark.parametrize("name", _OPTIMIZERS)
def test_nan_lr(name):
    """SGD takes a NaN learning rate; the others reject it."""
    def run(lib):
        try:
            return repr(_make(lib, name, float("nan")).param_groups[0]["lr"])
        except ValueError as e:
            return str(e)
    check_same(run)
