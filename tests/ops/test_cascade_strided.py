"""PyTorch's summation order for full sums of non-contiguous arrays (ops/_cascade.py:
``_strided_full_sum``): sliced, permuted and expanded views, below and above GRAIN_SIZE
elements, on 1 to 3 threads, bit for bit against PyTorch."""
import warnings

import numpy as np
import pytest

import numtorch
from numtorch.ops._cascade import GRAIN_SIZE, _iter_layout, _walk, torch_sum

VIEWS = [  # (shape, view of the base array)
    ((300, 400), lambda x: x[::2]),
    ((300, 400), lambda x: x[:, :200]),
    ((300, 400), lambda x: x[:, 0]),
    ((300, 400), lambda x: x[1::3, 2::5]),
    ((7, 301, 53), lambda x: x[:, :, 1:]),
    ((7, 301, 53), lambda x: x[:, ::2]),
    ((7, 30, 53), lambda x: x.transpose(2, 0, 1)[::2]),
    ((9, 11, 13, 17), lambda x: x.transpose(2, 0, 3, 1)[..., 1:]),
    ((1000, 63), lambda x: x[..., ::2]),        # rows of 32 at stride 2: scalar row_sum
    ((1000, 64), lambda x: x[..., ::2]),        # coalesces into one strided run
    ((70000, 3), lambda x: x[:, :2]),           # rows shorter than a vector
    ((3, 70000), lambda x: x[:, ::3]),
    ((2, 40000), lambda x: x[:, 3:]),           # threads split the range mid-row
    ((130001,), lambda x: x[::2]),
    ((5, 1, 300), lambda x: x[1:, :, ::2]),     # a size-1 dim
    ((100, 1), lambda x: np.broadcast_to(x, (100, 400))),   # expanded: outer path
    ((40, 1), lambda x: np.broadcast_to(x, (40, 9))),
    ((1, 100, 1), lambda x: np.broadcast_to(x, (50, 100, 30))),
    ((200, 1, 300), lambda x: np.broadcast_to(x, (200, 3, 300))),
    ((1, 3), lambda x: np.broadcast_to(x, (20000, 3))),
]


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * rng.uniform(0.1, 1000)).astype(dtype)
    x.reshape(-1)[::5] *= 1e-3  # magnitudes apart, so that the order shows in the bits
    return x


@pytest.fixture
def threads(torch):
    """Sets both libraries' intra-op thread count; restores them afterwards."""
    before = torch.get_num_threads(), numtorch.get_num_threads()

    def set_threads(n):
        torch.set_num_threads(n)
        numtorch.set_num_threads(n)
    yield set_threads
    torch.set_num_threads(before[0])
    numtorch.set_num_threads(before[1])


@pytest.mark.parametrize("nthreads", [1, 2, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(VIEWS)))
def test_strided_full_sum_bits_match_pytorch(torch, threads, case, dtype, nthreads):
    threads(nthreads)
    shape, view = VIEWS[case]
    v = view(_data(shape, dtype, case))
    for a in (v, v.T):
        with warnings.catch_warnings():  # (an expanded view is read-only: both warn)
            warnings.simplefilter("ignore", UserWarning)
            t, n = torch.from_numpy(a), numtorch.from_numpy(a)
        want_sum, want_mean = t.sum(), t.mean()
        got_sum, got_mean = n.sum(), n.mean()
        assert got_sum.numpy().dtype == want_sum.numpy().dtype
        assert np.array_equal(got_sum.numpy(), want_sum.numpy()), (a.shape, a.strides)
        assert np.array_equal(got_mean.numpy(), want_mean.numpy()), (a.shape, a.strides)
        keep = n.sum(dim=tuple(range(a.ndim)), keepdim=True).numpy()
        assert keep.shape == (1,) * a.ndim and np.array_equal(keep.reshape(()), want_sum.numpy())


def test_tensor_views_sum_like_pytorch(torch, threads):
    threads(2)
    torch.manual_seed(0)
    numtorch.manual_seed(0)
    a, b = torch.rand(300, 400), numtorch.rand(300, 400)
    for f in (lambda t: t[::2], lambda t: t[:, :200], lambda t: t[:, 0],
              lambda t: t.t()[1:], lambda t: t.unfold(0, 10, 5)[:, ::3]):
        assert f(b).sum().item() == f(a).sum().item()
        assert f(b).mean().item() == f(a).mean().item()


def test_iter_layout_sorts_and_coalesces_like_tensoriterator():
    x = np.zeros((300, 400), np.float32)
    _, sizes, strides = _iter_layout(x[::2])
    assert (sizes, strides) == ([400, 150], [4, 3200])
    _, sizes, strides = _iter_layout(np.zeros((1000, 64), np.float32)[:, ::2])
    assert (sizes, strides) == ([32000], [8])  # 32 * 8 bytes == the row stride: one run
    # the elements in memory order: rows 0-1 of x, read through a column slice of x.T
    v, sizes, strides = _iter_layout(np.arange(12.0).reshape(3, 4).T[:, :2])
    assert (sizes, strides, v.tolist()) == ([8], [8], [float(i) for i in range(8)])
    # an expanded (stride 0) dim is not ordered against the others: it stays innermost
    _, sizes, strides = _iter_layout(np.broadcast_to(np.zeros((40, 1)), (40, 9)))
    assert (sizes, strides) == ([9, 40], [0, 8])
    assert _iter_layout(np.zeros((4, 5))[::-1]) is None  # negative strides: NumPy's order


def test_walk_takes_dimcounter_steps():
    # the rest of a row, the rest of its plane, whole planes, rows, then part of a row
    assert _walk(7, 10 + 10 * 5 + 10 * 6 * 2 + 10 * 2 + 4, [10, 6, 9]) == [
        (7, 3, 1, 1), (10, 10, 5, 1), (60, 10, 6, 2), (180, 10, 2, 1), (200, 4, 1, 1)]
    assert _walk(0, 120, [10, 6, 2]) == [(0, 10, 6, 2)]
    assert _walk(3, 50, [100]) == [(3, 47, 1, 1)]


def test_unreplayed_layouts_keep_numpy_order_and_shape():
    x = _data((30, 40), np.float32, 1)[::-1]  # negative strides (never a PyTorch tensor)
    out = torch_sum(x, (0, 1), x.dtype, True)
    assert out.shape == (1, 1) and out.dtype == np.float32
    np.testing.assert_allclose(out[0, 0], x.astype(np.float64).sum(), rtol=1e-5)
    big = _data((2, GRAIN_SIZE), np.float32, 2)[:, 1:]
    assert torch_sum(big, (0, 1), big.dtype, False).shape == ()


@pytest.mark.parametrize("n", [3, 10, 60, 100, 1000])
def test_trace_adds_the_diagonal_like_pytorch(torch, n):
    # PyTorch's CPU trace adds the diagonal left to right in double, then casts
    x = _data((n, n + 3), np.float32, n)
    for a in (x, x.astype(np.float64)):
        assert np.array_equal(numtorch.trace(numtorch.from_numpy(a)).numpy(),
                              torch.trace(torch.from_numpy(a)).numpy())
