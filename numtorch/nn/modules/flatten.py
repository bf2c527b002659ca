"""``Flatten`` and ``Unflatten``.

>>> import numtorch as torch
>>> torch.nn.Flatten()(torch.ones(2, 3, 4)).shape
torch.Size([2, 12])
"""
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flatten dims ``start_dim`` .. ``end_dim`` into one.

    >>> Flatten()
    Flatten(start_dim=1, end_dim=-1)
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size``.

    >>> Unflatten(1, (2, 3))(torch.ones(4, 6)).shape
    torch.Size([4, 2, 3])
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        _require_tuple_int(unflattened_size)
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


def _require_tuple_int(size):
    """Unflatten's check of ``unflattened_size`` (a tuple or list of ints), with PyTorch's
    messages."""
    if not isinstance(size, (tuple, list)):
        raise TypeError("unflattened_size must be a tuple of ints, but found type "
                        f"{type(size).__name__}")
    for i, n in enumerate(size):
        if not isinstance(n, int):
            raise TypeError("unflattened_size must be tuple of ints, but found element of "
                            f"type {type(n).__name__} at pos {i}")
