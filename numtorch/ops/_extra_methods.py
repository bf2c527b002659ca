"""Tensor methods of the op families added after the core (sorting, misc, special ...), and
the in-place / alias methods PyTorch has for core ops that the core does not bind.

Each family module lists ``METHODS`` (out-of-place methods: ``x.sort()``) and optionally
``INPLACE`` (ops that also get a ``name_`` in-place method: ``x.index_add_(...)``);
``install`` binds them. Installing here keeps ``ops/__init__.py`` to one import line.
"""
from .._tensor import Tensor

# in-place forms of core ops, by the module holding the out-of-place op
_CORE_INPLACE = {
    "elementwise": ["arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh"],
    "linalg": ["addmm", "addmv", "addr", "baddbmm", "addbmm"],
    "reduction": ["cumsum", "cumprod"],
    "shape": ["tril", "triu"],
}
_CORE_BINARY_INPLACE = ["arctan2", "greater", "greater_equal", "less", "less_equal",
                        "not_equal", "float_power", "bitwise_left_shift",
                        "bitwise_right_shift"]
# in-place methods that change a tensor's shape (``x.squeeze_()``): view op names
# (transpose_, t_, squeeze_, unsqueeze_, resize_ ...: see metadata_inplace.py)
_VIEW_INPLACE = ["as_strided"]


def _method(fn):
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    m.__name__ = m.__qualname__ = getattr(fn, "__name__", "method")
    m.__doc__ = fn.__doc__
    m.__wrapped__ = fn  # _numpy_names.install looks through to the op's signature
    return m


def install(module):
    """Bind ``module.METHODS`` and ``module.INPLACE`` (names of its functions) on Tensor."""
    from .inplace import _unary_inplace
    short = module.__name__.rsplit(".", 1)[-1]
    for name in getattr(module, "METHODS", ()):
        setattr(Tensor, name, _method(getattr(module, name)))
    for name in getattr(module, "INPLACE", ()):
        setattr(Tensor, name + "_", _unary_inplace(name, short))


def _inplace_view(name):
    def method(self, *args, **kwargs):
        self._check_inplace()
        res = getattr(Tensor, name)(self, *args, **kwargs)
        self._data = res._data
        self._vc[0] += 1  # (as PyTorch's as_strided_, a change of the tensor)
        if res._grad_fn is not None:
            self._grad_fn, self._output_nr = res._grad_fn, res._output_nr
        return self
    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"In-place ``{name}``: this tensor takes the new shape."
    return method


def _where(self, condition, other):
    """``torch.where(condition, self, other)``."""
    from .elementwise import where
    return where(condition, self, other)


def _hardshrink(self, lambd=0.5):
    """``torch.nn.functional.hardshrink(self, lambd)``: x outside [-lambd, lambd], else 0."""
    from ..nn.functional import hardshrink
    from ._util import number_argument
    return hardshrink(self, number_argument(lambd, "hardshrink", "lambd", 1))


def _prelu(self, weight):
    """``torch.nn.functional.prelu(self, weight)``: x if x > 0 else weight * x."""
    from ..nn.functional import prelu
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu(): argument 'weight' (position 1) must be Tensor, not "
                        f"{type(weight).__name__}")
    return prelu(self, weight)


def _install_core_extras():
    from . import elementwise as E
    from .inplace import _unary_inplace, _binary_inplace
    from .. import _creation as C
    for module, names in _CORE_INPLACE.items():
        for name in names:
            setattr(Tensor, name + "_", _unary_inplace(name, module))
    for name in _CORE_BINARY_INPLACE:
        setattr(Tensor, name + "_", _binary_inplace(name))
    for name in _VIEW_INPLACE:
        setattr(Tensor, name + "_", _inplace_view(name))
    from . import metadata_inplace
    metadata_inplace.install()
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        setattr(Tensor, name, _method(getattr(E, name)))
    Tensor.bernoulli = _method(C.bernoulli)
    Tensor.multinomial = _method(C.multinomial)
    Tensor.where = _where  # the method's tensor is the value where condition holds
    Tensor.__rdiv__ = Tensor.__rtruediv__
    Tensor.hardshrink, Tensor.prelu = _hardshrink, _prelu
    from .._lazy import install_tensor_stubs
    install_tensor_stubs(Tensor)


def install_all():
    from . import (sorting, misc, special_ops, complex_ops, scatter_ops, spectral, linalg_extra,
                   torch_misc)
    for module in (sorting, misc, special_ops, complex_ops, scatter_ops, spectral,
                   linalg_extra, torch_misc):
        install(module)
    # the DLPack protocol (``np.from_dlpack(t)``, ``torch.from_dlpack(t)``)
    Tensor.__dlpack__ = torch_misc._dlpack
    Tensor.__dlpack_device__ = torch_misc._dlpack_device
    _install_core_extras()
