"""Smaller top-level ``torch.*`` functions: tensor predicates in function form, buffers and
DLPack, global flags, the ``sym_*`` helpers on plain numbers, ``*_copy`` variants of views,
deprecated norms, and the removed functions that PyTorch keeps only to explain their removal.

>>> import numtorch as torch
>>> torch.select_copy(torch.arange(6).reshape(2, 3), 0, 1)
tensor([3, 4, 5])
>>> torch.sym_max(2, 3.0)
3.0
"""
import builtins
import math
import warnings

import numpy as np

from .._tensor import Tensor
from ._base import BuiltinFunction
from ._util import not_a_tensor

__all__ = ["detach", "is_inference", "is_conj", "is_neg", "get_device", "frombuffer",
           "from_dlpack", "to_dlpack", "set_warn_always", "is_warn_always_enabled",
           "set_flush_denormal", "sym_not", "sym_float", "sym_int", "sym_max", "sym_min",
           "sym_sum", "sym_sqrt", "sym_ite", "solve", "lstsq", "eig", "symeig", "matrix_rank",
           "select_copy", "slice_copy", "split_copy", "detach_copy", "values_copy",
           "indices_copy", "NoDerivative", "view_as_real_copy", "view_as_complex_copy",
           "unsafe_split_with_sizes", "frobenius_norm", "nuclear_norm", "norm_except_dim"]

# Tensor methods (bound by ops._extra_methods.install, with the DLPack protocol)
METHODS = ["unsafe_split_with_sizes"]


def _tensor(value, op):
    if not isinstance(value, Tensor):
        raise not_a_tensor(op, value)
    return value


# ---- predicates and detach in function form -------------------------------------------------
def detach(input):
    """``input.detach()``."""
    return _tensor(input, "detach").detach()


def is_inference(input):
    """Whether ``input`` was made in inference mode (``Tensor.is_inference``)."""
    return _tensor(input, "is_inference").is_inference()


def is_conj(input):
    """Whether ``input`` carries a lazy conjugation (``Tensor.is_conj``)."""
    return _tensor(input, "is_conj").is_conj()


def is_neg(input):
    """Whether ``input`` carries a lazy negation (``Tensor.is_neg``)."""
    return _tensor(input, "is_neg").is_neg()


def get_device(input):
    """-1 for a CPU tensor (``Tensor.get_device``)."""
    return _tensor(input, "get_device").get_device()


# ---- buffers and DLPack ---------------------------------------------------------------------
_WARNED = {"readonly": False}


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor sharing memory with an object of the buffer protocol (``bytearray``,
    ``array.array``, ``memoryview``, ...): ``count`` elements of ``dtype`` from byte
    ``offset`` (all that fit when ``count`` is -1).

    >>> frombuffer(bytearray(b"\\x01\\x02"), dtype=torch.uint8)
    tensor([1, 2], dtype=torch.uint8)
    """
    from .._creation import _finish
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length, size = view.nbytes, dtype.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    if view.readonly and not _WARNED["readonly"]:
        _WARNED["readonly"] = True
        warnings.warn("The given buffer is not writable, and PyTorch does not support "
                      "non-writable tensors. This means you can write to the underlying "
                      "(supposedly non-writable) buffer using the tensor. You may want to copy "
                      "the buffer to protect its data or make it writable before converting it "
                      "to a tensor. This type of warning will be suppressed for the rest of "
                      "this program. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/"
                      "utils/tensor_new.cpp:1556.)", UserWarning, stacklevel=2)
    data = np.frombuffer(view.cast("B"), dtype.np, count, offset)
    # NOTE: over a read-only buffer (bytes) NumPy's array is read-only, so writing through
    # the tensor raises where PyTorch's would write into the bytes object
    return _finish(data, requires_grad)


class _Capsule:
    """A DLPack capsule given a ``__dlpack__`` so that NumPy can consume it."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def from_dlpack(ext_tensor):
    """A tensor sharing memory with ``ext_tensor``: an object with ``__dlpack__`` (a NumPy
    array, a numtorch tensor, ...) or a DLPack capsule.

    >>> import numpy as np
    >>> from_dlpack(np.arange(3))
    tensor([0, 1, 2])
    """
    from .._creation import _finish
    if type(ext_tensor).__name__ == "PyCapsule":
        ext_tensor = _Capsule(ext_tensor)
    elif not hasattr(ext_tensor, "__dlpack__"):
        raise AttributeError(f"'{type(ext_tensor).__name__}' object has no attribute "
                             "'__dlpack__'")
    return _finish(np.from_dlpack(ext_tensor))


def to_dlpack(tensor):
    """A DLPack capsule of ``tensor``'s memory (for ``from_dlpack`` elsewhere)."""
    return _tensor(tensor, "to_dlpack")._data.__dlpack__()


def _dlpack(self, *args, **kwargs):
    if self.requires_grad:
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    return self._data.__dlpack__(*args, **kwargs)


def _dlpack_device(self):
    return (1, 0)


# ---- global flags ---------------------------------------------------------------------------
_FLAGS = {"warn_always": False, "flush_denormal": False}


def set_warn_always(b):
    """Record PyTorch's "warn every time, not once" flag (read by ``is_warn_always_enabled``).
    """
    if type(b) is not bool:
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _FLAGS["warn_always"] = b


def is_warn_always_enabled():
    return _FLAGS["warn_always"]


def set_flush_denormal(mode):
    """PyTorch's switch for flushing denormal floats to zero; True, as on x86 with SSE3.

    NOTE: numtorch records the mode but computes with NumPy, which keeps denormals: only
    results that are themselves denormal differ from PyTorch's with the mode on.
    """
    if type(mode) is not bool:
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    _FLAGS["flush_denormal"] = mode
    return True


# ---- sym_* on plain Python numbers ----------------------------------------------------------
def sym_not(a):
    """``not a``."""
    return not a


def sym_float(a):
    """``float(a)``."""
    return builtins.float(a)


def sym_int(a):
    """``int(a)`` (truncation)."""
    return builtins.int(a)


_ALL_TYPES = (np.integer, np.floating, builtins.int, builtins.float)
_FLOAT_TYPES = (np.floating, builtins.float)


def _sym_extreme(a, b, pick):
    for v in (a, b):
        if not isinstance(v, _ALL_TYPES):
            raise AssertionError(f"expected {_ALL_TYPES}, got {type(v)}")
    if isinstance(a, _FLOAT_TYPES) or isinstance(b, _FLOAT_TYPES):
        return builtins.float(pick(a, b))
    return pick(a, b)


def sym_max(a, b):
    """``max(a, b)``, a float if either is.

    >>> sym_max(2, 1)
    2
    """
    return _sym_extreme(a, b, builtins.max)


def sym_min(a, b):
    """``min(a, b)``, a float if either is."""
    return _sym_extreme(a, b, builtins.min)


def sym_sum(*args):
    """``sum`` of the arguments, or of the one list or tuple given."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def sym_sqrt(a):
    """``math.sqrt(a)``."""
    return math.sqrt(a)


def sym_ite(b, t, f):
    """``t if b else f`` (``t`` and ``f`` of one type)."""
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


# ---- functions removed in PyTorch 1.9, kept to say what replaces them ------------------------
_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    raise RuntimeError(f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function "
                       "instead. The parameter 'symmetric' was renamed in "
                       "`torch.linalg.matrix_rank()` to 'hermitian'.")


def solve(input, A, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with "
        "`torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
        "replaced with:\nX = torch.linalg.solve(A, B)")


def lstsq(input, A, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
        "in the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned "
        "solution in `torch.lstsq` stored the residuals of the solution in the last m - n "
        "columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals "
        "are in the field 'residuals' of the returned named tuple.\n\nThe unpacking of the "
        "solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced "
        "with:\nX = torch.linalg.lstsq(A, B).solution")


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} The default behavior has changed from using the upper triangular portion "
        "of the matrix by default to using the lower triangular portion.\n\nL, _ = "
        "torch.symeig(A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, "
        "UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) "
        "should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


def eig(self, eigenvectors=False, *, e=None, v=None):
    raise RuntimeError(
        f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
        "rather than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
        "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
        "eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
        "torch.linalg.eig(A)")


# ---- copies of views ------------------------------------------------------------------------
def _named_copy(view, name):
    """A copy of ``view`` whose grad_fn is PyTorch's ``<name>`` (e.g. SelectBackward0_copy)."""
    from ..nn.functional import _relabel
    return _relabel(view.clone(), name)


def select_copy(input, dim, index, *, out=None):
    """``input.select(dim, index)`` as a new tensor."""
    return _out(_named_copy(_tensor(input, "select_copy").select(dim, index),
                            "SelectBackward0_copy"), out)


def slice_copy(input, dim=0, start=None, end=None, step=1, *, out=None):
    """``input`` sliced ``start:end:step`` along ``dim``, as a new tensor."""
    _tensor(input, "slice_copy")
    index = (slice(None),) * (dim % builtins.max(input.dim(), 1)) + (slice(start, end, step),)
    return _out(_named_copy(input[index], "SliceBackward0_copy"), out)


def split_copy(input, split_size, dim=0, *, out=None):
    """``input.split(split_size, dim)`` as new tensors."""
    pieces = _tensor(input, "split_copy").split(split_size, dim)
    return tuple(_named_copy(p, "SplitBackward0_copy") for p in pieces)


def view_as_real_copy(input, *, out=None):
    """``torch.view_as_real(input)`` as a new tensor."""
    from .complex_ops import view_as_real
    return _out(_named_copy(view_as_real(input), "ViewAsRealBackward0_copy"), out)


def view_as_complex_copy(input, *, out=None):
    """``torch.view_as_complex(input)`` as a new tensor."""
    from .complex_ops import view_as_complex
    return _out(_named_copy(view_as_complex(input), "ViewAsComplexBackward0_copy"), out)


class NoDerivative(BuiltinFunction):
    """out = a precomputed array, recorded with PyTorch's ``NotImplemented`` node: the ops
    PyTorch has no derivative for still record one (requires_grad carries over), and
    backward through it raises."""
    _backward_name = "NotImplemented"

    @staticmethod
    def forward(ctx, x, out, op):
        ctx.op = op
        return out

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError(f"derivative for aten::{ctx.op} is not implemented")


def detach_copy(input, *, out=None):
    """A copy of ``input``. As in PyTorch it keeps requires_grad, under a node whose
    backward raises."""
    x = _tensor(input, "detach_copy")
    return _out(NoDerivative.apply(x, x._data.copy(), "detach_copy"), out)


def values_copy(input, *, out=None):
    _tensor(input, "values_copy")  # numtorch's tensors are all strided (dense)
    raise RuntimeError("values expected sparse tensor layout but got Strided")


def indices_copy(input, *, out=None):
    _tensor(input, "indices_copy")
    raise RuntimeError("indices expected sparse coordinate tensor layout but got Strided")


def _out(result, out):
    if out is None:
        return result
    from .elementwise import _out as write
    return write(out, result)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``unsafe_split`` into pieces of the listed sizes."""
    from .misc import unsafe_split
    return unsafe_split(_tensor(input, "unsafe_split_with_sizes"), list(split_sizes), dim)


# ---- deprecated norms -----------------------------------------------------------------------
def _deprecated(op, instead, line):
    warnings.warn(f"at::{op} is deprecated and it is just left for JIT compatibility. It will "
                  f"be removed in a future PyTorch release. Please use `{instead}` instead "
                  f"(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                  f"LinearAlgebra.cpp:{line}.)", UserWarning, stacklevel=3)


def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """The 2-norm over ``dim`` (deprecated in PyTorch; warns as it does)."""
    _deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)", 3175)
    dim = [dim] if isinstance(dim, int) else list(dim)
    return _out(_tensor(input, "frobenius_norm").norm(2, dim, keepdim), out)


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """The nuclear norm over the last two dims, or ``dim`` (deprecated in PyTorch)."""
    _deprecated("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)", 3229)
    if isinstance(dim, bool):  # the (input, keepdim) overload
        dim, keepdim = None, dim
    from ..linalg import matrix_norm
    return _out(matrix_norm(_tensor(input, "nuclear_norm"), "nuc",
                            (-2, -1) if dim is None else tuple(dim), keepdim), out)


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim`` (the whole norm for dim -1)."""
    from .weight_norm import norm_except_dim as ned
    return ned(_tensor(v, "norm_except_dim"), pow, dim)
