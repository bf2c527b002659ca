"""``DistributedDataParallel`` needs ``torch.distributed``, which numtorch does not have."""
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Not supported: constructing one raises a RuntimeError that says so."""

    def __init__(self, module, *args, **kwargs):
        raise RuntimeError("DistributedDataParallel is not supported by numtorch: it has no "
                           "torch.distributed (a single-process CPU build)")
