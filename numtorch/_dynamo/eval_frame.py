"""``torch.compile`` without a compiler: a Module comes back wrapped, as PyTorch wraps it.

PyTorch's ``torch.compile(module)`` returns an ``OptimizedModule`` that holds the module as
its child ``_orig_mod`` (so it prints as ``OptimizedModule((_orig_mod): ...)`` and its
``state_dict`` keys start with ``_orig_mod.``) and hands every other attribute read and
write to it. numtorch keeps that contract; the forward pass is the module's own call.

>>> import numtorch as torch
>>> m = torch.compile(torch.nn.Linear(2, 1))
>>> type(m).__name__, list(m.state_dict()), m.in_features
('OptimizedModule', ['_orig_mod.weight', '_orig_mod.bias'], 2)
"""
from ..nn.modules.module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """Wraps ``mod``; calling it calls ``mod`` (hooks on either run)."""

    # attributes that live on the wrapper; all others are the wrapped module's
    _opt_mod_attributes = {"_orig_mod", "dynamo_ctx", "forward", "__dict__",
                           "_super_module_initialized"}

    def __init__(self, mod, dynamo_ctx=None):
        # (first: attribute reads during Module.__init__ go to the wrapped module)
        object.__setattr__(self, "_orig_mod", mod)
        self._super_module_initialized = False
        super().__init__()
        self._super_module_initialized = True
        self._orig_mod = mod  # registered as the child module
        self.dynamo_ctx = dynamo_ctx
        self.forward = mod.__call__

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
        return super().__call__(*args, **kwargs)

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
        return (self.__class__, (self._orig_mod, self.dynamo_ctx))
