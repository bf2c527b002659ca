"""The layers of ``torch.nn``."""
from .module import Module  # noqa: F401
