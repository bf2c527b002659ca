"""uint8 bilinear ``interpolate`` against PyTorch: its CPU kernel resamples uint8 with int16
fixed-point weights rounded to nearest (not the float kernel), so values must match exactly."""
import numpy as np
import pytest

import numtorch
from helpers import check_op

rng = np.random.default_rng(0)


def img(*shape):
    return rng.integers(0, 256, shape).astype(np.uint8)



@pytest.mark.parametrize("shape", [(1, 3, 8, 9), (2, 4, 5, 7), (1, 5, 6, 6), (1, 1, 2, 4)])
@pytest.mark.parametrize("kw", [dict(size=(12, 5)), dict(size=(3, 17)), dict(scale_factor=2.0),
                                dict(scale_factor=0.5), dict(scale_factor=(1.7, 0.6)),
                                dict(size=(8, 2))])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("antialias", [False, True])
def test_uint8_bilinear_matches_torch(shape, kw, align_corners, antialias):
    out = check_op(lambda x: _lib(x).nn.functional.interpolate(
        x, mode="bilinear", align_corners=align_corners, antialias=antialias, **kw), img(*shape))
    assert out.dtype is numtorch.uint8


def test_uint8_saturated_image_and_same_size_dim():
    x = np.where(rng.random((1, 3, 7, 5)) < 0.5, 0, 255).astype(np.uint8)
    check_op(lambda t: _lib(t).nn.functional.interpolate(t, size=(11, 5), mode="bilinear"), x)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_upsample_bilinear_uint8():
    check_op(lambda t: _lib(t).nn.functional.upsample_bilinear(t, scale_factor=3), img(1, 2, 3, 4))


def test_float_path_unchanged():
    x = rng.standard_normal((1, 2, 4, 5)).astype(np.float32)
    check_op(lambda t: _lib(t).nn.functional.interpolate(t, size=(7, 3), mode="bilinear",
                                                          align_corners=False), x)


def _lib(t):
    """The library ``t`` belongs to (the lambdas run on both)."""
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")
