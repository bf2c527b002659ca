"""Storages: the flat byte buffers that tensors view.

A numtorch tensor holds a NumPy array; the memory it views belongs to the array at the end of
its ``base`` chain (its *root*), which plays the part of PyTorch's storage.
``Tensor.untyped_storage()`` wraps the root's bytes in an ``UntypedStorage`` (a ``uint8``
ndarray viewing them, never a copy) and ``Tensor.storage()`` reads those bytes as elements of the
tensor's dtype (a ``TypedStorage``). ``torch.load`` reads each storage record of a file into an
``UntypedStorage`` and rebuilds tensors as views of it, so tensors that shared memory when saved
share it again when loaded.

>>> from numtorch.storage import STORAGE_TYPES
>>> STORAGE_TYPES["FloatStorage"].dtype
torch.float32
>>> import numtorch as torch
>>> x = torch.arange(6.)
>>> x[2:].untyped_storage().data_ptr() == x.data_ptr(), x[2:].storage_offset()
(True, 2)
"""
import warnings
import weakref

import numpy as np

from . import _dtype as D
from ._device import CPU

__all__ = ["UntypedStorage", "TypedStorage", "StorageType", "STORAGE_TYPES", "storage_type_of",
           "root_array", "storage_of"]

# arrays that stand for a whole storage although they view a larger buffer (mapped files)
STORAGE_ROOTS = weakref.WeakValueDictionary()


def root_array(arr):
    """The ndarray owning ``arr``'s memory: the end of its ``base`` chain (or an array that
    ``STORAGE_ROOTS`` marks as a storage of its own)."""
    while STORAGE_ROOTS.get(id(arr)) is not arr:
        base = arr.base
        if not isinstance(base, np.ndarray):
            # as_strided's helper object keeps the real owner one step further
            base = getattr(base, "base", None)
            if not isinstance(base, np.ndarray):
                break
        arr = base
    return arr


def data_ptr(arr):
    """The address of ``arr``'s first element."""
    return arr.__array_interface__["data"][0]


def storage_of(arr):
    """An ``UntypedStorage`` over all the bytes of the buffer that ``arr`` views (no copy)."""
    root = root_array(arr)
    # NOTE: an owner's memory is one block, so ravel in memory order is a view of it; only
    # an array over a foreign strided buffer (rare) gets a copy here
    return UntypedStorage(root.ravel(order="K").view(np.uint8))


def _storage_repr(values, header):
    """PyTorch's storage repr: one element a line, then ``[header of size n]``."""
    body = "\n".join(f" {v}" for v in values) if values else " "
    return f"{body}\n[{header} of size {len(values)}]"


def _index_error(index, size):
    return IndexError(f"index {index} out of range for storage of size {size}")


class UntypedStorage:
    """Bytes on the CPU, held as a one-dimensional ``uint8`` ndarray (``_array``)."""

    __slots__ = ("_array",)

    def __init__(self, array):
        self._array = array

    @property
    def device(self):
        return CPU

    def nbytes(self):
        return self._array.size

    def size(self):
        return self._array.size

    __len__ = size

    def element_size(self):
        return 1

    def data_ptr(self):
        return data_ptr(self._array)

    def untyped(self):
        return self

    def tolist(self):
        return self._array.tolist()

    def __iter__(self):
        return iter(self._array.tolist())

    def __getitem__(self, idx):
        """The byte at ``idx`` as an int, or a storage viewing the bytes of a step-1 slice."""
        if isinstance(idx, slice):
            if idx.step not in (None, 1):
                raise RuntimeError(f"Trying to slice with a step of {idx.step}, but only a "
                                   "step of 1 is supported")
            return UntypedStorage(self._array[idx])
        if isinstance(idx, bool) or not isinstance(idx, (int, np.integer)):
            raise TypeError(f"can't index a torch.UntypedStorage with {type(idx).__name__}")
        n, i = self._array.size, int(idx)
        i = i + n if i < 0 else i
        if not 0 <= i < n:  # PyTorch names the index after wrapping a negative one
            raise _index_error(i, n)
        return int(self._array[i])

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        # the wording PyTorch's CPU-only builds use
        raise AssertionError("Torch not compiled with CUDA enabled")

    def __repr__(self):
        return _storage_repr(self._array.tolist(), "torch.storage.UntypedStorage(device=cpu)")

    __str__ = __repr__


_TYPED_STORAGE_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
    "the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()")
_WARNED = [False]  # PyTorch warns once per process


def warn_typed_storage_removal(stacklevel=2):
    """PyTorch's deprecation warning for ``Tensor.storage()``, the first time only."""
    if not _WARNED[0]:
        _WARNED[0] = True
        warnings.warn(_TYPED_STORAGE_WARNING, UserWarning, stacklevel=stacklevel + 1)


def _class_name(obj):
    """The dotted name PyTorch prints for the class of ``obj`` (``torch.Tensor`` for ours)."""
    from ._tensor import Tensor
    if isinstance(obj, Tensor):
        return "torch.Tensor"
    cls = type(obj)
    return cls.__qualname__ if cls.__module__ == "builtins" else \
        f"{cls.__module__}.{cls.__qualname__}"


class TypedStorage:
    """An ``UntypedStorage`` read as elements of ``dtype``."""

    __slots__ = ("_untyped_storage", "dtype")

    def __init__(self, untyped, dtype):
        self._untyped_storage = untyped
        self.dtype = dtype

    def _size(self):
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    size = _size
    __len__ = _size

    @property
    def device(self):
        return CPU

    def _elements(self):
        """The storage's elements as a 1-D ndarray of ``dtype`` (a view of its bytes)."""
        raw = self._untyped_storage._array
        return raw[:self._size() * self.dtype.itemsize].view(self.dtype.np)

    def untyped(self):
        return self._untyped_storage

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def element_size(self):
        return self.dtype.itemsize

    def tolist(self):
        return self._elements().tolist()

    def __iter__(self):
        return iter(self.tolist())

    @staticmethod
    def _check_key(idx, writing=False):
        """PyTorch's errors for a key other than an int (reading) or an int, bool or slice
        (writing, which indexes a tensor over the storage)."""
        if type(idx) is int or writing and isinstance(idx, (int, slice)):
            return
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        err = TypeError if isinstance(idx, bool) else RuntimeError
        raise err(f"can't index a <class 'torch.storage.TypedStorage'> with "
                  f"<class '{_class_name(idx)}'>")

    def __getitem__(self, idx):
        """The element at int ``idx`` as a Python number."""
        self._check_key(idx)
        n = self._size()
        if not -n <= idx < n:
            raise _index_error(idx, n)
        return self._elements()[idx].item()

    def __setitem__(self, idx, value):
        """Write ``value`` at an int or slice ``idx``, as ``tensor[idx] = value`` does."""
        from ._tensor import Tensor
        self._check_key(idx, writing=True)
        Tensor._make(self._elements(), None, False)[idx] = value

    def __repr__(self):
        return _storage_repr(self.tolist(), f"torch.storage.TypedStorage(dtype={self.dtype}, "
                                            "device=cpu)")

    __str__ = __repr__


class UnsupportedDtype:
    """A PyTorch dtype numtorch lacks (bfloat16, uint16 ...): it can be named, not used."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def error(self, what="load a tensor"):
        return RuntimeError(f"numtorch cannot {what} of dtype torch.{self.name}: numtorch has "
                            "no such dtype (convert it in PyTorch, e.g. to torch.float32, "
                            "before saving)")


_MISSING = ("bfloat16", "complex32", "uint16", "uint32", "uint64", "float8_e4m3fn",
            "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
            "float4_e2m1fn_x2", "qint8", "quint8", "qint32", "quint4x2", "quint2x4", "bits1x8",
            "bits2x4", "bits4x2", "bits8", "bits16") + tuple(
    f"{p}int{n}" for p in ("", "u") for n in range(1, 8))
UNSUPPORTED_DTYPES = {name: UnsupportedDtype(name) for name in _MISSING}


class StorageType:
    """A legacy storage class name in a file (``torch.FloatStorage``) and its dtype."""

    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype):
        self.name = name
        self.dtype = dtype

    def __repr__(self):
        return "torch." + self.name


_LEGACY = {D.bool_: "BoolStorage", D.uint8: "ByteStorage", D.int8: "CharStorage",
           D.int16: "ShortStorage", D.int32: "IntStorage", D.int64: "LongStorage",
           D.float16: "HalfStorage", D.float32: "FloatStorage", D.float64: "DoubleStorage",
           D.complex64: "ComplexFloatStorage", D.complex128: "ComplexDoubleStorage"}
_LEGACY_MISSING = {"BFloat16Storage": "bfloat16", "QInt8Storage": "qint8",
                   "QUInt8Storage": "quint8", "QInt32Storage": "qint32",
                   "QUInt4x2Storage": "quint4x2", "QUInt2x4Storage": "quint2x4"}
STORAGE_TYPES = {name: StorageType(name, d) for d, name in _LEGACY.items()}
STORAGE_TYPES.update({name: StorageType(name, UNSUPPORTED_DTYPES[d])
                      for name, d in _LEGACY_MISSING.items()})


def storage_type_of(dtype):
    """The legacy storage type PyTorch names in a file for tensors of ``dtype``."""
    return STORAGE_TYPES[_LEGACY[dtype]]


def empty_untyped(dtype, numel):
    """A new storage for ``numel`` elements of ``dtype``, aligned for that dtype."""
    return UntypedStorage(np.empty(numel, dtype.np).view(np.uint8))


from ._naming import use_torch_names  # noqa: E402

use_torch_names(globals())  # <class 'torch.storage.UntypedStorage'> where torch is numtorch
