"""Sweep AV (nn.functional corners) against PyTorch: interpolate's dtype and size-type
errors, F.pad's argument errors and over-cropping, affine_grid's batch check, the sign of
grid_sample's zero grid gradients, channel_shuffle / pooling / conv_transpose messages."""
import numpy as np
import pytest

from helpers import check_error, check_same, torch_or_skip


# ---- interpolate ---------------------------------------------------------------------------
_KERNEL_CASES = [  # (mode, input dims, antialias): each refuses Long with its own kernel name
    ("nearest", 3, False), ("nearest", 4, False), ("nearest", 5, False),
    ("nearest-exact", 4, False), ("linear", 3, False), ("bilinear", 4, False),
    ("bilinear", 4, True), ("bicubic", 4, False), ("bicubic", 4, True),
    ("trilinear", 5, False), ("area", 3, False), ("area", 4, False), ("area", 5, False)]


@pytest.mark.parametrize("mode,nd,aa", _KERNEL_CASES)
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_interpolate_integer_input_names_the_kernel(mode, nd, aa, dtype):
    def f(lib):
        x = lib.arange(2 * 4 ** (nd - 2)).view(1, 2, *([4] * (nd - 2))).to(getattr(lib, dtype))
        return lib.nn.functional.interpolate(x, scale_factor=2, mode=mode, antialias=aa)
    check_error(f)


@pytest.mark.parametrize("mode,nd,aa", [c for c in _KERNEL_CASES if c[0] != "area"])
def test_interpolate_uint8_runs_only_where_pytorch_has_a_kernel(mode, nd, aa):
    def f(lib):
        x = lib.arange(2 * 4 ** (nd - 2)).view(1, 2, *([4] * (nd - 2))).to(lib.uint8)
        return lib.nn.functional.interpolate(x, size=[3] * (nd - 2), mode=mode, antialias=aa)
    torch = torch_or_skip()
    try:
        f(torch)
    except NotImplementedError:
        check_error(f)
    else:
        check_same(f, exact=True)


def test_interpolate_channels_last_area_names_its_kernel():
    check_error(lambda lib: lib.nn.functional.interpolate(
        lib.arange(32).view(1, 2, 4, 4).contiguous(memory_format=lib.channels_last),
        size=2, mode="area"))


@pytest.mark.parametrize("mode,nd,aa", _KERNEL_CASES)
def test_interpolate_float_scalar_size_is_the_kernels_type_error(mode, nd, aa):
    check_error(lambda lib: lib.nn.functional.interpolate(
        lib.zeros([1, 1] + [4] * (nd - 2)), size=2.5, mode=mode, antialias=aa))


def test_interpolate_float_in_size_tuple():
    check_error(lambda lib: lib.nn.functional.interpolate(lib.zeros(1, 1, 4, 4),
                                                          size=(2.5, 2)))
    check_same(lambda lib: lib.nn.functional.interpolate(
        lib.arange(16.).view(1, 1, 4, 4), size=(lib.tensor(2), np.int64(3))), exact=True)


# ---- pad -----------------------------------------------------------------------------------
@pytest.mark.parametrize("pad", [(1.5, 1), (1, 1.5), (True, 1), (1, None), "ab", 3,
                                 (1, 2.0, 3, 4), (-3, -2), (-5, 1), (0, -5), (-1, -4)])
def test_pad_argument_errors(pad):
    check_error(lambda lib: lib.nn.functional.pad(lib.zeros(1, 2, 4), pad))


@pytest.mark.parametrize("pad", [(-4, 0), (-2, -2), (-1, -2), [1, True], (-2, 3),
                                 (0, 0, -3, 1)])
def test_pad_crops_that_fit(pad):
    check_same(lambda lib: lib.nn.functional.pad(lib.arange(24.).view(2, 3, 4), pad, value=7.),
               exact=True)


def test_pad_tensor_argument():
    check_error(lambda lib: lib.nn.functional.pad(lib.zeros(1, 2, 4), lib.tensor([1, 2])))


# ---- affine_grid / grid_sample -------------------------------------------------------------
@pytest.mark.parametrize("theta_shape,size", [((2, 2, 3), (3, 1, 4, 4)),
                                              ((2, 3, 4), (1, 1, 2, 4, 4))])
def test_affine_grid_batch_mismatch(theta_shape, size):
    check_error(lambda lib: lib.nn.functional.affine_grid(lib.zeros(theta_shape), size,
                                                          align_corners=False))


def _grid_grad_signs(lib, nsp, padding_mode, align_corners, mode="bilinear"):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((1, 2) + (3, 4, 4)[-nsp:]).astype(np.float32),
                   requires_grad=True)
    grid = lib.tensor((rng.random((1,) + (5,) * nsp + (nsp,)) * 3 - 1.5).astype(np.float32),
                      requires_grad=True)
    out = lib.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding_mode,
                                        align_corners=align_corners)
    out.sum().backward()
    g = grid.grad.numpy()
    return np.signbit(g[g == 0]).tolist()


@pytest.mark.parametrize("nsp", [2, 3])
@pytest.mark.parametrize("padding_mode", ["border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_zero_grid_gradient_signs(nsp, padding_mode, align_corners):
    check_same(lambda lib: _grid_grad_signs(lib, nsp, padding_mode, align_corners), exact=True)


def test_grid_sample_nearest_grid_gradient_is_plain_zeros():
    check_same(lambda lib: _grid_grad_signs(lib, 2, "reflection", False, "nearest"),
               exact=True)


# ---- channel_shuffle, pooling, conv_transpose ----------------------------------------------
def test_channel_shuffle_needs_three_dims():
    check_error(lambda lib: lib.nn.functional.channel_shuffle(lib.zeros(1, 8), 4))
    check_error(lambda lib: lib.channel_shuffle(lib.zeros(8), 2))


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.avg_pool2d(x, 3),
    lambda lib, x: lib.nn.functional.max_pool2d(x, 3),
    lambda lib, x: lib.nn.functional.avg_pool1d(x[0], 3),
    lambda lib, x: lib.nn.LPPool2d(2, 3, stride=2)(x)])
def test_pool_too_small_unbatched_message(call):
    check_error(lambda lib: call(lib, lib.zeros(1, 2, 2)))


# NOTE: written out as keywords: the error rebuilds the user's call from its bytecode, and
# a ``**kwargs`` call cannot be read back (it is then guessed positional)
@pytest.mark.parametrize("call", [
    lambda F, x, w: F.conv_transpose1d(x, w, padding="same"),
    lambda F, x, w: F.conv_transpose1d(x, w, padding=1.5),
    lambda F, x, w: F.conv_transpose1d(x, w, padding=(1.5,)),
    lambda F, x, w: F.conv_transpose1d(x, w, output_padding="a"),
    lambda F, x, w: F.conv_transpose1d(x, w, groups=1.0),
    lambda F, x, w: F.conv_transpose1d(x, w, stride=1.5)])
def test_conv_transpose_argument_types(call):
    check_error(lambda lib: call(lib.nn.functional, lib.zeros(1, 4, 3), lib.zeros(4, 1, 3)))


def test_conv_transpose_positional_padding_string():
    check_error(lambda lib: lib.nn.functional.conv_transpose1d(
        lib.zeros(1, 4, 3), lib.zeros(4, 1, 3), None, 1, "same"))


@pytest.mark.parametrize("padding", ["same", "valid"])
def test_conv_transpose_module_padding_string(padding):
    check_same(lambda lib: repr(lib.nn.ConvTranspose2d(4, 2, 3, padding=padding)))
    check_error(lambda lib: lib.nn.ConvTranspose1d(4, 2, 3, padding=padding)(
        lib.zeros(1, 4, 3)))
