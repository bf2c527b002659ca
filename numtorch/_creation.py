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
from . import _random as R
from ._device import check_device
from ._tensor import Tensor

_make = Tensor._make


def _finish(data, requires_grad=False, device=None):
    check_device(device)
    t = _make(data, None, False)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _shape(size, op="zeros"):
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size(...))``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.__index__()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"{op}(): argument 'size' (position 1) must be tuple of ints, but "
                            f"found element of type {type(s).__name__} at pos {len(out)}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
        out.append(int(s))
    return tuple(out)


def _np_dtype(dtype, default=None):
    if dtype is None:
        return (default or D.get_default_dtype()).np
    return D.to_dtype(dtype).np


# ---- from data ---------------------------------------------------------------------------
def _infer_array(data):
    """An ndarray for Python data, with PyTorch's dtype inference (floats -> default dtype)."""
    if isinstance(data, Tensor):
        return data._data, True
    if isinstance(data, np.ndarray):
        D.from_numpy_dtype(data.dtype)
        return data, True
    if isinstance(data, np.generic):
        return np.asarray(data), True
    if isinstance(data, (list, tuple)) and _has_tensors(data):
        data = _unpack_tensors(data)
    try:
        arr = np.array(data)
    except ValueError as e:
        raise ValueError(_ragged_message(data)) from None
    if arr.dtype.kind == "f":
        return arr.astype(D.get_default_dtype().np, copy=False), False
    if arr.dtype.kind == "c":
        return arr.astype(D.default_complex_dtype().np, copy=False), False
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64, copy=False), False
    if arr.dtype.kind == "b":
        return arr, False
    if arr.dtype.kind == "O" and arr.size == 0 or arr.dtype.kind == "V":
        return np.zeros(arr.shape, D.get_default_dtype().np), False
    raise TypeError(f"new(): invalid data type '{type(_first_leaf(data)).__name__}'")


def _has_tensors(data):
    for x in data:
        if isinstance(x, Tensor):
            return True
        if isinstance(x, (list, tuple)):
            return _has_tensors(x)
    return False


def _unpack_tensors(data):
    out = []
    for x in data:
        if isinstance(x, Tensor):
            if x._data.size != 1 or x._data.ndim:
                out.append(x._data.tolist())
            else:
                out.append(x._data.item())
        elif isinstance(x, (list, tuple)):
            out.append(_unpack_tensors(x))
        else:
            out.append(x)
    return out


def _first_leaf(data):
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return data


def _ragged_message(data):
    def walk(x, dim):
        if not isinstance(x, (list, tuple)) or not x:
            return None
        n = None
        for item in x:
            m = len(item) if isinstance(item, (list, tuple)) else None
            if n is None:
                n = m
            elif m != n:
                return f"expected sequence of length {n} at dim {dim} (got {m})"
        for item in x:
            r = walk(item, dim + 1)
            if r:
                return r
        return None
    return walk(data, 1) or "could not convert data to a tensor"


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
    arr, _ = _infer_array(data)
    arr = np.array(arr, dtype=_np_dtype(dtype, D._FROM_NP[arr.dtype]), copy=True)
    return _finish(arr, requires_grad, device)


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with a Tensor or ndarray when no conversion is needed."""
    if isinstance(data, Tensor):
        if dtype is None or D.to_dtype(dtype) is data.dtype:
            return data
        return data.to(dtype)
    arr, shared = _infer_array(data)
    npdt = _np_dtype(dtype, D._FROM_NP[arr.dtype])
    arr = arr.astype(npdt, copy=False) if shared else np.array(arr, dtype=npdt)
    return _finish(arr, False, device)


asarray = as_tensor


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray``.

    >>> import numpy as np
    >>> a = np.ones(2); t = from_numpy(a); a[0] = 5; t
    tensor([5., 1.], dtype=torch.float64)
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    D.from_numpy_dtype(ndarray.dtype)
    return _make(ndarray, None, False)


def legacy_new(args, kwargs):
    """Data for ``torch.Tensor(...)``: sizes make a float tensor, data is copied as float."""
    if not args:
        return np.zeros((0,), D.get_default_dtype().np)
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        data = args[0]
        if isinstance(data, Tensor):
            return data._data
        arr, _ = _infer_array(data)
        return np.array(arr, dtype=D.get_default_dtype().np)
    return np.zeros(_shape(args, "Tensor"), D.get_default_dtype().np)


# ---- filled ------------------------------------------------------------------------------
def _filled(fill, size, out, dtype, layout, device, requires_grad, pin_memory=False,
            memory_format=None, op="zeros"):
    arr = np.full(_shape(size, op), fill, _np_dtype(dtype))
    if out is not None:
        out._data = arr
        return out
    return _finish(arr, requires_grad, device)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    """A tensor of zeros of the given size."""
    return _filled(0, size, out, dtype, layout, device, requires_grad, op="zeros")


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None):
    """A tensor of ones of the given size."""
    return _filled(1, size, out, dtype, layout, device, requires_grad, op="ones")


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    """An uninitialised tensor (numtorch fills it with zeros)."""
    return _filled(0, size, out, dtype, layout, device, requires_grad, op="empty")


def _fill_dtype(fill_value, dtype):
    if dtype is not None:
        return dtype
    if isinstance(fill_value, Tensor):
        return fill_value.dtype
    return D._scalar_dtype(fill_value.item() if isinstance(fill_value, np.generic)
                           else fill_value)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it).

    >>> full((2,), 7)
    tensor([7, 7])
    """
    dt = _fill_dtype(fill_value, dtype)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _filled(fill_value, (size,) if not isinstance(size, int) else (size,), out, dt,
                   layout, device, requires_grad, op="full")


def _like(t, dtype):
    if not isinstance(t, Tensor):
        raise TypeError(f"zeros_like(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(t).__name__}")
    return t._data.shape, (t.dtype if dtype is None else D.to_dtype(dtype)).np


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    shape, npdt = _like(input, dtype)
    return _finish(np.zeros(shape, npdt), requires_grad, device)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    shape, npdt = _like(input, dtype)
    return _finish(np.ones(shape, npdt), requires_grad, device)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    shape, npdt = _like(input, dtype)
    return _finish(np.zeros(shape, npdt), requires_grad, device)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    shape, npdt = _like(input, dtype)
    return _finish(np.full(shape, fill_value, npdt), requires_grad, device)


# ---- ranges ------------------------------------------------------------------------------
def _num(x):
    return x.item() if isinstance(x, (Tensor, np.generic)) else x


def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """Values from ``start`` up to (not including) ``end`` by ``step``.

    >>> arange(3)
    tensor([0, 1, 2])
    """
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    is_float = any(isinstance(v, float) for v in (start, end, step))
    dt = D.to_dtype(dtype) if dtype is not None else (
        D.get_default_dtype() if is_float else D.int64)
    n = max(0, math.ceil((end - start) / step))
    if dt.is_floating_point or dt.is_complex:
        arr = (start + np.arange(n, dtype=np.float64) * step).astype(dt.np)
    else:
        arr = (int(start) + np.arange(n, dtype=np.int64) * int(step)).astype(dt.np) \
            if not is_float else np.floor(start + np.arange(n) * step).astype(dt.np)
    return _finish(arr, requires_grad, device)


def range_(start, end, step=1, *, dtype=None, device=None, requires_grad=False, out=None):
    """Deprecated ``torch.range``: like arange but includes ``end``; float by default."""
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
    start, end = _num(start), _num(end)
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    npdt = _np_dtype(dtype)
    return _finish(_linspace_array(start, end, int(steps), npdt), requires_grad, device)


def _linspace_array(start, end, steps, npdt):
    # NOTE: PyTorch fills the first half forwards from start and the second half backwards
    # from end, in the output's precision; this reproduces its rounding.
    if steps == 0:
        return np.zeros(0, npdt)
    if steps == 1:
        return np.full(1, start, npdt)
    work = npdt if npdt.kind in "fc" else np.dtype(np.float64)
    s, e = work.type(start), work.type(end)
    step = (e - s) / work.type(steps - 1)
    idx = np.arange(steps)
    half = steps // 2
    out = np.empty(steps, work)
    out[:half] = s + step * idx[:half].astype(work)
    out[half:] = e - step * (steps - 1 - idx[half:]).astype(work)
    return out.astype(npdt)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``base ** linspace(start, end, steps)``."""
    npdt = _np_dtype(dtype)
    exps = _linspace_array(_num(start), _num(end), int(steps), np.dtype(np.float64))
    return _finish(np.power(float(base), exps).astype(npdt), requires_grad, device)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The ``n`` x ``m`` identity matrix."""
    return _finish(np.eye(n, n if m is None else m, dtype=_np_dtype(dtype)), requires_grad,
                   device)


# ---- random ------------------------------------------------------------------------------
def _gen(generator):
    return None if generator is None else generator


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Uniform samples on [0, 1), drawn from PyTorch's random stream."""
    arr = R.uniform(_shape(size, "rand"), _np_dtype(dtype), 0.0, 1.0, _gen(generator))
    return _finish(arr, requires_grad, device)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Standard normal samples, drawn from PyTorch's random stream."""
    arr = R.normal(_shape(size, "randn"), _np_dtype(dtype), 0.0, 1.0, _gen(generator))
    return _finish(arr, requires_grad, device)


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False, pin_memory=False):
    """Integers uniform on [low, high): ``randint(high, size)`` or ``randint(low, high, size)``."""
    if size is None:
        if isinstance(high, (tuple, list)):
            low, high, size = 0, low, high
        else:
            raise TypeError("randint() missing 1 required positional arguments: \"size\"")
    dt = np.dtype(np.int64) if dtype is None else D.to_dtype(dtype).np
    arr = R.randint(int(low), int(high), _shape((size,), "randint"), dt, _gen(generator))
    return _finish(arr, requires_grad, device)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of ``0 .. n-1``."""
    dt = np.dtype(np.int64) if dtype is None else D.to_dtype(dtype).np
    return _finish(R.randperm(int(n), dt, _gen(generator)), requires_grad, device)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    shape, npdt = _like(input, dtype)
    return _finish(R.uniform(shape, npdt, 0.0, 1.0, None), requires_grad, device)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    shape, npdt = _like(input, dtype)
    return _finish(R.normal(shape, npdt, 0.0, 1.0, None), requires_grad, device)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    if high is None:
        low, high = 0, low
    shape, npdt = _like(input, dtype)
    return _finish(R.randint(int(low), int(high), shape, npdt, None), requires_grad, device)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False):
    """Normal samples: from scalar mean/std with ``size``, or elementwise from tensors."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        # NOTE: a Python number stays a number: PyTorch's (tensor, number) overloads round
        # differently from (tensor, tensor)
        m = mean._data if isinstance(mean, Tensor) else float(mean)
        s = std._data if isinstance(std, Tensor) else float(std)
        npdt = (mean if isinstance(mean, Tensor) else std).dtype.np
        return _finish(R.normal_tensor(m, s, npdt, _gen(generator)))
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments")
    arr = R.normal(_shape((size,), "normal"), _np_dtype(dtype), float(mean), float(std),
                   _gen(generator))
    return _finish(arr, requires_grad, device)


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probabilities ``input`` (or the scalar ``p``)."""
    if p is not None:
        arr = R.bernoulli_scalar(input._data.shape, float(p), input.dtype.np, _gen(generator))
    else:
        arr = R.bernoulli_tensor(input._data, input.dtype.np, _gen(generator))
    return _make(arr, None, False)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices sampled from the rows of ``input`` (unnormalised probabilities)."""
    return _make(R.multinomial(input._data, int(num_samples), replacement, _gen(generator)),
                 None, False)
