"""In-place ops (``add_``, ``mul_``, ``zero_``, ``copy_``, ``x[k] = v`` ...).

An in-place op computes its out-of-place result from a snapshot of the old value, writes it
into the tensor's memory, bumps the shared version counter and moves the tensor's history onto
the new node (through its base when it is a view). So the gradients are those of the
out-of-place op, and tensors saved earlier are caught as modified at backward.

>>> import numtorch as torch
>>> x = torch.ones(2)
>>> x.add_(1); x._version
tensor([2., 2.])
1
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import STATE
from ..autograd.graph import saved_entries
from ._base import BuiltinFunction
from ._util import complex_to_real, infer_size, number_argument, tp_name
from ..autograd._interpose import STATE as _FW, Unbatchable
from ..autograd._tangents import after_in_place, copy_visible_tangents

_make = Tensor._make


def _needs_record(self, args):
    if not STATE.enabled:
        return False
    if self._rg:
        return True
    return any(isinstance(a, Tensor) and a._rg for a in args)


def _check_cast(self, res_dtype):
    """PyTorch refuses to write a result of a higher category into a lower one."""
    mine = self.dtype
    if res_dtype is mine:
        return
    if res_dtype.category > mine.category:
        raise RuntimeError(f"result type {_type_name(res_dtype)} can't be cast to the desired "
                           f"output type {_type_name(mine)}")


_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
          "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
          "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _type_name(d):
    return _NAMES[d.name]


def inplace(self, compute, *args, fill=False):
    """Apply ``compute`` (tensor -> out-of-place result) to ``self`` in place; return self.

    ``fill``: the op writes values that do not depend on the old ones where elements share
    memory (fill_, masked_fill_, index_put_ ...), so PyTorch allows it on an expanded tensor.
    """
    self._check_inplace()
    check_overlap(self, args)
    if not _needs_record(self, args):
        prev = STATE.enabled
        STATE.enabled = False
        try:
            res = compute(self)
        except Unbatchable:   # vmap's per-sample fallback: refused when it would write batched
            _check_unbatched_target(self, args)   # values into an unbatched tensor
            raise
        finally:
            STATE.enabled = prev
        _write(self, res, fill)
        if _FW.fw_levels:  # forward AD: the result's tangents become this tensor's
            after_in_place(self, res)
        return self
    _check_no_grad_view(self)
    snapshot = _make(self._data.copy(), self.grad_fn, self._rg)
    snapshot._output_nr = self._output_nr
    if _FW.fw_levels:
        copy_visible_tangents(self, snapshot)
    try:
        res = compute(snapshot)
    except Unbatchable:
        _check_unbatched_target(self, args)
        raise
    _write(self, res, fill)
    if _FW.fw_levels:
        after_in_place(self, res)
    if res._grad_fn is not None:
        self._rebase_history(res._grad_fn, res._output_nr, 0)
        _resave_output(res, self)
    return self


def _check_unbatched_target(self, args):
    """Inside vmap: PyTorch's error when an in-place op has a batched argument but ``self``
    is not batched (it has no per-sample loop for that)."""
    from ..func._batching import check_inplace_into_unbatched
    check_inplace_into_unbatched(self, args)


def _check_no_grad_view(self):
    """PyTorch's error for a recorded in-place change of a view made in no_grad mode from a
    tensor that does not require grad (``_base._mark_view`` marks it ``ng_plain``)."""
    if self._extra is not None and "ng_plain" in self._extra:
        from .._tensor import _InferenceVC
        if type(self._vc) is _InferenceVC:
            return  # an inference tensor: PyTorch's error for it comes at the version bump
        from ..autograd._copy_slices import no_grad_view_error
        raise no_grad_view_error(self)


def _resave_output(res, self):
    """The node saved its output ``res``; after the write that output is ``self`` (its memory,
    version counter and, for a view, its regenerated history), as it is in PyTorch."""
    node = res._grad_fn
    saved = saved_entries(node) if hasattr(node, "_saved") else None
    if type(saved) is not tuple or not saved:
        return
    entries = list(saved)
    for k, e in enumerate(entries):
        if e is not None and e[0] == 1 and e[1] is res._data:
            if self._base is None:
                entries[k] = (1, self._data, self._vc, self._vc[0], self._output_nr, True)
            else:  # NOTE: a view's entry holds the view (a reference cycle the GC frees)
                entries[k] = (0, self, self._vc[0])
    node._saved = tuple(entries)


def check_overlap(self, others):
    """PyTorch's error when an input partly overlaps the memory an in-place op writes."""
    dst = self._data
    for t in others:
        if not isinstance(t, Tensor) or t is self:
            continue
        src = t._data
        if not np.may_share_memory(dst, src):
            continue
        same = (src.__array_interface__["data"][0] == dst.__array_interface__["data"][0]
                and src.strides == dst.strides and src.shape == dst.shape)
        if not same and 0 not in src.strides and np.shares_memory(dst, src):
            raise RuntimeError("unsupported operation: some elements of the input tensor and "
                               "the written-to tensor refer to a single memory location. "
                               "Please clone() the tensor before performing the operation.")


def _write(self, res, fill=False):
    _check_cast(self, res.dtype)
    data = self._data
    if res._data.shape != data.shape:
        try:
            np.broadcast_to(res._data, data.shape)
        except ValueError:
            raise RuntimeError(
                f"output with shape [{', '.join(map(str, data.shape))}] doesn't match the "
                f"broadcast shape [{', '.join(map(str, res._data.shape))}]") from None
    if not data.flags.writeable:
        alias = writable_alias(self, fill)
        if 0 not in data.strides:
            np.copyto(alias, res._data, casting="unsafe")
        else:  # shared elements: write only the changed ones, so no stale copy wins
            new = np.broadcast_to(res._data, data.shape).astype(data.dtype, copy=False)
            changed = new != data
            alias[changed] = new[changed]
        self._vc[0] += 1
        return
    np.copyto(data, res._data, casting="unsafe")
    self._vc[0] += 1


_EXPANDED_WARNINGS = {"masked_fill_": ("tensor[mask] = scalar", 2450),
                      "index_fill_": ("tensor[mask] = scalar", 1913),
                      "index_put_": ("tensor[indices] = tensor", 976)}


def warn_expanded(self, op):
    """PyTorch's deprecation warning for ``op`` (masked_fill_, index_fill_, index_put_),
    which it still runs on a tensor whose elements share memory (an expanded one)."""
    data = self._data
    if data.flags.writeable or not any(st == 0 and n > 1
                                       for n, st in zip(data.shape, data.strides)):
        return
    import warnings
    example, line = _EXPANDED_WARNINGS[op]
    warnings.warn(f"Use of {op} on expanded tensors is deprecated. Please clone() the tensor "
                  "before performing this operation. This also applies to advanced indexing "
                  f"e.g. {example} (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
                  f"native/TensorAdvancedIndexing.cpp:{line}.)", UserWarning, stacklevel=3)


def writable_alias(self, fill=False):
    """A writable alias of ``self``'s read-only memory (that of an expansion, which NumPy
    marks read-only), or PyTorch's error. As PyTorch, a write is refused where elements share
    memory (a stride-0 dim longer than 1) unless it fills (``fill``: zero_, fill_,
    masked_fill_, index_put_ ...); a view of an expansion without shared elements (``e[0]``
    of ``x.expand(2, 3)``) is written as any view. Memory that is read-only for another
    reason (not a view of a writable base) is refused."""
    data, base = self._data, self._base
    shared = any(st == 0 and n > 1 for n, st in zip(data.shape, data.strides))
    if (shared and not fill) or base is None or not base._data.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    alias = data.view()
    alias.flags.writeable = True  # (NumPy allows it: the memory's owner is writable)
    return alias


class Zero(BuiltinFunction):
    """out = zeros like x;  dx = 0."""
    _backward_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, x):
        return np.zeros_like(x)

    @staticmethod
    def backward(ctx, g):
        return g * 0


class Fill(BuiltinFunction):
    """out = x filled with a scalar (``fill_``);  dx = 0."""
    _backward_name = "FillBackward2"

    @staticmethod
    def forward(ctx, x, value):
        return np.full_like(x, value)

    @staticmethod
    def backward(ctx, g):
        return g * 0, None


class FillTensor(BuiltinFunction):
    """out = x filled with a 0-dim tensor's value (``fill_``);  dvalue = sum(g)."""
    _backward_name = "FillBackward3"

    @staticmethod
    def forward(ctx, x, value):
        return np.full_like(x, value.reshape(()))

    @staticmethod
    def backward(ctx, g):
        return g * 0, g.sum()


class Copy(BuiltinFunction):
    """out = src broadcast into x's shape and dtype;  dx = 0, dsrc = g."""
    _backward_name = "CopyBackwards"
    _node_name = "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx, x, src):
        out = np.empty_like(x)
        src = src if type(src) is np.ndarray else np.asarray(src)
        np.copyto(out, complex_to_real(src, out.dtype), casting="unsafe")
        return out

    @staticmethod
    def backward(ctx, g):
        return (g * 0 if ctx.needs_input_grad[0] else None), (g if ctx.needs_input_grad[1]
                                                               else None)


def zero_(self):
    """Fill with zeros in place."""
    return inplace(self, Zero.apply, fill=True)


def fill_(self, value):
    """Fill with ``value`` in place."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions.")
        # (no fill=True: PyTorch refuses a tensor value on an expanded tensor)
        return inplace(self, lambda t: FillTensor.apply(t, value), value)
    if isinstance(value, (int, float, complex)):
        value = _scalar_for(value, self.dtype)  # PyTorch's checked conversion
    return inplace(self, lambda t: Fill.apply(t, value), fill=True)


def apply_(self, callable):
    """Replace each element by ``callable(element)`` in place (a Python loop, as PyTorch's)."""
    if self.requires_grad:
        raise RuntimeError("Can't call apply_() on Variable that requires grad. "
                           "Use var.detach().apply_() instead.")
    res = np.array([callable(v) for v in self._data.ravel().tolist()], dtype=object)
    return copy_(self, _make(res.reshape(self._data.shape).astype(self._data.dtype), None, False))


def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast, converted to this dtype) into this tensor in place."""
    if not isinstance(src, Tensor):
        src = _make(np.asarray(src), None, False)
    _check_broadcast_into(self._data.shape, src._data.shape)
    self._check_inplace()
    check_overlap(self, (src,))
    if not _needs_record(self, (src,)):
        dst = self._data
        if not dst.flags.writeable:
            dst = writable_alias(self)
        np.copyto(dst, complex_to_real(src._data, dst.dtype), casting="unsafe")
        self._vc[0] += 1
        if _FW.fw_levels:
            after_in_place(self, src)
        return self
    return _copy_recorded(self, src)


def _check_broadcast_into(shape, src_shape):
    """PyTorch's error when ``src_shape`` does not broadcast to ``shape`` (the destination)."""
    full = infer_size(tuple(shape), tuple(src_shape))
    if full != tuple(shape):
        raise RuntimeError(f"output with shape [{', '.join(map(str, shape))}] doesn't match "
                           f"the broadcast shape [{', '.join(map(str, full))}]")


def _copy_recorded(self, src):
    _check_no_grad_view(self)
    snapshot = _make(self._data.copy(), self.grad_fn, self._rg)
    snapshot._output_nr = self._output_nr
    if _FW.fw_levels:
        copy_visible_tangents(self, snapshot)
    res = Copy.apply(snapshot, src)
    dst = self._data
    np.copyto(dst if dst.flags.writeable else writable_alias(self), res._data,
              casting="unsafe")
    self._vc[0] += 1
    if _FW.fw_levels:
        after_in_place(self, res)
    self._rebase_history(res._grad_fn, 0, 0)
    return self


def copy_into(view, value):
    """``view.copy_(value)`` for ``x[key] = value`` (a Python scalar fills)."""
    if isinstance(value, Tensor):
        shape = value._data.shape
        while len(shape) > view.ndim and shape[0] == 1:  # PyTorch drops leading 1s here
            shape = shape[1:]
        if shape != value._data.shape:
            value = value.reshape(shape)
        if shape != view._data.shape:
            from .shape import expand
            expand(value, view._data.shape)  # raises PyTorch's error where it cannot
        return copy_(view, value)
    if not view._data.flags.writeable:
        writable_alias(view)  # PyTorch copies the number: refused where elements share memory
    return fill_(view, value)


def _binary_inplace(op_name):
    def method(self, other, *args, **kwargs):
        from . import elementwise as E
        fn = getattr(E, op_name)
        other = E.operand(other, op_name)
        return inplace(self, lambda t: fn(t, other, *args, **kwargs), other)
    method.__name__ = op_name + "_"
    method.__doc__ = f"In-place ``{op_name}``."
    return method


# in-place ops that PyTorch allows on an expanded tensor (see writable_alias)
_FILLS = frozenset({"index_fill"})


def _unary_inplace(fn_name, module="elementwise"):
    clamps = fn_name in _CLAMPS
    fill = fn_name in _FILLS

    def method(self, *args, **kwargs):
        import importlib
        fn = getattr(importlib.import_module(f"numtorch.ops.{module}"), fn_name)
        tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
        if clamps and not tensors:
            _check_clamp_scalars(self, list(args) + list(kwargs.values()))
        if fill:
            warn_expanded(self, method.__name__)
        return inplace(self, lambda t: fn(t, *args, **kwargs), *tensors, fill=fill)
    method.__name__ = fn_name + "_"
    method.__doc__ = f"In-place ``{fn_name}``."
    return method


_CLAMPS = ("clamp", "clip", "clamp_min", "clamp_max")
# the C++ type names PyTorch's clamp_ with number bounds gives the tensor's dtype in its error
_C_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool"}


def _check_clamp_scalars(self, bounds):
    """``x.clamp_(0.5, 2.5)`` on an integer tensor: PyTorch's error, in its wording."""
    from ._util import result_np
    bounds = [b for b in bounds if isinstance(b, (bool, int, float, complex))]
    if not bounds or self._data.dtype.kind not in "iub":
        return
    res = D._FROM_NP[result_np(self._data, *bounds)]
    if res.category > self.dtype.category:
        raise RuntimeError(f"result type {_type_name(res)} can't be cast to the desired "
                           f"output type {_C_TYPE_NAMES[self.dtype.name]}")


BINARY = ["add", "sub", "mul", "div", "pow", "remainder", "fmod", "atan2", "maximum",
          "minimum", "floor_divide", "true_divide", "subtract", "multiply", "divide",
          "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or",
          "logical_xor", "hypot", "copysign", "xlogy", "eq", "ne", "lt", "le", "gt", "ge"]
UNARY = ["neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
         "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
         "asinh", "acosh", "atanh", "sigmoid", "relu", "abs", "square", "floor", "ceil",
         "trunc", "frac", "sign", "round", "clamp", "clip", "clamp_min", "clamp_max",
         "logical_not", "bitwise_not", "nan_to_num", "negative", "absolute", "fix", "sgn",
         "lerp", "addcmul", "addcdiv", "logit", "deg2rad", "rad2deg"]


# ---- fill_diagonal_ ---------------------------------------------------------------------------
def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal in place: the elements whose indices are all equal (above two
    dims, all dims must have one length). With ``wrap``, the diagonal of a matrix taller than
    wide starts again ``width + 1`` rows down, as it does in row-major memory.

    The diagonal is filled through a view, so autograd records it as PyTorch does (the
    tensor's ``grad_fn`` becomes CopySlices; no gradient reaches the filled elements).

    >>> torch.zeros(5, 2).fill_diagonal_(1, wrap=True)
    tensor([[1., 0.],
            [0., 1.],
            [0., 0.],
            [1., 0.],
            [0., 1.]])
    """
    value = number_argument(fill_value, "fill_diagonal_", "fill_value", 1)
    if type(wrap) is not bool:
        raise TypeError(f"fill_diagonal_(): argument 'wrap' must be bool, not {tp_name(wrap)}")
    shape = self._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and any(n != shape[0] for n in shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    value = _scalar_for(value, self.dtype)
    _main_diagonal(self).fill_(value)
    if wrap and len(shape) == 2 and shape[0] > shape[1] + 1:
        for view in _wrapped_diagonals(self):
            view.fill_(value)
    return self


def _main_diagonal(t):
    """A view of the elements of ``t`` whose indices are all equal."""
    d = t.diagonal()
    while d.ndim > 1:  # the diagonal is the last dim; take it together with the first
        d = d.diagonal(0, 0, -1)
    return d


def _wrapped_diagonals(t):
    """Views of where a tall matrix's diagonal continues (rows ``k(w+1)`` to ``k(w+1)+w-1``
    for k >= 1): one view of every ``w+1``-th element when the matrix is contiguous (the
    memory PyTorch fills), else one view per block."""
    h, w = t._data.shape
    if t._data.flags.c_contiguous:
        return [t.view(-1)[w * (w + 1)::w + 1]]
    # NOTE: PyTorch steps through memory here too, reaching elements outside a
    # non-contiguous matrix (or failing); numtorch fills the rows as the contiguous case does
    return [t[start:].diagonal() for start in range(w + 1, h, w + 1)]


def _scalar_for(value, dtype):
    """A Python number as a NumPy scalar of ``dtype``, with PyTorch's overflow errors."""
    from .._creation import scalar_as, _C10_NAMES
    if dtype is D.bool_:
        return np.bool_(bool(value))
    if dtype.is_complex:
        part = np.finfo(dtype.np).max
        for x in (complex(value).real, complex(value).imag):
            if np.isfinite(x) and abs(x) > part:
                name = "float" if dtype is D.complex64 else "double"
                raise RuntimeError(f"value cannot be converted to type c10::complex<{name}> "
                                   "without overflow")
        return dtype.np.type(value)
    if isinstance(value, complex):
        if value.imag:  # PyTorch's checked conversion counts a lost imaginary part as overflow
            raise RuntimeError(f"value cannot be converted to type "
                               f"{_C10_NAMES.get(dtype.name, dtype.name)} without overflow")
        value = value.real
    return scalar_as(value, dtype)
