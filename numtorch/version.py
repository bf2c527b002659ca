"""``torch.version``: the PyTorch version numtorch follows, and no GPU toolkit.

>>> import numtorch as torch
>>> torch.version.cuda is None, torch.version.__version__ == torch.__version__
(True, True)
"""
from . import __version__

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

cuda = None     # built without CUDA (as PyTorch's CPU wheels)
hip = None
rocm = None
xpu = None
debug = False
git_version = "Unknown"  # numtorch is not built from PyTorch's repository
