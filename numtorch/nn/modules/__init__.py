"""The layers of ``torch.nn``."""
from . import (activation, adaptive, batchnorm, container, conv, dropout, flatten,
               instancenorm, lazy, linear, loss, misc, normalization, padding, pooling, rnn,
               sparse, transformer)
from .module import Module

__all__ = ["Module"]
for _m in (activation, adaptive, batchnorm, container, conv, dropout, flatten, instancenorm,
           lazy, linear, loss, misc, normalization, padding, pooling, rnn, sparse, transformer):
    globals().update({name: getattr(_m, name) for name in _m.__all__})
    __all__ += _m.__all__
del _m
