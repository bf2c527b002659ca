"""Removable hook handles, as ``torch.utils.hooks``."""
import itertools

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """A handle whose ``remove()`` deletes the hook it was returned for.

    >>> hooks = {}
    >>> h = RemovableHandle(hooks)
    >>> hooks[h.id] = print
    >>> h.remove(); len(hooks)
    0
    """

    _ids = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = lambda: hooks_dict
        self.id = next(RemovableHandle._ids)
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

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

from .._naming import use_torch_names  # noqa: E402

use_torch_names(globals())  # type(handle) prints as torch.utils.hooks.RemovableHandle
