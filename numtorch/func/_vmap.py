"""``torch.func.vmap``: run a function over a batch dimension.

The function runs once on batched tensors (see ``_batching``), so ops with a batching rule
process the whole batch in one NumPy call. When the function reads a batched tensor's values in
a way no rule covers (``.item()``, printing, NumPy on ``.numpy()``, in-place writes ...), or
draws random numbers with ``randomness='different'``, it is run once per sample instead and the
results are stacked; the answer is the same, only slower.
"""
import functools

from .._tensor import Tensor
from ..autograd import _interpose
from . import _pytree
from ._batching import Unbatchable, wrap, physical

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")
# why whole functions fell back to the per-sample loop (reason -> count), for tests and tuning
STATS = {}


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorise ``func`` over dim ``in_dims`` of its inputs.

    Args:
        func: a function of tensors (nested tuples, lists and dicts allowed).
        in_dims: the batched dim of each input (an int for all, None for unbatched, or a
            structure matching the inputs).
        out_dims: where the batch dim goes in each output.
        randomness: 'error' (random ops raise), 'same' (one draw for the whole batch) or
            'different' (one draw per sample).
        chunk_size: process the batch in chunks of this many samples.

    Returns:
        The vectorised function.

    >>> import numtorch as torch
    >>> torch.func.vmap(torch.dot)(torch.ones(2, 3), torch.ones(2, 3))
    tensor([3., 3.])
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
    return wrapped


def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _flat_in_dims(func, in_dims, args):
    flat, spec = _pytree.tree_flatten(args)
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected "
                         "`in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to "
                         "add inputs, or you are trying to vmap over a function with no "
                         "inputs. The latter is unsupported.")
    what = (f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible "
            "with the structure of `inputs`. in_dims has structure "
            f"{_pytree.tree_flatten(in_dims)[1]} but inputs has structure {spec}.")
    dims = _pytree.broadcast_prefix(in_dims if isinstance(in_dims, tuple) else in_dims,
                                    spec, what)
    return flat, spec, dims


def _batch_size(func, in_dims, flat, dims):
    sizes = []
    for x, d in zip(flat, dims):
        if d is None:
            continue
        if not isinstance(d, int):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got "
                             f"in_dim={d} for an input but in_dim must be either an integer "
                             "dimension or None.")
        if not isinstance(x, Tensor):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got "
                             f"in_dim={d} for an input but the input is of type {type(x)}. "
                             "We cannot vmap over non-Tensor arguments, please use None as "
                             "the respective in_dim")
        n = x.dim()
        if not -n <= d < n:
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got "
                             f"in_dim={d} for some input, but that input is a Tensor of "
                             f"dimensionality {n} so expected in_dim to satisfy -{n} <= "
                             f"in_dim < {n}.")
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) != 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _check_out_dims(func, out_dims):
    """PyTorch's check, before anything runs, that ``out_dims`` is an int, None or a
    structure of those."""
    if isinstance(out_dims, int):
        return
    for d in _pytree.tree_flatten(out_dims)[0]:
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must "
                             "be an int, None or a python collection of ints representing "
                             "where in the outputs the vmapped dimension should appear.")


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    _check_out_dims(func, out_dims)
    flat, spec, dims = _flat_in_dims(func, in_dims, args)
    size = _batch_size(func, in_dims, flat, dims)
    if chunk_size is not None and chunk_size < size:
        return _chunked(func, flat, spec, dims, size, out_dims, randomness, chunk_size, kwargs)
    return _run(func, flat, spec, dims, size, out_dims, randomness, kwargs)


def _chunked(func, flat, spec, dims, size, out_dims, randomness, chunk, kwargs):
    from ..ops.shape import cat
    parts = []
    # NOTE: under randomness='same' every chunk replays the first chunk's draws, as PyTorch
    # restores the generator before each one
    before = _rng_state() if randomness == "same" else None
    for start in range(0, size, chunk):
        if start and before is not None:
            _restore_rng(before)
        n = min(chunk, size - start)
        sub = [x.narrow(d, start, n) if d is not None else x for x, d in zip(flat, dims)]
        parts.append(_run(func, sub, spec, dims, n, out_dims, randomness, kwargs))
    leaves0, ospec = _pytree.tree_flatten(parts[0])
    odims = _out_dims(func, out_dims, ospec)
    cols = [_pytree.tree_flatten(p)[0] for p in parts]
    joined = [cat([c[i] for c in cols], d) if d is not None else leaves0[i]
              for i, d in enumerate(odims)]
    return _pytree.tree_unflatten(joined, ospec)


def _rng_state():
    """A snapshot of the default generator (cheap: NumPy's state dict and the caches)."""
    from .._random import default_generator as g
    return (g._bitgen.state, g._normal_double, g._normal_float, g._next_at_end)


def _same_rng(a, b):
    return a[0]["state"]["pos"] == b[0]["state"]["pos"] and a[1:] == b[1:] and \
        (a[0]["state"]["key"] == b[0]["state"]["key"]).all()


def _restore_rng(snap):
    from .._random import default_generator as g
    g._bitgen.state = snap[0]
    g._normal_double, g._normal_float, g._next_at_end = snap[1:]


def _run(func, flat, spec, dims, size, out_dims, randomness, kwargs):
    """One batched call of ``func``; a per-sample loop when that cannot be done."""
    before = _rng_state()
    level = _interpose.push_vmap(size, randomness)
    _interpose.enter_func()
    try:
        batched = [wrap(x.movedim(d, 0) if d != 0 else x, level) if d is not None else x
                   for x, d in zip(flat, dims)]
        for b, d in zip(batched, dims):
            if d:   # printing shows an input's own layout and in_dim, as PyTorch
                b._data.bdim = d % (b.dim() + 1)
        out = func(*_pytree.tree_unflatten(batched, spec), **kwargs)
        if randomness != "same" and not _same_rng(_rng_state(), before):
            if randomness == "error":   # PyTorch raises at the first draw: none happened
                _restore_rng(before)
                raise _randomness_error()
            raise Unbatchable("random draws differ per sample")
        return _unwrap_outputs(func, out, out_dims, level, size)
    except Exception as e:  # noqa: BLE001 - only batching failures are caught
        # NOTE: ops that compute on ``_data`` directly (comparisons, bitwise ...) fail with
        # Unbatchable, or with a TypeError naming BatchedData where they took it for a scalar
        if not (isinstance(e, Unbatchable) or "BatchedData" in str(e)):
            raise
        STATS[str(e)] = STATS.get(str(e), 0) + 1
    finally:
        _interpose.exit_func()
        _interpose.pop_vmap(level)
    _restore_rng(before)   # the loop redraws what the failed batched attempt drew
    return _loop(func, flat, spec, dims, size, out_dims, kwargs, randomness)


def _out_dims(func, out_dims, ospec):
    what = (f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
            f"compatible with the structure of `outputs`. out_dims has structure "
            f"{_pytree.tree_flatten(out_dims)[1]} but outputs has structure {ospec}.")
    return _pytree.broadcast_prefix(out_dims, ospec, what)


def _check_leaf(func, o, d):
    if d is not None and not isinstance(o, Tensor):
        raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                         f"Tensors, got type {type(o)}. Did you mean to set out_dims= to None "
                         "for output?")


def _unwrap_outputs(func, out, out_dims, level, size):
    leaves, ospec = _pytree.tree_flatten(out)
    odims = _out_dims(func, out_dims, ospec)
    res = []
    for o, d in zip(leaves, odims):
        _check_leaf(func, o, d)
        res.append(o if d is None else _unwrap_one(o, level, size, d))
    return _pytree.tree_unflatten(res, ospec)


def _unwrap_one(o, level, size, d):
    """A batched output as a tensor with the batch at ``d`` (unbatched ones are expanded)."""
    from ..autograd import _tangents
    p = physical(o, level)
    tangents = _tangents.visible_tangents(o)
    if p is None:
        p = o.unsqueeze(0).expand((size,) + tuple(o.shape))
    elif d == 0 and tangents:
        p = p.view_as(p)  # a fresh tensor for the tangents set below
    if d != 0:
        p = p.movedim(0, d)
    for lvl, tan in tangents.items():
        _tangents.set_tangent(p, lvl, _unwrap_one(tan, level, size, d))
    return p


def _randomness_error():
    err = RuntimeError(
        "vmap: called random operation while in randomness error mode. Please either use the "
        "'same' or 'different' randomness flags on vmap or perform the randomness operation "
        "out of vmap")
    err.user_vmap_error = True  # jacfwd/jacrev re-raise it rather than loop
    return err


def _loop(func, flat, spec, dims, size, out_dims, kwargs, randomness=None):
    """The fallback: ``func`` on each sample, results stacked along ``out_dims``.

    A random draw there (an op that fell back before drawing) is still refused under
    randomness='error', as PyTorch refuses it; under 'same' each sample replays the same
    draws."""
    from ..ops.shape import stack
    results = []
    before = _rng_state() if randomness in ("error", "same") else None
    for b in range(size):
        if b and randomness == "same":   # every sample gets the same draws, as one draw
            _restore_rng(before)         # broadcast over the batch
        sample = [x.select(d, b) if d is not None else x for x, d in zip(flat, dims)]
        results.append(func(*_pytree.tree_unflatten(sample, spec), **kwargs))
        if randomness == "error" and not _same_rng(_rng_state(), before):
            _restore_rng(before)
            raise _randomness_error()
    leaves0, ospec = _pytree.tree_flatten(results[0])
    odims = _out_dims(func, out_dims, ospec)
    cols = [_pytree.tree_flatten(r)[0] for r in results]
    out = []
    for i, d in enumerate(odims):
        _check_leaf(func, leaves0[i], d)
        out.append(leaves0[i] if d is None else stack([c[i] for c in cols], d))
    return _pytree.tree_unflatten(out, ospec)


def batched_grad(grad, outputs, inputs, grad_outputs, retain_graph, create_graph,
                 allow_unused, materialize_grads):
    """``autograd.grad(..., is_grads_batched=True)``: one backward per slice of dim 0 of the
    cotangents, run as a single batched backward."""
    from ..autograd._api import _as_tuple
    outs, gos = _as_tuple(outputs), _as_tuple(grad_outputs)

    def one(*g):
        return grad(outs, inputs, g, retain_graph=True if retain_graph is None else
                    retain_graph, create_graph=create_graph, allow_unused=allow_unused,
                    materialize_grads=materialize_grads)
    return vmap(one)(*gos)
