"""The one interposition point of forward AD, ``vmap`` and ``torch.func`` on op application.

``BuiltinFunction.apply`` and ``Function.apply`` each test one module global (``_interpose``);
it is ``None`` unless a dual level, a vmap level or a ``torch.func`` transform is active, so
ordinary code pays a single global lookup per op. When set, it points at :func:`builtin` or
:func:`custom` here, which hand the call to forward AD (``_tangents``) when an argument carries
a visible tangent, else to the batching rules (``numtorch.func._batching``) when an argument is
batched, and otherwise answer ``NotImplemented`` so that the op runs as usual.

Levels: forward-AD levels and vmap levels draw ids from one counter, so a larger id is always
an inner (later entered) level. Tangents of the level being computed are hidden by a *ceiling*:
while the tangents of level ``L`` are computed, tangents at levels ``>= L`` are invisible, which
keeps the primal and tangent computations at level ``L`` free of perturbation confusion.
"""
import itertools
import math

__all__ = ["STATE", "new_level", "push_fw", "pop_fw", "push_vmap", "pop_vmap", "enter_func",
           "exit_func", "ceiling"]

_ids = itertools.count(1)


class _State:
    """Process-wide transform state (numtorch's transforms are not thread-local)."""

    def __init__(self):
        self.fw_levels = []       # active forward-AD level ids, innermost last
        self.fw_active = set()
        self.ceiling = math.inf   # tangents of levels >= ceiling are hidden
        self.vmap_levels = []     # active vmap levels: (id, batch size, randomness)
        self.func_depth = 0       # nesting depth of torch.func transforms


STATE = _State()


def new_level():
    return next(_ids)


def _refresh():
    """Install the hooks exactly while some transform needs to see op applications."""
    from ..ops import _base
    from . import function
    S = STATE
    on = bool(S.fw_levels or S.vmap_levels)
    _base._interpose = builtin if on else None
    function._interpose = custom if (on or S.func_depth) else None


def push_fw():
    lvl = new_level()
    STATE.fw_levels.append(lvl)
    STATE.fw_active.add(lvl)
    _refresh()
    return lvl


def pop_fw(lvl):
    STATE.fw_levels.remove(lvl)
    STATE.fw_active.discard(lvl)
    _refresh()


def push_vmap(size, randomness):
    lvl = new_level()
    STATE.vmap_levels.append((lvl, size, randomness))
    _refresh()
    return lvl


def pop_vmap(lvl):
    STATE.vmap_levels = [v for v in STATE.vmap_levels if v[0] != lvl]
    _refresh()


def enter_func():
    STATE.func_depth += 1
    _refresh()


def exit_func():
    STATE.func_depth -= 1
    _refresh()


class ceiling:
    """Hide the tangents of levels ``>= level`` inside the block."""

    __slots__ = ("level", "prev")

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        self.prev = STATE.ceiling
        STATE.ceiling = min(self.prev, self.level)

    def __exit__(self, *exc):
        STATE.ceiling = self.prev


def top_tangent_level(args):
    """The innermost visible forward-AD level among the tangents of ``args`` (or None)."""
    from .._tensor import Tensor
    S = STATE
    best = None
    for a in args:
        if isinstance(a, Tensor):
            ex = a._extra
            if ex is not None:
                fw = ex.get("fw")
                if fw:
                    for lvl in fw:
                        if lvl < S.ceiling and lvl in S.fw_active and (best is None or
                                                                       lvl > best):
                            best = lvl
    return best


def builtin(cls, args):
    """The hook of ``BuiltinFunction.apply``: forward AD first, then batching, else run as is."""
    if STATE.fw_levels:
        lvl = top_tangent_level(args)
        if lvl is not None:
            from . import _tangents
            return _tangents.apply_builtin(cls, args, lvl)
    if STATE.vmap_levels:
        from ..func import _batching
        lvl = _batching.top_level(args)
        if lvl is not None:
            return _batching.apply_builtin(cls, args, lvl)
    return NotImplemented


def custom(cls, args, kwargs):
    """The hook of ``Function.apply`` for user Functions."""
    S = STATE
    if S.func_depth and not cls._setup_ctx:
        raise RuntimeError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            "jacrev, ...), it must override the setup_context staticmethod. For more details, "
            "please see https://pytorch.org/docs/main/notes/extending.func.html")
    # batching first here: the Function's node must be recorded on the physical tensors, and
    # the batched path then computes the tangents itself (with the user's jvp)
    if S.vmap_levels:
        from ..func import _batching
        lvl = _batching.top_level(args)
        if lvl is not None:
            return _batching.apply_custom(cls, args, kwargs, lvl)
    if S.fw_levels:
        lvl = top_tangent_level(args)
        if lvl is not None:
            from . import _tangents
            if S.vmap_levels:  # a batched tangent (jacfwd) batches the Function in PyTorch
                from ..func import _batching, _custom_vmap
                if _batching.top_level([_tangents._tangent_or_zeros(a, lvl) for a in args]) \
                        is not None:
                    _custom_vmap.require_vmap_rule(cls)
            return _tangents.apply_custom(cls, args, kwargs, lvl)
    return NotImplemented
