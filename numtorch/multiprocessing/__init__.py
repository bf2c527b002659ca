"""``torch.multiprocessing``: Python's ``multiprocessing``, with PyTorch's extra names.

numtorch tensors cross process boundaries by pickling (their NumPy arrays are copied), so
there is no shared-memory sharing strategy to choose; the strategy functions are accepted for
compatibility. :func:`spawn` and :func:`start_processes` (module ``spawn``) run a function in
N processes. Under ``numtorch run``, "spawn" and "forkserver" children resolve ``torch`` to
numtorch as their parent does (see numtorch/_cli.py).

>>> import numtorch.multiprocessing as mp
>>> mp.get_all_start_methods()[0] in ('fork', 'spawn', 'forkserver')
True
>>> mp.get_sharing_strategy()
'file_descriptor'
"""
import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403  (PyTorch re-exports all of it)

from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,  # noqa
                    SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"] + \
    list(_mp.__all__)

_all_sharing_strategies = {"file_descriptor", "file_system"}
_sharing_strategy = "file_descriptor"


def get_all_sharing_strategies():
    """The sharing strategies PyTorch knows on this platform."""
    return _all_sharing_strategies


def get_sharing_strategy():
    """The current sharing strategy (a name only: numtorch always pickles)."""
    return _sharing_strategy


def set_sharing_strategy(new_strategy):
    """Record ``new_strategy`` (one of :func:`get_all_sharing_strategies`)."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, "
                             f"expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy
