"""``torch.nn.utils.prune``: masks that zero parts of a module's parameters.

Pruning ``name`` moves the parameter to ``name + '_orig'``, adds a buffer ``name + '_mask'``
and recomputes the attribute ``name = mask * orig`` before every forward (a forward pre-hook,
the pruning method itself). Pruning the same tensor again combines the masks through a
``PruningContainer``; ``remove`` makes the pruning permanent. Random methods draw from
PyTorch's stream in PyTorch's order, so the same seed prunes the same entries.

>>> import numtorch as torch
>>> lin = torch.nn.Linear(2, 2, bias=False)
>>> _ = torch.nn.init.constant_(lin.weight, 1.0)
>>> _ = custom_from_mask(lin, "weight", torch.tensor([[1.0, 0.0], [0.0, 1.0]]))
>>> lin.weight
tensor([[1., 0.],
        [0., 1.]], grad_fn=<MulBackward0>)
>>> [n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()]
(['weight_orig'], ['weight_mask'])
"""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ..._naming import use_torch_names

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


def _torch():
    import numtorch
    return numtorch


class BasePruningMethod(ABC):
    """A way of computing a mask; an instance is also the forward pre-hook that reapplies it.

    Subclasses set ``PRUNING_TYPE`` ('unstructured', 'structured' or 'global') and define
    ``compute_mask(t, default_mask)``.
    """

    _tensor_name = None

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for tensor ``t``, given the mask already in force."""

    def apply_mask(self, module):
        """``mask * orig`` for the pruned tensor of ``module``."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)`` (combined with any pruning
        already applied to it) and return the method now in force."""
        method = _install_method(cls, module, name, args, kwargs)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif importance_scores.shape != orig.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter "
                                 f"{name} of {module}, got {importance_scores.shape} vs "
                                 f"{orig.shape}")
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _torch().ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            module.register_buffer(name + "_mask", method.compute_mask(importance_scores,
                                                                       default_mask))
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:   # put the parameter back as it was
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes for it (nothing is registered)."""
        if importance_scores is None:
            importance_scores = t
        elif importance_scores.shape != t.shape:
            raise AssertionError(f"importance_scores should have the same shape as tensor t, "
                                 f"got {importance_scores.shape} vs {t.shape}")
        if default_mask is None:
            default_mask = _torch().ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``name`` becomes a plain parameter holding
        ``mask * orig``; ``name_orig``, ``name_mask`` go."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 "removed")
        name = self._tensor_name
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = pruned.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _install_method(cls, module, name, args, kwargs):
    """Detach the pruning hook already on ``name`` (if any) and return the method to apply:
    the new one, or a container holding the old then the new."""
    found = [(k, h) for k, h in module._forward_pre_hooks.items()
             if isinstance(h, BasePruningMethod) and h._tensor_name == name]
    if len(found) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of "
                             f"module {module}. Use a PruningContainer.")
    for k, _ in found:
        del module._forward_pre_hooks[k]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not found:
        return method
    old = found[0][1]
    if not isinstance(old, PruningContainer):
        old = PruningContainer(old)
    old.add_pruning_method(method)
    return old


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods on one tensor; the newest acts on what the earlier
    ones left (the unpruned entries, channels, or the whole tensor for 'global')."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append ``method`` (it must prune the same tensor)."""
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        where = _still_active(method, t, default_mask)
        part = method.compute_mask(t[where], default_mask=default_mask[where])
        mask[where] = part.to(dtype=mask.dtype)
        return mask


def _still_active(method, t, mask):
    """The index selecting the part of ``t`` that ``method`` may still prune."""
    kind = method.PRUNING_TYPE
    if kind == "unstructured":
        return mask == 1
    if kind == "global":
        return (slice(None),) * t.dim()
    if kind != "structured":
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
    if not hasattr(method, "dim"):
        raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the '
                             "attribute `dim` defined.")
    n, dim = t.dim(), method.dim
    dim = dim + n if dim < 0 else dim
    if dim < 0:
        raise IndexError(f"Index is out of bounds for tensor with dimensions {n}")
    kept = mask.sum(dim=[d for d in range(n) if d != dim]) != 0
    index = [slice(None)] * n
    index[dim] = kept
    return tuple(index)


class Identity(BasePruningMethod):
    """Prunes nothing (the mask is all ones), but sets up the ``_orig`` / ``_mask`` pair."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class _ByAmount(BasePruningMethod):
    """An unstructured method zeroing ``amount`` entries (a count, or a fraction of the
    tensor): the ``k`` that ``_picked(t, k)`` names (flat indices)."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone()
        if k != 0:
            mask.view(-1)[self._picked(t, k)] = 0
        return mask


class RandomUnstructured(_ByAmount):
    """Zeroes ``amount`` entries (a count, or a fraction of the tensor) chosen at random."""

    @staticmethod
    def _picked(t, k):
        torch = _torch()
        # the k largest of uniform draws (PyTorch's recipe, so its stream and picks)
        return torch.topk(torch.rand_like(t).view(-1), k=k).indices

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_ByAmount):
    """Zeroes the ``amount`` entries of smallest absolute value."""

    @staticmethod
    def _picked(t, k):
        torch = _torch()
        return torch.topk(torch.abs(t).view(-1), k=k, largest=False).indices

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Zeroes ``amount`` whole slices along ``dim`` chosen at random."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        k = _count_to_prune(self.amount, size)
        if k == 0:
            return default_mask
        torch = _torch()
        draws = torch.rand(size)
        # slices whose draw is above the k-th smallest survive
        keep = draws > torch.kthvalue(draws, k=k).values
        mask = _slices_mask(t, self.dim, keep)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Zeroes the ``amount`` slices along ``dim`` of smallest L``n`` norm."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        k = _count_to_prune(self.amount, size)
        torch = _torch()
        dim = self.dim if self.dim >= 0 else self.dim + t.dim()
        norms = torch.norm(t, p=self.n, dim=[d for d in range(t.dim()) if d != dim])
        keep = torch.topk(norms, k=size - k, largest=True).indices
        if k == 0:
            return default_mask
        mask = _slices_mask(t, self.dim, keep)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Applies a given mask (on top of the mask already in force)."""
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask "
                                 f"shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _slices_mask(t, dim, index):
    """Zeros like ``t`` with ones in the slices along ``dim`` selected by ``index``."""
    mask = _torch().zeros_like(t)
    where = [slice(None)] * t.dim()
    where[dim] = index
    mask[tuple(where)] = 1
    return mask


def _check_amount(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, numbers.Integral):
        bad = amount < 0
    else:
        bad = float(amount) > 1.0 or float(amount) < 0.0
    if bad:
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _count_to_prune(amount, size):
    """How many of ``size`` units ``amount`` means (checked against ``size``)."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters "
                             f"to prune={size}")
        return amount
    return round(amount * size)


def _check_structured(t, dim):
    if t.dim() <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {t.dim()} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def identity(module, name):
    """Set up pruning of ``module.<name>`` with an all-ones mask; returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random entries of ``module.<name>``; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` entries of ``module.<name>`` smallest in absolute value (or in
    ``importance_scores``); returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random slices along ``dim``; returns ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` slices along ``dim`` of smallest L``n`` norm; returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` with ``mask``; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the (module, name) ``parameters`` together, as if they were one flat tensor,
    with the unstructured ``pruning_method(**kwargs)``."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    torch = _torch()
    from .convert_parameters import parameters_to_vector
    parameters = list(parameters)
    scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n))
                                   for m, n in parameters])
    masks = parameters_to_vector([getattr(m, n + "_mask", torch.ones_like(getattr(m, n)))
                                  for m, n in parameters])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container = PruningContainer()
    container._tensor_name = "temp"
    container.add_pruning_method(method)
    final = container.compute_mask(scores, masks)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        custom_from_mask(module, name, mask=final[start:start + param.numel()].view_as(param))
        start += param.numel()


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent; returns ``module``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    """Whether any submodule of ``module`` carries a pruning hook."""
    return any(isinstance(h, BasePruningMethod) for _, sub in module.named_modules()
               for h in sub._forward_pre_hooks.values())


use_torch_names(globals())  # the methods print as torch.nn.utils.prune.* where torch is numtorch
