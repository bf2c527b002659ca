"""The restricted unpickler behind ``torch.load(..., weights_only=True)``.

It interprets pickle opcodes itself instead of trusting ``pickle.Unpickler``: a ``GLOBAL`` may
only name an object on PyTorch's allow-list (tensor rebuild functions, dtypes, ``torch.Size``,
``OrderedDict`` ...) or one the user allowed with ``add_safe_globals``; only those may be
called; ``BUILD`` only touches tensors, parameters, ``OrderedDict`` and allowed types; lists and
dicts are the only containers filled. Anything else raises ``pickle.UnpicklingError`` before it
can run, which is what makes loading an untrusted file safe.

>>> import io, pickle
>>> Unpickler(io.BytesIO(pickle.dumps({"a": [1, 2.5]}, protocol=2))).load()
{'a': [1, 2.5]}
>>> Unpickler(io.BytesIO(b"cos\\nsystem\\n(S'echo hi'\\ntR.")).load()
Traceback (most recent call last):
...
_pickle.UnpicklingError: Trying to load unsupported GLOBAL os.system whose module os is blocked.
"""
import _compat_pickle
import functools
import pickle
import struct
import warnings
from _codecs import encode
from collections import Counter, OrderedDict

from . import _dtype as D
from ._device import device
from ._size import Size
from ._tensor import Tensor

__all__ = ["Unpickler", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "torch_name"]

UnpicklingError = pickle.UnpicklingError

# modules no allow-list entry may come from, whatever the user allows
_BLOCKED = ("sys", "os", "posix", "nt")
_REBUILDERS = ("_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3",
               "_rebuild_parameter", "_rebuild_parameter_with_state", "_rebuild_qtensor",
               "_rebuild_sparse_tensor", "_rebuild_meta_tensor_no_storage",
               "_rebuild_nested_tensor", "_rebuild_wrapper_subclass",
               "_rebuild_device_tensor_from_numpy", "_rebuild_device_tensor_from_cpu_tensor")
_QSCHEMES = ("per_tensor_affine", "per_tensor_symmetric", "per_channel_affine",
             "per_channel_symmetric", "per_channel_affine_float_qparams")

_user_globals = set()


def torch_name(obj):
    """The dotted name PyTorch gives ``obj``: numtorch's modules are spelled ``torch``."""
    module, name = obj.__module__, obj.__qualname__
    if module == "numtorch" or module.startswith("numtorch."):
        module = module[3:]
    return f"{module}.{name}"


def add_safe_globals(safe_globals):
    """Allow ``weights_only`` loads to use these classes/functions (or ``(obj, name)`` pairs).

    >>> class Point: pass
    >>> add_safe_globals([Point]); Point in get_safe_globals()
    True
    >>> clear_safe_globals()
    """
    _user_globals.update(safe_globals)


def get_safe_globals():
    return list(_user_globals)


def clear_safe_globals():
    _user_globals.clear()


class safe_globals:
    """Context manager allowing ``safe_globals`` only inside its block."""

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _user_globals.difference_update(self.safe_globals)


def _user_allowed():
    allowed = {}
    for entry in _user_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(entry)}")
            if type(entry[1]) is not str:
                raise TypeError("Expected second item in tuple to be str of callable full "
                                f"path, but got: {type(entry[1])}")
            allowed[entry[1]] = entry[0]
        else:
            allowed[torch_name(entry)] = entry
    return allowed


@functools.lru_cache(maxsize=None)
def allowed_globals():
    """PyTorch's default allow-list, each name mapped to numtorch's object."""
    from . import _utils, serialization, storage
    from .nn.parameter import Parameter
    allowed = {"collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
               "torch.nn.parameter.Parameter": Parameter,
               "torch.serialization._get_layout": serialization._get_layout,
               "torch.Size": Size, "torch.Tensor": Tensor, "torch.device": device,
               "_codecs.encode": encode, "builtins.bytearray": bytearray,
               "builtins.set": set, "builtins.complex": complex,
               "torch.storage.UntypedStorage": storage.UntypedStorage,
               "torch.storage.TypedStorage": storage.TypedStorage,
               "torch._tensor._rebuild_from_type_v2": _utils._rebuild_from_type_v2}
    allowed.update({f"torch.{d.name}": d for d in D.ALL})
    allowed.update({f"torch.{n}": d for n, d in storage.UNSUPPORTED_DTYPES.items()})
    allowed.update({f"torch.{n}": storage.UnsupportedDtype(n) for n in _QSCHEMES})
    allowed.update({f"torch.{n}": Tensor for n in D.LEGACY_NAMES.values()})
    allowed.update({f"torch.{n}": t for n, t in storage.STORAGE_TYPES.items()})
    allowed.update({f"torch._utils.{n}": getattr(_utils, n) for n in _REBUILDERS})
    return allowed


def _unsupported_global(full_path):
    if full_path.startswith("builtins"):
        rest = full_path[len("builtins"):]
        full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
    return UnpicklingError(
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
        f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
        f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this "
        "global if you trust this class/function.")


def _py2_names(module, name):
    # files written by Python 2 spell some modules differently; PyTorch maps them the same way
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


_OPS = {}


def _op(*codes):
    def register(fn):
        for code in codes:
            _OPS[code[0]] = fn
        return fn
    return register


class Unpickler:
    """Load one pickle from ``file`` (``read``/``readline``), allowing only safe globals.

    Set ``persistent_load`` to resolve storages; without it a persistent id is an error.
    """

    def __init__(self, file, *, encoding="bytes"):
        self.encoding = encoding
        self.read_raw = file.read
        self.readline = file.readline
        self.memo = {}
        self.proto = -1

    def persistent_load(self, pid):
        raise UnpicklingError("unsupported persistent id encountered")

    def load(self):
        """Read one pickled object; ``UnpicklingError`` for anything not allowed or malformed,
        ``EOFError`` (or ``struct.error``) where the pickle ends early, as PyTorch's."""
        self.stack, self.metastack = [], []
        self._allowed = dict(allowed_globals())
        self._allowed.update(_user_allowed())
        self._allowed_ids = {id(v) for v in self._allowed.values()}
        while True:
            code = self.read(1)[0]
            handler = _OPS.get(code)
            if handler is None:
                raise UnpicklingError(f"Unsupported operand {code}")
            try:
                if handler(self):
                    return self.stack.pop()
            except (IndexError, KeyError, UnicodeDecodeError) as e:
                # a stack or memo reference the pickle never set up
                raise UnpicklingError(f"malformed pickle (opcode {bytes([code])!r}): "
                                      f"{type(e).__name__}: {e}") from None

    def read(self, n):
        data = self.read_raw(n)
        if len(data) < n:
            # NOTE: PyTorch's unpickler reads the short data on and then meets the end of
            # the pickle; EOFError either way (what torch.load raises for an empty file)
            raise EOFError
        return data

    def unpack(self, fmt):
        # a short buffer is struct.error ("unpack requires a buffer of 4 bytes"), as PyTorch's
        return struct.unpack(fmt, self.read_raw(struct.calcsize(fmt)))[0]

    def pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def is_allowed(self, obj):
        return id(obj) in self._allowed_ids

    def find_global(self, module, name):
        module, name = _py2_names(module, name)
        full_path = f"{module}.{name}"
        if module in _BLOCKED:
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module "
                                  f"{module} is blocked.")
        if full_path not in self._allowed:
            raise _unsupported_global(full_path)
        return self._allowed[full_path]

    # ---- opcodes that look up or call objects ---------------------------------------------
    @_op(pickle.GLOBAL)
    def _global(self):
        module = self.readline()[:-1].decode("utf-8")
        name = self.readline()[:-1].decode("utf-8")
        self.stack.append(self.find_global(module, name))

    @_op(pickle.STACK_GLOBAL)
    def _stack_global(self):
        name, module = self.stack.pop(), self.stack.pop()
        if type(module) is not str or type(name) is not str:
            raise UnpicklingError("STACK_GLOBAL requires str")
        self.stack.append(self.find_global(module, name))

    @_op(pickle.REDUCE)
    def _reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if not self.is_allowed(func):
            msg = f"Trying to call reduce for unrecognized function {func!r:.200}"
            if hasattr(func, "__self__"):
                msg += f" which belongs to {func.__self__!r:.200}"
            raise UnpicklingError(msg)
        if type(args) is not tuple:
            raise UnpicklingError("REDUCE arguments must be a tuple")
        self.stack[-1] = func(*args)

    @_op(pickle.NEWOBJ)
    def _newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        if type(args) is not tuple:
            raise UnpicklingError("NEWOBJ arguments must be a tuple")
        if cls is self._allowed["torch.nn.parameter.Parameter"]:
            self.stack.append(cls(*args))
        elif isinstance(cls, type) and self.is_allowed(cls):
            self.stack.append(cls.__new__(cls, *args))
        else:
            raise UnpicklingError("Can only create new object for nn.Parameter or classes "
                                  f"allowlisted via `add_safe_globals` but got {cls!r:.200}")

    @_op(pickle.BUILD)
    def _build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        kind = type(inst)
        if kind is Tensor or kind is self._allowed["torch.nn.parameter.Parameter"]:
            _set_tensor_state(inst, state)
        elif kind is OrderedDict:
            if not isinstance(state, dict):
                raise UnpicklingError("OrderedDict state must be a dict")
            inst.__dict__.update(state)
        elif self.is_allowed(kind):
            _build_allowed(inst, state)
        else:
            raise UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                                  f"allowlisted via `add_safe_globals`, but got {kind}")

    @_op(pickle.BINPERSID)
    def _binpersid(self):
        pid = self.stack.pop()
        if type(pid) is not tuple and type(pid) is not int:
            raise UnpicklingError(f"persistent_load id must be tuple or int, but got "
                                  f"{type(pid)}")
        if type(pid) is tuple and pid and _ascii(pid[0]) != "storage":
            raise UnpicklingError("Only persistent_load of storage is allowed, but got "
                                  f"{type(pid[0])}")
        self.stack.append(self.persistent_load(pid))

    # ---- containers -----------------------------------------------------------------------
    @_op(pickle.APPEND)
    def _append(self):
        item = self.stack.pop()
        _expect(self.stack[-1], (list,), "append to lists")
        self.stack[-1].append(item)

    @_op(pickle.APPENDS)
    def _appends(self):
        items = self.pop_mark()
        _expect(self.stack[-1], (list,), "extend lists")
        self.stack[-1].extend(items)

    @_op(pickle.ADDITEMS)
    def _additems(self):
        items = self.pop_mark()
        _expect(self.stack[-1], (set,), "add items to sets")
        self.stack[-1].update(items)

    @_op(pickle.SETITEM)
    def _setitem(self):
        value, key = self.stack.pop(), self.stack.pop()
        _expect(self.stack[-1], (dict, OrderedDict, Counter), "SETITEM for dict, "
                "collections.OrderedDict, collections.Counter")
        self.stack[-1][key] = value

    @_op(pickle.SETITEMS)
    def _setitems(self):
        items = self.pop_mark()
        _expect(self.stack[-1], (dict, OrderedDict, Counter), "SETITEMS for dict, "
                "collections.OrderedDict, collections.Counter")
        if len(items) % 2:
            raise UnpicklingError("SETITEMS needs key/value pairs")
        for i in range(0, len(items), 2):
            self.stack[-1][items[i]] = items[i + 1]

    @_op(pickle.MARK)
    def _mark(self):
        self.metastack.append(self.stack)
        self.stack = []

    @_op(pickle.TUPLE)
    def _tuple(self):
        items = tuple(self.pop_mark())  # before naming self.stack: pop_mark replaces it
        self.stack.append(items)

    @_op(pickle.TUPLE1)
    def _tuple1(self):
        self.pack(1)

    @_op(pickle.TUPLE2)
    def _tuple2(self):
        self.pack(2)

    @_op(pickle.TUPLE3)
    def _tuple3(self):
        self.pack(3)

    def pack(self, n):
        if len(self.stack) < n:
            raise IndexError("stack underflow")
        items = tuple(self.stack[-n:])
        del self.stack[-n:]
        self.stack.append(items)

    @_op(pickle.EMPTY_TUPLE)
    def _empty_tuple(self):
        self.stack.append(())

    @_op(pickle.EMPTY_LIST)
    def _empty_list(self):
        self.stack.append([])

    @_op(pickle.EMPTY_DICT)
    def _empty_dict(self):
        self.stack.append({})

    @_op(pickle.EMPTY_SET)
    def _empty_set(self):
        self.stack.append(set())

    # ---- scalars --------------------------------------------------------------------------
    @_op(pickle.NONE)
    def _none(self):
        self.stack.append(None)

    @_op(pickle.NEWTRUE)
    def _true(self):
        self.stack.append(True)

    @_op(pickle.NEWFALSE)
    def _false(self):
        self.stack.append(False)

    @_op(pickle.BININT)
    def _binint(self):
        self.stack.append(self.unpack("<i"))

    @_op(pickle.BININT1)
    def _binint1(self):
        self.stack.append(self.read(1)[0])

    @_op(pickle.BININT2)
    def _binint2(self):
        self.stack.append(self.unpack("<H"))

    @_op(pickle.LONG1)
    def _long1(self):
        n = self.read(1)[0]
        self.stack.append(int.from_bytes(self.read(n), "little", signed=True))

    @_op(pickle.BINFLOAT)
    def _binfloat(self):
        self.stack.append(self.unpack(">d"))

    @_op(pickle.BINUNICODE)
    def _binunicode(self):
        self.stack.append(str(self.read(self.unpack("<I")), "utf-8", "surrogatepass"))

    @_op(pickle.SHORT_BINUNICODE)
    def _short_binunicode(self):
        self.stack.append(str(self.read(self.read(1)[0]), "utf-8", "surrogatepass"))

    @_op(pickle.SHORT_BINSTRING)
    def _short_binstring(self):
        data = self.read(self.read(1)[0])
        self.stack.append(data if self.encoding == "bytes" else data.decode(self.encoding))

    @_op(pickle.BINBYTES)
    def _binbytes(self):
        self.stack.append(self.read(self.unpack("<I")))

    @_op(pickle.SHORT_BINBYTES)
    def _short_binbytes(self):
        self.stack.append(self.read(self.read(1)[0]))

    # ---- memo and framing -----------------------------------------------------------------
    @_op(pickle.BINGET)
    def _binget(self):
        self.stack.append(self.memo[self.read(1)[0]])

    @_op(pickle.LONG_BINGET)
    def _long_binget(self):
        self.stack.append(self.memo[self.unpack("<I")])

    @_op(pickle.BINPUT)
    def _binput(self):
        self.memo[self.read(1)[0]] = self.stack[-1]

    @_op(pickle.LONG_BINPUT)
    def _long_binput(self):
        self.memo[self.unpack("<I")] = self.stack[-1]

    @_op(pickle.MEMOIZE)
    def _memoize(self):
        self.memo[len(self.memo)] = self.stack[-1]

    @_op(pickle.FRAME)
    def _frame(self):
        self.read(8)  # frames only group opcodes; their size needs no checking here

    @_op(pickle.PROTO)
    def _proto(self):
        self.proto = self.read(1)[0]
        if self.proto != 2:
            warnings.warn(
                f"Detected pickle protocol {self.proto} in the checkpoint, which was not the "
                "default pickle protocol used by `torch.load` (2). The weights_only Unpickler "
                "might not support all instructions implemented by this protocol, please file "
                "an issue for adding support if you encounter this.", stacklevel=4)

    @_op(pickle.STOP)
    def _stop(self):
        return True


def _ascii(value):
    return value.decode("ascii") if isinstance(value, bytes) else value


def _expect(target, types, what):
    if type(target) not in types:
        raise UnpicklingError(f"Can only {what}, but got {type(target)}")


def _set_tensor_state(tensor, state):
    """BUILD on a tensor: PyTorch's legacy ``(storage, offset, size, stride)`` state."""
    from ._utils import _rebuild_tensor
    if isinstance(state, tuple) and len(state) == 4:
        tensor._data = _rebuild_tensor(*state)._data
    elif state is not None and not isinstance(state, dict):
        raise UnpicklingError(f"unsupported tensor state of type {type(state).__name__}")


def _build_allowed(inst, state):
    """BUILD on an instance of an allowed class, as ``pickle`` would do it."""
    if hasattr(type(inst), "__setstate__"):
        inst.__setstate__(state)
        return
    slotstate = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slotstate = state
    if state:
        if not hasattr(inst, "__dict__"):
            raise UnpicklingError(f"cannot set attributes of {type(inst).__name__}")
        inst.__dict__.update(state)
    if slotstate:
        for k, v in slotstate.items():
            setattr(inst, k, v)
