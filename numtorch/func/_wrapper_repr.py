"""PyTorch's repr of a tensor inside torch.func transforms.

PyTorch wraps a tensor once per transform level it belongs to and prints every wrapper:
``BatchedTensor(lvl=..., bdim=..., value=...)`` for vmap, ``GradTrackingTensor(lvl=...,
value=...)`` for grad, vjp and jvp, the innermost transform outermost. numtorch has wrappers
for vmap only (``_batching.BatchedData``); a grad or vjp level is told by the autograd graph
(a tensor computed differentiably from the level's own input copies belongs to it), a jvp
level by the tangent the tensor carries at that level. Tensors a level produces without a
graph (an ``argmax``, a factory call) print unwrapped, where PyTorch still wraps them.

Each grad/vjp/jvp transform registers its level here while it runs (``register`` /
``forget``); printing costs nothing otherwise.
"""
import textwrap

from ..autograd import _interpose

__all__ = ["register", "forget", "active", "wrapper_repr"]

# diff level id -> ("grad", ({graph node of an input copy: its original}, {id of another
# argument})) or ("jvp", forward-AD level)
_LEVELS = {}


def register(kind, what):
    """Record what marks the tensors of the innermost diff level (see the module doc)."""
    levels = _interpose.STATE.diff_levels
    if levels:
        _LEVELS[levels[-1]] = (kind, what)


def forget(level):
    _LEVELS.pop(level, None)


def active():
    """Whether some registered transform level is running (printing must look at it)."""
    return bool(_LEVELS)


def _node(p):
    return p._grad_fn if p._grad_fn is not None else p._edge()[0]


def _reaches(p, own):
    """Whether the graph of plain tensor ``p`` reaches one of the nodes ``own``."""
    if not p._rg:
        return False
    stack, seen = [_node(p)], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        if node in own:
            return True
        seen.add(node)
        stack.extend(child for child, _ in node.next_functions)
    return False


def _grad_levels(t):
    """The registered diff levels tensor ``t`` belongs to."""
    from ._batching import unwrap_all
    from ..autograd import _tangents
    p = unwrap_all(t)[0]
    found = []
    for lvl, (kind, what) in _LEVELS.items():
        if kind == "jvp":
            if what in _tangents.visible_tangents(t):
                found.append(lvl)
        elif id(t) in what[1] or _reaches(p, what[0]):
            found.append(lvl)
    return found


def _shown_number(level):
    """PyTorch's ``lvl``: the transforms active up to ``level``, counted from the outermost."""
    S = _interpose.STATE
    return sum(1 for v in S.vmap_levels if v[0] <= level) + \
        sum(1 for v in S.diff_levels if v <= level)


def _own_nodes():
    """{graph node of an input copy: the tensor it copies} over the registered grad levels."""
    own = {}
    for kind, what in _LEVELS.values():
        if kind == "grad":
            own.update(what[0])
    return own


def _reaches_outside(p, own):
    """Whether plain ``p``'s graph reaches a leaf that is no transform's input copy (through
    the copies of tensors that require grad outside)."""
    return reaches_leaf([_node(p)], lambda node: node in own and not own[node]._rg)


def reaches_leaf(starts, stop):
    """Whether the graph below the nodes ``starts`` reaches an AccumulateGrad, not walking
    past a node ``stop(node)`` is true for."""
    from ..autograd.graph import AccumulateGrad
    stack, seen = list(starts), set()
    while stack:
        node = stack.pop()
        if node is None or node in seen or stop(node):
            continue
        seen.add(node)
        if type(node) is AccumulateGrad:
            return True
        stack.extend(child for child, _ in node.next_functions)
    return False


def _innermost(t):
    """The value under every wrapper, as PyTorch shows it: with the autograd state it has
    outside every transform (an input copy shows its original; no suffix where the
    transforms' own graph is all it has)."""
    from .._tensor import Tensor
    from .._tensor_str import plain_tensor_repr
    from ._batching import unwrap_all
    own = _own_nodes()
    while t._rg and _node(t) in own:   # an input copy (of a copy ...): its original
        t = unwrap_all(own[_node(t)])[0]
    from ..nn.parameter import Parameter
    if isinstance(t, Parameter):   # an nn.Parameter given as the input
        return "Parameter containing:\n" + plain_tensor_repr(t)
    if t._rg and _reaches_outside(t, own):   # (tangents are never shown here)
        return plain_tensor_repr(Tensor._make(t._data, t._grad_fn, t._rg))
    return plain_tensor_repr(Tensor._make(t._data, None, False))


def wrapper_repr(t):
    """The repr of ``t`` with a wrapper per transform level it belongs to; None where it
    belongs to none (it prints as usual)."""
    from ._batching import BatchedData
    vmap_levels = []
    d = t._data
    while type(d) is BatchedData:
        vmap_levels.append(d.level)
        d = d.tensor._data
    levels = sorted([(lvl, "vmap") for lvl in vmap_levels] +
                    [(lvl, "grad") for lvl in _grad_levels(t)], reverse=True)
    return _nested(t, levels) if levels else None


def _nested(t, levels):
    if not levels:
        return _innermost(t)
    (level, kind), rest = levels[0], levels[1:]
    if kind == "vmap":
        d = t._data
        value = d.tensor.movedim(0, d.bdim) if d.bdim else d.tensor
        head = f"BatchedTensor(lvl={_shown_number(level)}, bdim={d.bdim}, value=\n"
    else:
        value = t
        head = f"GradTrackingTensor(lvl={_shown_number(level)}, value=\n"
    return head + textwrap.indent(_nested(value, rest), " " * 4) + "\n)"
