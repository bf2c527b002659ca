"""PyTorch's intra-op thread count, kept as a number (numtorch computes on one thread).

Some PyTorch CPU kernels split their work into one block per thread and then combine the
blocks' partial results (batch norm's statistics over an (N, C) input), so their rounding
depends on this count; numtorch's emulations of those kernels read it here.

>>> set_num_threads(3); get_num_threads()
3
>>> _reset()
"""
import glob
import os

_state = {"n": None, "interop": None}


def _physical_cores():
    """Distinct (package, core) pairs in sysfs, as cpuinfo counts physical cores; 0 if
    the topology cannot be read."""
    pairs = set()
    for cpu in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/topology"):
        try:
            with open(os.path.join(cpu, "physical_package_id")) as f:
                package = f.read().strip()
            with open(os.path.join(cpu, "core_id")) as f:
                core = f.read().strip()
        except OSError:
            return 0
        pairs.add((package, core))
    return len(pairs)


def default_num_threads():
    """PyTorch's default: one thread per physical core, else per logical processor."""
    processors = os.cpu_count() or 1
    cores = _physical_cores()
    return cores if 0 < cores < processors else processors


def get_num_threads():
    """The count set last, else PyTorch's default."""
    if _state["n"] is None:
        _state["n"] = default_num_threads()
    return _state["n"]


def set_num_threads(n):
    """Set the count (PyTorch's checks and messages)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _state["n"] = n


def get_num_interop_threads():
    """The inter-op count set, else PyTorch's default (the intra-op default)."""
    return _state["interop"] or default_num_threads()


def set_num_interop_threads(n):
    """Set the inter-op count once (PyTorch's checks and messages; numtorch has no pool)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got "
                           f"{type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _state["interop"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    _state["interop"] = n


def _reset():
    _state["n"] = None
    _state["interop"] = None
