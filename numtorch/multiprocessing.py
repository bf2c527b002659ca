"""``torch.multiprocessing``: Python's ``multiprocessing``, with PyTorch's extra names.

numtorch tensors cross process boundaries by pickling (their NumPy arrays are copied), so
there is no shared-memory sharing strategy to choose; the strategy functions are accepted for
compatibility.

>>> import numtorch.multiprocessing as mp
>>> mp.get_all_start_methods()[0] in ('fork', 'spawn', 'forkserver')
True
>>> mp.get_sharing_strategy()
'file_descriptor'
"""
import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403  (PyTorch re-exports all of it)

__all__ = list(_mp.__all__) + ["get_sharing_strategy", "set_sharing_strategy",
                               "get_all_sharing_strategies", "spawn", "ProcessRaisedException",
                               "ProcessExitedException"]

_STRATEGIES = ("file_descriptor", "file_system")
_strategy = "file_descriptor"


def get_all_sharing_strategies():
    """The sharing strategies PyTorch knows on this platform."""
    return set(_STRATEGIES)


def get_sharing_strategy():
    """The current sharing strategy (a name only: numtorch always pickles)."""
    return _strategy


def set_sharing_strategy(new_strategy):
    """Record ``new_strategy`` (one of :func:`get_all_sharing_strategies`)."""
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}")
    _strategy = new_strategy


class ProcessRaisedException(Exception):
    """A process started by :func:`spawn` raised; the message holds its traceback."""

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.error_index, self.pid = error_index, error_pid


class ProcessExitedException(Exception):
    """A process started by :func:`spawn` exited with a non-zero code."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg)
        self.error_index, self.pid = error_index, error_pid
        self.exit_code, self.signal_name = exit_code, signal_name


def _wrap(fn, i, args, errors):
    import traceback
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        errors.put((i, traceback.format_exc()))
        raise SystemExit(1)


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Run ``fn(i, *args)`` in ``nprocs`` processes and wait for them (when ``join``).

    Raises ProcessRaisedException with the child's traceback text if one raises.
    """
    ctx = _mp.get_context(start_method)
    errors = ctx.SimpleQueue()
    procs = [ctx.Process(target=_wrap, args=(fn, i, args, errors), daemon=daemon)
             for i in range(nprocs)]
    for p in procs:
        p.start()
    if not join:
        return procs
    for p in procs:
        p.join()
    if not errors.empty():
        i, tb = errors.get()
        for p in procs:
            p.terminate()
        raise ProcessRaisedException(f"\n\n-- Process {i} terminated with the following "
                                     f"error:\n{tb}", i, procs[i].pid)
    for i, p in enumerate(procs):
        if p.exitcode:
            raise ProcessExitedException(f"process {i} terminated with exit code "
                                         f"{p.exitcode}", i, p.pid, p.exitcode)
    return None
