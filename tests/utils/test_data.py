"""``torch.utils.data`` against PyTorch: batch order for the same seed, collation, datasets,
samplers, worker seeding and errors (worker processes in detail: test_workers.py)."""
import math
import random
from collections import namedtuple

import numpy as np
import pytest

import numtorch
from helpers import check_error, plain


def _batches(lib, epochs=2, **kwargs):
    lib.manual_seed(7)
    ds = lib.utils.data.TensorDataset(lib.arange(23.).reshape(23, 1), lib.arange(23))
    loader = lib.utils.data.DataLoader(ds, **kwargs)
    out = [len(loader)]
    for _ in range(epochs):
        out += [[plain(t) for t in batch] for batch in loader]
    return out + [lib.rand(2).tolist()]


@pytest.mark.parametrize("kwargs", [
    {"batch_size": 5, "shuffle": True}, {"batch_size": 4, "shuffle": True, "drop_last": True},
    {"batch_size": 3}, {"batch_size": 1}, {"batch_size": 5, "shuffle": True, "num_workers": 2},
], ids=["shuffle", "drop_last", "sequential", "bs1", "workers"])
def test_batch_order_matches_torch(torch, kwargs):
    assert _batches(numtorch, **kwargs) == _batches(torch, **kwargs)


def test_generator_and_samplers(torch):
    def run(lib):
        D = lib.utils.data
        g = lib.Generator().manual_seed(5)
        out = [[b.tolist() for b in D.DataLoader(range(6), batch_size=4, shuffle=True,
                                                 generator=g)]]
        lib.manual_seed(3)
        out.append(list(D.SubsetRandomSampler([5, 6, 7, 8])))
        out.append(list(D.WeightedRandomSampler([0.1, 0.5, 0.4], 6)))
        out.append(list(D.WeightedRandomSampler([0.1, 0.5, 0.4], 3, replacement=False)))
        out.append(list(D.RandomSampler(range(5), replacement=True, num_samples=40)))
        out.append(list(D.RandomSampler(range(5), num_samples=12)))
        out.append(list(D.BatchSampler(D.SequentialSampler(range(7)), 3, False)))
        out.append([s.indices for s in D.random_split(range(10), [0.5, 0.3, 0.2])])
        out.append([list(s) for s in D.random_split(range(6), [4, 2], generator=g)])
        return out + [lib.rand(1).tolist()]
    assert run(numtorch) == run(torch)


Point = namedtuple("Point", "x y")


@pytest.mark.parametrize("batch", [
    [(np.ones(2), 1), (np.zeros(2), 2)],
    [{"a": 1.5, "b": [1, 2]}, {"a": 2.5, "b": [3, 4]}],
    [Point(1, 2.0), Point(3, 4.0)],
    [np.float32(1.5), np.float32(2.5)],
    [("x", True), ("y", False)],
    [[np.int64(1), np.int64(2)], [np.int64(3), np.int64(4)]],
], ids=["tuple-array", "dict", "namedtuple", "np-scalar", "str-bool", "np-ints"])
def test_default_collate(torch, batch):
    mine = numtorch.utils.data.default_collate(batch)
    ref = torch.utils.data.default_collate(batch)
    assert plain(mine) == plain(ref)
    assert type(mine) is type(ref) or type(ref).__name__ == type(mine).__name__


def test_collate_tensors_and_convert(torch):
    for lib in (numtorch, torch):
        batch = [lib.ones(2, 3), lib.zeros(2, 3)]
        assert tuple(lib.utils.data.default_collate(batch).shape) == (2, 2, 3)
    assert plain(numtorch.utils.data.default_convert({"x": np.arange(3)})) == \
        plain(torch.utils.data.default_convert({"x": np.arange(3)}))


def test_datasets(torch):
    def run(lib):
        D = lib.utils.data
        t = D.TensorDataset(lib.arange(4), lib.arange(4) * 2)
        c = D.ConcatDataset([range(3), range(10, 12)])
        s = D.Subset(range(10, 20), [3, 1, 4])
        st = D.StackDataset(range(3), "abc")
        return (len(t), plain(t[2]), len(c), c[3], c[-1], c.cumulative_sizes, s[1], len(s),
                st[1], len(t + t))
    assert run(numtorch) == run(torch)


def _worker_run(lib):
    class Randomised(lib.utils.data.Dataset):
        def __len__(self):
            return 9

        def __getitem__(self, i):
            info = lib.utils.data.get_worker_info()
            return (i, lib.rand(1).item(), random.random(), float(np.random.rand()),
                    -1 if info is None else info.id)

    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            info = lib.utils.data.get_worker_info()
            if info is None:
                return iter(range(7))
            per = math.ceil(7 / info.num_workers)
            return iter(range(info.id * per, min(7, (info.id + 1) * per)))

    lib.manual_seed(1)
    out = [[plain(t) if hasattr(t, "tolist") else t for t in batch] for batch in
           lib.utils.data.DataLoader(Randomised(), batch_size=2, num_workers=2, shuffle=True)]
    out += [b.tolist() for b in lib.utils.data.DataLoader(Stream(), batch_size=2,
                                                          num_workers=2)]
    out += [b.tolist() for b in lib.utils.data.DataLoader(Stream(), batch_size=3)]
    return out + [lib.rand(1).item()]


def test_workers_match_torch_processes(torch):
    """Batches, worker seeds and the main stream match PyTorch's worker processes."""
    assert _worker_run(numtorch) == _worker_run(torch)


def test_batch_size_none_and_custom_collate(torch):
    def run(lib):
        lib.manual_seed(0)
        ds = lib.utils.data.TensorDataset(lib.arange(5))
        a = [plain(x) for x in lib.utils.data.DataLoader(ds, batch_size=None, shuffle=True)]
        b = list(lib.utils.data.DataLoader(range(5), batch_size=2, collate_fn=lambda b: b))
        c = [x.tolist() for x in lib.utils.data.DataLoader(
            range(8), batch_sampler=lib.utils.data.BatchSampler(range(8), 3, True))]
        return a, b, c
    assert run(numtorch) == run(torch)


ERRORS = [
    lambda lib: lib.utils.data.DataLoader(range(3), sampler=[0, 1], shuffle=True),
    lambda lib: lib.utils.data.DataLoader(range(3), batch_sampler=[[0]], batch_size=2),
    lambda lib: lib.utils.data.DataLoader(range(3), batch_size=None, drop_last=True),
    lambda lib: lib.utils.data.DataLoader(range(3), num_workers=-1),
    lambda lib: lib.utils.data.BatchSampler(range(3), 0, False),
    lambda lib: lib.utils.data.BatchSampler(range(3), 2, 1),
    lambda lib: lib.utils.data.RandomSampler(range(3), num_samples=0),
    lambda lib: lib.utils.data.random_split(range(5), [2, 2]),
    lambda lib: lib.utils.data.random_split(range(5), [0.5, 1.5]),
    lambda lib: lib.utils.data.ConcatDataset([range(2)])[-3],
    lambda lib: lib.utils.data.TensorDataset(lib.ones(2), lib.ones(3)),
    lambda lib: lib.utils.data.default_collate([object(), object()]),
    lambda lib: lib.utils.data.default_collate([[1, 2], [3]]),
    lambda lib: lib.utils.data.WeightedRandomSampler([[1.0]], 2),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(fn):
    check_error(fn)


def test_iterable_dataset_options_error(torch):
    class Stream(numtorch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(3))
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        numtorch.utils.data.DataLoader(Stream(), shuffle=True)


@pytest.mark.parametrize("kwargs", [{"shuffle": False}, {}, {"drop_last": True},
                                    {"seed": 3}], ids=["plain", "shuffle", "drop", "seed"])
def test_distributed_sampler_matches_torch(torch, kwargs):
    def run(lib):
        out = []
        for rank in range(3):
            s = lib.utils.data.DistributedSampler(range(11), num_replicas=3, rank=rank, **kwargs)
            out.append((list(s), len(s)))
            s.set_epoch(2)
            out.append(list(s))
        return out
    assert run(numtorch) == run(torch)


def test_distributed_sampler_errors(torch):
    check_error(lambda lib: lib.utils.data.DistributedSampler(range(4), num_replicas=2, rank=2))
    # torch's message when no process group was initialised (numtorch never has one)
    with pytest.raises(ValueError, match="^Default process group has not been initialized"):
        numtorch.utils.data.DistributedSampler(range(4))


def test_collate_keeps_zip_columns_as_tuples(torch):
    """Columns of a tuple/list/namedtuple batch are zip's tuples: strings stay a tuple."""
    P = namedtuple("P", ["a", "b"])
    batches = [[(1, "a"), (2, "b")], [[1.0, "x"], [2.0, "y"]], [P(1, "u"), P(2, "v")],
               [{"s": "p"}, {"s": "q"}]]
    for batch in batches:
        mine = numtorch.utils.data.default_collate(batch)
        ref = torch.utils.data.default_collate(batch)
        assert repr(mine) == repr(ref)


def test_datasets_samplers_and_loaders_are_generic(torch):
    # typed user code subclasses Dataset[...] and Sampler[...] as PyTorch's docs do
    def typed(lib):
        data = lib.utils.data

        class Pairs(data.Dataset[tuple]):
            def __len__(self):
                return 3

            def __getitem__(self, i):
                return lib.tensor([float(i)]), i

        class Evens(data.Sampler[int]):
            def __iter__(self):
                return iter([0, 2])

        class Stream(data.IterableDataset[int]):
            def __iter__(self):
                return iter(range(3))

        loader = data.DataLoader(Pairs(), batch_size=2, sampler=Evens())
        names = [c.__name__ for cls in (Pairs, Evens, Stream, data.DataLoader, data.TensorDataset)
                 for c in cls.__mro__]
        return names, [plain(b) for b in loader], [plain(b) for b in data.DataLoader(Stream())]
    assert typed(numtorch) == typed(torch)
