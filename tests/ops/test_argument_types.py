"""A non-tensor where an op takes a Tensor gets PyTorch's TypeError (its argument parser's
wording), never an AttributeError from inside numtorch."""
import numpy as np
import pytest

import numtorch
from helpers import check_error

CASES = {
    "sin(list)": lambda m: m.sin([1.0]),
    "exp(int)": lambda m: m.exp(2),
    "tanh(float)": lambda m: m.tanh(1.0),
    "abs(int)": lambda m: m.abs(-1),
    "sin(ndarray)": lambda m: m.sin(np.ones(2)),
    "exp(out=int)": lambda m: m.exp(m.ones(2), out=3),
    "relu(list)": lambda m: m.relu([1.0]),
    "F.relu(list)": lambda m: m.nn.functional.relu([1.0]),
    "ReLU()(int)": lambda m: m.nn.ReLU()(3),
    "sum(list)": lambda m: m.sum([1, 2]),
    "mean(list)": lambda m: m.mean([1.0]),
    "matmul(list, list)": lambda m: m.matmul([1.0], [2.0]),
    "matmul(t, list)": lambda m: m.matmul(m.ones(2), [1.0, 2.0]),
    "linear(list)": lambda m: m.nn.Linear(2, 2)([1.0, 2.0]),
    "linear(t, list)": lambda m: m.nn.functional.linear(m.ones(2), [[1.0, 2.0]]),
    "cat(lists)": lambda m: m.cat([[1.0], [2.0]]),
    "stack(t, float)": lambda m: m.stack([m.ones(1), 2.0]),
    "softmax(list)": lambda m: m.nn.functional.softmax([1.0, 2.0], dim=0),
}


@pytest.mark.parametrize("name", list(CASES))
def test_non_tensor_argument_errors(name):
    check_error(CASES[name])


def test_is_signed(torch):
    for dt in ("int64", "uint8", "float32", "bool"):
        assert numtorch.is_signed(numtorch.zeros(1, dtype=getattr(numtorch, dt))) == \
            torch.is_signed(torch.zeros(1, dtype=getattr(torch, dt)))
    check_error(lambda m: m.is_signed([1]))
