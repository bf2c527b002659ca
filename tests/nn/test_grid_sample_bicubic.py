"""``grid_sample(mode='bicubic')`` against PyTorch: Keys' cubic convolution (A = -0.75) over
4 x 4 taps, each tap moved inside by padding_mode; values and first derivatives for input and
grid (the backward is once differentiable)."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op

rng = np.random.default_rng(0)


def _lib(t):
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(2, 3, 5, 6), (1, 1, 1, 4)])
def test_bicubic_matches_torch(padding_mode, align_corners, dtype, shape):
    x = rng.standard_normal(shape).astype(dtype)
    # points inside, near the borders and well outside, so every padding branch is taken
    grid = (rng.random((shape[0], 4, 7, 2)) * 3.2 - 1.6).astype(dtype)
    check_op(lambda i, g: _lib(i).nn.functional.grid_sample(
        i, g, mode="bicubic", padding_mode=padding_mode, align_corners=align_corners),
        x, grid, gradgrad=False)


def test_bicubic_exact_pixel_centres_reproduce_input():
    x = rng.standard_normal((1, 2, 4, 5))
    ys, xs = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 5), indexing="ij")
    grid = np.stack([xs, ys], -1)[None]
    out = numtorch.nn.functional.grid_sample(numtorch.tensor(x), numtorch.tensor(grid),
                                             mode="bicubic", align_corners=True)
    np.testing.assert_allclose(out.numpy(), x, atol=1e-12)


def test_bicubic_5d_raises_as_torch():
    check_error(lambda lib: lib.nn.functional.grid_sample(
        lib.ones(1, 1, 2, 2, 2), lib.zeros(1, 1, 1, 1, 3), mode="bicubic", align_corners=False))
