"""``DistributedSampler``: the share of a dataset's indices one of ``num_replicas``
processes reads.

numtorch has no ``torch.distributed`` (so no default process group): ``num_replicas`` and
``rank`` must be given.

>>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
[1, 3, 0]
"""
import math

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Every ``num_replicas``-th index from ``rank``, of a list padded (by wrapping around)
    or cut (``drop_last``) to a multiple of ``num_replicas``; shuffled by a generator seeded
    with ``seed + epoch`` (``set_epoch``), as PyTorch does."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            # PyTorch asks the default process group; numtorch never has one (no
            # torch.distributed), which is PyTorch's error when none was initialised
            raise ValueError("Default process group has not been initialized, please make "
                             "sure to call init_process_group.")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            from ... import Generator, randperm
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[:self.total_size]
        else:
            pad = self.total_size - len(indices)
            indices += (indices * math.ceil(pad / len(indices)))[:pad] if pad else []
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Reseed the shuffle for ``epoch`` (call it before each epoch's iteration)."""
        self.epoch = epoch


from ..._naming import use_torch_names  # noqa: E402

use_torch_names(globals())
