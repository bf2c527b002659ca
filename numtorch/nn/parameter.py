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
            Tensor.requires_grad_(self, True)  # (an uninitialized parameter refuses the method)
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


# Tensor methods an uninitialized tensor still answers (PyTorch's _allowed_methods, and
# materialize); every other public Tensor method raises when called, as in PyTorch
_UNINITIALIZED_ALLOWED = frozenset({
    "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
    "short", "int", "long", "cuda", "cpu", "to", "get_device", "materialize",
    "share_memory_"})
# Tensor methods PyTorch writes in Python (torch/_tensor.py): its message names them as
# functions rather than as methods of the C base class
_PYTHON_TENSOR_METHODS = frozenset({
    "__deepcopy__", "backward", "dim_order", "index", "is_shared", "istft",
    "lu", "module_load", "norm", "register_hook", "register_post_accumulate_grad_hook",
    "resize", "resize_as", "split", "stft", "storage", "storage_type", "to_sparse_coo",
    "unflatten", "unique", "unique_consecutive", "__len__", "__iter__", "__contains__",
    "__format__", "__reversed__", "__array__"})


def _refusing(cls, name, method):
    """A stand-in for ``method`` of an uninitialized tensor: calling it raises PyTorch's
    ValueError naming the method."""
    if name in _PYTHON_TENSOR_METHODS:
        func = f"<function Tensor.{name} at {id(method):#x}>"
    else:
        func = f"<method '{name}' of 'torch._C.TensorBase' objects>"

    def refuse(*args, **kwargs):
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {func}. This error happens when "
            f"you are using a `LazyModule` or explicitly manipulating "
            f"`torch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call "
            f"`forward` with a dummy batch to initialize the parameters before calling torch "
            f"functions")
    return refuse


def _is_tensor_method(name):
    """Whether ``name`` is a method (not a property or plain attribute) of Tensor."""
    for klass in Tensor.__mro__:
        if name in vars(klass):
            return callable(vars(klass)[name]) and not isinstance(vars(klass)[name], type)
    return False


class _Uninitialized:
    """Shared by the uninitialized parameter and buffer of lazy modules: an empty tensor
    whose shape is fixed later by ``materialize``, which turns it into ``cls_to_become``.

    Until then it has no shape: ``shape`` raises RuntimeError and the Tensor methods other
    than conversions and ``copy_`` raise ValueError when called (PyTorch refuses them in its
    ``__torch_function__``; numtorch refuses them here, where only these instances pay).
    """

    __slots__ = ()
    cls_to_become = None

    def __getattribute__(self, name):
        value = object.__getattribute__(self, name)
        if (name not in _UNINITIALIZED_ALLOWED
                and (name[0] != "_" or name in _PYTHON_TENSOR_METHODS)
                and _is_tensor_method(name)):
            return _refusing(type(self), name, value)
        return value

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __len__(self):
        return _refusing(type(self), "__len__", Tensor.__len__)()

    def __reduce_ex__(self, protocol):
        # pickled without data: loads as a fresh uninitialized entry (PyTorch's reduction)
        return type(self), (self.requires_grad,)

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
