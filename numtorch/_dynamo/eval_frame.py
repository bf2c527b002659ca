"""``torch.compile`` without a compiler: a Module comes back wrapped, as PyTorch wraps it.

PyTorch's ``torch.compile(module)`` returns an ``OptimizedModule`` that holds the module as
its child ``_orig_mod`` (so it prints as ``OptimizedModule((_orig_mod): ...)`` and its
``state_dict`` keys start with ``_orig_mod.``) and hands every other attribute read and
write to it. numtorch keeps that contract; the forward pass is the module's own call. PyTorch runs a
compiled region's backward as one autograd node, ``CompiledFunctionBackward``; numtorch ends
the region's graph in such a node too (an identity over its outputs), so the outputs print
``grad_fn=<CompiledFunctionBackward>`` as PyTorch's do.

>>> import numtorch as torch
>>> m = torch.compile(torch.nn.Linear(2, 1))
>>> type(m).__name__, list(m.state_dict()), m.in_features
('OptimizedModule', ['_orig_mod.weight', '_orig_mod.bias'], 2)
"""
import functools

from ..autograd.function import Function
from .._tensor import Tensor
from ..nn.modules.module import Module

__all__ = ["OptimizedModule", "compile_function"]


class CompiledFunction(Function):
    """The compiled region's node: y_i = x_i, dx_i = dy_i (a clone, so that changing an output
    in place cannot reach a tensor the region saved for its backward)."""

    @staticmethod
    def forward(ctx, *outputs):
        return tuple(o.clone() for o in outputs)

    @staticmethod
    def backward(ctx, *grads):
        return grads


def compiled_outputs(result):
    """``result`` (a tensor, or a tuple/list/dict holding tensors) with each computed output
    that requires grad passed through one CompiledFunction node. Views of inputs keep their
    view node and leaves stay themselves, as PyTorch regenerates them outside the region."""
    if isinstance(result, Tensor):
        return compiled_outputs((result,))[0]
    if isinstance(result, dict):
        keys = list(result)
        values = compiled_outputs([result[k] for k in keys])
        return type(result)(zip(keys, values)) if type(result) is dict else result
    if not isinstance(result, (tuple, list)):
        return result
    picked = [i for i, t in enumerate(result) if isinstance(t, Tensor) and
              t.grad_fn is not None and t._base is None]
    if not picked:
        return result
    new = CompiledFunction.apply(*[result[i] for i in picked])
    new = new if isinstance(new, tuple) else (new,)
    items = list(result)
    for i, t in zip(picked, new):
        items[i] = t
    if type(result) in (tuple, list):
        return type(result)(items)
    return type(result)(*items) if hasattr(result, "_fields") else result  # a namedtuple


def uses_compiled_node(backend):
    """Whether PyTorch's ``backend`` runs the region through AOTAutograd (one
    CompiledFunctionBackward node): the default inductor and the ``aot_*`` backends do;
    "eager" and a user's backend function run the ops themselves."""
    return backend is None or backend == "inductor" or \
        (isinstance(backend, str) and backend.startswith("aot_"))


def compile_function(fn, compiled_node=True):
    """``torch.compile(fn)`` for a function: ``fn`` whose results end in a CompiledFunction
    node where ``compiled_node`` (see uses_compiled_node)."""
    if not compiled_node:
        @functools.wraps(fn)
        def eager(*args, **kwargs):
            return fn(*args, **kwargs)
        return eager

    @functools.wraps(fn)
    def compiled(*args, **kwargs):
        return compiled_outputs(fn(*args, **kwargs))
    return compiled


class OptimizedModule(Module):
    """Wraps ``mod``; calling it calls ``mod`` (hooks on either run)."""

    # attributes that live on the wrapper; all others are the wrapped module's
    _opt_mod_attributes = {"_orig_mod", "dynamo_ctx", "forward", "__dict__",
                           "_super_module_initialized", "_compiled_node"}

    def __init__(self, mod, dynamo_ctx=None, compiled_node=True):
        # (first: attribute reads during Module.__init__ go to the wrapped module)
        object.__setattr__(self, "_orig_mod", mod)
        self._super_module_initialized = False
        super().__init__()
        self._super_module_initialized = True
        self._orig_mod = mod  # registered as the child module
        self.dynamo_ctx = dynamo_ctx
        self.forward = mod.__call__
        self._compiled_node = compiled_node  # see uses_compiled_node

    def __call__(self, *args, **kwargs):
        from ..nn.modules import module as M
        if (M._GLOBAL_FORWARD_HOOKS or M._GLOBAL_FORWARD_PRE_HOOKS or M._GLOBAL_BACKWARD_HOOKS
                or M._GLOBAL_BACKWARD_PRE_HOOKS):
            from ..ops._util import warn_user
            warn_user("Using `torch.compile(module)` when there are global hooks on modules "
                      "(e.g., from `register_module_forward_hook`); this will cause the hooks "
                      "to fire an extra time for the `OptimizedModule` created by "
                      "`torch.compile(module)`. If this causes undesired behavior, please try "
                      "using `module.compile()`, or use the per-module hooks instead")
        out = super().__call__(*args, **kwargs)
        return compiled_outputs(out) if self._compiled_node else out

    def __len__(self):
        if hasattr(type(self._orig_mod), "__len__"):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")

    @property
    def training(self):
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        if self.__dict__.get("_super_module_initialized"):
            self._orig_mod.training = value

    def __getattr__(self, name):
        modules = self.__dict__.get("_modules")
        if modules is None or "_orig_mod" not in modules:
            if name == "_orig_mod" and "_orig_mod" in self.__dict__:
                return self.__dict__["_orig_mod"]
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        if name == "_orig_mod":
            return modules["_orig_mod"]
        return getattr(modules["_orig_mod"], name)

    def __setattr__(self, name, value):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def __reduce__(self):
        return (self.__class__, (self._orig_mod, self.dynamo_ctx, self._compiled_node))
