"""Keyword arguments PyTorch's argument parser gives every native op: NumPy's names for
``dim`` and ``keepdim`` (``x.sum(axis=0, keepdims=True)``), and ``out=`` on ``torch.*``.

PyTorch accepts ``axis`` for ``dim`` and ``keepdims`` for ``keepdim`` in every op of its native
library (``torch.sum``, ``Tensor.max``, ``torch.cat``, ``softmax`` ...), but not in the ops
written in Python (``split``, ``norm``, ``unique``, ``Tensor.unflatten``,
``torch.nn.functional``). ``install`` gives the same spelling to numtorch's ``torch.*``
functions and Tensor methods that take ``dim`` or ``keepdim``, and ``out=`` to the ``torch.*``
functions whose own signature lacks it (the result is written into ``out``, a pair of
values and indices into a pair of tensors).

>>> import numtorch as torch
>>> torch.arange(6.).view(2, 3).sum(axis=1, keepdims=True)
tensor([[ 3.],
        [12.]])
"""
import functools
import inspect
import types

_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"))
# ops PyTorch writes in Python: their own signatures, no NumPy names
_PYTHON_OPS = frozenset(("split", "norm", "unique", "unique_consecutive", "stft", "istft",
                         "lu", "tensordot", "einsum"))


def _takes_dim(fn):
    """Whether ``fn`` (or the function it wraps) has a ``dim`` or ``keepdim`` parameter."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "dim" in params or "keepdim" in params


def rename(name, kwargs):
    """Turn NumPy's keyword names in ``kwargs`` into PyTorch's, in place."""
    for numpy_name, torch_name in _ALIASES:
        if numpy_name in kwargs:
            if torch_name in kwargs:  # both spellings: PyTorch rejects the NumPy one
                raise TypeError(f"{name}() got an unexpected keyword argument '{numpy_name}'")
            kwargs[torch_name] = kwargs.pop(numpy_name)


def with_numpy_names(fn, name):
    """``fn`` also accepting ``axis`` / ``keepdims`` (the dict check is all a call adds)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs:
            rename(name, kwargs)
        return fn(*args, **kwargs)
    return call


def _lacks_out(fn):
    """Whether ``fn`` has neither an ``out`` parameter nor ``**kwargs`` passing one on."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "out" not in params and \
        not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def write_result(out, result, name):
    """``result`` (a tensor, or a named pair of them) written into ``out``."""
    from ._util import write_out, write_out_pair
    from . import return_types
    if isinstance(result, tuple) and hasattr(return_types, type(result).__name__ + "_out"):
        return write_out_pair(out, result, type(result).__name__)
    if type(result).__name__ != "Tensor":
        raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
    return write_out(out, result)


def with_out(fn, name):
    """``fn`` also accepting ``out=`` (and the NumPy names where it takes ``dim``)."""
    aliases = _takes_dim(fn) and name not in _PYTHON_OPS

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs:
            if aliases:
                rename(name, kwargs)
            out = kwargs.pop("out", None)
            if out is not None:
                return write_result(out, fn(*args, **kwargs), name)
        return fn(*args, **kwargs)
    return call


def install(namespace, tensor_cls):
    """Wrap the ``torch.*`` functions in ``namespace`` and the methods of ``tensor_cls`` that
    take ``dim`` / ``keepdim`` or lack ``out``; run once, after every op is bound."""
    from .._tensor import Tensor  # noqa: F401  (write_result names results by type)
    for name, fn in list(namespace.items()):
        if name.startswith("_") or not isinstance(fn, types.FunctionType) or \
                not fn.__module__.startswith("numtorch.ops"):
            continue
        if _lacks_out(fn):
            namespace[name] = with_out(fn, name)
        elif _takes_dim(fn) and name not in _PYTHON_OPS:
            namespace[name] = with_numpy_names(fn, name)
    for name, fn in list(vars(tensor_cls).items()):
        if name.startswith("_") or name in _PYTHON_OPS or name == "unflatten":  # Python too
            continue
        if name == "size":  # a hot method that takes the NumPy names itself
            continue
        if isinstance(fn, types.FunctionType) and _takes_dim(fn):
            # a method made by ``_method`` is re-made around the op itself (no extra call)
            setattr(tensor_cls, name, with_numpy_names(getattr(fn, "__wrapped__", fn), name))
