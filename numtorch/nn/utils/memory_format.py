"""Put the weights of 2-D / 3-D convolutions in a memory format (channels last, usually).

Only the layout of the weight changes, never its shape or values; the conversion walks the
module tree, so a whole model converts in one call.

>>> import numtorch as torch
>>> conv = convert_conv2d_weight_memory_format(torch.nn.Conv2d(3, 4, 3), torch.channels_last)
>>> conv.weight.stride(), conv.weight.shape
((27, 1, 9, 3), torch.Size([4, 3, 3, 3]))
"""
__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    """Re-lay the weight of every module of ``kinds`` in the tree rooted at ``module``."""
    if isinstance(module, kinds):
        # Assigning .data keeps the Parameter object (and so optimizer references) intact.
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Lay out the weight of every ``nn.Conv2d`` / ``nn.ConvTranspose2d`` in ``module``
    (itself included) as ``memory_format``; returns ``module``.

    Args:
        module: a convolution or any module containing some.
        memory_format: e.g. ``torch.channels_last`` or ``torch.contiguous_format``.
    """
    from ..modules.conv import Conv2d, ConvTranspose2d
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Lay out the weight of every ``nn.Conv3d`` / ``nn.ConvTranspose3d`` in ``module``
    (itself included) as ``memory_format`` (e.g. ``torch.channels_last_3d``); returns
    ``module``.

    >>> conv = torch.nn.Conv3d(2, 3, 2)
    >>> convert_conv3d_weight_memory_format(conv, torch.channels_last_3d).weight.stride()
    (16, 1, 8, 4, 2)
    """
    from ..modules.conv import Conv3d, ConvTranspose3d
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
