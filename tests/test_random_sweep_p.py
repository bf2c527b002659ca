"""Random functions against PyTorch (sweep P): the argument checks and dispatch errors of
cauchy_/log_normal_/geometric_, Generator state and attribute errors, and the parser's
choice between a named-argument error and "invalid combination" in the random factories."""
import pytest

from helpers import check_error, check_same


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool",
                                   "complex64", "complex128"])
@pytest.mark.parametrize("call", [
    lambda t: t.cauchy_(),
    lambda t: t.log_normal_(),
    lambda t: t.geometric_(0.5),
])
def test_fill_dtype_errors(torch, dtype, call):
    def run(lib):
        lib.manual_seed(0)
        t = lib.zeros(2, dtype=getattr(lib, dtype))
        return call(t).tolist()
    if _works(torch, dtype, call):
        check_same(run, exact=True)            # geometric_ fills integer tensors
    else:
        check_error(run)


def _works(torch, dtype, call):
    try:
        call(torch.zeros(2, dtype=getattr(torch, dtype)))
    except (RuntimeError, NotImplementedError):
        return False
    return True


@pytest.mark.parametrize("call", [
    lambda lib: lib.zeros(2).cauchy_(0, 0),
    lambda lib: lib.zeros(2).cauchy_(0, -1.5),
    lambda lib: lib.zeros(2).cauchy_(0, float("nan")),
    lambda lib: lib.zeros(0).cauchy_(0, -1),
    lambda lib: lib.zeros(0, dtype=lib.int64).cauchy_(),       # checked before dispatch
    lambda lib: lib.zeros(2, dtype=lib.int64).cauchy_(0, -1),  # sigma is checked first
    lambda lib: lib.zeros(2).log_normal_(0, 0.0),
    lambda lib: lib.zeros(2).log_normal_(0, float("nan")),
    lambda lib: lib.zeros(2).geometric_(1),
    lambda lib: lib.zeros(2).geometric_(0.0),
    lambda lib: lib.zeros(2).geometric_(float("nan")),
])
def test_fill_argument_errors(torch, call):
    check_error(call)


def test_empty_int_tensors_skip_dispatch(torch):
    # log_normal_/geometric_ dispatch (and fail) only when there is something to fill
    check_same(lambda lib: (lib.zeros(0, dtype=lib.int64).log_normal_().shape,
                            lib.zeros(0, dtype=lib.bool).geometric_(0.5).shape), exact=True)


def test_fills_stay_in_step(torch):
    def run(lib):
        lib.manual_seed(0)
        out = [lib.zeros(5).cauchy_(1, 2), lib.zeros(5, dtype=lib.float16).log_normal_(),
               lib.zeros(5, dtype=lib.int32).geometric_(0.3), lib.rand(3)]
        return [t.tolist() for t in out]
    check_same(run, exact=True)


@pytest.mark.parametrize("state", [[1, 2], "x", None])
def test_set_state_needs_a_tensor(torch, state):
    check_error(lambda lib: lib.Generator().set_state(state))
    check_error(lambda lib: lib.set_rng_state(state))


def test_generator_attribute_error_names_the_c_type(torch):
    check_error(lambda lib: lib.Generator().shape)
    check_same(lambda lib: type(lib.Generator().clone_state()).__name__, exact=True)


@pytest.mark.parametrize("call", [
    lambda lib: lib.rand(2, 3, generator=5),
    lambda lib: lib.randn(3, generator="a"),
    lambda lib: lib.rand(2.0, generator=lib.Generator()),
    lambda lib: lib.rand(2.0, dtype=lib.float64),
    lambda lib: lib.randn(2.5),
    lambda lib: lib.randn(2, "a"),
    lambda lib: lib.randperm(3, generator=5),
    lambda lib: lib.randperm(10.0),
    lambda lib: lib.randperm(10.0, generator=lib.Generator()),
    lambda lib: lib.randperm(10.0, dtype=lib.int32),
    lambda lib: lib.randint(0, 1.5, (2,), generator=lib.Generator()),
    lambda lib: lib.normal(0, 1, generator=lib.Generator()),
    lambda lib: lib.bernoulli(1.0, generator=lib.Generator()),
    lambda lib: lib.bernoulli(0.5),
])
def test_factory_parser_errors(torch, call):
    check_error(call)


def test_random_split_with_float_lengths_summing_to_n(torch):
    # random_split calls randperm(sum(lengths), generator=...): a float sum is an error there
    check_error(lambda lib: lib.utils.data.random_split(range(10), (3, 7.0)))
