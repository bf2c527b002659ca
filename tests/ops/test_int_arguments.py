"""An int argument (a dim, a size, a count) of the wrong type gets PyTorch's parser error:
the op's name, the argument's name and its position (method and function differ), or the
list of overloads; NumPy ints and 0-dim integer tensors keep working."""
import numpy as np
import pytest

from helpers import check_error, check_same

X = lambda m: m.arange(6.).reshape(2, 3)  # noqa: E731

ERRORS = {
    "transpose dim1": lambda m: X(m).transpose(0, 1.0),
    "transpose dim0 bool": lambda m: X(m).transpose(True, 0),
    "torch.transpose": lambda m: m.transpose(X(m), 0, "a"),
    "swapaxes": lambda m: X(m).swapaxes(0, None),
    "unsqueeze": lambda m: X(m).unsqueeze(1.0),
    "torch.unsqueeze": lambda m: m.unsqueeze(X(m), 1.0),
    "flatten start": lambda m: X(m).flatten(0.0),
    "flatten end": lambda m: X(m).flatten(0, 1.0),
    "torch.flatten": lambda m: m.flatten(X(m), 1.0),
    "select dim": lambda m: X(m).select(1.0, 0),
    "select index": lambda m: X(m).select(0, 1.0),
    "select index bool": lambda m: m.select(X(m), 0, True),
    "narrow start": lambda m: X(m).narrow(0, 0.0, 1),
    "narrow length": lambda m: m.narrow(X(m), 0, 0, 1.0),
    "narrow float tensor start": lambda m: X(m).narrow(0, m.tensor(0.0), 1),
    "movedim": lambda m: X(m).movedim(1.0, 0),
    "cat dim": lambda m: m.cat([X(m), X(m)], 1.0),
    "stack dim kw": lambda m: m.stack([X(m), X(m)], dim=1.0),
    "topk k": lambda m: X(m).topk(1.0),
    "torch.topk k": lambda m: m.topk(X(m), 1.0),
    "kthvalue k": lambda m: X(m).kthvalue(1.0),
    "argmax": lambda m: X(m).argmax(1.0),
    "torch.argmax kw": lambda m: m.argmax(X(m), dim=1.0),
    "softmax": lambda m: X(m).softmax(1.0),
    "cumsum": lambda m: m.cumsum(X(m), "a"),
    "sum": lambda m: X(m).sum(1.0),
    "torch.sum": lambda m: m.sum(X(m), "a"),
    "mean": lambda m: m.mean(X(m), 1.0),
    "amax": lambda m: X(m).amax(1.0),
    "reshape first": lambda m: X(m).reshape(2.0, 3),
    "reshape later": lambda m: X(m).reshape(2, 3.0),
    "expand first": lambda m: X(m).expand(2.0, 3),
    "expand later": lambda m: X(m).expand(2, 3.0),
    "repeat first": lambda m: X(m).repeat(2.0, 1),
    "repeat later": lambda m: X(m).repeat(1, 2.0),
    "permute first": lambda m: X(m).permute(1.0, 0),
    "permute later": lambda m: X(m).permute(1, 0.0),
    "chunk": lambda m: X(m).chunk(2.0),
    "chunk bool": lambda m: X(m).chunk(True),
}


@pytest.mark.parametrize("name", ERRORS)
def test_parser_error(name):
    check_error(ERRORS[name])


ACCEPTED = {
    "numpy dim": lambda m: X(m).transpose(0, np.int64(1)),
    "tensor dim": lambda m: X(m).unsqueeze(m.tensor(1)),
    "tensor index": lambda m: X(m).select(0, m.tensor([1])),
    "numpy sizes": lambda m: X(m).reshape(np.int64(3), 2),
    "tensor sizes": lambda m: X(m).expand(m.tensor(2), 3),
    "tensor k": lambda m: X(m).topk(m.tensor(2)),
    "tensor narrow": lambda m: X(m).narrow(1, m.tensor(1), m.tensor(2)),
    "numpy chunk": lambda m: X(m).chunk(np.int64(2)),
    "tensor dims": lambda m: X(m).sum((m.tensor(0), 1)),
}


@pytest.mark.parametrize("name", ACCEPTED)
def test_integer_like_arguments_work(name):
    check_same(ACCEPTED[name])
