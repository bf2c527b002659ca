"""``torch.autograd.graph``: graph nodes, saved-tensor hooks, gradient edges and graph hooks.

Every node keeps ``next_functions``: one ``(node, output_nr)`` edge per forward input, ``(None,
0)`` where that input needs no gradient. Nodes never hold their outputs, so a graph has no
reference cycles and dies with its last output.

Here: the base ``Node`` and ``AccumulateGrad`` (a leaf's sink); saved tensors
(``pack_saved``/``unpack_saved``) and the contexts that intercept them (``saved_tensors_hooks``,
``save_on_cpu``, ``disable_saved_tensors_hooks``, ``allow_mutation_on_saved_tensors``);
``GradientEdge``/``get_gradient_edge``; ``register_multi_grad_hook``; the checks PyTorch makes
on what hooks return; and what hooks may ask about the running backward (its graph task).
"""
import collections
import contextlib
import functools
import itertools
import re
import weakref

from ..utils.hooks import RemovableHandle
from .grad_mode import STATE

Tensor = None  # bound by numtorch._tensor after the class exists (import cycle)

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "allow_mutation_on_saved_tensors", "Node",
           "GradientEdge", "get_gradient_edge", "increment_version"]

# creation order; the engine runs ready nodes newest first, as PyTorch does
_sequence = itertools.count()
# [True] while anomaly mode swaps ``Node._init_node``: the hot paths that inline it
# (``_base.record_unary`` ...) then call it
ANOMALY = [False]


class _NodeExtras:
    """A node's rarely used state, created the first time any of it is set: hooks, retained
    gradients' tensors and metadata. Most nodes never have any, and the engine then needs
    one check (``node._x is None``) instead of five."""

    __slots__ = ("pre_hooks", "post_hooks", "tensor_hooks", "retain", "metadata")

    def __init__(self):
        self.pre_hooks = self.post_hooks = self.tensor_hooks = self.retain = None
        self.metadata = None


def _extra_field(name):
    """A Node property for one field of its _NodeExtras (None while there is none)."""
    def get(self):
        x = self._x
        return None if x is None else getattr(x, name)

    def set(self, value):
        x = self._x
        if x is None:
            x = self._x = _NodeExtras()
        setattr(x, name, value)
    return property(get, set)


# The names dir() of a built-in op's node (and of AccumulateGrad) lists in PyTorch, and
# those of a custom Function's node, where numtorch has them
_NODE_DIR = frozenset({
    "_input_metadata", "_register_hook_dict", "_sequence_nr", "_set_sequence_nr", "metadata",
    "name", "next_functions", "register_hook", "register_prehook", "requires_grad",
    "variable"})
_CTX_DIR = _NODE_DIR | frozenset({
    "_autograd_function_id", "_forward_cls", "_get_user_fn", "_is_pure_view",
    "_materialize_non_diff_grads", "_raw_saved_tensors", "_register_hook", "apply",
    "apply_boxed", "apply_jvp", "dirty_tensors", "mark_dirty", "mark_non_differentiable",
    "mark_shared_storage", "materialize_grads", "maybe_clear_saved_tensors",
    "needs_input_grad", "non_differentiable", "save_for_backward", "save_for_forward",
    "saved_for_forward", "saved_tensors", "saved_variables", "set_materialize_grads",
    "to_save"})


class Node:
    """A backward step. Subclasses implement ``_backward(grads) -> tuple of input grads``."""

    __slots__ = ("next_functions", "_seq", "_x", "__weakref__")
    _out_meta = None  # a BackwardCFunction's per-output (shape, dtype); others: _n_outputs
    # set on a Function's node class (function._FunctionMeta): its array backward, and
    # whether the engine may call its backward directly with one unboxed gradient
    _np_fast = None
    _np_exact = False
    _plain_call = False
    _pre_hooks = _extra_field("pre_hooks")
    _post_hooks = _extra_field("post_hooks")
    _tensor_hooks = _extra_field("tensor_hooks")
    _retain = _extra_field("retain")
    metadata_ = _extra_field("metadata")

    def name(self):
        return type(self).__name__

    def __dir__(self):
        """PyTorch's names: a node's public API, its ``_saved_*`` attributes, and for a
        custom Function's node the ctx API and the attributes its forward set; numtorch's
        internals (``_saved``, ``_in_meta`` ...) stay out."""
        custom = not getattr(getattr(self, "_forward_cls", None), "_builtin", True)
        keep, cls = _CTX_DIR if custom else _NODE_DIR, type(self)
        user = getattr(self, "__dict__", {}) if custom else {}
        return [n for n in object.__dir__(self)
                if n.startswith("__") and n != "__slots__" or n in keep or n in user or
                n.startswith(("_saved_", "_raw_saved_")) and n != "_raw_saved_tensors" and
                isinstance(getattr(cls, n, None), property)]

    @property
    def requires_grad(self):
        """Always True: a node exists only where a gradient flows (as in PyTorch)."""
        return True

    @property
    def metadata(self):
        if self.metadata_ is None:
            self.metadata_ = {}
        return self.metadata_

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = {}
        handle = RemovableHandle(self._post_hooks)
        self._post_hooks[handle.id] = fn
        return handle

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        handle = RemovableHandle(self._pre_hooks)
        self._pre_hooks[handle.id] = fn
        return handle

    def _sequence_nr(self):
        """The creation order of this node (newer nodes run first in backward)."""
        return self._seq

    @property
    def _input_metadata(self):
        """Per gradient this node receives (one per forward output): its shape and dtype."""
        meta = self._out_meta
        if meta is None:
            return tuple(_InputMetadata(None, None) for _ in range(self._n_outputs))
        return tuple(_InputMetadata(None, None) if m is None else _InputMetadata(*m)
                     for m in meta)

    def _add_tensor_hook(self, output_nr, fn):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        hooks = self._tensor_hooks.setdefault(output_nr, {})
        handle = RemovableHandle(hooks)
        hooks[handle.id] = fn
        return handle

    def _init_node(self, next_functions):
        self.next_functions = next_functions
        self._seq = next(_sequence)
        self._x = None

    def _release(self):
        """Free saved state after a backward pass without ``retain_graph``."""

    def __repr__(self):
        # a Python-defined Function's node is a class of torch.autograd.function in PyTorch
        module = "torch.autograd.function." if _is_python_node(self) else ""
        return f"<{module}{type(self).__name__} object at {hex(id(self))}>"


class _InputMetadata:
    """What a node knows of a gradient it receives (PyTorch's ``_InputMetadata``): ``shape``
    is a list, as PyTorch gives it (``_shape``: the tuple)."""

    __slots__ = ("_shape", "dtype")
    device = property(lambda self: _cpu())
    is_nested_tensor = is_cpp_nested_tensor = False

    def __init__(self, shape, dtype):
        self._shape = shape
        self.dtype = dtype

    @property
    def shape(self):
        return None if self._shape is None else list(self._shape)

    def __repr__(self):
        return f"<torch._C._autograd._InputMetadata object at {hex(id(self))}>"


def _cpu():
    from .._device import device
    return device("cpu")



def n_outputs(node):
    """How many gradient slots a node takes: its Function outputs, or its fixed count."""
    meta = node._out_meta
    return len(meta) if meta is not None else node._n_outputs

class _CallableNode(Node):
    """A node that can be called like PyTorch's C++ nodes (built-in ops, accumulators).

    A custom Function's node is a Python object in PyTorch and ``callable()`` is False for it,
    so ``__call__`` lives here and not on ``Node``."""

    __slots__ = ()

    def __call__(self, *grads):
        """Run this node's backward on ``grads`` (one per forward output), in the current grad
        mode, as calling a (C++) node does in PyTorch: one gradient per edge of
        ``next_functions``, a single one bare (an AccumulateGrad accumulates, returns ())."""
        n = n_outputs(self)
        if len(grads) != n:
            raise TypeError(f"expected {n} arguments, got {len(grads)} instead")
        outs = tuple(self._backward(list(grads), STATE.enabled))[:len(self.next_functions)]
        return outs[0] if len(outs) == 1 else outs


class AccumulateGrad(_CallableNode):
    """The sink node of a leaf tensor: adds incoming gradients into ``variable.grad``."""

    __module__ = "builtins"   # a C++ class in PyTorch: printed as <class 'AccumulateGrad'>
    __slots__ = ("variable",)
    _n_outputs = 1

    def __init__(self, variable):
        self._init_node(())
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def _sequence_nr(self):
        return 2 ** 64 - 1  # PyTorch's UINT64_MAX: accumulators run after everything else

    @property
    def _input_metadata(self):
        var = self.variable
        return (_InputMetadata(var._data.shape, var.dtype),)

    def _backward(self, grads, create_graph):
        g = grads[0]
        var = self.variable
        if g is not None:
            var._accumulate_grad(g, create_graph)
        elif var._extra and var._extra.get("post_acc"):
            # NOTE: reached with no gradient (a hook replaced it by None): PyTorch still runs
            # the post-accumulate hooks, with .grad unchanged
            for hook in list(var._extra["post_acc"].values()):
                if hook(var) is not None:
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        return ()


class DelayedError(_CallableNode):
    """A node that raises when reached: stands in for a backward that cannot be differentiated."""

    __module__ = "builtins"
    __slots__ = ("msg", "_n_outputs")

    def __init__(self, msg, edges):
        self._init_node(edges)
        self.msg = msg
        self._n_outputs = len(edges)

    def name(self):
        return "torch::autograd::Error"

    def _backward(self, grads, create_graph):
        raise RuntimeError(self.msg)


DelayedError.__name__ = DelayedError.__qualname__ = "Error"  # PyTorch's type name for it


_VERSION_MSG = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [{tname} [{shape}]]{origin} is at version {now}; expected version "
    "{saved} instead. Hint: {hint}")
_VERSION_HINT = ("enable anomaly detection to find the operation that failed to compute its "
                 "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
_VERSION_HINT_ANOMALY = ("the backtrace further above shows the operation that failed to "
                         "compute its gradient. The variable in question was changed in there "
                         "or anywhere later. Good luck!")
_FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")
_BACKWARD_SUFFIX = re.compile(r"Backward(0|(\d*))$")


def _short_name(fn):
    """A node's name as PyTorch's message shows it: 'SigmoidBackward0' -> 'Sigmoid',
    'EluBackward1' -> 'Elu1', 'MyFuncBackward' -> 'MyFunc'."""
    return _BACKWARD_SUFFIX.sub(lambda m: m.group(2) or "", fn.name())


def type_string(dtype):
    """A CPU tensor type as PyTorch's C++ messages name it: ``torch.FloatTensor``, but
    ``CPUBoolType``/``CPUComplexFloatType`` for the types without a legacy tensor class
    there."""
    from .._dtype import LEGACY_NAMES, SCALAR_NAMES
    if dtype.is_complex or dtype.np.kind == "b":
        return f"CPU{SCALAR_NAMES[dtype]}Type"
    return "torch." + LEGACY_NAMES[dtype]


def version_error(tensor, saved_version):
    fn = tensor.grad_fn  # a view's regenerated one, as PyTorch names it
    origin = ""
    if fn is not None:
        origin = f", which is output {tensor._output_nr} of {_short_name(fn)},"
    shape = ", ".join(str(s) for s in tensor._data.shape)
    return RuntimeError(_VERSION_MSG.format(
        tname=type_string(tensor.dtype), shape=shape, origin=origin,
        now=tensor._vc[0], saved=saved_version,
        hint=_VERSION_HINT_ANOMALY if ANOMALY[0] else _VERSION_HINT))


def freed_error():
    return RuntimeError(_FREED_MSG)


# ---- saved tensors -------------------------------------------------------------------------
# An entry is one of:
#   None
#   (0, tensor, version)                       an input or intermediate, held as it is
#   (1, data, vc, version, output_nr, rg)      an output of its own node: rebuilt on unpack so
#                                              the node never holds its output (no cycle)
#   (2, packed, unpack)                        numtorch's own repacking: unpack(packed) is it
#   (3, packed, unpack, grad_fn, output_nr, rg, acc)
#                                              packed by saved_tensors_hooks: the unpacked
#                                              tensor gets the saved one's place in the graph
#                                              (grad_fn _OWN: the saving node; acc: a weakref
#                                              to a leaf's AccumulateGrad)
# A node's ``_saved`` is a tuple of entries, a marker once freed, or, for the commonest case
# (one tensor saved as it is, without hooks: the input of ``x * 2`` or of a Function like
# the seed's), that tensor itself with its version in ``_one_saved_ver``: two tuples fewer per
# node for the garbage collector to walk. ``saved_entries`` reads either as entries.

_hook_stack = []        # active (pack, unpack) pairs, innermost last
_hooks_disabled = []    # messages of active disable_saved_tensors_hooks
_OWN = object()         # a kind-3 entry of the saving node's own output

_PACK_INPLACE_MSG = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook.")


def pack_saved(t, node, is_output):
    """Make a saved-tensor entry for ``t`` (``node`` is the node saving it)."""
    if t is None:
        return None
    if type(t._vcs).__name__ == "_InferenceVC":
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors created "
            "in inference mode in computation tracked by autograd. To work around this, you "
            "can make a clone to get a normal tensor and use it in autograd, or use "
            "`torch.no_grad()` instead of `torch.inference_mode()`.")
    if _hook_stack:
        return _pack_with_hook(t, is_output)
    if is_output:
        vc = t._vc
        return (1, t._data, vc, vc[0], t._output_nr, t._rg)
    vc = t._vcs  # (None: never bumped, version 0; see Tensor._vc)
    return (0, t, 0 if vc is None else vc[0])


def _pack_with_hook(t, is_output, hooks=None, arg=None):
    """A kind-3 entry: the innermost pack hook's result (run without recording, as in
    PyTorch) and where the tensor sits in the graph, to give the unpacked tensor. ``hooks``
    and ``arg``: the pair and what pack receives, when not the innermost pair and ``t``."""
    pack, unpack = hooks or _hook_stack[-1]
    version = t._vc[0]
    prev = STATE.enabled
    STATE.enabled = False
    try:
        packed = pack(t if arg is None else arg)
    finally:
        STATE.enabled = prev
    if t._vc[0] != version:
        raise RuntimeError(_PACK_INPLACE_MSG)
    acc = None
    if is_output:
        fn, nr = _OWN, t._output_nr
    elif t._rg:
        fn, nr = t._edge()
        if type(fn) is AccumulateGrad:
            fn, acc = None, weakref.ref(fn)
    else:
        fn, nr = None, 0
    return (3, packed, unpack, fn, nr, t._rg, acc)


class SavedTensor:
    """One entry of a node's saved tensors (``grad_fn._raw_saved_self``,
    ``grad_fn._raw_saved_tensors``), on which a pair of saved-tensor hooks can be set.

    >>> import numtorch as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> y = x.pow(2)
    >>> y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 3, lambda t: t)
    >>> y.grad_fn._saved_self
    tensor([3., 3.], requires_grad=True)
    """

    __slots__ = ("_node", "_index")

    def __init__(self, node, index):
        self._node, self._index = node, index

    def register_hooks(self, *hooks):
        """Pack the saved tensor now with ``pack_hook``; ``unpack_hook`` gives it back each
        time backward reads it (no version check then, as with ``saved_tensors_hooks``)."""
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
                f"Invoked with: {', '.join(repr(a) for a in (self,) + hooks)}")
        node, i = self._node, self._index
        saved = saved_entries(node)
        # NOTE: PyTorch frees a built-in node's saved tensors with their hooks, while a
        # custom Function's SavedTensor held from before backward keeps its hooks
        hooked = node.__dict__.setdefault("_hooked_saved", set())
        if node._forward_cls._builtin and type(saved) is not tuple:
            hooked.clear()
        if i in hooked or type(saved) is tuple and saved[i] is not None and saved[i][0] == 3:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        if type(saved) is not tuple:  # released after backward
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward.")
        entry = saved[i]
        if entry is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        hooked.add(i)
        if entry[0] == 1:  # the node's own output: pack sees its data, without the graph
            _, data, vc, version, output_nr, rg = entry
            t = Tensor._make(data, None, False)
            t._vc = vc
            new = _pack_with_hook(t, False, hooks)
            new = (3, new[1], new[2], _OWN, output_nr, rg, None)
        else:
            t = entry[1] if entry[0] == 0 else entry[2](entry[1])
            new = _pack_with_hook(t, False, hooks, t.detach())
        node._saved = saved[:i] + (new,) + saved[i + 1:]


SavedTensor.__module__ = "torch._C._autograd"  # where PyTorch's class lives (its repr)


def saved_entries(node):
    """``node._saved`` as a tuple of entries (or the marker it is once freed): the one
    tensor of the compact form becomes its entry ``(0, tensor, version)``.

    >>> import numtorch as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> node = x.sin().grad_fn
    >>> saved_entries(node) == ((0, x, 0),)
    True
    """
    saved = node._saved
    if type(saved) is Tensor:
        return ((0, saved, node._one_saved_ver),)
    return saved


def raw_saved_tensors(node):
    """``grad_fn._raw_saved_tensors``: a SavedTensor per saved entry."""
    saved = saved_entries(node)
    if type(saved) is not tuple:
        raise freed_error()
    return tuple(SavedTensor(node, i) for i in range(len(saved)))


def unpack_saved(entry, node):
    """The tensor of a saved entry, checking it was not modified in place since."""
    if entry is None:
        return None
    kind = entry[0]
    if kind == 0:
        t = entry[1]
        vc = t._vcs  # (None: never bumped, version 0; see Tensor._vc)
        if (0 if vc is None else vc[0]) != entry[2]:
            if t._extra is not None and "ng_view" in t._extra:
                # PyTorch reads the saved view's grad_fn first: regenerating it for a view
                # made in no_grad mode fails before the version is compared
                from ._copy_slices import no_grad_view_error
                raise no_grad_view_error(t, indirect=True)
            raise version_error(t, entry[2])
        return t
    if kind == 1:
        _, data, vc, version, output_nr, rg = entry
        if vc[0] != version:
            t = Tensor._make(data, None, False)
            t._vc = vc
            raise version_error_output(t, version, node, output_nr)
        t = Tensor._make(data, node if rg else None, rg)
        t._vc = vc
        t._output_nr = output_nr
        return t
    if kind == 3:
        return _unpack_with_hook(entry, node)
    return entry[2](entry[1])


def _unpack_with_hook(entry, node):
    _, packed, unpack, fn, output_nr, rg, acc = entry
    res = unpack(packed)
    if not isinstance(res, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(res).__name__}")
    # NOTE: a new tensor over the hook's data, in the saved tensor's place in the graph (so
    # create_graph differentiates through it); versions are not checked through hooks
    t = Tensor._make(res._data, node if fn is _OWN else fn, rg)
    t._output_nr = output_nr
    if acc is not None:
        t._set_extra("acc", acc)
    return t


def version_error_output(t, version, node, output_nr):
    t._grad_fn = node
    t._output_nr = output_nr
    return version_error(t, version)


class _SavedTensor:
    """A tensor saved outside any node (what ``torch._C._autograd._make_saved_tensor``
    gives): it goes through the active saved-tensor hooks, and ``unpack()`` checks that it
    was not modified in place since."""

    __slots__ = ("_entry",)

    def __init__(self, t, is_output=False):
        self._entry = pack_saved(t, None, False)

    def unpack(self):
        return unpack_saved(self._entry, None)


class saved_tensors_hooks:
    """Context manager: tensors saved for backward go through ``pack_hook`` and come back
    through ``unpack_hook`` when backward reads them.

    Only the innermost pair applies. ``pack_hook(tensor)`` may return anything (it runs with
    grad mode off and must not modify its input in place); ``unpack_hook(packed)`` must
    return a Tensor with the original's values, which takes the original's place in the
    graph.

    >>> import numtorch as torch
    >>> def pack(t):
    ...     print("pack", tuple(t.shape))
    ...     return t.detach()
    >>> x = torch.ones(2, requires_grad=True)
    >>> with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    ...     y = x.exp()
    pack (2,)
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _hooks_disabled:
            raise RuntimeError(_hooks_disabled[-1])
        _hook_stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc):
        _hook_stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU (numtorch's only device): as they are, or copied
    into a fresh buffer with ``pin_memory=True``; unpacked with ``.to(original device)``.

    >>> import numtorch as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> with torch.autograd.graph.save_on_cpu():
    ...     y = (x * x).sum()
    >>> y.backward(); x.grad
    tensor([2., 2.])
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            # detached: the same data without the graph (no cycle through the node)
            packed = tensor.detach() if not pin_memory else tensor.detach().clone()
            return tensor.device, packed

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside this block, using saved-tensor hooks raises ``RuntimeError(error_message)``
    (entering it while hooks are active raises too).

    >>> import numtorch as torch
    >>> with torch.autograd.graph.disable_saved_tensors_hooks("no hooks"):
    ...     torch.autograd.graph.save_on_cpu().__enter__()
    Traceback (most recent call last):
    RuntimeError: no hooks
    """
    _hooks_disabled.append(error_message)
    try:
        if _hook_stack:
            raise RuntimeError(error_message)
        yield
    finally:
        _hooks_disabled.pop()


# ---- what hooks return ---------------------------------------------------------------------
def _hook_name(hook):
    name = getattr(hook, "__name__", None)
    return "<unknown>" if name is None else str(name)


def _check_hook_value(hook, old, new):
    """PyTorch's checks of one gradient a hook returned in place of ``old`` (not None)."""
    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new.dtype is not old.dtype:
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has changed the type of value (was "
            f"{type_string(old.dtype)} got {type_string(new.dtype)})")
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")


def tensor_hook_result(hook, old, new):
    """The gradient after a tensor hook returned ``new`` for ``old`` (None: unchanged)."""
    if new is None:
        return old
    _check_hook_value(hook, old, new)
    return new


def node_hook_result(hook, old, new):
    """The gradients after a node hook returned ``new`` for the tuple ``old`` (None:
    unchanged; else a tuple of the same length whose None entries drop a gradient)."""
    if new is None:
        return old
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                           f"values (got {len(new)}, but expected {len(old)})")
    for o, n in zip(old, new):
        if n is not None:
            _check_hook_value(hook, o, n)
    return list(new)


# ---- the running backward (graph task) -----------------------------------------------------
class GraphTask:
    """One run of the engine, as hooks may ask about it: which nodes it reaches (``deps``
    keys and ``roots``), or with ``inputs`` which it needs (``needed``)."""

    __slots__ = ("id", "roots", "deps", "needed", "captures", "accumulate")
    _ids = itertools.count()

    def __init__(self, roots, deps, needed, captures, accumulate):
        self.id = next(GraphTask._ids)
        self.roots, self.deps, self.needed = roots, deps, needed
        self.captures, self.accumulate = captures, accumulate


_tasks = []  # the running backward passes, innermost (reentrant) last


def _current_graph_task_id():
    """The id of the running backward pass, -1 outside backward."""
    return _tasks[-1].id if _tasks else -1


def _will_engine_execute_node(node):
    """Whether the running backward will run ``node`` (a Node or GradientEdge)."""
    if not _tasks:
        raise RuntimeError("_get_should_execute_nodes should only be called during the "
                           "backward pass")
    if isinstance(node, GradientEdge):
        node = node.node
    task = _tasks[-1]
    if task.needed is None:
        return node in task.deps or node in task.roots
    if node not in task.needed:
        return False
    if type(node) is AccumulateGrad and not task.accumulate and node in task.captures:
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                           "currently running autograd.grad(). This is currently not "
                           "supported.")
    return True


def _is_checkpoint_valid():
    """False inside a backward given ``inputs`` (``autograd.grad``, ``backward(inputs=)``),
    where reentrant checkpointing cannot work."""
    return all(task.needed is None for task in _tasks)


# ---- gradient edges ------------------------------------------------------------------------
class GradientEdge(collections.namedtuple("GradientEdge", "node output_nr ownership_token",
                                          defaults=(None,))):
    """Where a gradient enters the graph: ``(node, output_nr)``. Usable wherever
    ``autograd.grad``/``backward`` take a tensor as input or output.

    >>> import numtorch as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> y = x * 2
    >>> torch.autograd.grad(y.sum(), torch.autograd.graph.get_gradient_edge(y))
    (tensor([1., 1.]),)
    """

    __slots__ = ()


def _get_grad_fn_or_grad_acc(t):
    if isinstance(t, GradientEdge):
        return t.node
    if t.requires_grad and t.grad_fn is None:
        return t._edge()[0]
    node = t.grad_fn
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


def get_gradient_edge(tensor):
    """The gradient edge of ``tensor``: its ``grad_fn`` (a leaf: its AccumulateGrad) and
    ``output_nr``; ``autograd.grad(loss, get_gradient_edge(x))`` equals
    ``autograd.grad(loss, x)``."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that "
                           "does not require gradients")
    node = _get_grad_fn_or_grad_acc(tensor)
    token = None
    if _is_python_node(node):
        # PyTorch keeps the graph of a Python-defined node alive through a view's node
        from .grad_mode import enable_grad
        with enable_grad():
            token = tensor.view_as(tensor).grad_fn
    return GradientEdge(node, tensor.output_nr, token)


def _is_python_node(node):
    forward_cls = getattr(node, "_forward_cls", None)
    return forward_cls is not None and not forward_cls._builtin


def increment_version(tensor):
    """Bump the version counter of a tensor (or of each tensor in an iterable), as an
    in-place change it made outside numtorch's ops would.

    >>> import numtorch as torch
    >>> x = torch.ones(2)
    >>> torch.autograd.graph.increment_version(x); x._version
    1
    """
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        t._vc[0] += 1


# ---- multi-tensor gradient hooks -----------------------------------------------------------
class _MultiHandle(RemovableHandle):
    """Removes every per-tensor hook of one ``register_multi_grad_hook``."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __getstate__(self):
        return self.handles

    def __setstate__(self, state):
        self.handles = state


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward for a group of tensors.

    ``mode="all"``: after the gradients of every tensor the backward reaches are computed,
    ``fn(grads)`` with None for the others. ``mode="any"``: ``fn(grad)`` with the first
    gradient computed.

    >>> import numtorch as torch
    >>> a = torch.ones(2, requires_grad=True)
    >>> b = torch.ones(2, requires_grad=True)
    >>> c = a * b
    >>> h = torch.autograd.graph.register_multi_grad_hook(
    ...     (a, b, c), lambda gs: print([g is not None for g in gs]))
    >>> c.sum().backward(inputs=(a,))
    [True, False, True]
    """
    modes = ("all", "any")
    if mode not in modes:
        raise ValueError(f"Expects mode to be one of {modes} but got {mode}")
    if mode == "all":
        return _MultiHandle(_register_all(tensors, fn))
    ran = collections.defaultdict(bool)  # graph task id -> fn ran

    @functools.wraps(fn)
    def wrapped_fn(grad):
        task = _task_id_in_hook()
        prev, ran[task] = ran[task], True
        if not prev:
            fn(grad)
    return _MultiHandle(tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad))


def _task_id_in_hook():
    task = _current_graph_task_id()
    if task == -1:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def _register_all(tensors, fn):
    """mode='all': count the hooks run per backward; the first one works out how many of
    the tensors' nodes that backward runs, the last one calls ``fn``."""
    grad_fns = [_get_grad_fn_or_grad_acc(t) for t in tensors]
    n = len(tensors)
    count, buffer, expected = {}, {}, [None]

    def inner_hook(idx, grad):
        task = _task_id_in_hook()
        seen = count.get(task, 0)
        count[task] = seen + 1
        grads = buffer.setdefault(task, [None] * n)
        if seen == 0:
            expected[0] = sum(map(_will_engine_execute_node, grad_fns))
        grads[idx] = grad
        if seen == expected[0] - 1:
            fn(grads)
            del count[task], buffer[task]

    return tuple(t.register_hook(functools.partial(inner_hook, i))
                 for i, t in enumerate(tensors))


# ---- in-place changes to saved tensors -----------------------------------------------------
# Called with the tensor by Tensor._check_inplace before every in-place write, while
# allow_mutation_on_saved_tensors is active (empty otherwise: one truth test per write).
MUTATION_HOOKS = []

from .._naming import use_torch_names  # noqa: E402
use_torch_names(globals())  # type(handle) prints as torch.autograd.graph.saved_tensors_hooks

from ._saved_mutation import allow_mutation_on_saved_tensors  # noqa: E402 (uses the above)
