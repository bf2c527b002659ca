"""Padding layers: constant, zero, reflection, replication and circular, 1-3 d.

>>> import numtorch as torch
>>> torch.nn.ZeroPad2d(1)
ZeroPad2d((1, 1, 1, 1))
"""
from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d"]


class _PadNd(Module):
    _n = 2
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(self._n)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


def _make(name, base, n, mode, doc):
    return type(name, (base,), {"_n": n, "_mode": mode, "__doc__": doc,
                                "__module__": __name__})


ConstantPad1d = _make("ConstantPad1d", _ConstantPadNd, 2, "constant", "Pad the last dim.")
ConstantPad2d = _make("ConstantPad2d", _ConstantPadNd, 4, "constant", "Pad the last 2 dims.")
ConstantPad3d = _make("ConstantPad3d", _ConstantPadNd, 6, "constant", "Pad the last 3 dims.")


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


ZeroPad1d = _make("ZeroPad1d", _ZeroPadNd, 2, "constant", "Zero-pad the last dim.")
ZeroPad2d = _make("ZeroPad2d", _ZeroPadNd, 4, "constant", "Zero-pad the last 2 dims.")
ZeroPad3d = _make("ZeroPad3d", _ZeroPadNd, 6, "constant", "Zero-pad the last 3 dims.")
ReflectionPad1d = _make("ReflectionPad1d", _PadNd, 2, "reflect", "Reflect-pad the last dim.")
ReflectionPad2d = _make("ReflectionPad2d", _PadNd, 4, "reflect", "Reflect-pad 2 dims.")
ReflectionPad3d = _make("ReflectionPad3d", _PadNd, 6, "reflect", "Reflect-pad 3 dims.")
ReplicationPad1d = _make("ReplicationPad1d", _PadNd, 2, "replicate", "Edge-pad the last dim.")
ReplicationPad2d = _make("ReplicationPad2d", _PadNd, 4, "replicate", "Edge-pad 2 dims.")
ReplicationPad3d = _make("ReplicationPad3d", _PadNd, 6, "replicate", "Edge-pad 3 dims.")
CircularPad1d = _make("CircularPad1d", _PadNd, 2, "circular", "Wrap-pad the last dim.")
CircularPad2d = _make("CircularPad2d", _PadNd, 4, "circular", "Wrap-pad 2 dims.")
CircularPad3d = _make("CircularPad3d", _PadNd, 6, "circular", "Wrap-pad 3 dims.")
