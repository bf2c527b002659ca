"""``torch.nn.utils.parametrize``: tensors of a module computed from other tensors.

``register_parametrization(module, "weight", P)`` moves the parameter to
``module.parametrizations.weight.original`` (or ``original0``, ``original1`` ... when
``P.right_inverse`` returns several tensors) and makes ``module.weight`` a property computing
``P(original)`` at every access. As in PyTorch, the module's class is swapped for a subclass
``Parametrized<Name>`` carrying that property; assigning ``module.weight = X`` stores
``P.right_inverse(X)``.

>>> import numtorch as torch
>>> class Symmetric(torch.nn.Module):
...     def forward(self, X):
...         return X.triu() + X.triu(1).mT
>>> m = register_parametrization(torch.nn.Linear(3, 3), "weight", Symmetric())
>>> type(m).__name__, bool((m.weight == m.weight.T).all())
('ParametrizedLinear', True)
>>> sorted(m.state_dict())
['bias', 'parametrizations.weight.original']
"""
import collections.abc
import copy
import copyreg
from contextlib import contextmanager

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache = {}


@contextmanager
def cached():
    """Inside this context each parametrized tensor is computed once, at first access."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_(dest, src):
    """``dest.set_(src)``: ``dest`` takes ``src``'s data (and keeps its own identity)."""
    dest._data = src._data
    dest._vc[0] += 1


def _check_dtype_kept(new, original):
    if original.dtype != new.dtype:
        raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype."
                         f"\noriginal.dtype: {original.dtype}\nright_inverse(original).dtype: "
                         f"{new.dtype}")


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and its unconstrained
    ``original`` tensor(s).

    Args:
        modules: the parametrizations (at least one).
        original: the parameter or buffer being parametrized.
        unsafe: skip the checks that the parametrization keeps shape and dtype.
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        new = original
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            _check_dtype_kept(new, original)
            with no_grad():
                _set_(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            self._register_originals(new, original)
        if not self.unsafe:
            self._check_consistency(shape, dtype)

    def _register_originals(self, new, original):
        for i, value in enumerate(new):
            if not isinstance(value, Tensor):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                 f"(list, tuple...). Got element {i} of the sequence with type "
                                 f"{type(value).__name__}.")
            if isinstance(original, Parameter):
                value = Parameter(value, original.requires_grad)
            value.requires_grad_(original.requires_grad)
            _register_parameter_or_buffer(self, f"original{i}", value)

    def _check_consistency(self, shape, dtype):
        Z = self()
        if not isinstance(Z, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
        if Z.dtype != dtype:
            raise ValueError("Registering a parametrization may not change the dtype of the "
                             f"tensor, unless `unsafe` flag is enabled.\nunparametrized dtype: "
                             f"{dtype}\nparametrized dtype: {Z.dtype}")
        if Z.shape != shape:
            raise ValueError("Registering a parametrization may not change the shape of the "
                             f"tensor, unless `unsafe` flag is enabled.\nunparametrized shape: "
                             f"{shape}\nparametrized shape: {Z.shape}")

    def right_inverse(self, value):
        """Store ``value`` as the parametrized tensor: the originals become the right inverse
        of the parametrizations (applied last to first) at ``value``."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set_(self.original, value)
                return
            self._set_originals(value)

    def _set_originals(self, value):
        if not isinstance(value, collections.abc.Sequence):
            raise ValueError(f"'right_inverse' must return a sequence of tensors. Got "
                             f"{type(value).__name__}.")
        if len(value) != self.ntensors:
            raise ValueError(f"'right_inverse' must return a sequence of tensors of length "
                             f"{self.ntensors}. Got a sequence of length {len(value)}.")
        for i, tensor in enumerate(value):
            original_i = getattr(self, f"original{i}")
            if not isinstance(tensor, Tensor):
                raise ValueError(f"'right_inverse' must return a sequence of tensors or "
                                 f"reference-type opaques. Got element {i} of type "
                                 f"{type(tensor).__name__}.")
            if original_i.dtype != tensor.dtype:
                raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                 f"{tensor.dtype} while `original{i}` has dtype "
                                 f"{original_i.dtype}")
            _set_(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


# ---- the injected class and property --------------------------------------------------------
def _deepcopy(self, memo):
    replica = memo.get(id(self))
    if replica is not None:
        return replica
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _getstate(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/"
                       "saving_loading_models.html#saving-loading-a-general-checkpoint-for-"
                       "inference-and-or-resuming-training")


def _inject_new_class(module):
    """Give ``module`` the class ``Parametrized<Class>`` (a subclass) to hang properties on."""
    cls = module.__class__
    attrs = {"__getstate__": _getstate}
    if not hasattr(cls, "__deepcopy__"):
        attrs["__deepcopy__"] = _deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), attrs)


def _inject_property(module, tensor_name):
    """``module.<tensor_name>``: the parametrization's output (cached inside ``cached()``);
    assigning to it calls the parametrization's right inverse."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


# ---- public functions ---------------------------------------------------------------------
def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Parametrize ``module.<tensor_name>`` by ``parametrization`` (a Module); a second
    registration on the same tensor composes after the first. Returns ``module``.

    Args:
        module: the module holding the parameter or buffer.
        tensor_name: its name.
        parametrization: a Module mapping the original tensor(s) to the tensor; it may define
            ``right_inverse`` (a tensor, or a sequence of tensors: several originals).
        unsafe: allow the parametrization to change the tensor's shape or dtype.
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_appended(module, tensor_name, parametrization)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
        return module
    if tensor_name not in module._buffers and tensor_name not in module._parameters:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    original = getattr(module, tensor_name)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _inject_new_class(module)
        module.parametrizations = ModuleDict()
    _inject_property(module, tensor_name)
    module.parametrizations[tensor_name] = plist
    return module


def _check_appended(module, tensor_name, parametrization):
    """A parametrization added on top must keep the tensor's shape and dtype (both ways)."""
    Y = getattr(module, tensor_name)
    X = parametrization(Y)
    if not isinstance(X, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
    if X.dtype != Y.dtype:
        raise ValueError("Registering a parametrization may not change the dtype of the "
                         f"tensor, unless the `unsafe` flag is enabled.\nmodule.{tensor_name}"
                         f".dtype: {Y.dtype}\nparametrization(module.{tensor_name}).dtype: "
                         f"{X.dtype}")
    if X.shape != Y.shape:
        raise ValueError("Registering a parametrization may not change the shape of the "
                         f"tensor, unless the `unsafe` flag is enabled.\nmodule.{tensor_name}"
                         f".shape: {Y.shape}\nparametrization(module.{tensor_name}).shape: "
                         f"{X.shape}")
    if hasattr(parametrization, "right_inverse"):
        try:
            Z = parametrization.right_inverse(X)
        except NotImplementedError:
            return
        if not isinstance(Z, Tensor):
            raise ValueError(f"parametrization.right_inverse must return a tensor. Got: "
                             f"{type(Z).__name__}")
        for what, mine, theirs in (("dtype", Z.dtype, Y.dtype), ("shape", Z.shape, Y.shape)):
            if mine != theirs:
                raise ValueError(f"The tensor returned by parametrization.right_inverse must "
                                 f"have the same {what} as module.{tensor_name}, unless the "
                                 f"`unsafe` flag is enabled.\nmodule.{tensor_name}.{what}: "
                                 f"{theirs}\nreturned {what}: {mine}")


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has any parametrization (or one on ``tensor_name``)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo the parametrizations of ``module.<tensor_name>``: it becomes a plain parameter
    or buffer again, holding its current parametrized value (or its original value when
    ``leave_parametrized=False``). Returns ``module``."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _set_(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        t = getattr(module, tensor_name)
        original = Parameter(t.detach(), t.requires_grad) if t.requires_grad else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before any parametrization was registered."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Copy the parametrizations (and their originals) of ``from_module`` onto
    ``to_module``: of ``tensor_name``, or of every parametrized tensor. Returns
    ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = [tensor_name] if isinstance(tensor_name, str) else \
        (list(from_module.parametrizations) if tensor_name is None else list(tensor_name))
    for name in names:
        source = from_module.parametrizations[name]
        if name not in to_module._parameters and name not in to_module._buffers and \
                not is_parametrized(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        if not is_parametrized(to_module, name):
            for p in source:
                register_parametrization(to_module, name, p)
        target = to_module.parametrizations[name]
        with no_grad():
            for key in ("original",) + tuple(f"original{i}" for i in range(source.ntensors)):
                if hasattr(source, key) and hasattr(target, key):
                    _set_(getattr(target, key), getattr(source, key))
    return to_module
