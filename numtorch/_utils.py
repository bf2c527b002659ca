"""The rebuild functions a PyTorch file names (``torch._utils._rebuild_tensor_v2`` ...).

A saved tensor is pickled as a call ``_rebuild_tensor_v2(storage, storage_offset, size, stride,
requires_grad, backward_hooks)``; these are numtorch's versions, so files written by PyTorch
load here and files written here load in PyTorch. Every argument may come from a hostile file:
sizes, strides and offsets are checked against the storage before a view is made, so a file
can never make a tensor that reads outside its storage.

>>> import numpy as np
>>> from numtorch import _dtype as D
>>> from numtorch.storage import TypedStorage, UntypedStorage
>>> s = TypedStorage(UntypedStorage(np.arange(6, dtype=np.float32).view(np.uint8)), D.float32)
>>> _rebuild_tensor_v2(s, 1, (2,), (2,), False, None)
tensor([1., 3.])
"""
import numpy as np

from ._tensor import Tensor
from .storage import TypedStorage, UnsupportedDtype

__all__ = []


def _check_ints(values, what):
    if not isinstance(values, (tuple, list)) or not all(
            type(v) is int and v >= 0 for v in values):
        raise RuntimeError(f"{what} must be a sequence of non-negative ints, got {values!r:.80}")
    return tuple(values)


def _checked_layout(storage, storage_offset, size, stride):
    """Validate a view of ``storage``; returns (dtype, size, stride) as tuples."""
    if not isinstance(storage, TypedStorage):
        raise RuntimeError("expected a storage to rebuild a tensor from, got "
                           f"{type(storage).__name__}")
    dtype = storage.dtype
    if isinstance(dtype, UnsupportedDtype):
        raise dtype.error()
    size = _check_ints(size, "size")
    stride = _check_ints(stride, "stride")
    if type(storage_offset) is not int or storage_offset < 0 or len(size) != len(stride):
        raise RuntimeError(f"invalid tensor layout: storage offset {storage_offset!r:.40}, "
                           f"size {size}, stride {stride}")
    if 0 not in size:
        needed = storage_offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
        if needed > storage._size():
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{storage_offset}, and itemsize {dtype.itemsize} requiring a storage size of "
                f"{needed * dtype.itemsize} are out of bounds for storage of size "
                f"{storage._untyped_storage.nbytes()}")
    return dtype, size, stride


def _rebuild_tensor(storage, storage_offset, size, stride):
    """A tensor viewing ``storage`` (its memory, not a copy) with the given layout."""
    dtype, size, stride = _checked_layout(storage, storage_offset, size, stride)
    if 0 in size:
        return Tensor._make(np.empty(size, dtype.np), None, False)
    item = dtype.itemsize
    data = np.ndarray(size, dtype.np, buffer=storage._untyped_storage._array,
                      offset=storage_offset * item, strides=tuple(s * item for s in stride))
    return Tensor._make(data, None, False)


def _finish(tensor, requires_grad, backward_hooks, metadata):
    if metadata:
        if not isinstance(metadata, dict):
            raise RuntimeError(f"tensor metadata must be a dict, got {type(metadata).__name__}")
        # NOTE: PyTorch saves a lazily conjugated/negated tensor as its storage plus these
        # bits; numtorch has no lazy bits, so they are applied now (a copy).
        data = tensor._data
        if metadata.get("conj"):
            data = np.conj(data)
        if metadata.get("neg"):
            data = np.negative(data)
        tensor = Tensor._make(np.ascontiguousarray(data), None, False)
    if requires_grad:
        tensor.requires_grad_(True)
    if backward_hooks:
        # only files from old PyTorch versions carry hooks; PyTorch no longer saves them
        for hook in backward_hooks.values():
            tensor.register_hook(hook)
    return tensor


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    """Rebuild a saved tensor (PyTorch's format for every dtype with a legacy storage)."""
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    return _finish(tensor, requires_grad, backward_hooks, metadata)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    """Rebuild a saved tensor whose dtype is given apart from its (untyped) storage."""
    if isinstance(dtype, UnsupportedDtype):
        raise dtype.error()
    typed = TypedStorage(storage._untyped_storage, dtype)
    tensor = _rebuild_tensor(typed, storage_offset, size, stride)
    return _finish(tensor, requires_grad, backward_hooks, metadata)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """Rebuild an ``nn.Parameter`` sharing ``data``'s memory."""
    from .nn.parameter import Parameter
    if not isinstance(data, Tensor):
        raise RuntimeError(f"Parameter data must be a Tensor, got {type(data).__name__}")
    return _finish(Parameter(data, requires_grad), False, backward_hooks, None)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """Rebuild an ``nn.Parameter`` that carried Python attributes."""
    return _set_obj_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _set_obj_state(obj, state):
    """Restore attributes saved as ``__dict__`` or as ``(__dict__, slots)``."""
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"Invalid serialized state: {state!r:.80}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    for part in (dict_state, slots_state):
        if part:
            for k, v in part.items():
                setattr(obj, k, v)
    return obj


def _rebuild_from_type_v2(func, new_type, args, state):
    """Rebuild a tensor subclass or a tensor with Python attributes (``torch._tensor``'s)."""
    ret = func(*args)
    if type(ret) is not new_type:
        if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
            raise RuntimeError(f"cannot rebuild a tensor as {new_type!r:.80}")
        sub = object.__new__(new_type)
        sub._init_from(ret._data, ret._rg)
        ret = sub
    setstate = getattr(type(ret), "__setstate__", Tensor.__setstate__)
    if setstate is not Tensor.__setstate__:
        ret.__setstate__(state)
        return ret
    return _set_obj_state(ret, state)


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    """A tensor PyTorch saved from a device without storages, as a CPU copy."""
    if isinstance(dtype, UnsupportedDtype):
        raise dtype.error()
    return _finish(Tensor._make(np.array(data._data, dtype.np), None, False), requires_grad,
                   None, None)


def _rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    """Like the above, for tensors PyTorch saved through a NumPy array."""
    if isinstance(dtype, UnsupportedDtype):
        raise dtype.error()
    return _finish(Tensor._make(np.array(data, dtype.np), None, False), requires_grad, None,
                   None)


def _unsupported(name, what):
    def rebuild(*args, **kwargs):
        raise RuntimeError(f"numtorch cannot load {what}: it has only dense CPU tensors "
                           f"(the file calls torch._utils.{name})")
    rebuild.__name__ = rebuild.__qualname__ = name
    return rebuild


_rebuild_qtensor = _unsupported("_rebuild_qtensor", "quantized tensors")
_rebuild_sparse_tensor = _unsupported("_rebuild_sparse_tensor", "sparse tensors")
_rebuild_nested_tensor = _unsupported("_rebuild_nested_tensor", "nested tensors")
_rebuild_meta_tensor_no_storage = _unsupported("_rebuild_meta_tensor_no_storage",
                                               "meta tensors")
_rebuild_wrapper_subclass = _unsupported("_rebuild_wrapper_subclass",
                                         "wrapper tensor subclasses")
