"""``torch.utils.data`` against PyTorch (sweep AS): the loader's construction-time checks and
attribute guard, the abstract ``IterableDataset``, ``Sampler`` without an ``__init__``, and
``DistributedSampler`` without a process group."""
import warnings

import pytest

import numtorch
from helpers import check_error


def _loader(lib, **kwargs):
    return lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.arange(4.)), **kwargs)


@pytest.mark.parametrize("prefetch_factor", [-1, -5])
def test_negative_prefetch_factor(torch, prefetch_factor):
    check_error(lambda lib: _loader(lib, num_workers=2, prefetch_factor=prefetch_factor))


def test_zero_prefetch_factor_is_accepted(torch):
    assert _loader(numtorch, num_workers=2, prefetch_factor=0).prefetch_factor == \
        _loader(torch, num_workers=2, prefetch_factor=0).prefetch_factor == 0


@pytest.mark.parametrize("attr", ["batch_size", "sampler", "batch_sampler", "drop_last",
                                  "dataset", "persistent_workers"])
def test_sampling_attributes_frozen_before_first_iter(torch, attr):
    """PyTorch freezes them at the end of __init__, not at the first iter()."""
    check_error(lambda lib: setattr(_loader(lib, batch_size=2), attr, None))


def test_other_attributes_stay_settable(torch):
    def run(lib):
        loader = _loader(lib, batch_size=2)
        loader.num_workers, loader.collate_fn = 0, lambda b: len(b)
        return list(loader)
    assert run(numtorch) == run(torch) == [2, 2]


def test_too_many_workers_warns_at_construction(torch):
    """The worker-count warning comes when the loader is made (and again at iter())."""
    def messages(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _loader(lib, num_workers=10_000)
        return [str(w.message) for w in caught]
    mine, ref = messages(numtorch), messages(torch)
    assert len(mine) == len(ref) == 1
    assert mine == ref


def test_iterable_dataset_without_iter_is_abstract(torch):
    check_error(lambda lib: lib.utils.data.IterableDataset())

    def subclass(lib):
        class Stream(lib.utils.data.IterableDataset):
            def __len__(self):
                return 3
        return Stream()
    check_error(subclass)


def test_iterable_dataset_with_iter_instantiates(torch):
    def run(lib):
        class Stream(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3))
        return [b.tolist() for b in lib.utils.data.DataLoader(Stream(), batch_size=2)]
    assert run(numtorch) == run(torch) == [[0, 1], [2]]


def test_sampler_takes_no_arguments(torch):
    check_error(lambda lib: lib.utils.data.Sampler([1, 2]))

    def subclass(lib):
        class Mine(lib.utils.data.Sampler):
            def __init__(self, data_source):
                super().__init__(data_source)  # old tutorials; PyTorch 2.2 removed it
        return Mine([1, 2])
    check_error(subclass)


def test_sampler_subclass_calling_plain_super_init(torch):
    def run(lib):
        class Evens(lib.utils.data.Sampler[int]):
            def __init__(self, n):
                super().__init__()
                self.n = n

            def __iter__(self):
                return iter(range(0, self.n, 2))
        return list(Evens(7))
    assert run(numtorch) == run(torch) == [0, 2, 4, 6]


def test_distributed_sampler_without_process_group(torch):
    check_error(lambda lib: lib.utils.data.DistributedSampler(range(4)))
    check_error(lambda lib: lib.utils.data.DistributedSampler(range(4), num_replicas=2))


def test_collate_tensor_then_ndarray_error_names_numpy_type(torch):
    """stack's TypeError names a NumPy element by its module-qualified type."""
    import numpy as np
    check_error(lambda lib: lib.utils.data.default_collate([lib.ones(1), np.array([1.0])]))
    check_error(lambda lib: lib.stack([lib.ones(1), np.float64(1.0)]))
