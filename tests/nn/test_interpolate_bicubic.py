"""Bicubic ``interpolate`` (float and uint8) and float ``antialias=True`` against PyTorch:
values, gradients to order 2 and grad_fn names for float; exact values for uint8."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op

rng = np.random.default_rng(0)

SHAPES = [(1, 2, 5, 7), (2, 1, 2, 4), (1, 3, 8, 6)]
SIZES = [dict(size=(9, 4)), dict(size=(2, 13)), dict(scale_factor=2.0), dict(scale_factor=0.6),
         dict(scale_factor=(1.7, 0.8)), dict(scale_factor=1.3),
         dict(scale_factor=(2.5, 1.5), recompute_scale_factor=True), dict(size=(5, 7))]


def _lib(t):
    """The library ``t`` belongs to (the lambdas run on both)."""
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


def _interp(mode, **kw):
    return lambda x: _lib(x).nn.functional.interpolate(x, mode=mode, **kw)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kw", SIZES)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bicubic_float_matches_torch(shape, kw, align_corners, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    check_op(_interp("bicubic", align_corners=align_corners, **kw), x,
             gradgrad=dtype == np.float64)


# NOTE: PyTorch's float antialias kernel returns wrong values when the output width is 1
# (every row repeats the first), so these sizes keep the width above 1
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("kw", [dict(size=(3, 2)), dict(scale_factor=0.5), dict(size=(4, 11)),
                                dict(scale_factor=(0.3, 1.6)), dict(size=(2, 6))])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_antialias_float_matches_torch(mode, kw, align_corners, dtype):
    x = rng.standard_normal((2, 2, 8, 6)).astype(dtype)
    check_op(_interp(mode, align_corners=align_corners, antialias=True, **kw), x,
             gradgrad=dtype == np.float64)


@pytest.mark.parametrize("shape", [(1, 3, 8, 9), (2, 4, 5, 7), (1, 1, 2, 4)])
@pytest.mark.parametrize("kw", [dict(size=(12, 5)), dict(size=(3, 17)), dict(scale_factor=2.0),
                                dict(scale_factor=0.5), dict(scale_factor=(1.7, 0.6))])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("antialias", [False, True])
def test_bicubic_uint8_matches_torch(shape, kw, align_corners, antialias):
    x = rng.integers(0, 256, shape).astype(np.uint8)
    out = check_op(_interp("bicubic", align_corners=align_corners, antialias=antialias, **kw), x)
    assert out.dtype is numtorch.uint8


def test_bicubic_overshoots_like_torch():
    out = check_op(_interp("bicubic", size=(1, 4)), np.array([[[[0.0, 1.0]]]], np.float32))
    assert out.min().item() < 0 < 1 < out.max().item()


@pytest.mark.parametrize("mode,shape", [("bicubic", (1, 1, 4)), ("bilinear", (1, 1, 2, 2, 4)),
                                        ("nearest", (1, 1, 1, 4)), ("linear", (1, 1, 4))])
def test_antialias_restricted_to_4d_bilinear_bicubic(mode, shape):
    x = np.ones(shape, np.float32)
    check_error(lambda lib: lib.nn.functional.interpolate(lib.tensor(x), scale_factor=2.0,
                                                          mode=mode, antialias=True))


@pytest.mark.parametrize("mode,shape", [("bicubic", (1, 1, 1, 4)), ("bilinear", (1, 1, 1, 4)),
                                        ("trilinear", (1, 1, 1, 2, 4))])
def test_empty_output_raises_like_torch(mode, shape):
    x = np.ones(shape, np.float32)
    check_error(lambda lib: lib.nn.functional.interpolate(lib.tensor(x), scale_factor=0.5,
                                                          mode=mode))
