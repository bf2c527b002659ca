"""A small ``torch._C``: the few names of PyTorch's C extension that scripts touch.

Scripts reach into ``torch._C`` for a handful of things (``_FunctionBase`` in an ``isinstance``
or ``__mro__``, ``_get_tracing_state()`` in code written to run under tracing, the raw
grad-mode switches). Those are here; any other name raises ``NotProvidedError`` naming it
(an AttributeError, so ``hasattr(torch._C, name)`` is False).

>>> import numtorch as torch
>>> torch._C._get_tracing_state() is None
True
>>> torch._C._set_grad_enabled(False); torch.is_grad_enabled()
False
>>> torch._C._set_grad_enabled(True)
"""
from ._lazy import NotProvidedError
from ._random import Generator
from ._tensor import Tensor
from .autograd.function import _FunctionBase
from .autograd.grad_mode import STATE as _GRAD_STATE
from .autograd.grad_mode import is_grad_enabled
from .overrides import (DisableTorchFunction, DisableTorchFunctionSubclass,  # noqa: F401
                        _disabled_torch_function_impl, _is_torch_function_enabled,
                        _is_torch_function_mode_enabled)

__all__ = ["Generator", "TensorBase", "is_grad_enabled", "DisableTorchFunction",
           "DisableTorchFunctionSubclass"]

# torch.Tensor's C++ base (``isinstance(t, torch._C.TensorBase)``); numtorch has one class
TensorBase = _TensorBase = Tensor


def _get_tracing_state():
    """The JIT tracer's state: None, as nothing is ever being traced here."""
    return None


def _set_grad_enabled(enabled):
    """Switch grad mode for this thread (what ``torch.set_grad_enabled`` does underneath)."""
    if not isinstance(enabled, bool):
        raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                        f"not {type(enabled).__name__}")
    from .autograd.grad_mode import _set_grad
    _set_grad(enabled)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotProvidedError(f"numtorch does not provide torch._C.{name} (yet)")
