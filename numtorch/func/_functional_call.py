"""``functional_call`` (run a module with substituted parameters and buffers) and
``stack_module_state`` (stack the state of several identical modules for ``vmap``)."""
from .._tensor import Tensor

__all__ = ["functional_call", "stack_module_state"]


def _owner(module, name):
    prefix, _, leaf = name.rpartition(".")
    return (module.get_submodule(prefix) if prefix else module), leaf


def _untie(module, values):
    """``values`` plus every name tied to (sharing its tensor with) a given one; PyTorch's
    ValueError when tied names are given different tensors."""
    groups = {}
    for n, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        groups.setdefault(id(t), set()).add(n)
    out = dict(values)
    for members in groups.values():
        given = [n for n in members if n in values]
        if len(members) < 2 or not given:
            continue
        if len({id(values[n]) for n in given}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(members)}, "
                             "which are tied. Consider using tie_weights=False")
        for n in members:
            out[n] = values[given[0]]
    return out


class _Swapped:
    """Put tensors into a module's parameter/buffer slots; put the old ones back on exit."""

    def __init__(self, module, values):
        self.module, self.values, self.undo = module, values, []

    def __enter__(self):
        for name, value in self.values.items():
            mod, leaf = _owner(self.module, name)
            d = mod.__dict__
            for store in ("_parameters", "_buffers"):
                if leaf in d[store]:
                    self.undo.append((d[store], leaf, d[store][leaf]))
                    d[store][leaf] = value
                    break
            else:
                had = leaf in d
                self.undo.append((d, leaf, d[leaf] if had else _MISSING))
                d[leaf] = value

    def __exit__(self, *exc):
        for store, leaf, old in reversed(self.undo):
            if old is _MISSING:
                del store[leaf]
            else:
                store[leaf] = old


_MISSING = object()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module(*args, **kwargs)`` with its parameters and buffers replaced by the given
    tensors (by dotted name); the module itself is left unchanged.

    >>> import numtorch as torch
    >>> lin = torch.nn.Linear(1, 1)
    >>> p = {"weight": torch.ones(1, 1), "bias": torch.zeros(1)}
    >>> torch.func.functional_call(lin, p, (torch.tensor([[3.0]]),))
    tensor([[3.]])
    """
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        values = dict(dicts)
    else:
        values, repeated = {}, []
        for d in dicts:
            for k, v in d.items():
                if k in values and k not in repeated:
                    repeated.append(k)
                values[k] = v
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
    if tie_weights:
        values = _untie(module, values)
    if strict:
        _check_strict(module, values)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _Swapped(module, values):
        return module(*args, **(kwargs or {}))


def _check_strict(module, values):
    known = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
        {n for n, _ in module.named_buffers(remove_duplicate=False)}
    missing = sorted(known - set(values))
    unexpected = sorted(set(values) - known)
    if missing or unexpected:
        parts = []
        if unexpected:
            parts.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
        if missing:
            parts.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
        raise RuntimeError("Error(s) in reparametrizing for " + type(module).__name__ + ":\n\t"
                           + "\n\t".join(parts))


def stack_module_state(models):
    """``(params, buffers)``: each name maps to the stack of that tensor over ``models``.

    >>> import numtorch as torch
    >>> ms = [torch.nn.Linear(2, 1) for _ in range(3)]
    >>> params, _ = torch.func.stack_module_state(ms)
    >>> params["weight"].shape
    torch.Size([3, 1, 2])
    """
    from ..ops.shape import stack
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(named):
        out = {}
        for name, _ in named(models[0]):
            ts = [dict(named(m))[name] for m in models]
            t = stack([x.detach() for x in ts])
            out[name] = t.requires_grad_() if all(x.requires_grad for x in ts) else t
        return out
    return (stacked(lambda m: m.named_parameters()),
            stacked(lambda m: m.named_buffers()))


def _is_tensor(x):
    return isinstance(x, Tensor)
