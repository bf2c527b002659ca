"""``nn.Module``: the registration contract for parameters, buffers and submodules.

>>> import numtorch as torch
>>> class Net(torch.nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.w = torch.nn.Parameter(torch.ones(2))
...     def forward(self, x):
...         return x * self.w
>>> [n for n, _ in Net().named_parameters()]
['w']
"""
import functools
import os
import sys
import types
import typing
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._tensor import Tensor
from ..parameter import Parameter, Buffer, _Uninitialized
from ...utils.hooks import RemovableHandle

__all__ = ["Module"]

_GLOBAL_BACKWARD_HOOKS = OrderedDict()
_GLOBAL_BACKWARD_PRE_HOOKS = OrderedDict()
_GLOBAL_FORWARD_HOOKS = OrderedDict()
_GLOBAL_FORWARD_HOOKS_WITH_KWARGS = {}
_GLOBAL_FORWARD_HOOKS_ALWAYS_CALLED = {}
_GLOBAL_FORWARD_PRE_HOOKS = OrderedDict()


def _global_backward_hooks():
    return _GLOBAL_BACKWARD_HOOKS


def _global_backward_pre_hooks():
    return _GLOBAL_BACKWARD_PRE_HOOKS


# whether the global backward hooks are full (True) or the deprecated kind (False); one kind
# only, as on a Module
_global_is_full_backward_hook = None
_GLOBAL_MIXED_HOOKS = ("Cannot use both regular backward hooks and full backward hooks as a "
                       "global Module hook. Please use only one of them.")
_GLOBAL_BUFFER_REGISTRATION_HOOKS = OrderedDict()
_GLOBAL_MODULE_REGISTRATION_HOOKS = OrderedDict()
_GLOBAL_PARAMETER_REGISTRATION_HOOKS = OrderedDict()


def _set_global_backward_kind(full):
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError(_GLOBAL_MIXED_HOOKS)
    _global_is_full_backward_hook = full


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) \
    + os.sep  # numtorch/


def _users_code(fn):
    """Whether function ``fn`` is defined outside numtorch (PyTorch's compiler compiles such
    code and passes over its own)."""
    code = getattr(fn, "__code__", None)
    return code is not None and not code.co_filename.startswith(_PACKAGE_DIR)


def register_module_full_backward_hook(hook):
    """A full backward hook run for every Module (before the module's own)."""
    _set_global_backward_kind(True)
    handle = RemovableHandle(_GLOBAL_BACKWARD_HOOKS)
    _GLOBAL_BACKWARD_HOOKS[handle.id] = hook
    return handle


def register_module_backward_hook(hook):
    """The deprecated global backward hook (see ``Module.register_backward_hook``)."""
    _set_global_backward_kind(False)
    handle = RemovableHandle(_GLOBAL_BACKWARD_HOOKS)
    _GLOBAL_BACKWARD_HOOKS[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook):
    """``hook(module, name, buffer)`` runs when any Module registers a buffer; a result
    other than None is registered instead."""
    return _add_hook(_GLOBAL_BUFFER_REGISTRATION_HOOKS, hook, False, None)


def register_module_module_registration_hook(hook):
    """``hook(module, name, submodule)`` runs when any Module registers a submodule; a
    result other than None is registered instead."""
    return _add_hook(_GLOBAL_MODULE_REGISTRATION_HOOKS, hook, False, None)


def register_module_parameter_registration_hook(hook):
    """``hook(module, name, param)`` runs when any Module registers a parameter; a result
    other than None is registered instead."""
    return _add_hook(_GLOBAL_PARAMETER_REGISTRATION_HOOKS, hook, False, None)


def _run_registration_hooks(hooks, module, name, value):
    for hook in hooks.values():
        res = hook(module, name, value)
        if res is not None:
            value = res
    return value


def _backward_hook_lists(module):
    """(full hooks, deprecated hooks) that a call of ``module`` runs, the global ones first."""
    full, legacy = [], []
    (full if _global_is_full_backward_hook else legacy).extend(_GLOBAL_BACKWARD_HOOKS.values())
    own = module._backward_hooks
    if own:
        (legacy if module.__dict__.get("_is_full_backward_hook") is False else
         full).extend(own.values())
    return full, legacy


def register_module_full_backward_pre_hook(hook):
    """A full backward pre-hook run for every Module (before the module's own)."""
    handle = RemovableHandle(_GLOBAL_BACKWARD_PRE_HOOKS)
    _GLOBAL_BACKWARD_PRE_HOOKS[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook):
    """A forward pre-hook ``hook(module, args)`` run for every Module (before its own)."""
    return _add_hook(_GLOBAL_FORWARD_PRE_HOOKS, hook, False, None)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook ``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args,
    kwargs, output)``) run for every Module, before the module's own; ``always_call``: also
    when the forward raises (with output None)."""
    return _add_hook(_GLOBAL_FORWARD_HOOKS, hook, False,
                     _GLOBAL_FORWARD_HOOKS_WITH_KWARGS if with_kwargs else None,
                     _GLOBAL_FORWARD_HOOKS_ALWAYS_CALLED if always_call else None)


def _torch_aliased():
    """Whether ``torch`` is numtorch in this process (``numtorch run`` or another import
    hook aliasing it)."""
    torch = sys.modules.get("torch")
    return torch is not None and torch is sys.modules.get("numtorch")


# Where ``torch`` is numtorch, numtorch's layers carry PyTorch's module names, so that
# ``type(m)`` prints <class 'torch.nn.modules.linear.Linear'> (pickles name that module, which
# the alias resolves back to numtorch's). Elsewhere they keep numtorch's names: a pickle must
# never find a real PyTorch class there.
_TORCH_NAMES = _torch_aliased()


def _public_module(name):
    """The ``__module__`` a numtorch class defined in module ``name`` shows."""
    if _TORCH_NAMES and name.startswith("numtorch."):
        return "torch" + name[len("numtorch"):]
    return name


# the public classes whose __init__ PyTorch defines on a private base (so a bad argument's
# TypeError names that base); every other public class defines its own
_INIT_OWNERS = {name: owner for owner, names in (
    ("_AdaptiveAvgPoolNd", "AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d"),
    ("_AdaptiveMaxPoolNd", "AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d"),
    ("_BatchNorm", "BatchNorm1d BatchNorm2d BatchNorm3d"),
    ("_InstanceNorm", "InstanceNorm1d InstanceNorm2d InstanceNorm3d"),
    ("_LazyNormBase", "LazyBatchNorm1d LazyBatchNorm2d LazyBatchNorm3d LazyInstanceNorm1d "
                      "LazyInstanceNorm2d LazyInstanceNorm3d"),
    ("_MaxPoolNd", "MaxPool1d MaxPool2d MaxPool3d"),
    ("_LPPoolNd", "LPPool1d LPPool2d LPPool3d"),
    ("_DropoutNd", "Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout"),
    ("_Loss", "L1Loss MSELoss MultiLabelMarginLoss SoftMarginLoss"),
    ("_WeightedLoss", "BCELoss MultiLabelSoftMarginLoss")) for name in names.split()}


def _name_init_as_pytorch(cls):
    """Give a numtorch module class an ``__init__`` named as PyTorch's (``ReLU.__init__``),
    so that ``nn.ReLU(inplac=True)`` says ``ReLU.__init__() got an unexpected keyword
    argument``. A shared base's ``__init__`` is copied (same code, own qualified name)."""
    init = cls.__init__
    if init is Module.__init__:  # its errors name ``type(self)`` already
        return
    qualname = _INIT_OWNERS.get(cls.__name__, cls.__name__) + ".__init__"
    if init.__qualname__ == qualname:
        return
    copy = types.FunctionType(init.__code__.replace(co_qualname=qualname), init.__globals__,
                              init.__name__, init.__defaults__, init.__closure__)
    copy.__kwdefaults__, copy.__doc__ = init.__kwdefaults__, init.__doc__
    copy.__qualname__ = qualname
    cls.__init__ = copy


def _zero_long():
    from ..._creation import tensor
    from ... import _dtype as D
    return tensor(0, dtype=D.int64)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s, n):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


def _forward_unimplemented(self, *input):
    """The forward of a Module subclass that defines none: raises NotImplementedError."""
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                              '"forward" function')


class Module:
    """Base class for neural-network modules (see the module docstring)."""

    training: bool
    _version = 1
    call_super_init = False
    dump_patches = False
    T_destination = typing.TypeVar("T_destination", bound=typing.Dict[str, typing.Any])

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("numtorch.") and not cls.__name__.startswith("_"):
            _name_init_as_pytorch(cls)
        cls.__module__ = _public_module(cls.__module__)

    def __init__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        # PyTorch's attributes, in its order (vars(module) prints as PyTorch's)
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = OrderedDict()
        d["_forward_hooks_always_called"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()
        d["_modules"] = {}

    # NOTE: a module-level function, as PyTorch's (its name shows in the bound method's repr)
    forward = _forward_unimplemented

    # ---- calling ------------------------------------------------------------------------
    _compiled_call_impl = None  # set by compile()

    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or
                self._backward_pre_hooks or _GLOBAL_BACKWARD_HOOKS or
                _GLOBAL_BACKWARD_PRE_HOOKS or _GLOBAL_FORWARD_HOOKS or
                _GLOBAL_FORWARD_PRE_HOOKS or self._compiled_call_impl is not None):
            return self.forward(*args, **kwargs)
        if self._compiled_call_impl is not None:
            return self._compiled_call_impl(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_impl(self, *args, **kwargs):
        """The call as ``__call__`` makes it, without ``compile()``'s wrapping."""
        return self._call_with_hooks(args, kwargs)

    def compile(self, *args, **kwargs):
        """Compile this module's call with ``torch.compile`` (its arguments as given).

        numtorch has no compiler: calls run as before. PyTorch's compiler passes over its own
        modules' code and compiles the user's ``forward`` methods, whose outputs then come
        from one ``CompiledFunctionBackward`` node; numtorch gives the call's outputs that
        node when some module in this one has a ``forward`` of the user's (a model of
        built-in layers only, such as ``Sequential(Linear, ReLU)``, stays as it is).

        >>> import numtorch as torch
        >>> class Net(torch.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.lin = torch.nn.Linear(2, 1)
        ...     def forward(self, x):
        ...         return self.lin(x).relu()
        >>> net, lin = Net(), torch.nn.Linear(2, 1)
        >>> net.compile(); lin.compile()
        >>> net(torch.ones(1, 2)).grad_fn.name(), lin(torch.ones(1, 2)).grad_fn.name()
        ('CompiledFunctionBackward', 'AddmmBackward0')
        """
        from ... import compile as compile_
        compiled = compile_(self._call_impl, *args, **kwargs)  # (checks the arguments)
        user = any(_users_code(type(m).forward) for m in self.modules())
        self._compiled_call_impl = compiled if user else self._call_impl

    def _call_with_hooks(self, args, kwargs):
        always = self.__dict__.get("_forward_hooks_always_called")
        if not (always or _GLOBAL_FORWARD_HOOKS_ALWAYS_CALLED):
            return self._run_with_hooks(args, kwargs, None)
        called = set()  # the always-called hooks that ran (not to be run again on an error)
        try:
            return self._run_with_hooks(args, kwargs, called)
        except Exception:
            _run_always_called_hooks(self, args, kwargs, called, always or {})
            raise

    def _run_with_hooks(self, args, kwargs, called):
        # as PyTorch: the global hooks run first, then the module's own
        pre_hooks = [*_GLOBAL_FORWARD_PRE_HOOKS.items(), *self._forward_pre_hooks.items()]
        for hid, hook in pre_hooks:
            if hid in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {res}.")
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        bw_hook = None
        full, legacy = _backward_hook_lists(self)
        if full or self._backward_pre_hooks or _GLOBAL_BACKWARD_PRE_HOOKS:
            from .hooks_backward import BackwardHook
            bw_hook = BackwardHook(self, full)
            args = bw_hook.setup_input_hook(args)
        out = self.forward(*args, **kwargs)
        for hid, hook in [*_GLOBAL_FORWARD_HOOKS.items(), *self._forward_hooks.items()]:
            if called is not None:
                called.add(hid)
            if hid in self._forward_hooks_with_kwargs or hid in _GLOBAL_FORWARD_HOOKS_WITH_KWARGS:
                res = hook(self, args, kwargs, out)
            else:
                res = hook(self, args, out)
            if res is not None:
                out = res
        if bw_hook is not None:
            # as PyTorch: outputs are wrapped after the forward hooks may have replaced them
            if not isinstance(out, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(out)}",
                              stacklevel=3)
            out = bw_hook.setup_output_hook(out)
        if legacy:
            _attach_legacy_hooks(self, args, out, legacy)
        return out

    # ---- registration -------------------------------------------------------------------
    def register_parameter(self, name, param):
        """Add a parameter (or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name(self, name, "parameter")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            shown = param.type() if isinstance(param, Tensor) else _qualname(param)
            raise TypeError(f"cannot assign '{shown}' object to parameter '{name}' (torch.nn."
                            "Parameter or None required)")
        elif param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             "parameters must be created explicitly. To express '{name}' as a "
                             "function of another Tensor, compute the value in the forward() "
                             "method.")
        else:
            if _GLOBAL_PARAMETER_REGISTRATION_HOOKS:
                param = _run_registration_hooks(_GLOBAL_PARAMETER_REGISTRATION_HOOKS, self,
                                                name, param)
            self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer (state that is not a parameter) under ``name``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(self, name, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer "
                            f"'{name}' (torch Tensor or None required)")
        if _GLOBAL_BUFFER_REGISTRATION_HOOKS:
            tensor = _run_registration_hooks(_GLOBAL_BUFFER_REGISTRATION_HOOKS, self, name,
                                             tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add a child module under ``name``."""
        if not isinstance(module, Module) and module is not None:
            from ... import typename
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        if _GLOBAL_MODULE_REGISTRATION_HOOKS:
            module = _run_registration_hooks(_GLOBAL_MODULE_REGISTRATION_HOOKS, self, name,
                                             module)
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(self, name, "_parameters")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_qualname(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if d.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_from(self, name, "_modules")
            if _GLOBAL_MODULE_REGISTRATION_HOOKS:
                value = _run_registration_hooks(_GLOBAL_MODULE_REGISTRATION_HOOKS, self, name,
                                                value)
            d["_modules"][name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{_qualname(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            if _GLOBAL_MODULE_REGISTRATION_HOOKS:
                value = _run_registration_hooks(_GLOBAL_MODULE_REGISTRATION_HOOKS, self, name,
                                                value)
            d["_modules"][name] = value
        elif isinstance(value, Buffer) or (d.get("_buffers") is not None and
                                           name in d["_buffers"]):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_qualname(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):   # register_buffer refuses a name already in use
                self.register_buffer(name, value, value.persistent)
            else:
                if _GLOBAL_BUFFER_REGISTRATION_HOOKS:
                    value = _run_registration_hooks(_GLOBAL_BUFFER_REGISTRATION_HOOKS, self,
                                                    name, value)
                d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            s = self.__dict__.get(store)
            if s is not None and name in s:
                del s[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(dir(type(self))) + list(self.__dict__) + list(self._parameters) + \
            list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ---- traversal ----------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every descendant, depth first, once each."""
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            name, mod = stack.pop()
            if remove_duplicate:
                if mod in memo:
                    continue
                memo.add(mod)
            yield name, mod
            children = [(name + ("." if name else "") + k, m)
                        for k, m in mod._modules.items() if m is not None]
            stack.extend(reversed(children))

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and m not in seen:
                seen.add(m)
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, getter, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for k, v in getter(mod).items():
                if v is None or (remove_duplicate and v in seen):
                    continue
                if remove_duplicate:
                    seen.add(v)
                yield mod_prefix + ("." if mod_prefix else "") + k, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, parameter) pairs, each parameter once, in registration order."""
        yield from self._named_members(lambda m: m._parameters, prefix, recurse,
                                       remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers, prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Put ``module`` at the dotted path ``target`` (its parent must exist); ``strict``:
        only replace a submodule that exists."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        p = getattr(mod, name)
        if not isinstance(p, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return p

    def get_buffer(self, target):
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    # ---- modes and bulk operations -----------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        # each child's own train() runs (a subclass may override it, e.g. to keep its
        # BatchNorm layers frozen), as in PyTorch
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            if type(requires_grad) is not bool:  # (Tensor.requires_grad_'s parser refuses it)
                raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must "
                                f"be bool, not {type(requires_grad).__name__}")
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters (to None by default)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:   # in place, as PyTorch: a reference to the gradient sees the zeros
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse=True):
        """Convert every parameter (in place, keeping the Parameter object), its gradient and
        every buffer with ``fn``; children first, each through its own ``_apply``."""
        if recurse:
            for m in self.children():
                m._apply(fn)
        for p in self._parameters.values():
            if p is not None:
                new = fn(p)
                if new is not p:
                    p._data = new._data
                    if p._grad is not None:
                        p._grad._data = fn(p._grad)._data
        for k, b in self._buffers.items():
            if b is not None:
                self._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype")
        for a in args:
            if hasattr(a, "is_floating_point") and not isinstance(a, Tensor):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
        from ..._device import check_device
        check_device(kwargs.get("device", next((a for a in args if isinstance(a, str)), None)))
        if dtype is None:
            return self
        if not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() or t.is_complex()
                           else t)

    def float(self):
        from ... import float32
        return self.to(float32)

    def double(self):
        from ... import float64
        return self.to(float64)

    def half(self):
        from ... import float16
        return self.to(float16)

    def bfloat16(self):
        # numtorch has no bfloat16: Tensor.bfloat16 raises its error naming it
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def type(self, dst_type):
        return self.to(dst_type)

    def to_empty(self, *, device=None, recurse=True):
        """Give every parameter and buffer new, uninitialized memory of its shape and dtype
        (on the CPU: numtorch's only device)."""
        from ..._device import check_device
        from ..._creation import empty_like
        check_device(device)
        return self._apply(lambda t: empty_like(t), recurse=recurse)

    def cpu(self):
        return self

    def cuda(self, device=None):
        if next(self.parameters(), None) is not None or next(self.buffers(), None) is not None:
            raise AssertionError("Torch not compiled with CUDA enabled")  # PyTorch's CPU build
        return self  # nothing to move (PyTorch's CPU build moves nothing either)

    def share_memory(self):
        """Calls ``share_memory_`` on every parameter and buffer (numtorch's memory is
        process-local, so only a lazy module's uninitialized entries object)."""
        return self._apply(lambda t: t.share_memory_())

    # ---- hooks --------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        return _add_hook(self._forward_pre_hooks, hook, prepend,
                         self._forward_pre_hooks_with_kwargs if with_kwargs else None)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs,
        output)``) after each forward; a result other than None replaces the output.
        ``always_call``: the hook also runs (with output None) when the forward raises."""
        always = self.__dict__.setdefault("_forward_hooks_always_called", OrderedDict()) \
            if always_call else None
        return _add_hook(self._forward_hooks, hook, prepend,
                         self._forward_hooks_with_kwargs if with_kwargs else None, always)

    def register_full_backward_hook(self, hook, prepend=False):
        if getattr(self, "_is_full_backward_hook", None) is False:
            raise RuntimeError(_MIXED_HOOKS)
        self.__dict__["_is_full_backward_hook"] = True
        return _add_hook(self._backward_hooks, hook, prepend, None)

    def _get_backward_hooks(self):
        """(full backward hooks, deprecated backward hooks) of this module, global ones first."""
        return _backward_hook_lists(self)

    def _get_backward_pre_hooks(self):
        return [*_GLOBAL_BACKWARD_PRE_HOOKS.values(), *self._backward_pre_hooks.values()]

    def register_full_backward_pre_hook(self, hook, prepend=False):
        return _add_hook(self._backward_pre_hooks, hook, prepend, None)

    def register_backward_hook(self, hook):
        """The deprecated hook: ``hook(module, grad_input, grad_output)`` on the node that made
        the module's (first) output, so grad_input are that node's input gradients (for
        Linear: bias, input, weight.T), as PyTorch's."""
        if getattr(self, "_is_full_backward_hook", None) is True:
            raise RuntimeError(_MIXED_HOOKS)
        self.__dict__["_is_full_backward_hook"] = False
        return _add_hook(self._backward_hooks, hook, False, None)

    # ---- state dict ---------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by dotted name (detached unless keep_vars),
        plus ``_extra_state`` of modules defining ``get_extra_state``; this module's entries
        come before its children's, and the state-dict hooks run as in PyTorch."""
        if args:    # the deprecated positional form: (destination, prefix, keep_vars)
            destination, prefix, keep_vars = (list(args) + [destination, prefix,
                                                            keep_vars][len(args):])[:3]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self.__dict__.get("_state_dict_pre_hooks", {}).values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, mod in self._modules.items():
            if mod is not None:
                mod.state_dict(destination=destination, prefix=prefix + name + ".",
                               keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                destination = result
        return destination

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Put this module's own entries (not its children's) into ``destination``."""
        for k, p in self._parameters.items():
            if p is not None:
                destination[prefix + k] = _saved_entry(p, keep_vars)
        for k, b in self._buffers.items():
            if b is not None and k not in self._non_persistent_buffers_set:
                destination[prefix + k] = _saved_entry(b, keep_vars)
        if _has_extra_state(self):
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def get_extra_state(self):
        """State beyond tensors to put in the state_dict (override with set_extra_state)."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        """Restore what ``get_extra_state`` returned."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before ``state_dict`` saves this module."""
        store = self.__dict__.setdefault("_state_dict_pre_hooks", OrderedDict())
        return _add_hook(store, hook, False, None)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after this module (and
        its children) are saved; it edits ``state_dict`` in place."""
        return _add_hook(self._state_dict_hooks, hook, False, None)

    _register_state_dict_hook = register_state_dict_post_hook

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after ``load_state_dict`` (it may edit the
        missing/unexpected key lists in place)."""
        store = self.__dict__.setdefault("_load_state_dict_post_hooks", OrderedDict())
        return _add_hook(store, hook, False, None)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy tensors from ``state_dict`` into this module's parameters and buffers.

        Each module, parents before children, reads its own entries in its
        ``_load_from_state_dict`` (which subclasses may override, as in PyTorch) from the
        entries under its prefix; the post-hooks of a module run after its children's.
        Returns the missing and unexpected keys; ``strict`` raises on any instead.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)  # the pre-hooks may rename keys in this copy
        if metadata is not None:
            state_dict._metadata = metadata
        keys = _IncompatibleKeys([], [])
        errors = []
        _load_module(self, state_dict, "", metadata, assign, keys, errors)
        if strict:
            if keys.unexpected_keys:
                errors.insert(0, "Unexpected key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in keys.unexpected_keys) + ". ")
            if keys.missing_keys:
                errors.insert(0, "Missing key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in keys.missing_keys) + ". ")
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return keys

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Load this module's own entries (``prefix + name``) from ``state_dict``, after its
        load pre-hooks; add to the three lists what is missing, unexpected or wrong."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local = {k: v for k, v in self._parameters.items() if v is not None}
        local.update((k, v) for k, v in self._buffers.items()
                     if v is not None and k not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, current in local.items():
            key = prefix + name
            if key in state_dict:
                _load_entry(self, name, key, current, state_dict[key], assign, error_msgs)
            elif strict:
                missing_keys.append(key)
        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head, dot, _ = key[len(prefix):].partition(".")
                    if head not in (self._modules if dot else local):
                        unexpected_keys.append(key)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """``hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` runs before ``load_state_dict`` reads this module's entries (it may
        edit ``state_dict``); ``with_module`` passes the module first."""
        if with_module:
            hook = functools.partial(hook, self)
        return _add_hook(self._load_state_dict_pre_hooks, hook, False, None)

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before ``load_state_dict`` reads this module."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    # ---- printing -----------------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for key, mod in self._modules.items():
            lines.append(f"({key}): " + _addindent(repr(mod), 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _check_name(module, name, kind):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    stores = {"parameter": "_parameters", "buffer": "_buffers"}
    if hasattr(module, name) and name not in module.__dict__[stores[kind]]:
        raise KeyError(f"attribute '{name}' already exists")


_MIXED_HOOKS = ("Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them.")


def _run_always_called_hooks(module, args, kwargs, called, always):
    """After an error in a call: the ``always_call`` forward hooks that did not run yet run
    with output None; their own errors become warnings (the first error is re-raised)."""
    result = None
    for kind, hooks, marked, with_kwargs in (
            ("global module", _GLOBAL_FORWARD_HOOKS, _GLOBAL_FORWARD_HOOKS_ALWAYS_CALLED,
             _GLOBAL_FORWARD_HOOKS_WITH_KWARGS),
            ("module", module._forward_hooks, always, module._forward_hooks_with_kwargs)):
        for hid, hook in list(hooks.items()):
            if hid not in marked or hid in called:
                continue
            try:
                res = hook(module, args, kwargs, result) if hid in with_kwargs else \
                    hook(module, args, result)
                if res is not None:
                    result = res
            except Exception as e:  # noqa: BLE001  (PyTorch warns and goes on)
                warnings.warn(f"{kind} forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {e}", stacklevel=4)


def _load_module(module, state_dict, prefix, metadata, assign, keys, errors):
    """load_state_dict's walk: ``module`` reads ``state_dict`` (its entries under ``prefix``),
    then each child reads the entries under its own prefix, then the post-hooks run."""
    local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
    if assign:
        local_metadata = dict(local_metadata, assign_to_params_buffers=True)
    module._load_from_state_dict(state_dict, prefix, local_metadata, True, keys.missing_keys,
                                 keys.unexpected_keys, errors)
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            _load_module(child, {k: v for k, v in state_dict.items()
                                 if k.startswith(child_prefix)},
                         child_prefix, metadata, assign, keys, errors)
    for hook in module.__dict__.get("_load_state_dict_post_hooks", {}).values():
        if hook(module, keys) is not None:
            raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` "
                                 "are not expected to return new values, if incompatible_keys "
                                 "need to be modified, it should be done inplace.")


def _saved_entry(t, keep_vars):
    """A state_dict entry: ``t`` detached unless ``keep_vars``; a lazy module's uninitialized
    entry is saved itself (it has nothing to detach), as PyTorch's LazyModuleMixin does."""
    return t if keep_vars or isinstance(t, _Uninitialized) else t.detach()


def _load_entry(module, name, key, current, src, assign, errors):
    """Copy (or with ``assign``, put) ``src`` into the parameter or buffer ``current``."""
    if not isinstance(src, Tensor):
        errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                      f'Tensor-like object from checkpoint but received {type(src)}')
        return
    lazy = isinstance(current, _Uninitialized)  # takes any shape (its lazy load hook's)
    if not lazy and current.dim() == 0 and src.dim() == 1 and src.shape[0] == 1:
        src = src[0]  # PyTorch's backward compatibility for 0-dim entries
    if not lazy and src.shape != current.shape:
        errors.append(f"size mismatch for {key}: copying a param with shape {src.shape} from "
                      f"checkpoint, the shape in current model is {current.shape}.")
        return
    from ...autograd.grad_mode import no_grad
    try:
        with no_grad():
            if not assign:
                current.copy_(src)
                return
            if isinstance(current, Parameter):
                if isinstance(src, Parameter):
                    src.requires_grad_(current.requires_grad)
                else:
                    src = Parameter(src, requires_grad=current.requires_grad)
            setattr(module, name, src)
    except Exception as ex:  # noqa: BLE001  (reported as PyTorch reports it)
        errors.append(f'While copying the parameter named "{key}", whose dimensions in the '
                      f"model are {current.size()} and whose dimensions in the checkpoint are "
                      f"{src.size()}, an exception occurred : {ex.args}.")


def _attach_legacy_hooks(module, args, out, hooks):
    """Register ``hooks`` on the grad_fn of the first tensor in ``out``."""
    var = out
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) \
            if isinstance(var, dict) else var[0]
    if var.grad_fn is None:
        return
    for hook in hooks:
        var.grad_fn.register_hook(functools.partial(_call_legacy_hook, hook, module))
    _warn_legacy_hooks(args, out, var.grad_fn)


_LEGACY_MISSING = ("is deprecated and will be removed in future versions. This hook will be "
                   "missing some ")
_USE_FULL = "Please use register_full_backward_hook to get the documented behavior."


def _warn_legacy_hooks(args, out, grad_fn):
    """PyTorch's FutureWarnings where a non-full backward hook (on ``grad_fn``, the first
    output's node) cannot see every grad_input or grad_output."""
    outs = out if isinstance(out, tuple) else (out,)
    if not all(isinstance(o, Tensor) for o in outs):
        message = ("Using non-full backward hooks on a Module that does not return a single "
                   f"Tensor or a tuple of Tensors {_LEGACY_MISSING}of the grad_output. "
                   f"{_USE_FULL}")
    elif not all(isinstance(a, Tensor) for a in args):
        message = ("Using non-full backward hooks on a Module that does not take as input a "
                   f"single Tensor or a tuple of Tensors {_LEGACY_MISSING}of the grad_input. "
                   f"{_USE_FULL}")
    else:
        out_fns = {o.grad_fn for o in outs if o.grad_fn is not None}
        if len(out_fns) > 1:
            message = ("Using a non-full backward hook when outputs are generated by different "
                       f"autograd Nodes {_LEGACY_MISSING}grad_output. {_USE_FULL}")
        elif grad_fn not in out_fns:
            message = ("Using a non-full backward hook when outputs are nested in python data "
                       f"structure {_LEGACY_MISSING}grad_output.")
        elif {a.grad_fn for a in args if a.grad_fn is not None} != \
                {n[0] for n in grad_fn.next_functions}:
            message = ("Using a non-full backward hook when the forward contains multiple "
                       f"autograd Nodes {_LEGACY_MISSING}grad_input. {_USE_FULL}")
        else:
            return
    warnings.warn(message, FutureWarning, stacklevel=4)


def _call_legacy_hook(hook, module, grad_inputs, grad_outputs):
    return hook(module, grad_inputs, grad_outputs)


def _post_order(module):
    for child in module._modules.values():
        if child is not None:
            yield from _post_order(child)
    yield module


def _has_extra_state(module):
    return type(module).get_extra_state is not Module.get_extra_state


Module.__module__ = _public_module(Module.__module__)


def _remove_from(module, name, keep):
    """Drop ``name`` from every store but ``keep`` (which it stays in, at its position: as in
    PyTorch, re-assigning ``lin.weight`` keeps it before ``lin.bias``)."""
    d = module.__dict__
    for store in ("__dict__", "_parameters", "_buffers", "_modules"):
        if store != keep:
            (d if store == "__dict__" else d[store]).pop(name, None)
    d["_non_persistent_buffers_set"].discard(name)


def _qualname(value):
    if isinstance(value, Tensor):  # as torch.typename: 'torch.FloatTensor'
        return value.type()
    t = type(value)
    mod = t.__module__.replace("numtorch", "torch")
    return f"{mod}.{t.__name__}" if mod != "builtins" else t.__name__


def _add_hook(store, hook, prepend, kwargs_store, always_store=None):
    """Put ``hook`` in ``store`` under a new handle's id; the id also goes in the stores
    marking hooks called with kwargs and (forward hooks) hooks called even on an error."""
    extras = [d for d in (kwargs_store, always_store) if d is not None]
    handle = RemovableHandle(store, extra_dict=extras)
    store[handle.id] = hook
    for extra in extras:
        extra[handle.id] = True
    if prepend:
        store.move_to_end(handle.id, last=False)
    return handle
