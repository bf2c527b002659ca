"""The DataLoader iterator shared part, and the iterator of ``num_workers=0`` loaders.

Every new iterator draws one int64 from the loader's generator (the workers' base seed), with
or without workers, as PyTorch does; so the main random stream stays in step with PyTorch's.

>>> import numtorch as torch
>>> from numtorch.utils.data import DataLoader
>>> it = iter(DataLoader(range(5), batch_size=2))
>>> type(it).__name__, next(it).tolist(), len(it)
('_SingleProcessDataLoaderIter', [0, 1], 3)
"""
import warnings

from ... import _dtype as D
from ._fetch import _DatasetKind, create_fetcher

__all__ = ["_BaseDataLoaderIter", "_SingleProcessDataLoaderIter"]


class _BaseDataLoaderIter:
    """One pass over a DataLoader: sampler iterator, base seed, length checks."""

    def __init__(self, loader):
        from ... import empty
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._persistent_workers = loader.persistent_workers
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = int(empty((), dtype=D.int64).random_(generator=loader.generator)
                              .item())
        self._num_yielded = 0
        _warn_pin_memory(loader)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if self._dataset_kind == _DatasetKind.Iterable and self._IterableDataset_len_called is not None \
                and self._num_yielded > self._IterableDataset_len_called:
            self._warn_length()
        return data

    def _warn_length(self):
        msg = (f"Length of IterableDataset {self._dataset} was reported to be "
               f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
               f"{self._num_yielded} samples have been fetched. ")
        if self._num_workers > 0:
            msg += ("For multiprocessing data-loading, this could be caused by not properly "
                    "configuring the IterableDataset replica at each worker. Please see "
                    "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset"
                    " for examples.")
        warnings.warn(msg, stacklevel=3)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


def _warn_pin_memory(loader):
    """numtorch has no accelerator: pinned memory is never used (PyTorch's warnings)."""
    if loader.pin_memory and loader.pin_memory_device:
        warnings.warn("pin_memory_device is deprecated, the current accelerator will be used "
                      f"as the device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                      stacklevel=4)
    if loader.pin_memory:
        warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then "
                      "device pinned memory won't be used.", stacklevel=4)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Fetches each batch in the calling process."""

    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._fetcher = create_fetcher(self._dataset_kind, self._dataset,
                                       self._auto_collation, self._collate_fn,
                                       self._drop_last)

    def _next_data(self):
        return self._fetcher.fetch(self._next_index())
