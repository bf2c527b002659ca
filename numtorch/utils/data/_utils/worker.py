"""``torch.utils.data._utils.worker``: what a worker process knows about itself.

>>> get_worker_info() is None      # in the main process
True
"""
from .._worker import WorkerInfo, get_worker_info

__all__ = ["WorkerInfo", "get_worker_info"]
