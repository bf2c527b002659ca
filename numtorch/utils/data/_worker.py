"""DataLoader worker processes: the loop each worker runs, its seeding and its messages.

A worker is a separate process. It seeds ``torch``'s default generator and Python's
``random`` with ``base_seed + worker_id`` and NumPy's global generator from a SeedSequence of
``[worker_id, base_seed low 32 bits, base_seed high 32 bits, 0]``, exactly as PyTorch seeds its
workers, so random augmentations inside a dataset draw PyTorch's numbers. It then answers
``(task_idx, indices)`` messages from its index queue with ``(task_idx, batch)`` on the shared
result queue (tensors travel pickled, as NumPy arrays). An exception inside the worker travels
back as an ``ExceptionWrapper`` holding the worker's traceback text, re-raised in the main
process with PyTorch's wording.

>>> get_worker_info() is None
True
>>> worker_seeds(5, 1)[0]
6
"""
import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass

import numpy as np

from ..._naming import torch_named
from ._fetch import _DatasetKind

__all__ = ["WorkerInfo", "get_worker_info", "ExceptionWrapper", "worker_loop",
           "worker_seeds", "MP_STATUS_CHECK_INTERVAL"]

# Seconds between liveness checks while waiting on a queue (PyTorch's value).
MP_STATUS_CHECK_INTERVAL = 5.0
# Seconds an idle worker waits for a message before checking that it should go on.
# NOTE: shorter than PyTorch's 5 s: when a loader's iterator is freed by the garbage collector,
# its index queues can be finalised before the stop message is sent, and the worker must then
# notice the done event by itself.
WORKER_POLL_INTERVAL = 0.1

_worker_info = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Information about the current DataLoader worker process.

    Attributes:
        id: this worker's id, 0 to ``num_workers - 1``.
        num_workers: how many workers the loader runs.
        seed: the seed of this worker's ``torch`` and ``random`` generators.
        dataset: this process's copy of the dataset.
    """
    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


def get_worker_info():
    """The current worker's :class:`WorkerInfo` inside a DataLoader worker, else ``None``.

    >>> get_worker_info() is None
    True
    """
    return _worker_info


def worker_seeds(base_seed, worker_id):
    """(torch/random seed, NumPy seed words) of worker ``worker_id``, as PyTorch derives them.

    >>> worker_seeds(0, 0)[1].dtype
    dtype('uint32')
    """
    words = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    return base_seed + worker_id, np.random.SeedSequence(words).generate_state(4)


class ExceptionWrapper:
    """An exception and its traceback text, to re-raise in another process.

    >>> try:
    ...     {}["k"]
    ... except KeyError:
    ...     w = ExceptionWrapper(where="in DataLoader worker process 0")
    >>> w.exc_type
    <class 'KeyError'>
    """

    def __init__(self, exc_info=None, where="in background"):
        exc_info = sys.exc_info() if exc_info is None else exc_info
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the wrapped exception type with the original traceback in its message."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)  # KeyError reprs its argument; keep newlines readable
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            del exception  # no frame <-> traceback cycle holding the loader's iterator


class _KeyErrorMessage(str):
    """A str whose repr is itself."""
    __slots__ = ()

    def __repr__(self):
        return self


class ResumeIteration:
    """Sent to persistent workers at each new epoch: rebuild the fetcher, then acknowledge."""

    def __init__(self, seed=None):
        self.seed = seed


class IterableDatasetStopIteration:
    """A worker's IterableDataset replica is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ParentWatchdog:
    """Whether the process that started this worker is still alive."""

    def __init__(self):
        self.parent = os.getppid()
        self.dead = False

    def is_alive(self):
        if not self.dead:
            self.dead = os.getppid() != self.parent
        return not self.dead


def _seed_process(base_seed, worker_id):
    from ... import manual_seed
    seed, np_seed = worker_seeds(base_seed, worker_id)
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(np_seed)
    return seed


def _setup(spec, worker_id):
    """Seed, publish WorkerInfo, run ``worker_init_fn``; (fetcher, init error or None)."""
    global _worker_info
    from ._fetch import create_fetcher
    seed = _seed_process(spec["base_seed"], worker_id)
    _worker_info = WorkerInfo(id=worker_id, num_workers=spec["num_workers"], seed=seed,
                              dataset=spec["dataset"])
    try:
        if spec["init_fn"] is not None:
            spec["init_fn"](worker_id)
        return create_fetcher(*_fetcher_args(spec)), None
    except Exception:
        return None, ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")


def _fetcher_args(spec):
    return (spec["kind"], spec["dataset"], spec["auto_collation"], spec["collate_fn"],
            spec["drop_last"])


def _fetch(fetcher, index, kind, worker_id):
    """(data, ended): a batch, an end-of-stream marker, or a wrapped exception."""
    try:
        return fetcher.fetch(index), False
    except StopIteration:
        if kind == _DatasetKind.Iterable:
            return IterableDatasetStopIteration(worker_id), True
        return ExceptionWrapper(where=f"in DataLoader worker process {worker_id}"), False
    except Exception:
        return ExceptionWrapper(where=f"in DataLoader worker process {worker_id}"), False


def worker_loop(spec, index_queue, result_queue, done_event, worker_id):
    """The body of worker process ``worker_id``; ``spec`` holds the loader's settings.

    Messages in: ``(task_idx, indices)``, ``ResumeIteration`` (persistent workers, new epoch)
    or ``None`` (stop). Messages out: ``(task_idx, data)`` and ``(ResumeIteration, None)``.
    """
    from ._fetch import create_fetcher
    try:
        fetcher, pending_error = _setup(spec, worker_id)
        ended = False
        watchdog = _ParentWatchdog()
        while watchdog.is_alive():
            try:
                msg = index_queue.get(timeout=WORKER_POLL_INTERVAL)
            except queue.Empty:
                if done_event.is_set():
                    break
                continue
            if isinstance(msg, ResumeIteration):
                result_queue.put((msg, None))
                ended = False
                fetcher = create_fetcher(*_fetcher_args(spec))
                continue
            if msg is None:
                break
            if done_event.is_set() or ended:
                continue
            idx, index = msg
            if pending_error is not None:
                data, pending_error = pending_error, None
            else:
                data, ended = _fetch(fetcher, index, spec["kind"], worker_id)
            result_queue.put((idx, data))
            del data, idx, index, msg  # let a large batch go before the next get
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        result_queue.cancel_join_thread()
        result_queue.close()


# PyTorch's home for these (its _utils.worker module, which numtorch's re-exports)
torch_named(WorkerInfo, "numtorch.utils.data._utils.worker")
torch_named(get_worker_info, "numtorch.utils.data._utils.worker")
