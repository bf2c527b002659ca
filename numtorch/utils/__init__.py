"""``torch.utils``: hooks, data (lazy), checkpoint (lazy), dlpack (lazy)."""
from . import hooks  # noqa: F401


def __getattr__(name):
    import importlib
    if name in ("data", "checkpoint", "dlpack"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'torch.utils' has no attribute '{name}'")
