"""``Tensor.dim_order()``: the order in which a tensor's dims are laid out in memory.

A dim order lists the dims from the outermost (largest stride) to the innermost, so that
permuting a contiguous tensor of that order gives the tensor's layout back. It follows
PyTorch's definition: contiguous and channels-last tensors take their fast answers; any other
is sorted by stride, where a stride of 0 or two equal strides leave the order open (and
``ambiguity_check`` can refuse to guess).

>>> import numtorch as torch
>>> torch.empty(2, 3, 5).transpose(0, 2).dim_order()
(2, 1, 0)
"""
from ._device import channels_last, contiguous_format, memory_format

__all__ = ["dim_order"]

_NOT_UNIQUE = ("The tensor does not have unique dim order, or cannot map to exact one of the "
               "given memory formats.")
_BAD_CHECK = "The ambiguity_check argument must be a bool or a list of memory formats."


def dim_order(self, *, ambiguity_check=False):
    """The tuple of dims from outermost to innermost in memory.

    Args:
        ambiguity_check: ``False`` returns one legal order; ``True`` raises a RuntimeError
            when the order is not unique (a size-1 dim, or neighbouring equal strides); a list
            of memory formats raises unless the tensor is contiguous in exactly one of them
            or its order is unique.

    >>> torch.empty(1, 2, 3, 4).dim_order(ambiguity_check=[torch.contiguous_format])
    (0, 1, 2, 3)
    """
    formats = _check_argument(ambiguity_check)
    sizes, strides = tuple(self.shape), self.stride()
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    if check and _has_several_orders(sizes, strides) and \
            sum(_is_contiguous_as(sizes, strides, f) for f in formats) != 1:
        raise RuntimeError(_NOT_UNIQUE)
    order, ambiguous = _physical_order(sizes, strides, bool(ambiguity_check))
    if ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(order)


def _check_argument(ambiguity_check):
    """The memory formats named by ``ambiguity_check`` (none for a bool); TypeError else."""
    if isinstance(ambiguity_check, bool):
        return []
    if not isinstance(ambiguity_check, list) or \
            not all(isinstance(f, memory_format) for f in ambiguity_check):
        raise TypeError(_BAD_CHECK)
    return ambiguity_check


def _has_several_orders(sizes, strides):
    """Whether more than one order fits: a size-1 dim goes anywhere, and so does either of
    two neighbouring dims with equal strides."""
    return 1 in sizes or any(a == b for a, b in zip(strides, strides[1:]))


def _is_contiguous_as(sizes, strides, fmt):
    """``Tensor.is_contiguous(memory_format=fmt)`` computed from sizes and strides."""
    if fmt is channels_last:
        return len(sizes) == 4 and _dense_in_order(sizes, strides, (1, 3, 2, 0))
    if fmt.name == "channels_last_3d":
        return len(sizes) == 5 and _dense_in_order(sizes, strides, (1, 4, 3, 2, 0))
    # contiguous_format (and preserve_format, which PyTorch checks the same way)
    n = 1
    for s in sizes:
        n *= s
    return n < 2 or _dense_in_order(sizes, strides, range(len(sizes) - 1, -1, -1))


def _dense_in_order(sizes, strides, inner_to_outer):
    """Whether the dims, innermost first, have the strides of a dense layout (size-1 dims
    may have any stride)."""
    expected = 1
    for d in inner_to_outer:
        if sizes[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= sizes[d]
    return True


def _physical_order(sizes, strides, check):
    """(dims outermost first, whether ``check`` found the order ambiguous)."""
    n = len(sizes)
    if n < 2:
        return list(range(n)), False
    contiguous = _is_contiguous_as(sizes, strides, contiguous_format)
    if contiguous != _is_contiguous_as(sizes, strides, channels_last):
        return (list(range(n)) if contiguous else [0, *range(2, n), 1]), False

    def compare(a, b):
        """-1: ``a`` belongs inside ``b``; 1: outside; 0: either (a 0 or equal stride)."""
        sa, sb = strides[a], strides[b]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if sizes[b] >= sizes[a] else 1
        return -1 if sb > sa else 1

    order = stride_sorted(n, compare)
    ambiguous = check and any(compare(a, b) != -1 for a, b in zip(order, order[1:]))
    return order[::-1], ambiguous


def stride_sorted(n, compare):
    """Dims ``n - 1 .. 0`` (innermost first) insertion-sorted as PyTorch sorts dims by
    stride: ``compare(d0, d1) > 0`` moves ``d0`` inside ``d1``, ``< 0`` stops, and ``0``
    (undecided) leaves the pair and compares on, so ties resolve as PyTorch's do."""
    order = list(range(n - 1, -1, -1))
    for i in range(1, n):
        moving = i
        for j in range(i - 1, -1, -1):
            c = compare(order[j], order[moving])
            if c > 0:
                order[j], order[moving] = order[moving], order[j]
                moving = j
            elif c < 0:
                break
    return order
