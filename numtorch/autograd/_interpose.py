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
           "exit_func", "ceiling", "Unbatchable"]

_ids = itertools.count(1)


class Unbatchable(Exception):
    """Raised when a batched tensor's values are read outside an op; vmap then loops.

    (Defined here, not in ``numtorch.func``, so that the ops can catch it on their failure
    branch without importing the transforms.)"""


class _State:
    """Process-wide transform state (numtorch's transforms are not thread-local)."""

    def __init__(self):
        self.fw_levels = []       # active forward-AD level ids, innermost last
        self.fw_active = set()
        self.ceiling = math.inf   # tangents of levels >= ceiling are hidden
        self.vmap_levels = []     # active vmap levels: (id, batch size, randomness)
        self.func_depth = 0       # nesting depth of torch.func transforms
        self.diff_levels = []     # ids of the active grad/vjp/jvp transforms, innermost last
        self.passing = None       # (cls, args) of a custom call let through (extra_setups)
        self.pending = None       # (cls, level ids): setup_context calls due after its next


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


def enter_func(diff=False):
    """Enter a torch.func transform; ``diff`` for a grad/vjp/jvp one (see extra_setups)."""
    STATE.func_depth += 1
    if diff:
        STATE.diff_levels.append(new_level())
    _refresh()


def exit_func(diff=False):
    STATE.func_depth -= 1
    if diff:
        STATE.diff_levels.pop()
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
    if S.passing is not None and S.passing[0] is cls and S.passing[1] is args:
        S.passing = None  # extra_setups runs this call as usual
        return NotImplemented
    if S.func_depth and not cls._setup_ctx:
        raise RuntimeError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            "jacrev, ...), it must override the setup_context staticmethod. For more details, "
            "please see https://pytorch.org/docs/main/notes/extending.func.html")
    if S.diff_levels and not (cls._builtin or getattr(cls, "_internal", False)):
        return extra_setups(cls, args, kwargs)
    return _route(cls, args, kwargs)


def extra_setups(cls, args, kwargs):
    """Run a user Function under grad/vjp/jvp transforms, calling its ``setup_context`` once
    more per transform level, as PyTorch does.

    PyTorch applies, at each grad or jvp level, a generated single-level Function whose
    forward redispatches to the levels below, whose ``setup_context`` is the user's and whose
    jvp is the user's: the real ``apply`` at the bottom calls forward and setup_context with no
    transform active, then each level calls setup_context once more, before any jvp. A vmap
    level whose batched inputs go to the Function's own ``vmap`` staticmethod ends the descent
    there (the levels below see only that staticmethod's ops). numtorch differentiates through
    one graph, so the extra calls get a ctx of their own, which nothing reads afterwards; they
    are made by :func:`after_setup` right after the bottom call (or here, if there is none)."""
    from .function import _apply
    S = STATE
    levels = S.diff_levels
    below = []  # the levels still active under the call (in a vmap staticmethod's body)
    if S.vmap_levels and not cls.generate_vmap_rule and "vmap" in _user_names(cls):
        from ..func import _batching
        stop = _batching.top_level(args)
        if stop is not None:
            below = [lvl for lvl in levels if lvl < stop]
            levels = [lvl for lvl in levels if lvl > stop]
    prev_pending, prev_levels = S.pending, S.diff_levels
    S.pending = (cls, list(levels))
    S.diff_levels = below  # the bottom forward runs with all levels lowered: nested calls
    try:                   # in it see none
        out = _route(cls, args, kwargs)
        if out is NotImplemented:
            S.passing = (cls, args)
            try:
                out = _apply(cls, args, kwargs)
            finally:
                S.passing = None
        if S.pending is not None:  # what is left (levels inside a jvp; no bottom call)
            after_setup(cls, args, out, last=True)
    finally:
        S.pending, S.diff_levels = prev_pending, prev_levels
    return out


def after_setup(cls, args, out, last=False):
    """Called after a Function's ``setup_context`` while transforms are active: the extra
    calls :func:`extra_setups` asked for, if this is the call it is waiting for (``last``:
    all that are left)."""
    S = STATE
    pending = S.pending
    if pending is None or pending[0] is not cls:
        return
    # NOTE: inside a jvp (forward AD hides the tangents of levels >= its own) only the levels
    # outside it come before the Function's jvp; the rest wait for extra_setups' last call
    now = [lvl for lvl in pending[1] if last or lvl < S.ceiling]
    rest = [lvl for lvl in pending[1] if not last and lvl >= S.ceiling]
    S.pending = (cls, rest) if rest else None
    from .function import _new_ctx
    from .._tensor import Tensor
    for _ in now:
        ctx = _new_ctx(cls)
        ctx.needs_input_grad = tuple([isinstance(a, Tensor) and a.requires_grad for a in args])
        cls.setup_context(ctx, args, out)


def transform_kwargs(cls, args, kwargs):
    """``(args, kwargs)`` for a Function applied with keyword arguments under torch.func
    transforms (its keyword-only ones: a setup_context-style forward's others are bound by
    then), or None where the transforms do not change them. PyTorch hands them to the
    innermost transform's rule: a grad/jvp rule takes none (TypeError); a vmap rule refuses
    tensors and treats the rest as below."""
    S = STATE
    if not S.func_depth:
        return None
    if not cls._setup_ctx:
        return args, kwargs  # custom() raises PyTorch's error about setup_context first
    top_vmap = max((v[0] for v in S.vmap_levels), default=-1)
    if S.diff_levels and S.diff_levels[-1] > top_vmap:
        raise TypeError("custom_function_call_grad() got an unexpected keyword argument "
                        f"'{next(iter(kwargs))}'")
    if top_vmap < 0:
        return None
    from .._tensor import Tensor
    from ..func import _batching, _pytree
    if any(isinstance(v, Tensor) for v in _pytree.tree_flatten(kwargs)[0]):
        raise NotImplementedError(
            "Run vmap on autograd.Function with kwarg-only Tensor args. Please do not pass "
            f"kwarg-only Tensors to autograd.Function. Got: {kwargs}")
    # NOTE: what PyTorch 2.13 does: the generated rule drops them; a vmap staticmethod gets
    # them for batched inputs, and otherwise apply refuses them as outside transforms
    if not cls.generate_vmap_rule and "vmap" in _user_names(cls):
        return (args, kwargs) if _batching.top_level(args) == top_vmap else None
    return args, {}


def _user_names(cls):
    from .function import _user_names
    return _user_names(cls)


def _route(cls, args, kwargs):
    """Forward AD or batching for a custom Function call, else NotImplemented."""
    S = STATE
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
