"""Removable hook handles, as ``torch.utils.hooks``."""
import warnings
from collections import OrderedDict

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


class RemovableHandle:
    """A handle whose ``remove()`` deletes the hook it was returned for.

    Ids come from one process-wide counter (``RemovableHandle.next_id``), so hooks kept in
    one dict run in registration order.

    >>> hooks = {}
    >>> h = RemovableHandle(hooks)
    >>> hooks[h.id] = print
    >>> h.remove(); len(hooks)
    0
    """

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        # strong references (PyTorch's are weak): numtorch's hook stores include plain
        # dicts, which cannot be weakly referenced
        self.hooks_dict_ref = lambda: hooks_dict
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        # extra_dict: a dict (or a list of dicts) also keyed by this handle's id
        extras = extra_dict if isinstance(extra_dict, list) else \
            [] if extra_dict is None else [extra_dict]
        self.extra_dict_ref = tuple((lambda d=d: d) for d in extras)

    def remove(self):
        d = self.hooks_dict_ref()
        if d is not None:
            d.pop(self.id, None)
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None:
                extra.pop(self.id, None)

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state):
        hooks = OrderedDict() if state[0] is None else state[0]
        self.hooks_dict_ref = lambda: hooks
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extras = () if len(state) < 3 or state[2] is None else state[2]
        self.extra_dict_ref = tuple((lambda d=d: d) for d in extras)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def unserializable_hook(f):
    """Mark ``f`` as a tensor hook that is not expected to be saved (no warning on save)."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor):
    """Warn for each backward hook on ``tensor`` that saving it will drop."""
    hooks = getattr(tensor, "_backward_hooks", None)
    for hook in (hooks or {}).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this "
                          "is expected, you can decorate the function with @torch.utils.hooks."
                          "unserializable_hook to suppress this warning", stacklevel=2)


from .._naming import use_torch_names  # noqa: E402

use_torch_names(globals())  # type(handle) prints as torch.utils.hooks.RemovableHandle
