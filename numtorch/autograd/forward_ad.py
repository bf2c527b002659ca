"""Forward-mode automatic differentiation (``torch.autograd.forward_ad``).

Inside a ``dual_level``, :func:`make_dual` attaches a tangent to a tensor; every op then
computes the tangent of its result (a Jacobian-vector product) alongside the value, and
:func:`unpack_dual` reads it back. As in PyTorch, only one public level can be active at a time
(``torch.func.jvp`` nests its own levels); the tangents of a level vanish when it is exited.

>>> import numtorch as torch
>>> import numtorch.autograd.forward_ad as fwAD
>>> with fwAD.dual_level():
...     x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))
...     fwAD.unpack_dual(x * x).tangent
tensor([2., 0.])
"""
from typing import NamedTuple

from .._tensor import Tensor
from . import _interpose, _tangents
from .grad_mode import _DecoratorContextManager

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

_public = []  # internal ids of the levels entered through this API (at most one)


def _current():
    return len(_public) - 1


def enter_dual_level():
    """Enter a new forward grad level and return its index (always 0: levels don't nest)."""
    if _public:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _public.append(_interpose.push_fw())
    return _current()


def exit_dual_level(*, level=None):
    """Exit the current forward grad level; its tangents are dropped."""
    if level is None:
        level = _current()
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _current():
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    _interpose.pop_fw(_public.pop())


def _level_id(level):
    if level is None:
        level = _current()
    if level < 0 or level >= len(_public):
        return None
    return _public[level]


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` carrying ``tangent`` as its forward gradient.

    Args:
        tensor: the primal (floating point or complex).
        tangent: a tensor of the same shape (kept as is, not copied).
        level: the dual level (default: the current one).

    Returns:
        The dual tensor.

    >>> import numtorch as torch
    >>> import numtorch.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     fwAD.make_dual(torch.ones(2), torch.zeros(2))
    tensor([1., 1.], tangent=tensor([0., 0.]))
    """
    if level is None:
        level = _current()
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if level != 0:   # PyTorch has only level 0
        raise RuntimeError("Invalid level given to _make_dual")
    lvl = _level_id(level)
    if lvl is None:
        raise RuntimeError("Trying to access a forward AD level with an invalid index. This "
                           "index was either not created or is already deleted.")
    return make_dual_at(tensor, tangent, lvl, level)


def make_dual_at(tensor, tangent, lvl, shown_level=0):
    """``make_dual`` at internal level id ``lvl`` (also used by ``torch.func.jvp``)."""
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if tangent.shape != tensor.shape:
        raise _tangents.size_error(tensor.shape, tangent.shape)
    if _tangents.get_tangent(tensor, lvl) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {shown_level} is not supported.")
    with _interpose.ceiling(lvl):
        out = tensor.view_as(tensor)
    _tangents.set_tangent(out, lvl, tangent)
    return out


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: the primal (a view) and the tangent (or None)."""

    primal: Tensor
    tangent: "Tensor | None"


def unpack_dual(tensor, *, level=None):
    """Split a dual tensor into ``(primal, tangent)``; the tangent is None if there is none.

    >>> import numtorch as torch
    >>> import numtorch.autograd.forward_ad as fwAD
    >>> fwAD.unpack_dual(torch.ones(1))
    UnpackedDualTensor(primal=tensor([1.]), tangent=None)
    """
    lvl = _level_id(level)
    # NOTE: a custom Function's forward and jvp run with forward grad off: no tangent there
    if lvl is None or lvl >= _interpose.STATE.ceiling:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(*unpack_at(tensor, lvl))


_VIEWS = {}


def _view_op(node_name):
    """A whole-tensor view op whose node PyTorch names ``node_name``: ``unpack_dual``'s primal
    is an ``<Identity>`` view, ``torch.func.jvp``'s an ``<AliasBackward0>`` one."""
    cls = _VIEWS.get(node_name)
    if cls is None:
        from ..ops.shape import View
        cls = _VIEWS[node_name] = type(f"_{node_name}View", (View,),
                                       {"_backward_name": node_name, "__module__": __name__})
    return cls


def unpack_at(tensor, lvl, node_name="Identity"):
    """``(primal view without level lvl's tangent, tangent)`` at internal level id ``lvl``."""
    with _interpose.ceiling(lvl):
        primal = _view_op(node_name).apply(tensor, tuple(tensor.shape))
    return primal, _tangents.get_tangent(tensor, lvl)


class dual_level(_DecoratorContextManager):
    """Context manager in which forward AD computations happen (see the module docstring)."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def _is_fwd_grad_enabled():
    return True


def tangent_suffix(t):
    """The ``tangent=...`` suffix PyTorch prints for a dual tensor at the public level."""
    lvl = _level_id(None)
    if lvl is None or lvl >= _interpose.STATE.ceiling:  # hidden (see unpack_dual)
        return []
    tan = _tangents.get_tangent(t, lvl)
    return [] if tan is None else [f"tangent={tan}"]

from .._naming import use_torch_names  # noqa: E402

use_torch_names(globals())  # dual_level prints as torch.autograd.forward_ad.dual_level
