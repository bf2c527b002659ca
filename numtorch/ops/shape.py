"""Shape ops. Views (view, transpose, permute, expand, squeeze, unsqueeze, select, narrow,
split, unbind) share memory and the version counter with their base; the rest copy.

>>> import numtorch as torch
>>> x = torch.arange(6).view(2, 3)
>>> x.t().shape, x.flatten().tolist()
(torch.Size([3, 2]), [0, 1, 2, 3, 4, 5])
"""
import operator

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._base import BuiltinFunction
from ..autograd._saved_attrs import keep_given, negative
from ..autograd.grad_mode import STATE
from ._util import (index_argument, int_argument, reshape_array, result_np, sum_to_shape_array,
                    tp_name, wrap_dim, wrap_dims)

_make = Tensor._make


def _infer_shape(shape, numel, op="view"):
    """Resolve one ``-1`` in ``shape`` and check the element count (PyTorch's errors)."""
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for i, s in enumerate(shape):
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape "
                                   f"[{', '.join(map(str, shape))}]")
            known *= s
    if neg:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape "
                               f"[{', '.join(map(str, shape))}] because the unspecified "
                               "dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input "
                               f"of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of "
                           f"size {numel}")
    return tuple(shape)


def _shape_args(shape, op=None, arg=None):
    """The ints of a shape given as ints or as one sequence. An entry that is no integer
    gets PyTorch's parser error for the user's call (``_arg_errors``): a float is no size.
    ``op`` and ``arg`` name the call in that error where it cannot be rebuilt."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    for s in shape:
        if type(s) is not int:
            # (a bool after the first entry is an int to PyTorch's parser)
            return tuple(s if type(s) is int else int(s) if i and type(s) is bool else
                         index_argument(s, op, arg or "size") for i, s in enumerate(shape))
    return tuple(shape)


def _int_list(value, op, name):
    """``value`` for an ``int[]`` parameter (an int, or a list or tuple of ints; NumPy ints
    and 0-dim integer tensors read as ints); PyTorch's parser error for the user's call
    otherwise (a float, a bool, a string: ``roll(): argument 'shifts' (position 1) must be
    tuple of ints, not float``)."""
    if type(value) is int:
        return value
    if isinstance(value, (list, tuple)):
        if all(type(v) is int for v in value):
            return tuple(value)
        return tuple(int(v) if i and type(v) is bool else int_argument(v, op, name)
                     for i, v in enumerate(value))
    return int_argument(value, op, name)


_index = operator.index
_VIEW_SIGNATURES = ("(torch.dtype dtype)", "(tuple of ints size)")


class View(BuiltinFunction):
    """out = x viewed as ``shape`` (no copy);  dx = g reshaped back."""
    _backward_name = "ViewBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.shape = x.shape
        out = x.view()
        try:
            out.shape = shape
        except AttributeError:
            raise RuntimeError("view size is not compatible with input tensor's size and stride "
                               "(at least one dimension spans across two contiguous subspaces)."
                               " Use .reshape(...) instead.") from None
        return out

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.shape), None

    @staticmethod
    def _np_backward(ctx, d):
        return reshape_array(d, ctx.shape), None


class ReshapeAlias(View):
    """``reshape`` of a non-contiguous input that a view can express (PyTorch's
    ``_reshape_alias``): View under another node name."""
    _backward_name = "ReshapeAliasBackward0"


class Reshape(BuiltinFunction):
    """out = copy of x in ``shape`` (when no view is possible);  dx = g reshaped back."""
    _backward_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, x, shape):
        ctx.shape = x.shape
        return np.reshape(x, shape).copy()

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.shape), None

    @staticmethod
    def _np_backward(ctx, d):
        return reshape_array(d, ctx.shape), None


def _viewable(x, shape):
    v = x.view()
    try:
        v.shape = shape
        return True
    except AttributeError:
        return False


def view(input, *shape, **kwargs):
    """A view of ``input`` with a new shape (or a reinterpretation as another dtype)."""
    if kwargs or not shape:
        return _view_keyword(input, shape, kwargs)
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        return _view_dtype(input, shape[0])
    try:
        sizes = _shape_args(shape, "view", "size")
    except (TypeError, ValueError) as e:
        if "failed to unpack" in str(e):
            raise
        if len(shape) == 1 and type(shape[0]) is type and shape[0] in (float, int, bool,
                                                                        complex):
            return _view_dtype(input, D.to_dtype(shape[0]))  # PyTorch reads these as dtypes
        from ._util import invalid_arguments
        raise invalid_arguments("view", shape, {}, _VIEW_SIGNATURES) from None
    return View.apply(input, _infer_shape(sizes, input._data.size))


def _view_keyword(input, args, kwargs):
    """``view(size=...)`` or ``view(dtype=...)``; PyTorch's parser error for other keywords."""
    if not args and len(kwargs) == 1:
        value = next(iter(kwargs.values()))
        if "dtype" in kwargs and (isinstance(value, D.dtype) or type(value) is type and
                                  value in (float, int, bool, complex)):
            return _view_dtype(input, D.to_dtype(value))
        if "size" in kwargs and isinstance(value, (list, tuple)):
            return view(input, value)
    from ._util import invalid_arguments
    raise invalid_arguments("view", args, kwargs, _VIEW_SIGNATURES)


def _view_dtype(input, dtype):
    """``input``'s bytes read as ``dtype``; between sizes, the last dim shrinks or grows."""
    if dtype.itemsize != input._data.itemsize:
        _check_view_dtype(input, dtype)
    t = _make(input._data.view(dtype.np), None, False)
    t._vc, t._base = input._vc, input if input._base is None else input._base
    return t


def _check_view_dtype(input, dtype):
    """PyTorch's conditions for viewing as a dtype of another element size."""
    what = (f" to view {D.SCALAR_NAMES[input.dtype]} as {D.SCALAR_NAMES[dtype]} (different "
            "element sizes)")
    if input.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0{what}")
    ratio = dtype.itemsize // input._data.itemsize
    strides = input.stride()
    if ratio > 1:
        if input.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio}{what}, but got "
                               f"{input.shape[-1]}")
    if strides[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1{what}, but got {strides[-1]}")
    if ratio > 1:
        if input.storage_offset() % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio}{what}, but "
                               f"got {input.storage_offset()}")
        for i, st in enumerate(strides[:-1]):
            if st % ratio:
                raise RuntimeError(f"self.stride({i}) must be divisible by {ratio}{what}, but "
                                   f"got {st}")


def reshape(input, *args, **kwargs):
    """``torch.reshape(input, shape)``: ``shape`` is one sequence (an int is refused, as
    PyTorch's parser refuses it); ``Tensor.reshape`` also takes the sizes unpacked.

    >>> import numtorch as torch
    >>> torch.reshape(torch.arange(6), (2, 3)).shape
    torch.Size([2, 3])
    """
    return _reshape(input, _dims_argument("reshape", input, args, kwargs, False, "shape"))


def reshape_method(self, *shape, **kwargs):
    """``Tensor.reshape(*shape)``: the sizes as ints or as one sequence (or ``shape=``)."""
    if kwargs or not shape or len(shape) > 1 and type(shape[0]) is not int:
        shape = (_dims_argument("reshape", self, shape, kwargs, True, "shape"),)
    try:
        sizes = _shape_args(shape, "reshape", "shape")
    except TypeError:  # (an entry that is no int: the parser's wording for the call)
        _dims_argument("reshape", self, shape, kwargs, True, "shape")
        raise
    return _reshape(self, sizes)


def _reshape(input, shape):
    """``input`` in a new shape: a view when the layout allows it, else a copy."""
    shape = _infer_shape(shape, input._data.size, "reshape")
    if _viewable(input._data, shape):
        if input._data.flags.c_contiguous:
            return View.apply(input, shape)
        return ReshapeAlias.apply(input, shape)
    if input._rg and STATE.enabled:
        # NOTE: PyTorch's graph: a contiguous clone (CloneBackward0), then _unsafe_view of it
        # (UnsafeViewBackward0), which aliases that fresh clone instead of copying again
        from .linalg import UnsafeView
        return UnsafeView.apply(contiguous(input), shape)
    return Reshape.apply(input, shape)


def _other_tensor(other, op):
    if not isinstance(other, Tensor):
        from ._util import not_a_tensor
        raise not_a_tensor(op, other, "other")


def view_as(input, other):
    _other_tensor(other, "view_as")
    return view(input, other._data.shape)


def reshape_as(input, other):
    _other_tensor(other, "reshape_as")
    return reshape(input, other._data.shape)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` into one."""
    shape = input._data.shape
    if not shape:
        wrap_dim(start_dim, 0), wrap_dim(end_dim, 0)  # PyTorch's range error
        return reshape(input, (1,))
    s, e = wrap_dim(start_dim, len(shape)), wrap_dim(end_dim, len(shape))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(input, shape[:s] + (n,) + shape[e + 1:])


def unflatten(input, dim, sizes):
    d = wrap_dim(dim, input.ndim)
    shape = input._data.shape
    if not isinstance(sizes, (list, tuple)):  # (a bare int is no list here)
        from ._arg_errors import bad_argument
        raise bad_argument(TypeError(f"unflatten(): argument 'sizes' must be tuple of ints, "
                                     f"not {type(sizes).__name__}"))
    sizes = tuple(s if type(s) is int else int(s) if i and type(s) is bool else
                  int_argument(s, "unflatten", "sizes") for i, s in enumerate(sizes))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be "
                           "inferred")
    known = int(np.prod([s for s in sizes if s != -1]))
    if (-1 not in sizes and known != shape[d]) or (-1 in sizes and (known == 0 or
                                                                   shape[d] % known)):
        raise RuntimeError(f"unflatten: Provided sizes [{', '.join(map(str, sizes))}] don't "
                           f"multiply up to the size of dim {d} ({shape[d]}) in the input "
                           "tensor")
    sizes = _infer_shape(sizes, shape[d], "unflatten")
    return view(input, shape[:d] + tuple(sizes) + shape[d + 1:])


def _pixel_shuffle_array(x, r):
    """(*, C r^2, H, W) -> (*, C, H r, W r) on an array (a fresh contiguous copy)."""
    *lead, c, h, w = x.shape
    n = len(lead)
    y = x.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    y = y.transpose(tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return np.ascontiguousarray(y).reshape(tuple(lead) + (c // (r * r), h * r, w * r))


def _pixel_unshuffle_array(x, r):
    """(*, C, H r, W r) -> (*, C r^2, H, W) on an array (a fresh contiguous copy)."""
    *lead, c, h, w = x.shape
    n = len(lead)
    y = x.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    y = y.transpose(tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return np.ascontiguousarray(y).reshape(tuple(lead) + (c * r * r, h // r, w // r))


class PixelShuffle(BuiltinFunction):
    """out = pixel_shuffle(x, r);  dx = pixel_unshuffle(g, r)."""
    _backward_name = "PixelShuffleBackward0"

    @staticmethod
    def forward(ctx, x, r):
        ctx.r = r
        return _pixel_shuffle_array(x, r)

    @staticmethod
    def backward(ctx, g):
        return PixelUnshuffle.apply(g, ctx.r), None


class PixelUnshuffle(BuiltinFunction):
    """out = pixel_unshuffle(x, r);  dx = pixel_shuffle(g, r)."""
    _backward_name = "PixelUnshuffleBackward0"

    @staticmethod
    def forward(ctx, x, r):
        ctx.r = r
        return _pixel_unshuffle_array(x, r)

    @staticmethod
    def backward(ctx, g):
        return PixelShuffle.apply(g, ctx.r), None


def ravel(input):
    """``input`` as 1-d: ``contiguous().view(-1)``, as PyTorch (ViewBackward0 over
    CloneBackward0 for a non-contiguous input)."""
    return view(contiguous(input), -1)


def _inverse(dims):
    """The permutation undoing ``dims`` (its argsort)."""
    return tuple(sorted(range(len(dims)), key=dims.__getitem__))


class Permute(BuiltinFunction):
    """out = x with dims reordered;  dx = g with the inverse order."""
    _backward_name = "PermuteBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return np.transpose(x, dims)

    @staticmethod
    def backward(ctx, g):
        return g.permute(_inverse(ctx.dims)), None

    @staticmethod
    def _np_backward(ctx, d):
        # NOTE: first order: the view the Tensor op would make, outside the graph
        return np.transpose(d, _inverse(ctx.dims)), None


class Transpose(BuiltinFunction):
    """out = x with two dims swapped;  dx = g swapped back."""
    _backward_name = "TransposeBackward0"
    _is_view = True
    _np_exact = True

    @staticmethod
    def forward(ctx, x, d0, d1):
        ctx.d0, ctx.d1 = d0, d1
        # (the method: np.swapaxes is a Python wrapper around it)
        return x.swapaxes(d0, d1) if x.ndim else x.view()  # 0-d: dims 0 and -1 alias

    @staticmethod
    def backward(ctx, g):
        return g.transpose(ctx.d0, ctx.d1), None, None

    @staticmethod
    def _np_backward(ctx, d):
        # NOTE: first order: the view the Tensor op would make (same strides), outside the
        # graph; no dispatch, no view node
        return (d.swapaxes(ctx.d0, ctx.d1) if d.ndim else d.view()), None, None


class T(Transpose):
    _backward_name = "TBackward0"


def permute(input, *args, **kwargs):
    """``torch.permute(input, dims)``: ``input`` with its dims reordered (a view); ``dims`` is
    one sequence (``Tensor.permute`` also takes the dims unpacked).

    >>> import numtorch as torch
    >>> torch.permute(torch.zeros(2, 3), (1, 0)).shape
    torch.Size([3, 2])
    """
    return _permute(input, _dims_argument("permute", input, args, kwargs, False))


def permute_method(self, *dims, **kwargs):
    """``Tensor.permute(*dims)``: the dims as ints or as one sequence (or ``dims=``)."""
    return _permute(self, _dims_argument("permute", self, dims, kwargs, True))


def _permute(input, dims):
    n = input.ndim
    if len(dims) != n:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    wrapped = tuple(wrap_dim(d, n) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    if negative(dims):  # (kept as given, see keep_given)
        return keep_given(Permute.apply(input, wrapped), dims=tuple(dims))
    return Permute.apply(input, wrapped)


def transpose(input, dim0, dim1):
    """Swap two dims (a view)."""
    n = input.ndim
    if negative((dim0, dim1)):  # (kept as given, see keep_given)
        return keep_given(Transpose.apply(input, wrap_dim(dim0, n), wrap_dim(dim1, n)),
                          dim0=dim0, dim1=dim1)
    return Transpose.apply(input, wrap_dim(dim0, n), wrap_dim(dim1, n))


def swapaxes(input, axis0, axis1):
    """``transpose`` under NumPy's name and argument names."""
    return transpose(input, axis0, axis1)


def swapdims(input, dim0, dim1):
    """``transpose`` under another name."""
    return transpose(input, dim0, dim1)


def t(input):
    """Transpose a matrix (0-d and 1-d tensors are returned as they are)."""
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.ndim}D")
    if input.ndim < 2:
        return T.apply(input, 0, 0)
    return T.apply(input, 0, 1)


_T_WARNINGS = {
    "nd": "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
          "deprecated and it will throw an error in a future release. Consider `x.mT` to "
          "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
          "reverse the dimensions of a tensor. (Triggered internally at "
          "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)",
    "0d": "Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
          "cases. (Triggered internally at "
          "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)",
    "H": "Tensor.H is deprecated on 0-D tensors. Consider using x.conj(). (Triggered "
         "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4335.)",
    "mT": "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these "
          "cases. (Triggered internally at "
          "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4373.)",
    "mH": "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj(). (Triggered "
          "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4382.)",
    "adjoint": "adjoint() is deprecated on 0-D tensors. Consider using x.conj(). (Triggered "
               "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4390.)",
}
_t_warned = set()  # PyTorch warns once per process about each


def warn_transpose_once(kind):
    """PyTorch's deprecation warning ``kind`` (of ``_T_WARNINGS``: x.T, x.mT ... on a tensor
    that is no matrix), the first time only, at the user's line."""
    if kind not in _t_warned:
        from ._util import warn_user
        _t_warned.add(kind)
        warn_user(_T_WARNINGS[kind])


def T_property(input):
    n = input.ndim
    if n == 2:
        return Permute.apply(input, (1, 0))
    warn_transpose_once("0d" if n == 0 else "nd")
    return Permute.apply(input, tuple(range(n - 1, -1, -1)))


def check_matrices(input, what):
    """PyTorch's refusal of ``what`` (``tensor.mT`` ...) on a 1-d tensor; True for a 0-d one
    (deprecated: the caller warns and returns the tensor itself, or its conjugate)."""
    if input.ndim == 1:
        raise RuntimeError(f"{what} is only supported on matrices or batches of matrices. "
                           "Got 1-D tensor.")
    return input.ndim == 0


def mT(input):
    """``x.mT``: the last two dims swapped."""
    if input.ndim < 2 and check_matrices(input, "tensor.mT"):
        warn_transpose_once("mT")
        return input
    return transpose(input, -2, -1)


def movedim(input, source, destination):
    """``input`` with the dims at ``source`` moved to ``destination`` (others keep order)."""
    n = input.ndim
    source = list(source) if isinstance(source, (tuple, list)) else [source]
    destination = list(destination) if isinstance(destination, (tuple, list)) else [destination]
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({source} dims)"
                           f" should contain the same number of dims as destination "
                           f"({destination} dims)")
    src = [wrap_dim(d, n) for d in source]
    dst = [wrap_dim(d, n) for d in destination]
    for name, given, dims in (("source", source, src), ("destination", destination, dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    order = [d for d in range(n) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, order)


moveaxis = movedim


class Expand(BuiltinFunction):
    """out = x broadcast to ``shape`` (a view);  dx = g summed over the broadcast dims."""
    _backward_name = "ExpandBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.shape = x.shape
        if shape == x.shape:   # nothing broadcast: a writable view, as PyTorch's
            return x.view()
        return np.broadcast_to(x, shape)

    @staticmethod
    def backward(ctx, g):
        from .reduction import sum_to_shape
        return sum_to_shape(g, ctx.shape), None

    @staticmethod
    def _np_backward(ctx, d):
        return sum_to_shape_array(d, ctx.shape), None


def expand(input, *sizes):
    """Broadcast ``input`` to ``sizes`` without copying; -1 keeps a dim."""
    return Expand.apply(input, expand_shape(input._data.shape, _shape_args(sizes),
                                            input.dtype))


def expand_shape(shape, sizes, dtype):
    """The shape that ``expand`` gives a ``dtype`` tensor of ``shape`` for ``sizes`` (-1 keeps
    a dim), or PyTorch's error, checked from the last dim as PyTorch does."""
    if len(sizes) < len(shape):
        dims = ", ".join(map(str, shape))
        raise RuntimeError(f"expand(torch.{D.LEGACY_NAMES[dtype]}{{[{dims}]}}, "
                           f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided "
                           f"({len(sizes)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    final = [None] * len(sizes)
    for i in range(len(sizes) - 1, -1, -1):  # from the last dim, as PyTorch checks
        s = sizes[i]
        cur = shape[i - lead] if i >= lead else None
        if s == -1:
            if cur is None:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            s = cur
        elif cur is not None and cur != s and cur != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({cur}) at non-singleton dimension {i}.  Target sizes: "
                               f"[{', '.join(map(str, sizes))}].  Tensor sizes: "
                               f"[{', '.join(map(str, shape))}]")
        final[i] = s
    if min(final, default=0) < 0 and 0 not in final:
        # (PyTorch multiplies the sizes as unsigned numbers: a negative one overflows)
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(final)


def expand_as(input, other):
    _other_tensor(other, "expand_as")
    return expand(input, other._data.shape)


def broadcast_to(input, shape):
    return expand(input, shape)


def broadcast_tensors(*tensors):
    """Expand ``tensors`` to their common shape (PyTorch's error where there is none)."""
    shapes = [t._data.shape for t in tensors]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        from .linalg import _broadcast_batch  # (ops.linalg imports this module)
        shape = shapes[0]
        for s in shapes[1:]:  # PyTorch's infer_size, pair by pair, raises its message
            shape = _broadcast_batch(shape, s)
        raise
    # PyTorch hands back an input already of the common shape itself (no ExpandBackward0 node:
    # ``mse_loss(out, target).grad_fn.next_functions`` names the op that made ``out``)
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


def broadcast_shapes(*shapes):
    """The shape that all ``shapes`` (ints or sequences of ints) broadcast to.

    >>> import numtorch as torch
    >>> torch.broadcast_shapes((2, 1), (3,))
    torch.Size([2, 3])
    """
    from .._size import Size
    shapes = [(s,) if isinstance(s, (int, np.integer)) else s for s in shapes if s is not None]
    for s in shapes:
        if not isinstance(s, (tuple, list)):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {s}")
    common = [1] * max((len(s) for s in shapes), default=0)
    # NOTE: PyTorch walks each shape right to left, growing ``common`` as it goes; its error
    # shows ``common`` as it stood at the failing argument
    for arg, s in enumerate(shapes):
        for i in range(-1, -1 - len(s), -1):
            if s[i] == common[i]:
                continue
            if common[i] == 1:
                if s[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = s[i]
            if s[i] != 1 and common[i] != s[i]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[i]} at "
                                   f"{i}! Mismatching argument at index {arg} had {s}; but "
                                   f"expected shape should be broadcastable to {common}")
    return Size(common)


class Squeeze(BuiltinFunction):
    """out = x without the given size-1 dims;  dx = g reshaped back."""
    _backward_name = "SqueezeBackward1"
    _is_view = True

    @staticmethod
    def forward(ctx, x, dims):
        ctx.shape, ctx.dims = x.shape, dims  # (dims: grad_fn._saved_dim)
        dims = tuple(d for d in dims if x.shape[d] == 1)
        return np.squeeze(x, axis=dims) if dims else x.view()

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.shape), None

    @staticmethod
    def _np_backward(ctx, d):
        return reshape_array(d, ctx.shape), None


class SqueezeAll(Squeeze):
    _backward_name = "SqueezeBackward0"


class SqueezeDims(Squeeze):
    _backward_name = "SqueezeBackward2"


class _AllDims:
    """The default of ``squeeze``'s ``dim``: every dim (an explicit None is refused)."""
    __slots__ = ()

    def __repr__(self):
        return "None"


_ALL_DIMS = _AllDims()


def squeeze(input, dim=_ALL_DIMS):
    """Remove size-1 dims (all of them, or those in ``dim``)."""
    n = input.ndim
    if dim is None:  # PyTorch's parser: no overload takes None
        from ._arg_errors import bad_argument
        raise bad_argument(TypeError("squeeze(): argument 'dim' must be int, not NoneType"))
    if dim is _ALL_DIMS:
        return SqueezeAll.apply(input, tuple(i for i, s in enumerate(input._data.shape)
                                             if s == 1))
    dims = wrap_dims(dim, n)  # a 0-d tensor takes dim 0 or -1 (PyTorch's range error else)
    if not n:
        dims = ()
    if isinstance(dim, (tuple, list)):
        return SqueezeDims.apply(input, dims)
    if negative(dim):  # (kept as given, see keep_given)
        return keep_given(Squeeze.apply(input, dims), dim=dim)
    return Squeeze.apply(input, dims)


class Unsqueeze(BuiltinFunction):
    """out = x with a new size-1 dim;  dx = g with it removed."""
    _backward_name = "UnsqueezeBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        # (what np.expand_dims does for one dim, less its Python wrapper: the same view)
        out = x.reshape(x.shape[:dim] + (1,) + x.shape[dim:])
        if not x.flags.c_contiguous:
            out = _unsqueeze_strides(x, out, dim)
        return out

    @staticmethod
    def backward(ctx, g):
        return g.squeeze(ctx.dim), None

    @staticmethod
    def _np_backward(ctx, d):
        return np.squeeze(d, axis=(ctx.dim,)), None


def _unsqueeze_strides(x, out, dim):
    """``out`` (``x`` unsqueezed at ``dim`` by NumPy) with PyTorch's strides: those of ``x``,
    and for the new dim the size times the stride of the dim it lands before (1 element at
    the end).

    NOTE: NumPy picks another stride for it when ``x`` is not contiguous; the memory read
    is the same either way, but ``stride()`` shows it."""
    want = x.strides[dim] * x.shape[dim] if dim < x.ndim else x.itemsize
    strides = x.strides[:dim] + (want,) + x.strides[dim:]  # (NumPy may change a size-1 one)
    if out.strides == strides:
        return out
    return np.lib.stride_tricks.as_strided(out, strides=strides, writeable=out.flags.writeable)


def unsqueeze(input, dim):
    """Insert a size-1 dim at ``dim``."""
    if negative(dim):  # (kept as given, see keep_given)
        return keep_given(Unsqueeze.apply(input, wrap_dim(dim, input.ndim + 1)), dim=dim)
    return Unsqueeze.apply(input, wrap_dim(dim, input.ndim + 1))


class Select(BuiltinFunction):
    """out = x[..., index, ...] along ``dim`` (a view);  dx = g placed at the index."""
    _backward_name = "SelectBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.shape, ctx.dim, ctx.index = x.shape, dim, index
        key = (slice(None),) * dim + (index, Ellipsis)  # ... keeps a 0-d result a view
        return x[key]

    @staticmethod
    def backward(ctx, g):
        key = (slice(None),) * ctx.dim + (ctx.index,)
        return place(g, ctx.shape, key), None, None

    @staticmethod
    def _np_backward(ctx, d):
        return place_array(d, ctx.shape, (slice(None),) * ctx.dim + (ctx.index,)), None, None


def select(input, dim, index):
    """The slice at ``index`` along ``dim``, with that dim removed (a view)."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim)
    size = input._data.shape[d]
    if type(index) is not int:
        index = index_argument(index, "select", "index")
    if index < -size or index >= size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"[{', '.join(map(str, input._data.shape))}] at dimension {d}")
    if d != dim or index < 0:  # (negative: kept as given, see keep_given)
        return keep_given(Select.apply(input, d, index % size if size else index), dim=dim,
                          index=index)
    return Select.apply(input, d, index % size if size else index)


class Narrow(BuiltinFunction):
    """out = x[start:start+length] along ``dim`` (a view);  dx = g placed in that range."""
    _backward_name = "SliceBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, dim, start, length):
        ctx.shape = x.shape
        ctx.key = (slice(None),) * dim + (slice(start, start + length),)
        return x[ctx.key]

    @staticmethod
    def backward(ctx, g):
        return place(g, ctx.shape, ctx.key), None, None, None


def narrow(input, dim, start, length):
    d = wrap_dim(dim, input.ndim)
    size = input._data.shape[d]
    if type(start) is not int or type(length) is not int:
        start, length = _narrow_ints(start, length)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    if d != dim:  # (negative: kept as given, see keep_given)
        return keep_given(Narrow.apply(input, d, start, int(length)), dim=dim)
    return Narrow.apply(input, d, start, int(length))


def _narrow_ints(start, length):
    """``narrow``'s start and length as ints: PyTorch takes a SymInt or a 0-dim integer
    tensor as ``start``, a SymInt as ``length`` (else its parser's error)."""
    if isinstance(start, Tensor):
        if start.ndim != 0 or start._data.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start._data)
    elif type(start) is not int:
        start = index_argument(start, "narrow", "start")
    if type(length) is not int:
        length = index_argument(length, "narrow", "length")
    return start, length


class Place(BuiltinFunction):
    """out = zeros(shape) with g at ``key``;  dg = gg[key]. The backward of basic indexing."""
    _backward_name = "SliceScatterBackward0"

    @staticmethod
    def forward(ctx, g, shape, key):
        ctx.key = key
        out = np.zeros(shape, g.dtype)
        out[key] = g
        return out

    @staticmethod
    def backward(ctx, gg):
        from .indexing import getitem
        return getitem(gg, ctx.key), None, None


def place(g, shape, key):
    return Place.apply(g, tuple(shape), key)


def place_array(d, shape, key):
    """``place`` on a gradient's array (an array backward's): Place's forward."""
    out = np.zeros(shape, d.dtype)
    out[key] = d
    return out


class Diagonal(BuiltinFunction):
    """out = diagonal of x over (dim1, dim2) (a view);  dx = g on that diagonal."""
    _backward_name = "DiagonalBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, offset, d1, d2):
        ctx.shape, ctx.args = x.shape, (offset, d1, d2)
        out = np.diagonal(x, offset, d1, d2)
        if x.flags.writeable:  # NOTE: NumPy marks diagonal views read-only; PyTorch's are not
            out.setflags(write=True)
        return out

    @staticmethod
    def backward(ctx, g):
        return DiagEmbedInto.apply(g, ctx.shape, *ctx.args), None, None, None


class DiagEmbedInto(BuiltinFunction):
    """out = zeros(shape) with g on the diagonal;  dg = diagonal of gg."""
    _backward_name = "DiagonalBackwardBackward0"

    @staticmethod
    def forward(ctx, g, shape, offset, d1, d2):
        ctx.args = (offset, d1, d2)
        out = np.zeros(shape, g.dtype)
        diag = np.diagonal(out, offset, d1, d2)
        diag.setflags(write=True)
        diag[...] = g
        return out

    @staticmethod
    def backward(ctx, gg):
        return diagonal(gg, *ctx.args), None, None, None, None


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal at ``offset`` of the 2-d slices spanned by ``dim1`` and ``dim2``."""
    n = input.ndim
    if type(offset) is not int:
        offset = int_argument(offset, "diagonal", "offset")
    if wrap_dim(dim1, n) == wrap_dim(dim2, n):
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(input, offset, wrap_dim(dim1, n), wrap_dim(dim2, n))


class Clone(BuiltinFunction):
    """out = copy of x (keeping its layout; C-contiguous with order 'C'; channels-last, NHWC
    in memory, with order 'CL'; NDHWC with 'CL3');  dx = g."""
    _backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x, order="K"):
        if order == "CL":
            return np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
        if order == "CL3":
            return np.ascontiguousarray(x.transpose(0, 2, 3, 4, 1)).transpose(0, 4, 1, 2, 3)
        if order == "K" and 0 in x.strides and _expanded(x):  # elements sharing memory
            return _dense_copy(x)
        return np.array(x, copy=True, order=order)

    @staticmethod
    def backward(ctx, g):
        return g


def _dense_copy(x):
    """A dense copy of ``x`` with its dims laid out in memory as PyTorch's preserve_format
    lays out a tensor that is not dense: by increasing stride, where a dim of stride 0 keeps
    its place (it compares equal to every other), equal strides putting the smaller size
    inner.

    NOTE: NumPy's order 'K' would move the stride-0 dims innermost instead."""
    st, shape, n = x.strides, x.shape, x.ndim

    def after(a, b):  # dim a goes outside dim b (PyTorch's should_swap(a, b) > 0)
        if st[a] == 0 or st[b] == 0:
            return False
        return st[a] > st[b] or (st[a] == st[b] and shape[a] > shape[b])

    perm = list(range(n - 1, -1, -1))  # innermost first, as a contiguous tensor's
    for i in range(1, n):  # a stable insertion sort (stride-0 dims stop nothing)
        cur = i
        for j in range(i - 1, -1, -1):
            if after(perm[j], perm[cur]):
                perm[j], perm[cur] = perm[cur], perm[j]
                cur = j
            elif st[perm[j]] and st[perm[cur]] and (st[perm[j]] < st[perm[cur]]):
                break
    outer = perm[::-1]
    return np.array(x.transpose(outer), order="C").transpose(np.argsort(outer))


def _expanded(x):
    """Whether ``x`` has a dim of size 2 or more and stride 0."""
    return any(st == 0 and n > 1 for st, n in zip(x.strides, x.shape))


def _memory_order(input, memory_format):
    """Clone's order for a ``memory_format`` (None and preserve_format keep the layout)."""
    from .._device import channels_last, channels_last_3d, contiguous_format
    if memory_format is channels_last:
        if input.ndim != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        return "CL"
    if memory_format is channels_last_3d:
        if input.ndim != 5:
            raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
        return "CL3"
    if memory_format is contiguous_format:
        return "C"
    if memory_format is None or memory_format.name == "preserve_format":
        return "K"
    raise RuntimeError(f"numtorch does not support memory format torch.{memory_format.name}")


def clone(input, *, memory_format=None):
    """A copy of ``input`` that stays in the graph, laid out as ``memory_format`` says."""
    return Clone.apply(input, _memory_order(input, memory_format))


def contiguous(input, memory_format=None):
    """``input`` itself when contiguous in ``memory_format`` (C order by default), else a copy
    that is."""
    order = "C" if memory_format is None else _memory_order(input, memory_format)
    if order in ("C", "K"):
        if input._data.flags.c_contiguous:
            return input
        return Clone.apply(input, "C")
    if input.is_contiguous(memory_format=memory_format):
        return input
    return Clone.apply(input, order)


class ToCopy(BuiltinFunction):
    """out = x converted to another dtype;  dx = g converted back."""
    _backward_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x, npdt):
        ctx.npdt = x.dtype
        if npdt.kind in "iub" and x.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                return x.astype(npdt)
        if x.dtype.kind == "c":
            from ._util import complex_to_real
            x = complex_to_real(x, npdt)
        return x.astype(npdt)

    @staticmethod
    def backward(ctx, g):
        if g._data.dtype.kind == "c" and ctx.npdt.kind != "c":
            g = g.real  # as PyTorch: a real input's gradient is the real part
        return g.to(D._FROM_NP[ctx.npdt]), None


def to_dtype(input, dtype, copy=False):
    if dtype is input.dtype and not copy:
        return input
    return ToCopy.apply(input, dtype.np)


class Cat(BuiltinFunction):
    """out = concatenation along ``dim``;  each input gets its slice of g."""
    _backward_name = "CatBackward0"

    @staticmethod
    def forward(ctx, dim, *xs):
        ctx.dim = dim
        ctx.empty = [x.ndim == 1 and x.shape[0] == 0 for x in xs]  # skipped, as PyTorch
        ctx.sizes = [x.shape[dim] if x.ndim and not e else 0 for x, e in zip(xs, ctx.empty)]
        dt = _common_np(xs)
        parts = [x.astype(dt, copy=False) for x, e in zip(xs, ctx.empty) if not e]
        if not parts:
            return np.zeros((0,), dt)
        return _cat_layout(np.concatenate(parts, axis=dim), parts)

    @staticmethod
    def backward(ctx, g):
        grads = [None]
        start = 0
        for size, empty in zip(ctx.sizes, ctx.empty):
            if empty:  # a skipped empty 1-d input: an empty gradient
                grads.append(_make(np.zeros((0,), g._data.dtype), None, False))
                continue
            grads.append(narrow(g, ctx.dim, start, size))
            start += size
        return tuple(grads)


def _cat_layout(out, xs):
    """``out`` (NumPy's concatenation, which keeps its inputs' shared layout) in PyTorch's
    layout: contiguous, unless every input is channels-last (kept then, as PyTorch does)."""
    if out.flags.c_contiguous:
        return out
    from .._layout import _dense_in_order
    for x in xs:
        order = (1, 3, 2, 0) if x.ndim == 4 else (1, 4, 3, 2, 0) if x.ndim == 5 else None
        if order is None or not _dense_in_order(x.shape, [st // x.itemsize for st in
                                                          x.strides], order):
            return np.ascontiguousarray(out)
    return out


def _common_np(xs):
    """The dtype cat/stack promote their input arrays to (one shared dtype: itself)."""
    dt = xs[0].dtype
    for x in xs:
        if x.dtype is not dt:
            return result_np(*xs)
    return dt


def _tensor_list(tensors, op):
    """``tensors`` as a list, refusing what PyTorch's parser refuses: anything but a list or
    a tuple (a lone tensor, a generator), or an entry that is no tensor."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {tp_name(tensors)}")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{tp_name(t)}")
    return tensors


def _cat_out(out, res):
    """``res`` of cat/stack written into ``out=``; PyTorch refuses a lower-category dtype
    (float into long) with a TypeError that names torch.cat for both."""
    from .elementwise import _out
    if res.dtype is not out.dtype and res.dtype.category > out.dtype.category:
        from .inplace import _type_name
        raise TypeError("torch.cat(): input types can't be cast to the desired output type "
                        f"{_type_name(out.dtype)}")
    return _out(out, res, False)


def cat(tensors, dim=0, *, out=None):
    """Concatenate tensors along an existing dim."""
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    ref = next((t for t in tensors if not (t.ndim == 1 and t._data.shape[0] == 0)), tensors[0])
    try:
        d = wrap_dim(dim, ref.ndim)
        _check_cat_shapes(tensors, ref, d)
        res = Cat.apply(d, *tensors)
        if d != dim:  # (negative: kept as given, see keep_given)
            keep_given(res, dim=dim)
    except (IndexError, RuntimeError, ValueError):
        # PyTorch refuses a 0-d tensor before its other checks (a 0-d one fails one of them)
        for i, t in enumerate(tensors):
            if not t._data.ndim:
                raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                                   "concatenated") from None
        raise
    if out is not None:
        return _cat_out(out, res)
    return res


def _check_cat_shapes(tensors, ref, d):
    rs = ref._data.shape
    for i, t in enumerate(tensors):
        s = t._data.shape
        if s == rs or len(s) == 1 and s[0] == 0:
            continue
        if len(s) != len(rs):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(rs)} and "
                               f"{len(s)}")
        for k, (a, b) in enumerate(zip(rs, s)):
            if k != d and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {a} but got size {b} for tensor number {i} "
                                   "in the list.")


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    """Join tensors of equal shape along a new dim."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"[{', '.join(map(str, shape))}] at entry 0 and "
                               f"[{', '.join(map(str, t._data.shape))}] at entry {i}")
    d = wrap_dim(dim, len(shape) + 1)
    res = Stack.apply(d, *tensors)
    if d != dim:  # (negative: kept as given, see keep_given)
        keep_given(res, dim=dim)
    if out is not None:
        return _cat_out(out, res)
    return res


class Stack(BuiltinFunction):
    """out = inputs stacked on a new dim;  each input gets its slice of g."""
    _backward_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *xs):
        ctx.dim, ctx.n = dim, len(xs)
        dt = _common_np(xs)
        return _cat_layout(np.stack([x.astype(dt, copy=False) for x in xs], axis=dim), xs)

    @staticmethod
    def backward(ctx, g):
        return (None,) + tuple(select(g, ctx.dim, i) for i in range(ctx.n))


def _stack_list(tensors, op, name=None):
    """The tensors of ``hstack``-like ``op`` as a non-empty list (PyTorch's errors for a lone
    tensor, a non-tensor entry or an empty list, which ``row_stack`` words as ``vstack``)."""
    tensors = _tensor_list(tensors, name or op)
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    return tensors


def hstack(tensors, *, out=None):
    """The tensors joined along dim 1 (dim 0 for 1-d ones)."""
    tensors = [atleast_1d(t) for t in _stack_list(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    """The tensors, made at least 2-d, joined along dim 0."""
    return cat([atleast_2d(t) for t in _stack_list(tensors, "vstack")], 0, out=out)


def row_stack(tensors, *, out=None):
    """``vstack`` under another name."""
    return vstack(_stack_list(tensors, "vstack", "row_stack"), out=out)


def dstack(tensors, *, out=None):
    """The tensors, made at least 3-d, joined along dim 2."""
    return cat([atleast_3d(t) for t in _stack_list(tensors, "dstack")], 2, out=out)


def column_stack(tensors, *, out=None):
    """The tensors joined as columns (0-d and 1-d ones become one column each)."""
    tensors = _stack_list(tensors, "column_stack")
    return hstack([t.reshape(-1, 1) if t.ndim <= 1 else t for t in tensors], out=out)


def _each(fn):
    """``fn`` for ``atleast_Nd(t)``, ``atleast_Nd(t1, t2)`` and ``atleast_Nd([t1, t2])`` (the
    last two give a tuple, as PyTorch)."""
    def call(*tensors):
        if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)):
            return fn(tensors[0])
        if len(tensors) == 1:
            tensors = tensors[0]
        return tuple(fn(t) for t in tensors)
    call.__name__ = call.__qualname__ = fn.__name__
    return call


@_each
def atleast_1d(t):
    return t.reshape(1) if t.ndim == 0 else t


@_each
def atleast_2d(t):
    if t.ndim == 0:
        return t.reshape(1, 1)
    return t.unsqueeze(0) if t.ndim == 1 else t


@_each
def atleast_3d(t):
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    if t.ndim == 2:
        return t.unsqueeze(-1)
    return t


_SPLIT_SIGNATURES = {
    "split": ["(Tensor input, int split_size, int dim = 0)",
              "(Tensor input, tuple of ints split_size, int dim = 0)"],
    "split_with_sizes": ["(Tensor input, tuple of ints split_sizes, int dim = 0)"]}


def _split_arguments(tensor, size, dim):
    """``(size, dim)`` of ``split`` as PyTorch's ``Tensor.split`` reads them: a one-element
    tensor is an int; a Python int (a bool too) calls ``split``, anything else
    ``split_with_sizes`` (a NumPy int is no list there); their parser errors otherwise."""
    from ._arg_errors import _bad_element, parser_int, parse_error
    if isinstance(size, Tensor) and size._data.size == 1:
        size = int(size._data.reshape(()))
    op = "split" if isinstance(size, int) else "split_with_sizes"
    ok = type(size) is int if op == "split" else (
        isinstance(size, (list, tuple)) and _bad_element(size) is None)
    if ok and (type(dim) is int or parser_int(dim)):
        return (size if op == "split" else [int(s) for s in size]), dim
    err = parse_error(op, _SPLIT_SIGNATURES[op], (tensor, size, dim), {})
    raise err if err is not None else AssertionError(f"split: no parser error for {size!r}")


def split(tensor, split_size_or_sections, dim=0):
    """Split into chunks of a size, or of the listed sizes, along ``dim`` (views)."""
    if type(split_size_or_sections) is not int or type(dim) is not int:
        split_size_or_sections, dim = _split_arguments(tensor, split_size_or_sections, dim)
    d = wrap_dim(dim, tensor.ndim)
    n = tensor._data.shape[d]
    if isinstance(split_size_or_sections, (int, np.integer)):
        step = int(split_size_or_sections)
        if step < 0:
            raise RuntimeError("split expects split_size be non-negative, but got "
                               f"split_size={step}")
        if step <= 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        sizes = [min(step, n - s) for s in range(0, n, step)] if n else [0]
    else:
        sizes = list(split_size_or_sections)
        if any(s < 0 for s in sizes):
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes=[{', '.join(map(str, sizes))}]")
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got split_sizes="
                               f"[{', '.join(map(str, sizes))}]")
    if isinstance(split_size_or_sections, (int, np.integer)):
        # (what PyTorch keeps: the size and dim as given, see keep_given)
        return keep_given(Split.apply(tensor, d, tuple(sizes)), dim=dim, split_size=step)
    return keep_given(SplitWithSizes.apply(tensor, d, tuple(sizes)), dim=dim,
                      split_sizes=tuple(sizes))


class Split(BuiltinFunction):
    """outs = consecutive slices of ``sizes`` along ``dim`` (views);  dx = the grads joined."""
    _backward_name = "SplitBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, dim, sizes):
        ctx.dim = dim
        starts = np.cumsum((0,) + sizes)
        lead = (slice(None),) * dim
        return tuple(x[lead + (slice(int(s), int(s) + n),)] for s, n in zip(starts, sizes))

    @staticmethod
    def backward(ctx, *grads):
        return cat(grads, ctx.dim), None, None

    @classmethod
    def _view_step(cls, rest, i):
        dim, sizes = rest
        return cls._step, (dim, sum(sizes[:i]), sizes[i], i)


class SplitWithSizes(Split):
    _backward_name = "SplitWithSizesBackward0"


class _SplitPiece(Narrow):
    """Output ``index`` of a split, replayed alone (in-place changes of it are refused)."""
    _multi_output_name = "Split"

    @staticmethod
    def forward(ctx, x, dim, start, length, index):
        return Narrow.forward(ctx, x, dim, start, length)

    @staticmethod
    def backward(ctx, g):
        return Narrow.backward(ctx, g) + (None,)


class _SplitWithSizesPiece(_SplitPiece):
    _multi_output_name = "SplitWithSizes"


Split._step = _SplitPiece
SplitWithSizes._step = _SplitWithSizesPiece


def tensor_split(input, indices_or_sections, dim=0):
    """``input`` split along ``dim`` into ``sections`` near-equal pieces, or at the listed
    ``indices`` (views)."""
    s = indices_or_sections
    if not isinstance(s, (int, np.integer, Tensor)) and not (
            isinstance(s, (list, tuple)) and all(isinstance(i, (int, np.integer)) for i in s)) \
            or isinstance(s, bool):
        from ._arg_errors import bad_argument
        raise bad_argument(TypeError(f"tensor_split(): argument 'sections' must be int, not "
                                     f"{type(s).__name__}"))
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = wrap_dim(dim, input.ndim)
    n = input._data.shape[d]
    if isinstance(indices_or_sections, Tensor):  # a 0-d tensor: sections; 1-d: indices
        t = indices_or_sections
        if t.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {t.ndim} dims")
        if t._data.dtype != np.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {D.SCALAR_NAMES[t.dtype]}")
        indices_or_sections = t.item() if t.ndim == 0 else t.tolist()
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
    else:
        # each piece is input[prev:index] with Python's slice rules (negative indices
        # count from the end, both ends clamped), so unsorted indices give empty pieces
        # and the next piece starts back at the smaller index
        bounds = [0] + [_slice_bound(int(i), n) for i in indices_or_sections] + [n]
        return tuple(Narrow.apply(input, d, a, max(b - a, 0))
                     for a, b in zip(bounds, bounds[1:]))
    out, start = [], 0
    for s in sizes:
        out.append(Narrow.apply(input, d, start, s))
        start += s
    return tuple(out)


def _slice_bound(i, n):
    """Index ``i`` as a bound of a Python slice over ``n`` items: wrapped once if negative,
    then clamped to ``[0, n]``."""
    return min(max(i + n if i < 0 else i, 0), n)


def chunk(input, chunks, dim=0):
    """Split into ``chunks`` pieces of (nearly) equal size along ``dim``."""
    if type(chunks) is not int:
        chunks = int_argument(chunks, "chunk", "chunks")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    n = input._data.shape[wrap_dim(dim, input.ndim)]
    if n == 0:  # PyTorch gives ``chunks`` empty pieces here (one, from split, otherwise)
        return split(input, [0] * chunks, dim)
    return split(input, -(-n // chunks), dim)


def unbind(input, dim=0):
    """The slices along ``dim``, each without that dim (views)."""
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim)
    if d != dim:  # (negative: kept as given, see keep_given)
        return keep_given(Unbind.apply(input, d), dim=dim)
    return Unbind.apply(input, d)


class Unbind(BuiltinFunction):
    """outs = the slices along ``dim`` (views);  dx = the grads stacked."""
    _backward_name = "UnbindBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        lead = (slice(None),) * dim
        return tuple(x[lead + (i, Ellipsis)] for i in range(x.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return stack(grads, ctx.dim), None

    @staticmethod
    def _view_step(rest, i):
        return _UnbindPiece, (rest[0], i)


class _UnbindPiece(Select):
    """Output ``index`` of an unbind, replayed alone (in-place changes of it are refused)."""
    _multi_output_name = "Unbind"


class Flip(BuiltinFunction):
    """out = x reversed along ``dims`` (a copy);  dx = g reversed back."""
    _backward_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return np.flip(x, dims).copy()

    @staticmethod
    def backward(ctx, g):
        return g.flip(ctx.dims), None


def flip(input, *args, **kwargs):
    """``torch.flip(input, dims)``: ``input`` reversed along each dim in the sequence ``dims``.

    >>> import numtorch as torch
    >>> torch.flip(torch.arange(4).view(2, 2), [1])
    tensor([[1, 0],
            [3, 2]])
    """
    return _flip(input, _dims_argument("flip", input, args, kwargs, False))


def flip_method(self, *dims, **kwargs):
    """``Tensor.flip(*dims)``: the dims as ints or as one sequence."""
    return _flip(self, _dims_argument("flip", self, dims, kwargs, True))


def _dims_argument(op, input, args, kwargs, method, name="dims"):
    """The one ``int[]`` argument ``name`` of ``op`` (``flip``, ``tile``, ``permute``,
    ``reshape``) as a tuple of ints, from the call's ``args`` and ``kwargs`` (less ``input``).
    A method takes the ints unpacked (``x.flip(0, 1)``); the function takes one sequence
    (``torch.flip(x, 1)`` is refused). PyTorch's parser errors otherwise: a missing or
    doubled argument, a float or a bool."""
    if not args and name not in kwargs:  # (checked before the keywords, as PyTorch does)
        raise TypeError(f'{op}() missing 1 required positional arguments: "{name}"')
    if kwargs:
        if name in kwargs:
            if args:
                raise TypeError(f"{op}() got multiple values for argument '{name}'")
            dims = kwargs[name]
        for k in kwargs:
            if k != name:
                raise TypeError(f"{op}() got an unexpected keyword argument '{k}'")
    else:
        dims = args if method and not isinstance(args[0], (list, tuple)) else args[0]
    if isinstance(dims, (list, tuple)) and (len(args) < 2 or dims is args) and \
            all(type(d) is int for d in dims):
        return tuple(dims)
    from ._arg_errors import parse_error, _signatures
    err = parse_error(op, _signatures(op, method), args if method else (input,) + args,
                      kwargs)
    if err is not None:
        raise err
    if isinstance(dims, (list, tuple)):  # (a bool after the first entry is an int there)
        return tuple(int(d) if i and type(d) is bool else int_argument(d, op, name)
                     for i, d in enumerate(dims))
    return (int_argument(dims, op, name),)


def _flip(input, dims):
    wrapped = wrap_dims(dims, input.ndim)
    res = Flip.apply(input, wrapped if input.ndim else ())  # (a 0-d tensor takes dim 0)
    return keep_given(res, dims=dims) if negative(dims) else res  # (see keep_given)


def fliplr(input):
    """``input`` reversed along dim 1 (it needs 2 or more dims)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, (1,))


def flipud(input):
    """``input`` reversed along dim 0 (it needs 1 or more dims)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(input, (0,))


class Roll(BuiltinFunction):
    """out = x rolled by ``shifts``;  dx = g rolled back."""
    _backward_name = "RollBackward0"

    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return np.roll(x, shifts, dims)

    @staticmethod
    def backward(ctx, g):
        neg = tuple(-s for s in ctx.shifts) if isinstance(ctx.shifts, tuple) else -ctx.shifts
        return Roll.apply(g, neg, ctx.dims), None, None


def roll(input, shifts, dims=None):
    """``input`` shifted circularly by ``shifts`` along ``dims`` (the flattened tensor when
    ``dims`` is None)."""
    shifts = _int_list(shifts, "roll", "shifts")
    if dims is None or isinstance(dims, (list, tuple)) and not dims:
        if isinstance(shifts, (list, tuple)) and len(shifts) != 1:  # (one shift: the flat roll)
            if not shifts:
                raise RuntimeError("`shifts` required")
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               "dims:0")
        return Roll.apply(input, shifts, None)
    dims = _int_list(dims, "roll", "dims")
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    n_shifts = len(shifts) if isinstance(shifts, (list, tuple)) else 1
    n_dims = len(dims) if isinstance(dims, (list, tuple)) else 1
    if n_shifts == 0:
        raise RuntimeError("`shifts` required")
    if n_shifts != n_dims:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {n_shifts}, dims:"
                           f"{n_dims}")
    if isinstance(shifts, (list, tuple)):
        shifts, dims = tuple(shifts), wrap_dims(dims, input.ndim)
    else:
        dims = wrap_dim(dims, input.ndim)
    return Roll.apply(input, shifts, dims)


class Repeat(BuiltinFunction):
    """out = x tiled ``reps`` times per dim;  dx = g summed over the copies."""
    _backward_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx, x, reps):
        lead = len(reps) - x.ndim
        ctx.shape = (1,) * lead + x.shape
        ctx.reps = reps
        ctx.orig = x.shape
        return np.tile(x.reshape(ctx.shape), reps)

    @staticmethod
    def backward(ctx, g):
        split_shape = []
        for r, s in zip(ctx.reps, ctx.shape):
            split_shape += [r, s]
        axes = tuple(range(0, 2 * len(ctx.reps), 2))
        return g.reshape(split_shape).sum(axes).reshape(ctx.orig), None


def repeat(input, *sizes, **kwargs):
    """``Tensor.repeat(*repeats)``: ``input`` tiled ``repeats[i]`` times along each dim (the
    counts as ints or as one sequence, at least as many as ``input`` has dims)."""
    sizes = _dims_argument("repeat", input, sizes, kwargs, True, name="repeats")
    if len(sizes) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    shape = (1,) * (len(sizes) - input.ndim) + input._data.shape
    out = [r * s for r, s in zip(sizes, shape)]
    for s in out:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"[{', '.join(map(str, out))}]")
    return Repeat.apply(input, sizes)


def tile(input, *args, **kwargs):
    """``torch.tile(input, dims)``: ``input`` repeated ``dims`` times along each dim (leading
    1s added to the shorter of ``dims`` and the shape)."""
    return _tile(input, _dims_argument("tile", input, args, kwargs, False))


def tile_method(self, *dims, **kwargs):
    """``Tensor.tile(*dims)``: the counts as ints or as one sequence."""
    return _tile(self, _dims_argument("tile", self, dims, kwargs, True))


def _tile(input, dims):
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along ``dim``) of ``input`` repeated ``repeats`` times; with
    ``input`` alone, ``arange(n)`` with each ``i`` repeated ``input[i]`` times."""
    from .indexing import index_select
    if repeats is None:
        return _repeat_counts(input, output_size)
    if not isinstance(repeats, Tensor) and type(repeats) is not int:
        repeats = int_argument(repeats, "repeat_interleave", "repeats")
    if dim is None:
        input, dim = input.reshape(-1), 0
    if not isinstance(repeats, Tensor):  # as PyTorch: unsqueeze, expand, copy, view
        return _repeat_each(input, repeats, dim, output_size)
    d = wrap_dim(dim, input.ndim)
    if repeats.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    n = input.size(d)  # (a 0-d input: PyTorch's error for its size along dim)
    if repeats._data.size == 1:  # one count for every slice
        repeats = repeats.reshape(1).expand(n)
    elif repeats._data.size != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {repeats._data.size} and input.size({d}) = {n}")
    return index_select(input, d, _repeat_counts(repeats, output_size))


def _repeat_each(input, repeats, dim, output_size):
    """``input`` with each slice along ``dim`` repeated ``repeats`` (an int) times."""
    d = wrap_dim(dim, input.ndim)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(input._data.shape)
    expanded = unsqueeze(input, d + 1).expand(shape[:d + 1] + [repeats] + shape[d + 1:])
    shape[d] *= repeats
    if output_size is not None and output_size != shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {shape[d]} but "
                           f"got {output_size}")
    return view(Clone.apply(expanded, "C"), tuple(shape))


def _repeat_counts(repeats, output_size):
    """``torch.repeat_interleave(repeats)``: ``arange(n)`` with ``i`` repeated
    ``repeats[i]`` times, in the dtype of ``repeats`` (a 1-d int32 or int64 tensor)."""
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    reps = repeats._data
    if reps.dtype not in (np.int64, np.int32):
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{D.SCALAR_NAMES[repeats.dtype]}'")
    if (reps < 0).any():
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and output_size != int(reps.sum()):
        raise RuntimeError("allocated size does not match required size")
    return _make(np.repeat(np.arange(reps.size, dtype=reps.dtype), reps), None, False)


class Tril(BuiltinFunction):
    """out = x with entries above diagonal k zeroed;  dx = tril(g, k)."""
    _backward_name = "TrilBackward0"

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return np.tril(x, k)

    @staticmethod
    def backward(ctx, g):
        return Tril.apply(g, ctx.k), None


class Triu(BuiltinFunction):
    """out = x with entries below diagonal k zeroed;  dx = triu(g, k)."""
    _backward_name = "TriuBackward0"

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return np.triu(x, k)

    @staticmethod
    def backward(ctx, g):
        return Triu.apply(g, ctx.k), None


def _check_matrix(input, op):
    if input.ndim < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")


def tril(input, diagonal=0):
    """The lower triangle (on and below diagonal ``diagonal``) of the last two dims."""
    _check_matrix(input, "tril")
    if type(diagonal) is not int:
        diagonal = int_argument(diagonal, "tril", "diagonal")
    return Tril.apply(input, diagonal)


def triu(input, diagonal=0):
    """The upper triangle (on and above diagonal ``diagonal``) of the last two dims."""
    _check_matrix(input, "triu")
    if type(diagonal) is not int:
        diagonal = int_argument(diagonal, "triu", "diagonal")
    return Triu.apply(input, diagonal)


class DiagEmbed(BuiltinFunction):
    """out = zeros with x on a diagonal of the last two dims;  dx = that diagonal of g."""
    _backward_name = "DiagEmbedBackward0"

    @staticmethod
    def forward(ctx, x, shape, offset, d1, d2):
        return DiagEmbedInto.forward(ctx, x, shape, offset, d1, d2)

    @staticmethod
    def backward(ctx, g):
        return diagonal(g, *ctx.args), None, None, None, None


class DiagonalCopy(BuiltinFunction):
    """out = a copy of a diagonal (``torch.diag`` of a matrix);  dx = g on that diagonal."""
    _backward_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx, x, offset):
        ctx.shape, ctx.offset = x.shape, offset
        return np.diagonal(x, offset).copy()

    @staticmethod
    def backward(ctx, g):
        return DiagEmbedInto.apply(g, ctx.shape, ctx.offset, 0, 1), None


def diag(input, diagonal=0):
    """A square matrix with ``input`` (1-d) on a diagonal, or a matrix's diagonal (a copy)."""
    if type(diagonal) is not int:
        diagonal = int_argument(diagonal, "diag", "diagonal")
    if input.ndim == 1:
        n = input._data.shape[0] + builtins_abs(diagonal)
        return DiagEmbed.apply(input, (n, n), diagonal, 0, 1)
    if input.ndim != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.ndim}D")
    return DiagonalCopy.apply(input, diagonal)


def builtins_abs(v):
    return v if v >= 0 else -v


diagonal_fn = diagonal


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices (in ``dim1`` and ``dim2``) with the last dim of ``input`` on the diagonal
    ``offset``."""
    if type(offset) is not int:
        offset = int_argument(offset, "diag_embed", "offset")
    d1, d2 = wrap_dim(dim1, input.ndim + 1), wrap_dim(dim2, input.ndim + 1)
    n = input._data.shape[-1] + builtins_abs(offset)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    shape = list(input._data.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    return DiagEmbed.apply(input, tuple(shape), offset, d1, d2)


def unfold(input, dimension, size, step):
    """Sliding windows of ``size`` with ``step`` along ``dimension`` (a view); the windows
    make a new last dim."""
    d = wrap_dim(dimension, input.ndim)
    if type(size) is not int:
        size = int_argument(size, "unfold", "size")
    if type(step) is not int:
        step = int_argument(step, "unfold", "step")
    n = input._data.shape[d] if input.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is "
                           f"{size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(input, d, size, step)


class Unfold(BuiltinFunction):
    """out[..., i, ..., k] = x[..., i * step + k, ...];  dx = g summed back into the windows."""
    _backward_name = "UnfoldBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, d, size, step):
        ctx.shape, ctx.args = x.shape, (d, size, step)
        if x.ndim == 0:
            return x.reshape(1)
        windows = np.lib.stride_tricks.sliding_window_view(x, size, axis=d, writeable=True)
        return windows[(slice(None),) * d + (slice(None, None, step),)]

    @staticmethod
    def backward(ctx, g):
        return UnfoldBackward.apply(g, ctx.shape, *ctx.args), None, None, None


class UnfoldBackward(BuiltinFunction):
    """out = windows ``g`` added back into an input of ``shape``;  dg = unfold(gg)."""
    _backward_name = "UnfoldBackwardBackward0"

    @staticmethod
    def forward(ctx, g, shape, d, size, step):
        ctx.args = (d, size, step)
        out = np.zeros(shape, g.dtype)
        if not shape:
            return g.reshape(())
        windows = np.lib.stride_tricks.sliding_window_view(out, size, axis=d, writeable=True)
        view = windows[(slice(None),) * d + (slice(None, None, step),)]
        # NOTE: windows overlap when step < size: add them one at a time
        for i in range(view.shape[d]):
            key = (slice(None),) * d + (i,)
            view[key] += g[key]
        return out

    @staticmethod
    def backward(ctx, gg):
        return Unfold.apply(gg, *ctx.args), None, None, None, None
