"""``DataLoader``: batches from a dataset through a sampler and a collate function.

With ``shuffle=True`` it draws from PyTorch's random stream in PyTorch's order (one int64 for
the iterator's base seed, then one for the sampler's generator), so the same seed gives the
same batches. ``num_workers > 0`` runs worker processes (see ``_multiprocessing``) that
deliver the same batches in the same order, with PyTorch's per-worker seeds.

>>> import numtorch as torch
>>> ds = TensorDataset(torch.arange(5.))
>>> [b[0].tolist() for b in DataLoader(ds, batch_size=2)]
[[0.0, 1.0], [2.0, 3.0], [4.0]]
"""
import multiprocessing
import os
import warnings
from typing import Generic

from ._collate import default_collate, default_convert
from ._fetch import _DatasetKind
from ._multiprocessing import _MultiProcessingDataLoaderIter
from ._single_process import _SingleProcessDataLoaderIter
from ._worker import get_worker_info  # noqa: F401  (PyTorch's module has it too)
from .dataset import IterableDataset, T_co, TensorDataset  # noqa: F401  (doctest)
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler
from ..._naming import use_torch_names
from ._single_process import _BaseDataLoaderIter

__all__ = ["DataLoader"]

# PyTorch defines the iterators here: they print as this module's (and are found in it)
for _cls in (_BaseDataLoaderIter, _SingleProcessDataLoaderIter, _MultiProcessingDataLoaderIter):
    _cls.__module__ = __name__
del _cls


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


class DataLoader(Generic[T_co]):
    """Iterate over ``dataset`` in batches.

    Args:
        dataset: a map-style Dataset (``__getitem__``/``__len__``) or an IterableDataset.
        batch_size: samples per batch; ``None`` disables automatic batching.
        shuffle: reshuffle at every epoch (a RandomSampler).
        sampler, batch_sampler: custom index orders (exclusive with shuffle / batch options).
        num_workers: worker processes loading batches ahead (0: load in this process).
        collate_fn: merges a list of samples (``default_collate`` by default).
        drop_last: drop the last incomplete batch.
        timeout: seconds to wait for a batch from the workers (0: forever).
        worker_init_fn: called as ``fn(worker_id)`` in each worker after seeding.
        multiprocessing_context: a start method name or context ('fork' on Linux if None).
        generator: the Generator for the base seed and the RandomSampler.
        prefetch_factor: batches loaded ahead per worker (2 when workers are used).
        persistent_workers: keep the workers alive between passes.
        in_order: hand out batches in sampler order (else as they arrive).
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
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset, self.num_workers = dataset, num_workers
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None else \
            prefetch_factor
        self.pin_memory, self.timeout = pin_memory, timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers, self.in_order = persistent_workers, in_order
        self.pin_memory_device = pin_memory_device
        self._dataset_kind = _DatasetKind.Iterable if isinstance(dataset, IterableDataset) \
            else _DatasetKind.Map
        if self._dataset_kind == _DatasetKind.Iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        sampler, batch_sampler, batch_size, drop_last = self._samplers(
            dataset, batch_size, shuffle, sampler, batch_sampler, drop_last, generator)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.generator = generator
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto_collation else default_convert)
        # from here on the sampling attributes are frozen (PyTorch's __setattr__ guard)
        self.__dict__["_DataLoader__initialized"] = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    def _samplers(self, dataset, batch_size, shuffle, sampler, batch_sampler, drop_last,
                  generator):
        """(sampler, batch_sampler, batch_size, drop_last); a custom batch_sampler makes the
        loader's batch_size None and drop_last False, as PyTorch reports them."""
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
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.__dict__["_batch_size_for_checks"] = batch_size
        return sampler, batch_sampler, batch_size, drop_last

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

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers == 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got num_workers=0")
            context = _as_context(context)
        self.__multiprocessing_context = context

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                from math import ceil
                length = length // self.batch_size if self.drop_last else \
                    ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Warn, as PyTorch does, when there are more workers than usable CPUs."""
        if not self.num_workers:
            return
        checked = hasattr(os, "sched_getaffinity")
        cpus = len(os.sched_getaffinity(0)) if checked else os.cpu_count()
        if cpus is not None and self.num_workers <= cpus:
            return
        if cpus is None:
            suggest = ("DataLoader is not able to compute a suggested max number of worker in "
                       "current system.")
        else:
            suggest = (f"Our suggested max number of worker in current system is {cpus}"
                       f"{'' if checked else ' (`cpuset` is not taken into account)'}, which "
                       "is smaller than what this DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in "
                      f"total. {suggest} Please be aware that excessive worker creation might "
                      "get DataLoader running slow or even freeze, lower the worker number to "
                      "avoid potential slowness/freeze if necessary.", stacklevel=2)


def _as_context(context):
    """A multiprocessing context from a start method name or a context object."""
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(f"multiprocessing_context option should specify a valid start "
                             f"method in {methods!r}, but got "
                             f"multiprocessing_context={context!r}")
        context = multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError(f"multiprocessing_context option should be a valid context object or "
                        f"a string specifying the start method, but got "
                        f"multiprocessing_context={context}")
    return context


use_torch_names(globals())
