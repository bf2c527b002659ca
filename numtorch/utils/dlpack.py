"""``torch.utils.dlpack``: exchange tensors with other array libraries through DLPack.

>>> import numpy as np
>>> from numtorch.utils.dlpack import from_dlpack
>>> from_dlpack(np.arange(3))
tensor([0, 1, 2])
"""
from ..ops.torch_misc import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]
