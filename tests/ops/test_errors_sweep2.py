"""Bad input to shape, indexing, reduction, conversion and linalg ops gets PyTorch's
exception type and message (second sweep)."""
import numpy as np
import pytest

from helpers import check_error, check_same


def _x(m):
    return m.arange(12.0).reshape(3, 4)


def _x3(m):
    return m.arange(24.0).reshape(2, 3, 4)


ERROR_CASES = {
    # linalg
    "addmm expand": lambda m: m.addmm(_x(m)[:, :3], m.ones(2, 3), m.ones(3, 2)),
    "addmm vector": lambda m: m.addmm(m.ones(2), m.ones(2, 3), m.ones(3, 4)),
    "addmm 3-d input": lambda m: m.addmm(m.ones(1, 2, 4), m.ones(2, 3), m.ones(3, 4)),
    # expand checks from the last dim
    "expand_as": lambda m: m.ones(2, 3).expand_as(m.ones(3, 2)),
    "expand leading -1": lambda m: m.ones(3).expand(-1, -1, 3),
    "expand last first": lambda m: m.ones(3).expand(-1, 4),
    "expand two bad": lambda m: m.ones(2, 1).expand(5, 3, 4),
    # cat, squeeze, flatten of 0-d tensors
    "cat 0-d": lambda m: m.cat([m.tensor(1.0), m.tensor(2.0)]),
    "cat 0-d second": lambda m: m.cat([m.ones(2), m.tensor(2.0)]),
    "cat 0-d bad dim": lambda m: m.cat([m.ones(2), m.tensor(2.0)], dim=5),
    "cat 0-d after empty": lambda m: m.cat([m.ones(0), m.tensor(2.0)]),
    "squeeze 0-d dim 1": lambda m: m.tensor(1.0).squeeze(1),
    "squeeze 0-d dim -2": lambda m: m.tensor(1.0).squeeze(-2),
    "squeeze 0-d dims": lambda m: m.tensor(1.0).squeeze((0, 1)),
    "squeeze_ 0-d": lambda m: m.tensor(1.0).squeeze_(1),
    "flatten 0-d": lambda m: m.tensor(1.0).flatten(0, 1),
    # indexing: the dimension PyTorch names
    "None then int": lambda m: _x(m)[None, 5],
    "None slice int": lambda m: _x(m)[None, :, 7],
    "int int": lambda m: _x(m)[1, 7],
    "3-d None int int": lambda m: _x3(m)[None, 1, 9],
    "3-d ellipsis int": lambda m: _x3(m)[..., 9],
    "3-d int ellipsis int": lambda m: _x3(m)[0, ..., 9],
    "3-d tensor then int": lambda m: _x3(m)[m.tensor([0]), 9],
    "index tensor second dim": lambda m: _x(m)[:, m.tensor([5])],
    "index_put_": lambda m: _x(m).index_put_((m.tensor([5]),), m.tensor(1.0)),
    "index_put_ second index": lambda m: _x(m).index_put_((m.tensor([1]), m.tensor([9])),
                                                          m.tensor(1.0)),
    "index_put": lambda m: m.index_put(_x(m), (m.tensor([5]),), m.tensor(1.0)),
    "setitem tensor second dim": lambda m: _x(m).__setitem__((slice(None), m.tensor([5])), 1.0),
    # the argument parser's errors
    "view float": lambda m: _x(m).view(2.0, 6),
    "view float tuple": lambda m: _x(m).view((2.0, 6)),
    "view str": lambda m: _x(m).view("a"),
    "view None": lambda m: _x(m).view(None),
    "view numpy type": lambda m: _x(m).view(np.float32),
    "view float second": lambda m: _x(m).view(2, 6.0),
    "sum str": lambda m: _x(m).sum("a"),
    "sum float": lambda m: _x(m).sum(1.0),
    "sum list of float": lambda m: _x(m).sum([1.0]),
    "sum numpy dtype": lambda m: _x(m).sum(dtype=np.float32),
    "sum dim numpy dtype": lambda m: _x(m).sum(1, dtype=np.float32),
    "mean float": lambda m: _x(m).mean(1.0),
    "mean numpy dtype": lambda m: _x(m).mean(dtype=np.float64),
    "cumsum no dim": lambda m: _x(m).cumsum(),
    "torch.cumsum no dim": lambda m: m.cumsum(_x(m)),
    "cumprod no dim": lambda m: _x(m).cumprod(),
    "to numpy type": lambda m: _x(m).to(np.float32),
    "to numpy dtype keyword": lambda m: _x(m).to(dtype=np.float32),
    "to numpy type copy": lambda m: _x(m).to(np.float32, copy=True),
    "type float": lambda m: _x(m).type(float),
    "type int": lambda m: _x(m).type(int),
    "type numpy": lambda m: _x(m).type(np.int64),
    "type bad string": lambda m: _x(m).type("torch.float"),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors(name):
    check_error(ERROR_CASES[name])


VALUE_CASES = {
    "view float type": lambda m: _x(m).view(float),
    "view int type": lambda m: _x(m).view(int),
    "sum float dtype": lambda m: _x(m).sum(dtype=float),
    "mean float dtype": lambda m: _x(m).mean(dtype=float),
    "to float": lambda m: _x(m).to(float),
    "type legacy string": lambda m: _x(m).type("torch.DoubleTensor"),
    "type dtype": lambda m: _x(m).type(m.int32),
    "squeeze 0-d dim 0": lambda m: m.tensor(1.0).squeeze(0),
    "squeeze 0-d dim -1": lambda m: m.tensor(1.0).squeeze(-1),
    "flatten 0-d": lambda m: m.tensor(1.0).flatten(),
    "expand -1": lambda m: m.ones(2, 1).expand(-1, 3),
    "addmm broadcast": lambda m: m.addmm(m.ones(2, 1), m.ones(2, 3), m.ones(3, 4)),
    "addmm double input": lambda m: m.addmm(m.ones(2, 1).double(), m.ones(2, 3).double(),
                                            m.ones(3, 4).double()),
    "view numpy int size": lambda m: _x(m).view(np.int64(2), 6),
    "view tensor size": lambda m: _x(m).view(m.tensor(2), 6),
}


@pytest.mark.parametrize("name", list(VALUE_CASES))
def test_values(name):
    check_same(VALUE_CASES[name])
