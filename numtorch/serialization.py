"""``torch.save`` and ``torch.load`` in PyTorch's own file format.

A file is a zip archive ``<name>/``: ``data.pkl`` pickles the object with every tensor written
as ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)`` and every storage as
a persistent id ``('storage', torch.FloatStorage, key, 'cpu', numel)``, whose bytes are the
record ``data/<key>``. Tensors sharing memory (a tensor and a slice of it) are saved as one
storage with offsets and strides and load back sharing memory, both ways with PyTorch.

Loading is safe by default (``weights_only=True``): the pickle is run by a restricted
unpickler that only builds tensors, containers and a short allow-list of PyTorch objects.

>>> import io
>>> import numtorch as torch
>>> buf = io.BytesIO()
>>> x = torch.arange(6.)
>>> torch.save({"x": x, "tail": x[4:], "step": 3}, buf)
>>> ckpt = torch.load(io.BytesIO(buf.getvalue()))
>>> _ = ckpt["tail"].add_(10)  # writes through to ckpt["x"]
>>> ckpt["x"]
tensor([ 0.,  1.,  2.,  3., 14., 15.])
"""
import contextlib
import copy
import enum
import functools
import importlib
import io
import mmap as _mmap
import os
import pickle
import pickletools
import struct
import sys
import threading
import types
import warnings
import zipfile
import zlib
from collections import OrderedDict

import numpy as np

from . import _dtype as D
from . import _utils
from ._device import device, layout, strided, sparse_coo
from ._lazy import NotProvidedError
from ._size import Size
from ._tensor import Tensor
from ._weights_only_unpickler import (Unpickler as _WeightsUnpickler, add_safe_globals,
                                      allowed_globals as _allowed_globals,
                                      _py2_names, _user_allowed,
                                      clear_safe_globals, get_safe_globals, safe_globals)
from .storage import (STORAGE_ROOTS as _STORAGE_ROOTS, StorageType, TypedStorage,
                      UnsupportedDtype, UntypedStorage, data_ptr as _data_ptr, empty_untyped,
                      root_array as _owner, storage_type_of)

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "default_restore_location", "DEFAULT_PROTOCOL",
           "SourceChangeWarning", "LoadEndianness", "get_default_load_endianness",
           "set_default_load_endianness", "get_crc32_options", "set_crc32_options",
           "get_default_mmap_options", "set_default_mmap_options", "skip_data",
           "get_unsafe_globals_in_checkpoint"]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C  # the legacy (non-zip) format's first pickle
PROTOCOL_VERSION = 1001
STORAGE_ALIGNMENT = 64  # storage records start at multiples of this, so files can be mapped
UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if "
    "you got the file from a trusted source.")
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
_ACCELERATORS = ("cuda", "mps", "xpu", "hpu", "mtia", "xla")


def _get_layout(name):
    """The layout PyTorch pickles as ``torch.serialization._get_layout('torch.strided')``."""
    layouts = {"torch.strided": strided, "torch.sparse_coo": sparse_coo}
    if name not in layouts:
        raise RuntimeError(f"numtorch has no layout {name!r:.60}")
    return layouts[name]


# =========================================================================================
# options (PyTorch keeps them in torch.utils.serialization.config)
# =========================================================================================
# NOTE: mmap has no MAP_PRIVATE/MAP_SHARED on Windows; PyTorch then has None for both
MAP_PRIVATE = getattr(_mmap, "MAP_PRIVATE", None)
MAP_SHARED = getattr(_mmap, "MAP_SHARED", None)


class SourceChangeWarning(Warning):
    """The category PyTorch warns with when a pickled module's source code has changed."""


class LoadEndianness(enum.Enum):
    """The byte order ``torch.load`` assumes for a file without a ``byteorder`` record."""
    NATIVE = 1
    LITTLE = 2
    BIG = 3


_options = {"load_endianness": None, "compute_crc32": True, "mmap_flags": MAP_PRIVATE}
_tls = threading.local()  # ``skip_data`` is per thread, as PyTorch's


def get_default_load_endianness():
    """The fallback byte order for files without a ``byteorder`` record (None: little).

    >>> get_default_load_endianness() is None
    True
    """
    return _options["load_endianness"]


def set_default_load_endianness(endianness):
    """Set the fallback byte order: a :class:`LoadEndianness` or None (little endian)."""
    if not isinstance(endianness, LoadEndianness) and endianness is not None:
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _options["load_endianness"] = endianness


def _fallback_byteorder():
    """The byte order of a file without a ``byteorder`` record, per the option above."""
    endianness = _options["load_endianness"]
    if endianness is None or endianness is LoadEndianness.LITTLE:
        return "little"
    return "big" if endianness is LoadEndianness.BIG else sys.byteorder


def get_crc32_options():
    """Whether ``torch.save`` computes each record's CRC-32 (True by default).

    >>> get_crc32_options()
    True
    """
    return _options["compute_crc32"]


def set_crc32_options(compute_crc32):
    """Make ``torch.save`` compute record CRCs or write 0 instead (faster; ``torch.load``
    does not check them, other unzip tools may complain)."""
    _options["compute_crc32"] = compute_crc32


def get_default_mmap_options():
    """The ``mmap`` flags of ``torch.load(..., mmap=True)`` (``mmap.MAP_PRIVATE`` by default:
    writes to loaded tensors stay in memory; ``MAP_SHARED`` writes them to the file)."""
    return _options["mmap_flags"]


class set_default_mmap_options:
    """Set the ``mmap`` flags of ``torch.load(..., mmap=True)``: ``mmap.MAP_PRIVATE`` or
    ``mmap.MAP_SHARED``; as a context manager, the previous flags come back on exit.

    >>> import mmap
    >>> with set_default_mmap_options(mmap.MAP_SHARED):
    ...     get_default_mmap_options() == mmap.MAP_SHARED
    True
    """

    def __init__(self, flags):
        if MAP_PRIVATE is None:
            raise RuntimeError("Changing the default mmap options is currently not supported "
                               "for Windows")
        if flags != MAP_PRIVATE and flags != MAP_SHARED:
            raise ValueError("Invalid argument in function set_default_mmap_options, expected "
                             f"mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}")
        self.prev = _options["mmap_flags"]
        _options["mmap_flags"] = flags

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _options["mmap_flags"] = self.prev


def _skipping_data():
    return getattr(_tls, "skip_data", False)


class skip_data:
    """Inside this block ``torch.save`` writes every storage's record as zero bytes (of its
    full size) and ``torch.load`` leaves loaded storages unfilled (zeros in numtorch).

    Args:
        materialize_fake_tensors: accepted for PyTorch's signature; numtorch has no fake
            tensors, so it changes nothing.

    >>> import io, numtorch as torch
    >>> buf = io.BytesIO()
    >>> with skip_data():
    ...     torch.save(torch.ones(2), buf)
    >>> torch.load(io.BytesIO(buf.getvalue()))
    tensor([0., 0.])
    """

    def __init__(self, materialize_fake_tensors=False):
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self):
        self._old = _skipping_data()
        _tls.skip_data = True

    def __exit__(self, *exc):
        _tls.skip_data = self._old


def get_unsafe_globals_in_checkpoint(f):
    """The ``module.name`` strings of the globals in a ``torch.save`` file that a
    ``weights_only`` load would refuse (neither PyTorch's defaults nor user-allowed).

    The pickle is read, not run, so only globals written into it are found.

    >>> import io, numtorch as torch
    >>> buf = io.BytesIO()
    >>> torch.save({"w": torch.ones(1), "ok": True}, buf)
    >>> get_unsafe_globals_in_checkpoint(io.BytesIO(buf.getvalue()))
    []
    """
    safe = set(_allowed_globals()) | set(_user_allowed())
    with _open_file(os.fsdecode(f) if _is_path(f) else f, "rb") as opened:
        start = opened.tell()
        is_zip = opened.read(4) == b"PK\x03\x04"
        opened.seek(start)
        if not is_zip:
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        with _ZipReader(opened) as reader:
            if reader.has_record("constants.pkl"):
                raise ValueError("Expected input to be a checkpoint returned by torch.save "
                                 "but got a torchscript checkpoint")
            found = _globals_in_pickle(reader.get_record("data.pkl"))
    return list(found - safe)


def _globals_in_pickle(data):
    """The ``module.name`` of every GLOBAL / STACK_GLOBAL in the pickle ``data``.

    STACK_GLOBAL takes its two strings from the stack: the last two values pushed, which
    may come from the memo; other pushes are tracked as None."""
    found, pushed, memo = set(), [None, None], {}
    for op, arg, _ in pickletools.genops(data):
        if op.name == "GLOBAL":
            found.add("{}.{}".format(*_py2_names(*arg.split(" ", 1))))
        elif op.name == "STACK_GLOBAL":
            module, name = pushed[-2:]
            if isinstance(module, str) and isinstance(name, str):
                found.add("{}.{}".format(*_py2_names(module, name)))
        elif op.name in ("PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"):
            memo[len(memo) if op.name == "MEMOIZE" else arg] = pushed[-1]
            continue
        elif op.name in ("GET", "BINGET", "LONG_BINGET"):
            pushed.append(memo.get(arg))
            continue
        pushed.append(arg if isinstance(arg, str) and "UNICODE" in op.name else None)
    return found


# =========================================================================================
# saving
# =========================================================================================
def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """Save ``obj`` (tensors, modules' state dicts, containers ...) in PyTorch's format.

    Args:
        obj: the object to save.
        f: a file name, ``os.PathLike`` or a binary file-like object with ``write``.
        pickle_module: the module whose (pure Python) ``Pickler`` pickles ``obj``.
        pickle_protocol: the pickle protocol (PyTorch's default is 2).
        _use_new_zipfile_serialization: ``False`` writes the legacy, non-zip format.
        _disable_byteorder_record: write the ``byteorder`` record last instead of before
            the storages (PyTorch 2.13's writer always writes one, so the flag only moves it).

    Example:
        >>> import io, numtorch as torch
        >>> buf = io.BytesIO()
        >>> torch.save(torch.tensor([1, 2]), buf)
        >>> torch.load(io.BytesIO(buf.getvalue()))
        tensor([1, 2])
    """
    if not _is_path(f) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             "'write' attribute")
    if _is_path(f):
        f = os.fsdecode(f)
    if isinstance(pickle_protocol, int) and pickle_protocol < 1:
        # protocol 0 writes persistent ids as text, which cannot hold a storage reference
        raise ValueError(f"torch.save needs a binary pickle protocol (1 or higher), got "
                         f"{pickle_protocol}")
    base = _pickler_base(pickle_module)
    if _use_new_zipfile_serialization:
        _save_zip(obj, f, base, pickle_protocol, _disable_byteorder_record)
        return
    if _skipping_data():
        raise RuntimeError("Cannot use skip_data=True with _use_new_zipfile_serialization=False")
    with _open_file(f, "wb") as opened:
        _save_legacy(obj, opened, base, pickle_protocol)


def _is_path(f):
    return isinstance(f, (str, bytes, os.PathLike))


@contextlib.contextmanager
def _open_file(f, mode):
    if isinstance(f, str):
        with open(f, mode) as opened:
            yield opened
    else:
        yield f


def _pickler_base(pickle_module):
    # NOTE: the C Pickler checks each global by importing its module, so it could not write
    # numtorch's objects under PyTorch's names; the Python one lets save_global do that.
    base = pickle._Pickler if pickle_module is pickle else pickle_module.Pickler
    if not (isinstance(base, type) and issubclass(base, pickle._Pickler)):
        raise TypeError("numtorch.save needs a pickle module whose Pickler is written in "
                        f"Python (a pickle._Pickler subclass); {pickle_module!r} has none")
    return base


class _Record:
    """One storage to save: the owning ndarray, read as ``numel`` elements of ``dtype``."""

    __slots__ = ("key", "dtype", "owner", "numel", "storage_type")

    def __init__(self, key, dtype, owner, untyped=False):
        self.key, self.dtype, self.owner = key, dtype, owner
        self.numel = owner.nbytes // dtype.itemsize
        self.storage_type = UntypedStorage if untyped else storage_type_of(dtype)

    def raw(self):
        """The storage's bytes (no copy) as a flat ``uint8`` array."""
        flat = self.owner.ravel(order="K").view(np.uint8)
        return flat[:self.numel * self.dtype.itemsize]

    def pid(self, legacy):
        if legacy:
            # PyTorch writes the key of each reference as a new string, which the pickle
            # cannot memoize (so a file has PyTorch's size): a new string here too
            return ("storage", self.storage_type, "".join(self.key), "cpu", self.numel, None)
        return ("storage", self.storage_type, self.key, "cpu", self.numel)


def _contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def _layout_in(owner, arr):
    """``arr`` as (offset, strides) in elements of ``owner``'s memory, or None if it cannot
    be expressed as PyTorch's view (negative or unaligned strides, foreign buffers)."""
    if not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        return None
    item, sized = arr.itemsize, arr.size > 0
    offset = _data_ptr(arr) - _data_ptr(owner)
    end = offset + item * sized
    for n, s in zip(arr.shape, arr.strides):
        if n > 1 and sized:
            if s < 0 or s % item:
                return None
            end += (n - 1) * s
    if offset < 0 or offset % item or end > owner.nbytes:
        return None
    # NumPy gives dims of size 1 (and empty arrays) arbitrary strides; PyTorch's are these
    strides = tuple(s // item if n > 1 and sized else c
                    for n, s, c in zip(arr.shape, arr.strides, _contiguous_strides(arr.shape)))
    return offset // item, strides


class _Storages:
    """The storages of one save, found by walking each tensor's array to its owner."""

    def __init__(self, legacy=False):
        self.records = []
        self._by_owner = {}
        self.legacy = legacy

    def _key(self, owner):
        # the legacy format names a storage by its address, as PyTorch (so files have its
        # sizes); the zip format by its position
        if not self.legacy:
            return str(len(self.records))
        key = str(_data_ptr(owner))
        return key if all(r.key != key for r in self.records) else f"{key}_{len(self.records)}"

    def _record(self, owner, dtype, untyped=False):
        record = self._by_owner.get(id(owner))
        if record is None:
            record = _Record(self._key(owner), dtype, owner, untyped)
            self.records.append(record)
            self._by_owner[id(owner)] = record
        elif record.dtype is not dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                               "data as different types")
        return record

    def view_of(self, tensor):
        """(record, storage offset, strides) for ``tensor``, sharing storage where possible."""
        dtype = tensor.dtype
        arr = np.asarray(tensor._data)
        if arr.dtype != dtype.np:
            arr = arr.astype(dtype.np)
        owner = _owner(arr)
        layout = _layout_in(owner, arr)
        if layout is None:
            owner = np.array(arr, order="C")  # its own storage: a contiguous copy
            layout = (0, _contiguous_strides(arr.shape))
        return (self._record(owner, dtype),) + layout

    def of_storage(self, storage):
        """The record for a storage object saved directly."""
        untyped = storage if isinstance(storage, UntypedStorage) else storage._untyped_storage
        dtype = D.uint8 if storage is untyped else storage.dtype
        owner = _owner(untyped._array)
        if _data_ptr(owner) != untyped.data_ptr() or owner.nbytes != untyped.nbytes():
            owner = untyped._array.copy()  # a slice of a larger buffer: saved on its own
        return self._record(owner, dtype, untyped=storage is untyped)


# objects PyTorch names differently from their numtorch module path
_SPECIAL_NAMES = {id(Tensor): ("torch", "Tensor"), id(Size): ("torch", "Size"),
                  id(device): ("torch", "device"),
                  id(_utils._rebuild_from_type_v2): ("torch._tensor", "_rebuild_from_type_v2")}


def _torch_global(obj, name):
    """PyTorch's (module, name) for a numtorch class or function; None for other objects."""
    special = _SPECIAL_NAMES.get(id(obj))
    if special is not None:
        return special
    module = getattr(obj, "__module__", None)
    if isinstance(module, str) and (module == "numtorch" or module.startswith("numtorch.")):
        return module[3:], name or obj.__qualname__
    return None


def _reduce_tensor(tensor, storages):
    """The (callable, args) PyTorch's ``Tensor.__reduce_ex__`` gives for ``tensor``."""
    from .nn.parameter import Parameter, _Uninitialized
    if isinstance(tensor, _Uninitialized):
        return tensor.__reduce_ex__(2)  # a lazy module's entry: its class, no data
    hooks = OrderedDict()  # PyTorch never saves hooks, only an empty dict in their place
    state = tensor.__dict__
    if isinstance(tensor, Parameter):
        data = Tensor._make(tensor._data, None, False)
        if not state:
            return _utils._rebuild_parameter, (data, tensor.requires_grad, hooks)
        return (_utils._rebuild_parameter_with_state,
                (data, tensor.requires_grad, hooks, dict(state)))
    from .utils.hooks import warn_if_has_hooks
    warn_if_has_hooks(tensor)   # (a Parameter's, saved through its data, are not checked)
    record, offset, stride = storages.view_of(tensor)
    args = (record, offset, tuple(int(n) for n in tensor._data.shape), stride,
            tensor.requires_grad, hooks)
    if type(tensor) is Tensor and not state:
        return _utils._rebuild_tensor_v2, args
    return (_utils._rebuild_from_type_v2,
            (_utils._rebuild_tensor_v2, type(tensor), args, dict(state)))


def _c_pickler_error(obj, name):
    """The error the C Pickler (PyTorch's) gives for a global it cannot name (the pure Python
    one numtorch uses words it differently, and a local object is an AttributeError there);
    None where the lookup succeeds."""
    name = name or getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if not isinstance(name, str):
        return None
    path = name.split(".")
    if "<locals>" in path:
        return AttributeError(f"Can't pickle local object {name!r}")
    module_name = pickle.whichmodule(obj, name)
    try:
        __import__(module_name, level=0)
        found = sys.modules[module_name]
    except Exception:  # noqa: BLE001  (any failure to import reads the same there)
        return pickle.PicklingError(f"Can't pickle {obj!r}: import of module "
                                    f"{module_name!r} failed")
    for part in path:
        if not hasattr(found, part):
            return pickle.PicklingError(f"Can't pickle {obj!r}: attribute lookup {name} on "
                                        f"{module_name} failed")
        found = getattr(found, part)
    if found is not obj:
        return pickle.PicklingError(f"Can't pickle {obj!r}: it's not the same object as "
                                    f"{module_name}.{name}")
    return None


def _write_global(pickler, obj, module, name):
    if pickler.proto >= 4:
        pickler.save(module)
        pickler.save(name)
        pickler.write(pickle.STACK_GLOBAL)
    else:
        pickler.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
    pickler.memoize(obj)


@functools.lru_cache(maxsize=None)
def _pickler_class(base):
    """A Pickler writing numtorch objects under PyTorch's names, storages as persistent ids."""

    class TorchPickler(base):
        dispatch = dict(base.dispatch)
        dispatch[D.dtype] = lambda self, d: _write_global(self, d, "torch", d.name)
        dispatch[StorageType] = lambda self, s: _write_global(self, s, "torch", s.name)

        def __init__(self, file, protocol, storages, legacy):
            super().__init__(file, protocol)
            self.storages, self.legacy = storages, legacy

        def persistent_id(self, obj):
            if isinstance(obj, (UntypedStorage, TypedStorage)):
                obj = self.storages.of_storage(obj)
            if isinstance(obj, _Record):
                return obj.pid(self.legacy)
            return None

        def reducer_override(self, obj):
            if isinstance(obj, Tensor):
                return _reduce_tensor(obj, self.storages)
            if isinstance(obj, layout):
                return _get_layout, (repr(obj),)
            if isinstance(obj, device):
                return device, (obj.type,) if obj.index is None else (obj.type, obj.index)
            if type(obj) is Size:  # PyTorch's reduction (numtorch's own pickles need no torch)
                return Size, (tuple(obj),)
            return NotImplemented

        def save_global(self, obj, name=None):
            target = _torch_global(obj, name)
            if target is None:
                try:
                    return super().save_global(obj, name)
                except pickle.PicklingError as e:
                    raise _c_pickler_error(obj, name) or e from None
            return _write_global(self, obj, *target)

        # the base table holds the base class's save_global for functions; use ours
        dispatch[types.FunctionType] = save_global

    return TorchPickler


def _pickle(obj, base, protocol, storages, legacy=False):
    buf = io.BytesIO()
    _pickler_class(base)(buf, protocol, storages, legacy).dump(obj)
    return buf.getvalue()


class _ZipWriter:
    """Writes an archive byte for byte as PyTorch's (miniz) writer does, so that a saved
    file has PyTorch's exact size: records stored uncompressed under ``<archive>/``, each
    local header with zero time, CRC and sizes (flags 0x0808: a data descriptor follows the
    data, UTF-8 names) and an ``FB`` extra field padding the data to a 64-byte boundary;
    then the central directory, a ZIP64 end record and locator, and the end record.

    Offsets count from where writing starts in ``fp``. Archives past 4 GiB (ZIP64 sizes)
    are left to ``_ZipfileWriter``.
    """

    def __init__(self, fp, archive):
        self.fp, self.archive = fp, archive
        self.pos = 0
        self.entries = []  # (name, crc, size, header offset)
        self.crc = 0
        self.total = 0

    def _put(self, data):
        self.fp.write(data)
        self.pos += len(data)

    def write(self, name, data):
        full = f"{self.archive}/{name}".encode("utf-8")
        size = len(data)
        pad = -(self.pos + 30 + len(full) + 4) % STORAGE_ALIGNMENT
        crc = zlib.crc32(data) if _options["compute_crc32"] else 0
        self.entries.append((full, crc, size, self.pos))
        self._put(struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, 0x0808, 0, 0, 0, 0, 0, 0,
                              len(full), pad + 4))
        self._put(full + b"FB" + struct.pack("<H", pad) + b"Z" * pad)
        self._put(data)
        self._put(struct.pack("<IIII", 0x08074B50, crc, size, size))
        self.crc = zlib.crc32(struct.pack("<IQ", crc, size), self.crc)
        self.total += size

    def close(self):
        cd_start = self.pos
        for full, crc, size, offset in self.entries:
            self._put(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0, 0, 0x0808, 0, 0, 0,
                                  crc, size, size, len(full), 0, 0, 0, 0, 0, offset) + full)
        n, cd_size, end64 = len(self.entries), self.pos - cd_start, self.pos
        self._put(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, n, n,
                              cd_size, cd_start))
        self._put(struct.pack("<IIQI", 0x07064B50, 0, end64, 1))
        self._put(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(n, 0xFFFF),
                              min(n, 0xFFFF), min(cd_size, 0xFFFFFFFF),
                              min(cd_start, 0xFFFFFFFF), 0))

    def serialization_id(self):
        # PyTorch only requires 40 digits; these are derived from the contents
        return f"{self.crc:020d}{self.total:020d}"


class _ZipfileWriter(_ZipWriter):
    """The same records through ``zipfile`` (which writes ZIP64 fields where sizes need
    them), for archives too large for ``_ZipWriter``'s 32-bit headers. ``zipfile`` always
    computes CRCs, so ``set_crc32_options(False)`` does not apply to these."""

    def __init__(self, fp, archive):
        super().__init__(fp, archive)
        self.zf = zipfile.ZipFile(fp, "w", zipfile.ZIP_STORED)

    def write(self, name, data):
        full = f"{self.archive}/{name}"
        info = zipfile.ZipInfo(full, date_time=(1980, 1, 1, 0, 0, 0))
        size = len(data)
        zip64 = size * 1.05 > zipfile.ZIP64_LIMIT  # zipfile then appends a 20-byte field
        start = self.zf.fp.tell() + 30 + len(full.encode("utf-8")) + 4 + 20 * zip64
        pad = -start % STORAGE_ALIGNMENT
        info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
        self.zf.writestr(info, data)
        self.crc = zlib.crc32(struct.pack("<IQ", info.CRC, size), self.crc)
        self.total += size

    def close(self):
        self.zf.close()


def _archive_name(f):
    if isinstance(f, str):
        return os.path.splitext(os.path.basename(f))[0] or "archive"
    return "archive"


def _save_zip(obj, f, base, protocol, disable_byteorder):
    storages = _Storages()
    data = _pickle(obj, base, protocol, storages)
    if isinstance(f, str):
        parent = os.path.dirname(f)
        if parent and not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
    # 32-bit headers hold every size and offset below 4 GiB (with room for the headers)
    small = len(data) + sum(r.numel * r.dtype.itemsize for r in storages.records) \
        + 200 * (len(storages.records) + 8) < 0xFFFFFFFF
    with _open_file(f, "wb") as opened:
        out = (_ZipWriter if small else _ZipfileWriter)(opened, _archive_name(f))
        out.write("data.pkl", data)
        out.write(".format_version", b"1")
        out.write(".storage_alignment", str(STORAGE_ALIGNMENT).encode())
        if not disable_byteorder:
            out.write("byteorder", sys.byteorder.encode())
        for record in storages.records:
            out.write(f"data/{record.key}", _record_bytes(record))
        out.write("version", b"3\n")
        if disable_byteorder:  # PyTorch's archive writer then adds it itself, at the end
            out.write("byteorder", sys.byteorder.encode())
        out.write(".data/serialization_id", out.serialization_id().encode())
        out.close()


def _record_bytes(record):
    """A storage's record: its bytes, or as many zero bytes inside ``skip_data``."""
    if _skipping_data():
        return bytes(record.numel * record.dtype.itemsize)
    return memoryview(record.raw())


def _save_legacy(obj, f, base, protocol):
    """The pre-1.6 format: pickles of a magic number, version, system info, the object and
    the storage keys, then each storage as an int64 element count and little-endian bytes."""
    storages = _Storages(legacy=True)
    # as PyTorch, which writes these fixed sizes (long: 4) whatever the platform's
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": True,
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
        f.write(pickle.dumps(header, protocol=protocol))
    f.write(_pickle(obj, base, protocol, storages, legacy=True))
    records = sorted(storages.records, key=lambda r: r.key)
    f.write(pickle.dumps([r.key for r in records], protocol=protocol))
    for record in records:
        f.write(struct.pack("<q", record.numel))
        raw = record.raw()
        if sys.byteorder == "big" and record.dtype.itemsize > 1:
            raw = raw.view(record.dtype.np).byteswap().view(np.uint8)
        f.write(memoryview(raw))


# =========================================================================================
# loading
# =========================================================================================
def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by ``torch.save`` (PyTorch's or numtorch's).

    Args:
        f: a file name, ``os.PathLike`` or a seekable binary file-like object.
        map_location: where storages go: ``'cpu'``, a ``torch.device``, a dict from saved
            locations to new ones, or a callable ``(storage, location) -> storage or None``.
            numtorch has only the CPU, so files saved from CUDA need ``map_location='cpu'``.
        pickle_module: the unpickling module (only with ``weights_only=False``).
        weights_only: ``True`` (the default unless ``pickle_module`` is given) restricts the
            pickle to tensors, containers and PyTorch's allow-list; it never runs code from
            the file. ``False`` unpickles anything: only for files you trust.
        mmap: map the file's storages from disk instead of reading them (files only).
        pickle_load_args: passed to the unpickler (``encoding='utf-8'`` by default).

    Example:
        >>> import io, numtorch as torch
        >>> buf = io.BytesIO()
        >>> torch.save([torch.ones(2), "a"], buf)
        >>> torch.load(io.BytesIO(buf.getvalue()), map_location="cpu")
        [tensor([1., 1.]), 'a']
    """
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                               "specified")
        if pickle_load_args:
            warnings.warn("pickle_load_args only works if `weights_only=False`.",
                          stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    loader = _Loader(map_location, weights_only, pickle_module or pickle, pickle_load_args)
    try:
        return _load_file(f, loader, mmap)
    except pickle.UnpicklingError as e:
        if not weights_only:
            raise
        raise pickle.UnpicklingError(_weights_only_message(str(e))) from None


def _resolve_weights_only(weights_only, pickle_module):
    unset = weights_only is None
    if unset:
        weights_only = pickle_module is None
    true_values = ("1", "y", "yes", "true")
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were "
                           "set.")
    if force:
        return True
    if force_no and unset:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since "
                      "the`weights_only` argument was not explicitly passed to `torch.load`, "
                      "forcing weights_only=False.", stacklevel=3)
        return False
    return weights_only


def _weights_only_message(message):
    """PyTorch's explanation around a weights-only unpickling error."""
    if "was not an allowed global by default." in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have "
                "two options, \033[1mdo those steps only if you trust the source of the "
                f"checkpoint\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load "
                "with `weights_only=True` please check the recommended steps in the following "
                "error message.\n\tWeightsUnpickler error: " + message + _DOCS_MESSAGE)
    updated = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if " is blocked" not in message:
        updated += ("Please file an issue with the following so that we can make "
                    "`weights_only=True` compatible with your use case: WeightsUnpickler "
                    "error: ")
    return updated + "\n\n" + message + _DOCS_MESSAGE


def _load_file(f, loader, mmap):
    if mmap and not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    with _open_file(os.fsdecode(f) if _is_path(f) else f, "rb") as opened:
        _check_seekable(opened)
        start = opened.tell()
        is_zip = opened.read(4) == b"PK\x03\x04"
        opened.seek(start)
        if is_zip:
            with _ZipReader(opened) as reader:
                mapped = _map_file(f) if mmap else None
                return loader.load_zip(reader, mapped)
        if mmap:
            name = f"{f}, " if isinstance(f, str) else ""
            raise RuntimeError("mmap can only be used with files saved with "
                               f"`torch.save({name}_use_new_zipfile_serialization=True), "
                               "please torch.save your checkpoint with this option in order "
                               "to use mmap.")
        return loader.load_legacy(opened)


def _check_seekable(f):
    try:
        f.seek(f.tell())
    except (io.UnsupportedOperation, AttributeError) as e:
        if "seek" in str(e) or "tell" in str(e):
            raise type(e)(str(e) + ". You can only torch.load from a file that is seekable. "
                          "Please pre-load the data into a buffer like io.BytesIO and try to "
                          "load from it instead.") from None
        raise


class _ZipReader:
    """The records of a PyTorch zip archive, by name relative to its ``<archive>/`` folder."""

    def __init__(self, f):
        self.file = f
        start = f.tell()
        with self._errors("zip archive"):
            try:
                self.zf = zipfile.ZipFile(f)
            except zipfile.BadZipFile as e:
                raise _zip_open_error(f.seek(0, io.SEEK_END) - start, e) from None
        names = self.zf.namelist()
        if not names:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: no records")
        if "/" not in names[0]:
            raise RuntimeError(f"file in archive is not in a subdirectory: {names[0]}")
        prefix = names[0].split("/")[0] + "/"
        self.infos = {n[len(prefix):]: i for n, i in zip(names, self.zf.infolist())
                      if n.startswith(prefix)}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.zf.close()

    @contextlib.contextmanager
    def _errors(self, what):
        try:
            yield
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError,
                ValueError, struct.error) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading {what}: "
                               f"{type(e).__name__}: {e}") from None

    def has_record(self, name):
        return name in self.infos

    def info(self, name):
        if name not in self.infos:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not "
                               "found")
        return self.infos[name]

    def get_record(self, name):
        info = self.info(name)
        with self._errors(f"file {name}"):
            with self.zf.open(_crc_unchecked(info)) as src:
                return src.read()

    def check_size(self, name, nbytes):
        info = self.info(name)
        if info.file_size < nbytes:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: the record "
                               f"holds {info.file_size} bytes but its storage needs {nbytes}")
        return info

    def read_into(self, name, out):
        """Fill the ``uint8`` array ``out`` from the start of record ``name``."""
        info = self.check_size(name, out.size)
        view = memoryview(out)
        with self._errors(f"file {name}"), self.zf.open(_crc_unchecked(info)) as src:
            done = 0
            while done < out.size:
                n = src.readinto(view[done:])
                if not n:
                    raise EOFError("record ended early")
                done += n

    def data_offset(self, name):
        """Where record ``name``'s bytes start in the file (it must be stored, not deflated)."""
        info = self.info(name)
        if info.compress_type != zipfile.ZIP_STORED:
            raise RuntimeError(f"cannot mmap record {name}: it is compressed")
        with self._errors(f"file {name}"):
            self.file.seek(info.header_offset)
            header = self.file.read(30)
            if header[:4] != b"PK\x03\x04":
                raise zipfile.BadZipFile("bad local file header")
            name_len, extra_len = struct.unpack("<HH", header[26:30])
        return info.header_offset + 30 + name_len + extra_len


_MINIZ_NOTE = (". This is an internal miniz error. If you are seeing this error, there is a high "
               "likelihood that your checkpoint file is corrupted. This can happen if the "
               "checkpoint was not saved properly, was transferred incorrectly, or the file was "
               "modified after saving.")


def _zip_open_error(size, error):
    """PyTorch's (miniz's) error for an archive of ``size`` bytes that does not open: too
    short to hold an end record, or no end record found (a truncated file)."""
    if size < 22:
        reason = "not a ZIP archive"
    elif str(error) == "File is not a zip file":
        reason = "failed finding central directory"
    else:
        reason = f"BadZipFile: {error}"
    return RuntimeError(f"PytorchStreamReader failed reading zip archive: {reason}"
                        + _MINIZ_NOTE)


def _crc_unchecked(info):
    """A copy of ``info`` without its CRC, so that ``zipfile`` does not check it.

    PyTorch's reader never checks record CRCs: it loads files saved with
    ``set_crc32_options(False)`` (CRC 0) and files changed in place through a
    ``MAP_SHARED`` mmap load, so numtorch must too."""
    info = copy.copy(info)
    del info.CRC
    return info


def _map_file(f):
    """The whole file mapped copy-on-write (``MAP_PRIVATE``, the default) or, after
    ``set_default_mmap_options(mmap.MAP_SHARED)``, writing changes through to the file."""
    size = os.path.getsize(f)
    mode = "r+" if MAP_SHARED is not None and _options["mmap_flags"] == MAP_SHARED else "c"
    return np.memmap(os.fsdecode(f), dtype=np.uint8, mode=mode, shape=(size,)) if size else None


def default_restore_location(storage, location):
    """Place a loaded storage at ``location``: numtorch keeps data on the CPU only."""
    location = str(location)
    kind = location.split(":")[0]
    if kind == "cpu":
        return storage
    if kind in _ACCELERATORS:
        raise RuntimeError(
            f"Attempting to deserialize object on a {kind.upper()} device but "
            f"torch.{kind}.is_available() is False. If you are running on a CPU-only machine, "
            "please use torch.load with map_location=torch.device('cpu') to map your storages "
            "to the CPU.")
    raise RuntimeError("don't know how to restore data location of "
                       f"torch.storage.UntypedStorage (tagged with {location})")


def _restore_location(map_location):
    """A function ``(storage, saved_location) -> storage`` following ``map_location``."""
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda s, loc: default_restore_location(s, map_location.get(loc, loc))
    if isinstance(map_location, (str, bytes, device)):
        target = _ascii(map_location) if not isinstance(map_location, device) else map_location
        return lambda s, loc: default_restore_location(s, target)
    if not callable(map_location):
        raise TypeError("map_location must be None, a str, a torch.device, a dict or a "
                        f"callable, got {type(map_location).__name__}")

    def restore(storage, location):
        result = map_location(storage, location)
        if result is None:
            return default_restore_location(storage, location)
        if isinstance(result, TypedStorage):
            return result._untyped_storage
        if not isinstance(result, UntypedStorage):
            raise TypeError("map_location must return a storage or None, got "
                            f"{type(result).__name__}")
        return result
    return restore


def _ascii(value):
    return value.decode("ascii") if isinstance(value, bytes) else value


def _parse_pid(pid, length):
    """Validate a storage persistent id; returns (dtype, key, location, numel, rest)."""
    if not (isinstance(pid, tuple) and len(pid) == length and _ascii(pid[0]) == "storage"):
        raise RuntimeError(f"malformed checkpoint: unexpected persistent id {pid!r:.120}")
    storage_type, key, location, numel = pid[1:5]
    if storage_type is UntypedStorage:
        dtype = D.uint8
    elif isinstance(storage_type, StorageType):
        dtype = storage_type.dtype
    else:
        raise RuntimeError(f"malformed checkpoint: {storage_type!r:.80} is not a storage type")
    if isinstance(dtype, UnsupportedDtype):
        raise dtype.error("load a storage")
    key, location = _ascii(key), _ascii(location)
    if not (isinstance(key, str) and isinstance(location, str) and type(numel) is int
            and numel >= 0):
        raise RuntimeError(f"malformed checkpoint: bad storage record {pid!r:.120}")
    return dtype, key, location, numel, pid[5:]


class _Loader:
    """One ``torch.load``: how to unpickle and where storages go."""

    def __init__(self, map_location, weights_only, pickle_module, load_args):
        self.restore = _restore_location(map_location)
        self.weights_only = weights_only
        self.pickle_module = pickle_module
        self.load_args = load_args

    def unpickler(self, file, persistent_load=None):
        if self.weights_only:
            unpickler = _WeightsUnpickler(file, encoding=self.load_args["encoding"])
        else:
            unpickler = _unpickler_class(self.pickle_module)(file, **self.load_args)
        if persistent_load is not None:
            unpickler.persistent_load = persistent_load
        return unpickler

    def finish_storage(self, untyped, dtype, location, swap):
        if swap and dtype.itemsize > 1:
            untyped._array.view(dtype.np).byteswap(inplace=True)
        return TypedStorage(self.restore(untyped, location), dtype)

    # ---- the zip format -------------------------------------------------------------------
    def load_zip(self, reader, mapped):
        if reader.has_record("constants.pkl"):
            raise RuntimeError("numtorch cannot load TorchScript archives (written by "
                               "torch.jit.save); only files written by torch.save")
        order = reader.get_record("byteorder") if reader.has_record("byteorder") else \
            _fallback_byteorder().encode()
        if order not in (b"little", b"big"):
            raise ValueError("Unknown endianness type: " + order.decode("ascii", "replace"))
        swap = order.decode() != sys.byteorder
        loaded = {}

        def persistent_load(pid):
            dtype, key, location, numel, _ = _parse_pid(pid, 5)
            if key not in loaded:
                untyped = self.read_storage(reader, mapped, f"data/{key}", dtype, numel)
                loaded[key] = self.finish_storage(untyped, dtype, location, swap)
            return loaded[key]

        data = io.BytesIO(reader.get_record("data.pkl"))
        return self.unpickler(data, persistent_load).load()

    @staticmethod
    def read_storage(reader, mapped, name, dtype, numel):
        nbytes = numel * dtype.itemsize
        if _skipping_data():  # storages are left unfilled (PyTorch: uninitialized memory)
            return UntypedStorage(np.zeros(numel, dtype.np).view(np.uint8))
        reader.check_size(name, nbytes)  # before allocating what a hostile file claims
        if mapped is None:
            untyped = empty_untyped(dtype, numel)
            reader.read_into(name, untyped._array)
            return untyped
        start = reader.data_offset(name)
        array = mapped[start:start + nbytes]
        _STORAGE_ROOTS[id(array)] = array
        return UntypedStorage(array)

    # ---- the legacy format ----------------------------------------------------------------
    def load_legacy(self, f):
        self.check_not_tar(f)
        start = f.tell()
        size = f.seek(0, io.SEEK_END) - start
        f.seek(start)
        if self.unpickler(f).load() != MAGIC_NUMBER:
            raise RuntimeError("Invalid magic number; corrupt file?")
        version = self.unpickler(f).load()
        if version != PROTOCOL_VERSION:
            raise RuntimeError(f"Invalid protocol version: {version}")
        self.unpickler(f).load()  # system info; sizes are fixed by the format today
        storages = {}
        result = self.unpickler(f, self.legacy_persistent_load(storages, size)).load()
        keys = self.unpickler(f).load()
        if not (isinstance(keys, list) and all(k in storages for k in keys)):
            raise RuntimeError("malformed checkpoint: bad list of storage keys")
        for key in keys:
            _read_legacy_storage(f, storages[key])
        return result

    def check_not_tar(self, f):
        start = f.tell()
        head = f.read(512)
        f.seek(start)
        if len(head) == 512 and head[257:262] == b"ustar":
            if self.weights_only:
                raise RuntimeError("Cannot use ``weights_only=True`` with files saved in the "
                                   "legacy .tar format. " + UNSAFE_MESSAGE)
            raise RuntimeError("numtorch cannot load the legacy .tar checkpoint format "
                               "(PyTorch < 0.4); re-save the file with a newer PyTorch")

    def legacy_persistent_load(self, storages, file_size):
        def persistent_load(pid):
            if isinstance(pid, tuple) and pid and _ascii(pid[0]) == "module":
                return pid[1]  # a whole nn.Module's class, saved with its source code
            dtype, key, location, numel, (view,) = _parse_pid(pid, 6)
            if key not in storages:
                if numel * dtype.itemsize > file_size:
                    raise RuntimeError(f"malformed checkpoint: storage {key} claims {numel} "
                                       "elements, more than the file holds")
                storages[key] = self.finish_storage(empty_untyped(dtype, numel), dtype,
                                                    location, swap=False)
            if view is None:
                return storages[key]
            return _legacy_view(storages, storages[key], view)
        return persistent_load


def _legacy_view(storages, root, view):
    """A storage viewing part of ``root`` (very old files saved such views)."""
    view_key, offset, size = view
    if view_key not in storages:
        item = root.dtype.itemsize
        if offset < 0 or size < 0 or offset + size > root._size():
            raise RuntimeError("malformed checkpoint: storage view out of bounds")
        part = root._untyped_storage._array[offset * item:(offset + size) * item]
        storages[view_key] = TypedStorage(UntypedStorage(part), root.dtype)
    return storages[view_key]


def _read_legacy_storage(f, storage):
    """Fill ``storage`` from ``f``: an int64 element count, then little-endian elements."""
    header = f.read(8)
    if len(header) < 8:
        raise RuntimeError("unexpected EOF, expected 8 more bytes. The file might be corrupted.")
    numel = struct.unpack("<q", header)[0]
    if numel != storage._size():
        raise RuntimeError(f"storage has wrong byte size: expected {storage._size()} got "
                           f"{numel}")
    out = storage._untyped_storage._array
    view = memoryview(out)[:numel * storage.dtype.itemsize]
    done = 0
    while done < len(view):
        n = f.readinto(view[done:])
        if not n:
            raise RuntimeError(f"unexpected EOF, expected {len(view) - done} more bytes. The "
                               "file might be corrupted.")
        done += n
    if sys.byteorder == "big" and storage.dtype.itemsize > 1:
        out.view(storage.dtype.np).byteswap(inplace=True)


# ---- the full (unsafe) unpickler: PyTorch's globals resolved to numtorch's ----------------
def _numtorch_global(module, name):
    """numtorch's object for PyTorch's ``module.name``; NotProvidedError if there is none."""
    full = f"{module}.{name}"
    allowed = _allowed_globals()
    if full in allowed:
        return allowed[full]
    parts = ("numtorch" + module[len("torch"):]).split(".")
    # numtorch's modules need not mirror PyTorch's exactly: try the nearest parent holding it
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in name.split("."):
            obj = getattr(obj, attr, None)
        if obj is not None:
            return obj
    raise NotProvidedError(f"numtorch has no equivalent of {full}, which this file needs")


@functools.lru_cache(maxsize=None)
def _unpickler_class(pickle_module):
    class TorchUnpickler(pickle_module.Unpickler):
        def find_class(self, module, name):
            if module == "torch.tensor":  # renamed in PyTorch 1.8
                module = "torch._tensor"
            if module == "torch" or module.startswith("torch."):
                return _numtorch_global(module, name)
            return super().find_class(module, name)
    return TorchUnpickler
