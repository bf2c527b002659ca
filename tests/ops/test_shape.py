"""Shape ops against PyTorch: values, dtypes, gradients to second order, grad_fn names,
views vs copies, errors; plus numerical gradient checks without PyTorch."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op, check_same, numerical_grad_check

_rng = np.random.default_rng(2)


def r(*shape, dtype=np.float32):
    return _rng.uniform(-2, 2, size=shape).astype(dtype)


def lib_of(t):
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


X = r(2, 3, 4)

SHAPE_OPS = [
    ("view", lambda x: x.view(6, 4)), ("view-infer", lambda x: x.view(-1, 2)),
    ("view-tuple", lambda x: x.view((4, 6))), ("view-as", lambda x: x.view_as(x.new_ones(24))),
    ("reshape", lambda x: x.reshape(4, -1)),
    ("reshape-copy", lambda x: x.transpose(0, 2).reshape(-1)),
    ("reshape-as", lambda x: x.reshape_as(x.new_ones(3, 8))),
    ("flatten", lambda x: x.flatten()), ("flatten-range", lambda x: x.flatten(1)),
    ("flatten-mid", lambda x: x.flatten(0, 1)), ("unflatten", lambda x: x.unflatten(2, (2, 2))),
    ("ravel", lambda x: x.ravel()),
    ("permute", lambda x: x.permute(2, 0, 1)), ("permute-neg", lambda x: x.permute(-1, 0, 1)),
    ("transpose", lambda x: x.transpose(0, 2)), ("swapaxes", lambda x: x.swapaxes(1, 2)),
    ("t", lambda x: x[0].t()), ("t-1d", lambda x: x[0, 0].t()),
    ("T-2d", lambda x: x[0].T), ("mT", lambda x: x.mT),
    ("movedim", lambda x: x.movedim(0, -1)), ("movedim-multi", lambda x: x.movedim((0, 1), (2, 0))),
    ("expand", lambda x: x[:, :1].expand(2, 5, 4)),
    ("expand-new-dims", lambda x: x.expand(3, 2, 3, 4)),
    ("expand-keep", lambda x: x[:1].expand(-1, 3, 4)),
    ("expand-as", lambda x: x[:1].expand_as(x)),
    ("broadcast-to", lambda x: x[0, 0].broadcast_to((3, 4))),
    ("squeeze", lambda x: x[:1, :, :1].squeeze()), ("squeeze-dim", lambda x: x[:1].squeeze(0)),
    ("squeeze-noop", lambda x: x.squeeze(1)),
    ("squeeze-dims", lambda x: x[:1, :, :1].squeeze((0, 2))),
    ("unsqueeze", lambda x: x.unsqueeze(1)), ("unsqueeze-neg", lambda x: x.unsqueeze(-1)),
    ("select", lambda x: x.select(1, 2)), ("select-neg", lambda x: x.select(-1, -1)),
    ("narrow", lambda x: x.narrow(2, 1, 2)), ("diagonal", lambda x: x.diagonal(0, 1, 2)),
    ("diagonal-offset", lambda x: x[0].diagonal(1)), ("diagonal-neg", lambda x: x[0].diagonal(-1)),
    ("clone", lambda x: x.clone()), ("contiguous", lambda x: x.transpose(0, 1).contiguous()),
    ("split", lambda x: x.split(2, 2)), ("split-sizes", lambda x: x.split([1, 2], 1)),
    ("tensor-split", lambda x: x.tensor_split(3, 2)),
    ("tensor-split-idx", lambda x: x.tensor_split([1, 3], 2)),
    ("chunk", lambda x: x.chunk(2, 1)), ("unbind", lambda x: x.unbind(1)),
    ("flip", lambda x: x.flip(0, 2)), ("fliplr", lambda x: x[0].fliplr()),
    ("flipud", lambda x: x[0].flipud()), ("roll", lambda x: x.roll(1, 2)),
    ("roll-multi", lambda x: x.roll((1, -1), (0, 1))), ("roll-flat", lambda x: x.roll(5)),
    ("repeat", lambda x: x.repeat(2, 1, 1)), ("repeat-new-dims", lambda x: x[0].repeat(2, 1, 2)),
    ("tile", lambda x: x[0].tile((2,))), ("repeat-interleave", lambda x: x.repeat_interleave(2, 1)),
    ("repeat-interleave-flat", lambda x: x[0].repeat_interleave(2)),
    ("tril", lambda x: x.tril()),
    ("triu", lambda x: x.triu(1)), ("tril-neg", lambda x: x[0].tril(-1)),
    ("diag-vec", lambda x: x[0, 0].diag()), ("diag-mat", lambda x: x[0].diag()),
    ("diag-offset", lambda x: x[0, 0].diag(1)), ("diag-embed", lambda x: x[0].diag_embed()),
    ("unfold", lambda x: x.unfold(2, 2, 1)),
]


@pytest.mark.parametrize("fn", [c[1] for c in SHAPE_OPS], ids=[c[0] for c in SHAPE_OPS])
def test_shape_ops(fn):
    check_op(fn, X)


@pytest.mark.parametrize("fn", [c[1] for c in SHAPE_OPS], ids=[c[0] for c in SHAPE_OPS])
def test_shape_ops_on_ints(fn):
    check_op(fn, np.arange(24).reshape(2, 3, 4))


JOIN = [
    ("cat", lambda a, b: lib_of(a).cat([a, b])), ("cat-dim", lambda a, b: lib_of(a).cat((a, b), 1)),
    ("cat-neg", lambda a, b: lib_of(a).cat([a, b, a], -1)),
    ("stack", lambda a, b: lib_of(a).stack([a, b])),
    ("stack-dim", lambda a, b: lib_of(a).stack([a, b], 2)),
    ("stack-neg", lambda a, b: lib_of(a).stack([a, b], -1)),
    ("hstack", lambda a, b: lib_of(a).hstack([a, b])),
    ("vstack", lambda a, b: lib_of(a).vstack([a, b])),
    ("dstack", lambda a, b: lib_of(a).dstack([a, b])),
    ("column-stack", lambda a, b: lib_of(a).column_stack([a[0], b[0]])),
    ("broadcast-tensors", lambda a, b: lib_of(a).broadcast_tensors(a[:1], b[:, :1])),
    ("atleast", lambda a, b: (lib_of(a).atleast_1d(a[0, 0]), lib_of(a).atleast_2d(a[0]),
                              lib_of(a).atleast_3d(a))),
]


@pytest.mark.parametrize("fn", [c[1] for c in JOIN], ids=[c[0] for c in JOIN])
def test_join(fn):
    check_op(fn, r(2, 3), r(2, 3))


def test_cat_promotes_and_skips_empty():
    check_op(lambda a, b: lib_of(a).cat([a, b]), r(3), r(2, dtype=np.float64))
    check_op(lambda a, b: lib_of(a).cat([a, b, a.new_zeros(0)], 0), r(2, 3), r(1, 3))
    check_op(lambda a, b: lib_of(a).cat([a, b.long()]), r(3), r(2))


VIEW_OR_COPY = [
    lambda x: x.view(4, 6), lambda x: x.reshape(6, 4), lambda x: x.t().reshape(-1),
    lambda x: x.permute(1, 0), lambda x: x.flatten(), lambda x: x.t().flatten(),
    lambda x: x.expand(2, 4, 6), lambda x: x.unsqueeze(0), lambda x: x.clone(),
    lambda x: x.contiguous(), lambda x: x.t().contiguous(), lambda x: x.narrow(0, 1, 2),
    lambda x: x.flip(0), lambda x: x.repeat(1, 1), lambda x: x.split(2)[1],
    lambda x: x.diagonal(), lambda x: x.unfold(1, 2, 2), lambda x: x.movedim(0, 1),
]


def test_views_and_copies_like_torch(torch):
    for fn in VIEW_OR_COPY:
        check_same(lambda lib: (fn(lib.arange(24.0).view(4, 6))._base is not None,
                                fn(lib.arange(24.0).view(4, 6)).is_contiguous(),
                                fn(lib.arange(24.0).view(4, 6)).stride()))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2, 3).view(4), lambda lib: lib.ones(2, 3).view(-1, -1),
    lambda lib: lib.ones(2, 3).view(-1, 4), lambda lib: lib.ones(2, 3).t().view(6),
    lambda lib: lib.ones(2, 3).reshape(5), lambda lib: lib.ones(2, 3).permute(0),
    lambda lib: lib.ones(2, 3).permute(0, 0), lambda lib: lib.ones(2, 3).transpose(0, 2),
    lambda lib: lib.ones(2, 3, 4).t(), lambda lib: lib.ones(2, 3).expand(3),
    lambda lib: lib.ones(2, 3).expand(4, 3), lambda lib: lib.ones(2, 3).expand(-1, 2, 3),
    lambda lib: lib.ones(2, 3).squeeze(2), lambda lib: lib.ones(2, 3).unsqueeze(3),
    lambda lib: lib.ones(2, 3).select(1, 3), lambda lib: lib.ones(2, 3).narrow(1, 2, 2),
    lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 4)]), lambda lib: lib.cat([]),
    lambda lib: lib.cat([lib.ones(2, 3), lib.ones(3)]), lambda lib: lib.stack([]),
    lambda lib: lib.stack([lib.ones(2), lib.ones(3)]), lambda lib: lib.ones(4).split([1, 2]),
    lambda lib: lib.ones(4).chunk(0), lambda lib: lib.ones(2, 3).repeat(2),
    lambda lib: lib.ones(2, 3).flatten(1, 0), lambda lib: lib.ones(2, 3).unflatten(1, (2, 2)),
    lambda lib: lib.ones(2, 3).flip(2), lambda lib: lib.ones(2, 3).movedim(0, 2),
], ids=["view-size", "view-two-infer", "view-infer-bad", "view-stride", "reshape-size",
        "permute-len", "permute-dup", "transpose-range", "t-3d", "expand-fewer",
        "expand-mismatch", "expand-leading-infer", "squeeze-range", "unsqueeze-range",
        "select-range", "narrow-range", "cat-sizes", "cat-empty", "cat-dims", "stack-empty",
        "stack-sizes", "split-sum", "chunk-zero", "repeat-fewer", "flatten-order",
        "unflatten-size", "flip-range", "movedim-range"])
def test_errors(fn):
    check_error(fn)


@pytest.mark.filterwarnings("ignore:The use of `x.T`")
def test_T_of_other_ranks_warns_once(monkeypatch):
    from numtorch.ops import shape
    monkeypatch.setattr(shape, "_t_warned", set())
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other"):
        numtorch.ones(2, 3, 4).T
    numtorch.ones(3).T  # PyTorch warns once per process: no second warning (it would raise)
    check_op(lambda x: x.T, X)


def test_size_and_shape_args(torch):
    check_same(lambda lib: (lib.ones(2, 3).view(lib.Size([3, 2])).shape,
                            lib.ones(6).reshape([2, 3]).shape,
                            lib.ones(6).view(lib.tensor(2), 3).shape,
                            lib.ones(2, 1).expand(lib.Size([2, 4])).shape))


# ---- numerical checks (no PyTorch needed) --------------------------------------------------
NUMERICAL = [
    ("view-permute", lambda x: x.view(3, 2).t().reshape(-1) * x),
    ("expand-sum", lambda x: x[:2].expand(3, 2) * x.view(3, 2)),
    ("cat-stack", lambda x: numtorch.cat([x, x * x]) + numtorch.stack([x, x]).sum(0).repeat(2)),
    ("split-flip-roll", lambda x: x.split(4)[0].flip(0).roll(1) * x[2:]),
    ("diag-tril", lambda x: x.view(2, 3)[:, :2].diag() + x.view(3, 2)[:2].tril().sum(1)),
    ("unbind-select", lambda x: x.view(2, 3).unbind(1)[2] * x.view(3, 2).select(1, 0)[:2]),
]


@pytest.mark.parametrize("f", [n[1] for n in NUMERICAL], ids=[n[0] for n in NUMERICAL])
def test_numerical_gradients(f):
    numerical_grad_check(f, [np.array([0.3, -0.7, 1.2, 0.9, 0.4, -1.5])])


# OpInfo regressions: one line per case
OPINFO_FIXES = [
    ("flip-dims-kw", lambda a: lib_of(a).flip(a, dims=(0, 1)), r(2, 3)),
    ("atleast_1d-list", lambda a, b: lib_of(a).atleast_1d([a, b]), r(), r(2)),
    ("atleast_2d-list", lambda a, b: lib_of(a).atleast_2d((a, b)), r(), r(2)),
    ("atleast_3d-args", lambda a, b: lib_of(a).atleast_3d(a, b), r(), r(2, 3)),
    ("diag_embed-dims", lambda a: lib_of(a).diag_embed(a, 1, 0, 2), r(2, 3)),
    ("diag_embed-dims-neg", lambda a: lib_of(a).diag_embed(a, -1, -1, 0), r(2, 3)),
    ("tensor_split-0d", lambda a: lib_of(a).tensor_split(a, lib_of(a).tensor(3)), r(7)),
    ("tensor_split-tensor", lambda a: lib_of(a).tensor_split(a, lib_of(a).tensor([1, 4]), 1),
     r(2, 7)),
    ("cat-empty-1d", lambda a, b: lib_of(a).cat([b, a], 1), r(2, 3), r(0)),
    ("take_along_dim-bcast", lambda a, i: lib_of(a).take_along_dim(a, i, 1), r(5, 1),
     np.array([[0, 0]])),
]


@pytest.mark.parametrize("fn, inputs", [(c[1], c[2:]) for c in OPINFO_FIXES],
                         ids=[c[0] for c in OPINFO_FIXES])
def test_opinfo_fixes(fn, inputs):
    check_op(fn, *inputs)


# ---- found by sweeping scripts against torch ---------------------------------------------
SHAPE_ERRORS = [
    ("broadcast_shapes", lambda lib: lib.broadcast_shapes((2, 1), (3, 3))),
    ("broadcast_shapes-3", lambda lib: lib.broadcast_shapes((1, 2), (3, 1), (4,))),
    ("broadcast_shapes-negative", lambda lib: lib.broadcast_shapes((-1,), (2,))),
    ("reshape-empty-ambiguous", lambda lib: lib.zeros(0, 3).reshape(-1, 0)),
    ("tril-1d", lambda lib: lib.tril(lib.ones(3))),
    ("triu_-1d", lambda lib: lib.ones(3).triu_()),
    ("view-dtype-0d", lambda lib: lib.tensor(5, dtype=lib.int32).view(lib.int64)),
    ("view-dtype-size", lambda lib: lib.zeros(2, 3, dtype=lib.int32).view(lib.int64)),
    ("view-dtype-stride", lambda lib: lib.zeros(4, 2, dtype=lib.int32).t().view(lib.int64)),
    ("view-dtype-offset", lambda lib: lib.zeros(2, 4, dtype=lib.int32)[:, 1:3]
     .view(lib.int64)),
    ("repeat_interleave-negative", lambda lib: lib.repeat_interleave(lib.tensor([2, -1]))),
    ("repeat_interleave-2d", lambda lib: lib.repeat_interleave(lib.tensor([[2, 1]]))),
    ("repeat_interleave-size", lambda lib: lib.tensor([1, 2]).repeat_interleave(
        lib.tensor([2, 1, 1]))),
    ("repeat_interleave-scalar", lambda lib: lib.tensor([1, 2]).repeat_interleave(-1)),
]


@pytest.mark.parametrize("name, fn", SHAPE_ERRORS, ids=[c[0] for c in SHAPE_ERRORS])
def test_sweep_shape_errors(name, fn):
    check_error(fn)


SHAPE_RESULTS = [
    ("broadcast_shapes", lambda lib: lib.broadcast_shapes((2, 1), [3], 1, ())),
    ("view-dtype-grow", lambda lib: lib.arange(8, dtype=lib.int32).view(2, 4).view(lib.int64)),
    ("view-dtype-shrink", lambda lib: lib.arange(4).view(2, 2)[:, :1].view(lib.int8)),
    ("view-dtype-float", lambda lib: lib.tensor([1.0, 2.0]).view(lib.float64)),
    ("repeat_interleave-counts", lambda lib: lib.repeat_interleave(lib.tensor([2, 0, 1]))),
]


@pytest.mark.parametrize("name, fn", SHAPE_RESULTS, ids=[c[0] for c in SHAPE_RESULTS])
def test_sweep_shape_results(name, fn):
    check_same(fn)


def test_view_dtype_shares_memory(torch):
    def write(lib):
        x = lib.arange(8, dtype=lib.int32).view(2, 4)
        x[:, :2].view(lib.int64)[0, 0] = 0
        return x
    check_same(write)


NARROW_TILE = [
    ("narrow-start-high", lambda lib: lib.ones(3).narrow(0, 4, 1)),
    ("narrow-start-low", lambda lib: lib.ones(3).narrow(0, -4, 1)),
    ("narrow-length-negative", lambda lib: lib.ones(3).narrow(0, 1, -1)),
    ("narrow-too-long", lambda lib: lib.ones(3).narrow(0, 2, 5)),
]


@pytest.mark.parametrize("name, fn", NARROW_TILE, ids=[c[0] for c in NARROW_TILE])
def test_narrow_errors(name, fn):
    check_error(fn)


def test_tile_int_and_narrow_negative_start(torch):
    check_same(lambda lib: lib.ones(2, 3).tile(0))
    check_same(lambda lib: lib.arange(6).view(2, 3).tile(2))
    check_same(lambda lib: lib.arange(3).narrow(0, -3, 2))


SHAPE_ERRORS_2 = [
    ("movedim-count", lambda lib: lib.zeros(2, 3, 4).movedim((0, 1), (1,))),
    ("movedim-repeat-src", lambda lib: lib.zeros(2, 3, 4).movedim((0, 0), (1, 2))),
    ("movedim-repeat-dst", lambda lib: lib.zeros(2, 3, 4).movedim((0, 1), (2, 2))),
    ("unflatten-empty", lambda lib: lib.zeros(2, 3, 4).unflatten(1, ())),
    ("cat-tensor", lambda lib: lib.cat(lib.zeros(2, 3))),
    ("stack-tensor", lambda lib: lib.stack(lib.zeros(2, 3))),
    ("split-negative", lambda lib: lib.zeros(2, 3).split(-1)),
    ("split-sizes-negative", lambda lib: lib.zeros(2, 3).split([1, -1, 2])),
    ("repeat-negative", lambda lib: lib.zeros(2, 3, 4).repeat(1, 1, -1)),
    ("roll-align", lambda lib: lib.zeros(2, 3).roll((1, 2), (0,))),
    ("roll-empty", lambda lib: lib.zeros(2, 3).roll((), ())),
    ("diagonal-same", lambda lib: lib.zeros(2, 3).diagonal(0, 1, -1)),
    ("view-float", lambda lib: lib.zeros(2, 3).view(3, 2.0)),
    ("reshape-none", lambda lib: lib.zeros(2, 3).reshape(6, None)),
]


@pytest.mark.parametrize("name, fn", SHAPE_ERRORS_2, ids=[c[0] for c in SHAPE_ERRORS_2])
def test_sweep_shape_errors_2(name, fn):
    check_error(fn)


@pytest.mark.parametrize("shapes", [[(3,), (4,)], [(2, 3), (4, 1, 2)],
                                    [(1, 3), (2, 1), (5, 1, 1, 4)]])
def test_broadcast_tensors_error_is_pytorchs(shapes):
    check_error(lambda lib: lib.broadcast_tensors(*[lib.ones(s) for s in shapes]))


def test_mse_loss_shape_mismatch_error_is_pytorchs():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # both warn about the broadcast first
        check_error(lambda lib: lib.nn.MSELoss()(lib.ones(3), lib.ones(4)))
