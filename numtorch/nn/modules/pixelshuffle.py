"""``PixelShuffle`` and ``PixelUnshuffle``: channels to space and back.

>>> import numtorch as torch
>>> torch.nn.PixelShuffle(2)(torch.ones(1, 4, 2, 2)).shape
torch.Size([1, 1, 4, 4])
"""
from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """(*, C r^2, H, W) -> (*, C, H r, W r).

    >>> PixelShuffle(2)
    PixelShuffle(upscale_factor=2)
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H r, W r) -> (*, C r^2, H, W).

    >>> PixelUnshuffle(2)
    PixelUnshuffle(downscale_factor=2)
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"
