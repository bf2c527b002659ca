"""In-place random fills of non-contiguous tensors draw in memory order, as PyTorch's
TensorIterator does (and ``normal_`` takes its scalar path there), for the same seed."""
import pytest

from helpers import check_same

LAYOUTS = {
    "t": lambda lib: lib.empty(3, 4).t(),
    "t_large": lambda lib: lib.empty(5, 7).t(),
    "permute": lambda lib: lib.empty(2, 3, 4).permute(2, 0, 1),
    "step_slice": lambda lib: lib.empty(4, 6)[:, ::2],
    "slice_t": lambda lib: lib.empty(6, 8)[1:5, ::2].t(),
    "double_t": lambda lib: lib.empty(5, 7, dtype=lib.float64).t(),
    "size_one": lambda lib: lib.empty(1, 20).t(),
}
FILLS = {
    "uniform_": lambda x: x.uniform_(-1, 2),
    "normal_": lambda x: x.normal_(1, 2),
    "bernoulli_": lambda x: x.bernoulli_(0.3),
    "bernoulli_tensor": lambda x: x.bernoulli_(x.new_full(x.shape, 0.4)),
    "random_": lambda x: x.random_(0, 100),
    "random_full": lambda x: x.random_(),
    "exponential_": lambda x: x.exponential_(2.0),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("fill", list(FILLS))
def test_fill_order_matches_torch(torch, fill, layout):
    def run(lib):
        lib.manual_seed(0)
        x = LAYOUTS[layout](lib)
        FILLS[fill](x)
        return x, lib.rand(2)
    check_same(run)


def test_integer_fill_order(torch):
    def run(lib):
        lib.manual_seed(1)
        return lib.empty(5, 7, dtype=lib.int64).t().random_(), lib.empty(
            3, 4, dtype=lib.int32).t().bernoulli_(0.5)
    check_same(run, exact=True)
