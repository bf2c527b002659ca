"""Reductions and scans: sum, mean, prod, max/min, var/std, cumsum, logsumexp, softmax, norms.

>>> import numtorch as torch
>>> a = torch.tensor([[1., 2.], [3., 4.]])
>>> a.sum(0), a.mean()
(tensor([4., 6.]), tensor(2.5000))
"""
import math

import numpy as np

from .. import _dtype as D, _threads
from .._tensor import Tensor
from ._base import BuiltinFunction
from ..autograd._saved_attrs import keep_given, negative
from ..autograd._interpose import Unbatchable
from . import _libm, _vector_math
from ._cascade import VEC_LANES, running_sum, torch_sum, vec_sum_lastdim
from ._util import (not_a_tensor, wrap_dim, wrap_dims, as_array, cast, reshape_array,
                    sum_to_dims, no_complex, write_out, write_out_pair, half_in_float32)
from . import return_types

_ndarray = np.ndarray
_max, _sum = np.maximum.reduce, np.add.reduce  # no np.max/np.sum wrapper per call
_make = Tensor._make
_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)


def _dims_arg(dim, ndim):
    """Normalised reduction dims (all dims when ``dim`` is None or empty)."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    try:
        dims = wrap_dims(dim, ndim)
    except TypeError:
        # NOTE: PyTorch's parser reads a bool after a list's first entry as an int
        if type(dim) not in (list, tuple) or type(dim[0]) is bool or \
                bool not in [type(d) for d in dim]:  # (``any`` is this module's)
            raise
        dims = wrap_dims(tuple(int(d) if type(d) is bool else d for d in dim), ndim)
    return dims if ndim else ()  # a 0-dim tensor accepts dim 0 or -1: nothing to reduce


def expand_grad(g, shape, dims, keepdim):
    """Broadcast a reduction's gradient ``g`` back over the reduced ``dims`` of ``shape``."""
    if not keepdim and dims:
        keep = [1 if i in dims else n for i, n in enumerate(shape)]
        g = g.reshape(keep)
    return g.expand(shape)


def _expand_grad_array(d, shape, dims, keepdim):
    """``expand_grad`` on a gradient's array (an array backward's): the same reshape and
    broadcast view."""
    if not keepdim and dims:
        d = reshape_array(d, tuple(1 if i in dims else n for i, n in enumerate(shape)))
    return np.broadcast_to(d, shape)


def sum_to_shape(g, shape):
    """Sum ``g`` down to ``shape`` (the inverse of broadcasting), differentiably."""
    gshape = g._data.shape
    if gshape == tuple(shape):
        return g
    lead = len(gshape) - len(shape)
    dims = sum_to_dims(gshape, shape)
    out = g.sum(dims, keepdim=True) if dims else g
    if lead:
        out = out.reshape(shape)
    return out


def _sum_dtype(npdt, dtype):
    if dtype is not None:
        return D.to_dtype(dtype).np
    return np.dtype(np.int64) if npdt.kind in "biu" else npdt


class Sum(BuiltinFunction):
    """out = sum(x, dims);  dx = g broadcast back over dims."""
    _backward_name = "SumBackward1"

    @staticmethod
    def forward(ctx, x, dims, keepdim, dtype):
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        npdt = _sum_dtype(x.dtype, dtype)
        # float sums in PyTorch's order (ops/_cascade.py); others by np.add.reduce, what
        # np.sum calls on an ndarray, less its Python wrapper (torch_sum falls back to it)
        if npdt is _F16:  # NOTE: PyTorch accumulates half in float32, rounds the sum once
            return as_array(torch_sum(x.astype(_F32), dims, _F32, keepdim)).astype(_F16)
        return as_array(torch_sum(x, dims, npdt, keepdim))

    @staticmethod
    def backward(ctx, g):
        return expand_grad(g, ctx.shape, ctx.dims, ctx.keepdim), None, None, None

    @staticmethod
    def _np_backward(ctx, d):
        return _expand_grad_array(d, ctx.shape, ctx.dims, ctx.keepdim), None, None, None


class SumAll(Sum):
    _backward_name = "SumBackward0"


# A reduction's ``dim`` not given: PyTorch's parser tells that from an explicit None
# (``x.max(None)`` and ``x.sum(keepdim=True)`` fit none of their overloads)
_NOT_GIVEN = object()


def _check_keepdim(op, dim, keepdim):
    """Raise the parser's error unless ``keepdim`` is a bool given with a ``dim``."""
    if dim is _NOT_GIVEN or (keepdim is not True and keepdim is not False):
        from ._arg_errors import bad_argument
        raise bad_argument(TypeError(f"{op}(): argument 'keepdim' must be bool, not "
                                     f"{type(keepdim).__name__}"))


def sum(input, dim=_NOT_GIVEN, keepdim=False, *, dtype=None, out=None):
    """Sum of elements over ``dim`` (all when None); ints and bools sum to int64."""
    try:
        x = input._data
    except AttributeError:
        raise not_a_tensor("sum", input) from None
    if dtype is not None and not isinstance(dtype, D.dtype):
        _check_dtype_arg("sum", None if dim is _NOT_GIVEN else dim, dtype, x.ndim)
    if (dim is _NOT_GIVEN or dim is None) and keepdim is False:
        res = SumAll.apply(input, tuple(range(x.ndim)), False, dtype)
    else:  # (dim=None with keepdim: every dim, kept, as PyTorch's dim overload)
        _check_keepdim("sum", dim, keepdim)
        res = Sum.apply(input, _reduction_dims("sum", dim, x.ndim), keepdim, dtype)
        if negative(dim):  # (kept as given, see keep_given)
            keep_given(res, dim=(dim,) if type(dim) is int else tuple(dim))
    return _write_out(out, res)


# the overloads of Tensor.sum and Tensor.mean as PyTorch's argument parser prints them
_REDUCE_SIGNATURES = ("(*, torch.dtype dtype = None)",
                      "(tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)")


def _reduction_dims(op, dim, ndim):
    """``_dims_arg`` with PyTorch's parser error for a ``dim`` that is no int or ints."""
    try:
        return _dims_arg(dim, ndim)
    except TypeError:
        if isinstance(dim, (int, np.integer, Tensor)) and not isinstance(dim, bool):
            raise
        from ._util import invalid_arguments
        from ._arg_errors import bad_argument  # the function form words it differently
        raise bad_argument(invalid_arguments(op, (dim,), {}, _REDUCE_SIGNATURES)) from None


def _check_dtype_arg(op, dim, dtype, ndim):
    """PyTorch's errors for a ``dtype`` that is not a torch.dtype (Python's float, int,
    bool and complex name one)."""
    if type(dtype) is type and dtype in (float, int, bool, complex):
        return
    if dim is None:
        from ._util import invalid_arguments
        raise invalid_arguments(op, (), {"dtype": dtype}, _REDUCE_SIGNATURES)
    _reduction_dims(op, dim, ndim)
    raise TypeError(f"{op}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")


def _write_out(out, res):
    if out is None:
        return res
    from .elementwise import _out
    return _out(out, res, False)  # (PyTorch's reductions cast into out= as they go)


def _mean_check(x, dtype, op="mean"):
    npdt = D.to_dtype(dtype).np if dtype is not None else x.dtype
    if npdt.kind not in "fc":
        raise RuntimeError(f"{op}(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype. Got: "
                           f"{D._FROM_NP[npdt].name.capitalize().replace('Int64', 'Long')}")
    return npdt




def _mean_float(x, dims, keepdim, npdt, n):
    """The mean of float32/float64 ``x`` in its own dtype as PyTorch's CPU kernel takes it:
    the sum (in PyTorch's order), then a division by the count."""
    s = torch_sum(x, dims, npdt, keepdim)
    if type(s) is np.ndarray:
        return np.true_divide(s, np.intp(n), out=s, casting="unsafe")
    return np.asarray(npdt.type(s / np.intp(n)))


class Mean(BuiltinFunction):
    """out = mean(x, dims);  dx = g / n broadcast back over dims."""
    _backward_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, x, dims, keepdim, npdt):
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        n = 1
        for d in dims:
            n *= x.shape[d]
        ctx.n = n
        if n == 0:  # NOTE: nan, as PyTorch gives, without NumPy's empty-slice warning
            return as_array(np.sum(x, axis=dims, keepdims=keepdim, dtype=npdt) / n)
        if npdt is x.dtype and (npdt is _F32 or npdt is _F64):
            return _mean_float(x, dims, keepdim, npdt, n)
        if npdt == np.float16:  # NOTE: PyTorch sums half in float32 and rounds the mean once
            x32 = x.astype(npdt).astype(_F32)
            return as_array(_mean_float(x32, dims, keepdim, _F32, n)).astype(npdt)
        return as_array(np.mean(x, axis=dims, keepdims=keepdim, dtype=npdt)).astype(
            npdt, copy=False)

    @staticmethod
    def backward(ctx, g):
        # NOTE: expanded first, then divided (as PyTorch does): an empty input gets no nan
        return expand_grad(g, ctx.shape, ctx.dims, ctx.keepdim) / ctx.n, None, None, None

    @staticmethod
    def _np_backward(ctx, d):
        # NOTE: the Tensor formula's broadcast view, then its true_divide by n cast as Div's
        # forward casts a Python number
        dt = d.dtype
        if dt.kind != "f":
            return NotImplemented
        e = _expand_grad_array(d, ctx.shape, ctx.dims, ctx.keepdim)
        return as_array(np.true_divide(e, cast(ctx.n, dt))), None, None, None


class MeanAll(Mean):
    _backward_name = "MeanBackward0"


_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
               "uint8": "Byte", "bool": "Bool"}


def mean(input, dim=_NOT_GIVEN, keepdim=False, *, dtype=None, out=None):
    """Arithmetic mean over ``dim`` (floating and complex dtypes only)."""
    try:
        x = input._data
    except AttributeError:
        raise not_a_tensor("mean", input) from None
    if dtype is not None and not isinstance(dtype, D.dtype):
        _check_dtype_arg("mean", None if dim is _NOT_GIVEN else dim, dtype, x.ndim)
    npdt = D.to_dtype(dtype).np if dtype is not None else x.dtype
    if npdt.kind not in "fc":
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be either "
                           "a floating point or complex dtype. Got: "
                           f"{_TYPE_NAMES.get(D._FROM_NP[npdt].name)}")
    if (dim is _NOT_GIVEN or dim is None) and keepdim is False:
        return _write_out(out, MeanAll.apply(input, tuple(range(x.ndim)), False, npdt))
    _check_keepdim("mean", dim, keepdim)
    res = Mean.apply(input, _reduction_dims("mean", dim, x.ndim), keepdim, npdt)
    if negative(dim):  # (kept as given, see keep_given)
        keep_given(res, dim=(dim,) if type(dim) is int else tuple(dim))
    return _write_out(out, res)


class Nansum(BuiltinFunction):
    """out = sum of the non-nan elements over dims;  dx = g where x is not nan, else 0."""
    _backward_name = "NansumBackward0"

    @staticmethod
    def forward(ctx, x, dims, keepdim, npdt):
        ctx.save_for_backward(x)
        ctx.dims, ctx.keepdim = dims, keepdim
        return as_array(np.nansum(x, axis=dims, keepdims=keepdim, dtype=npdt))

    @staticmethod
    def backward(ctx, g):
        from .elementwise import where
        (x,) = ctx.saved_tensors
        g = expand_grad(g, x._data.shape, ctx.dims, ctx.keepdim)
        return where(x.isnan(), 0.0, g), None, None, None


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of elements over ``dim``, treating nan as zero."""
    if input._data.dtype.kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    dims = _dims_arg(dim, input.ndim)
    return Nansum.apply(input, dims, keepdim, _sum_dtype(input._data.dtype, dtype))


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """``mean`` ignoring NaN values."""
    if input._data.dtype.kind not in "fc":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_TYPE_NAMES.get(input.dtype.name)}")
    if input._data.dtype.kind == "c":  # (the nansum it is computed with has no complex kernel)
        raise RuntimeError("nansum on CPU does not support complex inputs")
    from .elementwise import isnan, logical_not
    cnt = sum(logical_not(isnan(input)), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / cnt


class Prod(BuiltinFunction):
    """out = prod(x, dim);  dx = g * out / x (computed without dividing by zeros)."""
    _backward_name = "ProdBackward1"

    @staticmethod
    def forward(ctx, x, dim, keepdim, npdt):
        ctx.save_for_backward(x)
        ctx.dim, ctx.keepdim = dim, keepdim
        return as_array(np.prod(x, axis=dim, keepdims=keepdim, dtype=npdt))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        dims = (ctx.dim,) if ctx.dim is not None else tuple(range(x.ndim))
        shape = x._data.shape
        g = expand_grad(g, shape, dims, ctx.keepdim)
        if x._data.dtype.kind == "c":  # PyTorch's convention: the conjugate derivative
            x = x.conj()
        return _prod_grad(x, ctx.dim) * g, None, None, None


class ProdAll(Prod):
    _backward_name = "ProdBackward0"


def _prod_grad(x, dim):
    """d prod / dx_i = product of the others: exclusive cumulative products from both sides."""
    if dim is None:
        flat = x.reshape(-1)
        return _prod_grad(flat, 0).reshape(x.shape)
    if x.ndim == 0 or x.shape[dim] <= 1:  # the product of no others is 1
        return _make(np.ones(x._data.shape, x._data.dtype), None, False)
    ones_shape = list(x.shape)
    ones_shape[dim] = 1
    one = _make(np.ones(ones_shape, x._data.dtype), None, False)
    from .shape import cat, narrow
    n = x.shape[dim]
    left = cat([one, narrow(x, dim, 0, n - 1)], dim).cumprod(dim)
    right = cat([one, narrow(x.flip(dim), dim, 0, n - 1)], dim).cumprod(dim).flip(dim)
    return left * right


def prod(input, dim=_NOT_GIVEN, keepdim=False, *, dtype=None):
    """Product of elements over ``dim`` (all when not given)."""
    npdt = _sum_dtype(input._data.dtype, dtype)
    if dim is _NOT_GIVEN and keepdim is False:
        return ProdAll.apply(input, None, False, npdt)
    if dim is None or dim is _NOT_GIVEN:  # (only the int-dim overload takes keepdim)
        _none_dim("prod")
    _check_keepdim("prod", dim, keepdim)
    res = Prod.apply(input, wrap_dim(dim, input.ndim, "prod"), keepdim, npdt)
    return keep_given(res, dim=dim) if negative(dim) else res  # (see keep_given)


def _none_dim(op):
    """PyTorch's parser error for ``dim=None`` with a ``keepdim`` where ``dim`` is an int."""
    from ._arg_errors import bad_argument
    raise bad_argument(TypeError(f"{op}(): argument 'dim' must be int, not NoneType"))


class MaxAll(BuiltinFunction):
    """out = max(x);  dx = g split evenly among the maximal elements."""
    _backward_name = "MaxBackward1"
    _fn = staticmethod(np.max)

    @staticmethod
    def forward(ctx, x, op):
        if x.size == 0:
            raise RuntimeError(f"{op}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        # (the reduction np.max / np.min call on an ndarray, less their Python wrapper)
        out = as_array((np.maximum if op == "max" else np.minimum).reduce(x, axis=None))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        mask = (x == out).to(g.dtype)
        return g * mask / mask.sum(), None


class MinAll(MaxAll):
    _backward_name = "MinBackward1"


class MaxDim(BuiltinFunction):
    """(values, indices) = max(x, dim);  dx = g at the chosen index, 0 elsewhere."""
    _backward_name = "MaxBackward0"

    @staticmethod
    def forward(ctx, x, dim, keepdim, op):
        if x.ndim and x.shape[dim] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {dim} to have non-zero size.")
        fn = np.argmax if op == "max" else np.argmin
        idx = fn(x, axis=dim, keepdims=True) if x.ndim else np.zeros((), np.int64)
        vals = np.take_along_axis(x, idx, dim) if x.ndim else x.copy()
        if not keepdim and x.ndim:
            idx, vals = idx.squeeze(dim), vals.squeeze(dim)
        ctx.save_for_backward(idx)
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return as_array(vals), as_array(idx.astype(np.int64))

    @staticmethod
    def backward(ctx, g, _gi):
        (idx,) = ctx.saved_tensors
        return index_grad(g, idx, ctx.shape, ctx.dim, ctx.keepdim), None, None, None


class MinDim(MaxDim):
    _backward_name = "MinBackward0"


def index_grad(g, idx, shape, dim, keepdim):
    """Place ``g`` at ``idx`` along ``dim`` in zeros of ``shape`` (a differentiable scatter)."""
    if len(shape) == 0:
        return g
    if not keepdim:
        g, idx = g.unsqueeze(dim), idx.unsqueeze(dim)
    view = [1] * len(shape)
    view[dim] = shape[dim]
    ar = _make(np.arange(shape[dim]).reshape(view), None, False)
    mask = (ar == idx).to(g.dtype)
    return g * mask


def _minmax(input, dim, keepdim, other, op):
    if isinstance(dim, Tensor) or other is not _NOT_GIVEN:
        if other is None:  # (given as None: no overload takes it)
            _none_dim(op)
        from .elementwise import maximum, minimum
        fn = maximum if op == "max" else minimum
        return fn(input, dim if isinstance(dim, Tensor) else other)
    if dim is _NOT_GIVEN and keepdim is _NOT_GIVEN:
        return (MaxAll if op == "max" else MinAll).apply(input, op)
    if dim is None or dim is _NOT_GIVEN:  # (only the int-dim overload takes keepdim,
        _none_dim(op)                     # even an explicit keepdim=False)
    if keepdim is _NOT_GIVEN:
        keepdim = False
    _check_keepdim(op, dim, keepdim)
    d = wrap_dim(dim, input.ndim, op)
    vals, idx = (MaxDim if op == "max" else MinDim).apply(input, d, keepdim, op)
    if d != dim:  # (negative: kept as given, see keep_given)
        keep_given(vals, dim=dim)
    return getattr(return_types, op)(vals, idx)


def max(input, dim=_NOT_GIVEN, keepdim=_NOT_GIVEN, *, out=None, other=_NOT_GIVEN):
    """Largest element; with ``dim``, a ``(values, indices)`` named tuple; with a tensor,
    the elementwise maximum."""
    _no_complex_minmax(input, dim, other, "max")
    res = _minmax(input, dim, keepdim, other, "max")
    return res if out is None else _write_minmax(out, res, "max")


def min(input, dim=_NOT_GIVEN, keepdim=_NOT_GIVEN, *, out=None, other=_NOT_GIVEN):
    """Smallest element; with ``dim``, a ``(values, indices)`` named tuple."""
    _no_complex_minmax(input, dim, other, "min")
    res = _minmax(input, dim, keepdim, other, "min")
    return res if out is None else _write_minmax(out, res, "min")


def _write_minmax(out, res, op):
    """``out=``: one tensor for a full reduction or elementwise op, a pair along a dim."""
    return write_out_pair(out, res, op) if isinstance(res, tuple) else write_out(out, res)


def _no_complex_minmax(input, dim, other, op):
    if isinstance(dim, Tensor) or other is not _NOT_GIVEN and other is not None:
        message = f"{'maximum' if op == 'max' else 'minimum'} not implemented for complex " \
                  "tensors."
        for t in (input, dim if other is None else other):
            no_complex(t, message, RuntimeError)
    elif dim is _NOT_GIVEN or dim is None:
        no_complex(input, f'"{op}_all" not implemented for \'{{T}}\'')
    else:
        no_complex(input, f"{op}(): does not support complex input", RuntimeError)


class Amax(BuiltinFunction):
    """out = amax(x, dims);  dx = g split evenly among the maxima of each slice."""
    _backward_name = "AmaxBackward0"

    @staticmethod
    def forward(ctx, x, dims, keepdim, op):
        fn = np.amax if op == "amax" else np.amin
        out = as_array(fn(x, axis=dims, keepdims=keepdim))
        ctx.save_for_backward(x, out)
        ctx.dims, ctx.keepdim = dims, keepdim
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        shape = x._data.shape
        outb = expand_grad(out, shape, ctx.dims, ctx.keepdim)
        mask = (x == outb).to(g.dtype)
        count = mask.sum(ctx.dims, keepdim=True)
        return expand_grad(g, shape, ctx.dims, ctx.keepdim) * mask / count, None, None, None


class Amin(Amax):
    _backward_name = "AminBackward0"


def amax(input, dim=(), keepdim=False):
    no_complex(input, '"max_values_cpu" not implemented for \'{T}\'')
    dims = _dims_arg(dim, input.ndim)
    _check_empty_extreme(input, dim, dims, "amax()")
    res = Amax.apply(input, dims, keepdim, "amax")
    if dim is None or type(dim) is not int and not dim:  # all dims: PyTorch shows ()
        return keep_given(res, dim=())
    return keep_given(res, dim=_given_dims(dim)) if negative(dim) else res  # (see keep_given)


def amin(input, dim=(), keepdim=False):
    no_complex(input, '"min_values_cpu" not implemented for \'{T}\'')
    dims = _dims_arg(dim, input.ndim)
    _check_empty_extreme(input, dim, dims, "amin()")
    res = Amin.apply(input, dims, keepdim, "amin")
    if dim is None or type(dim) is not int and not dim:  # all dims: PyTorch shows ()
        return keep_given(res, dim=())
    return keep_given(res, dim=_given_dims(dim)) if negative(dim) else res  # (see keep_given)


def _given_dims(dim):
    return (dim,) if type(dim) is int else tuple(dim)


def _check_empty_extreme(input, dim, dims, op):
    """PyTorch's errors for a max/min over no elements (there is no identity)."""
    if input._data.size:
        return
    if dim is None or isinstance(dim, (tuple, list)) and not dim:
        raise RuntimeError(f"{op.rstrip('()')}(): Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")
    for d in dims:
        if input._data.shape[d] == 0:
            raise IndexError(f"{op}: Expected reduction dim {d} to have non-zero size.")


class Aminmax(BuiltinFunction):
    """(min, max) over dims, one node;  dx = each g split evenly among its extrema, summed."""
    _backward_name = "AminmaxBackward0"

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        lo = as_array(np.amin(x, axis=dims, keepdims=keepdim))
        hi = as_array(np.amax(x, axis=dims, keepdims=keepdim))
        ctx.save_for_backward(x, lo, hi)
        ctx.dims, ctx.keepdim = dims, keepdim
        return lo, hi

    @staticmethod
    def backward(ctx, g_lo, g_hi):
        x, lo, hi = ctx.saved_tensors
        shape, dims, keepdim = x._data.shape, ctx.dims, ctx.keepdim
        gx = None
        for g, ext in ((g_lo, lo), (g_hi, hi)):
            mask = (x == expand_grad(ext, shape, dims, keepdim)).to(g.dtype)
            part = expand_grad(g, shape, dims, keepdim) * mask / mask.sum(dims, keepdim=True)
            gx = part if gx is None else gx + part
        return gx, None, None


def aminmax(input, *, dim=None, keepdim=False):
    no_complex(input, '"aminmax_cpu" not implemented for \'{T}\'')
    if dim is not None:
        _check_empty_extreme(input, dim, _dims_arg(dim, input.ndim), "aminmax")
    elif not input._data.size:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    dims = _dims_arg(() if dim is None else dim, input.ndim)
    return return_types.aminmax(*Aminmax.apply(input, dims, keepdim))


def argmax(input, dim=None, keepdim=False):
    """Index of the largest element (of the flattened tensor when ``dim`` is None)."""
    try:
        return _arg(np.argmax, input, dim, keepdim)
    except Unbatchable:
        return _batched_reduction(argmax, input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    try:
        return _arg(np.argmin, input, dim, keepdim)
    except Unbatchable:
        return _batched_reduction(argmin, input, dim, keepdim)


def _batched_reduction(fn, input, dim, keepdim):
    """``fn`` (argmax, argmin, any, all) inside vmap: once on the physical tensor (reached
    only there: a batched tensor's data makes the plain path raise Unbatchable)."""
    from ..func import _batched_values
    return _batched_values.reduction(fn, input, dim, keepdim)


def _arg(fn, input, dim, keepdim):
    x = input._data
    name = "argmax" if fn is np.argmax else "argmin"
    no_complex(input, f"{name}(): does not support complex input", RuntimeError)
    if x.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if keepdim is not False and keepdim is not True:
        _check_keepdim(name, dim, keepdim)
    if dim is None and x.size == 0:
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                         "== 0.")
    if dim is not None and x.ndim and x.shape[wrap_dim(dim, x.ndim)] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {wrap_dim(dim, x.ndim)} to have "
                         "non-zero size.")
    if dim is None:
        res = np.asarray(fn(x.reshape(-1)), np.int64)
        if keepdim:
            res = res.reshape((1,) * x.ndim)
        return _make(res, None, False)
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return _make(np.zeros((), np.int64), None, False)
    return _make(as_array(fn(x, axis=d, keepdims=keepdim)).astype(np.int64), None, False)


# ---- variance ---------------------------------------------------------------------------
def _correction(unbiased, correction):
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


# elements per output that Welford's update is replayed over, one by one (a Python loop);
# past it NumPy's two-pass variance stays (the last bits may then differ from PyTorch's)
_WELFORD_MAX = 4096
_GRAIN = 32768  # PyTorch's parallel grain: smaller ranges run on one thread


def _torch_spread(x, dims, c, keepdim, take_sqrt, welford):
    """(var or std, mean) of real float32/float64 ``x`` over ``dims`` rounded as PyTorch's
    CPU kernels round them; None where not replayed (other dtypes, no elements, too many
    elements per output for Welford's loop).

    ``var``/``std`` with one output take PyTorch's two passes: the mean in x's dtype, then
    the squared deviations summed in double, a running sum per thread's block; mean is then
    None. Otherwise (several outputs, or ``welford`` for var_mean/std_mean) PyTorch runs
    Welford's update in double over each output's elements in memory order, and returns
    its mean. The spread is divided by max(0, n - c) and square-rooted in double, then
    rounded once to x's dtype.
    """
    if (x.dtype is not _F32 and x.dtype is not _F64) or not x.size:
        return None
    n = _count(x.shape, dims)
    divisor = np.float64(n - c if n > c else 0)
    if keepdim:
        shape = tuple(1 if d in dims else s for d, s in enumerate(x.shape))
    else:
        shape = tuple(s for d, s in enumerate(x.shape) if d not in dims)
    mean = None
    if x.size == n and not welford:
        m2 = np.float64(_two_pass_m2(x))
    elif n <= _WELFORD_MAX:
        kept = [d for d in range(x.ndim) if d not in dims]
        red = sorted(dims, key=lambda d: -abs(x.strides[d]))  # memory order, as PyTorch's
        rows = x.transpose(kept + red).reshape(-1, n).astype(np.float64)
        mean, m2 = _welford(rows)
        mean = mean.astype(x.dtype).reshape(shape)
    else:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        v = m2 / divisor
        if take_sqrt:
            v = np.sqrt(v)
    return np.asarray(v).astype(x.dtype).reshape(shape), mean


def _two_pass_m2(x):
    """Sum of squared deviations from x's mean (taken in x's dtype), in double, summed as
    PyTorch's ``std_var_all_cpu``: left to right within each thread's block, then the
    blocks."""
    m = float(_mean_float(x, tuple(range(x.ndim)), False, x.dtype, x.size))
    d = x.ravel(order="K").astype(np.float64) - m
    d *= d
    threads = _threads.get_num_threads()
    blocks = -(-d.size // _GRAIN)
    tasks = 1 if blocks == 1 or threads == 1 else (threads if threads < blocks else blocks)
    chunk = -(-d.size // tasks)
    total = 0.0
    for start in range(0, d.size, chunk):
        total += float(np.add.accumulate(d[start:start + chunk])[-1])
    return total


def _welford(rows):
    """Welford's (mean, m2) of each row of float64 ``rows``, updated element by element."""
    if rows.shape[0] == 1:  # one output: Python floats (the same double arithmetic) are faster
        mean = m2 = 0.0
        for k, v in enumerate(rows[0].tolist(), 1):
            delta = v - mean
            mean += delta / k
            m2 += delta * (v - mean)
        return np.array([mean]), np.array([m2])
    mean = np.zeros(rows.shape[0])
    m2 = np.zeros(rows.shape[0])
    for k in range(rows.shape[1]):
        v = rows[:, k]
        delta = v - mean
        mean = mean + delta / (k + 1)
        m2 = m2 + delta * (v - mean)
    return mean, m2


class Var(BuiltinFunction):
    """out = sum((x - mean)^2) / (n - c);  dx = g * 2 (x - mean) / (n - c)."""
    _backward_name = "VarBackward0"

    @staticmethod
    def forward(ctx, x, dims, c, keepdim):
        if x.dtype.kind not in "fc":
            raise RuntimeError("std and var only support floating point and complex dtypes")
        ctx.save_for_backward(x)
        ctx.dims, ctx.c, ctx.keepdim = dims, c, keepdim
        spread = _torch_spread(x, dims, c, keepdim, False, False)
        if spread is not None:
            return spread[0]
        n = _count(x.shape, dims)
        # The variance of complex values is real (|x - mean|^2), as in PyTorch.
        real = np.finfo(x.dtype).dtype
        if n - c <= 0:
            # NOTE: PyTorch divides by max(0, n - c): inf where the values spread, nan where
            # they do not (0 / 0) or there are none
            if n == 0:
                shape = np.sum(x, axis=dims, keepdims=keepdim).shape
                return np.full(shape, np.nan, real)
            with np.errstate(divide="ignore", invalid="ignore"):
                m2 = np.var(x, axis=dims, keepdims=keepdim) * n
                return as_array(m2 / (n - c if n > c else 0)).astype(real)
        return as_array(np.var(x, axis=dims, ddof=c, keepdims=keepdim)).astype(real)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return _var_grad(g, x, ctx.dims, ctx.c, ctx.keepdim), None, None, None


def _var_grad(g, x, dims, c, keepdim):
    """PyTorch's ``var_backward``: ``(2 / (n - c)) * g * (x - mean)``, multiplied in that
    order. With no degrees of freedom left and no dim given it is ``g`` times nan where
    ``x`` equals the mean, else inf; with dims given, ``2 / 0`` is inf."""
    n = _count(x._data.shape, dims)
    mean = x.mean(dims, keepdim=True)
    gx = expand_grad(g, x._data.shape, dims, keepdim)
    if n - c <= 0 and isinstance(dims, _WholeTensor):
        from .elementwise import where
        return gx * where(x == mean, math.nan, math.inf)
    scale = 2.0 / (n - c) if n != c else math.inf
    return (gx * scale) * (x - mean)


class Std(BuiltinFunction):
    """out = sqrt(var);  dx = g * (x - mean) / ((n - c) * out)."""
    _backward_name = "StdBackward0"

    @staticmethod
    def forward(ctx, x, dims, c, keepdim):
        spread = _torch_spread(x, dims, c, keepdim, True, False)
        if spread is None:
            out = np.sqrt(Var.forward(ctx, x, dims, c, keepdim))
        else:  # (the square root taken in double, before the rounding)
            out = spread[0]
            ctx.dims, ctx.c, ctx.keepdim = dims, c, keepdim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        # PyTorch's std_backward: var's gradient of g / (2 std), 0 where std is 0 (a constant
        # input gets a zero gradient, not 0 / 0)
        x, out = ctx.saved_tensors
        g_var = (g / (out * 2)).masked_fill(out == 0, 0)
        return _var_grad(g_var, x, ctx.dims, ctx.c, ctx.keepdim), None, None, None


# NOTE: PyTorch computes these for half in float32 and rounds the result once
for _cls in (Var, Std):
    half_in_float32(_cls)
del _cls


def _count(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


class _WholeTensor(tuple):
    """The reduction dims of a ``var``/``std`` given no ``dim`` (or of a 0-dim input): all
    of them, marked because PyTorch's backward differs there when no degrees of freedom
    are left (see ``_var_grad``)."""
    __slots__ = ()


def _var_args(input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    dims = _dims_arg(dim, input.ndim)
    if dim is None or not input.ndim:
        dims = _WholeTensor(dims)
    return dims, _correction(unbiased, correction), keepdim


def _check_dof(op, input, dims, c):
    """PyTorch's warning when ``correction`` leaves no degrees of freedom."""
    if _count(input._data.shape, dims) - c <= 0:
        from ._util import warn_user
        warn_user(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less "
                  "than the reduction factor (input numel divided by output numel). "
                  "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                  "ReduceOps.cpp:1861.)")


class _NoDim:
    """The default of ``var``'s ``dim``: all dims, told apart from an explicit ``dim=None``
    (after which PyTorch's node shows the correction, 1, where after ``x.var()`` it shows
    None)."""

    def __repr__(self):
        return "None"


_ALL_DIMS = _NoDim()


def var(input, dim=_ALL_DIMS, unbiased=None, keepdim=False, *, correction=None):
    """Variance over ``dim`` with Bessel's ``correction`` (1 by default)."""
    given, dim = dim is not _ALL_DIMS, None if dim is _ALL_DIMS else dim
    dims, c, keepdim = _var_args(input, dim, unbiased, keepdim, correction)
    _check_dof("var", input, dims, c)
    return _spread_given(Var.apply(input, dims, c, keepdim), dim, unbiased, correction,
                         given)


def std(input, dim=_ALL_DIMS, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation over ``dim`` with Bessel's ``correction`` (1 by default)."""
    given, dim = dim is not _ALL_DIMS, None if dim is _ALL_DIMS else dim
    dims, c, keepdim = _var_args(input, dim, unbiased, keepdim, correction)
    _check_dof("std", input, dims, c)
    return _spread_given(Std.apply(input, dims, c, keepdim), dim, unbiased, correction,
                         given)


def _spread_given(res, dim, unbiased, correction, dim_given=True):
    """``res`` with the node remembering ``dim`` and ``correction`` as PyTorch's node keeps
    them (see keep_given): no dim (None) for all of them, a negative one as given, and no
    correction (None) when none of it, ``unbiased`` or ``dim`` was given."""
    if dim is None or type(dim) is bool:
        return keep_given(res, dim=None, correction=None if correction is None and
                          unbiased is None and not dim_given else _correction(
                              dim if type(dim) is bool else unbiased, correction))
    return keep_given(res, dim=_given_dims(dim)) if negative(dim) else res


class VarMean(BuiltinFunction):
    """(var, mean) over dims, one node;  dx = Var's gradient + Mean's gradient."""
    _backward_name = "VarMeanBackward0"

    @staticmethod
    def forward(ctx, x, dims, c, keepdim):
        # Var's forward saves x; Mean's sets ctx.shape and ctx.n, which its backward reads.
        # NOTE: PyTorch's mean here is Welford's, not mean()'s (they differ in the last bit)
        mean = Mean.forward(ctx, x, dims, keepdim, x.dtype)
        spread = _torch_spread(x, dims, c, keepdim, False, True)
        if spread is None:
            return Var.forward(ctx, x, dims, c, keepdim), mean
        ctx.save_for_backward(x)
        ctx.c = c
        return spread

    @staticmethod
    def backward(ctx, g_spread, g_mean):
        return (Var.backward(ctx, g_spread)[0] + Mean.backward(ctx, g_mean)[0],
                None, None, None)


half_in_float32(VarMean)


class StdMean(VarMean):
    """(std, mean) over dims, one node;  dx = Std's gradient + Mean's gradient."""
    _backward_name = "StdMeanBackward0"

    @staticmethod
    def forward(ctx, x, dims, c, keepdim):
        # NOTE: Std's forward, with its saved output an array (not a NumPy scalar): of a
        # tuple of outputs, only the very array returned is recognised as an output
        mean = Mean.forward(ctx, x, dims, keepdim, x.dtype)
        spread = _torch_spread(x, dims, c, keepdim, True, True)
        if spread is None:
            out = as_array(np.sqrt(Var.forward(ctx, x, dims, c, keepdim)))
        else:
            (out, mean), ctx.c = spread, c
        ctx.save_for_backward(x, out)
        return out, mean

    @staticmethod
    def backward(ctx, g_spread, g_mean):
        return (Std.backward(ctx, g_spread)[0] + Mean.backward(ctx, g_mean)[0],
                None, None, None)


half_in_float32(StdMean)


def var_mean(input, dim=_ALL_DIMS, unbiased=None, keepdim=False, *, correction=None):
    given, dim = dim is not _ALL_DIMS, None if dim is _ALL_DIMS else dim
    dims, c, keepdim = _var_args(input, dim, unbiased, keepdim, correction)
    if input._data.dtype.kind not in "fc":
        raise RuntimeError("var_mean only support floating point and complex dtypes")
    _check_dof("var_mean", input, dims, c)
    return _spread_given(VarMean.apply(input, dims, c, keepdim), dim, unbiased, correction,
                         given)


def std_mean(input, dim=_ALL_DIMS, unbiased=None, keepdim=False, *, correction=None):
    given, dim = dim is not _ALL_DIMS, None if dim is _ALL_DIMS else dim
    dims, c, keepdim = _var_args(input, dim, unbiased, keepdim, correction)
    if input._data.dtype.kind not in "fc":
        raise RuntimeError("std_mean only support floating point and complex dtypes")
    _check_dof("std_mean", input, dims, c)
    return _spread_given(StdMean.apply(input, dims, c, keepdim), dim, unbiased, correction,
                         given)


# ---- scans ------------------------------------------------------------------------------
# the type PyTorch's CPU cumsum/cumprod accumulate in (at::acc_type<T, /*is_cuda=*/false>),
# each partial result rounded to the output dtype
_CUM_ACC = {np.dtype(np.float16): np.dtype(np.float32),
            np.dtype(np.float32): np.dtype(np.float64),
            np.dtype(np.complex64): np.dtype(np.complex128)}


class Cumsum(BuiltinFunction):
    """out = cumsum(x, dim);  dx = reversed cumsum of g."""
    _backward_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, x, dim, npdt):
        ctx.dim = dim
        if x.ndim == 0:
            return x.astype(npdt)
        acc = _CUM_ACC.get(npdt)
        if acc is not None:  # NOTE: PyTorch's CPU scan accumulates in a wider type
            return np.cumsum(x.astype(npdt, copy=False), axis=dim, dtype=acc).astype(npdt)
        return np.cumsum(x, axis=dim, dtype=npdt)

    @staticmethod
    def backward(ctx, g):
        if g.ndim == 0:
            return g, None, None
        return g.flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim), None, None


def cumsum(input, dim=None, *, dtype=None, out=None):
    """Cumulative sum along ``dim``."""
    if dim is None:  # (an explicit None gets the parser's type error, a missing dim this)
        from ._arg_errors import bad_argument
        raise bad_argument(TypeError('cumsum() missing 1 required positional arguments: '
                                     '"dim"'))
    d = wrap_dim(dim, input.ndim)
    res = Cumsum.apply(input, d, _sum_dtype(input._data.dtype, dtype))
    return _write_out(out, keep_given(res, dim=dim) if d != dim else res)  # (see keep_given)


class Cumprod(BuiltinFunction):
    """out = cumprod(x, dim);  dx = reversed cumsum(g * out) / x (x nonzero)."""
    _backward_name = "CumprodBackward0"

    @staticmethod
    def forward(ctx, x, dim, npdt):
        ctx.dim = dim
        if x.ndim == 0:
            out = x.astype(npdt)
        elif npdt in _CUM_ACC:  # NOTE: as cumsum, accumulated in a wider type
            out = np.cumprod(x.astype(npdt, copy=False), axis=dim,
                             dtype=_CUM_ACC[npdt]).astype(npdt)
        else:
            out = np.cumprod(x, axis=dim, dtype=npdt)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        if g.ndim == 0:
            return g, None, None
        if x._data.dtype.kind == "c":  # PyTorch's convention: the conjugate derivative
            x, out = x.conj(), out.conj()
        d = ctx.dim
        if (x._data == 0).any():
            return _cumprod_grad_with_zeros(g, x, d), None, None
        return (g * out).flip(d).cumsum(d).flip(d) / x, None, None


def _cumprod_grad_with_zeros(g, x, d):
    """dx_k = (prod of x_j, j < k) * s_k with s_k = g_k + x_(k+1) s_(k+1): no division, so
    zeros are fine (a loop over the dim, in differentiable ops)."""
    from .shape import stack
    xs, gs = x.unbind(d), g.unbind(d)
    n = len(xs)
    s = [gs[-1]]
    for k in range(n - 2, -1, -1):
        s.append(gs[k] + xs[k + 1] * s[-1])
    s.reverse()
    prefix = [_make(np.ones(xs[0]._data.shape, x._data.dtype), None, False)]
    for k in range(1, n):
        prefix.append(prefix[-1] * xs[k - 1])
    return stack([p * sk for p, sk in zip(prefix, s)], d)


def cumprod(input, dim=None, *, dtype=None, out=None):
    if dim is None:  # (an explicit None gets the parser's type error, a missing dim this)
        from ._arg_errors import bad_argument
        raise bad_argument(TypeError('cumprod() missing 1 required positional arguments: '
                                     '"dim"'))
    d = wrap_dim(dim, input.ndim)
    res = Cumprod.apply(input, d, _sum_dtype(input._data.dtype, dtype))
    return _write_out(out, keep_given(res, dim=dim) if d != dim else res)  # (see keep_given)


class Cummax(BuiltinFunction):
    """(values, indices) = cummax(x, dim);  dx = g added at the indices."""
    _backward_name = "CummaxBackward0"

    @staticmethod
    def forward(ctx, x, dim, op):
        vals, idx = _cum_extreme(x, dim, op)
        ctx.save_for_backward(x, idx)  # (x unused, but saved as PyTorch does: _saved_self)
        ctx.dim, ctx.shape = dim, x.shape
        return vals, idx

    @staticmethod
    def backward(ctx, g, _gi):
        idx = ctx.saved_tensors[1]
        from .indexing import scatter_add
        from .._creation import zeros
        if g.ndim == 0:
            return g, None, None
        return scatter_add(zeros(ctx.shape, dtype=g.dtype), ctx.dim, idx, g), None, None


class Cummin(Cummax):
    _backward_name = "CumminBackward0"


def _cum_extreme(x, dim, op):
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    xm = np.moveaxis(x, dim, 0)
    acc = (np.maximum if op == "max" else np.minimum).accumulate(xm, axis=0)
    n = xm.shape[0]
    pos = np.arange(n).reshape((n,) + (1,) * (xm.ndim - 1))
    # the index of the latest element equal to the running extreme (PyTorch picks the last);
    # a NaN always takes over, and once the extreme is NaN only a later NaN moves the index
    same = xm == acc
    if x.dtype.kind in "fc":
        same |= np.isnan(xm)
    hit = np.where(same, pos, -1)
    idx = np.maximum.accumulate(hit, axis=0)
    return np.moveaxis(acc, 0, dim).copy(), np.moveaxis(idx, 0, dim).astype(np.int64).copy()


def cummax(input, dim):
    no_complex(input, '"cummax_cpu" not implemented for \'{T}\'')
    d = wrap_dim(dim, input.ndim)
    res = Cummax.apply(input, d, "max")
    if d != dim:  # (negative: kept as given, see keep_given)
        keep_given(res, dim=dim)
    return return_types.cummax(*res)


def cummin(input, dim):
    no_complex(input, '"cummin_cpu" not implemented for \'{T}\'')
    d = wrap_dim(dim, input.ndim)
    res = Cummin.apply(input, d, "min")
    if d != dim:  # (negative: kept as given, see keep_given)
        keep_given(res, dim=dim)
    return return_types.cummin(*res)


# ---- softmax family ---------------------------------------------------------------------
class Logsumexp(BuiltinFunction):
    """out = log(sum(exp(x)));  dx = g * exp(x - out)."""
    _backward_name = "LogsumexpBackward0"

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        if x.dtype.kind not in "fc":
            x = x.astype(D._state["default"].np)
        m = np.max(x, axis=dims, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
        m = np.where(np.isfinite(m), m, 0)
        # PyTorch's order and rounding: exp and log as its kernels round them, the sum in its
        # cascade order (ops/_cascade.py), so ``cross_entropy``-style code built on
        # logsumexp matches it in the last bit
        e = _libm.exp(x - m)
        s = _libm.log(torch_sum(e, dims, e.dtype, True)) + m
        out = as_array(s if keepdim else np.squeeze(s, axis=dims))
        ctx.save_for_backward(x, out)  # the same array: saved as the output (gradgrad)
        ctx.dims, ctx.keepdim = dims, keepdim
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        shape = x._data.shape
        gx = expand_grad(g, shape, ctx.dims, ctx.keepdim)
        p = (x - expand_grad(out, shape, ctx.dims, ctx.keepdim)).exp()
        return gx * (p.conj() if p._data.dtype.kind == "c" else p), None, None


def logsumexp(input, dim=_NOT_GIVEN, keepdim=False):
    """``log(sum(exp(input), dim))`` computed stably."""
    if dim is _NOT_GIVEN:  # (PyTorch's parser words a missing dim its own way)
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    if dim is None:  # (its dims are required: None is no list of ints)
        from ._arg_errors import bad_argument
        raise bad_argument(TypeError("logsumexp(): argument 'dim' must be tuple of ints, not "
                                     "NoneType"))
    res = Logsumexp.apply(input, _dims_arg(dim, input.ndim), keepdim)
    return keep_given(res, dim=_given_dims(dim)) if negative(dim) else res  # (see keep_given)


def _softmax_array(x, dim):
    """exp(x - max) / sum(exp(x - max)) for an array of 1 or more dims."""
    if not x.size:
        return x.copy()
    if x.dtype == np.float16:
        return _half_softmax_array(x, dim)
    if _lastdim_kernel(x, dim):
        return _softmax_lastdim(x)
    if _inner_kernel(x):
        return _softmax_inner(x, dim)
    # three fresh-array passes instead of five: exp and divide run in place
    e = np.subtract(x, _max(x, dim, keepdims=True))
    return np.divide(np.exp(e, out=e), _sum(e, axis=dim, keepdims=True), out=e)


def _lastdim_kernel(x, dim):
    """Whether PyTorch's vectorised last-dim softmax kernel, replayed below, applies: float32
    along the last dim (of the contiguous copy PyTorch makes of any other layout)."""
    return x.dtype is _F32 and dim % x.ndim == x.ndim - 1


def _row_max(rows):
    """The max of each row of 2-D ``rows``, as a column. Many short rows (a batch of class
    scores) are reduced through a transposed copy: NumPy is slow along short inner rows."""
    n, k = rows.shape
    if k <= 32 and n >= 32:
        return _max(np.ascontiguousarray(rows.T), axis=0)[:, None]
    return _max(rows, 1, keepdims=True)


def _softmax_lastdim(x):
    """PyTorch's float32 softmax along the last dim: exp(x - max), its sum in the vector
    order of ``vec::reduce_all``, then a multiplication by the sum's reciprocal."""
    rows = x.reshape(-1, x.shape[-1])
    shifted = np.subtract(rows, _row_max(rows))
    # (its exp is SLEEF's on every element, tails included: vec::map loads them partially)
    e = _vector_math.expf(shifted) if x.size <= _vector_math.REPLAY_LIMIT else _libm.exp(shifted)
    inv = np.reciprocal(vec_sum_lastdim(e, VEC_LANES))
    return np.multiply(e, inv[:, None], out=e).reshape(x.shape)


def _log_softmax_lastdim(x):
    """PyTorch's float32 log_softmax along the last dim: (x - max) - log(sum of exp(x - max)),
    the sum in the vector order of ``vec::map_reduce_all``."""
    rows = x.reshape(-1, x.shape[-1])
    shifted = np.subtract(rows, _row_max(rows))
    log_sum = _libm.log(vec_sum_lastdim(_libm.exp(shifted), VEC_LANES))
    return np.subtract(shifted, log_sum[:, None], out=shifted).reshape(x.shape)


def _inner_kernel(x):
    """Whether PyTorch's float32 kernels for a softmax along another dim than the last are
    replayed (``_softmax_inner``): float32, at most ``_vector_math.REPLAY_LIMIT`` elements."""
    return x.dtype is _F32 and x.size <= _vector_math.REPLAY_LIMIT


def _as_outer_dim_inner(x, dim):
    """C-contiguous ``x`` viewed as (outer, dim size, inner): how the kernels walk it."""
    dim %= x.ndim
    outer = math.prod(x.shape[:dim])
    return np.ascontiguousarray(x).reshape(outer, x.shape[dim], -1)


def _softmax_inner(x, dim):
    """PyTorch's float32 softmax along a dim other than the last (``_vec_softmax``): per
    (outer, inner) position, exp(x - max) divided by its running sum over the dim; the exp
    is SLEEF's where the position lies in a whole vector of positions walked by one thread
    (``_vector_math.inner_vector_mask``), the C library's elsewhere."""
    v = _as_outer_dim_inner(x, dim)
    outer, size, inner = v.shape
    z = np.subtract(v, v.max(axis=1, keepdims=True))
    # (PyTorch 2.13 splits the positions among its threads however few there are: measured)
    vec = _vector_math.inner_vector_mask(outer, inner, 1)[:, None, :]
    e = np.where(vec, _vector_math.expf(z), _libm.exp(z))
    total = running_sum(e, axis=1)[:, None, :]
    return np.divide(e, total, out=e).reshape(x.shape)


def _log_softmax_inner(x, dim):
    """PyTorch's float32 log_softmax along a dim other than the last (``_vec_logsoftmax``):
    x - max - log(running sum of exp(x - max)); the exp is SLEEF's in the whole vectors of
    each chunk of inner positions, the C library's in its remainder. (Its log is SLEEF's
    too, replayed here correctly rounded.)"""
    v = _as_outer_dim_inner(x, dim)
    outer, size, inner = v.shape
    m = v.max(axis=1, keepdims=True)
    z = np.subtract(v, m)
    chunk = (131072 // size // 4) // VEC_LANES * VEC_LANES or VEC_LANES  # (128 KB blocks)
    pos = np.arange(inner) % chunk
    width = np.minimum(chunk, inner - (np.arange(inner) - pos))  # (its chunk's length)
    vec = (pos < width - width % VEC_LANES)[None, None, :]
    e = np.where(vec, _vector_math.expf(z), _libm.exp(z))
    log_sum = _libm.log(running_sum(e, axis=1))[:, None, :]
    out = np.subtract(v, m)
    return np.subtract(out, log_sum, out=out).reshape(x.shape)


def _half_softmax_array(x, dim):
    """A float16 softmax as PyTorch's CPU kernels compute it.

    NOTE: both work in float32; along the last dim the quotient is rounded once, along another
    dim the exponentials are first stored as half (in the output) and then divided by the
    float32 sum."""
    x = x.astype(np.float32)
    e = np.exp(np.subtract(x, _max(x, dim, keepdims=True)))
    total = _sum(e, axis=dim, keepdims=True)
    if dim % x.ndim != x.ndim - 1:
        e = e.astype(np.float16).astype(np.float32)
    return np.divide(e, total, out=e).astype(np.float16)


def _log_softmax_array(x, dim):
    """(x - max) - log(sum(exp(x - max))) for an array of 1 or more dims."""
    if not x.size:
        return x.copy()
    if x.dtype == np.float16:  # NOTE: PyTorch computes a half log_softmax in float32
        return _log_softmax_array(x.astype(np.float32), dim).astype(np.float16)
    if _lastdim_kernel(x, dim):
        return _log_softmax_lastdim(x)
    if _inner_kernel(x):
        return _log_softmax_inner(x, dim)
    shifted = np.subtract(x, _max(x, dim, keepdims=True))
    s = _sum(np.exp(shifted), axis=dim, keepdims=True)
    return np.subtract(shifted, np.log(s, out=s), out=shifted)


def _backward_sum(a, dim):
    """The sums of ``a`` along ``dim`` (kept) as a softmax backward takes them: in the vector
    order of PyTorch's last-dim kernel where it applies (float32, the last dim; PyTorch makes
    the gradient contiguous first), else NumPy's."""
    if a.dtype is _F32 and dim % a.ndim == a.ndim - 1:
        rows = a.reshape(-1, a.shape[-1])
        return vec_sum_lastdim(rows, VEC_LANES).reshape(a.shape[:-1] + (1,))
    return _sum(a, axis=dim, keepdims=True)


def _saved_output(ctx, ga):
    """The array of the one saved output (a softmax's), when an array backward applies to
    it with gradient array ``ga``: n-d, of ``ga``'s dtype. None otherwise."""
    (out,) = ctx.saved_tensors
    o = out._data
    return o if o.ndim and ga.dtype is o.dtype else None


class Softmax(BuiltinFunction):
    """out = exp(x) / sum(exp(x));  dx = out * (g - sum(g * out))."""
    _backward_name = "SoftmaxBackward0"
    _np_exact = True

    @staticmethod
    def forward(ctx, x, dim):
        out = _softmax_array(x, dim) if x.ndim else _softmax_array(x.reshape(1), 0).reshape(())
        ctx.save_for_backward(out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return out * (g - (g * out).sum(ctx.dim, keepdim=True)), None

    @staticmethod
    def _np_backward(ctx, ga):
        # NOTE: first-order backward on arrays, the same ufuncs as the Tensor formula (so
        # the same bits); create_graph (or 0-d) takes the Tensor formula.
        o = _saved_output(ctx, ga)
        if o is None:
            return NotImplemented
        s = _backward_sum(np.multiply(ga, o), ctx.dim)
        d = np.subtract(ga, s)
        return np.multiply(o, d, out=d), None


class LogSoftmax(BuiltinFunction):
    """out = x - logsumexp(x);  dx = g - exp(out) * sum(g)."""
    _backward_name = "LogSoftmaxBackward0"
    _np_exact = True

    @staticmethod
    def forward(ctx, x, dim):
        out = _log_softmax_array(x, dim) if x.ndim else \
            _log_softmax_array(x.reshape(1), 0).reshape(())
        ctx.save_for_backward(out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g - out.exp() * g.sum(ctx.dim, keepdim=True), None

    @staticmethod
    def _np_backward(ctx, ga):
        # NOTE: as Softmax's: arrays for first order, same ufuncs and bits
        o = _saved_output(ctx, ga)
        if o is None:
            return NotImplemented
        if o.dtype is _F32 and ctx.dim == o.ndim - 1:
            # NOTE: PyTorch's last-dim kernel: g - exp(out) * sum(g), the sum in vector
            # order and the multiply-subtract fused (one rounding); its exp is SLEEF's, which
            # differs from this correctly rounded one in ~9 % of elements (a replay of it
            # cost 10x as much: docs/performance.md)
            e = _libm.exp(o)
            wide = np.multiply(e, _backward_sum(ga, ctx.dim), dtype=np.float64)
            return np.subtract(ga, wide, out=e, dtype=np.float64, casting="same_kind"), None
        e = np.exp(o)
        e = np.multiply(e, _sum(ga, axis=ctx.dim, keepdims=True), out=e)
        return np.subtract(ga, e, out=e), None


def _softmax_input(input, dim, dtype, op):
    if not isinstance(input, Tensor):  # PyTorch's functional calls the method
        raise AttributeError(f"'{type(input).__name__}' object has no attribute '{op}'")
    if dim is _NO_DIM:
        # NOTE: only F.softmax guesses an implicit dim (with a warning); torch.softmax and
        # the method require it
        raise TypeError(f'{op}() missing 1 required positional arguments: "dim"')
    if dim is None:
        from ._arg_errors import bad_argument
        raise bad_argument(TypeError(f"{op}(): argument 'dim' must be int, not NoneType"))
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind not in "fc":
        # NOTE: PyTorch's kernel for the last dim (or a 0-d/1-d input) has its own name
        last = wrap_dim(dim, input.ndim) == (input.ndim - 1 if input.ndim else 0)
        raise NotImplementedError(f'"{op}{"_lastdim" if last else ""}_kernel_impl" not '
                                  f"implemented for "
                                  f"'{_TYPE_NAMES.get(input.dtype.name, input.dtype.name)}'")
    return input, wrap_dim(dim, input.ndim)


_NO_DIM = object()  # softmax's dim was not given


def softmax(input, dim=_NO_DIM, dtype=None, *, _stacklevel=3):
    """``exp(x) / exp(x).sum(dim)`` computed stably."""
    input, d = _softmax_input(input, dim, dtype, "softmax")
    if d != dim:  # (negative: kept as given, see keep_given)
        return keep_given(Softmax.apply(input, d), dim=dim)
    return Softmax.apply(input, d)


def log_softmax(input, dim=_NO_DIM, dtype=None, *, _stacklevel=3):
    """``log(softmax(x))`` computed stably."""
    input, d = _softmax_input(input, dim, dtype, "log_softmax")
    if d != dim:  # (negative: kept as given, see keep_given)
        return keep_given(LogSoftmax.apply(input, d), dim=dim)
    return LogSoftmax.apply(input, d)


# ---- norms ------------------------------------------------------------------------------
class VectorNorm(BuiltinFunction):
    """out = (sum |x|^p)^(1/p);  dx = g * x |x|^(p-2) / out^(p-1)."""
    _backward_name = "LinalgVectorNormBackward0"

    @staticmethod
    def forward(ctx, x, p, dims, keepdim):
        if x.dtype.kind not in "fc":
            raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor "
                               f"as input. Got {_TYPE_NAMES.get(D._FROM_NP[x.dtype].name)}")
        if (p < 0 or p == float("inf")) and 0 in [x.shape[d] for d in dims]:
            shown = int(p) if p.is_integer() else p  # PyTorch prints -1, -3.5, inf
            raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an "
                               "empty tensor because the operation does not have an identity")
        a = np.abs(x)
        if p == float("inf"):
            out = np.max(a, axis=dims, keepdims=keepdim)
        elif p == float("-inf"):
            out = np.min(a, axis=dims, keepdims=keepdim)
        elif p == 0:
            out = np.sum(a != 0, axis=dims, keepdims=keepdim).astype(a.dtype)
        elif p == 2:
            out = _norm2_trailing(a, dims, keepdim) if x.flags.c_contiguous else None
            if out is None:
                out = np.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim))
        else:
            out = _norm_p_running(a, p, dims, keepdim)
            if out is None:
                out = np.sum(a ** p, axis=dims, keepdims=keepdim) ** (1.0 / p)
        out = as_array(out).astype(a.dtype, copy=False)
        ctx.save_for_backward(x, out)
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        shape, p, g0 = x._data.shape, ctx.p, g
        g = expand_grad(g, shape, ctx.dims, ctx.keepdim)
        n = expand_grad(out, shape, ctx.dims, ctx.keepdim)
        if p == 0:
            return g * 0, None, None, None
        if p in (float("inf"), float("-inf")):
            mask = (x.abs() == n).to(g.dtype)
            count = mask.sum(ctx.dims, keepdim=True)
            return g * x.sgn() * mask / count, None, None, None
        if p == 1:
            return g * x.sgn(), None, None, None
        from .elementwise import where
        if p == 2:
            return g * where(n == 0, 0.0, x / n), None, None, None
        # g and the norm at the kept (unexpanded) shape: a NaN of the zero-norm mask then
        # reaches g's gradient even when x is empty, as in PyTorch
        g, n = (_kept(t, shape, ctx.dims, ctx.keepdim) for t in (g0, out))
        return _pnorm_grad(x, n, g, p), None, None, None


half_in_float32(VectorNorm)


def _norm_p_running(a, p, dims, keepdim):
    """The ``p``-norm (p not 0, 2 or infinite) of real float32/float64 ``a`` = |x| over
    ``dims`` as PyTorch's scalar CPU kernel takes it on one thread: ``|x|^p`` (1: ``|x|``)
    summed left to right in the reduced dims' index order, then ``^(1/p)``, all in the
    dtype. None past one thread's grain (PyTorch splits the sum) or for other dtypes."""
    dt = a.dtype
    if (dt is not _F32 and dt is not _F64) or not dims or not a.size or a.size > _GRAIN:
        return None
    kept = [d for d in range(a.ndim) if d not in dims]
    moved = a.transpose(kept + list(dims))
    rows = moved.reshape(moved.shape[:len(kept)] + (-1,))
    q = dt.type(p)
    terms = rows if p == 1 else np.power(rows, q)
    out = running_sum(terms, axis=-1, start_zero=True)
    if p != 1:
        out = np.power(out, dt.type(1) / q)
    if keepdim:
        out = out.reshape(tuple(1 if d in dims else n for d, n in enumerate(a.shape)))
    return out


def _norm2_trailing(a, dims, keepdim):
    """The 2-norm of real float32/float64 ``a`` (of a C-contiguous input) over its trailing
    ``dims`` as PyTorch's vectorised CPU kernel takes it: per row, one running sum of squares
    per vector lane over the whole vectors, those lanes added left to right, then the tail's
    squares, then the square root. None where that kernel does not run (layouts, dtypes)."""
    dt = a.dtype
    if (dt is not _F32 and dt is not _F64) or not a.flags.c_contiguous or not dims or \
            dims != tuple(range(a.ndim - len(dims), a.ndim)) or not a.size:
        return None
    # NOTE: PyTorch registers its norm kernel without an AVX-512 variant: AVX2 vectors
    lanes = 8 if dt is _F32 else 4
    kept = a.shape[:a.ndim - len(dims)]
    n = 1
    for d in dims:
        n *= a.shape[d]
    sq = a.reshape(-1, n)
    sq = sq * sq
    rows, n = sq.shape
    nv = n // lanes
    if nv:
        acc = running_sum(sq[:, :nv * lanes].reshape(rows, nv, lanes), axis=1)
    else:
        acc = np.zeros((rows, lanes), dt)
    out = np.sqrt(running_sum(np.concatenate([acc, sq[:, nv * lanes:]], axis=1), axis=1))
    return out.reshape(kept + (1,) * len(dims) if keepdim else kept)


def _kept(t, shape, dims, keepdim):
    """A reduction's output ``t`` reshaped to keepdim form (size 1 over ``dims``)."""
    if keepdim or not dims:
        return t
    return t.reshape([1 if i in dims else k for i, k in enumerate(shape)])


def _pnorm_grad(x, n, g, p):
    """dx = g x|x|^(p-2) / n^(p-1) for a general ``p``, split (as PyTorch) so that its own
    derivative matches PyTorch's, NaNs included, at zero entries and zero norms."""
    from .elementwise import where
    if p < 1:  # |x|^(p-1) is infinite at x == 0: those entries get 0 (a subgradient)
        scaled = where(x == 0, 0.0, x.sgn() * x.abs().pow(p - 1))
        return scaled * g * n.pow(1 - p)
    # x|x|^(p-2) is finite at 0 for p >= 2; for 1 < p < 2 write it sgn(x)|x|^(p-1).
    scaled = x.sgn() * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
    # A zero norm (all entries 0) gets a zero gradient. The 1/n factor multiplies g only, not
    # ``scaled``: a zero gradient then reaches x through ``scaled`` rather than a 0/0, and
    # what reaches n (NaN) is masked again by n's own backward, so d2/dx2 is 0 as PyTorch's.
    scale = where(n == 0, 0.0, g / n.pow(p - 1))
    return scaled * scale


VECTOR_NORM_SIGNATURES = ["(Tensor input, Number ord = 2, tuple of ints dim = None, bool "
                          "keepdim = False, *, torch.dtype dtype = None, Tensor out = None)"]


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector ``ord``-norm over ``dim`` (all elements when None)."""
    return _vector_norm(input, ord, dim, keepdim, dtype, None)


def _vector_norm(input, ord, dim, keepdim, dtype, call):
    """``vector_norm``; ``call``: the ``(args, kwargs)`` PyTorch's parser sees (torch.norm's
    own call), or None for the user's call of ``linalg.vector_norm``."""
    try:
        if keepdim is not False and keepdim is not True or type(ord) is str:
            raise TypeError
        dims, p = _dims_arg(dim, input.ndim), float(ord)
    except (TypeError, ValueError):
        raise _vector_norm_error(input, ord, dim, keepdim, call) from None
    if dtype is not None:
        input = input.to(dtype)
    if not input._data.size and dim is not None:
        _check_empty_norm_dims(input, p, dim)
    res = VectorNorm.apply(input, p, dims, keepdim)
    if dim is None or negative(dim):  # (as given, see keep_given)
        keep_given(res, dim=None if dim is None else _given_dims(dim))
    if type(ord) is float:  # (PyTorch shows the order as given: 2.0, not 2)
        keep_given(res, ord=ord)
    return res


def _vector_norm_error(input, ord, dim, keepdim, call):
    """The parser's TypeError for a vector norm's argument of the wrong type."""
    from ._arg_errors import bad_call, parse_error
    fallback = TypeError(f"linalg_vector_norm(): invalid arguments (ord={ord!r}, dim={dim!r}, "
                         f"keepdim={keepdim!r})")
    if call is None:
        return bad_call("linalg_vector_norm", VECTOR_NORM_SIGNATURES, fallback)
    return parse_error("linalg_vector_norm", VECTOR_NORM_SIGNATURES, *call) or fallback


def _check_empty_norm_dims(input, p, dim):
    """PyTorch's error for a norm without an identity (p < 0, inf) over an empty dim that
    the user named (the first such, as given)."""
    if not (p < 0 or p == float("inf")):
        return
    for d in dim if isinstance(dim, (list, tuple)) else (dim,):
        if input._data.shape[wrap_dim(d, input.ndim)] == 0:
            shown = int(p) if p.is_integer() else p  # PyTorch prints -1, -3.5, inf
            raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on the "
                               f"dimension {d}because this dimension is empty and the "
                               "operation does not have an identity")


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """``torch.norm``: Frobenius / vector p-norms, and the nuclear norm of matrices.

    As PyTorch's dispatch: 'fro' over at most two dims is the vector 2-norm; any other
    string (or 'fro' over more dims) goes to ``linalg.matrix_norm``, which checks it."""
    # (PyTorch's torch.norm makes an int dim a list and calls the linalg norms positionally)
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return _vector_norm(input, 2, dims, keepdim, dtype,
                                ((input, 2, dims, keepdim), {"dtype": dtype}))
        from ..linalg import matrix_norm
        dims = tuple(range(input.ndim)) if dim is None else dims
        return matrix_norm(input, p, dims, keepdim, dtype=dtype)
    p = 2.0 if p is None else p
    return _vector_norm(input, p, dims, keepdim, dtype,
                        ((input, p, dims, keepdim), {"dtype": dtype}))


# ---- boolean reductions -----------------------------------------------------------------
def all(input, dim=None, keepdim=False, *, out=None):
    """True where every element (over ``dim``) is nonzero."""
    if out is not None:
        return write_out(out, all(input, dim, keepdim))
    x = input._data
    # NOTE: an empty dim list reduces nothing here (sum's reduces everything)
    axis = None if dim is None else () if isinstance(dim, (tuple, list)) and not dim else \
        _dims_arg(dim, x.ndim)
    try:
        res = as_array(np.all(x, axis=axis, keepdims=keepdim))
    except Unbatchable:
        return _batched_reduction(all, input, dim, keepdim)
    return _make(res if x.dtype != np.uint8 else res.astype(np.uint8), None, False)


def any(input, dim=None, keepdim=False, *, out=None):
    """True where some element (over ``dim``) is nonzero."""
    if out is not None:
        return write_out(out, any(input, dim, keepdim))
    x = input._data
    # NOTE: an empty dim list reduces nothing here (sum's reduces everything)
    axis = None if dim is None else () if isinstance(dim, (tuple, list)) and not dim else \
        _dims_arg(dim, x.ndim)
    try:
        res = as_array(np.any(x, axis=axis, keepdims=keepdim))
    except Unbatchable:
        return _batched_reduction(any, input, dim, keepdim)
    return _make(res if x.dtype != np.uint8 else res.astype(np.uint8), None, False)


def count_nonzero(input, dim=None):
    x = input._data
    axis = None if dim is None else _dims_arg(dim, x.ndim)
    return _make(as_array(np.count_nonzero(x, axis=axis)).astype(np.int64), None, False)
