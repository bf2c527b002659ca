"""Tensor methods of the op families added after the core (sorting, misc, special ...).

Each family module lists ``METHODS`` (out-of-place methods: ``x.sort()``) and optionally
``INPLACE`` (ops that also get a ``name_`` in-place method: ``x.cumsum_(0)``); ``install``
binds them. Installing here keeps ``ops/__init__.py`` to one import line.
"""
from .._tensor import Tensor


def _method(fn):
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    m.__name__ = m.__qualname__ = getattr(fn, "__name__", "method")
    m.__doc__ = fn.__doc__
    return m


def install(module):
    """Bind ``module.METHODS`` and ``module.INPLACE`` (names of its functions) on Tensor."""
    from .inplace import _unary_inplace
    short = module.__name__.rsplit(".", 1)[-1]
    for name in getattr(module, "METHODS", ()):
        setattr(Tensor, name, _method(getattr(module, name)))
    for name in getattr(module, "INPLACE", ()):
        setattr(Tensor, name + "_", _unary_inplace(name, short))


def install_all():
    from . import sorting, misc, special_ops, complex_ops
    for module in (sorting, misc, special_ops, complex_ops):
        install(module)
