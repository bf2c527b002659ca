"""PyTorch's module names on numtorch's classes, where ``torch`` is numtorch.

A script run with ``torch`` resolved to numtorch (``numtorch run``, or any import hook doing
the same) must print ``type(opt)`` as ``<class 'torch.optim.sgd.SGD'>`` and ``type(loader)``
as ``<class 'torch.utils.data.dataloader.DataLoader'>``, as it does under PyTorch. Pickle finds
a class by that same name, which the alias resolves back to numtorch's module.

Elsewhere (numtorch imported as itself, beside a real PyTorch, as in the tests) the classes
keep numtorch's names: a class claiming ``torch.optim.sgd`` there would make pickle load
PyTorch's class in its place.

The names are switched on when numtorch is first imported under the name ``torch``, or later
by :func:`use_torch_names_everywhere` (``numtorch run`` imports numtorch before it installs
the alias); classes registered here are renamed then, the ones made afterwards at once.

>>> public_module("numtorch.optim.sgd") in ("numtorch.optim.sgd", "torch.optim.sgd")
True
"""
import sys

__all__ = ["public_module", "torch_named", "use_torch_names", "use_torch_names_everywhere"]


def _importing_as_torch():
    """Whether an import of the name ``torch`` is under way on this thread's stack.

    An alias (a meta-path finder mapping ``torch`` to ``numtorch``) imports numtorch from
    inside the import system's ``_find_and_load('torch')``; that frame is the only trace of
    the alias while numtorch's own modules run (``sys.modules['torch']`` is set after).
    """
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "_find_and_load" and frame.f_locals.get("name") == "torch":
            return True
        frame = frame.f_back
    return False


def _torch_is_numtorch():
    torch = sys.modules.get("torch")
    return torch is not None and torch is sys.modules.get("numtorch")


_state = {"on": _torch_is_numtorch() or _importing_as_torch()}
_registered = []  # (class, numtorch module it shows as PyTorch's)


def _torch_spelling(name):
    return "torch" + name[len("numtorch"):]


def public_module(name):
    """The ``__module__`` a numtorch class defined in module ``name`` shows now: PyTorch's
    spelling (``torch.optim.sgd``) where ``torch`` is numtorch, ``name`` elsewhere."""
    if _state["on"] and (name == "numtorch" or name.startswith("numtorch.")):
        return _torch_spelling(name)
    return name


def torch_named(cls, home=None):
    """Give numtorch class ``cls`` PyTorch's module name for ``home`` (default: where it is
    defined) whenever ``torch`` is numtorch; classes outside numtorch are left alone."""
    home = home or cls.__module__
    if home == "numtorch" or home.startswith("numtorch."):
        _registered.append((cls, home))
        if _state["on"]:
            cls.__module__ = _torch_spelling(home)
    return cls


def use_torch_names(namespace, homes=None):
    """:func:`torch_named` for every class module ``namespace`` (its ``globals()``) defines.

    ``homes`` maps a class to the module PyTorch defines it in, where that differs from the
    place numtorch does (``{_DecoratorContextManager: 'numtorch.utils._contextlib'}``).
    """
    here = namespace["__name__"]
    homes = homes or {}
    for value in list(namespace.values()):
        if isinstance(value, type) and value.__module__ == here:
            torch_named(value, homes.get(value, here))


def use_torch_names_everywhere():
    """Switch PyTorch's names on: ``torch`` now resolves to numtorch in this process."""
    _state["on"] = True
    for cls, home in _registered:
        cls.__module__ = _torch_spelling(home)
