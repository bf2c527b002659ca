"""PyTorch's summation orders (ops/_cascade.py): sums, means, nll_loss, the last-dim softmax
family, bit for bit against PyTorch where the order alone decides the bits."""
import numpy as np
import pytest

import numtorch
from numtorch.ops._cascade import (column_sums, nll_sum, torch_sum, vec_sum_lastdim,
                                   running_sum)

SHAPES = [(n,) for n in (1, 5, 7, 8, 9, 31, 32, 33, 100, 257, 640, 1000, 2047, 5000, 30000)] + [
    (3, 5), (5, 3), (7, 8), (16, 33), (33, 16), (64, 10), (10, 64), (128, 256), (2, 3, 4),
    (4, 50, 3), (3, 7, 40), (2, 600, 9), (9, 2, 600), (5, 1), (3, 1, 4)]


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * rng.uniform(0.1, 1000)).astype(dtype)
    x.reshape(-1)[::5] *= 1e-3  # magnitudes apart, so that the order shows in the bits
    return x


def _dimsets(ndim):
    yield tuple(range(ndim))
    for d in range(ndim):
        yield (d,)
    for a in range(ndim):
        for b in range(a + 2, ndim + 1):
            if b - a < ndim:
                yield tuple(range(a, b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sum_bits_match_pytorch(torch, shape, dtype):
    x = _data(shape, dtype, len(shape) * 1000 + shape[0])
    for dims in _dimsets(x.ndim):
        for keepdim in (False, True):
            want = torch.from_numpy(x).sum(dim=dims, keepdim=keepdim).numpy()
            got = numtorch.from_numpy(x).sum(dim=dims, keepdim=keepdim).numpy()
            assert got.shape == want.shape and np.array_equal(got, want), (dims, keepdim)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [1, 2, 15, 16, 17, 40, 128, 255, 256, 700])
def test_column_sums_bias_gradient_bits_match_pytorch(torch, rows, dtype):
    # column_sums takes the usual bias-gradient case directly, the others through torch_sum
    for cols in (8, 32, 64, 96, 100):
        x = _data((rows, cols), dtype, rows * 7 + cols)
        want = torch.from_numpy(x).sum(0).numpy()
        assert np.array_equal(column_sums(x), want), cols
        assert np.array_equal(column_sums(x), torch_sum(x, (0,), x.dtype, False)), cols
    g = _data((rows, 64), dtype, rows)
    b = numtorch.zeros(64, dtype=numtorch.float32 if dtype == np.float32 else numtorch.float64,
                       requires_grad=True)
    (numtorch.zeros(rows, 64, dtype=b.dtype) + b).backward(numtorch.from_numpy(g))
    assert np.array_equal(b.grad.numpy(), torch.from_numpy(g).sum(0).numpy())


def test_mean_and_layouts_match_pytorch(torch):
    x = _data((37, 41), np.float32, 3)
    for a in (x, np.asfortranarray(x), x.T):
        assert np.array_equal(numtorch.from_numpy(a).sum().numpy(),
                              torch.from_numpy(a).sum().numpy())
        assert np.array_equal(numtorch.from_numpy(a).mean().numpy(),
                              torch.from_numpy(a).mean().numpy())
    assert np.array_equal(numtorch.from_numpy(x).mean(1).numpy(),
                          torch.from_numpy(x).mean(1).numpy())
    # a layout whose order is not replayed still sums (NumPy's order), to the right shape
    s = x[:, ::2]
    np.testing.assert_allclose(numtorch.from_numpy(s).sum(0).numpy(), s.sum(0), rtol=1e-5)


def test_sum_keeps_pytorch_zero_sign_and_specials():
    z = numtorch.tensor([-0.0] * 20)
    assert str(z.sum()) == "tensor(0.)"
    assert np.isnan(numtorch.tensor([1.0, float("nan")] * 10).sum().item())
    assert numtorch.tensor([float("inf")] * 40).sum().item() == float("inf")
    assert torch_sum(np.zeros((0, 3), np.float32), (0,), np.dtype(np.float32), False).shape \
        == (3,)


def test_running_sum_is_left_to_right():
    # running_sum relies on NumPy reducing a non-innermost axis row after row
    rng = np.random.default_rng(1)
    for k in (2, 3, 8):
        a = (rng.standard_normal((1000, k)) * 1000).astype(np.float32)
        a[::7] *= 1e-4
        acc = np.zeros(k, np.float32)
        for row in a:
            acc = acc + row
        assert np.array_equal(running_sum(a, axis=0), acc)
    v = (rng.standard_normal(1000) * 1000).astype(np.float32)
    acc = np.float32(0)
    for e in v:
        acc = np.float32(acc + e)
    assert running_sum(v, axis=0) == acc


@pytest.mark.parametrize("shape,axis", [((5, 7), 1), ((8, 7), 1), ((300, 10), 1),
                                        ((9, 40, 1), 1), ((3, 4, 33), -1), ((16, 3), 1)])
def test_running_sum_of_an_innermost_axis_is_left_to_right(shape, axis):
    # few rows: an accumulate; more: a transposed copy reduced row by row (same order)
    rng = np.random.default_rng(2)
    a = (rng.standard_normal(shape) * 1000).astype(np.float32)
    a.reshape(-1)[::5] *= 1e-4
    moved = np.moveaxis(a, axis, -1)
    acc = moved[..., 0].copy()
    for j in range(1, moved.shape[-1]):
        acc = acc + moved[..., j]
    assert np.array_equal(running_sum(a, axis=axis), acc)


def test_vec_sum_lastdim_order():
    # 8 lanes: lanes accumulate along the row, then fold in halves: (0+4, 1+5, ...), ...
    a = np.float32([[1e8, 1, -1e8, 1, 0, 0, 0, 0, 0]])
    assert vec_sum_lastdim(a, 8)[0] == 2.0
    row = np.arange(1, 20, dtype=np.float32)[None]
    assert vec_sum_lastdim(row, 8)[0] == 190.0 and vec_sum_lastdim(row[:, :5], 8)[0] == 15.0


@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_sum_and_mean_match_pytorch(torch, weighted):
    rng = np.random.default_rng(2)
    F, G = numtorch.nn.functional, torch.nn.functional
    for n in (1, 5, 17, 255, 256, 257, 1000, 4097):
        c = int(rng.integers(2, 12))
        lp = (rng.standard_normal((n, c)) * 3).astype(np.float32)
        y = rng.integers(0, c, n)
        y[rng.random(n) < 0.1] = -100  # ignored targets skip their place in the cascade
        w = rng.uniform(0.5, 2, c).astype(np.float32) if weighted else None
        for red in ("sum", "mean"):
            want = G.nll_loss(torch.from_numpy(lp), torch.from_numpy(y), reduction=red,
                              weight=None if w is None else torch.from_numpy(w)).numpy()
            got = F.nll_loss(numtorch.from_numpy(lp), numtorch.from_numpy(y), reduction=red,
                             weight=None if w is None else numtorch.from_numpy(w)).numpy()
            assert np.array_equal(got, want), (n, red)


def test_nll_sum_cascade_by_hand():
    # element 0 climbs to the top level at once; 1..16 form the first chunk
    v = np.float32([1e8] + [1.0] * 16 + [-1e8])
    by_hand = np.float32(np.float32(16.0) + np.float32(-1e8)) + np.float32(1e8)
    assert nll_sum(v) == by_hand


def test_cross_entropy_and_log_softmax_close_to_pytorch_bits(torch):
    """Exp and log are PyTorch's SLEEF routines, which numtorch approximates by correctly
    rounded values: nearly all elements and losses agree in every bit (NumPy's float32 exp
    and pairwise sums missed in 12 % of elements and half of the losses)."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((2000, 10)) * 2).astype(np.float32)
    differ = np.count_nonzero(numtorch.from_numpy(x).log_softmax(1).numpy()
                              != torch.from_numpy(x).log_softmax(1).numpy())
    assert differ < 0.04 * x.size
    same = 0
    for _ in range(40):
        n, c = int(rng.integers(1, 300)), int(rng.integers(2, 20))
        z = (rng.standard_normal((n, c)) * 2).astype(np.float32)
        y = rng.integers(0, c, n)
        same += numtorch.nn.functional.cross_entropy(
            numtorch.from_numpy(z), numtorch.from_numpy(y)).item() == \
            torch.nn.functional.cross_entropy(torch.from_numpy(z), torch.from_numpy(y)).item()
    assert same >= 34


@pytest.mark.parametrize("threads", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_sums_past_the_grain_split_as_pytorch_threads_do(torch, threads, dtype):
    # from at::internal::GRAIN_SIZE (32768) elements on, PyTorch sums a full reduction in
    # blocks, one per thread, then the blocks' sums: the bits depend on the thread count
    before = (torch.get_num_threads(), numtorch.get_num_threads())
    torch.set_num_threads(threads)
    numtorch.set_num_threads(threads)
    try:
        for n in (32767, 32768, 32769, 65536, 65537, 98305, 200003):
            x = _data((n,), dtype, n)
            for a in (x, x.reshape(-1, 1) if n % 2 else x.reshape(2, -1)):
                for f in (a, np.asfortranarray(a)):
                    want, got = torch.from_numpy(f), numtorch.from_numpy(f)
                    assert np.array_equal(got.sum().numpy(), want.sum().numpy()), (n, f.shape)
                    assert np.array_equal(got.mean().numpy(), want.mean().numpy()), n
    finally:
        torch.set_num_threads(before[0])
        numtorch.set_num_threads(before[1])
