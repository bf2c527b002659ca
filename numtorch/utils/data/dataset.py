"""Datasets: ``Dataset``, ``IterableDataset``, ``TensorDataset``, ``ConcatDataset``,
``ChainDataset``, ``StackDataset``, ``Subset`` and ``random_split``.

>>> import numtorch as torch
>>> ds = TensorDataset(torch.arange(4), torch.arange(4) * 10)
>>> len(ds), ds[1]
(4, (tensor(1), tensor(10)))
"""
import bisect
import itertools
import math
import warnings
from typing import Generic, Iterable, TypeVar

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]


T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``).
    Generic over its samples, as PyTorch's: ``class Pairs(Dataset[tuple[Tensor, int]])``."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A stream-style dataset: subclasses define ``__iter__``.

    ``__iter__`` stays the abstract method of ``Iterable``, so, as in PyTorch, a subclass
    without it cannot be instantiated (TypeError naming the abstract method)."""

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the rows (dim 0) of the given tensors, as a tuple.

    >>> TensorDataset(torch.zeros(3, 2), torch.ones(3))[2]
    (tensor([0., 0.]), tensor(1.))
    """

    def __init__(self, *tensors):
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Samples are tuples (or dicts) of the samples of several equally long datasets.

    >>> StackDataset(a=[1, 2], b=[3, 4])[1]
    {'a': 2, 'b': 4}
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        datasets = args or tuple(kwargs.values())
        if not datasets:
            raise ValueError("At least one dataset should be passed")
        self._length = len(datasets[0])
        if any(self._length != len(d) for d in datasets):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        """A batch of samples; a member dataset with ``__getitems__`` is asked once for all.

        >>> StackDataset([1, 2, 3], [4, 5, 6]).__getitems__([0, 2])
        [(1, 4), (3, 6)]
        """
        named = isinstance(self.datasets, dict)
        members = self.datasets.items() if named else enumerate(self.datasets)
        columns = {}
        for key, d in members:
            if callable(getattr(d, "__getitems__", None)):
                items = d.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch. Expected "
                                     f"{len(indices)}, got {len(items)}")
                columns[key] = items
            else:
                columns[key] = [d[i] for i in indices]
        if named:
            return [{k: col[j] for k, col in columns.items()} for j in range(len(indices))]
        return [tuple(col[j] for col in columns.values()) for j in range(len(indices))]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """The datasets one after another.

    >>> ds = ConcatDataset([[1, 2], [3]])
    >>> len(ds), ds[2], ds.cumulative_sizes
    (3, 3, [2, 3])
    """

    @staticmethod
    def cumsum(sequence):
        out, total = [], 0
        for e in sequence:
            total += len(e)
            out.append(total)
        return out

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        sample = idx if which == 0 else idx - self.cumulative_sizes[which - 1]
        return self.datasets[which][sample]


class ChainDataset(IterableDataset):
    """Iterable datasets chained one after another."""

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``.

    >>> Subset([10, 20, 30], [2, 0])[0]
    30
    """

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def _fraction_lengths(n, fractions):
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                          "dataset.", stacklevel=3)
    return lengths


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping random subsets of the given lengths (or
    fractions), drawing one ``randperm`` from ``generator`` (the global one by default).

    >>> _ = torch.manual_seed(0)
    >>> [list(s) for s in random_split(range(5), [3, 2])]
    [[4, 0, 1], [3, 2]]
    """
    from ... import randperm
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _fraction_lengths(len(dataset), lengths)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    from ..._random import default_generator
    # (PyTorch's default argument is the global generator itself, so randperm always sees a
    # generator= keyword: a float total is then an "invalid combination" there)
    indices = randperm(sum(lengths), generator=generator or default_generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]


from ..._naming import use_torch_names  # noqa: E402

use_torch_names(globals())
