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
import itertools
from collections import OrderedDict, namedtuple

from ..._tensor import Tensor
from ..parameter import Parameter, Buffer
from ...utils.hooks import RemovableHandle

__all__ = ["Module"]

_GLOBAL_BACKWARD_HOOKS = OrderedDict()
_GLOBAL_BACKWARD_PRE_HOOKS = OrderedDict()
_GLOBAL_FORWARD_HOOKS = OrderedDict()
_GLOBAL_FORWARD_HOOKS_WITH_KWARGS = {}
_GLOBAL_FORWARD_PRE_HOOKS = OrderedDict()


def _global_backward_hooks():
    return _GLOBAL_BACKWARD_HOOKS


def _global_backward_pre_hooks():
    return _GLOBAL_BACKWARD_PRE_HOOKS


def register_module_full_backward_hook(hook):
    """A full backward hook run for every Module (before the module's own)."""
    handle = RemovableHandle(_GLOBAL_BACKWARD_HOOKS)
    _GLOBAL_BACKWARD_HOOKS[handle.id] = hook
    return handle


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
    kwargs, output)``) run for every Module, before the module's own."""
    return _add_hook(_GLOBAL_FORWARD_HOOKS, hook, False,
                     _GLOBAL_FORWARD_HOOKS_WITH_KWARGS if with_kwargs else None)


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


class Module:
    """Base class for neural-network modules (see the module docstring)."""

    training: bool
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = {}
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = {}
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = {}
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    # ---- calling ------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or
                self._backward_pre_hooks or _GLOBAL_BACKWARD_HOOKS or
                _GLOBAL_BACKWARD_PRE_HOOKS or _GLOBAL_FORWARD_HOOKS or
                _GLOBAL_FORWARD_PRE_HOOKS):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        # as PyTorch: the global hooks run first, then the module's own
        pre_hooks = [*_GLOBAL_FORWARD_PRE_HOOKS.items(), *self._forward_pre_hooks.items()]
        for hid, hook in pre_hooks:
            if hid in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        bw_hook = None
        legacy = self._backward_hooks if _has_legacy_hooks(self) else None
        if (self._backward_hooks and not legacy) or self._backward_pre_hooks or \
                _GLOBAL_BACKWARD_HOOKS or _GLOBAL_BACKWARD_PRE_HOOKS:
            from .hooks_backward import BackwardHook
            bw_hook = BackwardHook(self)
            args = bw_hook.setup_input_hook(args)
        out = self.forward(*args, **kwargs)
        for hid, hook in [*_GLOBAL_FORWARD_HOOKS.items(), *self._forward_hooks.items()]:
            if hid in self._forward_hooks_with_kwargs or hid in _GLOBAL_FORWARD_HOOKS_WITH_KWARGS:
                res = hook(self, args, kwargs, out)
            else:
                res = hook(self, args, out)
            if res is not None:
                out = res
        if bw_hook is not None:
            # as PyTorch: outputs are wrapped after the forward hooks may have replaced them
            out = bw_hook.setup_output_hook(out)
        if legacy:
            _attach_legacy_hooks(self, out, legacy)
        return out

    _call_impl = __call__

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
            self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer (state that is not a parameter) under ``name``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(self, name, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer "
                            f"'{name}' (torch Tensor or None required)")
        if isinstance(tensor, Buffer):
            persistent = tensor.persistent
            tensor = Tensor._make(tensor._data, None, False)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add a child module under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
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
            d["_modules"][name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{_qualname(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            d["_modules"][name] = value
        elif isinstance(value, Buffer) or (d.get("_buffers") is not None and
                                           name in d["_buffers"]):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_qualname(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):   # register_buffer refuses a name already in use
                self.register_buffer(name, value)
            else:
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
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    # ---- modes and bulk operations -----------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            m.__dict__["training"] = mode
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters (to None by default)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad = p.grad.detach()
                p.grad.zero_()

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply_to_tensors(self, fn):
        for m in self.modules():
            for k, p in m._parameters.items():
                if p is not None:
                    new = fn(p)
                    if new is not p:
                        p._data = new._data
                        if p._grad is not None:
                            p._grad._data = fn(p._grad)._data
            for k, b in m._buffers.items():
                if b is not None:
                    m._buffers[k] = fn(b)
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
        return self._apply_to_tensors(
            lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        from ... import float32
        return self.to(float32)

    def double(self):
        from ... import float64
        return self.to(float64)

    def half(self):
        from ... import float16
        return self.to(float16)

    def type(self, dst_type):
        return self.to(dst_type)

    def cpu(self):
        return self

    def cuda(self, device=None):
        raise RuntimeError("numtorch runs on the CPU only: Module.cuda() is not available")

    def share_memory(self):
        return self

    # ---- hooks --------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        return _add_hook(self._forward_pre_hooks, hook, prepend,
                         self._forward_pre_hooks_with_kwargs if with_kwargs else None)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        return _add_hook(self._forward_hooks, hook, prepend,
                         self._forward_hooks_with_kwargs if with_kwargs else None)

    def register_full_backward_hook(self, hook, prepend=False):
        if getattr(self, "_is_full_backward_hook", None) is False:
            raise RuntimeError(_MIXED_HOOKS)
        self.__dict__["_is_full_backward_hook"] = True
        return _add_hook(self._backward_hooks, hook, prepend, None)

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
                destination[prefix + k] = p if keep_vars else p.detach()
        for k, b in self._buffers.items():
            if b is not None and k not in self._non_persistent_buffers_set:
                destination[prefix + k] = b if keep_vars else b.detach()
        if _has_extra_state(self):
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def _load_targets(self):
        """What load_state_dict fills: key -> parameter or buffer, or the module itself for
        an ``_extra_state`` key (no state-dict hooks run)."""
        out = OrderedDict()
        for name, mod in self.named_modules(remove_duplicate=False):
            pre = name + "." if name else ""
            for k, p in mod._parameters.items():
                if p is not None:
                    out[pre + k] = p
            for k, b in mod._buffers.items():
                if b is not None and k not in mod._non_persistent_buffers_set:
                    out[pre + k] = b
            if _has_extra_state(mod):
                out[pre + "_extra_state"] = mod
        return out

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
        """Copy tensors from ``state_dict`` into this module's parameters and buffers."""
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)  # the pre-hooks may rename keys in this copy
        self._run_load_state_dict_pre_hooks(state_dict, strict, metadata)
        own = self._load_targets()
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        from ...autograd.grad_mode import no_grad
        with no_grad():
            for k, t in own.items():
                if k not in state_dict:
                    continue
                src = state_dict[k]
                if not isinstance(t, Tensor):   # the module whose extra state this is
                    t.set_extra_state(src)
                    continue
                if not isinstance(src, Tensor):
                    errors.append(f'While copying the parameter named "{k}", expected '
                                  'torch.Tensor or Tensor-like object from checkpoint but '
                                  f'received {type(src)}')
                    continue
                if t.dim() == 0 and src.dim() == 1 and src.shape[0] == 1:
                    src = src[0]    # PyTorch's backward compatibility for 0-dim entries
                if tuple(src.shape) != tuple(t.shape):
                    errors.append(f'size mismatch for {k}: copying a param with shape '
                                  f'{src.shape} from checkpoint, the shape in current model is '
                                  f'{t.shape}.')
                    continue
                if assign:
                    self._assign_entry(k, t, src)
                else:
                    t.copy_(src)
        keys = _IncompatibleKeys(missing, unexpected)
        for mod in _post_order(self):   # children before their parents, as PyTorch
            for hook in mod.__dict__.get("_load_state_dict_post_hooks", {}).values():
                if hook(mod, keys) is not None:
                    raise RuntimeError("Hooks registered with ``register_load_state_dict_post_"
                                       "hook`` are notexpected to return new values, if "
                                       "incompatible_keys need to be modified,it should be "
                                       "done inplace.")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def _assign_entry(self, key, current, src):
        """load_state_dict(assign=True): put ``src`` itself in place of entry ``key``; a
        parameter stays a Parameter with the current one's requires_grad."""
        mod_name, _, name = key.rpartition(".")
        mod = self.get_submodule(mod_name) if mod_name else self
        if isinstance(current, Parameter):
            if isinstance(src, Parameter):
                src.requires_grad_(current.requires_grad)
            else:
                src = Parameter(src, requires_grad=current.requires_grad)
        setattr(mod, name, src)

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

    def _run_load_state_dict_pre_hooks(self, state_dict, strict, metadata=None):
        for name, mod in self.named_modules(remove_duplicate=False):
            local = metadata.get(name, {}) if metadata is not None else {}
            nbt = (name + "." if name else "") + "num_batches_tracked"
            # BatchNorm before version 2 lacked num_batches_tracked: PyTorch fills it in
            if (local.get("version") is None or local["version"] < 2) and \
                    getattr(mod, "track_running_stats", False) and nbt not in state_dict:
                from ...autograd.grad_mode import no_grad
                with no_grad():
                    state_dict[nbt] = (mod.num_batches_tracked if mod.num_batches_tracked
                                       is not None else _zero_long())
            hooks = mod.__dict__.get("_load_state_dict_pre_hooks")
            for hook in list(hooks.values()) if hooks else ():
                hook(state_dict, name + "." if name else "", local, strict, [], [], [])

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


def _has_legacy_hooks(module):
    return bool(module._backward_hooks) and \
        module.__dict__.get("_is_full_backward_hook") is False


def _attach_legacy_hooks(module, out, hooks):
    """Register ``hooks`` on the grad_fn of the first tensor in ``out``."""
    var = out
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) \
            if isinstance(var, dict) else var[0]
    if var.grad_fn is None:
        return
    for hook in hooks.values():
        var.grad_fn.register_hook(functools.partial(_call_legacy_hook, hook, module))


def _call_legacy_hook(hook, module, grad_inputs, grad_outputs):
    return hook(module, grad_inputs, grad_outputs)


def _post_order(module):
    for child in module._modules.values():
        if child is not None:
            yield from _post_order(child)
    yield module


def _has_extra_state(module):
    return type(module).get_extra_state is not Module.get_extra_state


def _remove_from(module, name, keep):
    """Drop ``name`` from every store but ``keep`` (which it stays in, at its position: as in
    PyTorch, re-assigning ``lin.weight`` keeps it before ``lin.bias``)."""
    d = module.__dict__
    for store in ("__dict__", "_parameters", "_buffers", "_modules"):
        if store != keep:
            (d if store == "__dict__" else d[store]).pop(name, None)
    d["_non_persistent_buffers_set"].discard(name)


def _qualname(value):
    t = type(value)
    mod = t.__module__.replace("numtorch", "torch")
    return f"{mod}.{t.__name__}" if mod != "builtins" else t.__name__


def _add_hook(store, hook, prepend, kwargs_store):
    handle = RemovableHandle(store, extra_dict=kwargs_store)
    store[handle.id] = hook
    if kwargs_store is not None:
        kwargs_store[handle.id] = True
    if prepend:
        store.move_to_end(handle.id, last=False)
    return handle
