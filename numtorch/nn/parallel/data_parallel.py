"""``DataParallel`` as PyTorch runs it with no accelerator: the module is called as is."""
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module`` (as ``self.module``, so state_dict keys gain a ``module.`` prefix);
    with no accelerator there is nothing to replicate and ``forward`` calls it directly."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """PyTorch's functional data_parallel needs an accelerator: on the CPU it raises."""
    raise RuntimeError("device type could not be determined")
