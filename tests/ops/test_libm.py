"""Elementwise math rounded as PyTorch's CPU kernels round it (ops/_libm.py, pow)."""
import numpy as np
import pytest

import numtorch
from numtorch.ops import _libm


def _x(n=5000, seed=0):
    return (np.random.default_rng(seed).standard_normal(n) * 3).astype(np.float32)


# (function, input transform, largest share of elements allowed to differ from PyTorch):
# NumPy's own float32 functions missed 12-40 % of these
CASES = [
    ("exp", lambda x: x, 0.02), ("expm1", lambda x: x, 0.01), ("tanh", lambda x: x, 0.01),
    ("log1p", lambda x: np.abs(x), 0.02), ("log10", lambda x: np.abs(x) + 0.01, 0.01),
    ("cosh", lambda x: x / 2, 0.01), ("sigmoid", lambda x: x, 0.06),
    ("log", lambda x: np.abs(x) + 0.01, 0.12), ("sin", lambda x: x, 0.07),
]


@pytest.mark.parametrize("name,prep,share", CASES, ids=[c[0] for c in CASES])
def test_float32_functions_round_like_pytorch(torch, name, prep, share):
    x = prep(_x()).astype(np.float32)
    got = getattr(numtorch, name)(numtorch.from_numpy(x)).numpy()
    want = getattr(torch, name)(torch.from_numpy(x)).numpy()
    assert got.dtype == want.dtype == np.float32
    assert np.count_nonzero(got != want) <= share * x.size


# activations and losses built on them (NumPy's float32 functions: 10-37 % differed)
ACTIVATIONS = [
    ("elu", lambda F, a: F.elu(a), 0.002), ("gelu_tanh", lambda F, a: F.gelu(a, approximate="tanh"), 0.02),
    ("silu", lambda F, a: F.silu(a), 0.06), ("softplus", lambda F, a: F.softplus(a), 0.1),
    ("mish", lambda F, a: F.mish(a), 0.08), ("logsigmoid", lambda F, a: F.logsigmoid(a), 0.08),
    ("bce_logits", lambda F, a: F.binary_cross_entropy_with_logits(
        a, (a > 0.3).float(), reduction="none"), 0.08),
]


@pytest.mark.parametrize("name,fn,share", ACTIVATIONS, ids=[c[0] for c in ACTIVATIONS])
def test_activations_round_like_pytorch(torch, name, fn, share):
    x = _x(20000, seed=4)
    got = fn(numtorch.nn.functional, numtorch.from_numpy(x)).numpy()
    want = fn(torch.nn.functional, torch.from_numpy(x)).numpy()
    assert np.count_nonzero(got != want) <= share * x.size


@pytest.mark.parametrize("exponent", [2, 3, -1, -2, 3.0])
def test_small_integer_powers_are_pytorchs_products(torch, exponent):
    x = _x(seed=1)
    x[x == 0] = 1
    got = (numtorch.from_numpy(x) ** exponent).numpy()
    assert np.array_equal(got, (torch.from_numpy(x) ** exponent).numpy())
    if exponent == 3:
        assert np.array_equal(got, (x * x) * x)  # rounded twice, not powf


def test_other_float32_powers_close_to_pytorch(torch):
    x = np.abs(_x(seed=2)) + np.float32(0.01)
    for e in (1.5, 4, -0.3):
        got = (numtorch.from_numpy(x) ** e).numpy()
        want = (torch.from_numpy(x) ** e).numpy()
        assert np.count_nonzero(got != want) <= 0.04 * x.size


def test_pow_gradients_use_the_same_powers(torch):
    x = _x(50, seed=3)
    a = numtorch.from_numpy(x).requires_grad_()
    (a ** 3).sum().backward()
    b = torch.from_numpy(x).requires_grad_()
    (b ** 3).sum().backward()
    assert np.array_equal(a.grad.numpy(), b.grad.numpy())


def test_wrap_keeps_dtype_scalars_and_out():
    x = np.float32([0.37719065, -1.5])
    r = _libm.exp(x)
    assert r.dtype == np.float32 and r.view(np.uint32)[0] == 1069196728  # correctly rounded
    assert type(_libm.exp(np.float32(1.0))) is np.float32
    out = np.empty(2, np.float32)
    assert _libm.exp(x, out=out) is out and np.array_equal(out, r)
    assert _libm.wrap(np.negative) is np.negative  # nothing to round
    assert _libm.exp(np.float16([1.0])).dtype == np.float16
