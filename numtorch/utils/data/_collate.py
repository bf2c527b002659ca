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

from ..._tensor import Tensor

__all__ = ["default_collate", "default_convert", "collate"]

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


def _collate_tensors(batch):
    from ... import stack
    return stack(batch, 0)


def _collate_numpy(batch):
    from ... import as_tensor
    elem = batch[0]
    if isinstance(elem, np.ndarray):
        if _NP_STR.search(elem.dtype.str):
            raise TypeError(_ERR.format(elem.dtype))
        return _collate_tensors([as_tensor(b) for b in batch])
    return as_tensor(np.array(batch))


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` recursively by the type of its first element."""
    from ... import tensor, float64
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _collate_tensors(batch)
    if type(elem).__module__ == "numpy" and not isinstance(elem, (np.str_, np.bytes_)):
        return _collate_numpy(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {k: collate([d[k] for d in batch]) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # NOTE: each column is zip's tuple, as in PyTorch: a column of strings stays a tuple
        columns = [collate(s) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild_sequence(elem, columns)
    raise TypeError(_ERR.format(type(elem)))


def default_collate(batch):
    """Stack tensors/arrays/numbers into batch tensors, recursing into dicts and sequences.

    >>> default_collate([{'x': 1.0}, {'x': 2.0}])
    {'x': tensor([1., 2.], dtype=torch.float64)}
    """
    return collate(batch)
