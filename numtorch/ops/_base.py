"""``BuiltinFunction``: the fast ``apply`` for built-in ops, whose forward runs on ndarrays.

A built-in op is a ``Function`` like any user's (same ctx API, same engine path); the only
difference is that its forward receives ``Tensor._data`` arrays instead of Tensors, and that
when nothing needs a gradient no node is built at all.
"""
import numpy as np

from ..autograd.function import Function, _link_inputs, _new_ctx
from ..autograd.grad_mode import STATE
from ..autograd.graph import pack_saved
from .._tensor import Tensor

_ndarray = np.ndarray
_make = Tensor._make


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


class BuiltinFunction(Function):
    """Base of numtorch's own ops. Subclasses set ``_backward_name`` (e.g. 'MulBackward0')
    and ``_is_view`` when the output aliases input 0."""

    _builtin = True
    _is_view = False

    @classmethod
    def apply(cls, *args):
        """Run the op on Tensors (and non-tensor arguments) and return Tensor output(s)."""
        record = False
        arrays = []
        for a in args:
            if isinstance(a, Tensor):
                arrays.append(a._data)
                if a._rg:
                    record = True
            else:
                arrays.append(a)
        if record and STATE.enabled:
            return _apply_recorded(cls, args, arrays)
        try:
            out = cls.forward(NULL_CTX, *arrays)
        except ValueError as e:
            raise _translate(e, arrays) from None
        if type(out) is tuple:
            return tuple(_wrap_plain(cls, o, args) for o in out)
        return _wrap_plain(cls, out, args)


def _wrap_plain(cls, out, args):
    if type(out) is not _ndarray:
        if out is None or isinstance(out, (int, float, bool)) and not isinstance(out, np.generic):
            return out
        out = np.asarray(out)
    t = _make(out, None, False)
    if cls._is_view:
        _mark_view(t, cls, args)
    return t


def _mark_view(t, cls, args):
    base = args[0]
    t._vc = base._vc
    t._base = base if base._base is None else base._base
    t._view = (base._view or ()) + ((cls, args[1:]),)


def _apply_recorded(cls, args, arrays):
    ctx = _new_ctx(cls)
    needs = tuple([isinstance(a, Tensor) and a._rg for a in args])
    ctx.needs_input_grad = needs
    _link_inputs(ctx, args, needs)
    try:
        out = cls.forward(ctx, *arrays)
    except ValueError as e:
        raise _translate(e, arrays) from None
    is_tuple = type(out) is tuple
    outs = out if is_tuple else (out,)
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
            _mark_view(t, cls, args)
        results.append(t)
        meta.append((o.shape, t.dtype))
    ctx._out_meta = tuple(meta)
    if ctx.to_save:
        _resolve_saved_arrays(ctx, args, results)
    return tuple(results) if is_tuple else results[0]


def _resolve_saved_arrays(ctx, args, outputs):
    """Map saved arrays back to the input/output Tensors they came from (by identity)."""
    entries = []
    for a in ctx.to_save:
        entries.append(_entry_for(ctx, a, args, outputs))
    ctx.to_save = None
    ctx._saved = tuple(entries)


def _entry_for(ctx, a, args, outputs):
    if a is None:
        return None
    if isinstance(a, Tensor):
        return pack_saved(a, ctx, False)
    for t in args:
        if isinstance(t, Tensor) and t._data is a:
            return pack_saved(t, ctx, False)
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
    a, b = shapes[0], shapes[1]
    n = max(len(a), len(b))
    for k in range(1, n + 1):
        sa = a[-k] if k <= len(a) else 1
        sb = b[-k] if k <= len(b) else 1
        if sa != sb and sa != 1 and sb != 1:
            return RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b "
                                f"({sb}) at non-singleton dimension {n - k}")
    return err
