"""DataLoader worker processes against PyTorch's: batches and randomness for the same seed,
``worker_init_fn``, ``persistent_workers``, ``prefetch_factor``, ``in_order``, errors raised
in a worker, ``timeout``, dead workers and shutdown.

Every loader here has a ``timeout`` so that a broken worker fails the test instead of
hanging it.
"""
import os
import random
import re
import time
import traceback

import numpy as np
import pytest

import numtorch
from helpers import check_error, plain
from numtorch.utils.data import _worker

WAIT = 30  # seconds a test loader waits for a batch before failing


def _loader(lib, dataset, **kwargs):
    kwargs.setdefault("timeout", WAIT)
    return lib.utils.data.DataLoader(dataset, **kwargs)


def _random_dataset(lib, n=10):
    class Draws(lib.utils.data.Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            info = lib.utils.data.get_worker_info()
            return (i, info.id, info.seed - info.id, lib.rand(()).item(), random.random(),
                    float(np.random.rand()))
    return Draws()


def _raised(exc_type, fn):
    """The message of the ``exc_type`` that ``fn()`` raises.

    NOTE: the frames of the traceback are cleared: they would keep the loader's iterator, and
    so its workers, alive in a reference cycle until the garbage collector runs, and PyTorch
    takes seconds to stop workers from there.
    """
    try:
        fn()
    except exc_type as e:
        traceback.clear_frames(e.__traceback__)
        return str(e)
    raise AssertionError(f"{exc_type.__name__} not raised")


def _plain_batches(loader):
    return [[plain(t) for t in batch] for batch in loader]


def test_runs_in_worker_processes():
    class Pids(numtorch.utils.data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return os.getpid()
    pids = [int(p) for b in _loader(numtorch, Pids(), batch_size=1, num_workers=2)
            for p in b]
    assert os.getpid() not in pids and len(set(pids)) == 2


@pytest.mark.parametrize("kwargs", [
    {"batch_size": 3, "shuffle": True},
    {"batch_size": 2, "prefetch_factor": 1},
    {"batch_size": None, "shuffle": True, "prefetch_factor": 3},
], ids=["shuffle", "prefetch1", "unbatched"])
def test_batches_and_randomness_match_torch(torch, kwargs):
    def run(lib):
        lib.manual_seed(4)
        out = _plain_batches(_loader(lib, _random_dataset(lib), num_workers=2, **kwargs))
        return out + [lib.rand(2).tolist()]
    assert run(numtorch) == run(torch)


def test_persistent_workers_keep_state_across_epochs(torch):
    def run(lib):
        lib.manual_seed(2)
        loader = _loader(lib, _random_dataset(lib, 5), batch_size=2, num_workers=2,
                         shuffle=True, persistent_workers=True)
        epochs = [_plain_batches(loader) for _ in range(3)]
        first = iter(loader)
        return epochs + [first is iter(loader), lib.rand(1).tolist()]
    assert run(numtorch) == run(torch)


def test_worker_init_fn_and_worker_info(torch):
    def run(lib):
        class Tagged(lib.utils.data.Dataset):
            tag = None

            def __len__(self):
                return 6

            def __getitem__(self, i):
                return (i, self.tag, lib.rand(()).item())

        def init(worker_id):
            info = lib.utils.data.get_worker_info()
            info.dataset.tag = f"w{worker_id}/{info.num_workers}"
            lib.manual_seed(100 + worker_id)
        lib.manual_seed(0)
        return _plain_batches(_loader(lib, Tagged(), batch_size=2, num_workers=2,
                                      worker_init_fn=init))
    assert run(numtorch) == run(torch)


def test_iterable_dataset_replicas(torch):
    def run(lib):
        class Shard(lib.utils.data.IterableDataset):
            def __iter__(self):
                info = lib.utils.data.get_worker_info()
                return iter(range(info.id * 10, info.id * 10 + 3 + info.id))
        once = [b.tolist() for b in _loader(lib, Shard(), batch_size=2, num_workers=2)]
        loader = _loader(lib, Shard(), batch_size=2, num_workers=2, persistent_workers=True)
        return once, [[b.tolist() for b in loader] for _ in range(2)]
    assert run(numtorch) == run(torch)


def test_out_of_order_delivery_has_every_batch():
    class Slow(numtorch.utils.data.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            time.sleep(0.05 if i == 0 else 0)
            return i
    got = [b.item() for b in _loader(numtorch, Slow(), num_workers=2, in_order=False)]
    assert sorted(got) == list(range(6))


class _Faulty:
    def __init__(self, lib, exc):
        self.lib, self.exc = lib, exc

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise self.exc
        return i


@pytest.mark.parametrize("exc", [ValueError("bad index 3"), KeyError("k"),
                                 ZeroDivisionError("division by zero")],
                         ids=["value", "key", "zero"])
def test_error_in_worker_is_reraised_with_its_traceback(torch, exc):
    def run(lib):
        msg = _raised(type(exc), lambda: list(_loader(lib, _Faulty(lib, exc), num_workers=2)))
        lines = msg.splitlines()
        return lines[0], lines[1], lines[-1], "in __getitem__" in msg
    mine, ref = run(numtorch), run(torch)
    assert mine == ref
    assert mine[0].startswith("Caught ") and mine[0].endswith("in DataLoader worker process 1.")


def test_error_in_worker_init_fn(torch):
    def run(lib):
        def init(worker_id):
            raise RuntimeError(f"init failed in {worker_id}")
        msg = _raised(RuntimeError, lambda: next(iter(_loader(lib, range(4), num_workers=2,
                                                              worker_init_fn=init))))
        return msg.splitlines()[0], msg.splitlines()[-1]
    assert run(numtorch) == run(torch)


def test_timeout(monkeypatch):
    class Sleepy(numtorch.utils.data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            time.sleep(5)
            return i
    monkeypatch.setattr(_worker, "MP_STATUS_CHECK_INTERVAL", 0.2)  # shutdown's wait
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.3 seconds$"):
        next(iter(numtorch.utils.data.DataLoader(Sleepy(), num_workers=1, timeout=0.3)))
    assert time.monotonic() - start < 4


def test_dead_worker_is_reported(monkeypatch):
    class Crash(numtorch.utils.data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            os._exit(3)
    monkeypatch.setattr(_worker, "MP_STATUS_CHECK_INTERVAL", 0.2)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly"):
        list(numtorch.utils.data.DataLoader(Crash(), num_workers=1))


def test_workers_stop_when_iterator_goes_or_ends():
    it = iter(_loader(numtorch, range(20), num_workers=2))
    next(it)
    workers = list(it._workers)
    assert all(w.is_alive() for w in workers)
    del it
    assert not any(w.is_alive() for w in workers)
    it = iter(_loader(numtorch, range(3), num_workers=2))
    list(it)
    assert not any(w.is_alive() for w in it._workers)


def test_spawn_context():
    ds = numtorch.utils.data.TensorDataset(numtorch.arange(6.).reshape(3, 2))
    loader = _loader(numtorch, ds, batch_size=2, num_workers=1,
                     multiprocessing_context="spawn")
    assert [b[0].tolist() for b in loader] == [[[0., 1.], [2., 3.]], [[4., 5.]]]


ERRORS = [
    lambda lib: lib.utils.data.DataLoader(range(3), multiprocessing_context="fork"),
    lambda lib: lib.utils.data.DataLoader(range(3), num_workers=1,
                                          multiprocessing_context="nope"),
    lambda lib: lib.utils.data.DataLoader(range(3), num_workers=1, multiprocessing_context=3),
    lambda lib: lib.utils.data.DataLoader(range(3), prefetch_factor=2),
    lambda lib: lib.utils.data.DataLoader(range(3), persistent_workers=True),
    lambda lib: lib.utils.data.DataLoader(range(3), timeout=-1),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(fn):
    check_error(fn)


def test_too_many_workers_warns(torch):
    def run(lib):
        with pytest.warns(UserWarning) as record:
            lib.utils.data.DataLoader(range(2), num_workers=1000).check_worker_number_rationality()
        return str(record[0].message)
    assert run(numtorch) == run(torch)


def test_single_process_refuses_timeout():
    check_error(lambda lib: iter(lib.utils.data.DataLoader(range(2), timeout=1)))


@pytest.mark.parametrize("kwargs", [{"pin_memory": True},
                                    {"pin_memory": True, "pin_memory_device": "cuda"}])
def test_pin_memory_warns_without_accelerator(torch, kwargs):
    def run(lib):
        with pytest.warns(UserWarning) as record:
            iter(lib.utils.data.DataLoader(range(2), **kwargs))
        return [str(r.message) for r in record]
    assert run(numtorch) == run(torch)


@pytest.mark.parametrize("workers", [0, 2])
def test_iterable_length_warning(torch, workers):
    def run(lib):
        class Liar(lib.utils.data.IterableDataset):
            def __len__(self):
                return 2

            def __iter__(self):
                info = lib.utils.data.get_worker_info()
                return iter(range(3) if info is None or info.id == 0 else [])
        loader = _loader(lib, Liar(), batch_size=None, num_workers=workers,
                         timeout=WAIT if workers else 0)
        len(loader)
        with pytest.warns(UserWarning) as record:
            items = [int(x) for x in loader]
        return items, [re.sub(r"object at 0x[0-9a-f]+", "", str(r.message)) for r in record]
    assert run(numtorch) == run(torch)
