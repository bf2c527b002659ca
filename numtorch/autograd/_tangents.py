"""Forward-mode AD: how tangents flow through built-in ops and custom Functions.

A tangent lives on its primal tensor, in ``tensor._extra["fw"]`` (a dict level -> tangent).
When an op gets an argument with a visible tangent at level ``L`` (the innermost such level),
:func:`apply_builtin` runs the op for the primal with level ``L`` hidden, then computes the
output tangent from the input tangents with one of these rules, also with ``L`` hidden (so the
rule's own ops carry tangents of outer levels, which gives higher-order forward derivatives):

- *linear* ops (views, reshapes, sums, indexing, cat ...): the op applied to the tangents;
- *bilinear* ops (matmul family, einsum): the sum over inputs of the op with one input replaced
  by its tangent;
- *elementwise* ops: an explicit derivative formula (``_ELEMENTWISE``);
- a few reductions with cheap formulas (softmax, log_softmax, logsumexp);
- everything else (including ops added later): the double-vjp identity ``J t = d/du <J^T u, t>``
  evaluated with the op's own backward, which is linear in ``u``.

Custom Functions get their ``jvp(ctx, *tangents)`` called, with ``ctx.saved_tensors`` giving
what ``ctx.save_for_forward`` stored, as PyTorch does.
"""
import math
import weakref

import numpy as np

from .._tensor import Tensor
from . import _interpose
from .grad_mode import STATE, enable_grad
from .graph import version_error_output, saved_entries

__all__ = ["apply_builtin", "apply_custom", "get_tangent", "set_tangent", "attach"]


# ---- tangent storage ----------------------------------------------------------------------
def get_tangent(t, level):
    """``t``'s tangent at ``level`` (None when it has none)."""
    ex = t._extra
    if ex is None:
        return None
    fw = ex.get("fw")
    return fw.get(level) if fw else None


def set_tangent(t, level, tangent):
    fw = _fw_dict(t)
    fw[level] = tangent
    _share_with_saved(t, fw)


def _fw_dict(t):
    if t._extra is None:
        t._extra = {}
    fw = t._extra.get("fw")
    if fw is None:
        fw = t._extra["fw"] = {}
    return fw


def visible_tangents(t):
    """The tangents of ``t`` at active levels below the current ceiling (a new dict)."""
    ex = t._extra
    if ex is None or not ex.get("fw"):
        return {}
    S = _interpose.STATE
    return {lvl: v for lvl, v in ex["fw"].items() if lvl < S.ceiling and lvl in S.fw_active}


def copy_visible_tangents(src, dst):
    """Give ``dst`` the visible tangents of ``src`` (used for fresh differentiable copies)."""
    vis = visible_tangents(src)
    if vis:
        _fw_dict(dst).update(vis)
    return dst


def after_in_place(t, res):
    """``t`` was overwritten in place with ``res``'s values: write ``res``'s tangents (zeros
    where it has none) into ``t``'s tangents in place, so that the tangent of a view's base
    sees the change as it would in PyTorch."""
    new, old = visible_tangents(res), visible_tangents(t)
    if not new and not old:
        return
    fw = _fw_dict(t)
    for lvl in set(new) | set(old):
        value = new.get(lvl)
        value = _zeros_like(t) if value is None else value.expand(t.shape)
        cur = old.get(lvl)
        if cur is None and t._base is not None and t._view is not None:
            cur = _view_of_base_tangent(t, lvl)
        if cur is not None and cur.shape == t.shape and _writable(cur):
            np.copyto(cur._data, value._data, casting="unsafe")
            cur._vc[0] += 1
            fw[lvl] = cur
        else:
            fw[lvl] = value.clone()


def _writable(t):
    data = t._data
    return type(data) is np.ndarray and data.flags.writeable


def _view_of_base_tangent(t, lvl):
    """The tangent of view ``t`` as a view of its base's tangent (made zeros if missing)."""
    from ._copy_slices import replay_view
    base = t._base
    bt = get_tangent(base, lvl)
    if bt is None:
        bt = _zeros_like(base)
        set_tangent(base, lvl, bt)
    with _interpose.ceiling(lvl):
        return replay_view(bt, t._view)


def size_error(primal_shape, tangent_shape):
    return RuntimeError(
        "Trying to set a forward gradient that has a different size than that of the original "
        "Tensor, this is not supported. Tensor is of size "
        f"[{', '.join(map(str, primal_shape))}] while the given forward gradient is of size "
        f"[{', '.join(map(str, tangent_shape))}].")


def attach(out, tangents, level):
    """Set the tangent of each float output (checked for shape) at ``level``."""
    outs = out if isinstance(out, tuple) else (out,)
    tans = tangents if isinstance(tangents, tuple) else (tangents,)
    for o, t in zip(outs, tans):
        if t is None or not isinstance(o, Tensor):
            continue
        if not (o.dtype.is_floating_point or o.dtype.is_complex):
            continue
        if t.shape != o.shape:
            raise size_error(o.shape, t.shape)
        set_tangent(o, level, t)


# NOTE: a node saving its own output rebuilds that tensor on unpack (no reference cycle); the
# rebuilt tensor must see the output's tangents (forward-over-reverse), so such entries are
# re-packed to share the output's tangent dict. Only done under forward AD.
def _share_with_saved(t, fw):
    node = t._grad_fn
    saved = saved_entries(node) if hasattr(node, "_saved") else None
    if type(saved) is not tuple or not saved:
        return
    entries = list(saved)
    changed = False
    for i, e in enumerate(entries):
        if e is not None and len(e) == 6 and e[0] == 1 and e[1] is t._data and \
                e[4] == t._output_nr:
            _, data, vc, version, nr, rg = e
            entries[i] = (2, (weakref.ref(node), data, vc, version, nr, rg, fw), _unpack_own)
            changed = True
    if changed:
        node._saved = tuple(entries)


def _unpack_own(packed):
    ref, data, vc, version, output_nr, rg, fw = packed
    node = ref()
    if vc[0] != version:
        t = Tensor._make(data, None, False)
        t._vc = vc
        raise version_error_output(t, version, node, output_nr)
    t = Tensor._make(data, node if rg else None, rg)
    t._vc = vc
    t._output_nr = output_nr
    t._extra = {"fw": fw}
    return t


def _zeros_like(t):
    from .. import _creation
    return _creation.zeros_like(t)


# ---- built-in ops ---------------------------------------------------------------------------
def apply_builtin(cls, args, level):
    """Run built-in op ``cls`` on ``args`` (some carry tangents at ``level``)."""
    with _interpose.ceiling(level):
        out = cls.apply(*args)
        tangents = [get_tangent(a, level) if isinstance(a, Tensor) else None for a in args]
        t_out = _rule(cls)(cls, args, out, tangents)
        if STATE.enabled and cls in _PRODUCT_RULES:
            t_out = _with_zero_terms(cls, args, tangents, t_out)
        if isinstance(out, tuple):
            if isinstance(t_out, tuple):
                t_out = tuple(_own_tangent(o, t, tangents) for o, t in zip(out, t_out))
        else:
            t_out = _own_tangent(out, t_out, tangents)
    attach(out, t_out, level)
    return out


def _own_tangent(o, t, tangents):
    """Rule result ``t`` made a tangent of its own for output ``o``: a rule returns an input's
    tangent as is (``x + 1``) or at the input's broadcast shape (``x + ones(3, 2)``), but in
    PyTorch the output's tangent has the output's shape and is a new tensor (an in-place op
    on the output must not write into the input's tangent)."""
    if not isinstance(t, Tensor) or not isinstance(o, Tensor):
        return t
    if t.shape != o.shape:
        try:
            return t.expand(o.shape).contiguous()
        except RuntimeError:
            return t   # not broadcastable: attach reports the size mismatch
    for given in tangents:
        if t is given:
            return t.clone()
    return t


# ---- zero tangents in products ---------------------------------------------------------------
# NOTE: PyTorch's formulas for products (mul, the matmul family, addmm, and the ops without a
# formula here, e.g. linear or conv) keep the term of an input without a tangent, with an
# (efficient) zero tensor for it: ``0 * other_primal`` adds exactly nothing, but it makes the
# tangent differentiable with respect to the other primals. So with parameters that require
# grad, PyTorch's tangent has a grad_fn (``<AddBackward0>``) and backward through it gives those
# parameters zero gradients. That term is the node below: the tangent's value passes unchanged.
_PRODUCT_RULES = set()


def _with_zero_terms(cls, args, tangents, t_out):
    if _interpose.STATE.vmap_levels or not isinstance(t_out, Tensor):
        return t_out
    scalars_count = cls.__name__ == "Mul"   # a Python number is a wrapped tensor there
    missing = [i for i, (a, t) in enumerate(zip(args, tangents)) if t is None and (
        _float_tensor(a) or (scalars_count and type(a) in (int, float, complex)))]
    if cls.__name__ == "Addmm":
        missing = [i for i in missing if i in (1, 2)]   # the bias term has no primal
    deps = [a for j, a in enumerate(args) if isinstance(a, Tensor) and a._rg and
            any(i != j for i in missing)]
    if not (deps or (missing and t_out._rg)):
        return t_out
    return _zero_term_op().apply(t_out, *deps)


_ZERO_TERM = []


def _zero_term_op():
    """``t + 0 * primals`` with the zero exact (PyTorch's efficient zero tensor)."""
    if not _ZERO_TERM:
        from ..ops._base import BuiltinFunction

        class ZeroTangentTerm(BuiltinFunction):
            """out = t (plus exact zeros);  dt = g, dprimal = 0."""
            _backward_name = "AddBackward0"

            @staticmethod
            def forward(ctx, t, *primals):
                ctx.shapes = [(p.shape, p.dtype) for p in primals]
                return t.copy()

            @staticmethod
            def backward(ctx, g):
                from .. import _creation, _dtype
                return (g,) + tuple(_creation.zeros(shape, dtype=_dtype._FROM_NP[dt])
                                    for shape, dt in ctx.shapes)
        register_rule(ZeroTangentTerm, _linear_first)
        _ZERO_TERM.append(ZeroTangentTerm)
    return _ZERO_TERM[0]


def _linear_first(cls, args, out, tangents):
    """The tangent of the zero-term node: its first input's (the primals add nothing)."""
    t = tangents[0]
    return t if t is not None else _zeros_like(args[0])


_RULES = {}


def _rule(cls):
    """The rule of ``cls`` or of its nearest registered base class (else double-vjp)."""
    r = _RULES.get(cls)
    if r is None:
        _install_rules()
        r = next((_RULES[k] for k in cls.__mro__ if k in _RULES), None)
        if r is None:
            r = _double_vjp
            _PRODUCT_RULES.add(cls)   # no formula: treated as PyTorch's product formulas
        _RULES[cls] = r
    return r


def _float_tensor(a):
    return isinstance(a, Tensor) and (a.dtype.is_floating_point or a.dtype.is_complex)


def _linear(cls, args, out, tangents):
    """A linear op: the same op applied to the tangents (zeros for missing ones)."""
    new = []
    for a, t in zip(args, tangents):
        if t is not None:
            new.append(t)
        elif _float_tensor(a):
            new.append(_zeros_like(a))
        else:
            new.append(a)
    return cls.apply(*new)


def _multilinear(cls, args, out, tangents):
    """An op linear in each tensor input separately: sum of one-tangent substitutions."""
    total = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        new = list(args)
        new[i] = t
        term = cls.apply(*new)
        total = term if total is None else total + term
    return total


def _sum_terms(*terms):
    total = None
    for t in terms:
        if t is not None:
            total = t if total is None else total + t
    return total


def _scaled(t, k):
    return None if t is None else (t if k == 1 else t * k)


def _neg(t):
    return None if t is None else -t


def _scatter(cls, args, out, tangents):
    x, dim, index, src = args
    tx, ts = tangents[0], tangents[3]
    tx = tx if tx is not None else _zeros_like(x)
    if isinstance(src, Tensor):
        src = ts if ts is not None else _zeros_like(src)
    else:
        src = 0.0
    return cls.apply(tx, dim, index, src)


def _index_put(cls, args, out, tangents):
    x, key, v, accumulate = args
    tx, tv = tangents[0], tangents[2]
    tx = tx if tx is not None else _zeros_like(x)
    if isinstance(v, Tensor):
        v = tv if tv is not None else _zeros_like(v)
    else:
        v = 0.0
    return cls.apply(tx, key, v, accumulate)


def _fill(cls, args, out, tangents):
    return cls.apply(tangents[0], 0.0)


def _fill_tensor(cls, args, out, tangents):
    tx, tv = tangents
    tx = tx if tx is not None else _zeros_like(args[0])
    return cls.apply(tx, tv if tv is not None else _zeros_like(args[1]))


def _addmm(cls, args, out, tangents):
    c, a, b, beta, alpha = args
    tc, ta, tb = tangents[:3]
    from ..ops import linalg as L
    return _sum_terms(_scaled(tc, beta) if isinstance(c, Tensor) else None,
                      _scaled(L.matmul(ta, b), alpha) if ta is not None else None,
                      _scaled(L.matmul(a, tb), alpha) if tb is not None else None)


def _softmax(cls, args, out, tangents):
    t, dim = tangents[0], args[1]
    return out * (t - (out * t).sum(dim, keepdim=True))


def _log_softmax(cls, args, out, tangents):
    t, dim = tangents[0], args[1]
    return t - (out.exp() * t).sum(dim, keepdim=True)


def _logsumexp(cls, args, out, tangents):
    x, dims, keepdim = args[:3]
    t = tangents[0]
    o = out
    if not keepdim:
        shape = [1 if i in dims else n for i, n in enumerate(x.shape)]
        o = out.reshape(shape)
    w = (x - o).exp()
    return (w * t).sum(list(dims), keepdim=keepdim) if dims else w * t


def _elementwise(fn):
    def rule(cls, args, out, tangents):
        return fn(args, out, tangents)
    return rule


_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _unary(fn):
    """A unary elementwise rule ``fn(x, out, t)``."""
    return _elementwise(lambda a, o, ts: fn(a[0], o, ts[0]))


def _pow(args, out, ts):
    from ..ops import elementwise as E
    a, b = args
    ta, tb = ts
    term_a = term_b = None
    if ta is not None:
        if isinstance(b, Tensor):
            term_a = ta * b * E.pow(a, b - 1)
        else:
            term_a = ta * 0 if b == 0 else ta * b * E.pow(a, b - 1)
    if tb is not None:
        log_a = a.log() if isinstance(a, Tensor) else math.log(a)
        term_b = tb * out * log_a
        if isinstance(a, Tensor):
            term_b = E.where((a == 0) & (b >= 0), 0.0, term_b)
    return _sum_terms(term_a, term_b)


def _minmax(first):
    def rule(args, out, ts):
        a, b = args
        ta, tb = ts
        w = first(a, b).to(out.dtype) + (a == b).to(out.dtype) * 0.5
        return _sum_terms(None if ta is None else ta * w, None if tb is None else tb * (1 - w))
    return rule


def _where(args, out, ts):
    from ..ops import elementwise as E
    cond, a, b = args
    ta, tb = ts[1], ts[2]
    zero = _zeros_like(out)
    return E.where(cond, ta if ta is not None else zero, tb if tb is not None else zero)


def _clamp(args, out, ts):
    x, lo, hi = args
    mask = None
    if lo is not None:
        mask = x >= lo
    if hi is not None:
        m2 = x <= hi
        mask = m2 if mask is None else mask & m2
    return ts[0] * mask.to(ts[0].dtype)


def _clamp_tensor(args, out, ts):
    """out = min(max(x, lo), hi): the tangent of whichever of x, lo, hi is the value."""
    from ..ops import elementwise as E
    x, lo, hi = args
    tx, tlo, thi = ts
    inside = (x == x)
    terms = []
    above = None
    # NOTE: PyTorch's formulas differ at ties: with one bound (clamp_min/clamp_max) a value
    # equal to the bound takes the bound's tangent, with both it keeps its own
    if hi is not None:
        above = (E.maximum(x, lo) > hi) if lo is not None else (x >= hi)
        inside = inside & ~above
        if thi is not None:
            terms.append(thi * above.to(out.dtype))
    if lo is not None:
        below = (x < lo) if hi is not None else (x <= lo)
        below = below if above is None else below & ~above
        inside = inside & ~below
        if tlo is not None:
            terms.append(tlo * below.to(out.dtype))
    if tx is not None:
        terms.append(tx * inside.to(out.dtype))
    return _sum_terms(*terms)


def _remainder(trunc):
    def rule(args, out, ts):
        from ..ops import elementwise as E
        a, b = args
        ta, tb = ts
        q = E.trunc(E.div(a, b)) if trunc else E.floor_divide(a, b)
        return _sum_terms(ta, None if tb is None else -tb * q)
    return rule


_UNARY = {
    "Neg": lambda x, o, t: -t,
    "Exp": lambda x, o, t: t * o,
    "Exp2": lambda x, o, t: t * o * _LN2,
    "Expm1": lambda x, o, t: t * (o + 1),
    "Log": lambda x, o, t: t / x,
    "Log2": lambda x, o, t: t / (x * _LN2),
    "Log10": lambda x, o, t: t / (x * _LN10),
    "Log1p": lambda x, o, t: t / (x + 1),
    "Sqrt": lambda x, o, t: t / (o * 2),
    "Rsqrt": lambda x, o, t: t * o.pow(3) * -0.5,
    "Reciprocal": lambda x, o, t: -t * o * o,
    "Sin": lambda x, o, t: t * x.cos(),
    "Cos": lambda x, o, t: t * -x.sin(),
    "Tan": lambda x, o, t: t * (o * o + 1),
    "Asin": lambda x, o, t: t * (1 - x * x).rsqrt(),
    "Acos": lambda x, o, t: -t * (1 - x * x).rsqrt(),
    "Atan": lambda x, o, t: t / (x * x + 1),
    "Sinh": lambda x, o, t: t * x.cosh(),
    "Cosh": lambda x, o, t: t * x.sinh(),
    "Tanh": lambda x, o, t: t * (1 - o * o),
    "Asinh": lambda x, o, t: t * (x * x + 1).rsqrt(),
    "Acosh": lambda x, o, t: t * (x * x - 1).rsqrt(),
    "Atanh": lambda x, o, t: t / (1 - x * x),
    "Sigmoid": lambda x, o, t: t * o * (1 - o),
    "Abs": lambda x, o, t: t * x.sgn(),
    "Relu": lambda x, o, t: t * (o > 0).to(t.dtype),
    "Square": lambda x, o, t: t * x * 2,
    "Frac": lambda x, o, t: t,
    "Sign": lambda x, o, t: t * 0, "Sgn": lambda x, o, t: t * 0,
    "Floor": lambda x, o, t: t * 0, "Ceil": lambda x, o, t: t * 0,
    "Trunc": lambda x, o, t: t * 0, "Round": lambda x, o, t: t * 0,
}

_BINARY = {
    "Add": lambda a, o, ts: _sum_terms(ts[0], _scaled(ts[1], a[2] if len(a) > 2 else 1)),
    "Sub": lambda a, o, ts: _sum_terms(ts[0], _neg(_scaled(ts[1], a[2] if len(a) > 2 else 1))),
    "Rsub": lambda a, o, ts: _sum_terms(_neg(_scaled(ts[0], a[2] if len(a) > 2 else 1)),
                                        ts[1]),
    "Mul": lambda a, o, ts: _sum_terms(None if ts[0] is None else ts[0] * a[1],
                                       None if ts[1] is None else a[0] * ts[1]),
    "Div": lambda a, o, ts: _sum_terms(None if ts[0] is None else ts[0] / a[1],
                                       None if ts[1] is None else -ts[1] * o / a[1]),
    "Atan2": lambda a, o, ts: _sum_terms(
        None if ts[0] is None else ts[0] * a[1] / (a[0] * a[0] + a[1] * a[1]),
        None if ts[1] is None else -ts[1] * a[0] / (a[0] * a[0] + a[1] * a[1])),
    "Pow": _pow, "PowTensor": _pow, "PowScalarBase": _pow,
    "Maximum": _minmax(lambda a, b: a > b),
    "Minimum": _minmax(lambda a, b: a < b),
    "Where": _where,
    "Clamp": _clamp,
    "ClampTensor": _clamp_tensor,
    "Remainder": _remainder(False),
    "Fmod": _remainder(True),
}

_LINEAR = {
    "shape": ["View", "Reshape", "Permute", "Transpose", "T", "Expand", "Squeeze",
              "SqueezeAll", "Unsqueeze", "Select", "Narrow", "Place", "Diagonal",
              "DiagEmbedInto", "Clone", "ToCopy", "Cat", "Stack", "Flip", "Roll", "Repeat"],
    "reduction": ["Sum", "SumAll", "Mean", "MeanAll", "Cumsum"],
    "indexing": ["BasicIndex", "SelectIndex", "SliceIndex", "UnsqueezeIndex", "AliasIndex",
                 "AdvancedIndex", "IndexAddInto", "IndexFill", "Gather", "IndexSelect",
                 "ScatterAdd"],
    "inplace": ["Zero", "Copy"],
}
_MULTILINEAR = {"linalg": ["Mm", "Bmm", "MatmulND", "Mv", "Dot", "Einsum"]}
_SPECIAL = {
    "reduction": {"Softmax": _softmax, "LogSoftmax": _log_softmax, "Logsumexp": _logsumexp},
    "linalg": {"Addmm": _addmm},
    "indexing": {"Scatter": _scatter, "IndexPut": _index_put},
    "inplace": {"Fill": _fill, "FillTensor": _fill_tensor},
}


def _install_rules():
    """Fill ``_RULES`` from the tables (names missing from the op modules are skipped)."""
    if _RULES.get("_installed"):
        return
    import importlib
    mods = {m: importlib.import_module(f"numtorch.ops.{m}")
            for m in ("elementwise", "shape", "reduction", "indexing", "linalg", "inplace")}

    def put(mod, name, rule):
        cls = getattr(mods[mod], name, None)
        if isinstance(cls, type):
            _RULES.setdefault(cls, rule)

    for name, fn in _UNARY.items():
        put("elementwise", name, _unary(fn))
    for name, fn in _BINARY.items():
        put("elementwise", name, _elementwise(fn))
    for mod, names in _LINEAR.items():
        for name in names:
            put(mod, name, _linear)
    for mod, names in _MULTILINEAR.items():
        for name in names:
            put(mod, name, _multilinear)
    for mod, table in _SPECIAL.items():
        for name, rule in table.items():
            put(mod, name, rule)
    for mod, name in (("elementwise", "Mul"), ("linalg", "Addmm")):
        cls = getattr(mods[mod], name, None)
        if isinstance(cls, type):
            _PRODUCT_RULES.add(cls)
    for name in _MULTILINEAR["linalg"]:
        cls = getattr(mods["linalg"], name, None)
        if isinstance(cls, type):
            _PRODUCT_RULES.add(cls)
    _install_refusals()
    _RULES["_installed"] = True


# ---- ops without forward AD in PyTorch --------------------------------------------------
_NOT_YET = ("Trying to use forward AD with {} that does not support it because it has not been "
            "implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that "
            "we can prioritize its implementation or submit a PR adding the implementation to "
            "derivatives.yaml")
_UNSUPPORTED = "Trying to use forward AD with aten::{} that does not support it."


def no_forward_ad_error(name, not_yet=True):
    """PyTorch's NotImplementedError for op ``name`` given a dual tensor: ``not_yet`` for an op
    whose formula is missing, else for one PyTorch declares not differentiable that way."""
    return NotImplementedError((_NOT_YET if not_yet else _UNSUPPORTED).format(name))


def refuse_duals(name, *args, not_yet=True):
    """Raise :func:`no_forward_ad_error` when an argument carries a visible tangent; for the
    composite ops (built from other ops, which would give a tangent) that PyTorch refuses."""
    if _interpose.STATE.fw_levels and _interpose.top_tangent_level(args) is not None:
        raise no_forward_ad_error(name, not_yet)


def _refusing(name):
    """A rule for an op class PyTorch has no forward formula for (``name`` may be callable:
    the name from the args)."""
    def rule(cls, args, out, tangents):
        raise no_forward_ad_error(name(args) if callable(name) else name)
    return rule


# op class -> the name PyTorch's error gives it
_NO_FORWARD = {
    "distance": {"Cdist": "_cdist_forward", "EuclideanDist": "_euclidean_dist"},
    "pooling": {"GridSampler": lambda args: f"grid_sampler_{args[0].dim() - 2}d"},
    "loss": {"MultiMarginLoss": "multi_margin_loss"},
    "special_ops": {"Igamma": "igamma", "Igammac": "igammac", "Zeta": "special_zeta"},
    "ctc": {"CtcLoss": "_ctc_loss"},
}


def _install_refusals():
    import importlib
    for mod, table in _NO_FORWARD.items():
        module = importlib.import_module(f"numtorch.ops.{mod}")
        for cls_name, name in table.items():
            cls = getattr(module, cls_name, None)
            if isinstance(cls, type):
                _RULES[cls] = _refusing(name)


def register_rule(cls, rule):
    """Give op class ``cls`` a tangent rule ``rule(cls, args, out, tangents)``."""
    _RULES[cls] = rule


# ---- the generic rule ----------------------------------------------------------------------
def _double_vjp(cls, args, out, tangents):
    """``J t`` as ``d/du <vjp(u), t>`` (the op's backward is linear in ``u``)."""
    from ..func import _batching as B
    idx = [i for i, t in enumerate(tangents) if t is not None]
    outer = STATE.enabled and any(
        isinstance(a, Tensor) and a._rg for a in list(args) + [tangents[i] for i in idx])
    outs = out if isinstance(out, tuple) else (out,)
    with enable_grad():
        xs = list(args)
        for i in idx:
            xs[i] = B.differentiable_copy(args[i])
        y = cls.apply(*xs)
        ys = y if isinstance(y, tuple) else (y,)
        diff = [k for k, o in enumerate(ys) if isinstance(o, Tensor) and o._rg]
        if not diff:
            return None
        extra = [tangents[i] for i in idx]
        us = [B.fresh_leaf_like(ys[k], extra) for k in diff]
        vjps = B.grad_any([ys[k] for k in diff], [xs[i] for i in idx], us,
                          create_graph=True, allow_unused=True)
        s = _sum_terms(*[(v * tangents[i]).sum() for v, i in zip(vjps, idx) if v is not None])
        if s is None or not s._rg:
            jvps = [None] * len(us)
        else:
            jvps = B.grad_any([s], us, None, create_graph=outer, allow_unused=True)
    result = [None] * len(outs)
    for k, jv in zip(diff, jvps):
        result[k] = jv if jv is not None else _zeros_like(outs[k])
    return tuple(result) if isinstance(out, tuple) else result[0]


# ---- custom Functions ---------------------------------------------------------------------
def run_custom(cls, args, kwargs, diff_out=None):
    """``Function._apply`` that also returns the ctx (its jvp needs it); ``diff_out``, a list,
    gets a flag per output: whether it is differentiable (a float Tensor not so marked)."""
    from .function import _new_ctx, _link_inputs, _wrap_outputs
    grad_on = STATE.enabled
    ctx = _new_ctx(cls)
    needs = tuple([isinstance(a, Tensor) and a._rg for a in args])
    record = grad_on and True in needs
    if record:
        _link_inputs(ctx, args, needs)
    ctx.needs_input_grad = needs  # forward and setup_context may read it
    STATE.enabled = False
    try:
        if cls._setup_ctx:
            out = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, out)
            _interpose.after_setup(cls, args, out)
        else:
            out = cls.forward(ctx, *args, **kwargs)
    finally:
        STATE.enabled = grad_on
    if diff_out is not None:  # which outputs can carry a tangent (before the marks are read)
        diff_out.extend(_differentiable_outputs(ctx, out))
    return ctx, _wrap_outputs(ctx, args, out, record)


def _differentiable_outputs(ctx, out):
    non_diff = ctx._non_diff or ()
    return [isinstance(o, Tensor) and (o.dtype.is_floating_point or o.dtype.is_complex) and
            not any(o is n for n in non_diff) for o in (out if isinstance(out, tuple) else (out,))]


def apply_custom(cls, args, kwargs, level):
    """A custom Function on dual inputs: forward with ``level`` hidden, then its ``jvp``."""
    with _interpose.ceiling(level):
        diff = []
        ctx, out = run_custom(cls, args, kwargs, diff)
        given = [get_tangent(a, level) if isinstance(a, Tensor) else None for a in args]
        versions = [None if t is None else t._vc[0] for t in given]
        tangents = [_tangent_or_zeros(a, level) for a in args]
        t_out = call_jvp(cls, ctx, tangents)
        outs = out if isinstance(out, tuple) else (out,)
        n_out = len(outs)
        t_outs = t_out if isinstance(t_out, tuple) else (t_out,)
        _check_jvp_types(t_outs)
        if len(t_outs) != n_out:
            raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                               f"(expected {n_out} but got {len(t_outs)})")
        for i, (d, o, t) in enumerate(zip(diff, outs, t_outs)):
            if not d and t is not None:
                raise RuntimeError(
                    f"Function's jvp returned a gradient at position {i}, but  the "
                    "corresponding forward output is not a differentiable Tensor.You should "
                    "return None at that position instead.")
            if d:
                _check_jvp_tangent(args, given, versions, o, t)
        from .forward_ad import _public
        if level in _public:  # (torch.func.jvp's own levels make no such check)
            _check_view_tangents(args, outs, t_outs, level)
    attach(out, t_outs if isinstance(out, tuple) else t_outs[0], level)
    return out


def _check_jvp_types(t_outs):
    """PyTorch's check on what a custom Function's jvp returned: Tensors or None."""
    from .function import _type_name
    for i, t in enumerate(t_outs):
        if t is not None and not isinstance(t, Tensor):
            raise RuntimeError(f"expected Variable or None (got {_type_name(t)}) for grad "
                               f"output {i}.")


def _check_jvp_tangent(args, given, versions, out, t):
    """PyTorch's checks on the tangent jvp gave differentiable output ``out``: a float or
    complex Tensor (None fails PyTorch's internal assert too: an undefined tangent is not
    one); for an input modified in place (marked dirty, returned as it is), the tangent that
    input was given, modified in place and returned as it is. ``given``/``versions``: each
    argument's own tangent (None if it had none) and that tangent's version before jvp."""
    if t is None or not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise RuntimeError(
            "(new_grad_base.is_floating_point() || new_grad_base.is_complex()) && "
            "(self_base.is_floating_point() || self_base.is_complex()) INTERNAL ASSERT FAILED "
            "at \"/__w/pytorch/pytorch/torch/csrc/autograd/autograd_meta.cpp\":159, please "
            "report a bug to PyTorch. Expected both tensor and its forward grad to be floating "
            "point or complex")
    for a, g, v in zip(args, given, versions):
        if a is not out or g is None:
            continue
        if t._vc[0] == v:
            raise RuntimeError(
                "An inplace custom Function is not modifying the forward mode gradients "
                "inplace. If the forward is modifying an input inplace, then the jvp function "
                "must modify the corresponding gradient inplace.")
        if t is not g:
            raise RuntimeError(
                "An inplace custom Function is not returning the forward mode gradients as-is. "
                "If the forward is modifying an input inplace, then the jvp function must "
                "modify the gradient inplace and return it as-is.")


def _check_view_tangents(args, outs, t_outs, level):
    """As PyTorch's forward AD: an output that is a view of an input with a tangent (an input
    returned as it is counts: it was made a view) needs, from jvp, a view of that input's
    tangent (of its base, when that tangent is itself a view)."""
    bases = {}
    for a in args:
        if isinstance(a, Tensor):
            bases.setdefault(id(a if a._base is None else a._base), a)
    for o, t in zip(outs, t_outs):
        if not isinstance(o, Tensor) or o._base is None or t is None or \
                any(o is a for a in args):  # (an input modified in place: not a view)
            continue
        a = bases.get(id(o._base))
        given = None if a is None else get_tangent(a, level)
        if given is None:
            continue
        if not isinstance(t, Tensor) or t._base is None:
            raise RuntimeError("A custom Function's forward is returning a view (or an input "
                               "as-is) but the jvp is not returning a view.")
        if given._base is not None:
            if t._base is not given._base:
                raise RuntimeError("A custom Function is returning a view but the jvp is not "
                                   "returning a view of the same base as the given grad input.")
        elif t._base is not given:
            raise RuntimeError("A custom Function is returning a view but the jvp is not "
                               "returning a view of the given grad input.")


def _tangent_or_zeros(a, level):
    if not isinstance(a, Tensor):
        return None
    t = get_tangent(a, level)
    return t if t is not None else _zeros_like(a)


def call_jvp(cls, ctx, tangents):
    """Call ``cls.jvp`` with ``ctx.saved_tensors`` reading what ``save_for_forward`` kept."""
    saved_fw = getattr(ctx, "saved_for_forward", None)
    prev = ctx._saved
    if saved_fw is not None:
        ctx._saved = tuple(None if t is None else (0, t, t._vc[0]) for t in saved_fw)
    elif ctx.to_save:  # saved for backward but nothing recorded: PyTorch shows none
        ctx._saved = ()
    try:
        return cls.jvp(ctx, *tangents)
    finally:
        ctx._saved = prev
