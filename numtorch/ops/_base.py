"""``BuiltinFunction``: the fast ``apply`` for built-in ops, whose forward runs on ndarrays.

A built-in op is a ``Function`` like any user's (same ctx API, same engine path); the only
difference is that its forward receives ``Tensor._data`` arrays instead of Tensors, and that
when nothing needs a gradient no node is built at all.
"""
import numpy as np

from .. import _dtype as D
from ..autograd.function import BackwardCFunction, Function, _TRUE1
from ..autograd.grad_mode import STATE
from ..autograd.graph import ANOMALY, pack_saved, _hook_stack, _sequence, _CallableNode
from .._tensor import Tensor
from ._util import infer_size

_ndarray = np.ndarray
_make = Tensor._make
_new = object.__new__
_FROM_NP = D._FROM_NP
# Set by numtorch.autograd._interpose while forward AD or vmap is active; None otherwise.
_interpose = None


class _NullCtx:
    """The ctx handed to forward when nothing is recorded: saving is a no-op."""

    __slots__ = ("__dict__",)
    needs_input_grad = (False,) * 16

    def save_for_backward(self, *args):
        pass

    def mark_dirty(self, *args):
        pass

    def mark_non_differentiable(self, *args):
        pass

    def set_materialize_grads(self, value):
        pass


NULL_CTX = _NullCtx()


class _BuiltinNode(BackwardCFunction, _CallableNode):
    """Base of built-in ops' nodes: forward saves ndarrays (trusted), resolved after it."""

    __slots__ = ()

    def save_for_backward(self, *arrays):
        self.to_save = arrays


class BuiltinFunction(Function):
    """Base of numtorch's own ops. Subclasses set ``_backward_name`` (e.g. 'MulBackward0')
    and ``_is_view`` when the output aliases input 0."""

    _builtin = True
    _is_view = False
    _saves_operands = False  # Mul: ``record_binary`` saves operands as Mul.forward does
    # True where every tuple the op's ``_np_backward`` returns is exact: one entry per
    # argument, in order, each None or an array with its input's shape and dtype, and only
    # Nones from the first argument without an edge on (so entry i is edge i's): nothing
    # for the engine's gradient check to fix. The engine then skips that check; a subclass
    # overriding ``backward`` loses its array backward, and with it this promise.
    _np_exact = False
    _wrapped_scalars = ()  # arg positions where PyTorch wraps a Python scalar as a tensor
    # arg positions (besides those) that PyTorch differentiates, so that an integer or bool
    # tensor there still has an edge, (None, 0) (x * int_tensor); not indices or masks
    _int_edges = ()
    _view_step = None  # multi-output views: (args, i) -> the (op, args) making output i
    _node_base = _BuiltinNode

    @classmethod
    def apply(cls, *args):
        """Run the op on Tensors (and non-tensor arguments) and return Tensor output(s)."""
        # NOTE: the hot path of every op. One- and two-argument calls are unrolled; a node is
        # built only when grad mode is on and some input requires grad.
        if _interpose is not None:  # forward AD / vmap: see autograd/_interpose.py
            out = _interpose(cls, args)
            if out is not NotImplemented:
                return out
        n = len(args)
        if n == 1:
            a = args[0]
            if isinstance(a, Tensor):
                if a._rg and STATE.enabled:
                    return _record1(cls, a)
                arrays = (a._data,)
            else:
                arrays = args
        elif n == 2:
            a, b = args
            record = False
            if isinstance(a, Tensor):
                record = a._rg
                a = a._data
            if isinstance(b, Tensor):
                record = record or b._rg
                b = b._data
            arrays = (a, b)
            if record and STATE.enabled:
                return _apply_recorded(cls, args, arrays)
        else:
            if STATE.enabled:
                for a in args:
                    if isinstance(a, Tensor) and a._rg:
                        # NOTE: _apply_recorded collects the arrays in its own pass
                        return _apply_recorded(cls, args, None)
            arrays = [a._data if isinstance(a, Tensor) else a for a in args]
        try:
            out = cls.forward(NULL_CTX, *arrays)
        except ValueError as e:
            raise _translate(e, arrays) from None
        if type(out) is _ndarray and not cls._is_view:
            return _make(out, None, False)
        if type(out) is tuple:
            return tuple(_wrap_plain(cls, o, args, i) for i, o in enumerate(out))
        return _wrap_plain(cls, out, args)


def _wrap_plain(cls, out, args, i=0):
    if type(out) is not _ndarray:
        if out is None or isinstance(out, (int, float, bool)) and not isinstance(out, np.generic):
            return out
        out = np.asarray(out)
    t = _make(out, None, False)
    if cls._is_view:
        _mark_view(t, cls, args, i)
    return t


def _new_vc(t):
    """Give fresh tensor ``t`` its version counter list now (see Tensor._vc)."""
    vc = t._vcs = [0]
    return vc


def _mark_view(t, cls, args, i=0):
    base = args[0]
    vc = base._vcs  # the shared counter, made here if the base has none yet (Tensor._vc)
    if vc is None:
        vc = base._vcs = [0]
    t._vcs = vc
    t._base = base if base._base is None else base._base
    # a multi-output view op (unbind, split) names the single step that makes output i
    step = cls._view_step(args[1:], i) if cls._view_step else (cls, args[1:])
    t._view = (base._view or ()) + (step,)
    t._view_ver = vc[0]
    if base._rg and t._grad_fn is None or base._extra is not None and "ng_view" in base._extra:
        # made with grad mode off from a tensor that requires grad (or a view of such a view)
        from ..autograd._copy_slices import mark_no_grad_view
        mark_no_grad_view(t, base)
    elif not STATE.enabled or base._extra is not None and "ng_plain" in base._extra:
        # NOTE: made in no_grad mode from a tensor that does not require grad (or a view of
        # such a view): PyTorch's CreationMeta NO_GRAD_MODE, an error only for an in-place
        # change that records (ops/inplace.py)
        made = base._extra.get("ng_plain") if base._extra is not None else None
        t._set_extra("ng_plain", made or ("inference" if STATE.inference else "no_grad"))


_NO_EDGE = (None, 0)
_WRAPPED_META = ((), None)  # a Python scalar operand: an edge, never a gradient
# What ``tensor * number`` saves: no tensor (the number is ``ctx.scalar``), but, like the
# wrapped-number operand PyTorch's MulBackward0 saves, a slot that backward frees, so that
# backward through it a second time raises as in PyTorch. Mul tests identity with it.
SCALAR_SAVED = (None, None)



def record_unary(cls, a, out, uses):
    """Record ``out = f(a)`` for an elementwise unary op on float data (``ops._unary``),
    which saves its input (``uses`` "x"), its output ("out") or nothing: ``_record1``,
    ``forward`` and ``_finish`` folded into one step for the hottest ops."""
    d = a._data
    if type(out) is not _ndarray:
        out = np.asarray(out)
    ctx = _new(cls._backward_cls)
    # NOTE: _init_ctx and _init_node inlined (test_fast_paths checks that every slot they
    # set is set here too); anomaly mode swaps _init_node, and then it is called
    ctx.to_save = ctx._dirty = ctx._non_diff = None
    ctx._materialize = True
    fn = a._grad_fn
    if fn is not None and a._view is None:
        edges = ((fn, a._output_nr),)
        # the input node's out meta when it matches: a chain of ops shares one tuple (fewer
        # objects for the garbage collector to track, no dtype lookup)
        meta = fn._out_meta
        if meta is None or len(meta) != 1 or meta[0] is None or \
                meta[0][1].np is not d.dtype or meta[0][0] != d.shape:
            meta = ((d.shape, _FROM_NP[d.dtype]),)
    else:
        edges = (a._edge(),)
        meta = ((d.shape, _FROM_NP[d.dtype]),)
    if ANOMALY[0]:
        ctx._init_node(edges)
    else:
        ctx.next_functions = edges
        ctx._seq = next(_sequence)
        ctx._x = None
    ctx._in_meta = meta
    dt = out.dtype
    ctx._out_meta = meta if dt is d.dtype and out.shape == d.shape else \
        ((out.shape, _FROM_NP[dt]),)
    ctx.needs_input_grad = _TRUE1
    t = _make(out, ctx, True)
    # NOTE: pack_saved's entries inlined for the case without saved-tensor hooks
    if uses == "x":
        if not _hook_stack:
            ctx._saved = a  # pack_saved's entry, in its compact form (graph.saved_entries)
            vc = a._vcs  # (None: never bumped, version 0; see Tensor._vc)
            ctx._one_saved_ver = 0 if vc is None else vc[0]
        else:
            ctx._saved = (pack_saved(a, ctx, False),)
    elif uses == "out":
        # (``t`` is fresh and not an inference tensor: its counter is made here)
        ctx._saved = ((1, out, _new_vc(t), 0, 0, True),) if not _hook_stack else \
            (pack_saved(t, ctx, True),)
    else:
        ctx._saved = ()
    return t


def record_binary(cls, a, b, out):
    """Record ``out = a (op) b`` for ``Add`` or ``Mul`` (the operator fast path in
    ``ops/__init__.py``): ``a`` a float Tensor, ``b`` a float Tensor of the same dtype or a
    Python number. The same node ``_apply_recorded`` and the op's forward would build; Mul
    saves each operand only for the other's gradient, a Python number as ``ctx.scalar``."""
    if type(out) is not _ndarray:
        out = np.asarray(out)
    ctx = _new(cls._backward_cls)
    # NOTE: _init_ctx inlined, as in record_unary
    ctx.to_save = ctx._dirty = ctx._non_diff = None
    ctx._materialize = True
    ctx._saved = ()
    d = a._data
    ra = a._rg
    fn = a._grad_fn
    if fn is not None and a._view is None:
        meta = fn._out_meta  # shared with the input's node when it matches
        if meta is None or len(meta) != 1 or meta[0] is None or \
                meta[0][1].np is not d.dtype or meta[0][0] != d.shape:
            meta = ((d.shape, _FROM_NP[d.dtype]),)
        ea = (fn, a._output_nr) if ra else _NO_EDGE
    else:
        meta = ((d.shape, _FROM_NP[d.dtype]),)
        ea = a._edge() if ra else _NO_EDGE
    ma = meta[0]
    mul = cls._saves_operands
    if type(b) is Tensor:
        db = b._data
        rb = b._rg
        if rb:
            fn = b._grad_fn
            eb = (fn, b._output_nr) if fn is not None and b._view is None else b._edge()
        else:
            eb = _NO_EDGE
        edges = (ea, eb)
        ctx._in_meta = (ma, ma if db.shape == ma[0] else (db.shape, ma[1]))
        ctx.needs_input_grad = (ra, rb)
        if mul:  # NOTE: ``other`` packed first, as PyTorch's MulBackward0 (pack hooks' order)
            sb = pack_saved(b, ctx, False) if ra else None
            ctx._saved = (pack_saved(a, ctx, False) if rb else None, sb)
    else:
        if 1 in cls._wrapped_scalars:
            edges = (ea, _NO_EDGE)
            in_meta = _WRAPPED_IN.get(meta)
            if in_meta is None:
                in_meta = _wrapped_in_meta(meta)
            ctx._in_meta = in_meta
        else:
            edges = (ea,)
            ctx._in_meta = (ma, None)
        ctx.needs_input_grad = _TRUE_FALSE
        if mul:
            ctx.scalar = b
            ctx._saved = SCALAR_SAVED
    if ANOMALY[0]:  # NOTE: _init_node inlined, as in record_unary
        ctx._init_node(edges)
    else:
        ctx.next_functions = edges
        ctx._seq = next(_sequence)
        ctx._x = None
    shape = out.shape
    ctx._out_meta = meta if out.dtype is d.dtype and shape == ma[0] else \
        ((shape, _FROM_NP[out.dtype]),)
    return _make(out, ctx, True)


# ``(m,)`` -> ``(m, _WRAPPED_META)``: the in meta of ``tensor (op) number``, shared by the
# nodes of one shape and dtype (fewer objects for the garbage collector to track)
_WRAPPED_IN = {}


def _wrapped_in_meta(meta):
    if len(_WRAPPED_IN) >= 256:
        _WRAPPED_IN.clear()
    m = _WRAPPED_IN[meta] = (meta[0], _WRAPPED_META)
    return m


_TRUE_FALSE = (True, False)


def _record1(cls, a):
    """``_apply_recorded`` unrolled for one Tensor argument that requires grad."""
    d = a._data
    ctx = _new(cls._backward_cls)
    ctx._init_ctx()
    fn = a._grad_fn
    ctx._init_node(((fn, a._output_nr) if fn is not None and a._view is None else a._edge(),))
    ctx._in_meta = ((d.shape, _FROM_NP[d.dtype]),)
    ctx.needs_input_grad = _TRUE1
    try:
        out = cls.forward(ctx, d)
    except ValueError as e:
        raise _translate(e, (d,)) from None
    return _finish(cls, ctx, (a,), out)


def _apply_recorded(cls, args, arrays):
    """Record ``cls`` on ``args``: ``arrays`` are their data (collected here when None)."""
    ctx = _new(cls._backward_cls)
    ctx._init_ctx()
    edges = []
    needs = []
    meta = []
    collect = arrays is None
    if collect:
        arrays = []
    # NOTE: as in PyTorch's next_functions, an edge for each floating tensor input and each
    # Python scalar the op takes as a (wrapped) tensor; none for indices, masks, dims ...
    wrapped = cls._wrapped_scalars
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            d = a._data
            if collect:
                arrays.append(d)
            dt = d.dtype
            if dt.kind in "fc":
                meta.append((d.shape, _FROM_NP[dt]))
                if a._rg:
                    fn = a._grad_fn
                    edges.append((fn, a._output_nr) if fn is not None and a._view is None
                                 else a._edge())
                    needs.append(True)
                    continue
                edges.append(_NO_EDGE)
            elif wrapped and i in wrapped or i in cls._int_edges:  # (see _int_edges)
                meta.append((d.shape, _FROM_NP[dt]))
                edges.append(_NO_EDGE)
            else:
                meta.append(None)
        else:
            if collect:
                arrays.append(a)
            if wrapped and i in wrapped:
                meta.append(_WRAPPED_META)
                edges.append(_NO_EDGE)
            else:
                meta.append(None)
        needs.append(False)
    ctx._init_node(tuple(edges))
    ctx._in_meta = tuple(meta)
    ctx.needs_input_grad = _TRUE1 if needs == [True] else tuple(needs)  # (see _TRUE1)
    try:
        out = cls.forward(ctx, *arrays)
    except ValueError as e:
        raise _translate(e, arrays) from None
    return _finish(cls, ctx, args, out)


def _finish(cls, ctx, args, out):
    """Wrap forward's result(s) as outputs of ``ctx`` and resolve what it saved."""
    if type(out) is not _ndarray:
        if type(out) is tuple:
            return _wrap_recorded_tuple(cls, ctx, args, out)
        raw, out = out, np.asarray(out)
        if ctx.to_save:  # NOTE: a 0-d result comes as a NumPy scalar: saved, it is the output
            ctx.to_save = tuple([out if x is raw else x for x in ctx.to_save])
    dt = out.dtype
    kind = dt.kind
    if kind == "f" or kind == "c":
        t = _make(out, ctx, True)
    else:
        t = _make(out, None, False)
    if cls._is_view:
        _mark_view(t, cls, args)
    meta = ctx._in_meta
    shape = out.shape
    # NOTE: most ops keep shape and dtype: share the input's meta tuple (fewer allocations)
    if len(meta) == 1 and meta[0] is not None and meta[0][0] == shape and \
            meta[0][1].np is dt:
        ctx._out_meta = meta
    else:
        ctx._out_meta = ((shape, _FROM_NP[dt]),)
    saved = ctx.to_save
    if saved:
        ctx.to_save = None
        if len(saved) == 1:
            ctx._saved = (_entry_for(ctx, saved[0], args, (t,)),)
        else:
            ctx._saved = tuple([_entry_for(ctx, x, args, (t,)) for x in saved])
            if saved[0] is saved[1] and saved[0] is not None or len(saved) > 2:
                _shared_arrays(ctx, saved, args)
    return t


def _wrap_recorded_tuple(cls, ctx, args, outs):
    results = []
    meta = []
    for i, o in enumerate(outs):
        if type(o) is not _ndarray:
            o = np.asarray(o)
        kind = o.dtype.kind
        diff = kind == "f" or kind == "c"
        t = _make(o, ctx if diff else None, diff)
        t._output_nr = i
        if cls._is_view:
            _mark_view(t, cls, args, i)
        results.append(t)
        meta.append((o.shape, t.dtype))
    ctx._out_meta = tuple(meta)
    if ctx.to_save:
        _resolve_saved_arrays(ctx, args, results)
    return tuple(results)


def _resolve_saved_arrays(ctx, args, outputs):
    """Map saved arrays back to the input/output Tensors they came from (by identity)."""
    entries = []
    saved = ctx.to_save
    for a in saved:
        entries.append(_entry_for(ctx, a, args, outputs))
    ctx.to_save = None
    ctx._saved = tuple(entries)
    if len(saved) > 1:
        _shared_arrays(ctx, saved, args)


def _shared_arrays(ctx, saved, args):
    """Re-map the saved arrays that several inputs share (``mse_loss(x, x.detach())``: the
    detached target holds x's very array): the k-th time one array is saved is the k-th
    input holding it, not always the first (whose ``requires_grad`` it would show)."""
    seen = {}
    entries = None
    for i, a in enumerate(saved):
        if a is None:
            continue
        k = seen[id(a)] = seen.get(id(a), -1) + 1
        if not k:
            continue
        holders = [t for t in args if isinstance(t, Tensor) and t._data is a]
        if k < len(holders):
            entries = list(ctx._saved) if entries is None else entries
            entries[i] = pack_saved(holders[k], ctx, False)
    if entries is not None:
        ctx._saved = tuple(entries)


def _entry_for(ctx, a, args, outputs):
    if a is None:
        return None
    for t in args:
        if isinstance(t, Tensor) and t._data is a:
            return pack_saved(t, ctx, False)
    if isinstance(a, Tensor):
        return pack_saved(a, ctx, False)
    for t in outputs:
        if t._data is a:
            return pack_saved(t, ctx, t._grad_fn is ctx)
    return pack_saved(_make(a, None, False), ctx, False)


def _translate(err, arrays):
    """NumPy's broadcasting ValueError as PyTorch's RuntimeError; other errors unchanged."""
    if "broadcast" not in str(err):
        return err
    shapes = [a.shape for a in arrays if type(a) is _ndarray]
    if len(shapes) < 2:
        return err
    # NOTE: as PyTorch, the operands broadcast one by one; "a" is the shape so far
    a = shapes[0]
    try:
        for b in shapes[1:]:
            a = infer_size(a, b)
    except RuntimeError as mismatch:
        return mismatch
    return err
