"""Indexing: ``x[key]`` (basic keys give views, advanced keys copy), ``x[key] = v``,
``gather``, ``scatter``, ``index_select``, ``masked_fill``, ``take``, ``nonzero``.

>>> import numtorch as torch
>>> m = torch.arange(6).view(2, 3)
>>> m[1], m[:, [0, 2]].tolist()
(tensor([3, 4, 5]), [[0, 2], [3, 5]])
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._base import BuiltinFunction
from ..autograd._saved_attrs import keep_given
from ..autograd.grad_mode import STATE as _GRAD
from ..autograd._interpose import Unbatchable
from ._util import wrap_dim, cast, write_out
from .shape import place, place_array

_make = Tensor._make
_BASIC = (int, slice, type(None), type(Ellipsis))


def _convert_key(key):
    """A NumPy key for a PyTorch key (Tensors become arrays); also whether it is basic."""
    if type(key) is list and len(key) < 32:
        key = _list_as_tuple(key)
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    basic = True
    for k in key:
        if isinstance(k, Tensor):
            k = k._data
            if k.dtype.kind in "fc" or k.dtype.kind == "i" and k.dtype.itemsize < 4:
                raise IndexError("tensors used as indices must be long, int, byte or bool "
                                 "tensors")
            if k.ndim == 0 and k.dtype.kind in "iu" and k.dtype != np.uint8:
                k = int(k)  # a 0-dim integer tensor indexes like an int (a view)
            else:
                if k.dtype == np.uint8:
                    k = _uint8_mask(k)
                basic = False
        elif isinstance(k, (list, tuple, range)):
            # PyTorch indexes with any sequence as with a long tensor (``x[range(n), target]``
            # in the "What is torch.nn really?" tutorial)
            k = _list_key(k)
            basic = False
        elif isinstance(k, np.ndarray):
            basic = False
        elif isinstance(k, (bool, np.bool_)):
            k = np.asarray(k)
            basic = False
        elif isinstance(k, np.integer):
            k = int(k)
        elif isinstance(k, str):
            raise TypeError("new(): invalid data type 'str'")
        elif not isinstance(k, _BASIC):
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or "
                             "byte Variables are valid indices (got "
                             f"{type(k).__name__})")
        if type(k) is slice and k.step is not None and k.step <= 0:
            raise ValueError("slice step cannot be zero" if k.step == 0 else
                             "step must be greater than zero")
        out.append(k)
    return tuple(out), basic


def _list_as_tuple(key):
    """PyTorch's legacy rule: a short list holding a sequence, tensor, slice, ``...`` or
    ``None`` indexes as a tuple of its items (with a deprecation warning)."""
    for k in key:
        if isinstance(k, (Tensor, list, tuple, str, slice)):
            line = 349
        elif k is None or k is Ellipsis:
            line = 359
        else:
            continue
        from ._util import warn_user
        warn_user("Using a non-tuple sequence for multidimensional indexing is deprecated and "
                  "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                  "pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
                  "which will result either in an error or a different result (Triggered "
                  "internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
                  f"python_variable_indexing.cpp:{line}.)")
        return tuple(key)
    return key


def _uint8_mask(k):
    import warnings
    warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                  "torch.bool instead. (Triggered internally at "
                  "/__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.)",
                  UserWarning, stacklevel=4)
    return k.astype(bool)


def _check_key(key, shape):
    """PyTorch's errors for too many indices, masks of the wrong shape and index tensors
    that do not broadcast together."""
    used = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else
               0 if k is None or k is Ellipsis else 1 for k in key)
    if used > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    # NOTE: PyTorch applies integer and None keys first, so a mask is checked against the
    # shape left after them, at its position in that shape
    rest, pos, arrays = [], 0, []
    for k in key:
        if k is None:
            rest.append(1)
        elif type(k) is int:
            pos += 1
        elif k is Ellipsis:
            rest.extend(shape[pos:pos + len(shape) - used])
            pos += len(shape) - used
        elif isinstance(k, np.ndarray) and k.dtype == np.bool_:
            _check_mask(k, shape[pos:pos + k.ndim], len(rest), rest, shape[pos + k.ndim:])
            rest.extend(shape[pos:pos + k.ndim])
            pos += k.ndim
            arrays.extend((int(k.sum()),) for _ in range(max(k.ndim, 1)))
        else:
            if isinstance(k, np.ndarray):
                arrays.append(k.shape)
            rest.append(shape[pos])
            pos += 1
    if len(arrays) > 1:
        try:
            np.broadcast_shapes(*arrays)
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             f"with shapes {', '.join(f'[{_join(a)}]' for a in arrays)}"
                             ) from None


def _check_mask(mask, part, at, before, after):
    for j, (m, n) in enumerate(zip(mask.shape, part)):
        if m != n:
            full = list(before) + list(part) + list(after)
            raise IndexError(f"The shape of the mask [{_join(mask.shape)}] at index {j} does "
                             f"not match the shape of the indexed tensor [{_join(full)}] at "
                             f"index {at + j}")


def _join(shape):
    return ", ".join(map(str, shape))


def _list_key(k):
    if any(isinstance(v, Tensor) for v in k):
        k = [v._data if isinstance(v, Tensor) else v for v in k]
    arr = np.asarray(k)
    if arr.dtype.kind == "f":
        if not arr.size:  # an empty list indexes as an empty long tensor
            return arr.astype(np.int64)
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return arr


def _index_error(e, x, key=None):
    """PyTorch's IndexError for NumPy's ``e`` from indexing ``x`` with the converted ``key``.

    PyTorch selects integer keys first and names the dimension by the integer's position in
    the key (a None or an ellipsis counts as one entry); an index tensor out of bounds is
    named by its place among the key's index tensors (its indexing kernel's numbering)."""
    bad = None if key is None else _out_of_bounds(key, x._data.shape)
    if bad is not None:
        return IndexError("index {} is out of bounds for dimension {} with size {}".format(*bad))
    return IndexError(str(e).replace("axis", "dimension"))


def _out_of_bounds(key, shape):
    """(index, dimension, size) of the first out-of-bounds entry of ``key`` as PyTorch
    reports it, or None (only called once indexing has failed)."""
    used = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else
               0 if k is None or k is Ellipsis else 1 for k in key)
    arrays, pos = [], 0
    for i, k in enumerate(key):
        if k is None:
            continue
        if k is Ellipsis:
            pos += len(shape) - used
            continue
        if pos >= len(shape):
            return None
        n = shape[pos]
        if type(k) is int and not -n <= k < n:
            return k, i, n
        if isinstance(k, np.ndarray) and k.dtype != np.bool_:
            arrays.append((k, n))
        pos += k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
    for j, (k, n) in enumerate(arrays):
        wrong = k[(k < -n) | (k >= n)]
        if wrong.size:
            return int(wrong.reshape(-1)[0]), j, n
    return None


def _basic_name(key):
    """PyTorch names a basic index by its last non-trivial component."""
    for k in reversed(key):
        if type(k) is int:
            return SelectIndex
        if type(k) is slice:
            if k != slice(None):
                return SliceIndex
        elif k is None:
            return UnsqueezeIndex
    return AliasIndex if all(k is Ellipsis for k in key) else SliceIndex


def _basic_steps(key, shape):
    """A basic key as the one-op keys PyTorch applies it as, left to right: select for an
    int, slice for a slice (none for a full one), unsqueeze for None; ``...`` skips dims."""
    consuming = sum(1 for k in key if type(k) is int or type(k) is slice)
    steps = []
    d = od = 0  # the dim in the result so far, the dim of the input
    for k in key:
        if k is Ellipsis:
            n = len(shape) - consuming
            d += n
            od += n
        elif k is None:
            steps.append((slice(None),) * d + (None,))
            d += 1
        elif type(k) is int:
            steps.append((slice(None),) * d + (k,))
            od += 1
        else:
            if k.indices(shape[od]) != (0, shape[od], 1):
                steps.append((slice(None),) * d + (k,))
            d += 1
            od += 1
    return steps


class BasicIndex(BuiltinFunction):
    """out = x[key] for a basic key (a view);  dx = g placed at key."""
    _backward_name = "SliceBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x, key):
        ctx.shape, ctx.key = x.shape, key
        out = x[key]
        # NOTE: NumPy returns a scalar copy for a full integer key; a trailing ... keeps a view
        if type(out) is np.ndarray:
            return out
        return x[(key if type(key) is tuple else (key,)) + (Ellipsis,)]

    @staticmethod
    def backward(ctx, g):
        return place(g, ctx.shape, ctx.key), None

    @staticmethod
    def _np_backward(ctx, d):
        return place_array(d, ctx.shape, ctx.key), None


class SelectIndex(BasicIndex):
    _backward_name = "SelectBackward0"


class SliceIndex(BasicIndex):
    _backward_name = "SliceBackward0"


class UnsqueezeIndex(BasicIndex):
    _backward_name = "UnsqueezeBackward0"


class AliasIndex(BasicIndex):
    _backward_name = "AliasBackward0"


class AdvancedIndex(BuiltinFunction):
    """out = x[key] with tensor indices (a copy);  dx = g added back at the indices."""
    _backward_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, x, key):
        ctx.shape, ctx.key = x.shape, key
        out = np.asarray(x[key])
        if out.ndim < 2 or out.flags.c_contiguous and 1 not in out.shape:
            return out
        return _index_layout(out, x, key)

    @staticmethod
    def backward(ctx, g):
        kept = ctx.__dict__.get("index_tensors")
        if kept:
            _check_index_tensors(kept)
        return IndexAddInto.apply(g, ctx.shape, ctx.key), None


def _keep_index_tensors(out, key):
    """``out`` (``x[key]``), with the index tensors of the user's ``key`` and their versions
    kept on its node: PyTorch saves them for backward, so changing one in place before then
    raises there (``x[idx]``, then ``idx.zero_()``)."""
    node = out._grad_fn
    if node is not None and getattr(node, "_forward_cls", None) is AdvancedIndex:
        items = key if type(key) is tuple or type(key) is list else (key,)
        kept = tuple((k, k._version) for k in items if isinstance(k, Tensor))
        if kept:
            node.index_tensors = kept
    return out


def _check_index_tensors(kept):
    """PyTorch's saved-variable check on the index tensors ``_keep_index_tensors`` kept."""
    from ..autograd.graph import version_error
    for t, version in kept:
        if t._version != version:
            raise version_error(t, version)


def _index_layout(out, x, key):
    """``out`` (``x[key]`` as NumPy lays it out) copied into the memory layout PyTorch's
    index kernel gives it.

    NOTE: PyTorch's TensorIterator orders the result's dims by the strides of its operands:
    ``x`` (after the slices, with stride 0 along the indexed dims) and the index tensors
    (stride 0 along the others). A contiguous ``x`` indexed by contiguous indices thus gives a
    contiguous result (``x[:, [0, 2], [1, 3]]``, which NumPy lays out transposed); a
    transposed ``x`` keeps its transposed layout."""
    sizes = out.shape
    ops = _index_operands(x, key, sizes) if out.size and _plain_key(key) else None
    if ops is None:
        return _fresh(out)
    from .._layout import stride_sorted

    def compare(d0, d1):  # TensorIterator's should_swap
        for st in ops:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if sizes[d0] > sizes[d1]:
                return 1
        return 0

    outer = stride_sorted(out.ndim, compare)[::-1]
    res = np.empty([sizes[d] for d in outer], out.dtype).transpose(np.argsort(outer))
    res[...] = out
    return res


def _index_operands(x, key, sizes):
    """The byte strides, over the result's dims, of PyTorch's index operands: ``x`` after
    the slices and Nones (0 along the indexed dims, which move to the front unless
    adjacent), then each index (0 along the other dims); None where they do not fit."""
    basic, arrays, new_dims, n_fill = [], [], [], x.ndim
    for k in key:  # dims each key part consumes in x
        if isinstance(k, np.ndarray) or type(k) is slice:
            n_fill -= k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
    for k in key:
        if isinstance(k, np.ndarray):
            parts = np.nonzero(k) if k.dtype == np.bool_ else (k,)
            basic += [slice(None)] * len(parts)
            arrays += parts
        elif k is Ellipsis:
            basic.append(k)
            arrays += [None] * n_fill
            n_fill = 0
        else:  # a slice or None
            if k is None:
                new_dims.append(len(arrays))
            basic.append(k)
            arrays.append(None)
    arrays += [None] * n_fill
    view = x[tuple(basic)]
    strides = list(view.strides)
    for d in reversed(new_dims):  # a None dim: PyTorch's unsqueeze stride (NumPy's is 0)
        strides[d] = strides[d + 1] * view.shape[d + 1] if d + 1 < view.ndim else \
            view.itemsize
    at = [d for d, a in enumerate(arrays) if a is not None]
    b_shape = np.broadcast_shapes(*(arrays[d].shape for d in at))
    rest = [d for d, a in enumerate(arrays) if a is None]
    lead = at[0] if at == list(range(at[0], at[-1] + 1)) else 0  # adjacent: stay in place
    before, after = rest[:lead], rest[lead:]
    zeros = (0,) * len(b_shape)
    ops = [tuple(strides[d] for d in before) + zeros + tuple(strides[d] for d in after)]
    n_b = len(b_shape)
    for d in at:
        # NOTE: the index reshaped to 1s + its shape + 1s: a size-1 dim of the result keeps
        # that (contiguous) stride, the others broadcast with stride 0
        a = arrays[d]
        st = np.broadcast_to(a, b_shape).strides
        head = tuple(a.itemsize * int(np.prod(b_shape)) if sizes[i] == 1 else 0
                     for i in range(len(before)))
        tail = tuple(a.itemsize if sizes[i] == 1 else 0
                     for i in range(len(before) + n_b, len(sizes)))
        ops.append(head + st + tail)
    return ops if len(ops[0]) == len(sizes) else None


def _fresh(out):
    """A C-ordered copy of ``out`` (freshly allocated: a size-1 dim gets the stride PyTorch
    gives it, which NumPy's indexing may not)."""
    res = np.empty(out.shape, out.dtype)
    res[...] = out
    return res


def _plain_key(key):
    """Whether ``key`` holds only index arrays of 1+ dims, slices, ``...`` and None (an int
    or a 0-dim mask left in it makes the result contiguous)."""
    for k in key:
        if isinstance(k, np.ndarray):
            if k.ndim == 0:
                return False
        elif not (k is None or k is Ellipsis or type(k) is slice):
            return False
    return True


class IndexAddInto(BuiltinFunction):
    """out = zeros(shape) with g added at key;  dg = gg[key]."""
    _backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, g, shape, key):
        ctx.key = key
        out = np.zeros(shape, g.dtype)
        np.add.at(out, key, g)
        return out

    @staticmethod
    def backward(ctx, gg):
        return AdvancedIndex.apply(gg, ctx.key), None, None


def _split_ints(key):
    """(basic, advanced) keys that apply an advanced ``key`` holding integers in PyTorch's
    two steps, or None where NumPy's single step already agrees.

    NOTE: PyTorch selects integer positions first (a view) and indexes that with the tensors
    left, so ``x[0, :, [0, 2]]`` has shape ``[3, 2]``; NumPy counts the integer as an advanced
    index, which moves the advanced dims to the front (``[2, 3]``)."""
    if not any(type(k) is int for k in key):
        return None
    basic, advanced = [], []
    for k in key:
        if isinstance(k, np.ndarray):
            if k.ndim == 0:
                return None  # a scalar bool adds a dim: left to NumPy's rules
            n = k.ndim if k.dtype == np.bool_ else 1
            basic += [slice(None)] * n
            advanced.append(k)
        elif type(k) is not int:
            basic.append(k)
            advanced.append(k if k is Ellipsis else slice(None))
        else:
            basic.append(k)
    return tuple(basic), tuple(advanced)


def getitem(x, key):
    """``x[key]`` with PyTorch's semantics."""
    if type(key) is int and x._data.ndim:
        n = x._data.shape[0]
        if key < -n or key >= n:
            raise IndexError(f"index {key} is out of bounds for dimension 0 with size {n}")
        return SelectIndex.apply(x, key)
    if x._data.ndim == 0 and type(key) is int:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    nkey, basic = _convert_key(key)
    _check_key(nkey, x._data.shape)
    try:
        if basic:
            if x._rg and _GRAD.enabled and (len(nkey) > 1 or type(key) is tuple and nkey and
                                            type(nkey[0]) is slice):
                steps = _basic_steps(nkey, x._data.shape)
                if not steps:  # x[:, :], x[..., 0:n]: PyTorch's alias (a bare x[:] slices)
                    return AliasIndex.apply(x, nkey)
                if len(steps) > 1:  # PyTorch's graph: one node per step (x[0, 1]: two
                    for step in steps:  # SelectBackward0)
                        x = _basic_name(step).apply(x, step)
                    return x
            return _basic_name(nkey).apply(x, nkey)
        split = _split_ints(nkey)
        if split is not None:
            out = AdvancedIndex.apply(_basic_name(split[0]).apply(x, split[0]), split[1])
        else:
            out = AdvancedIndex.apply(x, nkey)
        return _keep_index_tensors(out, key) if out._grad_fn is not None else out
    except IndexError as e:
        if _ellipses(nkey) > 1:
            return getitem(x, _one_ellipsis(nkey, x._data.ndim))
        raise _index_error(e, x, nkey) from None
    except Unbatchable:
        _refuse_batched_mask(nkey)
        raise


_BATCHED_MASK = ("vmap: We do not support batching operators that can support dynamic shape. "
                 "Attempting to batch over indexing with a boolean mask.")


def _refuse_batched_mask(nkey):
    """Inside vmap, PyTorch's error for a boolean mask that is vmapped over (each sample
    would select a different number of elements)."""
    from ..func._batching import BatchedData
    if any(isinstance(k, BatchedData) and k.dtype == np.bool_ for k in nkey):
        raise RuntimeError(_BATCHED_MASK) from None


def _ellipses(key):
    return sum(1 for k in key if k is Ellipsis)


def _one_ellipsis(key, ndim):
    """``key`` with its several ellipses read as PyTorch reads them: each stands for the
    dims no other entry takes; those running past the last dim are dropped."""
    used = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else
               0 if k is None or k is Ellipsis else 1 for k in key)
    out = []
    for k in key:
        out.extend((slice(None),) * (ndim - used) if k is Ellipsis else (k,))
    while sum(1 for k in out if k is not None) > ndim and out and out[-1] == slice(None):
        out.pop()
    return tuple(out)


class IndexPut(BuiltinFunction):
    """out = x with v written at key;  dx = g zeroed at key, dv = g[key]."""
    _backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, x, key, v, accumulate):
        ctx.key, ctx.accumulate = key, accumulate
        out = x.copy()
        v = cast(v, x.dtype)
        if accumulate:
            np.add.at(out, key, v)
        else:
            out[key] = v
        return out

    @staticmethod
    def backward(ctx, g):
        gx = None
        if ctx.needs_input_grad[0]:
            gx = g if ctx.accumulate else IndexFill.apply(g, ctx.key)
        gv = AdvancedIndex.apply(g, ctx.key) if ctx.needs_input_grad[2] else None
        return gx, None, gv, None


class IndexFill(BuiltinFunction):
    """out = x with zeros at key;  dx = g with zeros at key."""
    _backward_name = "IndexFillBackward0"

    @staticmethod
    def forward(ctx, x, key):
        ctx.key = key
        out = x.copy()
        out[key] = 0
        return out

    @staticmethod
    def backward(ctx, g):
        return IndexFill.apply(g, ctx.key), None


def _refuse_value(x, value):
    """PyTorch's error for ``x[key] = value`` with a value that is no tensor and no Python
    number (NumPy's integers pass as ints, its float64 and complex128 are Python's types;
    a NumPy array, float32 or bool is refused)."""
    from .._size import Size
    from ._util import tp_name
    name = "torch.Size" if isinstance(value, Size) else tp_name(value)
    raise TypeError(f"can't assign a {name} to a torch.{D.SCALAR_NAMES[x.dtype]}Tensor")


def setitem(x, key, value):
    """``x[key] = value``: an in-place op (differentiable, bumps the version)."""
    from .inplace import inplace, copy_into, warn_expanded
    if not isinstance(value, (Tensor, int, float, complex, np.integer)):
        _refuse_value(x, value)
    # NOTE: assigning, PyTorch reads x[True] as x[...] and True inside a tuple as None (a
    # view); reading, a bool is an advanced index (a copy), as in NumPy
    if key is True:
        key = Ellipsis
    elif type(key) is tuple and any(k is True for k in key):
        key = tuple(None if k is True else k for k in key)
    nkey, basic = _convert_key(key)
    _check_key(nkey, x._data.shape)
    try:
        if basic:
            view = _basic_name(nkey).apply(x, nkey)
            copy_into(view, value)
            return
        v = value if isinstance(value, Tensor) else _make(np.asarray(_fit(value, x)), None,
                                                          False)
        split = _split_ints(nkey)
        target, tkey = x, nkey
        if split is not None:
            target, tkey = _basic_name(split[0]).apply(x, split[0]), split[1]
        _check_put_shape(target, tkey, v)
        _check_put_dtype(target, tkey, v, False)
        # (fill: PyTorch's index_put_ does not refuse an expanded tensor, it warns)
        warn_expanded(target, "index_put_")
        inplace(target, lambda t: IndexPut.apply(t, tkey, v, False), fill=True)
    except IndexError as e:
        if _ellipses(nkey) > 1:
            return setitem(x, _one_ellipsis(nkey, x._data.ndim), value)
        raise _index_error(e, x, nkey) from None
    except Unbatchable:
        _refuse_batched_mask(nkey)
        raise


def _fit(value, x):
    """A Python number as ``x``'s dtype, with PyTorch's overflow error."""
    from .._creation import scalar_as
    if isinstance(value, (int, float)) and x._data.dtype.kind in "iu":
        return scalar_as(value, x.dtype)
    return np.asarray(value, x._data.dtype)


def _check_put_dtype(x, key, v, accumulate):
    """PyTorch's index_put_ needs ``v`` in ``x``'s dtype, except where it becomes a
    masked_fill: one boolean mask and a one-element value (which is then cast)."""
    if v.dtype is x.dtype:
        return
    arrays = [k for k in key if isinstance(k, np.ndarray)]
    if not accumulate and v._data.size == 1 and len(arrays) == 1 and \
            arrays[0].dtype == np.bool_:
        return
    raise RuntimeError("Index put requires the source and destination dtypes match, got "
                       f"{D.SCALAR_NAMES[x.dtype]} for the destination and "
                       f"{D.SCALAR_NAMES[v.dtype]} for the source.")


def _check_put_shape(x, key, v):
    target = np.empty(x._data.shape, np.bool_)[key].shape
    try:
        np.broadcast_to(np.empty(v._data.shape, np.bool_), target)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape "
                           f"[{', '.join(map(str, v._data.shape))}] cannot be broadcast to "
                           f"indexing result of shape [{', '.join(map(str, target))}]") from None


def _index_put_key(input, indices, values, accumulate):
    if len(indices) > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim} (got "
                         f"{len(indices)})")
    key, _ = _convert_key(tuple(indices))
    _check_key(key, input._data.shape)
    try:
        _check_put_shape(input, key, values)
    except IndexError as e:
        raise _index_error(e, input, key) from None
    _check_put_dtype(input, key, values, accumulate)
    return key


def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` written (or added) at the advanced index ``indices``."""
    key = _index_put_key(input, indices, values, accumulate)
    try:
        return IndexPut.apply(input, key, values, accumulate)
    except IndexError as e:
        raise _index_error(e, input, key) from None


def index_put_(input, indices, values, accumulate=False):
    """In-place ``index_put``."""
    from .inplace import inplace, warn_expanded
    key = _index_put_key(input, indices, values, accumulate)
    warn_expanded(input, "index_put_")
    try:
        return inplace(input, lambda t: IndexPut.apply(t, key, values, accumulate), fill=True)
    except IndexError as e:
        raise _index_error(e, input, key) from None


class Gather(BuiltinFunction):
    """out[i][j] = x[i][index[i][j]] (along dim);  dx = g scatter-added back."""
    _backward_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.shape, ctx.dim = x.shape, dim
        ctx.save_for_backward(index, x)  # (x too, as PyTorch: changing it in place raises)
        if index.size == 0:  # PyTorch checks neither dtype nor dims of an empty index
            return np.zeros(index.shape, x.dtype)
        if x.ndim == 0:
            return np.take(x.reshape(1), index)
        # NOTE: not np.take_along_axis: index may be smaller than x in the other dims
        idx = list(np.indices(index.shape, sparse=True))
        idx[dim] = index
        return x[tuple(idx)]

    @staticmethod
    def backward(ctx, g):
        index = ctx.saved_tensors[0]
        from .._creation import zeros
        if index.numel() == 0:  # zeros, still a function of g (for gradgrad)
            return zeros(ctx.shape, dtype=g.dtype) + g.sum(), None, None
        return scatter_add(zeros(ctx.shape, dtype=g.dtype), ctx.dim, index, g), None, None


def tensor_argument(value, op, name, position):
    """PyTorch's parser TypeError for ``value``, no Tensor, given where ``op`` takes one
    (worded for the user's call, method or function form: ``_arg_errors.bad_argument``)."""
    from ._util import not_a_tensor
    from ._arg_errors import bad_argument
    return bad_argument(not_a_tensor(op, value, name, position))


def _check_index(index, op):
    if not isinstance(index, Tensor):
        raise tensor_argument(index, op, "index", 2)
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")


def _check_bounds(input, dim, index):
    """PyTorch's error for an index outside ``[0, size)`` along ``dim`` (no wrapping)."""
    n = input._data.shape[dim] if input._data.ndim else 1
    idx = index._data
    if idx.size:
        lo, hi = idx.min(), idx.max()
        if lo < 0 or hi >= n:
            bad = int(lo if lo < 0 else hi)
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {n}")


def _size(t, d):
    """``t.size(d)`` as PyTorch's shape checks read it: 1 for a 0-d tensor."""
    shape = t._data.shape
    if not shape:
        return 1
    if d >= len(shape):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-len(shape)}, "
                         f"{len(shape) - 1}], but got {d})")
    return shape[d]


def _sizes(t):
    return "[" + ", ".join(map(str, t._data.shape)) + "]"


def _check_scatter_shape(input, dim, index, src):
    """PyTorch's scatter_shape_check: index no larger than self (but along ``dim``) and no
    larger than a tensor ``src``."""
    if index._data.size == 0:
        return
    if max(index.ndim, 1) != max(input.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    dims = range(max(input.ndim, 1))
    wrong = any(d != dim and _size(index, d) > _size(input, d) for d in dims)
    src = src if isinstance(src, Tensor) else None
    if not wrong and src is not None:
        wrong = any(_size(index, d) > _size(src, d) for d in dims)
    if wrong:
        message = (f"Expected index {_sizes(index)} to be no larger than self {_sizes(input)} "
                   f"apart from dimension {dim}")
        if src is not None:
            message += f" and to be no larger size than src {_sizes(src)}"
        raise RuntimeError(message)


def _check_src(input, src):
    if isinstance(src, Tensor) and src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")


def gather(input, dim, index, *, sparse_grad=False, out=None):
    """Values of ``input`` at ``index`` along ``dim``."""
    if out is not None:
        return write_out(out, gather(input, dim, index))
    d = wrap_dim(dim, input.ndim)
    if isinstance(index, Tensor) and index._data.size == 0:
        return Gather.apply(input, d, index)
    _check_index(index, "gather")
    if max(index.ndim, 1) != max(input.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input "
                           "tensor")
    for i in range(max(input.ndim, 1)):
        if i != d and _size(index, i) > _size(input, i):
            raise RuntimeError(f"Size does not match at dimension {i} expected index "
                               f"{_sizes(index)} to be no larger than self {_sizes(input)} "
                               f"apart from dimension {d}")
    _check_bounds(input, d, index)
    return Gather.apply(input, d, index)


def _wrap_negative(indices, size):
    """``indices`` with those in ``[-size, 0)`` counted from the end (take_along_dim with a
    ``dim`` accepts them, unlike gather)."""
    i = indices._data
    if i.size and i.min() < 0:
        return Tensor._make(np.where(i < 0, i + size, i), None, False)
    return indices


def take_along_dim(input, indices, dim=None):
    if not isinstance(indices, Tensor):
        raise tensor_argument(indices, "take_along_dim", "indices", 1)
    if dim is None:  # (no negative indices here: PyTorch's gather of the flat tensor)
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    d = wrap_dim(dim, input.ndim)
    if indices.ndim != input.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, "
                           f"and {indices.ndim} dimensions for indices")
    a, b = list(input._data.shape), list(indices._data.shape)
    a[d] = b[d] = 1  # every dim but ``dim`` broadcasts
    bshape = list(np.broadcast_shapes(tuple(a), tuple(b)))
    ishape = list(bshape)
    bshape[d], ishape[d] = input._data.shape[d], indices._data.shape[d]
    indices = _wrap_negative(indices, input._data.shape[d])
    return gather(input.expand(bshape), d, indices.expand(ishape))


class ScatterAdd(BuiltinFunction):
    """out = x with src added at index along dim;  dx = g, dsrc = gather(g, index)."""
    _backward_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src):
        ctx.dim = dim
        ctx.save_for_backward(index)
        out = x.copy()
        _scatter_arrays(out, dim, index, src, add=True)
        return out

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        gsrc = gather(g, ctx.dim, index) if ctx.needs_input_grad[3] else None
        return g, None, None, gsrc


def _scatter_arrays(out, dim, index, src, add):
    """out[..., index[i], ...] (+)= src[i] along ``dim`` over index's shape (``add``: True,
    False or 'multiply')."""
    if out.ndim == 0 or index.ndim == 0:  # 0-d: as 1-d arrays of one element
        out = out.reshape(1) if out.ndim == 0 else out
        index = index.reshape(-1)
        src = src.reshape(-1) if type(src) is np.ndarray else src
    idx = list(np.indices(index.shape, sparse=True))
    idx[dim] = index
    key = tuple(idx)
    if type(src) is not np.ndarray:
        src = np.full(index.shape, src, out.dtype)
    else:
        src = src[tuple(slice(0, n) for n in index.shape)]
    if add == "multiply":
        np.multiply.at(out, key, src)
    elif add:
        np.add.at(out, key, src)
    else:
        out[key] = src


class Scatter(BuiltinFunction):
    """out = x with src written at index along dim;  dx = g zeroed there, dsrc = gather(g)."""
    _backward_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src):
        ctx.dim = dim
        ctx.save_for_backward(index)
        out = x.copy()
        _scatter_arrays(out, dim, index, src, add=False)
        return out

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        gx = Scatter.apply(g, ctx.dim, index, 0.0) if ctx.needs_input_grad[0] else None
        gsrc = None
        if len(ctx.needs_input_grad) > 3 and ctx.needs_input_grad[3]:
            gsrc = gather(g, ctx.dim, index)
        return gx, None, None, gsrc


class ScatterReduceLegacy(BuiltinFunction):
    """``scatter(..., reduce='add'|'multiply')``: PyTorch records a node without a
    derivative."""
    _backward_name = "NotImplemented"

    @staticmethod
    def forward(ctx, x, dim, index, src, reduce):
        out = x.copy()
        _scatter_arrays(out, dim, index, src, add=True if reduce == "add" else reduce)
        return out

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::scatter is not implemented")


class ScatterValue(Scatter):
    _backward_name = "ScatterBackward1"


def scatter_add(input, dim, index, src):
    _check_index(index, "scatter_add")
    _check_src(input, src)
    d = wrap_dim(dim, input.ndim)
    _check_scatter_shape(input, d, index, src)
    _check_bounds(input, d, index)
    return ScatterAdd.apply(input, d, index, src)


_WARNED = []


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """``input`` with ``src`` (or ``value``) written at ``index`` along ``dim``."""
    _check_index(index, "scatter")
    _check_src(input, src)
    _check_scatter_shape(input, wrap_dim(dim, input.ndim), index, src)
    _check_bounds(input, wrap_dim(dim, input.ndim), index)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        if isinstance(src, Tensor) and not _WARNED:
            from ._util import warn_user
            _WARNED.append("scatter-reduce")  # PyTorch warns once per process
            warn_user("The reduce argument of torch.scatter with Tensor src is deprecated and "
                      "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                      "instead for more reduction options. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:"
                      "225.)")
        s = src if src is not None else value
        return ScatterReduceLegacy.apply(input, wrap_dim(dim, input.ndim), index, s, reduce)
    _check_src(input, src)
    s = src if src is not None else value
    if not isinstance(s, Tensor):
        s = float(s) if input._data.dtype.kind in "fc" else s
        return ScatterValue.apply(input, wrap_dim(dim, input.ndim), index, s)
    return Scatter.apply(input, wrap_dim(dim, input.ndim), index, s)


class IndexSelect(BuiltinFunction):
    """out = x indexed by ``index`` along dim;  dx = g added back at the index."""
    _backward_name = "IndexSelectBackward0"

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.shape, ctx.dim = x.shape, dim
        ctx.save_for_backward(index)
        return np.take(x, index, axis=dim) if x.ndim else x.copy()

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        if not ctx.shape:  # a 0-d input: the output is that one element
            return g.reshape(()), None, None
        key = (slice(None),) * ctx.dim + (index._data,)
        return IndexAddInto.apply(g, ctx.shape, key), None, None


def index_select(input, dim, index):
    if not isinstance(index, Tensor):
        raise tensor_argument(index, "index_select", "index", 2)
    d = wrap_dim(dim, input.ndim)
    # (PyTorch's order of checks: dim, index rank, index size for a 0-d input, index dtype)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if input.ndim == 0 and index._data.size != 1:
        raise RuntimeError("index_select(): Index to scalar can have only 1 value, got "
                           f"{index._data.size} value(s)")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    n = input._data.shape[d] if input.ndim else 1
    idx = index._data.reshape(-1)
    if idx.size and (idx.max() >= n or idx.min() < 0):
        bad = int(idx.min() if idx.min() < 0 else idx.max())
        # NOTE: PyTorch's CPU kernel for dim 1 of a tensor of 2+ dims words it differently
        if d == 1 and input.ndim >= 2:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}")
        raise IndexError("index out of range in self")
    if d != dim:  # (negative: kept as given, see keep_given)
        return keep_given(IndexSelect.apply(input, d, index.reshape(-1)), dim=dim)
    return IndexSelect.apply(input, d, index.reshape(-1))


def masked_fill(input, mask, value):
    """``input`` with ``value`` where ``mask`` is True."""
    if not isinstance(mask, Tensor):
        _masked_fill_number(input, mask, None)  # (raises the parser's error)
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{D.CPP_NAMES[mask.dtype]}")
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value.ndim} dimension(s).")
        return MaskedFillTensor.apply(input, mask, value)
    if not isinstance(value, (int, float)):
        value = _masked_fill_number(input, mask, value)
    elif input._data.dtype.kind in "iu":
        from .._creation import scalar_as
        scalar_as(value, input.dtype)  # PyTorch's overflow error
    return MaskedFill.apply(input, mask, value)


_MASKED_FILL_SIGNATURES = ("(Tensor mask, Tensor value)", "(Tensor mask, Number value)")


def _masked_fill_number(input, mask, value):
    """A fill ``value`` that is no Python int or float: a complex (checked against
    ``input``'s dtype) or a NumPy number; PyTorch's parser error for anything else."""
    if isinstance(mask, Tensor) and isinstance(value, (complex, np.number, np.bool_)):
        from .._creation import scalar_as
        return scalar_as(value, input.dtype)
    from ._util import invalid_arguments
    from ._arg_errors import bad_argument
    raise bad_argument(invalid_arguments("masked_fill", (mask, value), {},
                                         _MASKED_FILL_SIGNATURES))


def masked_fill_(self, mask, value):
    """In-place ``masked_fill`` (``self``: the parser's errors name the method's form)."""
    from .inplace import inplace, warn_expanded
    if isinstance(mask, Tensor) and mask._data.shape != self._data.shape:
        try:
            np.broadcast_shapes(self._data.shape, mask._data.shape)
        except ValueError as e:  # in place, PyTorch broadcasts the tensor first
            from ._base import _translate
            raise _translate(e, (self._data, mask._data)) from None
    warn_expanded(self, "masked_fill_")  # (allowed on an expanded tensor, with a warning)
    return inplace(self, lambda t: masked_fill(t, mask, value), fill=True)


class MaskedFill(BuiltinFunction):
    """out = x with value where mask;  dx = g where not mask, dvalue = sum of g where mask."""
    _backward_name = "MaskedFillBackward0"

    @staticmethod
    def forward(ctx, x, mask, value):
        ctx.save_for_backward(mask)
        try:
            shape = np.broadcast_shapes(x.shape, mask.shape)
        except ValueError as e:  # PyTorch broadcasts the mask first
            from ._base import _translate
            raise _translate(e, (mask, x)) from None
        out = np.array(np.broadcast_to(x, shape), copy=True)
        fill = value.reshape(()) if type(value) is np.ndarray else np.asarray(value)
        np.copyto(out, fill.astype(x.dtype), where=np.broadcast_to(mask, shape),
                  casting="unsafe")
        return out

    @staticmethod
    def backward(ctx, g):
        from .elementwise import where
        (mask,) = ctx.saved_tensors
        zero = _make(np.zeros((), g._data.dtype), None, False)
        needs = ctx.needs_input_grad
        gx = where(mask, zero, g) if needs[0] else None
        gv = where(mask, g, zero).sum() if len(needs) > 2 and needs[2] else None
        return gx, None, gv


class MaskedFillTensor(MaskedFill):
    _backward_name = "MaskedFillBackward1"


class MaskedSelect(BuiltinFunction):
    """out = the elements of x (broadcast with mask) where mask;  dx = g put back there."""
    _backward_name = "MaskedSelectBackward0"

    @staticmethod
    def forward(ctx, x, mask):
        shape = np.broadcast_shapes(x.shape, mask.shape)
        ctx.shape, ctx.key = shape, (np.broadcast_to(mask, shape),)
        ctx.save_for_backward(x, mask)  # (as PyTorch: in-place changes to either then raise)
        return np.broadcast_to(x, shape)[ctx.key]

    @staticmethod
    def backward(ctx, g):
        ctx.saved_tensors  # (the version check)
        return IndexAddInto.apply(g, ctx.shape, ctx.key), None


def masked_select(input, mask):
    """The elements of ``input`` where ``mask`` is True, as a 1-d tensor."""
    if not isinstance(mask, Tensor):
        raise tensor_argument(mask, "masked_select", "mask", 1)
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if mask._data.shape != input._data.shape:  # PyTorch broadcasts the mask first
        from ._util import infer_size
        infer_size(mask._data.shape, input._data.shape)
    return MaskedSelect.apply(input, mask)


class Take(BuiltinFunction):
    """out = x.flatten()[index];  dx = g added back at the index, in x's shape."""
    _backward_name = "TakeBackward0"

    @staticmethod
    def forward(ctx, x, index):
        ctx.shape, ctx.key = x.shape, (index.reshape(-1),)
        ctx.save_for_backward(x, index)  # (as PyTorch: in-place changes to either then raise)
        return x.reshape(-1)[index]

    @staticmethod
    def backward(ctx, g):
        ctx.saved_tensors  # (the version check)
        flat = IndexAddInto.apply(g.reshape(-1), (int(np.prod(ctx.shape)),), ctx.key)
        return flat.reshape(ctx.shape), None


def take(input, index):
    """Elements of the flattened ``input`` at ``index``."""
    if not isinstance(index, Tensor):
        raise tensor_argument(index, "take", "index", 1)
    n = input._data.size
    idx = index._data
    if idx.dtype != np.int64:
        raise RuntimeError("take(): Expected a long tensor for index, but got "
                           f"{D.SCALAR_NAMES[index.dtype]}")
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = int(idx.max() if idx.max() >= n else idx.min())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")
    return Take.apply(input, index)


def nonzero(input, *, as_tuple=False):
    """Indices of nonzero elements: an (n, ndim) int64 tensor, or a tuple of 1-d tensors."""
    x = input._data
    if as_tuple:
        if x.ndim == 0:
            return (_make(np.nonzero(x.reshape(1))[0].astype(np.int64), None, False),)
        return tuple(_make(i.astype(np.int64), None, False) for i in np.nonzero(x))
    return _make(np.argwhere(x).astype(np.int64), None, False)


def argwhere(input):
    return nonzero(input)
