"""``torch.autograd``: ``backward``, ``grad``, ``Function`` and grad-mode switches."""
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,
                        is_grad_enabled, is_inference_mode_enabled, set_multithreading_enabled,
                        is_multithreading_enabled)
from .function import Function, FunctionCtx, once_differentiable, InplaceFunction
from . import graph, function, grad_mode
from ._api import backward, grad, Variable

__all__ = ["Function", "FunctionCtx", "backward", "grad", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "once_differentiable", "Variable",
           "set_multithreading_enabled"]


def __getattr__(name):
    # heavier submodules load on first use
    import importlib
    if name in ("functional", "forward_ad", "gradcheck", "anomaly_mode", "profiler"):
        return importlib.import_module(f"{__name__}.{name}")
    if name in ("gradgradcheck",):
        return getattr(importlib.import_module(f"{__name__}.gradcheck"), name)
    if name in ("detect_anomaly", "set_detect_anomaly"):
        return getattr(importlib.import_module(f"{__name__}.anomaly_mode"), name)
    if name == "_is_checkpoint_valid":  # what torch.utils.checkpoint asks
        return graph._is_checkpoint_valid
    raise AttributeError(f"module 'torch.autograd' has no attribute '{name}'")
