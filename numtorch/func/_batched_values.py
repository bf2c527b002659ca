"""Batched paths of the ops that are not Functions (comparisons, logical and bitwise ops,
``isnan`` & co., ``any``/``all``, ``argmax``/``argmin``).

Those ops compute on ``_data`` directly, so a batched argument makes them raise
:class:`~numtorch.autograd._interpose.Unbatchable`. They catch it (a failure branch, free on
their plain path) and call in here, which runs them once on the physical tensors and wraps the
result at the vmap level. A comparison inside ``vmap`` so gives a batched bool tensor, and
``bool()`` or ``if`` on it raises PyTorch's data-dependent control flow error instead of the
function quietly running once per sample.
"""
from .._tensor import Tensor
from ..autograd._interpose import Unbatchable
from ._batching import top_level, physical, wrap, batch_size

__all__ = ["elementwise", "reduction", "per_sample", "dynamic_shape", "DYNAMIC_SHAPE"]

DYNAMIC_SHAPE = ("vmap: We do not support batching operators that can output dynamic shape. "
                 "Attempted to vmap over aten::{}. Please file an issue at "
                 "https://github.com/pytorch/pytorch/issues if you need this feature.")


def _level(args):
    level = top_level(args)
    if level is None:   # not a batched argument of this call: the caller re-raises
        raise Unbatchable("no batched argument")
    return level


def elementwise(fn, args, **kwargs):
    """``fn(*args, **kwargs)`` for an elementwise op with batched tensor arguments: one call
    on the physical tensors, batched ones given size-1 dims after the batch dim so that they
    broadcast as the samples do."""
    from ._batch_rules import _align, _fix_promotion
    level = _level(args)
    args = _fix_promotion(list(args), range(len(args)), level)
    return wrap(fn(*_align(args, level), **kwargs), level)


def reduction(fn, input, dim, keepdim, **kwargs):
    """``fn(input, dim, keepdim)`` (any, all, argmax, argmin) on a batched ``input``."""
    level = _level((input,))
    p = physical(input, level)
    if p is None:
        raise Unbatchable("a reduction of an unbatched tensor")
    if dim is None:
        if keepdim and fn.__name__ not in ("argmax", "argmin"):
            # (the kept dims are the sample's: rare, run per sample)
            return per_sample(lambda x: fn(x, dim, keepdim, **kwargs), (input,))
        # NOTE: as PyTorch's rule, argmax/argmin with keepdim and no dim reduce the flattened
        # sample and keep one dim: shape (1,) per sample, not (1,) * ndim
        flat = p.reshape((p.shape[0], input.numel()))
        return wrap(fn(flat, 1, keepdim, **kwargs), level)
    if input.dim() == 0:   # dim 0 / -1 names the sample itself, not a physical dim
        return per_sample(lambda x: fn(x, dim, keepdim, **kwargs), (input,))
    n = input.dim()

    def shift(d):
        return (d + n if d < 0 else d) + 1 if -n <= d < n else d   # (out of range: its error)
    dims = tuple(shift(int(d)) for d in dim) if isinstance(dim, (tuple, list)) else \
        shift(int(dim))
    return wrap(fn(p, dims, keepdim, **kwargs), level)


def per_sample(fn, args):
    """``fn(*args)`` once per sample of the innermost batched level, results stacked."""
    from ..ops.shape import stack
    level = _level(args)
    outs = []
    for b in range(batch_size(level)):
        sample = []
        for a in args:
            p = physical(a, level) if isinstance(a, Tensor) else None
            sample.append(a if p is None else p.select(0, b))
        outs.append(fn(*sample))
    if not outs:
        raise Unbatchable("an empty batch")
    return wrap(stack(outs), level)


def dynamic_shape(op):
    """PyTorch's error for an op whose per-sample results would differ in shape."""
    return RuntimeError(DYNAMIC_SHAPE.format(op))
