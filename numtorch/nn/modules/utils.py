"""Argument helpers shared by the layers: ``_single``, ``_pair``, ``_triple``, ``_ntuple``.

>>> _pair(3), _pair((1, 2))
((3, 3), (1, 2))
"""
import collections.abc
from itertools import repeat

__all__ = []


def _ntuple(n, name="parse"):
    """A function turning a scalar into an ``n``-tuple and passing iterables through."""

    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """Reverse ``t`` and repeat each element ``n`` times (conv padding for F.pad)."""
    return tuple(x for x in reversed(t) for _ in range(n))
