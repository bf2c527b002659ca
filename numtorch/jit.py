"""``torch.jit``: numtorch has no TorchScript compiler.

What a script can use without one works: ``is_scripting()`` / ``is_tracing()`` answer False,
the annotation helpers (``ignore``, ``unused``, ``export``, ``annotate``, ``Final``) leave
Python code as it is, and ``script`` / ``trace`` of a plain function give a ``ScriptFunction``
that runs the function eagerly (the results TorchScript computes for it). Scripting or
tracing a Module, saving and loading TorchScript archives, and a ScriptFunction's ``graph`` /
``code`` raise NotImplementedError naming what is missing.

>>> import numtorch as torch
>>> double = torch.jit.script(lambda x: x * 2)
>>> double(torch.ones(2)), torch.jit.is_scripting()
(tensor([2., 2.]), False)
"""
import functools
import typing
import warnings

__all__ = ["Final", "ScriptFunction", "annotate", "export", "ignore", "is_scripting",
           "is_tracing", "load", "save", "script", "trace", "unused"]

Final = typing.Final


def is_scripting():
    """False: numtorch code always runs as Python."""
    return False


def is_tracing():
    """False: numtorch never traces."""
    return False


def annotate(the_type, the_value):
    """TorchScript's type hint for a value; in Python, the value."""
    return the_value


def ignore(drop=False, **kwargs):
    """Leave a function to Python (usable bare or called): returns it unchanged."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


class ScriptFunction:
    """A function ``script``ed or ``trace``d: calling it calls the Python function."""

    def __init__(self, fn):
        self._fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    @property
    def graph(self):
        raise NotImplementedError("numtorch does not provide TorchScript graphs "
                                  "(ScriptFunction.graph)")

    @property
    def code(self):
        raise NotImplementedError("numtorch does not provide TorchScript code "
                                  "(ScriptFunction.code)")

    def save(self, f, _extra_files=None):
        save(self, f)


def _deprecated(api):
    # NOTE: attributed to numtorch's own line, as PyTorch's is to its own: Python's default
    # filters then hide it (they show a DeprecationWarning only when raised in __main__)
    warnings.warn(f"`torch.jit.{api}` is deprecated. Please switch to `torch.compile` or "
                  "`torch.export`.", DeprecationWarning, stacklevel=2)


def _reject_module(obj, api):
    from .nn.modules.module import Module
    if isinstance(obj, Module) or (isinstance(obj, type) and issubclass(obj, Module)):
        raise NotImplementedError(
            f"numtorch does not provide torch.jit.{api} for modules (TorchScript): use the "
            "module directly, and torch.save(model.state_dict(), path) to save it")
    if not callable(obj):
        raise NotImplementedError(f"numtorch does not provide torch.jit.{api} for "
                                  f"{type(obj).__name__} objects")


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """A ScriptFunction running ``obj`` (a function) eagerly; Modules are not supported."""
    _deprecated("script")
    _reject_module(obj, "script")
    return obj if isinstance(obj, ScriptFunction) else ScriptFunction(obj)


def trace(func, example_inputs=None, *args, **kwargs):
    """A ScriptFunction running ``func`` (a function) eagerly on any input (TorchScript
    replays the recorded ops; for code without data-dependent control flow that is the
    same); Modules are not supported."""
    _deprecated("trace")
    _reject_module(func, "trace")
    return func if isinstance(func, ScriptFunction) else ScriptFunction(func)


def save(m, f, _extra_files=None):
    raise NotImplementedError("numtorch does not provide torch.jit.save (TorchScript "
                              "archives): save a state_dict with torch.save instead")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError("numtorch does not provide torch.jit.load (TorchScript "
                              "archives): load a state_dict with torch.load instead")
