"""``torch.utils.data._utils``: the DataLoader's helper modules, under PyTorch's names.

Scripts reach into it for the collate registry (``_utils.collate.default_collate_fn_map``,
``collate``, ``default_convert``) and for ``get_worker_info``; the implementations live in
the sibling private modules (``_collate``, ``_worker``).

>>> from numtorch.utils.data._utils.collate import collate, default_collate_fn_map
>>> collate([1, 2], collate_fn_map=default_collate_fn_map)
tensor([1, 2])
"""
from . import collate, worker

__all__ = ["collate", "worker", "MP_STATUS_CHECK_INTERVAL", "IS_WINDOWS"]

IS_WINDOWS = False
MP_STATUS_CHECK_INTERVAL = 5.0     # seconds between worker liveness checks, as in PyTorch
