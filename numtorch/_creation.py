"""Tensor creation: ``tensor``, ``zeros``/``ones``/``full``/``empty`` (+ ``_like``),
``arange``, ``linspace``, ``logspace``, ``eye``, ``from_numpy`` and the random factories.

>>> import numtorch as torch
>>> torch.zeros(2, 3).shape
torch.Size([2, 3])
>>> torch.tensor([1, 2]).dtype
torch.int64
"""
import math
import warnings

import numpy as np

from . import _dtype as D
from . import _ranges
from ._device import check_device
from ._size import Size
from ._tensor import Tensor

_make = Tensor._make


def _finish(data, requires_grad=False, device=None, out=None, op=None):
    """The new tensor holding ``data``, or ``out`` with ``data`` written into it."""
    check_device(device)
    if out is not None:
        return _into_out(out, data, op)
    t = _make(data, None, False)
    if requires_grad is not False and (requires_grad is True or _requires_grad_arg(requires_grad)):
        if data.dtype.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._rg = True
    return t


# The factories whose parser takes no None for requires_grad (``bool requires_grad``, not
# TensorOptions' optional one)
_STRICT_REQUIRES_GRAD = ("tensor", "new_tensor", "range")


def _requires_grad_arg(value):
    """``requires_grad=value`` (neither True nor False) of the factory the user is calling:
    False for None where PyTorch's parser takes it, else the parser's TypeError naming that
    factory (read from the frames, as ``ops._arg_errors.bad_argument`` does: an error path)."""
    op, args, kwargs = _factory_call()
    if value is None and op not in _STRICT_REQUIRES_GRAD:
        return False
    sigs = _OVERLOADS.get(op)
    if sigs is None:
        from . import _random_factories as RF
        sigs = RF.REQUIRES_GRAD_OVERLOADS.get(op)
    if sigs is not None and args is not None:
        from ._random_factories import _invalid_combination
        raise _invalid_combination(op, args, kwargs, sigs)
    from .ops._util import tp_name
    raise TypeError(f"{op}(): argument 'requires_grad' must be bool, not {tp_name(value)}")


def _factory_call():
    """``(op, args, kwargs)`` of the user's call into numtorch now running (args None when
    the call cannot be read back)."""
    from .ops import _arg_errors as A
    # (past any __torch_function__ dispatch wrapper: the factory the user called)
    entry, frame, _ = A._entry_and_caller()
    if entry is None:
        return "tensor", None, {}
    op = entry.f_code.co_name
    method = entry.f_code.co_varnames[:1] == ("self",)
    if op == "new" and "kind" in entry.f_locals:  # Tensor.new_zeros/new_ones/new_full/...
        op = "new_" + entry.f_locals["kind"]
    op = op.rstrip("_") if op == "range_" else op
    try:
        found = A._wrapper_call(entry, frame) if frame is not None else None
        if found is not None:  # a ``*args, **kwargs`` wrapper (torch.empty_strided ...)
            return found[0], found[1], found[2]
        call = A._call_of(entry, frame, method) if frame is not None else None
    except Exception:  # an unusual frame: the message lists no arguments
        call = None
    if call is None:
        return op, None, {}
    args, kwargs = call
    return op, tuple(args[1:] if method else args), kwargs


def _out_dtype(out, dtype, op=None, args=None):
    """A factory's dtype when it writes to ``out=``: ``dtype`` must agree, or out's is used.
    ``dtype`` is checked first as factory ``op``'s argument (see _dtype_arg)."""
    if op is not None and dtype is not None and not isinstance(dtype, D.dtype):
        dtype = _dtype_arg(dtype, op, args)
    if out is None:
        return dtype
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if dtype is not None and D.to_dtype(dtype) is not out.dtype:
        raise RuntimeError(f"dtype {D.SCALAR_NAMES[D.to_dtype(dtype)]} does not match dtype "
                           f"of out parameter ({D.SCALAR_NAMES[out.dtype]})")
    return out.dtype


_RANGE_OPS = ("arange", "linspace", "logspace")

# The overloads of the factories whose argument errors list them (PyTorch's parser)
_KW = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
       "bool pin_memory = False, bool requires_grad = False")
_OUT_KW = "Tensor out = None, " + _KW
_SPACED = tuple(f"{a} start, {b} end, int steps, {{}}*, {_OUT_KW}"
                for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                             ("Number", "Number")))
_OVERLOADS = {
    "arange": (f"Number end, *, {_OUT_KW}", f"Number start, Number end, *, {_KW}",
               f"Number start, Number end, Number step = 1, *, {_OUT_KW}"),
    "linspace": tuple(sig.format("") for sig in _SPACED),
    "logspace": tuple(sig.format("float base = 10.0, ") for sig in _SPACED),
    "eye": (f"int n, *, {_OUT_KW}", f"int n, int m, *, {_OUT_KW}"),
    "rand": (f"tuple of ints size, *, torch.Generator generator, {_OUT_KW}",
             f"tuple of ints size, *, {_OUT_KW}"),
}
_OVERLOADS["randn"] = _OVERLOADS["rand"]


def _dtype_arg(dtype, op, args=None):
    """``dtype`` as factory ``op``'s ``dtype=``: a torch dtype or Python's float, int, bool or
    complex, as PyTorch's parser takes; a string or a NumPy type raises its TypeError (for
    an overloaded ``op``, the one listing its overloads, ``args`` being the positional ones).

    >>> _dtype_arg(float, "zeros")
    torch.float64
    >>> _dtype_arg("float32", "zeros")
    Traceback (most recent call last):
    TypeError: zeros(): argument 'dtype' must be torch.dtype, not str
    """
    if isinstance(dtype, D.dtype):
        return dtype
    if isinstance(dtype, type) and dtype in (float, int, bool, complex):
        return D.to_dtype(dtype)
    if op in _OVERLOADS:
        from ._random_factories import _invalid_combination
        raise _invalid_combination(op, args or (), {"dtype": dtype}, _OVERLOADS[op])
    from .ops._util import tp_name
    raise TypeError(f"{op}(): argument 'dtype' must be torch.dtype, not {tp_name(dtype)}")


def _into_out(out, data, op):
    """Write a factory's result into ``out`` (resized when its shape differs), as PyTorch."""
    from .autograd.grad_mode import is_grad_enabled
    if out.requires_grad and is_grad_enabled():
        raise RuntimeError(f"aten::{op}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if op == "empty" and out._data.shape == data.shape:
        return out  # nothing to write (PyTorch leaves the version alone too)
    if op == "arange" and out._data.size not in (0, data.size):
        shape = list(out._data.shape)
        warnings.warn(f"The number of elements in the out tensor of shape {shape} is "
                      f"{out._data.size} which does not match the computed number of elements "
                      f"{data.size}. Note that this may occur as a result of rounding error. "
                      f"The out tensor will be resized to a tensor of shape ({data.size},). "
                      "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                      "RangeFactories.cpp:199.)", UserWarning, stacklevel=4)
    if out._data.shape == data.shape or (op in _RANGE_OPS and out._data.size == data.size):
        # a range whose count already fits keeps out's shape, as in PyTorch
        np.copyto(out._data, data.reshape(out._data.shape), casting="unsafe")
    else:
        out._data = np.asarray(data, dtype=out._data.dtype).copy()
    out._vc[0] += 1
    return out


def _shape(size, op="zeros"):
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size(...))``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    elif len(size) == 1 and not isinstance(size[0], (int, np.integer, Tensor)) or \
            len(size) == 1 and isinstance(size[0], bool):
        raise TypeError(f"{op}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size[0]).__name__}")
    elif len(size) > 1 and (not isinstance(size[0], (int, np.integer, Tensor)) or
                            isinstance(size[0], bool)):
        # f((2, 3), 4), f(2.0, 3), f(True, 3): PyTorch's parser reads one size argument
        # (a bool is no int there) and extra ones
        if op in _OVERLOADS:
            from ._random_factories import _invalid_combination
            raise _invalid_combination(op, size, {}, _OVERLOADS[op])
        raise TypeError(f"{op}() takes 1 positional argument but {len(size)} were given")
    out = [_size_item(s, i, op) for i, s in enumerate(size)]
    for s in out:
        if s < 0:
            if op == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {out}")
    return tuple(out)


def _size_item(s, i, op):
    """One entry of a size, with the errors of PyTorch's argument parser. NOTE: the parser
    takes a Python bool as an int after the first entry (``zeros(2, True)`` is ``(2, 1)``),
    never a NumPy bool; a tensor entry must hold one integer."""
    if isinstance(s, Tensor) and s._data.size == 1 and s._data.dtype.kind in "iu":
        return int(s._data.reshape(()))
    if isinstance(s, (int, np.integer)) and not (i == 0 and isinstance(s, bool)):
        return int(s)
    from .ops._util import tp_name
    name = tp_name(s)
    if i == 0:
        raise TypeError(f"{op}(): argument 'size' (position 1) must be tuple of ints, but "
                        f"found element of type {name} at pos 0")
    raise TypeError(f"{op}(): argument 'size' failed to unpack the object at pos {i + 1} with "
                    f"error \"type must be tuple of ints,but got {name}\"")


def _np_dtype(dtype, default=None):
    if dtype is None:
        return (default or D.get_default_dtype()).np
    return D.to_dtype(dtype).np


# ---- from data ---------------------------------------------------------------------------
def _infer_array(data, dtype=None):
    """An ndarray for Python data, with PyTorch's dtype inference (or in ``dtype``); also
    whether it may share memory with ``data`` (a Tensor or ndarray)."""
    if isinstance(data, Tensor):
        return data._data, True
    if isinstance(data, np.ndarray):
        _numpy_source(data)
        return data, True
    if isinstance(data, np.generic):
        D.from_numpy_dtype(data.dtype)
        return np.asarray(data), True
    dt = _infer_dtype(data, top=True) if dtype is None else D.to_dtype(dtype)
    sizes = _sizes(data)
    _check_nested(data, sizes, 0, dt)
    values = _leaf_values(data)
    if dt.category == D._INT:  # negative ints wrap into unsigned types, as in PyTorch
        try:
            return np.array(values, dtype=np.int64).astype(dt.np), False
        except OverflowError:
            raise ValueError("Overflow when unpacking long long") from None
    return np.array(values, dtype=dt.np), False


_SEQUENCES = (list, tuple, range, np.ndarray)
_PY_SCALARS = {bool, int, float, complex}
_PY_RANK = {bool: 0, int: 1, float: 2, complex: 3}
_PY_DTYPES = (lambda: D.bool_, lambda: D.int64, D.get_default_dtype, D.default_complex_dtype)


def _infer_dtype(obj, top=False, first=True):
    """PyTorch's ``infer_scalar_type``: each leaf's dtype, promoted over the whole nest.

    ``first``: ``obj`` lies on the chain of first elements, which PyTorch reads for the shape
    before any dtype (a string there has "too many dimensions")."""
    if isinstance(obj, np.ndarray) or isinstance(obj, np.generic):
        return D.from_numpy_dtype(obj.dtype)
    if isinstance(obj, bool):
        return D.bool_
    if isinstance(obj, int):
        return D.int64
    if isinstance(obj, float):
        return D.get_default_dtype()
    if isinstance(obj, complex):
        return D.default_complex_dtype()
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, (str, bytes)):
        if first and not top and isinstance(obj, str):
            raise ValueError("too many dimensions 'str'")
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    if isinstance(obj, (list, tuple)) and obj:
        types = set(map(type, obj))
        if types <= _PY_SCALARS:  # the common case: a row of Python numbers, at C speed
            return _PY_DTYPES[max(_PY_RANK[t] for t in types)]()
    if isinstance(obj, _SEQUENCES):
        result = None
        for i, item in enumerate(obj):
            d = _infer_dtype(item, first=first and i == 0)
            result = d if result is None else D.promote_types(result, d)
        return result if result is not None else D.get_default_dtype()
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


def _sizes(obj):
    """The shape, read along the first element of each level (tensors are scalars here)."""
    sizes = []
    while isinstance(obj, _SEQUENCES) and not (isinstance(obj, np.ndarray) and obj.ndim == 0):
        sizes.append(len(obj))
        if not len(obj):
            break
        obj = obj[0]
    if isinstance(obj, str):  # (seen here only with a dtype given: nothing inferred it)
        if sizes:  # a str is a sequence to PyTorch's shape walk
            raise ValueError("too many dimensions 'str'")
        raise TypeError("new(): invalid data type 'str'")
    return sizes


def _check_nested(obj, sizes, dim, dt):
    """Raise PyTorch's error where the nest is ragged or a leaf is not a scalar."""
    if dim == len(sizes):
        _check_leaf(obj, dt)
        return
    if not isinstance(obj, _SEQUENCES):
        raise TypeError("not a sequence")
    if len(obj) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                         f"(got {len(obj)})")
    if dim == len(sizes) - 1 and isinstance(obj, (list, tuple)) and _plain_row(obj, dt):
        return
    if isinstance(obj, np.ndarray) and obj.dtype != object:
        if obj.ndim != len(sizes) - dim:
            raise ValueError(f"expected sequence of length {sizes[-1]} at dim {len(sizes) - 1}"
                             f" (got {obj.shape[-1] if obj.ndim else 0})")
        return
    for item in obj:
        _check_nested(item, sizes, dim + 1, dt)


def _plain_row(row, dt):
    """Whether a row of leaves needs no per-element check for ``dt`` (PyTorch's range errors
    only concern integral dtypes; an int64 overflow is caught when the array is built)."""
    types = set(map(type, row))
    if dt.category == D._INT:
        return types <= {bool, int} and dt is D.int64
    return types <= ({bool, int, float, complex} if dt.is_complex else {bool, int, float})


def _check_leaf(obj, dt):
    if isinstance(obj, Tensor):
        if obj._data.size != 1:
            if dt.category in (D._INT, D._BOOL):
                raise TypeError("only integer tensors of a single element can be converted to "
                                "an index")
            raise ValueError("only one element tensors can be converted to Python scalars")
        obj = obj._data.reshape(()).item()
    if isinstance(obj, (int, float, complex)) and not isinstance(obj, bool):
        _check_scalar(obj, dt)
    elif isinstance(obj, _SEQUENCES) or not isinstance(obj, (bool, np.number, np.bool_)) or \
            dt.category in (D._INT, D._BOOL) and isinstance(obj, np.inexact) and \
            not isinstance(obj, float):  # (an np.float32 has no __index__; np.float64 is a float)
        # a nested sequence, or (with a dtype given: nothing inferred it) None, a str ...
        from .ops._util import tp_name
        name = tp_name(obj)
        if dt.category in (D._INT, D._BOOL):
            raise TypeError(f"'{name}' object cannot be interpreted as an integer")
        raise TypeError(f"must be real number, not {name}")


def _check_scalar(value, dt):
    """PyTorch's errors for a Python number that ``dt`` cannot hold."""
    if isinstance(value, complex):
        if not dt.is_complex:
            raise TypeError("must be real number, not complex")
        return
    if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 63 and not (
            dt.is_floating_point or dt.is_complex):
        raise ValueError("Overflow when unpacking long long")
    if dt.category != D._INT:
        return
    info = np.iinfo(dt.np)
    if isinstance(value, float):
        ok = info.min <= value <= info.max  # False for nan and inf
    else:
        ok = (-int(info.max) if info.min == 0 else info.min) <= value <= info.max
    if not ok:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")


def _leaf_values(obj):
    """``obj`` with tensors replaced by their Python values (NumPy builds the array)."""
    if isinstance(obj, Tensor):
        return obj._data.reshape(()).item()
    if isinstance(obj, (list, tuple)) and any(isinstance(x, (Tensor, list, tuple))
                                              for x in obj):
        return [_leaf_values(x) for x in obj]
    return obj


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (nested lists, scalars, arrays or tensors).

    >>> tensor([[1., 2.], [3., 4.]])
    tensor([[1., 2.],
            [3., 4.]])
    """
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
    if dtype is not None and not isinstance(dtype, D.dtype):
        dtype = _dtype_arg(dtype, "tensor")
    arr, shared = _infer_array(data, dtype)
    if shared or dtype is not None:
        arr = np.array(arr, dtype=_np_dtype(dtype, D._FROM_NP[arr.dtype]), copy=True)
    return _finish(arr, requires_grad, device)


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with a Tensor or ndarray when no conversion is needed."""
    if dtype is not None and not isinstance(dtype, D.dtype):
        dtype = _dtype_arg(dtype, "as_tensor")
    if isinstance(data, Tensor):
        if dtype is None or D.to_dtype(dtype) is data.dtype:
            return data
        return data.to(dtype)
    if isinstance(data, np.ndarray):
        _numpy_source(data, warn_readonly=True)
    arr, shared = _infer_array(data)
    npdt = _np_dtype(dtype, D._FROM_NP[arr.dtype])
    arr = arr.astype(npdt, copy=False) if shared else np.array(arr, dtype=npdt)
    return _finish(arr, False, device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """``obj`` as a tensor, sharing its memory when it can (``copy=None``), always copying
    (``copy=True``) or never copying (``copy=False``: ValueError when it would have to).

    With ``requires_grad`` unset a tensor input's requires_grad carries over (a copy stays
    in its graph); True or False sets it on the result.

    >>> import numpy as np
    >>> a = np.zeros(2); t = asarray(a); a[0] = 1; t
    tensor([1., 0.], dtype=torch.float64)
    >>> asarray([1.5, 2], dtype=D.int64)
    tensor([1, 2])
    """
    if requires_grad is not None and type(requires_grad) is not bool:
        _requires_grad_arg(requires_grad)
    check_device(device)
    dt = None if dtype is None else D.to_dtype(dtype)
    if isinstance(obj, (Tensor, np.ndarray)):
        src = obj.dtype if isinstance(obj, Tensor) else _numpy_source(obj, True)
        if copy is False and dt not in (None, src):
            raise ValueError(f"can't alias tensor with dtype '{D.SCALAR_NAMES[src]}' into "
                             f"dtype '{D.SCALAR_NAMES[dt]}'.")
        if isinstance(obj, Tensor):
            return _asarray_tensor(obj, dt or src, bool(copy) or dt not in (None, src),
                                   requires_grad)
        arr = obj if not copy and dt in (None, src) else np.array(obj, dtype=(dt or src).np)
        return _finish(arr, bool(requires_grad), device)
    if copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    return tensor(obj, dtype=dt, requires_grad=bool(requires_grad))


_WARNED_ONCE = {}


def _asarray_tensor(obj, dt, copy, requires_grad):
    """asarray of a Tensor: itself (requires_grad, when given, set on it in place) or a
    converted copy (in obj's graph unless requires_grad is given)."""
    if requires_grad is None:
        if obj.requires_grad and not _WARNED_ONCE.get("asarray"):
            _WARNED_ONCE["asarray"] = True  # PyTorch warns once per process
            warnings.warn("torch.asarray: unspecified requires_grad now defaults to "
                          "obj.requires_grad instead of False. Pass requires_grad=False "
                          "explicitly to get the old behavior and silence this warning. "
                          "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/"
                          "tensor_new.cpp:1737.)", UserWarning, stacklevel=3)
        if not copy:
            return obj
        return obj.clone() if dt is obj.dtype else obj.to(dt, copy=True)
    if not copy:
        return obj.requires_grad_(bool(requires_grad))  # in place, as PyTorch does
    out = obj.detach().to(dt, copy=True)
    return out.requires_grad_(True) if requires_grad else out


def _numpy_source(arr, warn_readonly=False):
    """Check an ndarray that a tensor is made from, as PyTorch's ``tensor_from_numpy`` does
    (its order: the read-only warning where memory would be shared, strides, byte order,
    dtype)."""
    if warn_readonly and not arr.flags.writeable and not _WARNED_ONCE.get("readonly"):
        from .ops._util import warn_user
        _WARNED_ONCE["readonly"] = True  # ("suppressed for the rest of this program")
        warn_user("The given NumPy array is not writable, and PyTorch does not support "
                  "non-writable tensors. This means writing to this tensor will result in "
                  "undefined behavior. You may want to copy the array to protect its data or "
                  "make it writable before converting it to a tensor. This type of warning "
                  "will be suppressed for the rest of this program. (Triggered internally at "
                  "/__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:213.)")
    if arr.ndim and min(arr.strides) < 0:
        raise ValueError("At least one stride in the given numpy array is negative, and "
                         "tensors with negative strides are not currently supported. (You "
                         "can probably work around this by making a copy of your array  with "
                         "array.copy().) ")
    if not arr.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    return D.from_numpy_dtype(arr.dtype)


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray``.

    >>> import numpy as np
    >>> a = np.ones(2); t = from_numpy(a); a[0] = 5; t
    tensor([5., 1.], dtype=torch.float64)
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _numpy_source(ndarray, warn_readonly=True)
    return _make(ndarray, None, False)


def legacy_tensor(cls, args, kwargs, dtype=None, method=False):
    """The tensor (of class ``cls``) that ``torch.Tensor(...)`` (``dtype`` None), a typed
    ``torch.LongTensor(...)`` or ``t.new(...)`` (``method``) makes; see ``legacy_new``."""
    data = legacy_new(args, kwargs, dtype, method)
    if not isinstance(data, Tensor):
        t = object.__new__(cls)
        t._init_from(data)
        return t
    if cls is Tensor:
        return data
    t = object.__new__(cls)  # a subclass's alias: the same state on an object of cls
    for name in Tensor.__slots__:
        if name not in ("__dict__", "__weakref__") and hasattr(data, name):
            setattr(t, name, getattr(data, name))
    return t


def legacy_new(args, kwargs, dtype=None, method=False):
    """Data for ``torch.Tensor(...)`` (``dtype`` None) or a typed ``torch.LongTensor(...)``.

    Sizes (ints or a ``torch.Size``) make an uninitialised tensor (zeros here); a sequence
    is copied and converted to the dtype (the default one for ``torch.Tensor``); a tensor
    gives an alias of itself (a view, ``<AliasBackward0>`` in a graph; a typed constructor
    insists on its own dtype), the one case that returns a Tensor. The only keyword is
    ``device`` (the CPU), besides naming the one argument (``data=``, ``size=``, ``other=``);
    any other (``dtype=``, ``requires_grad=``) gets PyTorch's invalid-combination TypeError.
    """
    npdt = (dtype or D.get_default_dtype()).np
    if kwargs:  # (the rare path: bind the keywords as PyTorch's parser does)
        args, out = _legacy_keywords(args, kwargs, npdt, method)
        if out is not None:
            return out
    if not args:
        return np.zeros((0,), npdt)
    data = args[0]
    if len(args) == 1 and isinstance(data, Tensor):
        if dtype is not None and data.dtype is not dtype:
            raise TypeError(f"expected {_tensor_options(dtype)} (got "
                            f"{_tensor_options(data.dtype)})")
        return data[...]
    if len(args) == 1 and (not isinstance(data, (int, np.integer, Size))
                           or isinstance(data, bool)):
        return _legacy_sequence(data, npdt)
    if len(args) > 1 and not _legacy_first_size(data):
        # ([2], [3]), (2.0, 3), (tensor, 3): no overload takes two such arguments
        from .ops._util import invalid_arguments
        raise invalid_arguments("new", args, {}, _NEW_SIGNATURES)
    return np.zeros(_shape(args, "new"), npdt)


# How PyTorch prints the (public) overloads of the legacy constructors and Tensor.new
_NEW_SIGNATURES = ("(*, torch.device device = None)", "(torch.Storage storage)",
                   "(Tensor other)", "(tuple of ints size, *, torch.device device = None)",
                   "(object data, *, torch.device device = None)")


def _legacy_first_size(v):
    """Whether ``v`` starts a size given as several arguments (an int, or an integer tensor
    of one element; never a bool)."""
    if isinstance(v, Tensor):
        return v._data.size == 1 and v._data.dtype.kind in "iu"
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _legacy_sequence(data, npdt):
    """A copy of the sequence ``data`` (a list, tuple, range or ndarray) as ``npdt``."""
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(data, (list, tuple, range, np.ndarray)):
        from .ops._util import tp_name
        raise TypeError(f"new(): data must be a sequence (got {tp_name(data)})")
    if isinstance(data, np.ndarray):  # shared where its dtype is already the one wanted
        _numpy_source(data, warn_readonly=True)
        if data.dtype == npdt:
            return data
        arr = data
    else:  # lists convert straight to the dtype (not through float32 first)
        arr, _ = _infer_array(data, npdt)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.array(arr).astype(npdt)


def _legacy_keywords(args, kwargs, npdt, method=False):
    """``(args, data)`` for a legacy constructor called with keywords: the positional
    arguments (``other=`` moved among them) and, where a keyword names the one argument
    (``size=``, ``data=``), the data, else None. Raises PyTorch's errors: the invalid
    combination for keywords no overload takes, and the RuntimeErrors for a tensor with a
    device or a device other than the CPU."""
    from .ops._util import invalid_arguments
    from .ops._arg_errors import _bad_element
    named = [k for k in kwargs if k != "device"]
    if len(named) > 1 or named and (args or named[0] not in ("data", "size", "other")):
        raise invalid_arguments("new", args, kwargs, _NEW_SIGNATURES)
    name = named[0] if named else None
    value = kwargs[name] if named else None
    if name == "other" and not isinstance(value, Tensor) or \
            name == "size" and (type(value) not in (list, tuple, Size) or
                                _bad_element(value) is not None):
        raise invalid_arguments("new", args, kwargs, _NEW_SIGNATURES)
    if name == "other" or name is None and len(args) == 1 and isinstance(args[0], Tensor):
        if "device" in kwargs:  # (a hidden overload of PyTorch's, there only to say this)
            raise RuntimeError(
                "Legacy tensor new of the form tensor.new(tensor, device=device) is not "
                "supported.  Use torch.as_tensor(...) instead." if method else
                "Legacy tensor constructor of the form torch.Tensor(tensor, device=device) "
                "is not supported.  Use torch.tensor(...) or torch.as_tensor(...) instead.")
        return (value,) if name else args, None
    _legacy_device(kwargs.get("device"), args, kwargs)
    if name == "size":
        return args, np.zeros(_shape((value,), "new"), npdt)
    if name == "data":  # read as data whatever it is (an int or a tensor: not a sequence)
        return args, _legacy_sequence(value, npdt)
    return args, None


def _legacy_device(dev, args, kwargs):
    """Check a legacy constructor's ``device``: the CPU (or None) only."""
    from ._device import device
    if dev is None or isinstance(dev, int) and not isinstance(dev, bool):
        return check_device(dev)  # (an int: PyTorch's "no accelerator" error)
    if not isinstance(dev, (str, device)):
        from .ops._util import invalid_arguments
        raise invalid_arguments("new", args, kwargs, _NEW_SIGNATURES)
    d = dev if isinstance(dev, device) else device(dev)
    if d.type != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                           f"{d.type} was passed")


def _tensor_options(dtype):
    """How c10 prints the options of a CPU tensor of ``dtype`` (legacy constructor errors)."""
    return (f"TensorOptions(dtype={D.CPP_NAMES[dtype]}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


# ---- filled ------------------------------------------------------------------------------
def _filled(fill, size, out, dtype, layout, device, requires_grad, pin_memory=False,
            memory_format=None, op="zeros"):
    arr = np.full(_shape(size, op), fill, _np_dtype(_out_dtype(out, dtype, op)))
    return _finish(arr, requires_grad, device, out, op)


def zeros(*sizes, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, size=None):
    """A tensor of zeros of the given size."""
    return _filled(0, _size_kw(sizes, size, "zeros"), out, dtype, layout, device,
                   requires_grad, op="zeros")


def ones(*sizes, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None, size=None):
    """A tensor of ones of the given size."""
    return _filled(1, _size_kw(sizes, size, "ones"), out, dtype, layout, device,
                   requires_grad, op="ones")


def empty(*sizes, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, size=None):
    """An uninitialised tensor (numtorch fills it with zeros)."""
    return _filled(0, _size_kw(sizes, size, "empty"), out, dtype, layout, device,
                   requires_grad, op="empty")


def _size_kw(sizes, size, op):
    """The size, given positionally or as the ``size=`` keyword (not both)."""
    if size is None:
        return sizes
    if sizes:
        raise TypeError(f"{op}() got multiple values for argument 'size'")
    from .ops._arg_errors import _bad_element
    if type(size) not in (list, tuple) and not isinstance(size, tuple) or \
            _bad_element(size) == 0:
        # (a keyword takes no bare int, and PyTorch names the sequence's own type when its
        # first entry is wrong)
        from .ops._util import tp_name
        raise TypeError(f"{op}(): argument 'size' must be tuple of ints, not {tp_name(size)}")
    return (size,)


# c10's spelling of each dtype in its "cannot be converted to type X" message
_C10_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
              "int64": "int64_t", "float16": "c10::Half", "float32": "float",
              "float64": "double"}


def scalar_as(value, dtype):
    """A Python number converted to ``dtype`` as PyTorch's ``checked_convert`` does.

    Floats truncate toward zero into integer dtypes; a negative *integer* wraps into an
    unsigned dtype (two's complement) down to ``-max``; anything else out of range raises.

    >>> scalar_as(-9, D.uint8), scalar_as(2.7, D.int64)
    (np.uint8(247), np.int64(2))
    """
    dt = D.to_dtype(dtype)
    if isinstance(value, (complex, np.complexfloating)) and not dt.is_complex and \
            dt is not D.bool_:
        if value.imag:  # NOTE: PyTorch counts a lost imaginary part as an overflow
            raise RuntimeError("value cannot be converted to type "
                               f"{_C10_NAMES.get(dt.name, dt.name)} without overflow")
        value = float(value.real)
    if not isinstance(value, (bool, int, float)) or dt.is_complex or dt is D.bool_:
        return np.array(value).astype(dt.np)[()]
    if dt.category == D._INT:
        info = np.iinfo(dt.np)
        if isinstance(value, float):
            ok = info.min <= value <= info.max  # False for nan and inf
        else:
            ok = (-int(info.max) if info.min == 0 else info.min) <= value <= info.max
        if ok:
            return np.array(int(value)).astype(dt.np)[()]
    else:
        finfo = np.finfo(dt.np)
        ok = not np.isfinite(value) or -finfo.max <= value <= finfo.max
        if ok:
            return dt.np.type(value)
    name = _C10_NAMES.get(dt.name, dt.name)
    raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def _fill_dtype(fill_value, dtype):
    if dtype is not None:
        return dtype
    if isinstance(fill_value, Tensor):
        return fill_value.dtype
    return D._scalar_dtype(fill_value.item() if isinstance(fill_value, np.generic)
                           else fill_value)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False, op="full"):
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it).

    ``op``: the name errors give (``new_full`` calls it too).

    >>> full((2,), 7)
    tensor([7, 7])
    """
    if not isinstance(fill_value, (int, float, complex, np.number, np.bool_, Tensor)) or \
            isinstance(fill_value, Tensor) and fill_value._data.ndim:
        # (a Number parameter takes a 0-dim tensor, no other)
        raise TypeError(f"{op}(): argument 'fill_value' (position 2) must be Number, not "
                        f"{type(fill_value).__name__}")
    dt = _fill_dtype(fill_value, _out_dtype(out, dtype, "full"))
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    if dt is not None:
        fill_value = scalar_as(fill_value, dt)
    return _filled(fill_value, (size,), out, dt, layout, device, requires_grad, op="full")


def _like(t, dtype, op="zeros_like"):
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(t).__name__}")
    return t._data.shape, (t.dtype if dtype is None else _dtype_arg(dtype, op)).np


def _filled_like(input, fill, dtype, op):
    """A new array like ``input``'s, keeping its memory layout (PyTorch's preserve_format)."""
    _, npdt = _like(input, dtype, op)
    return np.full_like(input._data, fill, dtype=npdt, order="K")


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    return _finish(_filled_like(input, 0, dtype, "zeros_like"), requires_grad, device)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    return _finish(_filled_like(input, 1, dtype, "ones_like"), requires_grad, device)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    return _finish(_filled_like(input, 0, dtype, "empty_like"), requires_grad, device)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """A tensor shaped (and laid out) like ``input`` filled with ``fill_value``.

    >>> import numtorch as torch
    >>> torch.full_like(torch.tensor([1, 2], dtype=torch.uint8), -1)
    tensor([255, 255], dtype=torch.uint8)
    """
    if dtype is not None:
        dtype = _dtype_arg(dtype, "full_like")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if isinstance(input, Tensor):
        fill_value = scalar_as(fill_value, input.dtype if dtype is None else dtype)
    return _finish(_filled_like(input, fill_value, dtype, "full_like"), requires_grad, device)


# ---- ranges ------------------------------------------------------------------------------
def _num(x):
    return x.item() if isinstance(x, (Tensor, np.generic)) else x


def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """Values from ``start`` up to (not including) ``end`` by ``step``.

    >>> arange(3)
    tensor([0, 1, 2])
    """
    if requires_grad is not False and requires_grad is not True:
        _requires_grad_arg(requires_grad)  # (checked before the arguments are rewritten)
    given = (start,) if end is None else (start, end) if step == 1 else (start, end, step)
    dtype = _out_dtype(out, dtype, "arange", given)
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    is_float = any(isinstance(v, float) for v in (start, end, step))
    dt = D.to_dtype(dtype) if dtype is not None else (
        D.get_default_dtype() if is_float else D.int64)
    _check_not_bool(dt.np, "arange")
    if dt.is_floating_point:
        xstart, xend, xstep = float(start), float(end), float(step)
    else:  # integral outputs accumulate in int64: the bounds are truncated first
        xstart, xend, xstep = int(start), int(end), int(step)
        if xstep == 0 and step != 0 and dt is D.int64:
            raise ValueError("step must be nonzero")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(xstart) and math.isfinite(xend)):
        raise RuntimeError(f"unsupported range: {xstart:g} -> {xend:g}")
    if (xstep > 0 and xend < xstart) or (xstep < 0 and xend > xstart):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt.is_floating_point or dt is D.int64:
        n = _ranges.arange_size(xstart, xend, xstep, dt.np)
    else:
        n = _ranges.arange_size(float(start), float(end), float(step), dt.np)
    return _finish(_ranges.arange_values(xstart, xstep, n, dt.np), requires_grad, device, out,
                   "arange")


def range_(start, end, step=1, *, dtype=None, device=None, requires_grad=False, out=None):
    """Deprecated ``torch.range``: like arange but includes ``end``; float by default."""
    if requires_grad is not False and requires_grad is not True:
        _requires_grad_arg(requires_grad)  # (the parser's error comes before the warning)
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    n = int(math.floor((end - start) / step)) + 1
    arr = (start + np.arange(n, dtype=np.float64) * step).astype(_np_dtype(dtype))
    return _finish(arr, requires_grad, device)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (PyTorch's rounding).

    >>> linspace(0, 1, 3)
    tensor([0.0000, 0.5000, 1.0000])
    """
    dtype = _out_dtype(out, dtype, "linspace", (start, end, steps))
    steps = _steps(steps, "linspace", (start, end, steps))
    start, end = _num(start), _num(end)
    npdt = _np_dtype(dtype, _range_default(start, end))
    _check_not_bool(npdt, "linspace")
    return _finish(_ranges.linspace_values(start, end, steps, npdt), requires_grad, device,
                   out, "linspace")


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``base ** linspace(start, end, steps)`` (PyTorch's rounding).

    >>> logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    dtype = _out_dtype(out, dtype, "logspace", (start, end, steps))
    steps = _steps(steps, "logspace", (start, end, steps))
    start, end = _num(start), _num(end)
    npdt = _np_dtype(dtype, _range_default(start, end))
    _check_not_bool(npdt, "logspace")
    return _finish(_ranges.logspace_values(start, end, steps, base, npdt), requires_grad,
                   device, out, "logspace")


def _steps(steps, op, args):
    if isinstance(steps, Tensor):
        steps = steps.item()
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool):
        # every overload (Tensor or Number bounds) takes an int ``steps``: PyTorch lists them
        from ._random_factories import _invalid_combination
        raise _invalid_combination(op, args, {}, _OVERLOADS[op])
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return int(steps)


def _check_not_bool(npdt, op):
    """PyTorch's error for a dtype its ``op`` kernel has no version for: bool (and complex
    for arange, whose kernel has only real ones)."""
    if npdt == np.bool_ or op == "arange" and npdt.kind == "c":
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for "
                                  f"'{D.SCALAR_NAMES[D._FROM_NP[npdt]]}'")


def _range_default(start, end):
    """linspace/logspace default to the complex default dtype for complex bounds."""
    if isinstance(start, complex) or isinstance(end, complex):
        return D.default_complex_dtype()
    return D.get_default_dtype()


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The ``n`` x ``m`` identity matrix."""
    dtype = _out_dtype(out, dtype, "eye", (n,) if m is None else (n, m))
    for name, v in (("n", n), ("m", m)):
        if v is None:
            continue
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            if m is not None:  # both overloads take two arguments: PyTorch lists them
                from ._random_factories import _invalid_combination
                raise _invalid_combination("eye", (n, m), {}, _OVERLOADS["eye"])
            raise TypeError(f"eye(): argument '{name}' (position {1 if name == 'n' else 2}) "
                            f"must be int, not {type(v).__name__}")
        if v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    return _finish(np.eye(n, n if m is None else m, dtype=_np_dtype(_out_dtype(out, dtype))),
                   requires_grad, device, out, "eye")


# ---- random (defined in _random_factories, which needs the helpers above) ----------------
from ._random_factories import (rand, randn, randint, randperm, rand_like,  # noqa: E402
                                randn_like, randint_like, normal, bernoulli, multinomial,
                                poisson)
