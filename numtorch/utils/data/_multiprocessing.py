"""The iterator of ``num_workers > 0`` loaders: worker processes, queues, in-order delivery.

The main process walks the sampler and sends task ``k`` (a batch of indices) to worker
``k % num_workers`` (skipping workers whose IterableDataset replica ran dry), keeping
``prefetch_factor * num_workers`` tasks in flight. Results come back on one queue in any order
and are handed out in task order (or as they arrive with ``in_order=False``), so batches and
per-worker randomness are those of a PyTorch run. Workers stop when the pass ends, when the
iterator is deleted, or, with ``persistent_workers=True``, when the loader goes.

>>> import numtorch as torch
>>> from numtorch.utils.data import DataLoader
>>> [b.tolist() for b in DataLoader(range(5), batch_size=2, num_workers=2)]
[[0, 1], [2, 3], [4]]
"""
import itertools
import multiprocessing
import queue
import sys

from . import _worker as W
from ._single_process import _BaseDataLoaderIter

__all__ = ["_MultiProcessingDataLoaderIter", "default_context"]


def default_context():
    """'fork' on Linux unless the program chose a start method; else the default context.

    >>> default_context().get_start_method() in multiprocessing.get_all_start_methods()
    True
    """
    if sys.platform.startswith("linux") and \
            multiprocessing.get_start_method(allow_none=True) is None:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """One pass over a DataLoader with worker processes (reused across passes when the
    loader has ``persistent_workers=True``)."""

    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        self._shutdown = False
        self._workers = []  # set first: __del__ may run if starting a worker fails
        ctx = loader.multiprocessing_context or default_context()
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        self._index_queues = []
        spec = {"kind": self._dataset_kind, "dataset": self._dataset,
                "auto_collation": self._auto_collation, "collate_fn": self._collate_fn,
                "drop_last": self._drop_last, "base_seed": self._base_seed,
                "init_fn": loader.worker_init_fn, "num_workers": self._num_workers}
        for i in range(self._num_workers):
            self._start_worker(ctx, spec, i)
        self._reset(loader, first_iter=True)

    def _start_worker(self, ctx, spec, worker_id):
        index_queue = ctx.Queue()
        index_queue.cancel_join_thread()  # never block exit on undelivered indices
        w = ctx.Process(target=W.worker_loop, args=(spec, index_queue, self._result_queue,
                                                    self._done_event, worker_id),
                        daemon=True)
        w.start()
        self._index_queues.append(index_queue)
        self._workers.append(w)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0  # next task to send
        self._rcvd_idx = 0  # next task to hand out
        self._task_info = {}  # task -> (worker,) while in flight, (worker, data) when early
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            self._resume_workers()
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _resume_workers(self):
        """Persistent workers: start a new pass and wait until every worker has."""
        for q in self._index_queues:
            q.put(W.ResumeIteration())
        remaining = self._num_workers
        while remaining > 0:
            idx, data = self._get_data()
            if isinstance(idx, W.ResumeIteration):
                remaining -= 1

    # ---- receiving -----------------------------------------------------------------------
    def _try_get_data(self, timeout=None):
        """(True, message) or (False, None) after ``timeout``; raises if a worker died."""
        timeout = W.MP_STATUS_CHECK_INTERVAL if timeout is None else timeout
        try:
            return True, self._result_queue.get(timeout=timeout)
        except Exception as e:
            dead = [w for k, w in enumerate(self._workers)
                    if self._workers_status[k] and not w.is_alive()]
            for k, w in enumerate(self._workers):
                if w in dead:
                    self._mark_worker_unavailable(k)
            if dead:
                pids = ", ".join(str(w.pid) for w in dead)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited "
                                   f"unexpectedly") from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self):
        if self._timeout > 0:
            ok, data = self._try_get_data(self._timeout)
            if not ok:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return data
        while True:
            ok, data = self._try_get_data()
            if ok:
                return data

    def _next_ready_task(self):
        """Advance ``_rcvd_idx`` past tasks of retired workers; False when none is left."""
        while self._rcvd_idx < self._send_idx:
            info = self._task_info.get(self._rcvd_idx)
            if info:
                if len(info) == 2 or self._workers_status[info[0]]:
                    return True
                del self._task_info[self._rcvd_idx]
            self._rcvd_idx += 1
        return False

    def _next_data(self):
        while True:
            if not self._next_ready_task():
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:  # arrived early, kept until now
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            if self._shutdown or self._tasks_outstanding <= 0:
                raise AssertionError("Invalid iterator state: shutdown or no outstanding "
                                     "tasks when fetching next data")
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, W.IterableDatasetStopIteration):
                self._retire(data.worker_id)
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    return self._process_data(data, self._task_info.pop(idx)[0])
                self._task_info[idx] += (data,)
                continue
            worker_id = self._task_info.pop(idx)[0]
            self._rcvd_idx += 1
            return self._process_data(data, worker_id)

    def _retire(self, worker_id):
        """A worker's IterableDataset replica ended: send it no more tasks this pass."""
        if self._persistent_workers:
            self._workers_status[worker_id] = False
        else:
            self._mark_worker_unavailable(worker_id)
        self._try_put_index()

    def _process_data(self, data, worker_id):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, W.ExceptionWrapper):
            data.reraise()
        return data

    # ---- sending -------------------------------------------------------------------------
    def _pick_worker(self, max_tasks):
        """The next active worker in turn (with room, out of order), or None."""
        for _ in range(self._num_workers):
            k = next(self._worker_cycle)
            if not self._workers_status[k]:
                continue
            if self._in_order or \
                    self._workers_num_tasks[k] < max_tasks // sum(self._workers_status):
                return k
        return None

    def _try_put_index(self):
        max_tasks = self._prefetch_factor * self._num_workers
        if self._tasks_outstanding >= max_tasks:
            raise AssertionError("Number of outstanding tasks exceeded maximum allowed tasks")
        try:
            index = self._next_index()
        except StopIteration:
            return
        k = self._pick_worker(max_tasks)
        if k is None:
            return
        self._index_queues[k].put((self._send_idx, index))
        self._task_info[self._send_idx] = (k,)
        self._workers_num_tasks[k] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    # ---- shutdown ------------------------------------------------------------------------
    def _mark_worker_unavailable(self, worker_id, shutdown=False):
        self._index_queues[worker_id].put(None)  # the worker's loop ends on None
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        """Stop every worker: ask politely, wait a little, then terminate."""
        if self._shutdown or sys.is_finalizing():
            return
        self._shutdown = True
        try:
            self._done_event.set()
            for k in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[k]:
                    self._mark_worker_unavailable(k, shutdown=True)
            for w in self._workers:
                w.join(timeout=W.MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=W.MP_STATUS_CHECK_INTERVAL)

    def __del__(self):
        if getattr(self, "_workers", None):
            self._shutdown_workers()
