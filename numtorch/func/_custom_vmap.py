"""Custom autograd Functions under ``vmap``: the ``vmap`` staticmethod or the generated rule.

The user's Function runs on batched (logical) tensors, wrapped in one internal Function on the
physical tensors so that autograd records a node there: its backward (and jvp) wraps the
incoming physical gradients back into batched tensors, runs the user's ``backward`` (or ``jvp``)
batched, and returns physical gradients; an unbatched input gets the sum over the batch.
"""
from typing import NamedTuple

from .._tensor import Tensor
from ..autograd import _interpose
from ..autograd.function import Function, _user_names
from ._batching import physical, wrap, batch_size

__all__ = ["apply", "VmapInfo"]


class VmapInfo(NamedTuple):
    """What a Function's ``vmap`` staticmethod receives as ``info``."""

    batch_size: int
    randomness: str


def _has_vmap(cls):
    return "vmap" in _user_names(cls)


def apply(cls, args, kwargs, level):
    """Apply user Function ``cls`` to ``args`` batched at ``level`` (with tangents, if any
    argument carries one: the user's ``jvp`` runs batched on the wrappers)."""
    from ..autograd import _tangents
    fw = _interpose.top_tangent_level(args) if _interpose.STATE.fw_levels else None
    if fw is None:
        return _apply_batched(cls, args, kwargs, level)
    with _interpose.ceiling(fw):
        out = apply(cls, args, kwargs, level)
        ctx = _LAST_CTX[0]
        tangents = [_tangents._tangent_or_zeros(a, fw) for a in args]
        t_out = _tangents.call_jvp(cls, ctx, tangents)
        n_out = len(out) if isinstance(out, tuple) else 1
        t_outs = t_out if isinstance(t_out, tuple) else (t_out,)
        if len(t_outs) != n_out:
            raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                               f"(expected {n_out} but got {len(t_outs)})")
    _tangents.attach(out, t_outs if isinstance(out, tuple) else t_outs[0], fw)
    return out


def require_vmap_rule(cls):
    """PyTorch's errors for vmap over a Function with no vmap rule, or two of them."""
    gen, own = bool(cls.generate_vmap_rule), _has_vmap(cls)
    if gen and own:
        err = RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True "
            "and an overridden vmap staticmethod. Please set generate_vmap_rule=False or delete "
            "the overridden vmap staticmethod to avoid ambiguity. For more details, please see "
            "https://pytorch.org/docs/main/notes/extending.func.html")
    elif not (gen or own):
        err = RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
            "override and implement the vmap staticmethod or set generate_vmap_rule=True. For "
            "more details, please see https://pytorch.org/docs/main/notes/extending.func.html")
    else:
        return
    err.user_vmap_error = True  # jacfwd and the like re-raise it rather than loop
    raise err


def _apply_batched(cls, args, kwargs, level):
    require_vmap_rule(cls)
    phys = []
    flags = []   # per argument: None if unbatched, else its batch dim (see _user_vmap)
    for a in args:
        p = physical(a, level) if isinstance(a, Tensor) else None
        phys.append(a if p is None else p)
        flags.append(None if p is None else a._data.bdim)
    if _has_vmap(cls) and not _interpose.STATE.fw_levels and not _grad_levels_above(cls):
        return _apply_vmap_rule(cls, level, kwargs, flags, phys)
    out = VmappedFunction.apply(cls, level, kwargs, tuple(flags), *phys)
    outs = out if isinstance(out, tuple) else (out,)
    wrapped = tuple(wrap(o, level) if isinstance(o, Tensor) else o for o in outs)
    return wrapped if _LAST_TUPLE[0] else wrapped[0]


def _grad_levels_above(cls):
    """Whether grad/vjp transforms inside this vmap see the call (they then differentiate the
    Function with its backward, batched: see _interpose.extra_setups). The node's own
    setup_context call stands for one of their extra calls."""
    pending = _interpose.STATE.pending
    if pending is None or pending[0] is not cls or not pending[1]:
        return False
    _interpose.STATE.pending = (cls, pending[1][:-1]) if len(pending[1]) > 1 else None
    return True


def _user_vmap(cls, level, kwargs, flags, phys):
    """Run the Function's ``vmap`` staticmethod on the physical tensors (batch dim 0 where
    ``flags`` holds a batch dim): its outputs as a tuple, one out_dim per output, and whether
    it returned a tuple. An input that vmap was given with another in_dim reaches the
    staticmethod with its batch dim there, as PyTorch passes it."""
    info = VmapInfo(batch_size(level), _randomness(level))
    in_dims = tuple(flags)
    phys = [p.movedim(0, d) if d else p for p, d in zip(phys, flags)]
    out, out_dims = _check_vmap_result(cls.vmap(info, in_dims, *phys, **kwargs))
    is_tuple = isinstance(out, tuple)
    return (out if is_tuple else (out,)), _flat_out_dims(out, out_dims), is_tuple


def _apply_vmap_rule(cls, level, kwargs, flags, phys):
    """The Function's ``vmap`` staticmethod on the physical tensors, as PyTorch runs it when no
    transform inside the vmap differentiates the call: no node, no setup_context; autograd
    records the staticmethod's own ops (so its backward is theirs)."""
    outs, dims, is_tuple = _user_vmap(cls, level, kwargs, flags, phys)
    res = tuple(o if not isinstance(o, Tensor) or d is None else
                wrap(o.movedim(d, 0) if d != 0 else o, level) for o, d in zip(outs, dims))
    return res if is_tuple else res[0]


_STASH = []           # the user ctx, from forward to setup_context
_LAST_TUPLE = [False]
_LAST_CTX = [None]    # the user ctx of the latest call (its jvp needs it)


class reentered:
    """Make vmap ``level`` active again (a backward may run after vmap returned)."""

    def __init__(self, level, size, randomness="error"):
        self.level, self.size, self.randomness = level, size, randomness
        self.pushed = False

    def __enter__(self):
        if not any(v[0] == self.level for v in _interpose.STATE.vmap_levels):
            _interpose.STATE.vmap_levels.append((self.level, self.size, self.randomness))
            _interpose.STATE.vmap_levels.sort()
            _interpose._refresh()
            self.pushed = True

    def __exit__(self, *exc):
        if self.pushed:
            _interpose.pop_vmap(self.level)


def _unwrap_out(o, level, size):
    """A user output as a physical tensor with the batch at dim 0."""
    if not isinstance(o, Tensor):
        return o
    p = physical(o, level)
    if p is not None:
        return p
    return o.unsqueeze(0).expand((size,) + tuple(o.shape))


def _move_out(o, d, size):
    if not isinstance(o, Tensor):
        return o
    if d is None:
        return o.unsqueeze(0).expand((size,) + tuple(o.shape))
    return o.movedim(d, 0) if d != 0 else o


def _check_vmap_result(result):
    """PyTorch's checks of what a ``vmap`` staticmethod returned: ``(output, out_dims)``."""
    msg = ("Expected the vmap staticmethod to have two returns, an output and out_dims with "
           "pytree structure compatible with the output. ")
    if not isinstance(result, tuple):
        raise RuntimeError(msg + f"Got a {type(result)} instead")
    if len(result) != 2:
        raise RuntimeError(msg + f"Got {len(result)} returns instead")
    return result


def _flat_out_dims(out, out_dims):
    """``out_dims`` broadcast to one entry per output (a prefix of the outputs' structure)."""
    from . import _pytree
    spec = _pytree.tree_flatten(out)[1]
    try:
        return _pytree.broadcast_prefix(out_dims, spec, "")
    except ValueError:
        raise RuntimeError(
            "The autograd.Function's vmap staticmethod returned an incompatible (output, "
            f"out_dims) tuple. Expected out_dims={out_dims} to be compatible with the "
            f"structure of `output`. out_dims has structure {_pytree.tree_flatten(out_dims)[1]}"
            f" but output has structure {spec}. For more details, please see "
            "https://pytorch.org/docs/main/notes/extending.func.html") from None


class VmappedFunction(Function):
    """The node a user Function leaves in the graph when applied under vmap."""

    _internal = True  # not a user Function: no extra setup_context calls (see _interpose)

    @staticmethod
    def forward(user_cls, level, kwargs, flags, *phys):
        from ..autograd._tangents import run_custom
        size = batch_size(level)
        wrapped = tuple(p if f is None else wrap(p, level) for p, f in zip(phys, flags))
        if _has_vmap(user_cls):
            outs, dims, is_tuple = _user_vmap(user_cls, level, kwargs, flags, phys)
            outs_w = tuple(wrap(_move_out(o, d, size), level) if isinstance(o, Tensor) else o
                           for o, d in zip(outs, dims))
            from ..autograd.function import _new_ctx
            ctx = _new_ctx(user_cls)
            user_cls.setup_context(ctx, wrapped, outs_w if is_tuple else outs_w[0])
        else:
            ctx, out = run_custom(user_cls, wrapped, kwargs)
            is_tuple = isinstance(out, tuple)
            outs_w = out if is_tuple else (out,)
        _STASH.append((ctx, size))
        _LAST_TUPLE[0] = is_tuple
        _LAST_CTX[0] = ctx
        res = tuple(_unwrap_out(o, level, size) for o in outs_w)
        return res if is_tuple else res[0]

    @staticmethod
    def setup_context(ctx, inputs, output):
        user_ctx, size = _STASH.pop()
        ctx.user_cls, ctx.level, ctx.flags = inputs[0], inputs[1], inputs[3]
        ctx.user_ctx, ctx.size = user_ctx, size
        if user_ctx.to_save:
            user_ctx._saved = tuple(None if t is None else (0, t, t._vc[0])
                                    for t in user_ctx.to_save)
            user_ctx.to_save = None

    @staticmethod
    def backward(ctx, *grads):
        user_ctx = ctx.user_ctx
        user_ctx.needs_input_grad = tuple(ctx.needs_input_grad[4:])
        with reentered(ctx.level, ctx.size):
            gw = [None if g is None else wrap(g, ctx.level) for g in grads]
            res = ctx.user_cls.backward(user_ctx, *gw)
            res = res if isinstance(res, tuple) else (res,)
            out = [_to_input(r, f is not None, ctx.level) for r, f in zip(res, ctx.flags)]
        return (None, None, None, None) + tuple(out)

    @staticmethod
    def jvp(ctx, *tangents):
        from ..autograd._tangents import call_jvp
        with reentered(ctx.level, ctx.size):
            tw = [None if t is None else (t if f is None else wrap(t, ctx.level))
                  for t, f in zip(tangents[4:], ctx.flags)]
            res = call_jvp(ctx.user_cls, ctx.user_ctx, tw)
            res = res if isinstance(res, tuple) else (res,)
            out = tuple(_unwrap_out(r, ctx.level, ctx.size) if r is not None else None
                        for r in res)
        return out if len(out) > 1 else out[0]


def _to_input(r, batched, level):
    """A gradient from the batched backward, as the gradient of the physical input."""
    if r is None or not isinstance(r, Tensor):
        return r
    p = physical(r, level)
    if batched:
        return p if p is not None else r.unsqueeze(0)
    return p.sum(0) if p is not None else r


def _randomness(level):
    for lvl, _, rnd in _interpose.STATE.vmap_levels:
        if lvl == level:
            return rnd
    return "error"
