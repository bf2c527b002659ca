"""``torch.autocast`` where no autocast can run: a device without numtorch support is
disabled with PyTorch's warning; CPU autocast (to bfloat16 or float16) raises, as numtorch
does not provide it; ``enabled=False`` is a plain no-op context (and decorator)."""
import functools

from .._device import device as _device_cls

__all__ = ["autocast", "is_autocast_available"]

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


def is_autocast_available(device_type):
    """Whether PyTorch has autocast for ``device_type`` (numtorch runs none of them)."""
    return device_type in ("cpu", "cuda", "xpu", "mps", "hpu", "mtia", "xla", "ipu", "maia")


class autocast:
    """Context manager (or decorator) for mixed precision; see the module docstring."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in _DEVICE_TYPES:
            _device_cls(device_type)  # PyTorch's error for an unknown device type
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = bool(enabled)
        if self._enabled and device_type != "cpu":
            from ..ops._util import warn_user
            name = "CUDA" if device_type == "cuda" else device_type.upper()
            warn_user(f"{name} is not available or torch_xla is imported. Disabling autocast."
                      if device_type == "cuda" else
                      f"User specified an unsupported autocast device_type '{device_type}'")
            self._enabled = False

    def __enter__(self):
        if self._enabled:
            raise NotImplementedError("numtorch does not support CPU autocast (yet): it has no "
                                      "bfloat16 and no mixed-precision op lists; use "
                                      "torch.autocast('cpu', enabled=False)")
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast
