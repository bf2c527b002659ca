"""PyTorch's ``grad_fn._saved_<name>`` attributes on the nodes of common built-in ops.

PyTorch's generated nodes expose what they saved for backward under the argument names of
the op's schema: ``x.pow(2).grad_fn._saved_self`` is ``x`` and ``_saved_exponent`` is 2,
``x.exp().grad_fn._saved_result`` equals the output. Here each such name is a property of the
node class, made from a small table of where the op keeps the value: a tensor the op saved
(read through ``saved_tensors``, so version and freed checks apply), a number on the ctx, or
the input's shape. A tensor PyTorch does not save (the operand of ``a * b`` whose partner
needs no gradient) reads as None, as there.

>>> import numtorch as torch
>>> x = torch.tensor([1., 2.], requires_grad=True)
>>> y = x.pow(2)
>>> y.grad_fn._saved_self is x, y.grad_fn._saved_exponent
(True, 2)
"""
from .graph import freed_error

__all__ = ["saved_attr_properties", "keep_given", "negative"]


def _saved(i, needs=None):
    """Entry ``i`` of saved_tensors; None unless input ``needs`` requires grad (when given:
    PyTorch saves that operand only for the other one's gradient)."""
    def get(ctx):
        if needs is not None and not ctx.needs_input_grad[needs]:
            return None
        return ctx.saved_tensors[i]
    get.index = i  # (``_raw_saved_<name>`` reads the entry itself)
    return get


def _operand(i, needs=None):
    """A binary op's operand ``i`` saved by ``_save_pair``: the saved tensor, or a Python
    number as PyTorch's wrapped-number tensor (0-d int64, float64, complex128)."""
    tensor = _saved(i, needs)

    def get(ctx):
        from .function import _FREED
        if needs is not None and not ctx.needs_input_grad[needs]:
            return None  # (never saved, so never freed: PyTorch reads None after backward)
        if ctx._saved is _FREED:
            raise freed_error()
        t = tensor(ctx)
        if t is None and (needs is None or ctx.needs_input_grad[needs]):
            scalar = ctx.__dict__.get("scalar")
            if scalar is not None:
                from .. import _creation, _dtype as D
                kind = {bool: D.bool_, int: D.int64, float: D.float64}.get(type(scalar),
                                                                         D.complex128)
                return _creation.tensor(scalar, dtype=kind)
        return t
    get.index = i
    return get


def _ctx_attr(name, default):
    def get(ctx):
        return ctx.__dict__.get(name, default)
    return get


def _in_sizes(i):
    def get(ctx):
        return tuple(ctx._in_meta[i][0])
    return get


def _in_numel(i):
    def get(ctx):
        n = 1
        for k in ctx._in_meta[i][0]:
            n *= k
        return n
    return get


def _mat_strides(k, i):
    """The strides (in elements) of a matrix product's operand ``k`` (0 or 1; input ``i``)
    where its gradient is needed (that gradient takes its layout), else (): what PyTorch
    keeps."""
    def get(ctx):
        strides = ctx.__dict__.get("strides")
        st = strides[k] if strides is not None else None
        if st is None:
            return ()
        size = ctx._in_meta[i][1].itemsize
        return tuple(s // size for s in st)
    return get


def _ctx_sizes(name):
    def get(ctx):
        return tuple(ctx.__dict__[name])
    return get


def _ctx_numel(name):
    def get(ctx):
        n = 1
        for k in ctx.__dict__[name]:
            n *= k
        return n
    return get


def _ctx_first(name):
    def get(ctx):
        return ctx.__dict__[name][0]
    return get


def _unsigned(v):
    """A negative int64 as PyTorch's saved-attribute getters show it (its uint64 value)."""
    return v + 2 ** 64 if v < 0 else v


def _basic_key_entry(ctx):
    """``(dim, entry)`` of the one non-trivial entry of a basic index's key (an int, a
    slice or None: PyTorch's one select/slice/unsqueeze), dim counted in the input."""
    key = ctx.key if type(ctx.key) is tuple else (ctx.key,)
    at = next(i for i in range(len(key) - 1, -1, -1)
              if key[i] is None or type(key[i]) is int or
              type(key[i]) is slice and key[i] != slice(None))
    ndim = len(ctx.shape)
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    dim = 0
    for k in key[:at]:
        dim += ndim - used if k is Ellipsis else 1
    return dim, key[at]


def _key_dim(ctx):
    return _basic_key_entry(ctx)[0]


def _key_index(ctx):
    return _unsigned(_basic_key_entry(ctx)[1])


def _key_slice(part):
    # (PyTorch's slice defaults: start 0, end INT64_MAX, step 1; negatives as uint64)
    default = {"start": 0, "stop": 2 ** 63 - 1, "step": 1}[part]

    def get(ctx):
        v = getattr(_basic_key_entry(ctx)[1], part)
        return default if v is None else _unsigned(v)
    return get


def _pow_result(ctx):
    """PyTorch keeps ``x ** exponent`` itself; here the same values, recomputed."""
    from .grad_mode import no_grad
    x, e = ctx.saved_tensors[:2]
    with no_grad():
        return x.pow(e)


def _result(compute):
    """A node's own output that numtorch does not keep (PyTorch saves it): recomputed
    from what was saved, as output 0 of the node (so it prints its ``grad_fn=``)."""
    def get(ctx):
        from .grad_mode import no_grad
        from .._tensor import Tensor
        with no_grad():
            out = compute(ctx)
        t = Tensor._make(out._data, ctx, True)
        t._output_nr = 0
        return t
    return get


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}  # (PyTorch's Reduction enum)


def _reduction(ctx):
    return _REDUCTIONS.get(ctx.__dict__.get("reduction"), ctx.__dict__.get("reduction"))


def _nll_weight(ctx):
    from .._tensor import Tensor
    w = ctx.__dict__.get("w")
    return None if w is None else Tensor._make(w, None, False)


def _nll_total_weight(ctx):
    """The weight the mean divides by (PyTorch's kernel computes it for 'sum' too, and
    leaves 0 for 'none'): the summed weights of the targets not ignored."""
    import numpy as np
    from .._tensor import Tensor
    x, t = ctx.saved_tensors
    dt = x._data.dtype
    total = 0
    if ctx.reduction != "none":
        t = t._data.reshape(-1)
        valid = t != ctx.ignore_index
        w = ctx.__dict__.get("w")
        total = np.count_nonzero(valid) if w is None else \
            w[np.where(valid, t, 0)][valid].sum(dtype=dt)
    return Tensor._make(np.asarray(total, dtype=dt), None, False)


_NLL = {"ignore_index": lambda ctx: _unsigned(ctx.ignore_index), "reduction": _reduction,
        "self": _saved(0), "target": _saved(1), "total_weight": _nll_total_weight,
        "weight": _nll_weight}
_SELF = {"self": _saved(0)}
_RESULT = {"result": _saved(0)}
_SLICE = {"dim": _key_dim, "end": _key_slice("stop"), "self_sym_sizes": _ctx_sizes("shape"),
          "start": _key_slice("start"), "step": _key_slice("step")}
_DIM_REDUCE = {"dim": _ctx_attr("dims", None), "keepdim": _ctx_attr("keepdim", False),
               "self_sym_sizes": _ctx_sizes("shape")}
_MINMAX_DIM = {"dim": _ctx_attr("dim", None), "indices": _saved(0),
               "keepdim": _ctx_attr("keepdim", False), "self_sym_sizes": _ctx_sizes("shape")}
_MINMAX_ALL = {"result": _saved(1), "self": _saved(0)}

_TABLE = {
    "MulBackward0": {"self": _operand(0, needs=1), "other": _operand(1, needs=0)},
    "DivBackward0": {"self": _operand(0, needs=1), "other": _operand(1)},
    # (Square, x ** 2 of floats, records PowBackward0 too and keeps no exponent: 2)
    "PowBackward0": {"self": _saved(0), "exponent": _ctx_attr("scalar", 2)},
    "AddBackward0": {"alpha": _ctx_attr("alpha", 1)},
    "SubBackward0": {"alpha": _ctx_attr("alpha", 1)},
    "SumBackward0": {"self_sym_sizes": _in_sizes(0)},
    "MeanBackward0": {"self_sym_numel": _in_numel(0), "self_sym_sizes": _in_sizes(0)},
    "ViewBackward0": {"self_sym_sizes": _in_sizes(0)},
    # (each operand is saved only for the other's gradient: ops.linalg._save_operands)
    "MmBackward0": {"mat2": _saved(1, needs=0), "mat2_sym_sizes": _in_sizes(1),
                    "mat2_sym_strides": _mat_strides(1, 1), "self": _saved(0, needs=1),
                    "self_sym_sizes": _in_sizes(0), "self_sym_strides": _mat_strides(0, 0)},
    "AddmmBackward0": {"alpha": _ctx_attr("alpha", 1), "beta": _ctx_attr("beta", 1),
                       "mat1": _saved(0, needs=2), "mat1_sym_sizes": _in_sizes(1),
                       "mat1_sym_strides": _mat_strides(0, 1), "mat2": _saved(1, needs=1),
                       "mat2_sym_sizes": _in_sizes(2), "mat2_sym_strides": _mat_strides(1, 2)},
    # NOTE: dim as numtorch keeps it, made non-negative (PyTorch shows a negative dim as
    # its unsigned 64-bit value)
    "SoftmaxBackward0": {"dim": _ctx_attr("dim", None), "result": _saved(0)},
    "LogSoftmaxBackward0": {"dim": _ctx_attr("dim", None), "result": _saved(0)},
}
# NOTE: dims as numtorch keeps them, made non-negative (see SoftmaxBackward0's); keyed by
# the forward class's name where several classes make one node (x[0] and x.select(0, 0))
_TABLE.update({
    "SelectIndex": {"dim": _key_dim, "index": _key_index,
                    "self_sym_sizes": _ctx_sizes("shape")},
    "Select": {"dim": _ctx_attr("dim", None), "index": _ctx_attr("index", None),
               "self_sym_sizes": _ctx_sizes("shape")},
    "SliceIndex": _SLICE, "Narrow": _SLICE,
    "UnsqueezeIndex": {"dim": _key_dim},
    "ExpandBackward0": {"self_sym_sizes": _ctx_sizes("shape")},
    "PermuteBackward0": {"dims": _ctx_attr("dims", None)},
    "TransposeBackward0": {"dim0": _ctx_attr("d0", None), "dim1": _ctx_attr("d1", None)},
    "UnsqueezeBackward0": {"dim": _ctx_attr("dim", None)},
    "SqueezeBackward0": {"self_sym_sizes": _ctx_sizes("shape")},
    "SqueezeBackward1": {"dim": _ctx_first("dims"), "self_sym_sizes": _ctx_sizes("shape")},
    "CatBackward0": {"dim": _ctx_attr("dim", None)},
    "Stack": {"dim": _ctx_attr("dim", None)},
    "ClampBackward1": {"max": _ctx_attr("hi", None), "min": _ctx_attr("lo", None),
                       "self": _saved(0)},
    "PowBackward1": {"exponent": _saved(1), "result": _result(_pow_result), "self": _saved(0)},
    "WhereBackward0": {"condition": _saved(0)},
    "SumBackward1": _DIM_REDUCE,
    "MeanBackward1": dict(_DIM_REDUCE, self_sym_numel=_ctx_numel("shape")),
    "MaxBackward0": _MINMAX_DIM, "MinBackward0": _MINMAX_DIM,
    "MaxBackward1": _MINMAX_ALL, "MinBackward1": _MINMAX_ALL,
    "MedianBackward0": _MINMAX_ALL, "NanmedianBackward0": _MINMAX_ALL,
    "Atan2Backward0": {"other": _operand(1), "self": _operand(0)},
    # (both operands are saved only for other's gradient)
    "FmodBackward1": {"other": _operand(1, needs=1), "self": _operand(0, needs=1)},
    "RemainderBackward1": {"other": _operand(1, needs=1), "self": _operand(0, needs=1)},
    "AddcmulBackward0": {"tensor1": _saved(0, needs=2), "tensor2": _saved(1, needs=1),
                         "value": _ctx_attr("value", 1)},
    "MulBackward1": {"other": _ctx_attr("scalar", None)},
    "DivBackward1": {"other": _ctx_attr("scalar", None)},
    "CummaxBackward0": {"dim": _ctx_attr("dim", None), "indices": _saved(1),
                        "self": _saved(0)},
    "CumminBackward0": {"dim": _ctx_attr("dim", None), "indices": _saved(1),
                        "self": _saved(0)},
    "MseLossBackward0": {"reduction": _reduction, "self": _saved(0), "target": _saved(1)},
    "NllLossBackward0": _NLL, "NllLoss2DBackward0": _NLL,
    "SmoothL1LossBackward0": {"beta": _ctx_first("args"), "reduction": _reduction,
                              "self": _saved(0), "target": _saved(1)},
    "HuberLossBackward0": {"delta": _ctx_first("args"), "reduction": _reduction,
                           "self": _saved(0), "target": _saved(1)},
    "SoftMarginLossBackward0": {"reduction": _reduction, "self": _saved(0),
                                "target": _saved(1)},
    "BinaryCrossEntropyBackward0": {"reduction": _reduction, "self": _saved(0),
                                    "target": _saved(1), "weight": _saved(2)},
    "BinaryCrossEntropyWithLogitsBackward0": {
        "pos_weight": _saved(3), "reduction": _reduction, "self": _saved(0),
        "target": _saved(1), "weight": _saved(2)},
})


def _prod_result(ctx):
    x = ctx.saved_tensors[0]
    dim = ctx.__dict__.get("dim")
    return x.prod() if dim is None else x.prod(dim, keepdim=ctx.keepdim)


def _scalar(name, index=None):
    """A number the op keeps on its ctx as ``name`` (``index``: its place in a tuple)."""
    def get(ctx):
        v = ctx.__dict__[name]
        return v if index is None else v[index]
    return get


def _ord(ctx):
    p = ctx.p
    return int(p) if type(p) is float and p.is_integer() else p


def _whole(get):
    """``get``'s float as an int where it is whole (1.0 -> 1)."""
    def read(ctx):
        v = get(ctx)
        return int(v) if type(v) is float and v.is_integer() else v
    return read


def _conv_attrs(transposed):
    """ConvolutionBackward0's table, read from the op's ``ConvGeom`` (a transposed
    convolution's geometry is its adjoint's: ``output_padding`` is the size left over)."""
    def output_padding(ctx):
        g = ctx.geom
        if not transposed:
            return (0,) * len(g.kernel)
        return tuple(s - ((o - 1) * st - lo - hi + d * (k - 1) + 1) for s, o, st, (lo, hi), d, k
                     in zip(g.in_size, g.out_size(), g.stride, g.pad, g.dilation, g.kernel))

    def bias_sizes(ctx):
        shape, dtype = ctx._in_meta[2]
        return tuple(shape) if dtype is not None else (0,)
    return {"bias_sym_sizes_opt": bias_sizes,
            "dilation": lambda ctx: tuple(ctx.geom.dilation),
            "groups": lambda ctx: ctx.geom.groups, "input": _saved(0),
            "output_padding": output_padding,
            "padding": lambda ctx: tuple(lo for lo, _ in ctx.geom.pad),
            "stride": lambda ctx: tuple(ctx.geom.stride),
            "transposed": lambda ctx: transposed, "weight": _saved(1)}


def _roll_dims(ctx):
    dims = ctx.dims
    return () if dims is None else tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)


def _roll_shifts(ctx):
    s = ctx.shifts
    return tuple(s) if isinstance(s, (tuple, list)) else (s,)


def _rrelu_noise(ctx):
    """rrelu's slopes in training; outside it PyTorch leaves its noise tensor unfilled (an
    uninitialised tensor of the input's shape)."""
    import numpy as np
    from .._tensor import Tensor
    noise = ctx.__dict__.get("noise")
    if noise is None:
        noise = np.empty_like(ctx.saved_tensors[0]._data)
    return Tensor._make(noise, None, False)


def _bag_array(read):
    """An int64 array of an embedding_bag's ``_Bag`` (``read(bag)``) as a tensor."""
    def get(ctx):
        import numpy as np
        from .._tensor import Tensor
        return Tensor._make(np.asarray(read(ctx.bag), np.int64), None, False)
    return get


def _offset2bag(bag):
    """PyTorch's offset2bag (the bag of each index); its sum kernel leaves it empty unless
    there is a padding index."""
    import numpy as np
    if bag.mode == 0 and bag.padding_idx is None:
        return np.empty(0, np.int64)
    return np.repeat(np.arange(len(bag.bounds) - 1), np.diff(bag.bounds))[:bag.idx.shape[0]]


def _bag_sizes(bag, k):
    """PyTorch's bag_size (k = 1) or max_indices (k = 2): zeros for sum, the bag sizes for
    mean (both), the sizes and the winning rows for max."""
    import numpy as np
    if bag.mode == 0:
        return np.zeros(bag.member.shape[0], np.int64)
    if k == 2 and bag.mode == 2:  # (PyTorch leaves an empty bag's at 0)
        return np.maximum(bag.max_indices, 0)
    return bag.member.sum(1)


_SORTED = {"dim": _ctx_attr("dim", None), "indices": _saved(0),
           "self_sym_sizes": _ctx_sizes("shape")}
_EXTREME = {"dim": _ctx_sizes("dims"), "keepdim": _ctx_attr("keepdim", False),
            "result": _saved(1), "self": _saved(0)}
_TABLE.update({
    "SiluBackward0": _SELF, "MishBackward0": _SELF, "HardswishBackward0": _SELF,
    "HardsigmoidBackward0": _SELF,
    "Gelu": {"approximate": _ctx_attr("approximate", "none"), "self": _saved(0)},
    "LeakyRelu": {"negative_slope": _ctx_attr("slope", 0.01), "self": _saved(0)},
    # (scale and input_scale are PyTorch's C++ defaults, 1, where elu/celu pass none)
    "Elu": {"alpha": _scalar("args", 0), "input_scale": _whole(_scalar("args", 2)),
            "scale": _whole(_scalar("args", 1)), "self": _saved(0)},
    "Celu": {"alpha": _scalar("args", 0), "self": _saved(0)},
    "Hardshrink": {"lambd": _scalar("lambd"), "self": _saved(0)},
    "Softshrink": {"lambd": _scalar("lambd"), "self": _saved(0)},
    "RreluWithNoise": {"lower": _scalar("lower"), "noise": _rrelu_noise,
                       "self": _saved(0), "training": lambda ctx: True,
                       "upper": _scalar("upper")},
    "RreluEval": {"lower": _scalar("lower"), "noise": _rrelu_noise, "self": _saved(0),
                  "training": lambda ctx: False, "upper": _scalar("upper")},
    "Convolution": _conv_attrs(False), "ConvTranspose": _conv_attrs(True),
    "ConstantPadNd": {"pad": lambda ctx: tuple(_unsigned(v) for lo, hi in reversed(ctx.pad)
                                               for v in (lo, hi))},
    "Softplus": {"beta": _scalar("beta"), "self": _saved(0), "threshold": _scalar("threshold")},
    "Hardtanh": {"max_val": _scalar("hi"), "min_val": _scalar("lo"), "self": _saved(0)},
    "Threshold": {"self": _saved(0), "threshold": _scalar("threshold")},
    "MaskedFill": {"mask": _saved(0)}, "MaskedFillTensor": {"mask": _saved(0)},
    "ClampMin": {"min": _ctx_attr("lo", None), "self": _saved(0)},
    "ClampMax": {"max": _ctx_attr("hi", None), "self": _saved(0)},
    "MaximumBackward0": {"other": _saved(1), "self": _saved(0)},
    "MinimumBackward0": {"other": _saved(1), "self": _saved(0)},
    "RsubBackward1": {"alpha": _ctx_attr("alpha", 1)},
    "MvBackward0": {"self": _saved(0), "vec": _saved(1)},
    "DotBackward0": {"self": _saved(0), "tensor": _saved(1)},
    "BmmBackward0": {"mat2": _saved(1, needs=0), "self": _saved(0, needs=1)},
    "ProdBackward0": {"result": _result(_prod_result), "self": _saved(0)},
    "ProdBackward1": {"dim": _ctx_attr("dim", None), "keepdim": _ctx_attr("keepdim", False),
                      "result": _result(_prod_result), "self": _saved(0)},
    "VarBackward0": {"correction": _ctx_attr("c", 1), "dim": _ctx_sizes("dims"),
                     "keepdim": _ctx_attr("keepdim", False), "self": _saved(0)},
    "StdBackward0": {"correction": _ctx_attr("c", 1), "dim": _ctx_sizes("dims"),
                     "keepdim": _ctx_attr("keepdim", False), "result": _saved(1),
                     "self": _saved(0)},
    "LinalgVectorNormBackward0": {"dim": _ctx_sizes("dims"),
                                  "keepdim": _ctx_attr("keepdim", False), "ord": _ord,
                                  "result": _saved(1), "self": _saved(0)},
    "LogsumexpBackward0": {"dim": _ctx_sizes("dims"), "keepdim": _ctx_attr("keepdim", False),
                           "result": _saved(1), "self": _saved(0)},
    # (pairwise_distance's at::norm: p is a double there)
    "NormBackward1": {"dim": _ctx_sizes("dims"), "keepdim": _ctx_attr("keepdim", False),
                      "p": lambda ctx: float(ctx.p), "result": _saved(1), "self": _saved(0)},
    "AmaxBackward0": _EXTREME, "AminBackward0": _EXTREME,
    "VarMeanBackward0": {"correction": _ctx_attr("c", 1), "dim": _ctx_sizes("dims"),
                         "keepdim": _ctx_attr("keepdim", False), "self": _saved(0)},
    "StdMeanBackward0": {"correction": _ctx_attr("c", 1), "dim": _ctx_sizes("dims"),
                         "keepdim": _ctx_attr("keepdim", False), "result0": _saved(1),
                         "self": _saved(0)},
    "CumsumBackward0": {"dim": _ctx_attr("dim", None)},
    "CumprodBackward0": {"dim": _ctx_attr("dim", None), "result": _saved(1),
                         "self": _saved(0)},
    "FlipBackward0": {"dims": _ctx_sizes("dims")},
    "RollBackward0": {"dims": _roll_dims, "shifts": _roll_shifts},
    # (split_size / split_sizes: as given, from the wrapper's keep_given)
    "SplitBackward0": {"dim": _ctx_attr("dim", None), "self_sym_sizes": _in_sizes(0),
                       "split_size": _ctx_attr("split_size", None)},
    "SplitWithSizesBackward0": {"dim": _ctx_attr("dim", None), "self_sym_sizes": _in_sizes(0),
                                "split_sizes": _ctx_attr("split_sizes", None)},
    "UnsafeSplitBackward0": {"dim": _ctx_attr("dim", None), "self_sym_sizes": _in_sizes(0),
                             "split_size": lambda ctx: ctx.sizes[0]},
    "UnsafeSplitWithSizesBackward0": {"dim": _ctx_attr("dim", None),
                                      "self_sym_sizes": _in_sizes(0),
                                      "split_sizes": _ctx_attr("sizes", None)},
    "UnbindBackward0": {"dim": _ctx_attr("dim", None)},
    "SortBackward0": _SORTED, "SortBackward1": _SORTED, "TopkBackward0": _SORTED,
    "IndexSelectBackward0": {"dim": _ctx_attr("dim", None), "index": _saved(0),
                             "self_sym_sizes": _ctx_sizes("shape")},
    "MedianBackward1": dict(_SORTED, keepdim=_ctx_attr("keepdim", False)),
    "KthvalueBackward0": dict(_SORTED, keepdim=_ctx_attr("keepdim", False)),
    "XlogyBackward0": {"other": _saved(1), "self": _saved(0)},
    "XlogyBackward1": {"other": _saved(1), "self": _ctx_attr("scalar", None)},
    "XlogyBackward2": {"other": _ctx_attr("scalar", None), "self": _saved(0)},
    "MultilabelMarginLossBackward0": {"is_target": _saved(2), "reduction": _reduction,
                                      "self": _saved(0), "target": _saved(1)},
    "MultiMarginLossBackward0": {
        "margin": _scalar("args", 1), "p": _scalar("args", 0),
        "reduction": lambda ctx: _REDUCTIONS.get(ctx.args[2], ctx.args[2]),
        "self": _saved(0), "target": _saved(1), "weight": _saved(2)},
})


def _pool_arg(name, default=None):
    """A pooling argument as the functional wrapper noted it (``ops.pooling.keep_args``)."""
    def get(ctx):
        return ctx.__dict__.get("pool_args", {}).get(name, default)
    return get


def _pool_indices(ctx):
    from ..ops.pooling import saved_indices
    return saved_indices(ctx)


_MAX_POOL = {name: _pool_arg(name) for name in ("dilation", "kernel_size", "padding", "stride")}
_MAX_POOL.update(ceil_mode=_pool_arg("ceil_mode", False), result1=_pool_indices,
                 self=_saved(0))
_AVG_POOL = {name: _pool_arg(name) for name in ("divisor_override", "kernel_size", "padding",
                                                "stride")}
_AVG_POOL.update(ceil_mode=_pool_arg("ceil_mode", False),
                 count_include_pad=_pool_arg("count_include_pad", True), self=_saved(0))
for _n in (2, 3):
    _TABLE[f"MaxPool{_n}DWithIndicesBackward0"] = _MAX_POOL
    _TABLE[f"AvgPool{_n}DBackward0"] = _AVG_POOL
    _TABLE[f"AdaptiveAvgPool{_n}DBackward0"] = _SELF
    _TABLE[f"AdaptiveMaxPool{_n}DBackward0"] = {"result1": _saved(1), "self": _saved(0)}


def _stat(k, shape=None):
    """Statistic ``k`` (0: mean, 1: inverse std) a normalization node keeps on its ctx, shaped
    as PyTorch's ``result1``/``result2`` (``shape(ctx, array)``); BatchNorm in eval mode
    returns none (empty tensors)."""
    def get(ctx):
        import numpy as np
        from .function import _FREED
        from .._tensor import Tensor
        if ctx._saved is _FREED:
            raise freed_error()
        x = ctx.saved_tensors[0]
        if ctx.__dict__.get("training", True) is False:
            return Tensor._make(np.empty(0, x._data.dtype), None, False)
        a = np.asarray(ctx.stats[k], dtype=x._data.dtype)
        return Tensor._make(a if shape is None else shape(ctx, a), None, False)
    return get


def _per_channel(ctx, a):
    return a.reshape(-1)


def _per_group(ctx, a):
    return a.reshape(ctx.saved_tensors[0].shape[0], ctx.groups)


def _group_sizes(k):
    def get(ctx):
        shape = ctx.saved_tensors[0].shape
        hw = 1
        for n in shape[2:]:
            hw *= n
        return (shape[0], shape[1], hw)[k]
    return get


_TABLE.update({
    "NativeBatchNormBackward0": {
        "eps": _ctx_attr("eps", 1e-5), "input": _saved(0),
        "result1": _stat(0, _per_channel), "result2": _stat(1, _per_channel),
        "running_mean": _saved(2), "running_var": _saved(3),
        "training": _ctx_attr("training", True), "weight": _saved(1)},
    "NativeLayerNormBackward0": {
        "bias": _saved(2), "input": _saved(0),
        "normalized_shape": lambda ctx: tuple(ctx.saved_tensors[0].shape[ctx.axes[0]:]),
        "result1": _stat(0), "result2": _stat(1), "weight": _saved(1)},
    "NativeGroupNormBackward0": {
        "C": _group_sizes(1), "HxW": _group_sizes(2), "N": _group_sizes(0),
        "eps": _ctx_attr("eps", 1e-5), "group": _ctx_attr("groups", 1), "input": _saved(0),
        "result1": _stat(0, _per_group), "result2": _stat(1, _per_group),
        "weight": _saved(1)},
    "EmbeddingBackward0": {
        "indices": _saved(0), "padding_idx": lambda ctx: _unsigned(ctx.padding_idx),
        "scale_grad_by_freq": _ctx_attr("scale", False), "sparse": _ctx_attr("sparse", False),
        "weight_sym_argsize_0": lambda ctx: ctx.shape[0]},
    "EmbeddingBagBackward0": {
        "indices": _bag_array(lambda b: b.idx), "mode": lambda ctx: ctx.bag.mode,
        "offsets": _bag_array(lambda b: b.offsets),
        "padding_idx": lambda ctx: _unsigned(-1 if ctx.bag.padding_idx is None
                                             else ctx.bag.padding_idx),
        "per_sample_weights": _saved(0), "result1": _bag_array(_offset2bag),
        "result2": _bag_array(lambda b: _bag_sizes(b, 1)),
        "result3": _bag_array(lambda b: _bag_sizes(b, 2)),
        "scale_grad_by_freq": _ctx_attr("scale", False), "sparse": _ctx_attr("sparse", False),
        "weight": _saved(1), "weight_sym_argsize_0": lambda ctx: ctx.shape[0]},
    "LogSigmoidBackward0": {"buffer": _saved(1), "self": _saved(0)},
    "GluBackward0": {"dim": _ctx_attr("dim", None), "self": _saved(0)},
    "PreluKernelBackward0": {"self": _saved(0), "weight": _saved(1)},
    "ClampBackward0": {"max": _saved(2), "min": _saved(1), "self": _saved(0)},
    "LerpBackward0": {"weight": _ctx_attr("w", None)},
    "LerpBackward1": {"end": _saved(1, needs=2), "self": _saved(0, needs=2),
                      "weight": _saved(2)},
})
for _name in ("Exp", "Exp2", "Expm1", "Reciprocal", "Rsqrt", "Tan", "Tanh", "Sigmoid", "Relu",
              "Sqrt"):
    _TABLE[_name + "Backward0"] = _RESULT
for _name in ("Log", "Log1P", "Log2", "Log10", "Sin", "Cos", "Sinh", "Cosh", "Asin", "Acos",
              "Atan", "Asinh", "Acosh", "Atanh", "Abs"):
    _TABLE[_name + "Backward0"] = _SELF


def keep_given(out, **values):
    """Remember on the node of ``out`` (a Tensor, or a tuple of one node's outputs) the
    arguments ``name=value`` as the user gave them, for ``grad_fn._saved_<name>``.

    PyTorch keeps a negative ``dim`` as given (``x.sum(-1).grad_fn._saved_dim`` shows
    ``(18446744073709551615,)``) where the ops here keep it normalised: their wrappers call
    this only when an argument was negative, so the common path does no work."""
    t = out[0] if isinstance(out, (tuple, list)) else out
    node = t._grad_fn
    if node is not None and getattr(node, "_forward_cls", None) is not None:
        given = node.__dict__.setdefault("given", {})
        given.update(values)
    return out


def negative(dim):
    """Whether ``dim`` (an int, or a sequence of them) names a dim from the end."""
    if type(dim) is int:
        return dim < 0
    return isinstance(dim, (tuple, list)) and any(type(d) is int and d < 0 for d in dim)


def _shown(v):
    if v is None or type(v) is float:  # (a float order, 2.0, stays one)
        return v
    if isinstance(v, (tuple, list)):
        return tuple(_shown(d) for d in v)
    return _unsigned(int(v))


def _or_given(name, get):
    """``get``, unless the node keeps ``name`` as the user gave it (``keep_given``)."""
    def read(ctx):
        given = ctx.__dict__.get("given")
        if given is not None and name in given:
            return _shown(given[name])
        return get(ctx)
    return read


def saved_attr_properties(node_name, forward_name=None):
    """``{'_saved_<name>': property}`` for the node class ``node_name`` of the Function
    ``forward_name`` (empty if unknown), with ``_raw_saved_<name>`` (its ``SavedTensor``)
    for the tensors."""
    table = _TABLE.get(forward_name) or _TABLE.get(node_name, {})
    props = {f"_saved_{k}": property(get if hasattr(get, "index") else _or_given(k, get),
                                     doc=f"What the node saved as ``{k}``.")
             for k, get in table.items()}
    props.update({f"_raw_saved_{k}": property(_raw(get.index), doc=f"The saved ``{k}``.")
                  for k, get in table.items() if hasattr(get, "index")})
    return props


def _raw(i):
    def get(ctx):
        from .graph import SavedTensor
        return SavedTensor(ctx, i)  # (once freed, its register_hooks says so)
    return get
