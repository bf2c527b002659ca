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
            # PyTorch's wording (its type is named torch.Size); a reflected add gets no turn
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) "
                            "to torch.Size")
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        # repetition stays a Size (tuple's own __mul__ would return a plain tuple)
        if not hasattr(n, "__index__"):
            raise TypeError(f"can't multiply sequence by non-int of type '{type(n).__name__}'")
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (_rebuild_size, (tuple(self),))


def _rebuild_size(dims):
    """Unpickle a Size (by this module's name, which needs no ``torch`` module)."""
    return Size(dims)
