"""float32 kernels whose vector code PyTorch runs with SLEEF's exp or ATen's own erf
(numtorch/ops/_vector_math.py): sigmoid, silu, gelu, softmax give PyTorch's bits.

The elements PyTorch computes with its scalar code use the C library's exp/erf, which
numtorch replaces by correctly rounded ones: those may differ in the last bit in rare cases
(~0.05 % of them), so only the all-vector layouts are compared exactly.
"""
import numpy as np
import pytest

import numtorch
from numtorch.ops import _vector_math as V

torch = pytest.importorskip("torch")


def _data(shape, seed, scale=4.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def _mismatches(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    return int(np.sum((a != b) & ~(np.isnan(a) & np.isnan(b))))


def _both(fn, x, layout):
    """fn(lib, tensor) for numtorch and torch on the same data in the given layout."""
    out = []
    for lib in (numtorch, torch):
        t = lib.from_numpy(x.copy())
        if layout == "transposed":
            t = t.mT
        elif layout == "sliced":
            t = t[..., 1:]
        out.append(fn(lib, t).detach().numpy())
    return out


def test_expf_is_sleef_where_sigmoid_vectorises():
    # 16 * k contiguous elements: all of them take PyTorch's vector code
    x = np.concatenate([_data(4096, 0, 8.0), np.float32([-104.5, -103.9, -87.5, 88.7, 88.8,
                                                         100.5, np.inf, -np.inf, np.nan,
                                                         0.0, -0.0, 1e-30, -1e-30, 5, 6,
                                                         7])])
    ours = np.float32(1) / (np.float32(1) + V.expf(-x))
    assert _mismatches(ours, torch.sigmoid(torch.from_numpy(x)).numpy()) == 0
    # and it is not the correctly rounded exp in many elements (what the replay is for)
    assert np.sum(V.expf(x[:4096]) != np.exp(x[:4096].astype(np.float64)).astype(np.float32)) > 100


@pytest.mark.parametrize("op", ["sigmoid", "silu", "expit"])
@pytest.mark.parametrize("shape", [(64,), (32, 48), (4, 8, 16)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_exp_kernels_bit_exact(op, shape, layout):
    if layout == "transposed" and len(shape) == 1:
        pytest.skip("1-d")
    fn = {"sigmoid": lambda m, t: m.sigmoid(t), "silu": lambda m, t: m.nn.functional.silu(t),
          "expit": lambda m, t: m.special.expit(t)}[op]
    ours, theirs = _both(fn, _data(shape, 1), layout)
    assert _mismatches(ours, theirs) == 0


@pytest.mark.parametrize("op", ["sigmoid", "silu"])
@pytest.mark.parametrize("shape", [(17,), (5, 33), (100, 63)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_exp_kernels_with_scalar_tails(op, shape, layout):
    if layout == "transposed" and len(shape) == 1:
        pytest.skip("1-d")
    fn = (lambda m, t: m.sigmoid(t)) if op == "sigmoid" else \
        (lambda m, t: m.nn.functional.silu(t))
    ours, theirs = _both(fn, _data(shape, 2), layout)
    assert _mismatches(ours, theirs) <= max(1, ours.size // 1000)


@pytest.mark.parametrize("shape,dim", [((7,), 0), ((3, 33), -1), ((33, 5), 0), ((100, 40), 0),
                                       ((4, 4, 5), 1), ((2, 3, 4, 5), 0), ((2, 3, 4, 5), 2)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_softmax_bit_exact(shape, dim, layout):
    if layout == "transposed" and len(shape) == 1:
        pytest.skip("1-d")
    ours, theirs = _both(lambda m, t: m.softmax(t, dim), _data(shape, 3, 3.0), layout)
    # (fewer than 8 positions along the inner dims: all scalar code, the C library's exp)
    assert _mismatches(ours, theirs) <= max(1, ours.size // 1000)


def test_softmax_other_dim_takes_vectors_per_thread_range():
    # 100 positions split in two thread ranges of 50: positions 48, 49 and 98, 99 are the
    # scalar tails (the C library's exp), the others SLEEF's
    mask = V.inner_vector_mask(1, 100, 1) if numtorch.get_num_threads() == 2 else None
    if mask is not None:
        assert not mask[0, 48:50].any() and not mask[0, 98:].any() and mask[0, 50:98].all()
    x = _data((64, 100), 4, 3.0)
    ours, theirs = _both(lambda m, t: m.softmax(t, 0), x, "contiguous")
    assert _mismatches(ours, theirs) <= ours.size // 1000


def test_gelu_erf_replay():
    # a non-contiguous input goes through ATen's vectorised gelu (its own erf): exact;
    # a contiguous one through oneDNN, close to it
    x = _data((256, 32), 5, 2.0)
    ours, theirs = _both(lambda m, t: m.nn.functional.gelu(t), x, "transposed")
    assert _mismatches(ours, theirs) == 0
    ours, theirs = _both(lambda m, t: m.nn.functional.gelu(t), x, "contiguous")
    np.testing.assert_allclose(ours, theirs, rtol=3e-7, atol=1e-7)


def test_erf_values():
    x = np.float32([0.0, -0.0, 0.5, -1.0, 3.0, 10.0, -np.inf, np.inf])
    got = V.erf(x)
    np.testing.assert_allclose(got, np.float32([0, 0, 0.5205, -0.8427, 0.99998, 1, -1, 1]),
                               atol=2e-5)
    assert np.signbit(got[1]) and not np.signbit(got[0])


def test_large_inputs_skip_the_replay():
    # above REPLAY_LIMIT the correctly rounded exp stands in (cost): an ulp or two off
    x = _data(V.REPLAY_LIMIT + 16, 6)
    ours = numtorch.sigmoid(numtorch.from_numpy(x)).numpy()
    theirs = torch.sigmoid(torch.from_numpy(x)).numpy()
    np.testing.assert_array_max_ulp(ours, theirs, 2)
    assert _mismatches(ours, theirs) > 0


def test_by_vector_runs_layouts():
    calls = []

    def vec(a):
        calls.append(("v", a.size))
        return a * 2

    def sca(a):
        calls.append(("s", a.size))
        return a * 2
    x = np.arange(40, dtype=np.float32).reshape(2, 20)
    out = V.by_vector_runs(x, vec, sca)
    np.testing.assert_array_equal(out, x * 2)
    step = 2 * V.VEC_LANES
    assert calls[0] == ("v", 40)  # one contiguous run ...
    assert calls[1:] == ([("s", 40 % step)] if 40 % step else [])  # ... its tail scalar
    calls.clear()
    out = V.by_vector_runs(x.T, vec, sca)  # dense in another order: the same run
    np.testing.assert_array_equal(out, x.T * 2)
    assert out.strides == x.T.strides
    calls.clear()
    V.by_vector_runs(x[:, ::2], vec, sca)  # no contiguous axis: all scalar
    assert calls == [("s", 20)]


@pytest.mark.parametrize("shape", [(0,), (0, 20), (3, 0)])
def test_empty_inputs(shape):
    x = np.zeros(shape, np.float32)
    for fn in (lambda m, t: m.sigmoid(t), lambda m, t: m.nn.functional.silu(t),
               lambda m, t: m.nn.functional.gelu(t), lambda m, t: m.softmax(t, 0)):
        ours, theirs = _both(fn, x, "contiguous")
        assert ours.shape == theirs.shape == shape
