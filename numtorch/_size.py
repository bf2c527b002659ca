"""``torch.Size``: a tuple of ints that prints as ``torch.Size([1, 3])``."""

__all__ = ["Size"]


class Size(tuple):
    """The shape of a tensor.

    >>> Size([1, 3])
    torch.Size([1, 3])
    """

    __slots__ = ()
    __module__ = "torch"  # prints as <class 'torch.Size'>; pickled through _size (below)

    def __repr__(self):
        return f"torch.Size([{', '.join(str(int(n)) for n in self)}])"

    __str__ = __repr__

    def numel(self):
        """The number of elements a tensor of this shape has."""
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        res = tuple.__getitem__(self, item)
        return Size(res) if isinstance(item, slice) else res

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __reduce__(self):
        return (_rebuild_size, (tuple(self),))


def _rebuild_size(dims):
    """Unpickle a Size (by this module's name, which needs no ``torch`` module)."""
    return Size(dims)
