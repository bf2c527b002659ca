"""``torch.func.functionalize`` for eager execution.

PyTorch's functionalization rewrites a program's in-place ops as out-of-place ones and copies
any mutation of an input back into it at the end. Run eagerly, that program computes what the
function itself computes; what a caller can see of the rewrite is (1) an output never aliases
an input the function mutated (it is the rewritten program's own value), and (2) with
``remove='mutations_and_views'`` an output that is a view comes back as a contiguous copy
(PyTorch's ``{view}_copy`` ops). numtorch runs the function as it is and gives its outputs
those two properties; there is no graph to trace.
"""
import functools

import numpy as np

from .._device import contiguous_format
from .._tensor import Tensor
from . import _pytree

__all__ = ["functionalize"]

_REMOVE_ERROR = (
    "functionalize(f, remove='mutations'): received invalid argument for remove={}. Valid "
    "options are:\n"
    "     remove='mutations': all inplace and out= operators will be removed from the "
    "program, and replaced with their out-of-place equivalents.\n"
    "     remove='mutations_and_views': In addition to the above, all aliasing operators "
    "{{view}} will be replaced with their non-aliasing counterparts, {{view}}_copy.\n")


def functionalize(func, *, remove="mutations"):
    """``func`` with its mutations (and, for ``remove='mutations_and_views'``, its views)
    removed from what its callers can observe: same values, inputs still updated in place,
    outputs that alias neither a mutated input nor (second mode) anything at all.

    Args:
        func: a function of tensors (nested tuples, lists and dicts allowed).
        remove: ``'mutations'`` or ``'mutations_and_views'``.

    Returns:
        The functionalized function.

    >>> import numtorch as torch
    >>> def f(a):
    ...     b = a + 1.0
    ...     b.view(-1).add_(1)
    ...     return b
    >>> torch.func.functionalize(f)(torch.zeros(2))
    tensor([2., 2.])
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(_REMOVE_ERROR.format(remove))
    copy_views = remove == "mutations_and_views"

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        inputs = [x for x in _pytree.tree_flatten((args, kwargs))[0] if isinstance(x, Tensor)]
        versions = [x._version for x in inputs]
        out = func(*args, **kwargs)
        mutated = [x for x, v in zip(inputs, versions) if x._version != v]
        return _pytree.tree_map(lambda o: _unalias(o, mutated, copy_views), out)
    return wrapped


def _unalias(o, mutated, copy_views):
    """Output ``o`` as functionalization returns it: a contiguous copy where it shares memory
    with a mutated input, or is a view and views are removed; else ``o`` itself."""
    if not isinstance(o, Tensor):
        return o
    if (copy_views and o._base is not None) or \
            any(np.may_share_memory(o._data, x._data) for x in mutated):
        return o.clone(memory_format=contiguous_format)
    return o
