"""Storages: the flat byte buffers that saved tensors view.

numtorch tensors own NumPy arrays, so storages exist only at the edge where PyTorch's file
format needs them: ``torch.load`` reads each storage record into an ``UntypedStorage`` (a
``uint8`` ndarray) and rebuilds tensors as views of it, so tensors that shared memory when
saved share it again when loaded.

>>> from numtorch.storage import STORAGE_TYPES
>>> STORAGE_TYPES["FloatStorage"].dtype
torch.float32
"""
import numpy as np

from . import _dtype as D
from ._device import CPU

__all__ = ["UntypedStorage", "TypedStorage", "StorageType", "STORAGE_TYPES", "storage_type_of"]


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

    def data_ptr(self):
        return self._array.__array_interface__["data"][0]

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        # the wording PyTorch's CPU-only builds use
        raise AssertionError("Torch not compiled with CUDA enabled")

    def __repr__(self):
        return f"numtorch.storage.UntypedStorage(nbytes={self.nbytes()})"


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

    def __repr__(self):
        return f"numtorch.storage.TypedStorage(dtype={self.dtype}, size={self._size()})"


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
