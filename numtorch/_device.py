"""``torch.device`` (numtorch computes on the CPU only) and layouts."""

import re

from ._naming import torch_named

__all__ = ["device", "CPU"]


class device:
    """A device: ``cpu`` works; other types are accepted as names but unsupported for data.

    >>> device("cpu")
    device(type='cpu')
    """

    __slots__ = ("type", "index")
    __module__ = "torch"  # prints as <class 'torch.device'>; pickled through _device (below)

    def __reduce__(self):
        return (_rebuild_device, (self.type, self.index))

    def __init__(self, type=None, index=None, **device):  # device=: PyTorch's 1st overload
        if type is None and "device" in device:
            type = device.pop("device")
        if device:
            raise TypeError(f"device() got an unexpected keyword argument '{next(iter(device))}'")
        if _is_device(type):
            if index is not None:
                raise TypeError("device(): argument 'type' (position 1) must be str, not "
                                "torch.device")
            self.type, self.index = type.type, type.index
            return
        if type == "cpu" and index is None:  # the common case, parsed already
            self.type, self.index = "cpu", None
            return
        self.type, self.index = _parse(type, index)

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        # PyTorch compares devices with devices only: torch.device('cpu') == 'cpu' is False
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


# c10's device types, in the order its error message lists them
_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
          "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
          "privateuseone")
_SPEC = re.compile(r"([A-Za-z_]+)(?::(0|[1-9][0-9]*))?")
_SIGNATURES = " * (torch.device device)\n{}\n * (str type, int index = -1)\n"


def _parse(spec, index):
    """(type, index) of ``torch.device(spec, index)``, with PyTorch's errors."""
    if isinstance(spec, bytes):
        spec = spec.decode()
    if not isinstance(spec, str):
        if hasattr(spec, "__index__") and not isinstance(spec, bool) and index is None:
            raise RuntimeError("Cannot access accelerator device when none is available.")
        name = _type_name(spec)
        raise TypeError(
            f"device() received an invalid combination of arguments - got ({name}), but "
            "expected one of:\n" + _SIGNATURES.format(
                f"      didn't match because some of the arguments have invalid types: "
                f"(!{name}!)"))
    if index is not None and (isinstance(index, bool) or not hasattr(index, "__index__")):
        raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                        f"{_type_name(index)}")
    if not spec:
        raise RuntimeError("Device string must not be empty")
    match = _SPEC.fullmatch(spec)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{spec}'")
    kind, idx = match.groups()
    if idx is not None and int(idx) > 2 ** 31 - 1:  # c10 reads it with std::stoi
        raise RuntimeError(f"Could not parse device index '{idx}' in device string '{spec}'")
    if kind not in _TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of "
                           f"device string: {kind}")
    if idx is not None and index is not None:
        raise RuntimeError("type (string) must not include an index because index was "
                           f"passed explicitly: {spec}")
    if index is not None and int(index) < 0:
        raise RuntimeError("Device index must not be negative")
    return kind, int(idx) if idx is not None else None if index is None else int(index)


def _is_device(value):
    return isinstance(value, device)


def _type_name(value):
    from .ops._util import tp_name
    return tp_name(value)


CPU = device("cpu")


def check_device(dev):
    """Raise for devices numtorch cannot place data on (everything but the CPU)."""
    if dev is None:
        return
    d = dev if isinstance(dev, device) else device(dev) if isinstance(dev, str) else None
    if d is None:
        if isinstance(dev, int):  # an accelerator's index
            raise RuntimeError("Cannot access accelerator device when none is available.")
        raise TypeError(f"expected a device, got {type(dev).__name__}")
    if d.type in ("cuda", "xpu"):  # what PyTorch's CPU build says
        raise AssertionError(f"Torch not compiled with {d.type.upper()} enabled")
    if d.type not in ("cpu", "meta"):
        raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices")


class layout:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


strided = layout("strided")
sparse_coo = layout("sparse_coo")


class memory_format:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def _rebuild_device(type, index):
    """Unpickle a device (by this module's name, which needs no ``torch`` module)."""
    return device(type, index)


# <class 'torch.layout'>, <class 'torch.memory_format'> where torch is numtorch
torch_named(layout, "numtorch")
torch_named(memory_format, "numtorch")
