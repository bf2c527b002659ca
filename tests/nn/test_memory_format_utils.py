"""``nn.utils.convert_conv{2,3}d_weight_memory_format`` and ``torch.channels_last_3d``
against PyTorch: strides, contiguity and the Parameter kept in place."""
import pytest

from helpers import check_error, check_same


def _strides(module):
    return [(type(m).__name__, tuple(m.weight.stride()), tuple(m.weight.shape))
            for m in module.modules() if hasattr(m, "weight") and m.weight is not None]


def test_convert_conv2d_weight_memory_format(torch):
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.ReLU(), lib.nn.Linear(2, 2),
                                  lib.nn.Sequential(lib.nn.ConvTranspose2d(4, 2, 2)))
        weight = model[0].weight
        out = lib.nn.utils.convert_conv2d_weight_memory_format(model, lib.channels_last)
        y = model[0](lib.randn(1, 3, 5, 4))
        return (out is model, model[0].weight is weight, _strides(model),
                model[0].weight.is_contiguous(memory_format=lib.channels_last), y)
    check_same(run)


@pytest.mark.parametrize("transposed", [False, True])
def test_convert_conv3d_weight_memory_format(torch, transposed):
    def run(lib):
        lib.manual_seed(0)
        conv = (lib.nn.ConvTranspose3d if transposed else lib.nn.Conv3d)(2, 3, 2)
        lib.nn.utils.convert_conv3d_weight_memory_format(conv, lib.channels_last_3d)
        fmt = lib.channels_last_3d
        back = lib.nn.utils.convert_conv3d_weight_memory_format(conv, lib.contiguous_format)
        return (_strides(conv), back.weight.is_contiguous(), conv.weight.detach(),
                conv.weight.clone(memory_format=fmt).is_contiguous(memory_format=fmt))
    check_same(run)


def test_channels_last_3d_needs_rank_5(torch):
    check_error(lambda lib: lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last_3d))
    check_same(lambda lib: (str(lib.channels_last_3d),
                            lib.ones(2, 3, 4, 5, 6).to(memory_format=lib.channels_last_3d)
                            .stride()))
