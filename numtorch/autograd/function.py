"""The custom autograd ``Function``: the one mechanism behind every differentiable op.

A subclass defines ``forward`` and ``backward`` as static methods; ``Function.apply`` runs the
forward without recording, then links the outputs to a node (an instance of the class's
generated ``<Name>Backward`` class, which is also the ``ctx`` the methods receive).

>>> import numtorch as torch
>>> class Double(torch.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         return x * 2
...     @staticmethod
...     def backward(ctx, grad):
...         return grad * 2
>>> x = torch.tensor([3.0], requires_grad=True)
>>> Double.apply(x).backward()
>>> x.grad
tensor([2.])
"""
import functools
import inspect
import warnings

import numpy as np

from .._dtype import _FROM_NP
from .grad_mode import STATE
from .graph import (ANOMALY, Node, DelayedError, pack_saved, unpack_saved, freed_error,
                    saved_entries, _hook_stack, _sequence)
from ._saved_attrs import saved_attr_properties
from .._naming import use_torch_names

Tensor = None  # bound by numtorch._tensor after the class exists (import cycle)

__all__ = ["FunctionCtx", "BackwardCFunction", "FunctionMeta", "Function", "once_differentiable",
           "InplaceFunction", "NestedIOFunction"]

_FREED = object()  # marks released saved tensors (compared by identity)
_CLEARED = object()  # saved tensors read once under clear_saved_tensors_on_access
# Set by autograd._interpose while forward AD / vmap / torch.func is active; None otherwise.
_interpose = None


class _FunctionBase:
    """The C++ base PyTorch gives custom Functions and their nodes (``torch._C._FunctionBase``):
    here only a name in their ``__mro__``, so that scripts printing or testing it see
    PyTorch's class hierarchy."""

    __slots__ = ()


_FunctionBase.__module__ = "torch._C"  # where PyTorch's class lives (what __mro__ prints)


class _HookMixin:
    """``_register_hook``: add ``hook`` to a dict of hooks (made when None), keyed by the id of
    the RemovableHandle returned with it."""

    __slots__ = ()

    @staticmethod
    def _register_hook(backward_hooks, hook):
        from ..utils.hooks import RemovableHandle
        if backward_hooks is None:
            backward_hooks = {}
        handle = RemovableHandle(backward_hooks)
        backward_hooks[handle.id] = hook
        return backward_hooks, handle


class FunctionCtx:
    """Methods available on ``ctx`` inside ``forward``/``setup_context``/``backward``."""

    __slots__ = ()

    def save_for_backward(self, *tensors):
        """Save tensors (or None) for ``backward``; read them back with ``ctx.saved_tensors``.

        As in PyTorch, what is saved is checked once ``forward`` has returned, and only when
        a node is recorded (anything but a tensor or None then raises TypeError)."""
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Save tensors for ``jvp`` (forward-mode AD)."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Declare inputs that ``forward`` modified in place; they must be returned."""
        self._dirty = args

    def mark_non_differentiable(self, *args):
        """Declare outputs that get no gradient (``requires_grad=False``)."""
        self._non_diff = args

    def set_materialize_grads(self, value):
        """With False, ``backward`` receives None instead of zeros for unused outputs."""
        self._materialize = bool(value)

    # What mark_dirty / mark_non_differentiable were given, as PyTorch's ctx shows it: the
    # tuple during forward, None once apply has wrapped the outputs
    dirty_tensors = property(lambda self: self._dirty,
                             lambda self, value: setattr(self, "_dirty", value))
    non_differentiable = property(lambda self: self._non_diff,
                                  lambda self, value: setattr(self, "_non_diff", value))

    @property
    def materialize_grads(self):
        # write-only in PyTorch (a C attribute without a getter)
        raise AttributeError("attribute 'materialize_grads' of 'torch._C._FunctionBase' "
                             "objects is not readable")

    @materialize_grads.setter
    def materialize_grads(self, value):
        self._materialize = bool(value)

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, checked for in-place modification."""
        saved = self._saved
        if type(saved) is Tensor:  # one tensor saved as it is (graph.saved_entries)
            vc = saved._vcs  # (None: never bumped, version 0; see Tensor._vc)
            if (0 if vc is None else vc[0]) == self._one_saved_ver and \
                    not self._forward_cls.clear_saved_tensors_on_access:
                return (saved,)
            saved = saved_entries(self)
        elif type(saved) is tuple and len(saved) == 1:
            # NOTE: fast path, one input saved as it is (kind 0) and still at its version
            e = saved[0]
            if e is not None and e[0] == 0 and e[1]._vc[0] == e[2] and \
                    not self._forward_cls.clear_saved_tensors_on_access:
                return (e[1],)
        if saved is _FREED:
            raise freed_error()
        if saved is _CLEARED:
            raise RuntimeError(
                "saved_tensors can only be accessed once when clear_saved_tensors_on_access="
                "True is set on the autograd.Function. Either access saved_tensors only once, "
                "or set clear_saved_tensors_on_access=False.")
        n = len(saved)
        if n == 1:
            out = (unpack_saved(saved[0], self),)
        elif n == 0:
            out = ()
        else:
            out = tuple([unpack_saved(e, self) for e in saved])
        if self._forward_cls.clear_saved_tensors_on_access:
            self._saved = _CLEARED
        return out

    @property
    def saved_variables(self):
        """Deprecated spelling of ``saved_tensors`` (warns, as PyTorch does)."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'",
                      DeprecationWarning, stacklevel=2)
        return self.saved_tensors


def saved_one(ctx):
    """``ctx.saved_tensors[0]`` for a node that saved one tensor (a built-in op's backward:
    the same checks, without building the tuple)."""
    saved = ctx._saved
    if not ctx._forward_cls.clear_saved_tensors_on_access:
        if type(saved) is Tensor:
            vc = saved._vcs  # (None: never bumped, version 0; see Tensor._vc)
            if (0 if vc is None else vc[0]) == ctx._one_saved_ver:
                return saved
        elif type(saved) is tuple and len(saved) == 1:
            return unpack_saved(saved[0], ctx)
    return ctx.saved_tensors[0]


class BackwardCFunction(_FunctionBase, FunctionCtx, _HookMixin, Node):
    """The node a Function leaves in the graph; it is also that call's ``ctx``."""

    # (_one_saved_ver: the version of the one tensor of the compact ``_saved``, see
    # graph.saved_entries; set only with it)
    __slots__ = ("to_save", "_saved", "_one_saved_ver", "needs_input_grad", "_in_meta",
                 "_out_meta", "_materialize", "_dirty", "_non_diff", "__dict__")
    _forward_cls = None
    saved_for_forward = None  # (save_for_forward's tensors, in the instance's __dict__)

    def _init_ctx(self):
        self.to_save = None
        self._saved = ()
        self._materialize = True
        self._dirty = self._non_diff = None

    def name(self):
        return self._forward_cls._node_name or type(self).__name__

    @property
    def _raw_saved_tensors(self):
        """A ``SavedTensor`` per tensor saved for backward (to set hooks on one of them)."""
        from .graph import raw_saved_tensors
        return raw_saved_tensors(self)

    # NOTE: no __call__: a custom Function's node is a Python object in PyTorch, and
    # ``callable(grad_fn)`` is False for it (built-in nodes take graph._CallableNode's)

    def apply(self, *grads):
        """Call the user's backward on ``grads`` (as the engine does, without checks)."""
        return self._forward_cls._backward_fn(self, *grads)

    def _release(self):
        saved = self._saved
        if type(saved) is not tuple or saved:  # (not the compact form's tensor's truth)
            self._saved = _FREED

    def _backward(self, grads, create_graph):
        """Run backward for one engine step: materialise, call, then check the result."""
        cls = self._forward_cls
        if self._materialize:
            for g in grads:
                if g is None:
                    grads = list(grads)  # post hooks see the engine's list: None stays None
                    _materialize(grads, self._out_meta)
                    break
        if cls.boxed_grads_call:
            result = cls._backward_fn(self, grads)
        else:
            result = cls._backward_fn(self, *grads)
        return _check_grads(self, result)


def _materialize(grads, out_meta):
    for i, g in enumerate(grads):
        if g is None and out_meta[i] is not None:
            grads[i] = _zeros(out_meta[i])


def _zeros(meta):
    shape, dtype = meta
    return Tensor._make(np.zeros(shape, dtype.np), None, False)


def _check_grads(node, result):
    """Validate backward's return against the forward inputs; reduce/cast to their metadata."""
    if type(result) is Tensor:
        # NOTE: fast path, the common case of a one-input op: a bare gradient that already
        # has its input's shape and dtype needs no check
        in_meta = node._in_meta
        if len(in_meta) == 1 and node.needs_input_grad[0]:
            meta = in_meta[0]
            d = result._data
            if meta is not None and d.shape == meta[0] and d.dtype is meta[1].np:
                return [result]
    elif type(result) is tuple:
        fine = _all_fine(node, result)
        if fine is not None:
            return fine
    if type(result) is not tuple:  # a list too is one (invalid) value, as in PyTorch
        result = (result,)
    in_meta = node._in_meta
    n = len(in_meta)
    if len(result) != n:
        if len(result) < n and node._forward_cls._builtin:
            result = result + (None,) * (n - len(result))  # trailing non-tensor arguments
        elif len(result) > n and all(g is None for g in result[n:]):
            result = result[:n]
        else:
            raise RuntimeError(f"function {node.name()} returned an incorrect number of "
                               f"gradients (expected {n}, got {len(result)})")
    needs = node.needs_input_grad
    out = list(result)
    for i in range(n):
        g = out[i]
        if g is None:
            continue
        meta = in_meta[i]
        # NOTE: a non-tensor argument's position is checked before the gradient's type, as
        # PyTorch does (``return g, 2`` for ``apply(x, 2)`` names the position)
        if meta is None:
            if node._forward_cls._builtin:  # an index or mask argument: no gradient
                out[i] = None
                continue
            raise RuntimeError(
                f"function {node.name()} returned a gradient different than None at position "
                f"{i + 1}, but the corresponding forward input was not a Variable")
        if type(g) is not Tensor and not isinstance(g, Tensor):
            if not (node._forward_cls._builtin and isinstance(g, (np.ndarray, np.generic))):
                raise RuntimeError(f"expected Variable or None (got {_type_name(g)})")
            g = Tensor._make(np.asarray(g), None, False)  # a built-in op's array backward's
        if not needs[i]:
            # NOTE: a custom Function's is kept as returned (it has no edge to follow):
            # PyTorch's post hooks see it; a built-in op computes none
            if node._forward_cls._builtin:
                out[i] = None
            continue
        shape, dtype = meta
        d = g._data
        if d.shape != shape:
            g = _reduce_grad(node, i, g, shape)
            d = g._data
        if d.dtype is not dtype.np and d.dtype != dtype.np:
            if not node._forward_cls._builtin:
                _check_grad_kind(d.dtype, dtype)
            if d.dtype.kind == "c" and not dtype.is_complex:
                g = g.real  # as PyTorch: a real input's gradient is the real part
            g = g.to(dtype)
        out[i] = g
    if None in in_meta:  # only tensor inputs have an edge (next_functions), as in PyTorch
        out = [g for g, m in zip(out, in_meta) if m is not None]
    return out


def _check_grad_kind(grad_np_dtype, input_dtype):
    """PyTorch's engine check on a custom Function's gradient of another dtype than its
    input: a real floating gradient casts to anything, any other one (integer, bool,
    complex) only where it is complex exactly when the input is."""
    if grad_np_dtype.kind != "f" and (grad_np_dtype.kind == "c") != input_dtype.is_complex:
        raise RuntimeError(
            "Expected isFloatingType(grad.scalar_type()) || (input_is_complex == "
            "grad_is_complex) to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)")


def _type_name(x):
    """A type's name as PyTorch's messages give it: a class defined in Python by its name,
    one defined in C by its full name (``numpy.ndarray``; ``int`` for builtins)."""
    tp = type(x)
    if tp.__flags__ & (1 << 9) or tp.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return tp.__name__
    return f"{tp.__module__}.{tp.__name__}"


def _all_fine(node, result):
    """Fast check for a tuple of gradients: one per input, each None or a Tensor that its
    input needs and that already has that input's shape and dtype (nothing to fix). Returns
    the gradients for the node's edges (trailing non-tensor arguments' Nones dropped, as the
    general path drops them), or None when the general path must look. A built-in op's
    gradients may be ndarrays (its array backward's, in the engine's first-order pass)."""
    in_meta = node._in_meta
    n = len(in_meta)
    if len(result) != n:
        return None
    needs = node.needs_input_grad
    for i in range(n):
        g = result[i]
        meta = in_meta[i]
        if meta is None:
            # NOTE: non-tensor arguments have no edge; trailing ones (an op's scalars and
            # flags, as addmm's beta and alpha) just end the list
            for j in range(i, n):
                if in_meta[j] is not None or result[j] is not None:
                    return None
            return result[:i]
        if g is None:
            continue
        if not needs[i]:
            return None
        if type(g) is Tensor:
            d = g._data
        elif type(g) is np.ndarray and node._forward_cls._builtin:
            d = g
        else:
            return None
        if d.shape != meta[0] or d.dtype is not meta[1].np:
            return None
    return result


def _reduce_grad(node, i, g, shape):
    """Sum a gradient down to an input's (broadcast-compatible) shape, or raise PyTorch's error."""
    gshape = g._data.shape
    try:
        ok = np.broadcast_shapes(shape, gshape) == gshape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got "
            f"[{', '.join(map(str, gshape))}] but expected shape compatible with "
            f"[{', '.join(map(str, shape))}]")
    from ..ops.reduction import sum_to_shape
    return sum_to_shape(g, shape)


def _node_module(cls):
    """Where PyTorch says a node class lives: a built-in op's node is a C++ class (module
    ``builtins``), a custom Function's is made in ``torch.autograd.function``."""
    return "builtins" if getattr(cls, "_builtin", False) else "torch.autograd.function"


class FunctionMeta(type):
    """Gives each Function subclass its ``<Name>Backward`` node class (PyTorch's FunctionMeta,
    by the same name: ``type(MyFunction)`` prints it)."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        bw_name = attrs.get("_backward_name") or name + "Backward"
        body = {"_forward_cls": cls, "__slots__": (), "__module__": _node_module(cls)}
        if getattr(cls, "_builtin", False):  # grad_fn._saved_self and the like
            body.update(saved_attr_properties(bw_name, name))
        cls._backward_cls = type(bw_name, (getattr(cls, "_node_base", BackwardCFunction),),
                                 body)
        cls._fwd_sig = None
        cls._bind_user_methods()

    def _bind_user_methods(cls):
        """Cache which forward style and which backward (or vjp) the class defines."""
        user = _user_names(cls)
        type.__setattr__(cls, "_setup_ctx", "setup_context" in user)
        if "backward" in user and "vjp" in user:
            fn = _both_backward_and_vjp
        elif "backward" in user:
            fn = cls.backward
        elif "vjp" in user:
            fn = cls.vjp
        else:
            fn = _missing_backward
        np_fast = _array_backward_of(cls)
        if np_fast is not None:
            fn = _with_array_backward(fn, np_fast)
        type.__setattr__(cls, "_backward_fn", staticmethod(fn))
        cls._bind_engine_calls(np_fast)

    def _bind_engine_calls(cls, np_fast):
        """What the engine's hot loop reads off a node's class: ``_np_fast`` (the array
        backward), ``_np_exact`` (the op declares its array backward's gradients exact: see
        ``ops._base.BuiltinFunction``) and ``_plain_call`` (the node runs
        ``_backward_fn(node, g)`` unboxed)."""
        exact = np_fast is not None and cls.__dict__.get("_np_exact", _inherited_exact(cls))
        np_fast = None if np_fast is None else staticmethod(np_fast)
        for klass in (cls, cls._backward_cls):
            type.__setattr__(klass, "_np_fast", np_fast)
        type.__setattr__(cls._backward_cls, "_np_exact", bool(exact))
        type.__setattr__(cls._backward_cls, "_plain_call", not cls.boxed_grads_call)

    def __setattr__(cls, name, value):
        # PyTorch looks the methods up at each call: assigning one later must take effect
        super().__setattr__(name, value)
        if name == "backward" and cls._builtin:
            # the array form, if any, no longer matches: this class now has none
            type.__setattr__(cls, "_np_backward", None)
        if name in ("backward", "vjp", "setup_context", "forward", "_np_backward"):
            cls._bind_user_methods()
        elif name == "boxed_grads_call":
            cls._bind_engine_calls(_array_backward_of(cls))


def _with_array_backward(backward, np_backward):
    """A built-in op's ``backward`` as its node calls it (``_backward_fn``): with one
    gradient, grad mode off and nothing interposed (a first-order call outside the engine's
    array pass: ``node.apply``, a node with several outputs), ``np_backward`` on arrays, the
    same bits; otherwise the Tensor formula."""
    def backward_fn(ctx, *grads):
        if len(grads) == 1 and not STATE.enabled and _interpose is None:
            g = grads[0]
            if type(g) is Tensor:
                r = np_backward(ctx, g._data)
                if r is not NotImplemented:
                    return _arrays_as_tensors(r)
        return backward(ctx, *grads)
    return backward_fn


def _arrays_as_tensors(r):
    """An array backward's result as a Tensor backward returns it: each ndarray made a
    Tensor without grad."""
    if type(r) is tuple:
        return tuple([Tensor._make(x, None, False) if type(x) is np.ndarray else x for x in r])
    return Tensor._make(r, None, False) if type(r) is np.ndarray else r


def _inherited_exact(cls):
    """``_np_exact`` from the class whose ``_np_backward`` ``cls`` runs (a subclass that
    overrides ``backward`` has no array backward, so nothing to declare exact)."""
    for klass in cls.__mro__:
        if "backward" in klass.__dict__:
            return klass.__dict__.get("_np_exact", False)
    return False


def _array_backward_of(cls):
    """A built-in op's ``_np_backward``, from the class that defines its ``backward`` (a
    subclass overriding ``backward`` does not inherit its parent's array form).

    ``_np_backward(ctx, g)`` is ``backward`` on arrays for the engine's first-order passes:
    ``g`` the gradient's ndarray, the result the input gradients as ndarrays (one, or a
    tuple with None), or NotImplemented where only the Tensor formula applies. The engine
    calls it only when nothing is recorded (no create_graph, forward AD or vmap)."""
    if not cls._builtin:
        return None
    for klass in cls.__mro__:
        if "backward" in klass.__dict__:
            fn = klass.__dict__.get("_np_backward")
            return fn.__func__ if isinstance(fn, staticmethod) else fn
    return None


_PUBLIC_NAME = "torch.autograd.function"  # Function's __module__ where torch is numtorch


def _user_names(cls):
    """Attribute names defined by subclasses of Function (not by Function itself)."""
    names = set()
    for klass in cls.__mro__:
        if klass.__name__ == "Function" and klass.__module__ in (__name__, _PUBLIC_NAME):
            break
        names.update(klass.__dict__)
    return names


def _both_backward_and_vjp(ctx, *grad_outputs):
    raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not "
                       "allowed. You should only implement one of them.")


def _missing_backward(ctx, *grad_outputs):
    raise NotImplementedError(
        "You must implement either the backward or vjp method for your custom "
        "autograd.Function to use it with backward mode AD.")


_FunctionMeta = FunctionMeta
_ContextMethodMixin = FunctionCtx  # PyTorch's old name for it


class _SingleLevelFunction(_FunctionBase, FunctionCtx, _HookMixin, metaclass=FunctionMeta):
    """What a Function defines for one level of autograd (PyTorch's split of ``Function``):
    ``forward``, ``setup_context``, ``backward``/``vjp`` and ``jvp``."""

    __slots__ = ()
    clear_saved_tensors_on_access = False
    boxed_grads_call = False
    _node_name = None  # name() where PyTorch's differs from the type name (CopyBackwards)
    _builtin = False
    _np_fast = None  # the engine's array backward (see _array_backward_of)

    @staticmethod
    def forward(*args, **kwargs):
        """Compute the outputs. ``forward(ctx, *inputs)``, or ``forward(*inputs)`` together
        with ``setup_context(ctx, inputs, output)``."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Store what backward needs, for Functions whose forward takes no ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Given one gradient per output, return one gradient (or None) per input."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward-mode AD: given one tangent per input, return one per output."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD.")


class Function(_SingleLevelFunction):
    """Base class for custom differentiable operations (see the module docstring)."""

    __slots__ = ("__dict__",)
    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are "
            "all static, so you should invoke them on the class itself. Instantiating an "
            "autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod "
            "or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the Function on ``args``, recording it for backward when an input needs grad.

        The body is the most common call, ``forward(ctx, x)`` on one Tensor (the hot path of
        a custom Function, as in the seed's ``MultiplyByTwo``), with ``_apply``'s steps,
        ``_wrap_one``'s and the saving of one tensor inlined; any other call goes to
        ``_apply_general``."""
        if len(args) != 1 or kwargs or _interpose is not None or type(args[0]) is not Tensor \
                or cls._setup_ctx:
            return _apply_general(cls, args, kwargs)
        a = args[0]
        grad_on = STATE.enabled
        ctx = _new(cls._backward_cls)
        # NOTE: _init_ctx and _init_node inlined (test_fast_paths checks that every slot they
        # set is set here too); anomaly mode swaps _init_node, and then it is called
        ctx.to_save = ctx._dirty = ctx._non_diff = None
        ctx._saved = ()
        ctx._materialize = True
        if not (grad_on and a._rg):
            ctx.needs_input_grad = _TRUE1 if a._rg else _FALSE1
            return _run_unrecorded(cls, ctx, a, grad_on)
        ctx.needs_input_grad = _TRUE1
        d = a._data
        fn = a._grad_fn
        if fn is not None and a._view is None:
            edges = ((fn, a._output_nr),)
            meta = fn._out_meta  # shared with the input's node when it matches
            m = meta[0] if meta is not None and len(meta) == 1 else None
            if m is None or m[1].np is not d.dtype or m[0] != d.shape:
                meta = ((d.shape, _FROM_NP[d.dtype]),)
                m = meta[0]
        else:
            edges = (a._edge(),)
            meta = ((d.shape, _FROM_NP[d.dtype]),)
            m = meta[0]
        if ANOMALY[0]:
            ctx._init_node(edges)
        else:
            ctx.next_functions = edges
            ctx._seq = next(_sequence)
            ctx._x = None
        ctx._in_meta = meta
        STATE.enabled = False
        try:
            out = cls.forward(ctx, a)
        finally:
            STATE.enabled = grad_on
        if type(out) is not Tensor or out is a or ctx._dirty is not None or \
                ctx._non_diff is not None:
            return _wrap_outputs(ctx, (a,), out, True)
        # NOTE: _wrap_one's recording branch, inlined (the custom Function hot path); a change
        # to one must be made to the other
        od = out._data
        if m[1].np is od.dtype:  # most Functions keep dtype (and shape): share the input's meta
            dt = m[1]
            ctx._out_meta = meta if m[0] == od.shape else ((od.shape, dt),)
        else:
            dt = _FROM_NP[od.dtype]
            ctx._out_meta = ((od.shape, dt),)
        if dt.is_floating_point or dt.is_complex:
            out._grad_fn = ctx
            out._rg = True
            out._output_nr = 0
            if out._base is not None:
                _mark_custom_view(out, ctx, 0)
        elif out._rg and out._grad_fn is None:
            out._rg = False
        saved = ctx.to_save
        if saved:
            ctx.to_save = None
            t = saved[0]
            vc = a._vcs  # (None: version 0; an inference tensor's is not a list)
            if len(saved) == 1 and t is a and (vc is None or type(vc) is list) and \
                    not _hook_stack:
                ctx._saved = a  # the compact form of pack_saved's entry (saved_entries)
                ctx._one_saved_ver = 0 if vc is None else vc[0]
            else:
                ctx.to_save = saved
                _resolve_saved(ctx, (out,))
        return out

    @staticmethod
    def mark_shared_storage(*pairs):
        raise RuntimeError("mark_shared_storage is deprecated. Tensors with shared storages "
                           "are automatically tracked.")




def _apply_general(cls, args, kwargs):
    """``apply`` for every call but one Tensor to a ``forward(ctx, x)``."""
    if cls._setup_ctx:
        args, kwargs = _bind_args(cls, args, kwargs)
    if kwargs:
        args, kwargs = _keywords(cls, args, kwargs)
    return _apply(cls, args, kwargs)


def _bind_args(cls, args, kwargs):
    """A setup_context-style forward's arguments with its defaults filled in, as PyTorch binds
    them (the signature is read once per class; a forward without defaults skips this)."""
    sig = cls.__dict__.get("_fwd_sig")
    if sig is None:
        sig = inspect.signature(cls.forward)
        params = sig.parameters.values()
        # plain positional parameters without defaults: a call with exactly that many
        # arguments binds to itself, and skips bind (any other call binds, to raise its error)
        plain = all(p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
        sig = cls._fwd_sig = (sig, len(sig.parameters) if plain else -1)
    if not kwargs and len(args) == sig[1]:
        return args, kwargs
    bound = sig[0].bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args, bound.kwargs


def _keywords(cls, args, kwargs):
    """What becomes of ``apply``'s keyword arguments: PyTorch's transforms treat them their
    own way (see ``_interpose.transform_kwargs``); otherwise they fill forward's slots."""
    if _interpose is not None:
        from . import _interpose as ip
        done = ip.transform_kwargs(cls, args, kwargs)
        if done is not None:
            return done
    return _kwargs_as_positional(cls, args, kwargs), {}


def _kwargs_as_positional(cls, args, kwargs):
    """Keyword arguments of ``apply`` put in the positional slots of ``forward``'s parameters
    of those names, as PyTorch's apply does (they then count as inputs in that order, and
    forward gets them positionally). No defaults are filled in: a gap before a keyword's
    slot, a keyword-only parameter or an unknown name raises PyTorch's TypeError."""
    code = getattr(cls.forward, "__code__", None)
    if code is None:  # not a Python function: nothing to bind against
        raise TypeError(f"forward() got an unexpected keyword argument '{next(iter(kwargs))}'")
    names = code.co_varnames[:code.co_argcount]
    if not cls._setup_ctx:
        names = names[1:]  # ctx
    slots = list(args)
    unset = object()
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{key}'")
        i = names.index(key)
        if i < len(slots) and slots[i] is not unset:
            raise TypeError(f"forward() got multiple values for argument '{key}'")
        slots.extend([unset] * (i + 1 - len(slots)))
        slots[i] = value
    for i, v in enumerate(slots):
        if v is unset:
            raise TypeError(f"forward() missing required argument: '{names[i]}' (position {i})")
    return tuple(slots)


# needs_input_grad of a one-input node (the engine tests for the first by identity)
_TRUE1, _FALSE1 = (True,), (False,)


def _new_ctx(cls):
    ctx = object.__new__(cls._backward_cls)
    ctx._init_ctx()
    return ctx


def _apply(cls, args, kwargs):
    """The general path: user Functions get Tensors in forward, run without recording."""
    if _interpose is not None:  # forward AD / vmap / torch.func: see autograd/_interpose.py
        out = _interpose(cls, args, kwargs)
        if out is not NotImplemented:
            return out
    grad_on = STATE.enabled
    ctx = _new_ctx(cls)
    # keyword arguments count as inputs after the positional ones, as in PyTorch
    inputs = args + tuple(kwargs.values()) if kwargs else args
    if len(inputs) == 1 and isinstance(inputs[0], Tensor):  # fast path: one tensor input
        a = inputs[0]
        record = grad_on and a._rg
        ctx.needs_input_grad = _TRUE1 if a._rg else _FALSE1
        if record:
            d = a._data
            fn = a._grad_fn
            ctx._init_node(((fn, a._output_nr) if fn is not None and a._view is None
                             else a._edge(),))
            ctx._in_meta = ((d.shape, _FROM_NP[d.dtype]),)
    else:
        needs = tuple([isinstance(a, Tensor) and a._rg for a in inputs])
        ctx.needs_input_grad = needs  # forward and setup_context may read it
        record = grad_on and True in needs
        if record:
            _link_inputs(ctx, inputs, needs)
    STATE.enabled = False
    try:
        if cls._setup_ctx:
            out = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, out)
            if _interpose is not None:  # torch.func's extra setup_context calls
                _after_setup(cls, args, out)
        else:
            out = cls.forward(ctx, *args, **kwargs)
    finally:
        STATE.enabled = grad_on
    return _wrap_outputs(ctx, inputs, out, record)


def _after_setup(cls, args, out):
    from . import _interpose as ip
    ip.after_setup(cls, args, out)


def _run_unrecorded(cls, ctx, a, grad_on):
    STATE.enabled = False
    try:
        out = cls.forward(ctx, a)
    finally:
        STATE.enabled = grad_on
    if type(out) is Tensor and ctx._dirty is None and ctx._non_diff is None:
        return _wrap_one(ctx, (a,), out, False)
    return _wrap_outputs(ctx, (a,), out, False)


_new = object.__new__


def _link_inputs(ctx, args, needs):
    """Record the shape/dtype of every input (the engine checks grads with them) and an edge
    for every tensor input (non-tensor inputs have none, as in PyTorch's next_functions)."""
    edges = []
    meta = []
    for a, need in zip(args, needs):
        if isinstance(a, Tensor):
            meta.append((a._data.shape, _FROM_NP[a._data.dtype]))
            edges.append(((a._grad_fn, a._output_nr)
                          if a._grad_fn is not None and a._view is None else a._edge())
                         if need else (None, 0))
        else:
            meta.append(None)
    ctx._init_node(tuple(edges))
    ctx._in_meta = tuple(meta)


def _wrap_outputs(ctx, args, out, record):
    """Attach outputs to ``ctx``; handle dirty (in-place) inputs and non-differentiable ones."""
    if type(out) is Tensor and ctx._dirty is None and ctx._non_diff is None:
        return _wrap_one(ctx, args, out, record)
    is_tuple = isinstance(out, tuple)
    outs = out if is_tuple else (out,)
    dirty = ctx._dirty or ()
    for d in dirty:
        if not any(d is o for o in outs):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the "
                "Function.")
    non_diff = ctx._non_diff or ()
    results = []
    meta = []
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            results.append(o)
            meta.append(None)
            continue
        is_dirty = any(o is d for d in dirty)
        # NOTE: tested before an input returned as it is gets aliased below
        diff = record and not any(o is n for n in non_diff) and \
            (o.dtype.is_floating_point or o.dtype.is_complex)
        if not is_dirty and any(o is a for a in args):
            o = _returned_input(ctx, o, diff)
        meta.append((o._data.shape, o.dtype))
        if is_dirty:
            _rebase_dirty(ctx, o, i, diff, args)
        elif diff:
            o._grad_fn = ctx
            o._rg = True
            o._output_nr = i
            if o._base is not None:
                _mark_custom_view(o, ctx, i)
        elif record and o._rg and o._grad_fn is None:
            o._rg = False
        results.append(o)
    if record:
        ctx._out_meta = tuple(meta)
        _resolve_saved(ctx, results)
        if sum(1 for o in results if isinstance(o, Tensor) and o._grad_fn is ctx) > 1:
            for o in results:  # views among several differentiable outputs
                if isinstance(o, Tensor) and o._extra and "cf_view" in o._extra:
                    o._extra["cf_view"] += (True,)
    # (a dirty output's node would otherwise hold it: a reference cycle)
    ctx._dirty = ctx._non_diff = None
    return tuple(results) if is_tuple else results[0]


def _wrap_one(ctx, args, o, record):
    """``_wrap_outputs`` for the common case (the hot path of a custom Function): a single
    Tensor output, nothing marked dirty or non-differentiable."""
    for a in args:
        if o is a:
            o = _returned_input(ctx, o, record)
            break
    if record:
        d = o._data
        meta = ctx._in_meta
        m = meta[0] if len(meta) == 1 else None
        # NOTE: most Functions keep shape and dtype: share the input's meta (fewer objects
        # alive per node, less work for the garbage collector)
        if m is not None and m[1].np is d.dtype:
            dt = m[1]
            if m[0] != d.shape:
                meta = ((d.shape, dt),)
        else:
            dt = _FROM_NP[d.dtype]
            meta = ((d.shape, dt),)
        ctx._out_meta = meta
        if dt.is_floating_point or dt.is_complex:
            o._grad_fn = ctx
            o._rg = True
            o._output_nr = 0
            if o._base is not None:
                _mark_custom_view(o, ctx, 0)
        elif o._rg and o._grad_fn is None:
            o._rg = False
        saved = ctx.to_save
        if saved:
            t = saved[0]
            if len(saved) == 1 and (t is None or isinstance(t, Tensor) and t._base is None):
                ctx.to_save = None
                ctx._saved = (pack_saved(t, ctx, t is o and t._grad_fn is ctx),)
            else:
                _resolve_saved(ctx, (o,))
    return o


def _returned_input(ctx, t, diff):
    """What an input returned as it is becomes: a view of it (the node then owns that view),
    or, when that output is not differentiable (not recorded, or marked so) and the input
    requires grad, a detached alias: PyTorch never changes the input's own requires_grad."""
    if not diff and t._rg:
        return t.detach()
    saved = ctx.to_save
    if saved and ctx._forward_cls._setup_ctx and any(s is t for s in saved):
        # (setup_context saw the input itself, not the view the output becomes)
        raise RuntimeError(
            "An input that has been returned as-is as output is being saved for backward. "
            "This is not supported if you override setup_context. You should return and save "
            "a view of the input instead, e.g. with x.view_as(x) or setup ctx inside the "
            "forward function itself.")
    return t._alias()


def _mark_custom_view(o, ctx, i):
    """Remember that ``o`` is a view made inside a custom Function: in-place on it raises."""
    if o._extra is None:
        o._extra = {}
    o._extra["cf_view"] = (i, type(ctx).__name__[:-len("Backward")])


def _rebase_dirty(ctx, t, i, diff, args):
    t._vc[0] += 1  # PyTorch bumps a dirty tensor's version once more when wrapping it
    if t._grad_fn is None and t._rg and t._base is None:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    if diff:
        # the position of t among the tensor inputs (the node's edges)
        tensors = [a for a in args if isinstance(a, Tensor)]
        j = next((k for k, a in enumerate(tensors) if a is t), None)
        if j is None:  # marked dirty but not an input: PyTorch takes it as a plain output
            warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only input "
                          "Tensors that have been mutated should be passed to ctx.mark_dirty()."
                          " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
                          "custom_function.cpp:320.)", UserWarning, stacklevel=4)
            t._grad_fn, t._rg, t._output_nr = ctx, True, i
            return
        Tensor._rebase_history(t, ctx, i, j)


def _resolve_saved(ctx, outputs):
    """Turn what forward passed to save_for_backward into saved entries (after outputs exist)."""
    to_save = ctx.to_save
    if not to_save:
        return
    ctx.to_save = None
    entries = []
    for i, t in enumerate(to_save):
        is_out = False
        if t is not None and not isinstance(t, Tensor):
            raise TypeError("save_for_backward can only save variables, but argument "
                            f"{i} is of type {_type_name(t)}")
        if t is not None:
            for o in outputs:
                if o is t:
                    is_out = t._grad_fn is ctx
                    break
            if t._base is not None and not t._rg:
                _view_of_output(t)
        entries.append(pack_saved(t, ctx, is_out))
    ctx._saved = tuple(entries)


def _view_of_output(t):
    """A saved view made inside forward (grad mode off) of a tensor that has since become
    a differentiable output: as in PyTorch, it now requires grad through its base, has no
    grad_fn, and unpacking it after its base changed in place raises the no_grad-view error
    (PyTorch's CreationMeta NO_GRAD_MODE)."""
    ex = t._extra
    if ex is not None and "ng_plain" in ex and t._base._rg:
        t._rg = True
        t._set_extra("ng_view", ex.pop("ng_plain"))


def once_differentiable(fn):
    """Decorate ``backward`` to run it without recording; differentiating it again raises."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from .grad_mode import no_grad
        with no_grad():
            outputs = fn(ctx, *args)
        if not STATE.enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a._rg for a in args):
            return outputs
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        edges = []
        wrapped = []
        for o in outs:
            if isinstance(o, Tensor):
                o = o.detach()
                o._rg = True
                edges.append(o._edge())
            wrapped.append(o)
        err = DelayedError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable", tuple(edges))
        k = 0
        for j, o in enumerate(wrapped):
            if isinstance(o, Tensor):
                w = o._alias()
                w._grad_fn, w._rg, w._output_nr = err, True, k
                wrapped[j] = w
                k += 1
        return tuple(wrapped) if isinstance(outputs, tuple) else wrapped[0]
    return wrapper


class InplaceFunction(Function):
    """Kept for backward compatibility (PyTorch's ``InplaceFunction``)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Not supported: PyTorch's legacy nested-IO Function."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("numtorch does not support NestedIOFunction; use a "
                                  "static-method torch.autograd.Function")


use_torch_names(globals())  # Function prints as torch.autograd.function.Function
