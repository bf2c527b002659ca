"""``torch.Size``: a tuple of ints that prints as ``torch.Size([1, 3])``."""

import operator

import numpy as np

__all__ = ["Size"]


class Size(tuple):
    """The shape of a tensor.

    >>> Size([1, 3])
    torch.Size([1, 3])
    """

    __slots__ = ()
    __module__ = "torch"  # prints as <class 'torch.Size'>; pickled through _size (below)

    def __new__(cls, *args, **kwargs):
        # NOTE: a Python __new__ costs every Size(...) a call: Tensor.shape and size() make
        # theirs with tuple.__new__(Size, ...) instead (a NumPy shape needs no checks)
        if len(args) != 1 or kwargs:  # tuple's own errors and its empty default
            return tuple.__new__(cls, *args, **kwargs)
        return tuple.__new__(cls, [_size_int(s, i) for i, s in enumerate(tuple(args[0]))])

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
        return tuple.__new__(Size, res) if isinstance(item, slice) else res

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
        return tuple.__new__(Size, tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (_rebuild_size, (tuple(self),))


def _size_int(value, i):
    """Entry ``i`` of a new Size: ints and NumPy ints as they are (as PyTorch keeps them),
    else anything with ``__index__`` (bools, one-element integer tensors) as an int; PyTorch's
    TypeError for the rest."""
    if type(value) is int or isinstance(value, np.integer):
        return value
    try:
        return operator.index(value)
    except TypeError:
        from .ops._util import tp_name
        raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                        f"'{tp_name(value)}')") from None


def _rebuild_size(dims):
    """Unpickle a Size (by this module's name, which needs no ``torch`` module)."""
    return Size(dims)
