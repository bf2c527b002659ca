"""``torch.cuda`` on a CPU-only library: availability queries answer "no GPU".

>>> import numtorch as torch
>>> torch.cuda.is_available(), torch.cuda.device_count()
(False, 0)
"""

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "synchronize",
           "empty_cache", "current_device", "is_initialized", "get_device_name"]


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def manual_seed(seed):
    """Seeding CUDA is a no-op without CUDA (as in PyTorch without a GPU)."""


def manual_seed_all(seed):
    """Seeding CUDA is a no-op without CUDA (as in PyTorch without a GPU)."""


def synchronize(device=None):
    _no_cuda()


def empty_cache():
    """Nothing to free without CUDA."""


def current_device():
    _no_cuda()


def get_device_name(device=None):
    _no_cuda()


def _no_cuda():
    raise AssertionError("Torch not compiled with CUDA enabled")
