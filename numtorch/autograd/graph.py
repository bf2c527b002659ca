"""Graph nodes: the base ``Node``, ``AccumulateGrad`` for leaves, saved-tensor handling and
``saved_tensors_hooks``.

Every node keeps ``next_functions``: one ``(node, output_nr)`` edge per forward input, ``(None,
0)`` where that input needs no gradient. Nodes never hold their outputs, so a graph has no
reference cycles and dies with its last output.
"""
import itertools
import re

from ..utils.hooks import RemovableHandle

Tensor = None  # bound by numtorch._tensor after the class exists (import cycle)

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]

# creation order; the engine runs ready nodes newest first, as PyTorch does
_sequence = itertools.count()


class Node:
    """A backward step. Subclasses implement ``_backward(grads) -> tuple of input grads``."""

    __slots__ = ("next_functions", "_seq", "_pre_hooks", "_post_hooks", "_tensor_hooks",
                 "_retain", "metadata_", "__weakref__")
    _out_meta = None  # a BackwardCFunction's per-output (shape, dtype); others: _n_outputs

    def name(self):
        return type(self).__name__

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
        self._pre_hooks = self._post_hooks = self._tensor_hooks = None
        self._retain = None
        self.metadata_ = None

    def _release(self):
        """Free saved state after a backward pass without ``retain_graph``."""

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class AccumulateGrad(Node):
    """The sink node of a leaf tensor: adds incoming gradients into ``variable.grad``."""

    __slots__ = ("variable",)
    _n_outputs = 1

    def __init__(self, variable):
        self._init_node(())
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def _backward(self, grads, create_graph):
        g = grads[0]
        if g is not None:
            var = self.variable
            var._accumulate_grad(g, create_graph)
        return ()


class DelayedError(Node):
    """A node that raises when reached: stands in for a backward that cannot be differentiated."""

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
    "operation: [torch.{tname} [{shape}]]{origin} is at version {now}; expected version "
    "{saved} instead. Hint: enable anomaly detection to find the operation that failed to "
    "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
_FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")
_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


def version_error(tensor, saved_version):
    from .._dtype import LEGACY_NAMES
    fn = tensor.grad_fn  # a view's regenerated one, as PyTorch names it
    origin = ""
    if fn is not None:
        origin = f", which is output {tensor._output_nr} of {_BACKWARD_SUFFIX.sub('', fn.name())},"
    shape = ", ".join(str(s) for s in tensor._data.shape)
    return RuntimeError(_VERSION_MSG.format(
        tname=LEGACY_NAMES[tensor.dtype], shape=shape, origin=origin,
        now=tensor._vc[0], saved=saved_version))


def freed_error():
    return RuntimeError(_FREED_MSG)


# ---- saved tensors -------------------------------------------------------------------------
# An entry is one of:
#   None
#   (0, tensor, version)                       an input or intermediate, held as it is
#   (1, data, vc, version, output_nr, node)    an output of its own node: rebuilt on unpack so
#                                              the node never holds its output (no cycle)
#   (2, packed, unpack)                        packed by saved_tensors_hooks

_hook_stack = []        # active (pack, unpack) pairs, innermost last
_hooks_disabled = []    # messages of active disable_saved_tensors_hooks


def pack_saved(t, node, is_output):
    """Make a saved-tensor entry for ``t`` (``node`` is the node saving it)."""
    if t is None:
        return None
    if _hook_stack:
        pack, unpack = _hook_stack[-1]
        return (2, pack(t), unpack)
    if is_output:
        return (1, t._data, t._vc, t._vc[0], t._output_nr, t._rg)
    return (0, t, t._vc[0])


def unpack_saved(entry, node):
    """The tensor of a saved entry, checking it was not modified in place since."""
    if entry is None:
        return None
    kind = entry[0]
    if kind == 0:
        t = entry[1]
        if t._vc[0] != entry[2]:
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
    return entry[2](entry[1])


def version_error_output(t, version, node, output_nr):
    t._grad_fn = node
    t._output_nr = output_nr
    return version_error(t, version)


class saved_tensors_hooks:
    """Context manager: tensors saved for backward go through ``pack_hook`` and come back
    through ``unpack_hook`` when backward reads them.

    >>> import numtorch as torch
    >>> with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
    ...     y = torch.ones(2, requires_grad=True).exp()
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _hooks_disabled:
            raise RuntimeError(_hooks_disabled[-1])
        _hook_stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _hook_stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are copied (numtorch lives on the CPU, so this only copies)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: t.detach().clone(), lambda t: t)


class disable_saved_tensors_hooks:
    """Inside this block, registering saved-tensor hooks raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _hooks_disabled.append(self.error_message)

    def __exit__(self, *exc):
        _hooks_disabled.pop()
