"""The layers of ``torch.nn``."""
from . import (activation, adaptive, batchnorm, channelshuffle, container, conv, distance,
               dropout, flatten, fold, instancenorm, lazy, linear, loss, normalization, padding,
               pixelshuffle, pooling, rnn, sparse, transformer, upsampling)
from .module import Module, _public_module

__all__ = ["Module"]
for _m in (activation, adaptive, batchnorm, channelshuffle, container, conv, distance, dropout,
           flatten, fold, instancenorm, lazy, linear, loss, normalization, padding, pixelshuffle,
           pooling, rnn, sparse, transformer, upsampling):
    globals().update({name: getattr(_m, name) for name in _m.__all__})
    __all__ += _m.__all__
del _m

# PyTorch defines these beside their non-lazy or base layers (LazyLinear in linear ...):
# they are found there too, and name that module, so that they print and pickle as PyTorch's
for _src, _home, _names in (
        (lazy, linear, ("LazyLinear",)),
        (transformer, linear, ("NonDynamicallyQuantizableLinear",)),
        (lazy, conv, ("LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
                      "LazyConvTranspose2d", "LazyConvTranspose3d")),
        (lazy, batchnorm, ("LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d")),
        (lazy, instancenorm, ("LazyInstanceNorm1d", "LazyInstanceNorm2d",
                              "LazyInstanceNorm3d")),
        (transformer, activation, ("MultiheadAttention",))):
    for _name in _names:
        _cls = getattr(_src, _name)
        setattr(_home, _name, _cls)
        _cls.__module__ = _public_module(_home.__name__)
del _src, _home, _names, _name, _cls
