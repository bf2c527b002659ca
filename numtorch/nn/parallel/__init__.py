"""``torch.nn.parallel``: on a CPU-only build ``DataParallel`` simply wraps its module.

>>> import numtorch as torch
>>> dp = DataParallel(torch.nn.Linear(2, 1))
>>> list(dp.state_dict())
['module.weight', 'module.bias']
"""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
