"""``torch.nn``: modules, parameters, functional ops and initialisers."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .parallel import DataParallel  # noqa: F401


def __getattr__(name):
    import importlib
    if name in ("functional", "init", "utils", "parallel", "grad"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"numtorch does not provide torch.nn.{name} (yet)")
