"""Batching rules: each built-in op run once on physical tensors for a whole vmap batch.

A rule gets the op class, its arguments (some batched at ``level``) and the level; it calls
ops on the physical tensors (batch at dim 0) and wraps the results. Families:

- elementwise ops: batched operands get size-1 dims after the batch dim so they broadcast
  against unbatched ones (``_align``);
- ops with dim arguments (reductions, scans, softmax, transpose, select ...): dims shift by one;
- shape ops: the batch size is prepended to shapes, a full slice to index keys;
- matmul family: aligned like elementwise ops, run as one broadcasting matmul;
- einsum: a fresh subscript letter for the batch.

Every other op (and awkward cases such as indices batched with the data) runs once per sample
and the results are stacked (:func:`loop`), which is always correct.
"""
import numpy as np

from .._tensor import Tensor
from ._batching import physical, wrap_outputs, batch_size

__all__ = ["rule_for", "loop", "STATS"]

_RULES = {}
# how often each op fell back to the per-sample loop (op name -> count), for tests and tuning
STATS = {}


def rule_for(cls):
    """The rule of ``cls`` or of its nearest registered base class (else the loop)."""
    r = _RULES.get(cls)
    if r is None:
        if not _RULES.get("_installed"):
            _install()
        r = next((_RULES[k] for k in cls.__mro__ if k in _RULES), loop)
        _RULES[cls] = r
    return r


def register(cls, rule):
    """Give op class ``cls`` a batching rule ``rule(cls, args, level)``."""
    _RULES[cls] = rule


# ---- the fallback ---------------------------------------------------------------------------
def loop(cls, args, level):
    """Run the op once per sample and stack the results along a new batch dim."""
    from ..ops.shape import stack
    STATS[cls.__name__] = STATS.get(cls.__name__, 0) + 1
    outs = []
    for b in range(batch_size(level)):
        sample = []
        for a in args:
            p = physical(a, level)
            sample.append(a if p is None else p.select(0, b))
        outs.append(cls.apply(*sample))
    first = outs[0]
    if isinstance(first, tuple):
        res = tuple(stack([o[k] for o in outs]) if isinstance(first[k], Tensor) else first[k]
                    for k in range(len(first)))
    else:
        res = stack(outs) if isinstance(first, Tensor) else first
    return wrap_outputs(res, level)


# ---- helpers ---------------------------------------------------------------------------------
def _align(args, level):
    """Batched tensors as ``(B, 1, ..., *shape)`` with as many dims as the largest operand."""
    rank = max(a.dim() for a in args if isinstance(a, Tensor))
    out = []
    for a in args:
        p = physical(a, level)
        if p is None:
            out.append(a)
            continue
        nd = a.dim()
        if nd < rank:
            p = p.reshape((p.shape[0],) + (1,) * (rank - nd) + tuple(a.shape))
        out.append(p)
    return out


def _batched(a, level):
    """``a``'s physical tensor, broadcast to the batch when ``a`` is not batched."""
    p = physical(a, level)
    if p is not None:
        return p
    return a.unsqueeze(0).expand((batch_size(level),) + tuple(a.shape))


def _shift(v, ndim):
    """A dim (or dims) of a logical tensor as a dim of the physical one."""
    if isinstance(v, (tuple, list)):
        return tuple(_shift(d, ndim) for d in v)
    d = int(v)
    return (d + ndim if d < 0 else d) + 1


def _fix_promotion(args, positions, level):
    """A batched 0-dim operand must not promote dimensioned ones (PyTorch's rule), but
    physically it has a dim: cast it to the logical result dtype first."""
    from ..ops._util import result_np
    ts = [args[i] for i in positions if i < len(args) and args[i] is not None]
    zero_b = [i for i in positions if i < len(args) and isinstance(args[i], Tensor) and
              args[i].dim() == 0 and physical(args[i], level) is not None]
    if not zero_b or not any(isinstance(t, Tensor) and t.dim() for t in ts):
        return args
    stand = [np.zeros((1,) * t.dim(), t._data.dtype) if isinstance(t, Tensor) else t
             for t in ts]
    target = result_np(*stand)
    new = list(args)
    for i in zero_b:
        if new[i]._data.dtype != target:
            from .. import _dtype as D
            new[i] = new[i].to(D._FROM_NP[target])
    return new


# ---- rule makers -------------------------------------------------------------------------
def _elementwise(positions=(0, 1)):
    def rule(cls, args, level):
        args = _fix_promotion(args, positions, level)
        return wrap_outputs(cls.apply(*_align(args, level)), level)
    return rule


def _unary(cls, args, level):
    """Elementwise ops of one tensor (other arguments are parameters)."""
    p = physical(args[0], level)
    if p is None or any(physical(a, level) is not None for a in args[1:]):
        return loop(cls, args, level)
    return wrap_outputs(cls.apply(p, *args[1:]), level)


def _pointwise_loss(cls, args, level):
    """(x, target, reduction, *params): elementwise with reduction='none', then reduce each
    sample over its own dims."""
    x, t, reduction = args[0], args[1], args[2]
    aligned = _align([x, t], level)
    out = cls.apply(aligned[0], aligned[1], "none", *args[3:])
    if out.dim() > 1 and reduction in ("mean", "sum"):
        if out.shape[0] != batch_size(level):
            return loop(cls, args, level)
        dims = tuple(range(1, out.dim()))
        out = out.mean(dims) if reduction == "mean" else out.sum(dims)
    return wrap_outputs(out, level)


def _dims_at(*positions, as_cls=None, scalar="shift"):
    """Single-tensor ops whose arguments at ``positions`` are dims of input 0. A 0-dim
    sample's dims are shifted like any others (``scalar="shift"``: right where the op takes
    them as dims to insert or drop), or the op runs per sample ("loop"), or it is reduced or
    scanned as a 1-element sample ("lift")."""
    def rule(cls, args, level):
        x = args[0]
        p = physical(x, level)
        if p is None or any(physical(a, level) is not None for a in args[1:]):
            return loop(cls, args, level)
        if scalar != "shift" and x.dim() == 0:
            # NOTE: a 0-dim sample's dim 0 / -1 names the sample itself, no physical dim
            # (shifted, it would name the batch dim and mix the samples)
            if scalar == "lift":
                return _lifted_scalar(as_cls or cls, args, positions, p, level)
            return loop(cls, args, level)
        new = list(args)
        new[0] = p
        for i in positions:
            if new[i] is not None:
                new[i] = _shift(new[i], x.dim())
        return wrap_outputs((as_cls or cls).apply(*new), level)
    return rule


def _lifted_scalar(cls, args, positions, p, level):
    """``cls`` on 0-dim samples as PyTorch batches it: over a trailing size-1 dim, which a
    result that keeps it has squeezed away again."""
    dims = [args[i] for i in positions]
    flat = [d for v in dims if v is not None for d in (v if isinstance(v, (tuple, list))
                                                       else (v,))]
    if any(int(d) not in (0, -1) for d in flat):   # per sample, for the per-sample error
        return loop(cls, args, level)
    new = list(args)
    new[0] = p.unsqueeze(-1)
    for i, v in zip(positions, dims):   # (None: all dims, here the lifted one)
        new[i] = (1,) if v is None or isinstance(v, (tuple, list)) else 1
    out = cls.apply(*new)
    outs = out if isinstance(out, tuple) else (out,)
    outs = tuple(o.squeeze(-1) if isinstance(o, Tensor) and o.dim() > p.dim() else o
                 for o in outs)
    return wrap_outputs(outs if isinstance(out, tuple) else outs[0], level)


def _reduce_all(per_dim, make_args):
    """Ops reducing everything (``dim=None``): reduce the flattened sample instead."""
    def rule(cls, args, level):
        x = args[0]
        p = physical(x, level)
        if p is None:
            return loop(cls, args, level)
        return wrap_outputs(per_dim().apply(*make_args(p, x, args)), level)
    return rule


def _with_batch_shape(shape_pos, key_pos=None, dims=()):
    """Ops building a tensor of a given shape (backward helpers such as Place)."""
    def rule(cls, args, level):
        p = physical(args[0], level)
        if p is None or any(physical(a, level) is not None for a in args[1:]):
            return loop(cls, args, level)
        new = list(args)
        new[0] = p
        new[shape_pos] = (p.shape[0],) + tuple(args[shape_pos])
        if key_pos is not None:
            key = args[key_pos]
            new[key_pos] = (slice(None),) + (key if isinstance(key, tuple) else (key,))
        for i in dims:
            new[i] = args[i] + 1
        return wrap_outputs(cls.apply(*new), level)
    return rule


def _reshape(cls, args, level):
    from ..ops import shape as S
    p = physical(args[0], level)
    return wrap_outputs(S.reshape(p, (p.shape[0],) + tuple(args[1])), level)


def _expand_like(cls, args, level):
    """Expand / Repeat: the sample gets leading size-1 dims first, the batch keeps its size."""
    x, sizes = args[0], tuple(args[1])
    p = physical(x, level)
    lead = len(sizes) - x.dim()
    if lead > 0:
        p = p.reshape((p.shape[0],) + (1,) * lead + tuple(x.shape))
    first = p.shape[0] if cls.__name__ == "Expand" else 1
    return wrap_outputs(cls.apply(p, (first,) + sizes), level)


def _permute(cls, args, level):
    p = physical(args[0], level)
    return wrap_outputs(cls.apply(p, (0,) + tuple(d + 1 for d in args[1])), level)


def _join(cls, args, level):
    """Cat / Stack (dim, *tensors): every tensor batched, the dim shifted."""
    dim, xs = args[0], args[1:]
    if any(x.dim() == 1 and x.shape[0] == 0 for x in xs):
        return loop(cls, args, level)
    return wrap_outputs(cls.apply(dim + 1, *[_batched(x, level) for x in xs]), level)


def _basic_index(cls, args, level):
    x, key = args[0], args[1]
    p = physical(x, level)
    if p is None or any(physical(a, level) is not None for a in args[2:]):
        return loop(cls, args, level)
    key = key if isinstance(key, tuple) else (key,)
    return wrap_outputs(cls.apply(p, (slice(None),) + key), level)


def _adjacent_advanced(key):
    """Whether a NumPy key's advanced parts are adjacent (so a leading slice keeps order)."""
    pos = [i for i, k in enumerate(key) if isinstance(k, (np.ndarray, int, np.integer))
           and not isinstance(k, bool)]
    if any(k is None or k is Ellipsis for k in key):
        return False
    return not pos or pos[-1] - pos[0] + 1 == len(pos)


def _advanced_index(shape_pos=None):
    def rule(cls, args, level):
        p = physical(args[0], level)
        key_pos = 1 if shape_pos is None else 2
        key = args[key_pos]
        key = key if isinstance(key, tuple) else (key,)
        if p is None or not _adjacent_advanced(key) or \
                any(physical(a, level) is not None for a in args[1:]):
            return loop(cls, args, level)
        new = list(args)
        new[0] = p
        new[key_pos] = (slice(None),) + key
        if shape_pos is not None:
            new[shape_pos] = (p.shape[0],) + tuple(args[shape_pos])
        return wrap_outputs(cls.apply(*new), level)
    return rule


def _gather_like(cls, args, level):
    """(x, dim, index[, src]): every tensor batched, dim shifted."""
    x, dim = args[0], args[1]
    new = [_batched(x, level), _shift(dim, x.dim())]
    for a in args[2:]:
        new.append(_batched(a, level) if isinstance(a, Tensor) else a)
    return wrap_outputs(cls.apply(*new), level)


def _index_select(cls, args, level):
    x, dim, index = args
    p = physical(x, level)
    if p is None or physical(index, level) is not None:
        return loop(cls, args, level)
    return wrap_outputs(cls.apply(p, _shift(dim, x.dim()), index), level)


def _copy(cls, args, level):
    """Copy(x, src): src broadcast into x's shape, both with the batch dim."""
    x, src = args
    src_p = physical(src, level)
    if src_p is not None and src.dim() < x.dim():
        src_p = src_p.reshape((src_p.shape[0],) + (1,) * (x.dim() - src.dim()) +
                              tuple(src.shape))
    return wrap_outputs(cls.apply(_batched(x, level), src if src_p is None else src_p), level)


def _nll_loss(cls, args, level):
    """NllLoss(x (N, C, *d), t (N, *d), w, reduction, ignore_index): the batch folded into N
    with reduction='none', then each sample reduced (a mean divides by its own weight)."""
    from ..ops.shape import reshape
    x, t, w, reduction, ignore = args
    if w is not None and physical(w, level) is not None:
        return loop(cls, args, level)
    px, pt = _batched(x, level), _batched(t, level)
    size, n = px.shape[0], px.shape[1]
    loss = cls.apply(reshape(px, (size * n,) + tuple(px.shape[2:])),
                     reshape(pt, (size * n,) + tuple(pt.shape[2:])), w, "none", ignore)
    loss = reshape(loss, (size,) + tuple(pt.shape[1:]))
    if reduction == "none":
        return wrap_outputs(loss, level)
    dims = tuple(range(1, loss.dim()))
    total = loss.sum(dims)
    if reduction == "mean":
        valid = (pt != ignore).to(loss.dtype)
        weight = valid if w is None else valid * w[pt.clamp(0, w.shape[0] - 1)]
        total = total / weight.sum(dims)
    return wrap_outputs(total, level)


def _convolution(cls, args, level):
    """Convolution(x (N, C, *S), w, b, geom): a batch of inputs folds into N; batched weights
    become B times as many groups (one group block per sample)."""
    from ..ops.shape import reshape
    x, w, b, geom = args
    size = batch_size(level)
    pw, pb = physical(w, level), (physical(b, level) if b is not None else None)
    if pw is None and pb is None:
        px = physical(x, level)
        n = x.shape[0]
        out = cls.apply(reshape(px, (size * n,) + tuple(x.shape[1:])), w, b, geom)
        return wrap_outputs(reshape(out, (size, n) + tuple(out.shape[1:])), level)
    px, pw = _batched(x, level), _batched(w, level)
    n, c = x.shape[0], x.shape[1]
    xs = reshape(px.movedim(0, 1), (n, size * c) + tuple(x.shape[2:]))
    ws = reshape(pw, (size * w.shape[0],) + tuple(w.shape[1:]))
    bs = None if b is None else reshape(_batched(b, level), (size * b.shape[0],))
    geom = type(geom)(geom.in_size, geom.kernel, geom.stride, geom.pad, geom.dilation,
                      geom.groups * size)
    out = cls.apply(xs, ws, bs, geom)
    out = reshape(out, (n, size, w.shape[0]) + tuple(out.shape[2:])).movedim(1, 0)
    return wrap_outputs(out, level)


def _matmul(cls, args, level):
    from ..ops import linalg as L
    a, b = args
    pa, pb = _align([a, b], level)
    if pa.dim() == 3 and pb.dim() == 2:
        # NOTE: as PyTorch's rule (at::matmul on the physical tensors): a batch of matrices
        # times one matrix folds into a single mm, so vmap(f)(x) rounds as f(x) does on the
        # stacked rows (``vmap(linear)`` equals ``linear`` of the whole batch bit for bit)
        return wrap_outputs(L.matmul(pa, pb), level)
    return wrap_outputs(L.MatmulND.apply(pa, pb), level)


def _mv(cls, args, level):
    from ..ops import linalg as L
    a, v = args
    pa, pv = physical(a, level), physical(v, level)
    if pa is None:      # one matrix, a batch of vectors: one mm (PyTorch's rule)
        return wrap_outputs(L.mm(pv, a.t()), level)
    if pv is None:      # a batch of matrices, one vector: folded into one mv
        return wrap_outputs(L.matmul(pa, v), level)
    return (a @ v.unsqueeze(-1)).squeeze(-1)


def _dot(cls, args, level):
    from ..ops import linalg as L
    a, b = args
    pa, pb = physical(a, level), physical(b, level)
    if pa is None or pb is None:    # one vector against a batch: one mv (PyTorch's rule)
        return wrap_outputs(L.mv(pb, a) if pa is None else L.mv(pa, b), level)
    return (a * b).sum(-1)


def _addmm(cls, args, level):
    c, a, b, beta, alpha = args
    prod = a @ b
    if alpha != 1:
        prod = prod * alpha
    return prod + (c if beta == 1 else c * beta)


def _einsum(cls, args, level):
    eq, xs = args[0], args[1:]
    ins, out = eq.split("->")
    letter = next(c for c in "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba"
                  if c not in eq)
    subs = ins.split(",")
    new_subs, new_xs = [], []
    for s, x in zip(subs, xs):
        p = physical(x, level)
        new_subs.append(s if p is None else letter + s)
        new_xs.append(x if p is None else p)
    return wrap_outputs(cls.apply(",".join(new_subs) + "->" + letter + out, *new_xs), level)


_BN_RUNNING = (
    "Batch norm got a batched tensor as input while the running_mean or running_var, which "
    "will be updated in place, were not batched.\nIf you are using a module and do not need "
    "eval mode, please set `track_running_stats` to be False.If you are using a prebuilt "
    "module and do not need eval mode, please see the functorch website for resources on how "
    "to patch your module to work with vmap")


def _batch_norm(cls, args, level):
    """Per sample; PyTorch's error when training would update unbatched running statistics
    with batched values (``replace_all_batch_norm_modules_`` is the remedy)."""
    x, rm, rv, training = args[0], args[3], args[4], args[5]
    if training and physical(x, level) is not None and \
            any(type(r) is np.ndarray for r in (rm, rv)):
        raise RuntimeError(_BN_RUNNING)
    return loop(cls, args, level)


def _masked_select(cls, args, level):
    """As PyTorch: a mask that is vmapped over gives each sample its own result size."""
    if physical(args[1], level) is not None:
        raise RuntimeError(
            "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot "
            "support this because for each batch this would return a differently shaped "
            "Tensor. Please file an issue at https://github.com/pytorch/pytorch/issues if you "
            "need this feature.")
    return loop(cls, args, level)


def _random_with_params(cls, args, level):
    """bernoulli(p), normal(mean, std), poisson(rates) with batched parameters: one draw per
    sample; PyTorch refuses that under randomness='same' (one draw for the whole batch)."""
    from ..autograd import _interpose
    mode = next(v[2] for v in _interpose.STATE.vmap_levels if v[0] == level)
    if mode == "same":
        raise RuntimeError("Vmap does not currently support same randomness with a batched "
                           "tensor input. Please file an issue with functorch")
    return loop(cls, args, level)


def _prod_all_args(p, x, args):
    return (p.reshape(p.shape[0], -1), 1, False, args[3])


def _install():
    """Register the rules of every family (names missing from the op modules are skipped)."""
    put = _putter(_op_modules())
    _install_elementwise(put)
    _install_shape_and_indexing(put)
    _install_reductions_linalg_nn(put)
    _RULES["_installed"] = True


def _op_modules():
    import importlib
    mods = {}
    for m in ("elementwise", "shape", "reduction", "indexing", "linalg", "activation", "loss",
              "inplace", "conv", "normalization", "random_ops"):
        try:
            mods[m] = importlib.import_module(f"numtorch.ops.{m}")
        except ImportError:   # a family not written yet
            mods[m] = None
    return mods


def _putter(mods):
    def put(mod, names, rule):
        for name in names.split():
            cls = getattr(mods[mod], name, None) if mods[mod] is not None else None
            if isinstance(cls, type):
                _RULES.setdefault(cls, rule)
    put.mods = mods
    return put


def _install_elementwise(put):
    put("elementwise", "Add Sub Rsub Mul Div Pow PowTensor PowScalarBase Remainder Fmod Atan2 "
        "Maximum Minimum", _elementwise((0, 1)))
    put("elementwise", "Where", _elementwise((1, 2)))
    put("elementwise", "ClampTensor", _elementwise((0, 1, 2)))
    put("elementwise", "Clamp", _unary)
    from ..ops._base import BuiltinFunction
    for v in vars(put.mods["elementwise"]).values():   # every op there is elementwise
        if isinstance(v, type) and issubclass(v, BuiltinFunction) and v not in _RULES and \
                v.__module__.endswith("elementwise"):
            _RULES[v] = _elementwise(range(8))
    put("activation", "LeakyRelu Elu Celu Selu Gelu GeluErf Silu Mish Softplus Hardtanh "
        "Hardsigmoid Hardswish LogSigmoid Threshold Hardshrink Softshrink Tanhshrink Softsign "
        "Relu6", _unary)
    put("inplace", "Zero Fill", _unary)
    put("inplace", "Copy", _copy)
    put("indexing", "MaskedFill", _elementwise((0,)))
    put("indexing", "MaskedFillTensor", loop)   # its value must stay 0-dim


def _install_shape_and_indexing(put):
    put("shape", "Clone ToCopy", _unary)
    put("shape", "View Reshape", _reshape)
    put("shape", "Permute", _permute)
    put("shape", "Transpose T", _dims_at(1, 2, scalar="loop"))
    put("shape", "Expand Repeat", _expand_like)
    put("shape", "Squeeze SqueezeAll Unsqueeze Select Narrow Flip", _dims_at(1))
    put("shape", "Roll", _dims_at(2))
    put("shape", "Diagonal", _dims_at(2, 3))
    put("shape", "Cat Stack", _join)
    put("shape", "Split Unbind", _dims_at(1))
    put("shape", "Place", _with_batch_shape(1, key_pos=2))
    put("shape", "DiagEmbedInto", _with_batch_shape(1, dims=(3, 4)))
    put("indexing", "BasicIndex SelectIndex SliceIndex UnsqueezeIndex AliasIndex",
        _basic_index)
    put("indexing", "AdvancedIndex", _advanced_index())
    put("indexing", "IndexAddInto", _advanced_index(shape_pos=1))
    put("indexing", "Gather ScatterAdd Scatter", _gather_like)
    put("indexing", "IndexSelect", _index_select)
    put("indexing", "MaskedSelect", _masked_select)


def _install_reductions_linalg_nn(put):
    R = put.mods["reduction"]
    put("reduction", "Sum Mean Var Std Amax Amin Logsumexp Cumsum Cumprod "
        "Cummax Cummin Softmax LogSoftmax MaxDim MinDim Prod", _dims_at(1, scalar="lift"))
    # a whole-sample reduction is a reduction over some dims of the batch (PyTorch's names)
    put("reduction", "SumAll", _dims_at(1, as_cls=getattr(R, "Sum", None), scalar="lift"))
    put("reduction", "MeanAll", _dims_at(1, as_cls=getattr(R, "Mean", None), scalar="lift"))
    put("reduction", "VectorNorm", _dims_at(2, scalar="lift"))
    put("reduction", "ProdAll", _reduce_all(lambda: R.Prod, _prod_all_args))
    put("reduction", "MaxAll", _reduce_all(
        lambda: R.Amax, lambda p, x, a: (p, tuple(range(1, p.dim())), False, "amax")))
    put("reduction", "MinAll", _reduce_all(
        lambda: R.Amin, lambda p, x, a: (p, tuple(range(1, p.dim())), False, "amin")))
    put("linalg", "Mm Bmm MatmulND", _matmul)
    put("linalg", "Mv", _mv)
    put("linalg", "Dot", _dot)
    put("linalg", "Addmm", _addmm)
    put("linalg", "Einsum", _einsum)
    put("activation", "Glu", _dims_at(1))
    put("loss", "MseLoss SmoothL1Loss HuberLoss SoftMarginLoss", _pointwise_loss)
    put("loss", "NllLoss NllLoss2d", _nll_loss)
    put("conv", "Convolution", _convolution)
    put("normalization", "NativeBatchNorm", _batch_norm)
    put("random_ops", "Bernoulli Normal NormalMeanTensor NormalStdTensor Poisson",
        _random_with_params)
