"""``skip_init``: build a module without running its parameter initialisation.

>>> import numtorch as torch
>>> m = torch.nn.utils.skip_init(torch.nn.Linear, 4, 2)
>>> m, m.weight.shape
(Linear(in_features=4, out_features=2, bias=True), torch.Size([2, 4]))
"""
import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialized parameters and buffers.

    As in PyTorch the module must accept a ``device`` argument, and building it draws no
    numbers from the random generator (numtorch builds it on the CPU and puts the generator
    back, where PyTorch builds it on the meta device).
    """
    from ..modules.module import Module
    from ... import get_rng_state, set_rng_state
    if not issubclass(module_cls, Module):  # a non-class: issubclass's own TypeError
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    device = kwargs.pop("device", "cpu")
    state = get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        set_rng_state(state)
    return module.to_empty(device=device)
