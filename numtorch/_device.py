"""``torch.device`` (numtorch computes on the CPU only) and layouts."""

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

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        if ":" in type:
            type, _, idx = type.partition(":")
            index = int(idx)
        self.type = type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


CPU = device("cpu")


def check_device(dev):
    """Raise for devices numtorch cannot place data on (everything but the CPU)."""
    if dev is None:
        return
    d = dev if isinstance(dev, device) else device(dev) if isinstance(dev, str) else None
    if d is None:
        if isinstance(dev, int):
            raise RuntimeError("numtorch supports only the CPU device; got device index "
                               f"{dev}")
        raise TypeError(f"expected a device, got {type(dev).__name__}")
    if d.type not in ("cpu", "meta"):
        raise RuntimeError(f"numtorch supports only the CPU device; '{d}' is not available")


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


def _rebuild_device(type, index):
    """Unpickle a device (by this module's name, which needs no ``torch`` module)."""
    return device(type, index)
