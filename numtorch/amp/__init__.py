"""``torch.amp`` on the CPU: ``autocast`` (off: numtorch has no bfloat16) and ``GradScaler``.

>>> import numtorch as torch
>>> torch.amp.GradScaler("cpu").get_scale()
65536.0
"""
from .autocast_mode import autocast, is_autocast_available
from .grad_scaler import GradScaler, OptState

__all__ = ["autocast", "is_autocast_available", "GradScaler", "OptState"]
