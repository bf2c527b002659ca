"""``DataLoader``: batches from a dataset through a sampler and a collate function.

With ``shuffle=True`` it draws from PyTorch's random stream in PyTorch's order (one int64 for
the iterator's base seed, then one for the sampler's generator), so the same seed gives the
same batches. ``num_workers > 0`` is emulated in-process (see ``_worker``).

>>> import numtorch as torch
>>> ds = TensorDataset(torch.arange(5.))
>>> [b[0].tolist() for b in DataLoader(ds, batch_size=2)]
[[0.0, 1.0], [2.0, 3.0], [4.0]]
"""
import itertools

from ... import _dtype as D
from ._collate import default_collate, default_convert
from ._worker import EmulatedWorker
from .dataset import IterableDataset, TensorDataset  # noqa: F401  (doctest)
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]


class _InfiniteConstantSampler(Sampler):
    """None forever: the index stream of an IterableDataset."""

    def __iter__(self):
        while True:
            yield None


def _check_iterable_options(shuffle, sampler, batch_sampler):
    if shuffle not in {False, None}:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                         f"option, but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler "
                         f"option, but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                         f"batch_sampler option, but got batch_sampler={batch_sampler}")


class DataLoader:
    """Iterate over ``dataset`` in batches.

    Args:
        dataset: a map-style Dataset (``__getitem__``/``__len__``) or an IterableDataset.
        batch_size: samples per batch; ``None`` disables automatic batching.
        shuffle: reshuffle at every epoch (a RandomSampler).
        sampler, batch_sampler: custom index orders (exclusive with shuffle / batch options).
        num_workers: emulated in-process workers (same batches and worker seeds as PyTorch).
        collate_fn: merges a list of samples (``default_collate`` by default).
        drop_last: drop the last incomplete batch.
        generator: the Generator for the base seed and the RandomSampler.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset, self.num_workers = dataset, num_workers
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None else \
            prefetch_factor
        self.pin_memory, self.timeout = pin_memory, timeout
        self.worker_init_fn, self.multiprocessing_context = worker_init_fn, \
            multiprocessing_context
        self.persistent_workers, self.in_order = persistent_workers, in_order
        self.pin_memory_device = pin_memory_device
        self._dataset_kind = "iterable" if isinstance(dataset, IterableDataset) else "map"
        if self._dataset_kind == "iterable":
            _check_iterable_options(shuffle, sampler, batch_sampler)
        sampler, batch_sampler = self._samplers(dataset, batch_size, shuffle, sampler,
                                                batch_sampler, drop_last, generator)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.generator = generator
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto_collation else default_convert)
        self._IterableDataset_len_called = None
        self._iterator = None

    def _samplers(self, dataset, batch_size, shuffle, sampler, batch_sampler, drop_last,
                  generator):
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._dataset_kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.__dict__["_batch_size_for_checks"] = batch_size
        return sampler, batch_sampler

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __setattr__(self, attr, val):
        if getattr(self, "_DataLoader__initialized", False) and attr in (
                "batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def __iter__(self):
        self.__dict__["_DataLoader__initialized"] = True
        if self.persistent_workers and self.num_workers > 0 and self._iterator is not None:
            self._iterator._reset()
            return self._iterator
        it = _LoaderIter(self)
        if self.persistent_workers and self.num_workers > 0:
            self._iterator = it
        return it

    def __len__(self):
        if self._dataset_kind == "iterable":
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                from math import ceil
                length = length // self.batch_size if self.drop_last else \
                    ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Accepted for compatibility: emulated workers need no CPU checks."""


class _LoaderIter:
    """One pass over a DataLoader (PyTorch's single- and multi-process iterators in one)."""

    def __init__(self, loader):
        from ... import empty
        self._loader = loader
        self._dataset = loader.dataset
        self._collate_fn = loader.collate_fn
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._num_workers = loader.num_workers
        self._sampler_iter = iter(loader._index_sampler)
        # PyTorch draws the workers' base seed on every new iterator, workers or not
        self._base_seed = int(empty((), dtype=D.int64).random_(generator=loader.generator)
                              .item())
        self._num_yielded = 0
        self._start()

    def _start(self):
        loader = self._loader
        if self._num_workers == 0:
            self._workers = None
            self._fetchers = [self._make_fetcher()]
            return
        self._workers = [EmulatedWorker(self._dataset, i, self._num_workers, self._base_seed,
                                        loader.worker_init_fn)
                         for i in range(self._num_workers)]
        self._fetchers = [w.run(self._make_fetcher) for w in self._workers]
        self._alive = list(range(self._num_workers))
        self._turn = 0

    def _reset(self):
        self._sampler_iter = iter(self._loader._index_sampler)
        self._num_yielded = 0
        self._fetchers = [w.run(self._make_fetcher) for w in self._workers]
        self._alive = list(range(self._num_workers))
        self._turn = 0

    def _make_fetcher(self):
        if self._loader._dataset_kind == "iterable":
            return _IterableFetcher(self._dataset, self._auto_collation, self._collate_fn,
                                    self._drop_last)
        return _MapFetcher(self._dataset, self._auto_collation, self._collate_fn)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        if self._workers is None:
            data = self._fetchers[0].fetch(next(self._sampler_iter))
        else:
            data = self._next_from_workers()
        self._num_yielded += 1
        return data

    def _next_from_workers(self):
        while self._alive:
            wid = self._alive[self._turn % len(self._alive)]
            index = next(self._sampler_iter)
            try:
                data = self._workers[wid].run(self._fetchers[wid].fetch, index)
            except StopIteration:
                # an IterableDataset replica ran dry: that worker stops, the others go on
                self._alive.remove(wid)
                continue
            self._turn += 1
            return data
        raise StopIteration


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, \
            collate_fn

    def fetch(self, index):
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            data = getitems(index) if getitems else [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, \
            drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = list(itertools.islice(self.dataset_iter, len(index)))
        if len(data) < len(index):
            self.ended = True
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)
