"""Batched tensors for ``vmap``: what they are and how ops run on them.

A batched tensor at vmap level ``L`` is an ordinary ``Tensor`` whose ``_data`` is a
:class:`BatchedData`: it reports the *logical* (per-sample) shape and dtype, so ops' argument
checks and shape arithmetic work unchanged, and holds the *physical* tensor (``.tensor``) whose
dim 0 is the batch. The physical tensor may itself be batched at an outer (smaller) level, so
nested vmaps nest wrappers; stripping every wrapper gives a plain tensor whose leading dims are
the batch dims in increasing level order.

Ops reach :func:`apply_builtin` through the interposition hook; a batching rule
(``_batch_rules``) rewrites the call onto physical tensors, so one NumPy call serves the whole
batch, and the outputs are wrapped again. Ops without a rule run once per sample and are
stacked (correct, slower). Anything that reads a batched tensor's values outside an op (NumPy on
``_data``, ``.item()``, printing) raises :class:`Unbatchable`, and ``vmap`` then runs the whole
function once per sample.

The autograd graph is recorded on the physical tensors (a wrapper mirrors its physical
tensor's ``grad_fn``), so backward needs no batching rules; :func:`grad_any` converts batched
roots, cotangents and inputs for the engine.
"""
import sys

import numpy as np

from .._tensor import Tensor
from ..autograd import _interpose

__all__ = ["BatchedData", "Unbatchable", "wrap", "wrap_all", "unwrap_all", "levels_of",
           "apply_builtin", "apply_custom", "grad_any", "differentiable_copy",
           "fresh_leaf_like", "top_level", "batch_size"]


from ..autograd._interpose import Unbatchable  # noqa: E402  (re-exported)


class _Flags:
    c_contiguous = True
    f_contiguous = False
    writeable = True   # in-place writes reach __array_function__ (np.copyto), see below
    owndata = False


def _refuse(what):
    def method(self, *args, **kwargs):
        raise Unbatchable(what)
    method.__name__ = what
    return method


_INPLACE_INTO_UNBATCHED = (
    "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
    "Tensor `other` in extra_args that has more elements than `self`. This happened due to "
    "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use "
    "out-of-place operators instead of inplace arithmetic. If said operator is being called "
    "inside the PyTorch framework, please file a bug report instead.")

# in-place ops whose batching rule is PyTorch's generic in-place one ("inplace arithmetic"),
# those that check the broadcast shape first, and those whose fallback names them bare (all
# other in-place ops hit the fallback, named ``aten::<op>``)
_ARITH_INPLACE = frozenset({"sub_", "mul_", "div_", "true_divide_", "multiply_", "divide_",
                            "logical_and_", "logical_or_", "logical_xor_", "clamp_min_",
                            "clamp_max_", "copy_"})
_SHAPE_INPLACE = frozenset({"add_", "atan2_", "copysign_", "bitwise_and_", "bitwise_or_",
                            "bitwise_xor_", "bitwise_left_shift_", "bitwise_right_shift_",
                            "gcd_", "lcm_"})
_BARE_INPLACE = frozenset({"fill_", "index_add_", "scatter_add_", "index_fill_",
                           "index_put_"})
_OUT_NAMES = {"where": "where.self_out"}
_GENERIC_FRAMES = frozenset({"fn", "call", "method", "<lambda>", "wrapper", "wrapped"})


def _inplace_op():
    """(kind, name) of the in-place op (or ``out=`` function) on the stack: found from its
    frames, as this runs only when that op is about to fail."""
    from ..ops.elementwise import _OUT_HELPERS
    f = sys._getframe(2)
    for _ in range(12):
        if f is None:
            break
        name = f.f_code.co_name
        if name in _OUT_HELPERS:
            g = f.f_back
            for _ in range(4):   # up to the public function (past private helpers)
                if g is None:
                    break
                fn = g.f_code.co_name
                public = g.f_locals.get("name")
                cls = g.f_locals.get("cls")
                if isinstance(public, str):
                    fn = public
                elif fn == "fn" and isinstance(cls, type):   # a unary op's shared code
                    fn = cls.__name__.lower()
                elif fn.startswith("_") or fn in _GENERIC_FRAMES or fn in _OUT_HELPERS:
                    g = g.f_back
                    continue
                return "out", _OUT_NAMES.get(fn, fn + ".out")
            return "inplace", None
        if name == "inplace" and f.f_code.co_filename.endswith("inplace.py"):
            g = f.f_back
            for _ in range(3):
                if g is None:
                    break
                loc = g.f_locals
                if g.f_code.co_name == "method":
                    base = loc.get("op_name") or loc.get("fn_name")
                    if isinstance(base, str):
                        return "inplace", base + "_"
                elif g.f_code.co_name == "masked_fill_":
                    value = loc.get("value")
                    batched = isinstance(value, Tensor) and type(value._data) is BatchedData
                    return "inplace", "masked_fill_" if batched else "copy_"
                elif isinstance(loc.get("name"), str) and loc["name"].endswith("_"):
                    return "inplace", loc["name"]
                elif g.f_code.co_name.endswith("_") and not g.f_code.co_name.startswith("_"):
                    return "inplace", g.f_code.co_name
                g = g.f_back
            return "inplace", None
        f = f.f_back
    return "inplace", None


def _public_level(level):
    """PyTorch's number for vmap level ``level``: its depth among the active transforms."""
    S = _interpose.STATE
    return (sum(1 for lvl, _, _ in S.vmap_levels if lvl <= level)
            + sum(1 for d in S.diff_levels if d <= level))


def inplace_into_unbatched(self_shape, other_shape, level, outer=()):
    """PyTorch's error for an in-place op writing a value batched at ``level`` (logical
    shape ``other_shape``) into a tensor of shape ``self_shape`` that is not batched there
    (but is at the enclosing levels of batch sizes ``outer``, outermost first)."""
    kind, name = _inplace_op()
    if kind == "out":
        return RuntimeError(f"Batching rule not implemented for aten::{name}; the fallback "
                            "path doesn't work on out= or view ops.")
    if name is None or name in _ARITH_INPLACE:
        return RuntimeError(_INPLACE_INTO_UNBATCHED)
    if name in _SHAPE_INPLACE:
        try:
            shape = np.broadcast_shapes(tuple(self_shape), tuple(other_shape))
        except ValueError:
            shape = tuple(other_shape)
        shape = tuple(outer) + (batch_size(level),) + tuple(shape)
        if outer:   # PyTorch shows the physical shapes, the missing batch dim as size 1
            self_shape = tuple(outer) + (1,) + tuple(self_shape)
        return RuntimeError(f"output with shape [{', '.join(map(str, self_shape))}] doesn't "
                            f"match the broadcast shape [{', '.join(map(str, shape))}]")
    if name in _BARE_INPLACE:
        return RuntimeError(_INPLACE_INTO_UNBATCHED.replace("inplace arithmetic", name))
    op = "aten::" + name
    return RuntimeError(_INPLACE_INTO_UNBATCHED.replace("inplace arithmetic", op).replace(
        "in a vmap", f"at level {_public_level(level)}"))


def check_inplace_into_unbatched(self, args):
    """Called when an in-place op on ``self`` fell back to per-sample evaluation: PyTorch's
    error when a batched argument would be written into ``self`` not batched at its level."""
    d = self._data
    own = d.level if type(d) is BatchedData else None
    for a in args:
        if isinstance(a, Tensor) and type(a._data) is BatchedData and \
                (own is None or a._data.level > own):
            raise inplace_into_unbatched(self.shape, a.shape, a._data.level)


def check_random_batched(input, into=None, op=None):
    """A random op whose parameter tensor ``input`` may be batched (called only then):
    PyTorch's errors under randomness='same' (one draw for the whole batch cannot follow
    per-sample parameters) and, for an in-place op ``op`` writing into ``into`` that is not
    batched there, under 'different'."""
    d = input._data
    if type(d) is not BatchedData:
        return
    mode = next((v[2] for v in _interpose.STATE.vmap_levels if v[0] == d.level), None)
    if mode == "same":
        raise RuntimeError("Vmap does not currently support same randomness with a batched "
                           "tensor input. Please file an issue with functorch")
    if mode == "different" and into is not None:
        own = into._data
        if type(own) is not BatchedData or own.level < d.level:
            raise RuntimeError(_INPLACE_INTO_UNBATCHED.replace("inplace arithmetic",
                                                               f"inplace {op}"))


def check_random_inplace(self):
    """An in-place random op (``normal_``, ``uniform_`` ...) inside vmap: PyTorch refuses
    'different' randomness into a tensor not batched at the current level."""
    level, _, mode = _interpose.STATE.vmap_levels[-1]
    d = self._data
    if mode == "different" and (type(d) is not BatchedData or d.level < level):
        raise RuntimeError("vmap: Cannot ask for different inplace randomness on an unbatched "
                           "tensor. This will appear like same randomness. If this is "
                           "necessary for your usage, please file an issue with functorch.")


_ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
         "calling .item() on a Tensor, please try to rewrite what you're doing with other "
         "operations. If error is occurring somewhere inside PyTorch internals, please file a "
         "bug report.")
_CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
                 "control flow. We don't support that yet, please file an issue at "
                 "https://github.com/pytorch/pytorch/issues .")

_DYNAMIC_SHAPE = ("vmap: We do not support batching operators that can output dynamic shape. "
                  "Attempted to vmap over aten::{}. Please file an issue at "
                  "https://github.com/pytorch/pytorch/issues if you need this feature.")

# ops (by the name of the numtorch function reading a batched tensor's data) whose result
# size depends on the values: PyTorch refuses them inside vmap (its aten names)
_DYNAMIC_CALLERS = {"unique": "_unique2", "unique_consecutive": "unique_consecutive"}

_LIKE = (np.zeros_like, np.ones_like, np.empty_like, np.full_like)


def _lift(a, n):
    """Physical array ``a`` (batch first) with ``n`` size-1 dims after the batch dim."""
    if n <= 0:
        return a
    if type(a) is BatchedData:
        raise Unbatchable("nested batched comparison")
    return a.reshape(a.shape[:1] + (1,) * n + a.shape[1:])


class _ShapeOnly(np.ndarray):
    """An array standing for a batched tensor's shape: computing with it raises."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise Unbatchable(f"NumPy ufunc {ufunc.__name__} on a batched tensor")

    def __array_function__(self, func, types, args, kwargs):
        raise Unbatchable(f"NumPy function {func.__name__} on a batched tensor")


class BatchedData:
    """The ``_data`` of a batched tensor: logical metadata plus the physical tensor."""

    __slots__ = ("tensor", "level", "shape", "dtype", "bdim")
    flags = _Flags()

    def __init__(self, tensor, level):
        self.tensor = tensor
        self.level = level
        self.bdim = 0   # only for printing: the in_dim an input was given with
        d = tensor._data
        self.shape = tuple(d.shape[1:])
        self.dtype = d.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def strides(self):
        st, acc = [], self.dtype.itemsize
        for n in reversed(self.shape):
            st.append(acc)
            acc *= max(n, 1)
        return tuple(reversed(st))

    def reshape(self, *shape):
        caller = sys._getframe(1).f_code.co_name
        if shape == ((),):
            # NOTE: how every scalar read (item, bool, float, int, index) starts: PyTorch
            # refuses those inside vmap; anything else falls back to running per sample.
            # (``x in t`` reads ``(t == x).any()`` with .item(), not bool())
            control = caller == "__bool__" and \
                sys._getframe(2).f_code.co_name != "__contains__"
            raise RuntimeError(_CONTROL_FLOW if control else _ITEM)
        if caller in _DYNAMIC_CALLERS:   # unique(x) flattens x first
            raise RuntimeError(_DYNAMIC_SHAPE.format(_DYNAMIC_CALLERS[caller]))
        raise Unbatchable("ndarray.reshape on a batched tensor")

    def item(self):
        # NOTE: ``format(t, ".2f")`` of a 0-dim tensor reads ``_data.item()``
        raise RuntimeError(_ITEM)

    def tolist(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    @property
    def __array_interface__(self):
        # NOTE: read by in-place ops' overlap checks; also probed by NumPy's array coercion,
        # which must not see the physical array under the logical shape
        if sys._getframe(1).f_code.co_name == "data_ptr":
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        raise Unbatchable("__array_interface__ of a batched tensor")

    def __array__(self, dtype=None, copy=None):
        raise Unbatchable("conversion of a batched tensor to a NumPy array")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise Unbatchable(f"NumPy ufunc {ufunc.__name__} on a batched tensor")

    def __array_function__(self, func, types, args, kwargs):
        if func in _LIKE and args and args[0] is self:
            # NOTE: zeros_like & co. read only the shape and dtype: a per-sample array
            stand_in = np.broadcast_to(np.zeros((), self.dtype), self.shape)
            return func(stand_in, *args[1:], **kwargs)
        if func is np.copyto and args and args[0] is self:
            return self._copy_into(*args[1:], **kwargs)
        if func is np.copyto and len(args) > 1 and args[1] is self and \
                type(args[0]) is np.ndarray:
            # NOTE: only in-place ops write a batched value into a plain array (a tensor not
            # vmapped over); PyTorch refuses that rather than run it once per sample
            raise inplace_into_unbatched(args[0].shape, self.shape, self.level)
        caller = sys._getframe(1).f_code.co_name
        if func in (np.argwhere, np.nonzero) and caller == "nonzero":
            # as PyTorch, no per-sample loop: each sample's result has its own shape; but
            # argwhere has PyTorch's generic fallback (a loop, stacked)
            outer = sys._getframe(2).f_code.co_name
            if outer == "argwhere":
                raise Unbatchable("argwhere runs per sample")
            if outer == "where":
                raise RuntimeError(_DYNAMIC_SHAPE.format("where"))
            raise RuntimeError(_DYNAMIC_SHAPE.format("nonzero") if func is np.argwhere else
                               "Batching rule not implemented for aten::nonzero_numpy. We "
                               "could not generate a fallback.")
        if caller in _DYNAMIC_CALLERS:   # unique(x, dim=...), unique_consecutive's moveaxis
            raise RuntimeError(_DYNAMIC_SHAPE.format(
                "unique_dim" if func is np.unique else _DYNAMIC_CALLERS[caller]))
        if func in (np.may_share_memory, np.shares_memory):   # overlap checks: physically
            if len(args) > 1 and type(args[0]) is BatchedData and \
                    type(args[1]) is BatchedData and args[0].level != args[1].level:
                return False   # batched at different levels: PyTorch sees no overlap
            return func(*[a.tensor._data if type(a) is BatchedData else a for a in args],
                        **kwargs)
        raise Unbatchable(f"NumPy function {func.__name__} on a batched tensor")

    def _copy_into(self, src, casting="same_kind", where=True):
        """An in-place write into a batched tensor: into its physical array, per sample."""
        if type(src) is BatchedData:
            if src.level > self.level:   # batched at an inner level this tensor is not
                outer, d = [], self
                while type(d) is BatchedData:
                    outer.append(batch_size(d.level))
                    d = d.tensor._data
                raise inplace_into_unbatched(self.shape, src.shape, src.level,
                                             tuple(reversed(outer)))
            if src.level != self.level or src.shape != self.shape or where is not True:
                raise Unbatchable("in-place write of a differently batched value")
            src = src.tensor._data
        elif type(src) is not np.ndarray and not np.isscalar(src):
            raise Unbatchable("in-place write of an unknown value")
        np.copyto(self.tensor._data, src, casting=casting)

    def view(self, *args):
        """A shape-only stand-in (``_viewable`` tests reshapes on it; rules decide physically)."""
        if args:
            raise Unbatchable("ndarray.view(dtype) on a batched tensor")
        return np.broadcast_to(np.zeros((), self.dtype), self.shape).view(_ShapeOnly)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise Unbatchable(f"ndarray.{name} on a batched tensor")

    def __repr__(self):
        return f"BatchedData(lvl={self.level}, shape={self.shape})"

    __hash__ = object.__hash__
    for _name in ("__bool__", "__len__", "__iter__", "__float__", "__int__", "__index__",
                  "__getitem__", "__setitem__", "__add__", "__radd__", "__sub__", "__rsub__",
                  "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__pow__", "__neg__",
                  "__matmul__"):
        locals()[_name] = _refuse(_name)
    del _name

    # NOTE: ops' argument checks compute masks on ``_data`` and ask ``mask.any()`` ("is any
    # target out of range?"): masks are computed per sample, and any()/all() answer for the
    # whole batch, which is what such a check needs. Values are never read otherwise.
    def _elementwise(self, other, fn):
        a = self.tensor._data
        if type(other) is BatchedData:
            if other.level != self.level:
                raise Unbatchable("comparison of differently batched tensors")
            rank = max(len(self.shape), len(other.shape))
            a = _lift(a, rank - len(self.shape))
            b = _lift(other.tensor._data, rank - len(other.shape))
        else:
            b = other
            extra = np.ndim(other) - len(self.shape)
            a = _lift(a, extra) if extra > 0 else a
        out = fn(a, b)
        return BatchedData(Tensor._make(np.asarray(out) if type(out) is not BatchedData
                                        else out, None, False), self.level)

    def __eq__(self, other):
        return self._elementwise(other, lambda a, b: a == b)

    def __ne__(self, other):
        return self._elementwise(other, lambda a, b: a != b)

    def __lt__(self, other):
        return self._elementwise(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._elementwise(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._elementwise(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._elementwise(other, lambda a, b: a >= b)

    def __and__(self, other):
        return self._elementwise(other, lambda a, b: a & b)

    def __or__(self, other):
        return self._elementwise(other, lambda a, b: a | b)

    def __invert__(self):
        return self._elementwise(True, lambda a, b: ~a)

    def any(self, *args, **kwargs):
        if args or kwargs:
            raise Unbatchable("ndarray.any(axis) on a batched tensor")
        return bool(self.tensor._data.any())

    def all(self, *args, **kwargs):
        if args or kwargs:
            raise Unbatchable("ndarray.all(axis) on a batched tensor")
        return bool(self.tensor._data.all())


_BD = BatchedData


# ---- levels --------------------------------------------------------------------------------
def batch_size(level):
    for lvl, size, _ in _interpose.STATE.vmap_levels:
        if lvl == level:
            return size
    raise AssertionError(f"vmap level {level} is not active")


def level_of(t):
    """The vmap level ``t`` is batched at (its outermost wrapper), or None."""
    d = t._data
    return d.level if type(d) is _BD else None


def top_level(args):
    """The innermost vmap level among the tensors in ``args`` (or None)."""
    best = None
    for a in args:
        if isinstance(a, Tensor):
            d = a._data
            if type(d) is _BD and (best is None or d.level > best):
                best = d.level
    return best


def wrap(p, level):
    """A batched tensor at ``level`` whose physical tensor is ``p`` (batch at dim 0)."""
    if p._rg and p._grad_fn is None:
        p = p.view_as(p)  # a wrapper never stands for a leaf: edges go through p's node
    t = Tensor._make(_BD(p, level), p._grad_fn, p._rg)
    t._output_nr = p._output_nr
    t._vc = p._vc
    ex = p._extra
    if ex is not None and ex.get("fw"):
        _wrap_tangents(p, t, level)
    return t


def batched_repr(t):
    """PyTorch's repr of a tensor inside ``vmap``: ``BatchedTensor(lvl=..., bdim=...,
    value=...)`` around the repr of the tensor one level down (indented by four). ``lvl``
    counts the active transforms from the outermost, as PyTorch's layer stack does."""
    import textwrap
    d = t._data
    value = d.tensor
    if d.bdim:
        value = value.movedim(0, d.bdim)
    S = _interpose.STATE
    lvl = sum(1 for v in S.vmap_levels if v[0] <= d.level) + \
        sum(1 for v in S.diff_levels if v <= d.level)
    return (f"BatchedTensor(lvl={lvl}, bdim={d.bdim}, value=\n"
            f"{textwrap.indent(repr(value), ' ' * 4)}\n)")


def _wrap_tangents(p, t, level):
    from ..autograd import _tangents
    for lvl, tan in _tangents.visible_tangents(p).items():
        _tangents.set_tangent(t, lvl, wrap(tan, level) if tan.shape == p.shape else tan)


def unwrap_all(t):
    """``(plain tensor, levels)``: strip every wrapper; leading dims are the batch dims."""
    levels = []
    while type(t._data) is _BD:
        levels.append(t._data.level)
        t = t._data.tensor
    levels.reverse()
    return t, levels


def levels_of(t):
    levels = []
    while type(t._data) is _BD:
        levels.append(t._data.level)
        t = t._data.tensor
    levels.reverse()
    return levels


def wrap_all(p, levels):
    """Inverse of :func:`unwrap_all` (``levels`` increasing, matching p's leading dims)."""
    for lvl in levels:
        p = wrap(p, lvl)
    return p


def to_layout(t, levels):
    """``t`` batched at (at least) ``levels``, broadcast where it was not; its tangents too.

    NOTE: physical tensors never carry tangents (those live on the wrappers), so the physical
    reshaping runs with every tangent hidden and the tangents are laid out separately.
    """
    from ..autograd import _tangents
    p, have = unwrap_all(t)
    levels = sorted(set(levels) | set(have))
    if have == levels:
        return t
    with _interpose.ceiling(0):
        w = wrap_all(_insert_levels(p, have, levels), levels)
    for lvl, tan in _tangents.visible_tangents(t).items():
        _tangents.set_tangent(w, lvl, to_layout(tan, levels))
    return w


def _insert_levels(p, have, want):
    """Physical ``p`` (batch dims ``have``) broadcast to batch dims ``want`` (a superset)."""
    if want == have:
        return p
    if not set(have) <= set(want):
        raise AssertionError(f"cannot drop batch levels {have} -> {want}")
    logical = list(p.shape[len(have):])
    shape, src = [], 0
    for lvl in want:
        if lvl in have:
            shape.append(p.shape[src])
            src += 1
        else:
            shape.append(1)
    p = p.reshape(shape + logical)
    return p.expand([batch_size(lvl) for lvl in want] + logical)


# ---- op application -----------------------------------------------------------------------
def apply_builtin(cls, args, level):
    """Run built-in op ``cls`` with some arguments batched at ``level``."""
    from . import _batch_rules
    return _batch_rules.rule_for(cls)(cls, args, level)


def wrap_outputs(out, level):
    if isinstance(out, tuple):
        return tuple(wrap(o, level) if isinstance(o, Tensor) else o for o in out)
    return wrap(out, level) if isinstance(out, Tensor) else out


def physical(a, level):
    """The physical tensor of ``a`` at ``level`` (batch at dim 0), or None if unbatched."""
    d = a._data if isinstance(a, Tensor) else None
    if type(d) is _BD and d.level == level:
        p = d.tensor
        if p._rg and not a._rg:   # ``a`` was detached (``.detach()`` copies the wrapper only)
            p = p.detach()
        return p
    return None


def apply_custom(cls, args, kwargs, level):
    """A user Function on batched inputs: its ``vmap`` rule or the generated one."""
    from . import _custom_vmap
    return _custom_vmap.apply(cls, args, kwargs, level)


# ---- autograd on batched tensors ----------------------------------------------------------
def _cotangent(g, out_levels):
    """``g`` laid out for a root batched at ``out_levels``: those levels stripped (physical),
    any other levels kept as wrappers (a batched backward)."""
    p, have = unwrap_all(g)
    extra = [lvl for lvl in have if lvl not in out_levels]
    allv = sorted(set(have) | set(out_levels))
    p = _insert_levels(p, have, allv)
    order = [allv.index(lvl) for lvl in extra] + [allv.index(lvl) for lvl in out_levels]
    order += list(range(len(allv), p.dim()))
    if order != list(range(p.dim())):
        p = p.permute(order)
    return wrap_all(p, extra)


def _rewrap_result(r, in_levels):
    """A gradient w.r.t. a physical input (batch ``in_levels``) back as a batched tensor."""
    if r is None:
        return None
    p, extra = unwrap_all(r)
    allv = extra + list(in_levels)
    if not allv:
        return p
    order = sorted(range(len(allv)), key=lambda i: allv[i])
    order += list(range(len(allv), p.dim()))
    if order != list(range(p.dim())):
        p = p.permute(order)
    return wrap_all(p, sorted(allv))


def grad_any(outputs, inputs, grad_outputs, create_graph=False, allow_unused=False,
             retain_graph=None):
    """``autograd.grad`` for possibly batched outputs, inputs and cotangents."""
    from ..autograd._api import grad
    from .. import _creation
    wrapped = any(type(t._data) is _BD for t in list(outputs) + list(inputs) +
                  [g for g in (grad_outputs or ()) if g is not None])
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    if not wrapped:
        return grad(outputs, inputs, grad_outputs, retain_graph=retain_graph,
                    create_graph=create_graph, allow_unused=allow_unused)
    S = _interpose.STATE
    if any(lvl < S.ceiling for lvl in S.fw_levels):
        # NOTE: tangents live on the wrappers, not on the physical tensors a batched backward
        # runs on, so forward-over-reverse inside vmap would lose them: loop instead.
        raise Unbatchable("forward-mode AD over a backward pass inside vmap")
    roots, cots = [], []
    for o, g in zip(outputs, grad_outputs):
        p, lv = unwrap_all(o)
        if g is None:
            g = _creation.ones_like(o)
        roots.append(p)
        cots.append(_cotangent(g, lv))
    phys_in, in_levels = zip(*[unwrap_all(x) for x in inputs]) if inputs else ((), ())
    res = grad(roots, list(phys_in), cots, retain_graph=retain_graph,
               create_graph=create_graph, allow_unused=allow_unused)
    return tuple(_rewrap_result(r, lv) for r, lv in zip(res, in_levels))


def differentiable_copy(a):
    """``a`` as a tensor that requires grad, connected to ``a`` when ``a`` requires grad, with
    the same batching and visible tangents."""
    from ..autograd import _tangents
    if a._rg:
        return _copy_bdims(a, a.view_as(a))
    p, lv = unwrap_all(a)
    q = p.detach().requires_grad_()
    if lv:
        q = _copy_bdims(a, wrap_all(q.view_as(q), lv))
    return _tangents.copy_visible_tangents(a, q)


def _copy_bdims(src, dst):
    """``dst`` (batched as ``src``) printing the in_dims ``src`` prints (PyTorch's grad
    wraps the batched input itself, which keeps them)."""
    s, d = src._data, dst._data
    while type(s) is _BD and type(d) is _BD and s.level == d.level:
        d.bdim = s.bdim
        s, d = s.tensor._data, d.tensor._data
    return dst


def fresh_leaf_like(y, extra=()):
    """Zeros shaped like ``y`` that require grad, batched at the levels of ``y`` and of
    ``extra`` (so that a batched cotangent gets one gradient per sample)."""
    from .. import _creation
    levels = set(levels_of(y))
    for e in extra:
        if e is not None:
            levels.update(levels_of(e))
    levels = sorted(levels)
    shape = [batch_size(lvl) for lvl in levels] + list(y.shape)
    p = _creation.zeros(shape, dtype=y.dtype).requires_grad_()
    return wrap_all(p.view_as(p), levels) if levels else p
