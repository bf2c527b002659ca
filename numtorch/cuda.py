"""``torch.cuda`` on a CPU-only library: availability queries answer "no GPU".

>>> import numtorch as torch
>>> torch.cuda.is_available(), torch.cuda.device_count()
(False, 0)
"""

import collections

from . import _dtype as D
from ._legacy_types import legacy_type, tensortype

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "synchronize",
           "empty_cache", "current_device", "is_initialized", "get_device_name", "seed",
           "seed_all", "initial_seed", "get_rng_state", "get_rng_state_all", "set_rng_state",
           "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "memory_stats", "is_bf16_supported", "get_arch_list",
           "get_device_properties", "get_device_capability", "mem_get_info", "init",
           "current_stream", "ipc_collect", "FloatTensor", "DoubleTensor", "HalfTensor",
           "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


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


def seed():
    """Seeding CUDA is a no-op without CUDA (as in PyTorch without a GPU)."""


def seed_all():
    """Seeding CUDA is a no-op without CUDA (as in PyTorch without a GPU)."""


def get_rng_state_all():
    """No devices, no states."""
    return []


def memory_allocated(device=None):
    """Bytes held by tensors on a GPU: none (PyTorch answers 0 before CUDA starts)."""
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def memory_stats(device=None):
    return collections.OrderedDict()


def is_bf16_supported(including_emulation=True):
    return False


def get_arch_list():
    return []


def initial_seed():
    _no_cuda()


def get_rng_state(device="cuda"):
    _no_cuda()


def set_rng_state(new_state, device="cuda"):
    _no_cuda()


def get_device_properties(device=None):
    _no_cuda()


def get_device_capability(device=None):
    _no_cuda()


def mem_get_info(device=None):
    _no_cuda()


def init():
    _no_cuda()


def current_stream(device=None):
    _no_cuda()


def ipc_collect():
    _no_cuda()


def synchronize(device=None):
    _no_cuda()


def empty_cache():
    """Nothing to free without CUDA."""


def current_device():
    _no_cuda()


def get_device_name(device=None):
    _no_cuda()


# PyTorch's CPU build, asked for a CUDA tensor type (``t.type("torch.cuda.FloatTensor")``)
NO_ATEN_CUDA = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two "
    "shared libraries: a CPU library and a CUDA library; this error has occurred because you "
    "are trying to use some CUDA functionality, but the CUDA library has not been loaded by "
    "the dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't "
    "directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if this "
    "has occurred by using ldd on your binary to see if there is a dependency on *_cuda.so "
    "library.")


def _no_cuda():
    raise AssertionError("Torch not compiled with CUDA enabled")


class _cuda_tensortype(tensortype):
    """The legacy ``torch.cuda.FloatTensor`` ... types: no tensor is one of them, and calling
    one fails as in PyTorch's CPU build."""

    def __instancecheck__(cls, obj):
        return False

    def __call__(cls, *args, **kwargs):
        raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not compiled "
                        "with CUDA enabled.")


# type(torch.cuda.FloatTensor) prints as torch.tensortype, as in PyTorch
_cuda_tensortype.__name__ = _cuda_tensortype.__qualname__ = "tensortype"
_cuda_tensortype.__module__ = "torch"


def _cuda_legacy(dtype):
    return legacy_type(dtype, _cuda_tensortype, "torch.cuda")


FloatTensor = _cuda_legacy(D.float32)
DoubleTensor = _cuda_legacy(D.float64)
HalfTensor = _cuda_legacy(D.float16)
LongTensor = _cuda_legacy(D.int64)
IntTensor = _cuda_legacy(D.int32)
ShortTensor = _cuda_legacy(D.int16)
CharTensor = _cuda_legacy(D.int8)
ByteTensor = _cuda_legacy(D.uint8)
BoolTensor = _cuda_legacy(D.bool_)
