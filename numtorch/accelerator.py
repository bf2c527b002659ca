"""``torch.accelerator`` on a CPU-only library: there is no accelerator.

PyTorch's quickstart picks its device with
``torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"``;
here, as in a CPU-only PyTorch, ``is_available()`` is False and ``current_accelerator()`` is
None. What needs a device raises PyTorch's RuntimeError.

>>> import numtorch as torch
>>> torch.accelerator.is_available(), torch.accelerator.current_accelerator()
(False, None)
"""

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "current_stream",
           "device_count", "device_index", "empty_cache", "empty_host_cache",
           "get_device_capability", "get_memory_info", "is_available", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx",
           "set_device_index", "set_stream", "synchronize"]


def _no_accelerator():
    raise RuntimeError("Cannot access accelerator device when none is available.")


def is_available():
    """Whether an accelerator can be used: never, on numtorch."""
    return False


def current_accelerator(check_available=False):
    """The accelerator's device type, or None (always None here)."""
    return None


def device_count():
    """Number of accelerator devices: 0."""
    return 0


def current_device_index():
    _no_accelerator()


def set_device_index(device):
    _no_accelerator()


def current_device_idx():
    """Deprecated alias of ``current_device_index``."""
    _deprecated("current_device_index")
    _no_accelerator()


def set_device_idx(device):
    """Deprecated alias of ``set_device_index``."""
    _deprecated("set_device_index")
    _no_accelerator()


def _deprecated(name):
    from .ops._util import warn_user
    warn_user(f"Use `{name}` instead.", FutureWarning)


def current_stream(device=None):
    _no_accelerator()


def set_stream(stream):
    raise TypeError("_accelerator_setStream(): incompatible function arguments. The following "
                    "argument types are supported:\n    1. (arg0: torch.Stream) -> None\n\n"
                    f"Invoked with: {stream!r}")


def synchronize(device=None):
    _no_accelerator()


class device_index:
    """Context manager selecting accelerator device ``device``; ``None`` selects nothing."""

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            _no_accelerator()

    def __exit__(self, *exc):
        return False


def _memory_query(name):
    def query(*args, **kwargs):
        _no_accelerator()
    query.__name__ = query.__qualname__ = name
    query.__doc__ = f"torch.accelerator.{name}: needs an accelerator (none here)."
    return query


empty_cache = _memory_query("empty_cache")
empty_host_cache = _memory_query("empty_host_cache")
get_device_capability = _memory_query("get_device_capability")
get_memory_info = _memory_query("get_memory_info")
max_memory_allocated = _memory_query("max_memory_allocated")
max_memory_reserved = _memory_query("max_memory_reserved")
memory_allocated = _memory_query("memory_allocated")
memory_reserved = _memory_query("memory_reserved")
memory_stats = _memory_query("memory_stats")
reset_accumulated_memory_stats = _memory_query("reset_accumulated_memory_stats")
reset_peak_memory_stats = _memory_query("reset_peak_memory_stats")
