"""Parameter allocation shared by the layers (``device``/``dtype`` factory kwargs)."""
from ..._device import check_device
from ..parameter import Parameter


def new_param(*shape, device=None, dtype=None):
    """An uninitialised Parameter of ``shape`` (layers fill it in ``reset_parameters``)."""
    from ... import empty
    check_device(device)
    return Parameter(empty(*shape, dtype=dtype))


def new_buffer(fill, *shape, dtype=None):
    """A buffer tensor of ``shape`` filled with ``fill``."""
    from ... import full
    return full(shape, fill, dtype=dtype)
