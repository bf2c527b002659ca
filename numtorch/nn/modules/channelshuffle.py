"""``ChannelShuffle``.

>>> import numtorch as torch
>>> torch.nn.ChannelShuffle(2)(torch.arange(4.).view(1, 4, 1, 1)).flatten()
tensor([0., 2., 1., 3.])
"""
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Split the channels into ``groups`` and interleave them.

    >>> ChannelShuffle(2)
    ChannelShuffle(groups=2)
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
