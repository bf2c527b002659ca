"""``nn.Parameter`` and ``nn.Buffer``: tensors that modules register.

>>> import numtorch as torch
>>> torch.nn.Parameter(torch.zeros(2))
Parameter containing:
tensor([0., 0.], requires_grad=True)
"""
import numpy as np

from .._tensor import Tensor
from ..overrides import _disabled_torch_function_impl

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"]


class Parameter(Tensor):
    """A leaf tensor (sharing ``data``'s memory) that ``Module`` registers as a parameter."""

    __slots__ = ()
    # prints as PyTorch's class; pickling goes through _rebuild_parameter, not the class
    __module__ = "torch.nn.parameter"
    # ops on a parameter return plain tensors, as in PyTorch (no __torch_function__ dispatch)
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = Tensor._make(np.zeros((0,), np.float32), None, False)
        if not isinstance(data, Tensor):
            # NOTE: PyTorch's Parameter calls data.detach() (its error for a list or array)
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        if type(requires_grad) is not bool:
            # PyTorch's _make_subclass parser takes only a Python bool (not 1, np.bool_, None)
            from ..ops._util import tp_name
            raise TypeError(f"_make_subclass(): argument 'require_grad' (position 3) must be "
                            f"bool, not {tp_name(requires_grad)}")
        self = object.__new__(cls)
        self._init_from(data._data, False)
        self._vc = data._vc
        if requires_grad:
            if not (data.dtype.is_floating_point or data.dtype.is_complex):
                raise RuntimeError("Only Tensors of floating point and complex dtype can "
                                   "require gradients")
            self.requires_grad_(True)
        return self

    def __repr__(self):
        from .._tensor_str import parameter_repr
        return parameter_repr(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        # as PyTorch: a new parameter over a copy of the data only; its .grad and any
        # attributes set on it are not copied (a plain Tensor's deepcopy keeps both)
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(Tensor._make(self._data.copy(order="K"), None, False), self._rg)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data.copy(), self._rg))


def _rebuild_parameter(data, requires_grad):
    return Parameter(Tensor._make(data, None, False), requires_grad)


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` is true for the plain tensor a ``Buffer(...)`` call returns."""

    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and \
                getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute.

    As PyTorch, ``Buffer(data)`` returns a plain Tensor (``data`` detached: same memory and
    version counter, same requires_grad) carrying ``persistent`` and ``_is_buffer``; a module
    then registers that very tensor.

    >>> import numtorch as torch
    >>> b = torch.nn.Buffer(torch.ones(2), persistent=False)
    >>> type(b).__name__, isinstance(b, torch.nn.Buffer), b.persistent
    ('Tensor', True, False)
    """

    __slots__ = ()
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = Tensor._make(np.zeros((0,), np.float32), None, False)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class _Uninitialized:
    """Shared by the uninitialized parameter and buffer of lazy modules: an empty tensor
    whose shape is fixed later by ``materialize``, which turns it into ``cls_to_become``."""

    __slots__ = ()
    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Give this tensor ``shape`` (uninitialized memory) and its final class."""
        from .. import empty
        if isinstance(shape, int):
            shape = (shape,)
        data = empty(*shape, dtype=dtype if dtype is not None else self.dtype)
        self._data = data._data
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__


class UninitializedParameter(_Uninitialized, Parameter):
    """A Parameter whose shape a lazy module infers from its first input."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .. import empty
        self = Parameter.__new__(cls, empty(0, dtype=dtype), requires_grad)
        return self

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self._rg, None, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(_Uninitialized, Tensor):
    """A buffer whose shape a lazy module infers from its first input."""

    __slots__ = ()
    cls_to_become = Tensor
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from .. import empty
        self = object.__new__(cls)
        self._init_from(empty(0, dtype=dtype)._data, requires_grad)
        return self
