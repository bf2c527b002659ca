"""float32 linear / bilinear / trilinear ``interpolate`` bit for bit against PyTorch (its
kernels' fused multiply-adds and both bilinear kernels: channels-last for small outputs,
with full SIMD channel blocks and a scalar tail, and the general one for large outputs),
plus the check of ``recompute_scale_factor`` with an explicit size."""
import numpy as np
import pytest

import numtorch
from helpers import check_error

rng = np.random.default_rng(7)

CASES = [  # (input shape, mode, size or scale_factor)
    ((1, 2, 3, 4), "bilinear", dict(size=(5, 7))),  # channels-last kernel, scalar tail
    ((2, 20, 4, 5), "bilinear", dict(size=(7, 6))),  # SIMD channel block + tail
    ((1, 32, 5, 6), "bilinear", dict(scale_factor=(1.7, 0.6))),  # SIMD blocks only
    ((2, 2, 30, 40), "bilinear", dict(size=(70, 90))),  # general kernel (h + w > 128)
    ((1, 3, 9, 11), "bilinear", dict(scale_factor=2.0)),
    ((2, 3, 13), "linear", dict(size=29)),
    ((1, 2, 50), "linear", dict(scale_factor=0.35)),
    ((1, 2, 3, 4, 5), "trilinear", dict(size=(5, 7, 3))),
    ((1, 5, 4, 4, 4), "trilinear", dict(scale_factor=2.0)),
]


@pytest.mark.parametrize("shape, mode, kw", CASES)
@pytest.mark.parametrize("align_corners", [False, True])
def test_float32_values_bit_exact(torch, shape, mode, kw, align_corners):
    x = rng.standard_normal(shape).astype(np.float32)
    ours = numtorch.nn.functional.interpolate(numtorch.tensor(x), mode=mode,
                                              align_corners=align_corners, **kw)
    ref = torch.nn.functional.interpolate(torch.from_numpy(x), mode=mode,
                                          align_corners=align_corners, **kw)
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())


def test_gradient_and_grad_fn_unchanged(torch):
    x = rng.standard_normal((1, 2, 3, 5)).astype(np.float32)
    grads = []
    for lib in (numtorch, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.interpolate(t, size=(7, 4), mode="bilinear")
        (y * lib.arange(y.numel()).view_as(y)).sum().backward()
        grads.append((type(y.grad_fn).__name__, t.grad.numpy()))
    assert grads[0][0] == grads[1][0] == "UpsampleBilinear2DBackward0"
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-5, atol=1e-5)


def test_recompute_scale_factor_with_size_raises():
    check_error(lambda lib: lib.nn.functional.interpolate(
        lib.zeros(1, 1, 4, 4), size=(2, 2), recompute_scale_factor=True))
