"""The random factories' arguments (size=, out=, generator= on the _like forms, randint's two
forms and its parser errors), torch.poisson, torch.random (fork_rng) and Generator objects,
each against PyTorch for the same seed."""
import copy
import pickle

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, plain


def seeded(fn, seed=0):
    """``fn(lib)`` run right after ``lib.manual_seed(seed)``: same numbers in both libraries."""
    def run(lib):
        lib.manual_seed(seed)
        return fn(lib)
    return run


# ---- size= keyword, out=, generator= -------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda L: L.rand(size=(2, 3)),
    lambda L: L.randn(size=[4]),
    lambda L: L.randint(5, size=(3,)),
    lambda L: L.randint(high=5, size=(3,)),
    lambda L: L.randint(2, 9, size=(2, 2)),
    lambda L: L.randint(L.tensor(5), (4,)),
    lambda L: L.rand_like(L.zeros(3), generator=L.Generator().manual_seed(1)),
    lambda L: L.randn_like(L.zeros(3, dtype=L.float64), generator=L.Generator().manual_seed(1)),
    lambda L: L.randint_like(L.zeros(3), 10, generator=L.Generator().manual_seed(1)),
    lambda L: L.randint_like(L.zeros(3), 3, 10, generator=L.Generator().manual_seed(1)),
], ids=["rand", "randn", "randint-high", "randint-kw", "randint-low", "randint-tensor-high",
        "rand_like", "randn_like", "randint_like-high", "randint_like-low-high"])
def test_keyword_forms(call):
    check_same(seeded(call), exact=True)


OUT_CALLS = {
    "rand": lambda L, o: L.rand(3, out=o),
    "randn": lambda L, o: L.randn(2, 2, out=o),
    "normal": lambda L, o: L.normal(0., 1., (2,), out=o),
    "normal-tensor": lambda L, o: L.normal(L.zeros(3, dtype=o.dtype), 1., out=o),
    "bernoulli": lambda L, o: L.bernoulli(L.full((4,), 0.5, dtype=o.dtype), out=o),
}


@pytest.mark.parametrize("name", OUT_CALLS)
def test_out_takes_its_dtype_and_is_written(name):
    def run(lib):
        out = lib.zeros(3, dtype=lib.float64)
        res = OUT_CALLS[name](lib, out)
        return res is out, out
    check_same(seeded(run), exact=True)


@pytest.mark.parametrize("call", [
    lambda L, o: L.randint(0, 9, (4,), out=o),
    lambda L, o: L.randperm(5, out=o),
    lambda L, o: L.multinomial(L.ones(4), 2, out=o.long()),
])
def test_integer_out(call):
    def run(lib):
        out = lib.zeros(2, dtype=lib.int32)
        res = call(lib, out)
        return out if res is out else res
    check_same(seeded(run), exact=True)


@pytest.mark.parametrize("call", [
    lambda L: L.rand(3, out=L.zeros(3, dtype=L.float64), dtype=L.float32),
    lambda L: L.randint(3, (2,), out=L.zeros(2, dtype=L.int32), dtype=L.int64),
    lambda L: L.randperm(3, out=L.zeros(3, dtype=L.int32), dtype=L.int64),
    lambda L: L.rand(2, out=L.zeros(2, dtype=L.int32)),
])
def test_out_dtype_errors(call):
    check_error(call)


# ---- randint's argument errors (PyTorch's parser) ------------------------------------------
@pytest.mark.parametrize("call", [
    lambda L: L.randint(0, 5),
    lambda L: L.randint(3.5, (2,)),
    lambda L: L.randint(True, (2,)),
    lambda L: L.randint([2], (2,)),
    lambda L: L.randint(L.tensor(1.), (2,)),
    lambda L: L.randint(0, high=5),
    lambda L: L.randint(high=5, size=3),
    lambda L: L.randint(5, None),
    lambda L: L.randint(0, 3.5, (2,)),
    lambda L: L.randint(0, 5, 3),
    lambda L: L.randint(5),
    lambda L: L.randint(high=5),
    lambda L: L.randint(size=(3,)),
    lambda L: L.randint(0, 5, 2, 2),
    lambda L: L.randint(0., 5, (2,), dtype=L.int32),
    lambda L: L.randint(0, 5, size=3),
    lambda L: L.randperm(3.),
    lambda L: L.normal(0, 1),
    lambda L: L.normal(0., 1., 3),
    lambda L: L.randint_like(L.zeros(2), 2.5),
])
def test_argument_errors(call):
    check_error(call)


# ---- poisson --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("seed", [0, 7, 2**32 + 1])
def test_poisson_matches_torch_and_leaves_the_same_state(torch, dtype, seed):
    rng = np.random.default_rng(seed % 1000)
    rates = np.concatenate([rng.random(40) * 12, rng.random(40) * 500, [0, 10, 9.999, 1e4]])
    rates = rates.astype(dtype)
    torch.manual_seed(seed)
    numtorch.manual_seed(seed)
    ref = torch.poisson(torch.from_numpy(rates.copy()))
    mine = numtorch.poisson(numtorch.from_numpy(rates.copy()))
    assert plain(mine) == plain(ref)
    np.testing.assert_array_equal(numtorch.get_rng_state().numpy(),
                                  torch.get_rng_state().numpy())


def test_poisson_generator_grad_fn_and_errors():
    check_same(lambda L: L.poisson(L.ones(4) * 3, L.Generator().manual_seed(2)), exact=True)

    def graph(lib):
        rates = lib.tensor([2., 30.], requires_grad=True)
        out = lib.poisson(rates)
        out.sum().backward()
        return type(out.grad_fn).__name__, rates.grad
    check_same(seeded(graph), exact=True)
    check_error(lambda L: L.poisson(L.tensor([1, 2])))
    check_error(lambda L: L.poisson(L.tensor([1., -1.])))
    check_error(lambda L: L.poisson(L.tensor([float("nan")])))


# ---- torch.random and Generator objects -----------------------------------------------------
def test_fork_rng_restores_the_default_generator():
    def run(lib):
        lib.manual_seed(3)
        with lib.random.fork_rng():
            inside = lib.rand(3)
        after = lib.rand(3)
        with lib.random.fork_rng(enabled=False):
            lib.rand(1)
        return inside, after, lib.rand(2), lib.random.initial_seed()
    check_same(run, exact=True)


def test_random_module_functions():
    def run(lib):
        g = lib.random.manual_seed(11)
        state = lib.random.get_rng_state()
        a = lib.randn(4)
        lib.random.set_rng_state(state)
        return type(g).__name__, a, lib.randn(4), lib.random.thread_safe_generator()
    check_same(run, exact=True)


def test_fork_rng_body_error_still_restores():
    numtorch.manual_seed(5)
    expected = numtorch.rand(2)
    numtorch.manual_seed(5)
    with pytest.raises(ValueError):
        with numtorch.random.fork_rng():
            numtorch.rand(10)
            raise ValueError("boom")
    assert numtorch.equal(numtorch.rand(2), expected)


def test_generator_repr_type_device_and_copies(torch):
    g = numtorch.Generator().manual_seed(3)
    ref = torch.Generator().manual_seed(3)
    assert repr(g).split(" at ")[0] == repr(ref).split(" at ")[0]
    assert str(type(g)) == str(type(ref))
    assert repr(g.device) == repr(ref.device)
    numtorch.rand(5, generator=g)
    for twin in (copy.deepcopy(g), pickle.loads(pickle.dumps(g))):
        assert twin.initial_seed() == 3
        assert numtorch.equal(numtorch.rand(4, generator=twin),
                              numtorch.rand(4, generator=copy.deepcopy(g)))


def test_docstring_examples():
    import doctest
    from numtorch import _random_factories, random
    for module in (_random_factories, random):
        assert doctest.testmod(module).failed == 0, module


def test_generator_clone_state_and_unsupported_methods():
    def run(lib):
        g = lib.Generator().manual_seed(7)
        lib.randn(3, generator=g)  # leaves a cached normal sample behind
        c = g.clone_state()
        return c.initial_seed(), lib.randn(3, generator=c), lib.randn(3, generator=g)
    check_same(run, exact=True)
    for method, args in (("graphsafe_get_state", ()), ("graphsafe_set_state", (None,)),
                         ("get_offset", ()), ("set_offset", (3,))):
        check_error(lambda L: getattr(L.Generator(), method)(*args))
    check_error(lambda L: L.Generator().graphsafe_set_state(L.Generator()))
