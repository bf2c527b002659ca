"""``torch.multiprocessing.spawn``: run a function in N fresh processes and watch them.

Each process runs ``fn(i, *args)``. A process that raises writes its traceback text to its own
error file and exits with code 1; :meth:`ProcessContext.join` waits for any process to end,
and on the first failure stops the others and raises :class:`ProcessRaisedException` (with
that traceback) or :class:`ProcessExitedException` (exit code or signal), as PyTorch does.

>>> ProcessExitedException("process 0 terminated with exit code 2", 0, 123, 2).exit_code
2
"""
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import warnings

from .._naming import use_torch_names

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "spawn", "SpawnContext", "start_processes"]


class ProcessException(Exception):
    """A process started by :func:`start_processes` failed."""
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A process failed with an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A process exited with a non-zero code or was killed by a signal."""
    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                            self.signal_name)


def _wrap(fn, i, args, error_file):
    """The target of process ``i``: a traceback goes to ``error_file`` (exit code 1)."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent stopped this process
    except Exception:
        import traceback
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes :func:`start_processes` started and their error files."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        """The processes' ids, in order."""
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None, grace_period=None):
        """Wait (up to ``timeout`` seconds) for a process to end; True once all have ended
        successfully, False while some run. On a failure, stop the others (after
        ``grace_period`` seconds) and raise the failure's exception."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._stop_others(grace_period)
        raise self._failure(failed)

    def _stop_others(self, grace_period):
        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                p.kill()
            p.join()

    def _join_all(self, seconds):
        import time
        end = time.monotonic() + seconds
        for p in self.processes:
            p.join(max(0, end - time.monotonic()))

    def _failure(self, index):
        """The exception for process ``index``'s failure (its traceback, else its exit)."""
        process = self.processes[index]
        if os.access(self.error_files[index], os.R_OK):
            with open(self.error_files[index], "rb") as fh:
                trace = pickle.load(fh)
            msg = f"\n\n-- Process {index:d} terminated with the following error:\n{trace}"
            return ProcessRaisedException(msg, index, process.pid)
        code = process.exitcode
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"<Unknown signal {-code}>"
            return ProcessExitedException(f"process {index:d} terminated with signal {name}",
                                          error_index=index, error_pid=process.pid,
                                          exit_code=code, signal_name=name)
        return ProcessExitedException(f"process {index:d} terminated with exit code {code:d}",
                                      error_index=index, error_pid=process.pid,
                                      exit_code=code)


class SpawnContext(ProcessContext):
    """The pre-1.4 name of :class:`ProcessContext` (warns)."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.",
                      stacklevel=2)
        super().__init__(processes, error_files)


def _error_file():
    """A fresh path: the file exists only once a process has written a traceback to it."""
    tf = tempfile.NamedTemporaryFile(prefix="pytorch-errorfile-", suffix=".pickle",
                                     delete=False)
    tf.close()
    os.unlink(tf.name)
    return tf.name


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes of ``start_method`` running ``fn(i, *args)``; wait for
    them when ``join`` (returns None), else return their :class:`ProcessContext`."""
    ctx = multiprocessing.get_context(start_method)
    error_files, processes = [], []
    for i in range(nprocs):
        error_files.append(_error_file())
        processes.append(ctx.Process(target=_wrap, args=(fn, i, args, error_files[-1]),
                                     daemon=daemon))
        processes[-1].start()
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Run ``fn(i, *args)`` for ``i`` in ``range(nprocs)``, each in a new "spawn" process.

    Args:
        fn: a top-level (picklable) function called as ``fn(i, *args)``.
        args: the arguments after the process index.
        nprocs: how many processes.
        join: wait for all of them (and return None), else return a ProcessContext.
        daemon: the processes' daemon flag.
        start_method: deprecated; always "spawn" (use :func:`start_processes` for others).

    Raises:
        ProcessRaisedException: a process raised (the message holds its traceback).
        ProcessExitedException: a process exited with a non-zero code or a signal.
    """
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t"
                      " torch.multiprocessing.start_processes(...)", FutureWarning,
                      stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")


use_torch_names(globals())
