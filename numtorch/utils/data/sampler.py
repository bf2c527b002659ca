"""Samplers: the index orders a DataLoader draws from, in PyTorch's random order.

``RandomSampler`` without a generator seeds a fresh one from the global stream at every
pass, exactly as PyTorch does, so the same ``manual_seed`` gives the same batches.

>>> import numtorch as torch
>>> list(BatchSampler(SequentialSampler(range(5)), 2, drop_last=False))
[[0, 1], [2, 3], [4]]
"""
from typing import Generic, TypeVar

from ... import _dtype as D

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: subclasses define ``__iter__`` over indices (and usually ``__len__``).
    Generic over its indices, as PyTorch's: ``class Odd(Sampler[int])``.

    It has no ``__init__`` of its own (PyTorch 2.2 removed the ``data_source`` argument), so
    ``Sampler(ds)`` and a subclass's ``super().__init__(ds)`` are object's TypeErrors."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1.

    >>> list(SequentialSampler('abc'))
    [0, 1, 2]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _fresh_generator():
    """A Generator seeded from one int64 draw of the global stream (PyTorch's recipe)."""
    from ... import Generator, empty
    seed = int(empty((), dtype=D.int64).random_().item())
    return Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """A random permutation (or, with ``replacement``, independent uniform draws).

    >>> _ = torch.manual_seed(0)
    >>> list(RandomSampler(range(5)))
    [1, 3, 4, 2, 0]
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement="
                            f"{self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        from ... import randint, randperm
        n = len(self.data_source)
        gen = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), dtype=D.int64, generator=gen).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,), dtype=D.int64,
                               generator=gen).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=gen).tolist()
            yield from randperm(n, generator=gen).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in random order.

    >>> _ = torch.manual_seed(0)
    >>> list(SubsetRandomSampler([10, 20, 30]))
    [30, 10, 20]
    """

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        from ... import randperm
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Indices 0..len(weights)-1 drawn with probabilities proportional to ``weights``.

    >>> _ = torch.manual_seed(0)
    >>> len(list(WeightedRandomSampler([0.1, 0.9], 4)))
    4
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        from ... import as_tensor
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or \
                num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement="
                             f"{replacement}")
        weights_tensor = as_tensor(weights, dtype=D.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights, self.num_samples = weights_tensor, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        from ... import multinomial
        drawn = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        yield from iter(drawn.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter unless
    ``drop_last``).

    >>> list(BatchSampler(range(5), 2, drop_last=True))
    [[0, 1], [2, 3]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last="
                             f"{drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


from ..._naming import use_torch_names  # noqa: E402

use_torch_names(globals())
