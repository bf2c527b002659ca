"""Fetchers: turn one index (or a batch of indices) from the sampler into collated data.

The same fetchers run in the main process (``num_workers=0``) and inside worker processes.

>>> fetch = MapFetcher(range(10, 20), True, list)
>>> fetch.fetch([0, 3])
[10, 13]
"""
import itertools

from ..._naming import torch_named

__all__ = ["MapFetcher", "IterableFetcher", "create_fetcher"]


class MapFetcher:
    """Reads ``dataset[i]`` for each index (``__getitems__`` when the dataset has it)."""

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


class IterableFetcher:
    """Takes the next ``len(index)`` items of the dataset's iterator; StopIteration at the end."""

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


def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
    """The fetcher for a dataset of ``kind`` (a :class:`_DatasetKind` value)."""
    if kind == _DatasetKind.Iterable:
        return IterableFetcher(dataset, auto_collation, collate_fn, drop_last)
    return MapFetcher(dataset, auto_collation, collate_fn)


class _DatasetKind:
    """``torch.utils.data._DatasetKind``: a loader's ``_dataset_kind`` is ``Map`` (0) or
    ``Iterable`` (1), as in PyTorch.

    >>> _DatasetKind.create_fetcher(_DatasetKind.Map, [5, 6], False, int, False).fetch(1)
    6
    """
    Map = 0
    Iterable = 1
    create_fetcher = staticmethod(create_fetcher)


torch_named(_DatasetKind, "numtorch.utils.data.dataloader")  # PyTorch's home (it imports it)
