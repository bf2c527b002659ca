"""``allow_mutation_on_saved_tensors``: in-place changes to tensors saved for backward clone
the saved value first, so backward still sees the value the forward used.

How (PyTorch's design, on numtorch's hooks):

1. Saving goes through a saved-tensor hook that keeps the tensor (detached: no cycle through
   the graph) under a handle, and notes it by its version counter and version. Views share
   their base's version counter, so every alias of a saved tensor is found.
2. Every in-place op calls ``Tensor._check_inplace`` before it writes; while the context is
   active that calls :func:`_before_mutation` (through ``graph.MUTATION_HOOKS``), which clones
   the saved tensors the write would change.
3. Unpacking gives the clone if one was made, else the original.
"""
import collections
import contextlib
import weakref

__all__ = ["allow_mutation_on_saved_tensors"]

_ENABLED = []  # [True] while a context is active (they do not nest)

_OUTSIDE_MSG = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                "in which the graph was originally recorded.")  # sic: PyTorch's wording


class _Handle:
    """What the graph holds for a saved tensor (weak keys below die with the graph)."""

    __slots__ = ("saved", "__weakref__")

    def __init__(self, t):
        # the tensor object saved: its id may be reused once it dies (a temporary an op
        # saved), so a lookup by id checks it is still the same object
        self.saved = weakref.ref(t)


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block (cleared on exit)."""

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()        # handle -> clone of the saved value
        self.original = weakref.WeakKeyDictionary()      # handle -> the saved tensor
        self.tid_to_weakhandle = weakref.WeakValueDictionary()  # (id, version) -> handle
        # (id of version counter, version) -> the handles of what was saved with them
        self.sid_to_handles = collections.defaultdict(weakref.WeakSet)

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_handles.clear()

    def pack(self, t):
        version = t._vc[0]
        tid = (id(t), version)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None or handle.saved() is not t:  # the same tensor/version: saved once
            handle = _Handle(t)
            self.tid_to_weakhandle[tid] = handle
            self.original[handle] = t.detach()
            self.sid_to_handles[(id(t._vc), version)].add(handle)
        return handle

    def unpack(self, handle):
        if not _ENABLED:
            raise AssertionError(_OUTSIDE_MSG)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(_OUTSIDE_MSG)
        return self.original[handle]

    def before_mutation(self, t):
        """Clone every saved tensor that writing into ``t`` would change."""
        handles = self.sid_to_handles.get((id(t._vc), t._vc[0]))
        if not handles:
            return
        for handle in list(handles):  # dead handles (freed by a backward) are gone already
            if handle in self.cloned:  # an earlier write saved its value
                continue
            original = self.original.pop(handle)
            self.cloned[handle] = type(original)._make(original._data.copy(), None, False)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager under which tensors saved for backward may be modified in place: the
    saved value is cloned before the first such change. Run forward and backward inside it.

    Yields the context's state object (cleared on exit).

    >>> import numtorch as torch
    >>> with torch.autograd.graph.allow_mutation_on_saved_tensors():
    ...     a = torch.ones(2, requires_grad=True)
    ...     b = a.clone()
    ...     out = (b ** 2).sum()
    ...     _ = b.sin_()
    ...     out.backward()
    >>> a.grad
    tensor([2., 2.])
    """
    from .graph import MUTATION_HOOKS, saved_tensors_hooks
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack):
        MUTATION_HOOKS.append(ctx.before_mutation)
        try:
            if _ENABLED:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _ENABLED.append(True)
            yield ctx
        finally:
            MUTATION_HOOKS.remove(ctx.before_mutation)
            ctx.clear()
            _ENABLED.clear()
