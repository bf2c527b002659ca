"""``torch.utils.data``: datasets, samplers, collation and the DataLoader."""
from ._collate import default_collate, default_convert
from ._worker import get_worker_info
from .dataloader import DataLoader, _DatasetKind
from . import _utils  # noqa: F401  (torch.utils.data._utils.collate ... as attributes)
from .distributed import DistributedSampler
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                      Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset",
           "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
           "default_collate", "default_convert", "get_worker_info", "random_split"]
