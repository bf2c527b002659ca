"""``default_collate`` and ``default_convert``: samples -> batched tensors.

>>> import numtorch as torch
>>> default_collate([(torch.tensor([1.0]), 0), (torch.tensor([2.0]), 1)])
[tensor([[1.],
        [2.]]), tensor([0, 1])]
"""
import collections.abc
import copy
import re

import numpy as np

from ..._naming import torch_named
from ..._tensor import Tensor

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map",
           "collate_tensor_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn",
           "collate_float_fn", "collate_int_fn", "collate_str_fn"]

_NP_STR = re.compile(r"[SaUO]")
_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        "found {}")


def default_convert(data):
    """NumPy arrays (not of strings/objects) become tensors, inside containers too.

    >>> default_convert(np.zeros(2))
    tensor([0., 0.], dtype=torch.float64)
    """
    from ... import as_tensor
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        if isinstance(data, np.ndarray) and _NP_STR.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(like, values):
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(values)
            return clone
        return type(like)(values)
    except TypeError:
        return values


def _rebuild_sequence(like, values):
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(like)(values)
    except TypeError:
        return values


# ---- the per-type collate functions of ``default_collate_fn_map`` ------------------------
# Each takes the batch positionally and the registry as ``collate_fn_map=``, so a user map
# can reuse them (PyTorch's documented extension point).

def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Stack a batch of tensors along a new first dimension."""
    from ... import stack
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """Arrays become tensors, then collate again (arrays of strings/objects are refused)."""
    from ... import as_tensor
    elem = batch[0]
    if _NP_STR.search(elem.dtype.str):
        raise TypeError(_ERR.format(elem.dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """NumPy scalars become one tensor of their dtype."""
    from ... import as_tensor
    return as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats become a float64 tensor."""
    from ... import tensor, float64
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints (and bools) become an int64 (bool) tensor."""
    from ... import tensor
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings (and bytes) stay a list."""
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def _find_fn(elem, collate_fn_map):
    """The registry's function for ``elem``: its exact type first, else the first key (in
    insertion order) it is an instance of; None when nothing fits."""
    fn = collate_fn_map.get(type(elem))
    if fn is not None:
        return fn
    for kind, fn in collate_fn_map.items():
        if isinstance(elem, kind):
            return fn
    return None


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` by the type of its first element, recursing into containers.

    Leaf types are looked up in ``collate_fn_map`` (``default_collate`` passes
    :data:`default_collate_fn_map`); mappings, namedtuples and sequences are walked
    whatever the map says. A type nothing handles raises TypeError.

    >>> collate([1.5, 2.5], collate_fn_map=default_collate_fn_map)
    tensor([1.5000, 2.5000], dtype=torch.float64)
    """
    elem = batch[0]
    if collate_fn_map is not None:
        fn = _find_fn(elem, collate_fn_map)
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {k: collate([d[k] for d in batch],
                                                  collate_fn_map=collate_fn_map)
                                       for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # NOTE: each column is zip's tuple, as in PyTorch: a column of strings stays a tuple
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild_sequence(elem, columns)
    raise TypeError(_ERR.format(type(elem)))


def default_collate(batch):
    """Stack tensors/arrays/numbers into batch tensors, recursing into dicts and sequences.

    >>> default_collate([{'x': 1.0}, {'x': 2.0}])
    {'x': tensor([1., 2.], dtype=torch.float64)}
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)


# PyTorch's home for the collate functions: they show its name where torch is numtorch (a
# collate_fn pickled for a worker process is found there, the module re-exports them)
for _fn in (collate, collate_float_fn, collate_int_fn, collate_numpy_array_fn,
            collate_numpy_scalar_fn, collate_str_fn, collate_tensor_fn, default_collate,
            default_convert):
    torch_named(_fn, "numtorch.utils.data._utils.collate")
del _fn
