"""numtorch._random against PyTorch's CPU generator: same seed, same numbers, same state.

Every comparison also checks the 5056-byte generator state afterwards, so a sampler that
returned the right numbers but consumed the wrong number of words would still fail.
"""
import doctest
import math
from fractions import Fraction

import numpy as np
import pytest

from numtorch import _dtype, _random as R

torch = pytest.importorskip("torch")

SEEDS = (0, 2**32 + 5)
SIZES = (1, 5, 15, 16, 17, 100, 1000, 100003)
FLOATS = ("float16", "float32", "float64")


def _t(name):
    return getattr(torch, name)


def check(seed, torch_fn, nt_fn):
    """Seed both, run both: arrays equal bit for bit and generator states identical."""
    torch.manual_seed(seed)
    g = R.Generator().manual_seed(seed)
    expected = torch_fn()
    got = nt_fn(g)
    expected = expected.numpy() if isinstance(expected, torch.Tensor) else expected
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(g.get_state(), torch.get_rng_state().numpy())


# ---------------------------------------------------------------- floating samplers

FLOAT_CASES = {
    "rand": (lambda n, d: torch.rand(n, dtype=_t(d)),
             lambda g, n, d: R.uniform((n,), d, generator=g)),
    "uniform_": (lambda n, d: torch.empty(n, dtype=_t(d)).uniform_(-3.7, 11.3),
                 lambda g, n, d: R.uniform((n,), d, -3.7, 11.3, g)),
    "randn": (lambda n, d: torch.randn(n, dtype=_t(d)),
              lambda g, n, d: R.normal((n,), d, generator=g)),
    "normal": (lambda n, d: torch.normal(2.5, 0.37, (n,), dtype=_t(d)),
               lambda g, n, d: R.normal((n,), d, 2.5, 0.37, g)),
    "normal_": (lambda n, d: torch.empty(n, dtype=_t(d)).normal_(-1e3, 1e-3),
                lambda g, n, d: R.normal((n,), d, -1e3, 1e-3, g)),
    "exponential_": (lambda n, d: torch.empty(n, dtype=_t(d)).exponential_(0.7),
                     lambda g, n, d: R.exponential((n,), d, 0.7, g)),
    "bernoulli_p": (lambda n, d: torch.empty(n, dtype=_t(d)).bernoulli_(0.3),
                    lambda g, n, d: R.bernoulli_scalar((n,), 0.3, d, g)),
    "bernoulli_t": (lambda n, d: torch.bernoulli(torch.full((n,), 0.3, dtype=_t(d))),
                    lambda g, n, d: R.bernoulli_tensor(np.full(n, 0.3, d), d, g)),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("case", FLOAT_CASES)
def test_float_samplers(case, n, dtype):
    torch_fn, nt_fn = FLOAT_CASES[case]
    for seed in SEEDS:
        check(seed, lambda: torch_fn(n, dtype), lambda g: nt_fn(g, n, dtype))


@pytest.mark.parametrize("dtype", ("complex64", "complex128"))
@pytest.mark.parametrize("n", (3, 8, 9, 1000))
def test_complex(n, dtype):
    check(1, lambda: torch.rand(n, dtype=_t(dtype)), lambda g: R.uniform(n, dtype, generator=g))
    check(1, lambda: torch.randn(n, dtype=_t(dtype)), lambda g: R.normal(n, dtype, generator=g))


def test_shapes_and_empty():
    check(3, lambda: torch.randn(4, 5, 3), lambda g: R.normal((4, 5, 3), "float32", generator=g))
    check(3, lambda: torch.rand(2, 3), lambda g: R.uniform((2, 3), "float32", generator=g))
    check(3, lambda: torch.randn(0, 3), lambda g: R.normal((0, 3), "float32", generator=g))
    assert R.uniform(4, _dtype.float64).dtype == np.float64     # numtorch dtypes accepted


def test_scalar_normal_cache_carries_across_calls():
    # sizes < 16 cache the second Box-Muller sample in the generator, across calls and dtypes
    check(5, lambda: torch.cat([torch.randn(1).double(), torch.randn(3, dtype=torch.float64),
                                torch.randn(1).double()]),
          lambda g: np.concatenate([R.normal(1, "float32", generator=g).astype(np.float64),
                                    R.normal(3, "float64", generator=g),
                                    R.normal(1, "float32", generator=g).astype(np.float64)]))


# ---------------------------------------------------------------- integers

@pytest.mark.parametrize("lo,hi", [(0, 10), (-5, 3), (0, 2**28 - 1), (0, 2**28), (0, 2**32 + 7),
                                   (-2**40, 2**50), (-2**63, 2**63 - 1)])
@pytest.mark.parametrize("n", (5, 1000))
def test_randint_ranges(lo, hi, n):
    for seed in SEEDS:
        check(seed, lambda: torch.randint(lo, hi, (n,)),
              lambda g: R.randint(lo, hi, (n,), "int64", g))


INT_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64") + FLOATS


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_random_(dtype):
    low = 0 if dtype == "uint8" else -1
    n = 1000
    check(2, lambda: torch.empty(n, dtype=_t(dtype)).random_(),
          lambda g: R.random_(n, dtype, generator=g))
    check(2, lambda: torch.empty(n, dtype=_t(dtype)).random_(2),
          lambda g: R.random_(n, dtype, high=2, generator=g))
    if dtype != "bool":
        check(2, lambda: torch.empty(n, dtype=_t(dtype)).random_(low, None),
              lambda g: R.random_(n, dtype, low, None, g))
        check(2, lambda: torch.randint(low, 100, (n,), dtype=_t(dtype)),
              lambda g: R.randint(low, 100, n, dtype, g))


@pytest.mark.parametrize("dtype", ("int64", "float32", "float64"))
def test_random_full_64_bits(dtype):
    check(4, lambda: torch.empty(50, dtype=_t(dtype)).random_(-2**63, None),
          lambda g: R.random_(50, dtype, -2**63, None, g))


def test_random_float_bounds_rounding_and_warnings():
    # bounds beyond 2**24 are rounded into float32 the way PyTorch's update_from/to do
    torch.manual_seed(4)
    with pytest.warns(UserWarning) as rec_t:
        expected = torch.empty(9).random_(2**25 - 3, 2**25 + 9).numpy()
    g = R.Generator().manual_seed(4)
    with pytest.warns(UserWarning) as rec_n:
        got = R.random_(9, "float32", 2**25 - 3, 2**25 + 9, g)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(g.get_state(), torch.get_rng_state().numpy())
    assert [str(w.message) for w in rec_n] == \
        [str(w.message).split(" (Triggered internally")[0] for w in rec_t]


# ---------------------------------------------------------------- randperm

@pytest.mark.parametrize("n", (0, 1, 2, 6, 100, 10000, 100000, 300007))
def test_randperm(n):
    check(0, lambda: torch.randperm(n), lambda g: R.randperm(n, generator=g))
    if n <= 10000:
        check(9, lambda: torch.randperm(n, dtype=torch.float64),
              lambda g: R.randperm(n, "float64", g))


@pytest.mark.parametrize("dtype,n", [("float16", 2049), ("uint8", 256), ("int8", 128),
                                     ("int16", 5000), ("int32", 777), ("float32", 4096)])
def test_randperm_dtypes(dtype, n):
    check(1, lambda: torch.randperm(n, dtype=_t(dtype)), lambda g: R.randperm(n, dtype, g))


def test_randperm_vectorised_replays_the_loops():
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 10, 257):
        for _ in range(10):
            j = np.array([i + rng.integers(0, n - i) for i in range(n)])
            a = list(range(n))                      # forward Fisher-Yates (n < 2**32/20)
            for i in range(n):
                a[i], a[j[i]] = a[j[i]], a[i]
            assert R._forward_swaps(j).tolist() == a
            z = np.array([rng.integers(0, i + 1) for i in range(n)])
            r = list(range(n))                      # inside-out shuffle (huge n)
            for i in range(n):
                r[i] = r[z[i]]
                r[z[i]] = i
            assert R._inside_out(z).tolist() == r


def test_randperm_huge_path(monkeypatch):
    # the inside-out path needs n >= 214748364 in PyTorch; replay it at a small n
    monkeypatch.setattr(R, "_RANDPERM_SMALL", 10)
    g, ref = R.Generator().manual_seed(3), R.Generator().manual_seed(3)
    words = ref._raw64(50)
    r = list(range(50))
    for i in range(50):
        z = int(words[i]) % (i + 1)
        r[i] = r[z]
        r[z] = i
    assert R.randperm(50, generator=g).tolist() == r


# ---------------------------------------------------------------- multinomial, normal(tensor)

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5,), (1000,), (7, 13), (2, 100000)])
def test_multinomial(shape, dtype):
    p = np.random.default_rng(0).random(shape).astype(dtype)
    p[..., 0] = 0                      # a zero-probability category is never drawn
    for k, replace in ((1, False), (3, False), (1, True), (3, True), (2000, True)):
        check(6, lambda: torch.multinomial(torch.from_numpy(p), k, replace),
              lambda g: R.multinomial(p, k, replace, g))


@pytest.mark.parametrize("n,k", [(6, 5), (40, 17), (40, 40), (200, 3), (3000, 60), (100, 99)])
def test_multinomial_ties_follow_libstdcxx(n, k):
    # zero-probability categories tie at q = 0; PyTorch's order for them comes from
    # std::partial_sort (64k <= n) or std::nth_element + std::sort
    rng = np.random.default_rng(n + k)
    p = np.where(rng.random(n) < 0.3, rng.random(n), 0).astype(np.float32)
    p[:2] = 1.0
    check(3, lambda: torch.multinomial(torch.from_numpy(p), k),
          lambda g: R.multinomial(p, k, generator=g))
    q = rng.integers(0, 4, n).astype(np.float32)
    q[rng.integers(0, n, 2)] = np.nan                 # NaN counts as the largest value
    assert R._topk_indices(q[None], k)[0].tolist() == \
        torch.topk(torch.from_numpy(q), k).indices.tolist()


def test_normal_tensor_overloads():
    rng = np.random.default_rng(1)
    for n in (3, 16, 40):
        m, s = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
        tm, ts = torch.from_numpy(m), torch.from_numpy(s)
        check(2, lambda: torch.normal(tm, ts), lambda g: R.normal_tensor(m, s, "float32", g))
        check(2, lambda: torch.normal(tm, 0.3), lambda g: R.normal_tensor(m, 0.3, "float32", g))
        check(2, lambda: torch.normal(0.3, ts), lambda g: R.normal_tensor(0.3, s, "float32", g))
        m2 = m[:4, None]
        check(2, lambda: torch.normal(torch.from_numpy(m2), ts),
              lambda g: R.normal_tensor(m2, s, "float32", g))
        m64 = m.astype(np.float64)
        check(2, lambda: torch.normal(torch.from_numpy(m64), ts),
              lambda g: R.normal_tensor(m64, s, "float64", g))


def test_bernoulli_tensor_broadcast_into_shape():
    p = np.random.default_rng(2).random((1, 7))
    check(0, lambda: torch.empty(5, 7).bernoulli_(torch.from_numpy(p)),
          lambda g: R.bernoulli_tensor(p, "float32", g, shape=(5, 7)))


# ---------------------------------------------------------------- streams and state

def test_interleaved_calls_stay_in_step():
    def torch_seq():
        parts = [torch.rand(3), torch.randn(5), torch.randint(0, 10, (7,)), torch.randn(17),
                 torch.randn(3, dtype=torch.float64), torch.randperm(10),
                 torch.empty(20).bernoulli_(0.5), torch.rand(1000), torch.randn(1),
                 torch.empty(4).exponential_(), torch.randn(1)]
        return np.concatenate([p.double().numpy() for p in parts])

    def nt_seq(g):
        parts = [R.uniform(3, "float32", generator=g), R.normal(5, "float32", generator=g),
                 R.randint(0, 10, 7, generator=g), R.normal(17, "float32", generator=g),
                 R.normal(3, "float64", generator=g), R.randperm(10, generator=g),
                 R.bernoulli_scalar(20, 0.5, "float32", g), R.uniform(1000, "float32", generator=g),
                 R.normal(1, "float32", generator=g), R.exponential(4, "float32", generator=g),
                 R.normal(1, "float32", generator=g)]
        return np.concatenate([p.astype(np.float64) for p in parts])
    for seed in SEEDS:
        check(seed, torch_seq, nt_seq)


def test_state_from_torch_with_cached_normal():
    torch.manual_seed(3)
    torch.randn(3)                          # leaves a cached Box-Muller sample
    g = R.Generator().set_state(torch.get_rng_state().numpy())
    np.testing.assert_array_equal(g.get_state(), torch.get_rng_state().numpy())
    np.testing.assert_array_equal(R.normal(5, "float32", generator=g), torch.randn(5).numpy())


def test_state_into_torch():
    g = R.Generator().manual_seed(9)
    R.normal(7, "float64", generator=g)
    R.uniform(5, "float32", generator=g)
    torch.set_rng_state(torch.from_numpy(g.get_state().numpy()))
    np.testing.assert_array_equal(torch.randn(9).numpy(), R.normal(9, "float32", generator=g))
    np.testing.assert_array_equal(g.get_state(), torch.get_rng_state().numpy())


def test_state_round_trip_preserves_bytes():
    g = R.Generator().manual_seed(11)
    for steps in (0, 1, 623, 624, 625):
        g.manual_seed(11)
        g._raw32(steps)
        state = g.get_state()
        np.testing.assert_array_equal(R.Generator().set_state(state).get_state(), state)


@pytest.mark.parametrize("seed", (0, 1, -1, -2**63, 2**64 - 1, 2**32 + 5, True, np.int64(7)))
def test_manual_seed_values(seed):
    torch.manual_seed(seed)
    g = R.Generator().manual_seed(seed)
    assert g.initial_seed() == torch.initial_seed()
    np.testing.assert_array_equal(g.get_state(), torch.get_rng_state().numpy())


def test_default_and_fresh_generators():
    np.testing.assert_array_equal(R.Generator().get_state(), torch.Generator().get_state().numpy())
    assert R.Generator().initial_seed() == torch.Generator().initial_seed() == R.DEFAULT_SEED
    g = R.Generator()
    s = g.seed()
    assert 0 <= s < 2**64 and g.initial_seed() == s and R.Generator().seed() != s
    saved = R.get_rng_state()
    try:
        R.manual_seed(12.0)                          # torch.manual_seed calls int()
        assert R.initial_seed() == 12 and R.default_generator.initial_seed() == 12
        a = R.uniform(4, "float32")
        R.manual_seed(12)
        np.testing.assert_array_equal(R.uniform(4, "float32"), a)
    finally:
        R.set_rng_state(saved)


# ---------------------------------------------------------------- errors

ERRORS = [
    (lambda: torch.rand(3, dtype=torch.int64), lambda: R.uniform(3, "int64")),
    (lambda: torch.empty(3).uniform_(2, 1), lambda: R.uniform(3, "float32", 2, 1)),
    (lambda: torch.empty(3).uniform_(0, 1e39), lambda: R.uniform(3, "float32", 0, 1e39)),
    (lambda: torch.empty(3, dtype=torch.float16).uniform_(-7e4, 0),
     lambda: R.uniform(3, "float16", -7e4, 0)),
    (lambda: torch.empty(3).uniform_(-3e38, 3e38), lambda: R.uniform(3, "float32", -3e38, 3e38)),
    (lambda: torch.empty(3).uniform_(math.nan, 1), lambda: R.uniform(3, "float32", math.nan, 1)),
    (lambda: torch.empty(0, dtype=torch.int64).uniform_(), lambda: R.uniform(0, "int64")),
    (lambda: torch.randn(3, dtype=torch.int32), lambda: R.normal(3, "int32")),
    (lambda: torch.empty(3).normal_(0, -1), lambda: R.normal(3, "float32", 0, -1)),
    (lambda: torch.empty(3).normal_(0, math.nan), lambda: R.normal(3, "float32", 0, math.nan)),
    (lambda: torch.normal(torch.zeros(3), torch.tensor([1., -1, 1])),
     lambda: R.normal_tensor(np.zeros(3, np.float32), np.array([1., -1, 1], np.float32),
                             "float32")),
    (lambda: torch.normal(torch.zeros(3), -1.0),
     lambda: R.normal_tensor(np.zeros(3, np.float32), -1.0, "float32")),
    (lambda: torch.randint(5, 5, (3,)), lambda: R.randint(5, 5, 3)),
    (lambda: torch.randint(5, 3, (3,)), lambda: R.randint(5, 3, 3)),
    (lambda: torch.randint(0, 300, (3,), dtype=torch.uint8), lambda: R.randint(0, 300, 3, "uint8")),
    (lambda: torch.randint(-1, 3, (3,), dtype=torch.uint8), lambda: R.randint(-1, 3, 3, "uint8")),
    (lambda: torch.randint(0, 300, (3,), dtype=torch.int8), lambda: R.randint(0, 300, 3, "int8")),
    (lambda: torch.randint(0, 2**20, (3,), dtype=torch.int16),
     lambda: R.randint(0, 2**20, 3, "int16")),
    (lambda: torch.randint(0, 2**40, (3,), dtype=torch.int32),
     lambda: R.randint(0, 2**40, 3, "int32")),
    (lambda: torch.randint(0, 3, (3,), dtype=torch.bool), lambda: R.randint(0, 3, 3, "bool")),
    (lambda: torch.randint(0, 3, (3,), dtype=torch.complex64),
     lambda: R.randint(0, 3, 3, "complex64")),
    (lambda: torch.randint(0, 2**70, (3,)), lambda: R.randint(0, 2**70, 3)),
    (lambda: torch.empty(3).random_(2**25 + 1, 2**25 + 3),
     lambda: R.random_(3, "float32", 2**25 + 1, 2**25 + 3)),
    (lambda: torch.empty(3, dtype=torch.float16).random_(5000, None),
     lambda: R.random_(3, "float16", 5000, None)),
    (lambda: torch.empty(3, dtype=torch.int32).random_(-2**63, None),
     lambda: R.random_(3, "int32", -2**63, None)),
    (lambda: torch.empty(3, dtype=torch.bool).random_(-2**63, None),
     lambda: R.random_(3, "bool", -2**63, None)),
    (lambda: torch.empty(3, dtype=torch.complex64).random_(), lambda: R.random_(3, "complex64")),
    (lambda: torch.empty(2, dtype=torch.int32).random_(-5), lambda: R.random_(2, "int32", high=-5)),
    (lambda: torch.randperm(-1), lambda: R.randperm(-1)),
    (lambda: torch.randperm(3000, dtype=torch.float16), lambda: R.randperm(3000, "float16")),
    (lambda: torch.randperm(257, dtype=torch.uint8), lambda: R.randperm(257, "uint8")),
    (lambda: torch.randperm(129, dtype=torch.int8), lambda: R.randperm(129, "int8")),
    (lambda: torch.randperm(2**24 + 2, dtype=torch.float32),
     lambda: R.randperm(2**24 + 2, "float32")),
    (lambda: torch.randperm(5, dtype=torch.bool), lambda: R.randperm(5, "bool")),
    (lambda: torch.randperm(5, dtype=torch.complex64), lambda: R.randperm(5, "complex64")),
    (lambda: torch.empty(3).bernoulli_(1.5), lambda: R.bernoulli_scalar(3, 1.5, "float32")),
    (lambda: torch.empty(3).bernoulli_(math.nan),
     lambda: R.bernoulli_scalar(3, math.nan, "float32")),
    (lambda: torch.bernoulli(torch.tensor([0.5, 1.5])),
     lambda: R.bernoulli_tensor(np.array([0.5, 1.5], np.float32), "float32")),
    (lambda: torch.bernoulli(torch.tensor([1, 0])),
     lambda: R.bernoulli_tensor(np.array([1, 0]), "int64")),
    (lambda: torch.empty(3, dtype=torch.complex64).bernoulli_(0.5),
     lambda: R.bernoulli_scalar(3, 0.5, "complex64")),
    (lambda: torch.empty(3).exponential_(0), lambda: R.exponential(3, "float32", 0)),
    (lambda: torch.empty(3).exponential_(math.nan), lambda: R.exponential(3, "float32", math.nan)),
    (lambda: torch.empty(3, dtype=torch.int64).exponential_(), lambda: R.exponential(3, "int64")),
    (lambda: torch.multinomial(torch.tensor([0., 0]), 1),
     lambda: R.multinomial(np.array([0., 0], np.float32), 1)),
    (lambda: torch.multinomial(torch.tensor([0., 0]), 1, True),
     lambda: R.multinomial(np.array([0., 0], np.float32), 1, True)),
    (lambda: torch.multinomial(torch.tensor([1., -1]), 1),
     lambda: R.multinomial(np.array([1., -1], np.float32), 1)),
    (lambda: torch.multinomial(torch.tensor([1., math.inf]), 2, True),
     lambda: R.multinomial(np.array([1., math.inf], np.float32), 2, True)),
    (lambda: torch.multinomial(torch.tensor([[1., 1], [1., math.inf]]), 1, True),
     lambda: R.multinomial(np.array([[1., 1], [1., math.inf]], np.float32), 1, True)),
    (lambda: torch.multinomial(torch.tensor([[1., 1], [1., math.nan]]), 3, True),
     lambda: R.multinomial(np.array([[1., 1], [1., math.nan]], np.float32), 3, True)),
    (lambda: torch.multinomial(torch.tensor([[1., 1], [-1., math.inf]]), 3, True),
     lambda: R.multinomial(np.array([[1., 1], [-1., math.inf]], np.float32), 3, True)),
    (lambda: torch.multinomial(torch.tensor([[0., 0], [1., 1]]), 3, True),
     lambda: R.multinomial(np.array([[0., 0], [1., 1]], np.float32), 3, True)),
    (lambda: torch.multinomial(torch.tensor([1., math.nan]), 1),
     lambda: R.multinomial(np.array([1., math.nan], np.float32), 1)),
    (lambda: torch.multinomial(torch.tensor([1., 1]), 3),
     lambda: R.multinomial(np.array([1., 1], np.float32), 3)),
    (lambda: torch.multinomial(torch.tensor([1, 1]), 1),
     lambda: R.multinomial(np.array([1, 1]), 1)),
    (lambda: torch.multinomial(torch.ones(2, 2, 2), 1),
     lambda: R.multinomial(np.ones((2, 2, 2)), 1)),
    (lambda: torch.multinomial(torch.ones(2), 0), lambda: R.multinomial(np.ones(2), 0)),
    (lambda: torch.manual_seed(2**64), lambda: R.manual_seed(2**64)),
    (lambda: torch.manual_seed(-2**63 - 1), lambda: R.manual_seed(-2**63 - 1)),
    (lambda: torch.Generator().manual_seed(3.7), lambda: R.Generator().manual_seed(3.7)),
    (lambda: torch.Generator().manual_seed("3"), lambda: R.Generator().manual_seed("3")),
    (lambda: torch.set_rng_state(torch.zeros(10, dtype=torch.uint8)),
     lambda: R.Generator().set_state(np.zeros(10, np.uint8))),
    (lambda: torch.set_rng_state(torch.zeros(5056)),
     lambda: R.Generator().set_state(np.zeros(5056))),
    (lambda: torch.set_rng_state(torch.zeros(5056, dtype=torch.uint8)),
     lambda: R.Generator().set_state(np.zeros(5056, np.uint8))),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    torch_fn, nt_fn = ERRORS[i]
    saved = torch.get_rng_state()
    try:
        with pytest.raises(Exception) as expected:
            torch_fn()
    finally:
        torch.set_rng_state(saved)
    with pytest.raises(expected.type) as got:
        nt_fn()
    assert str(got.value) == str(expected.value).split("\n")[0]


@pytest.mark.parametrize("which", ("bernoulli", "multinomial"))
def test_errors_midway_consume_draws_like_torch(which):
    p = np.array([0.1, 0.2, 0.3, 7.0, 0.5], np.float32)
    q = np.array([[1, 2], [3, 4], [5, -1.]], np.float32)
    torch.manual_seed(0)
    g = R.Generator().manual_seed(0)
    with pytest.raises(RuntimeError):
        if which == "bernoulli":
            torch.bernoulli(torch.from_numpy(p))
        else:
            torch.multinomial(torch.from_numpy(q), 4, True)
    with pytest.raises(RuntimeError):
        if which == "bernoulli":
            R.bernoulli_tensor(p, "float32", g)
        else:
            R.multinomial(q, 4, True, g)
    np.testing.assert_array_equal(g.get_state(), torch.get_rng_state().numpy())


# ---------------------------------------------------------------- numeric helpers

def test_fma_emulation_is_correctly_rounded():
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(300) * 10.0 ** rng.integers(-5, 5, 300) for _ in range(3))
    exact = [Fraction(x) * Fraction(y) + Fraction(z) for x, y, z in zip(a, b, c)]
    assert R._fma64(a, b, c).tolist() == [float(e) for e in exact]
    a32, b32, c32 = a.astype(np.float32), b.astype(np.float32), c.astype(np.float32)
    exact32 = [Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
               for x, y, z in zip(a32, b32, c32)]
    # float(Fraction) rounds once to double; double -> float32 may round twice, so use
    # the float32 neighbours to find the nearest one exactly
    got = R._fma32(a32, b32, c32)
    for g_val, e in zip(got, exact32):
        lo, hi = np.nextafter(g_val, np.float32(-np.inf)), np.nextafter(g_val, np.float32(np.inf))
        err = abs(Fraction(float(g_val)) - e)
        assert err <= abs(Fraction(float(lo)) - e) and err <= abs(Fraction(float(hi)) - e)


@pytest.mark.parametrize("name", ("log", "log1p", "cos", "sin"))
def test_libm_matches_math_module(name):
    x = np.random.default_rng(4).random(5000) * (-1 if name == "log1p" else 6)
    if name == "log":
        x = 1 - x / 6
    assert R._libm(name, x).tolist() == [getattr(math, name)(v) for v in x]


def test_docstring_examples():
    assert doctest.testmod(R, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0
