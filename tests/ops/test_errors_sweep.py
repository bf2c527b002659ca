"""Bad input to linear-algebra and shape ops gets PyTorch's exception type and message."""
import pytest

from helpers import check_error

CASES = {
    "mv 2-d vector": lambda m: m.mv(m.ones(2, 3), m.ones(3, 1)),
    "mv 3-d matrix": lambda m: m.mv(m.ones(2, 3, 1), m.ones(3)),
    "tensordot int dims": lambda m: m.tensordot(m.ones(2, 3), m.ones(4, 5), dims=1),
    "tensordot lists": lambda m: m.tensordot(m.ones(2, 3), m.ones(4, 5), dims=([1], [0])),
    "tensordot lengths": lambda m: m.tensordot(m.ones(2, 3), m.ones(3, 5),
                                               dims=([1, 0], [0])),
    "view negative": lambda m: m.ones(12).view(-2, 6),
    "reshape negative": lambda m: m.ones(12).reshape(3, -4),
}


@pytest.mark.parametrize("name", list(CASES))
def test_errors(name):
    check_error(CASES[name])


def test_tensordot_broadcasts_size_one(torch):
    import numtorch
    a = numtorch.tensordot(numtorch.ones(2, 1), numtorch.ones(3, 5), dims=1)
    ref = torch.tensordot(torch.ones(2, 1), torch.ones(3, 5), dims=1)
    assert tuple(a.shape) == tuple(ref.shape)
    assert a.tolist() == ref.tolist()
