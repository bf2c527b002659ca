"""dtype/device conversions and the ``new_*`` factories as Tensor methods.

>>> import numtorch as torch
>>> torch.tensor([1.7, -2.2]).long()
tensor([ 1, -2])
"""
import warnings

import numpy as np

from .. import _dtype as D
from .._device import device as _device_cls, check_device
from .._layout import stride_sorted
from .._tensor import Tensor
from ..autograd._interpose import STATE as _IS
from .shape import to_dtype

_make = Tensor._make

_LEGACY = {"torch.FloatTensor": D.float32, "torch.DoubleTensor": D.float64,
           "torch.HalfTensor": D.float16, "torch.LongTensor": D.int64,
           "torch.IntTensor": D.int32, "torch.ShortTensor": D.int16,
           "torch.CharTensor": D.int8, "torch.ByteTensor": D.uint8,
           "torch.BoolTensor": D.bool_, "torch.ComplexFloatTensor": D.complex64,
           "torch.ComplexDoubleTensor": D.complex128}


def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False,
       memory_format=None):
    """Convert to a dtype and/or device (``cpu`` only); returns self when nothing changes."""
    flags = []  # positional non_blocking, copy (after the dtype, device or tensor)
    for a in args:
        if isinstance(a, D.dtype) or a in (float, int, bool, complex):
            dtype = a
        elif isinstance(a, bool) and len(flags) < 2:
            flags.append(a)
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, (str, _device_cls)) or a is None:
            device = a
        elif isinstance(a, int) and not isinstance(a, bool):
            device = a
        else:
            raise _to_invalid(args, dtype, device, non_blocking, copy, memory_format)
    if dtype is not None and not isinstance(dtype, D.dtype) and not (
            type(dtype) is type and dtype in (float, int, bool, complex)):
        raise _to_invalid(args, dtype, device, non_blocking, copy, memory_format)
    if len(flags) == 2:
        copy = flags[1]
    check_device(device)
    if memory_format is not None and memory_format.name != "preserve_format":
        from .shape import clone
        out = self if dtype is None else to_dtype(self, D.to_dtype(dtype), copy)
        if not copy and out.is_contiguous(memory_format=memory_format):
            return out
        return clone(out, memory_format=memory_format)
    if dtype is None:
        return self.clone() if copy else self
    return to_dtype(self, D.to_dtype(dtype), copy)


_TO_SIGNATURES = (
    "(torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)",
    "(torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)",
    "(Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)")


def _to_invalid(args, dtype, device, non_blocking, copy, memory_format):
    """PyTorch's TypeError for a ``to`` call that fits none of its overloads (the keywords
    given are those that differ from their defaults)."""
    from ._util import invalid_arguments
    given = {"dtype": dtype, "device": device, "non_blocking": non_blocking, "copy": copy,
             "memory_format": memory_format}
    kwargs = {k: v for k, v in given.items() if v is not None and v is not False and
              not any(v is a for a in args)}
    return invalid_arguments("to", args, kwargs, _TO_SIGNATURES)


def _type_arg(dtype):
    """The dtype that ``Tensor.type`` reads from ``dtype`` (a torch.dtype, a legacy tensor
    type, or ``torch.Tensor``: the default dtype), or PyTorch's error naming what it got."""
    if isinstance(dtype, D.dtype):
        return dtype
    if dtype is Tensor:
        return D.get_default_dtype()
    named = getattr(dtype, "dtype", None)
    if isinstance(named, D.dtype) and isinstance(dtype, type):
        return named
    if not isinstance(dtype, type):
        raise TypeError("dtype must be a type, str, or dtype object")
    # NOTE: PyTorch prints the type's C name: a Python class's bare name (Parameter), an
    # extension type's with its module (numpy.float32)
    name = f"{dtype.__module__}.{dtype.__qualname__}" if \
        dtype.__module__.split(".")[0] == "numpy" else dtype.__qualname__
    raise ValueError(f"invalid type: '{name}'")


def type_(self, dtype=None, non_blocking=False, *, memory_format=None, **kwargs):
    """The legacy type string (no argument) or a conversion to ``dtype``."""
    unknown = next((k for k in kwargs if k != "async"), None)  # (async: the old non_blocking)
    if unknown is not None:
        raise TypeError(f"type() got an unexpected keyword argument '{unknown}'")
    if dtype is None:
        return "torch." + D.LEGACY_NAMES[self.dtype]
    if (dtype.startswith("torch.cuda.") if isinstance(dtype, str)
            else getattr(dtype, "is_cuda", False) is True):
        from ..cuda import NO_ATEN_CUDA
        raise RuntimeError(NO_ATEN_CUDA)
    if isinstance(dtype, str):
        if dtype == "torch.Tensor":
            return to_dtype(self, D.get_default_dtype())
        if dtype not in _LEGACY:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _LEGACY[dtype]
    return to_dtype(self, _type_arg(dtype))  # a legacy type (torch.LongTensor) names one


def _converter(d):
    def convert(self, memory_format=None):
        return to_dtype(self, d)
    convert.__doc__ = f"``self.to({d!r})``."
    return convert


def cpu(self, memory_format=None):
    return self


def cuda(self, device=None, non_blocking=False, memory_format=None):
    raise AssertionError("Torch not compiled with CUDA enabled")  # PyTorch's CPU build


def _new_factory(kind):
    def new(self, *sizes, dtype=None, device=None, requires_grad=False, layout=None,
            pin_memory=False, size=None, **unknown):
        from .. import _creation as C
        if unknown:
            raise TypeError(f"new_{kind}() got an unexpected keyword argument "
                            f"'{next(iter(unknown))}'")
        op = "new_" + kind
        if not sizes and size is None:  # (PyTorch's wording, plural included)
            raise TypeError(f'{op}() missing 1 required positional arguments: "size"')
        dt = self.dtype if dtype is None else C._dtype_arg(dtype, op)
        size = C._size_kw(sizes, size, op)
        # (the size errors name ``new_zeros``, as PyTorch's parser does)
        return C._filled(1 if kind == "ones" else 0, size, None, dt, None, device,
                         requires_grad, op="new_" + kind)
    new.__name__ = "new_" + kind
    return new


def new_full(self, *args, size=None, fill_value=None, dtype=None, device=None,
             requires_grad=False, layout=None, pin_memory=False):
    """A tensor of ``size`` filled with ``fill_value``, of this tensor's dtype unless given."""
    from .. import _creation as C
    if len(args) > 2:
        raise TypeError(f"new_full() takes 2 positional arguments but {len(args)} were given")
    # NOTE: PyTorch's parser binds the positional arguments first; a missing one is
    # reported with every required one after it, given or not (its wording, plural included)
    names = ("size", "fill_value")
    bound = dict(zip(names, args))
    for name, v in (("size", size), ("fill_value", fill_value)):
        if v is not None:
            bound.setdefault(name, v)
    size = bound.get("size")
    if size is not None and not isinstance(size, (list, tuple)):  # (checked first)
        where = " (position 1)" if args else ""
        raise TypeError(f"new_full(): argument 'size'{where} must be tuple of ints, not "
                        f"{type(size).__name__}")
    first = next((i for i, n in enumerate(names) if n not in bound), None)
    if first is not None:
        missing = [f'"{n}"' for n in names[first:]]
        raise TypeError(f"new_full() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) == 1 else ''}: {', '.join(missing)}")
    if len(args) == 2 and fill_value is not None:
        raise TypeError("new_full() got multiple values for argument 'fill_value'")
    size = C._shape((size,), "new_full")  # (its errors name new_full)
    dt = self.dtype if dtype is None else C._dtype_arg(dtype, "new_full")
    return C.full(size, bound["fill_value"], dtype=dt, device=device,
                  requires_grad=requires_grad, op="new_full")


_NO_DATA = object()


def new_tensor(self, data=_NO_DATA, dtype=None, device=None, requires_grad=False):
    """A copy of ``data`` as a new tensor, of this tensor's dtype unless ``dtype`` is given
    (never in a graph; a tensor ``data`` warns, as ``torch.tensor(tensor)`` does)."""
    from .. import _creation as C
    if data is _NO_DATA:  # (PyTorch's wording, plural included)
        raise TypeError('new_tensor() missing 1 required positional arguments: "data"')
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        data = data._data
    if dtype is not None:
        dtype = C._dtype_arg(dtype, "new_tensor")
    return C.tensor(data, dtype=self.dtype if dtype is None else dtype, device=device,
                    requires_grad=requires_grad)


def new(self, *args, **kwargs):
    """Legacy ``Tensor.new(...)``: ``torch.Tensor(...)`` of this tensor's dtype."""
    from .._creation import legacy_tensor
    return legacy_tensor(Tensor, args, kwargs, self.dtype, method=True)


def _iteration_order(shape, strides):
    """The dims of a tensor, outermost first, in the order PyTorch's TensorIterator walks it
    (an insertion sort by stride from the innermost dim; ties leave dims where they are)."""
    def compare(d0, d1):  # > 0: d0 belongs inside d1
        a, b = strides[d0], strides[d1]
        if a == 0 or b == 0:
            return 0
        if a != b:
            return 1 if a > b else -1
        return 1 if shape[d0] > shape[d1] else 0
    return stride_sorted(len(shape), compare)[::-1]


def _random_inplace(self, fn):
    """Fill with ``fn(shape, contiguous)`` samples, drawn in PyTorch's (memory) order.

    NOTE: PyTorch draws a non-contiguous tensor's samples in memory order (its
    TensorIterator's), not in logical order; the samples go there in that order.
    """
    self._check_inplace()
    if _IS.vmap_levels:   # inside vmap: 'different' randomness needs a batched target
        from ..func._batching import check_random_inplace
        check_random_inplace(self)
    data = self._data
    if data.flags.c_contiguous:
        data[...] = fn(data.shape, True)
    else:
        if not data.flags.writeable:
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.")
        perm = _iteration_order(data.shape, data.strides)
        walk = data.transpose(perm)
        walk[...] = np.reshape(fn(walk.shape, False), walk.shape)
    self._vc[0] += 1
    return self


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    from .. import _random as R
    return _random_inplace(self, lambda shape, _: R.uniform(shape, self._data.dtype, float(a),
                                                            float(b), generator))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    from .. import _random as R
    dt = self._data.dtype

    def draw(shape, contiguous):
        if contiguous or dt.kind != "f" or not float(std) >= 0.0:
            return R.normal(shape, dt, float(mean), float(std), generator)
        # NOTE: PyTorch's vectorised normal path is for contiguous tensors only
        n = int(np.prod(shape))
        return R._from_double(R._normal_scalar(R._gen(generator), n, float(mean), float(std)),
                              dt).reshape(shape)
    return _random_inplace(self, draw)


def random_(self, from_=None, to=None, *, generator=None):
    from .. import _random as R
    if from_ is not None and to is None:
        from_, to = 0, from_
    return _random_inplace(self, lambda shape, _: R.random_(shape, self._data.dtype, from_,
                                                            to, generator))


def bernoulli_(self, p=0.5, *, generator=None):
    from .. import _random as R
    if isinstance(p, Tensor):
        if type(p._data) is not np.ndarray:   # batched inside vmap
            from ..func._batching import check_random_batched
            check_random_batched(p, self, "bernoulli")
        probs = np.broadcast_to(p._data, self._data.shape)
        if not self._data.flags.c_contiguous:
            probs = probs.transpose(_iteration_order(self._data.shape, self._data.strides))
        return _random_inplace(self, lambda shape, _: R.bernoulli_tensor(
            probs, self._data.dtype, generator))
    return _random_inplace(self, lambda shape, _: R.bernoulli_scalar(shape, float(p),
                                                                     self._data.dtype,
                                                                     generator))


def exponential_(self, lambd=1.0, *, generator=None):
    from .. import _random as R
    return _random_inplace(self, lambda shape, _: R.exponential(shape, self._data.dtype,
                                                                lambd, generator))


def install():
    T = Tensor
    T.to = to
    T.type = type_
    for name, d in (("float", D.float32), ("double", D.float64), ("half", D.float16),
                    ("long", D.int64), ("int", D.int32), ("short", D.int16),
                    ("char", D.int8), ("byte", D.uint8), ("bool", D.bool_),
                    ("cfloat", D.complex64), ("cdouble", D.complex128)):
        setattr(T, name, _converter(d))
    T.cpu = cpu
    T.cuda = cuda
    for kind in ("zeros", "ones", "empty"):
        setattr(T, "new_" + kind, _new_factory(kind))
    T.new_full = new_full
    T.new_tensor = new_tensor
    T.new = new
    T.type_as = lambda self, other: to_dtype(self, other.dtype)
    T.uniform_ = uniform_
    T.normal_ = normal_
    T.random_ = random_
    T.bernoulli_ = bernoulli_
    T.exponential_ = exponential_
    T.pin_memory = lambda self: self
    T.share_memory_ = lambda self: self
    T.is_shared = lambda self: False
    T.is_pinned = lambda self: False


install()
