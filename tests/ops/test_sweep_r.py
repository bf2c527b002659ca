"""Sweep R (OpInfo leftovers): torch.grid_sampler_2d/3d with ATen's integer modes, grid
sampling differentiated twice, as_strided's gradient (AsStridedBackward0, views' storage),
as_strided_scatter (PyTorch's backward, checks and messages), the functional triplet loss
with a custom distance.

Every case runs in numtorch and in PyTorch (the oracle; skipped without it)."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op, check_same_outcome


def _lib(t):
    """The library of tensor ``t`` (check_op's functions receive tensors only)."""
    if isinstance(t, numtorch.Tensor):
        return numtorch
    import torch
    return torch


def _grid_inputs(nsp, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3) + (4, 5, 3)[:nsp])
    # a margin beyond [-1, 1] exercises padding; no point sits on a pixel edge
    grid = rng.uniform(-1.3, 1.3, (2,) + (3, 2, 2)[:nsp] + (nsp,))
    return x, grid


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sampler_2d_matches_torch_twice_differentiated(mode, padding, align):
    x, grid = _grid_inputs(2)
    check_op(lambda a, g: _lib(a).grid_sampler_2d(a, g, mode, padding, align), x, grid,
             rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("padding", [0, 1, 2])
def test_grid_sampler_3d_matches_torch_twice_differentiated(mode, padding):
    x, grid = _grid_inputs(3, seed=1)
    check_op(lambda a, g: _lib(a).grid_sampler_3d(a, g, mode, padding, True), x, grid,
             rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_grid_sample_second_derivatives(mode):
    x, grid = _grid_inputs(2, seed=2)
    check_op(lambda a, g: _lib(a).nn.functional.grid_sample(
        a, g, mode=mode, padding_mode="reflection", align_corners=False), x, grid,
        rtol=1e-7, atol=1e-9)


def test_grid_sample_grad_fn_names(torch):
    x, grid = _grid_inputs(2)
    a = numtorch.tensor(x, requires_grad=True)
    out = numtorch.grid_sampler_2d(a, numtorch.tensor(grid), 0, 0, False)
    g, = numtorch.autograd.grad(out.sum(), a, create_graph=True)
    assert out.grad_fn.name() == "GridSampler2DBackward0"
    assert g.grad_fn.name() == "GridSampler2DBackwardBackward0"


def _x(t, *shape):
    return t.arange(float(np.prod(shape))).reshape(shape)


_GRID_ERRORS = [
    ("batch", lambda t: t.grid_sampler_2d(_x(t, 1, 3, 3), _x(t, 2, 2, 2, 2), 0, 0, False)),
    ("last_dim", lambda t: t.grid_sampler_3d(_x(t, 1, 1, 3, 3), _x(t, 1, 2, 2, 1), 0, 0,
                                             False)),
    ("rank_2d", lambda t: t.grid_sampler_2d(_x(t, 1, 1, 2, 3, 3), _x(t, 1, 1, 2, 2, 3), 0, 0,
                                            False)),
    ("rank_3d", lambda t: t.grid_sampler_3d(_x(t, 1, 1, 3, 3), _x(t, 1, 2, 2, 2), 0, 0,
                                            False)),
    ("rank_either", lambda t: t.grid_sampler(_x(t, 1, 3, 3), _x(t, 1, 2, 1), 0, 0, False)),
    ("empty", lambda t: t.grid_sampler_2d(_x(t, 1, 1, 0, 3), _x(t, 1, 2, 2, 2), 0, 0,
                                          False)),
    ("bicubic_3d", lambda t: t.grid_sampler_3d(_x(t, 1, 1, 2, 2, 2), _x(t, 1, 1, 1, 1, 3), 2,
                                               0, False)),
    ("dtypes", lambda t: t.grid_sampler_2d(_x(t, 1, 1, 3, 3), _x(t, 1, 2, 2, 2).double(), 0,
                                           0, False)),
    ("mode_str", lambda t: t.grid_sampler_2d(_x(t, 1, 1, 3, 3), _x(t, 1, 2, 2, 2),
                                             "bilinear", 0, False)),
    ("align_int", lambda t: t.grid_sampler_2d(_x(t, 1, 1, 3, 3), _x(t, 1, 2, 2, 2), 0, 0, 1)),
    ("functional_batch_first", lambda t: t.nn.functional.grid_sample(
        _x(t, 1, 3, 3), _x(t, 2, 2, 2), align_corners=False)),
    ("functional_dtypes", lambda t: t.nn.functional.grid_sample(
        _x(t, 1, 1, 3, 3), _x(t, 1, 2, 2, 2).double(), align_corners=False)),
]


@pytest.mark.parametrize("name,fn", _GRID_ERRORS, ids=[c[0] for c in _GRID_ERRORS])
def test_grid_sampler_errors_match_torch(name, fn):
    check_error(fn)


def test_grid_sampler_rejects_unknown_mode_number(torch):
    x = numtorch.zeros(1, 1, 2, 2)
    with pytest.raises(RuntimeError, match="interpolation_mode"):
        numtorch.grid_sampler_2d(x, numtorch.zeros(1, 1, 1, 2), 3, 0, False)


# ---- as_strided ------------------------------------------------------------------------
def test_as_strided_grad_fn_and_overlapping_gradient():
    x = np.random.default_rng(0).standard_normal((3, 3))
    check_op(lambda a: a.as_strided((2, 2), (0, 1)), x)
    check_op(lambda a: _lib(a).as_strided(a, (2, 2), (1, 2), 1), x)


def _partial_view(t, size, stride, *offset):
    base = t.arange(20.)
    view = base[5:15].requires_grad_()
    out = view.as_strided(size, stride, *offset)
    grad, = t.autograd.grad(out, view, t.ones(out.shape))
    return out.detach(), grad, out.grad_fn.name()


@pytest.mark.parametrize("offset", [(), (0,), (10,)])
def test_as_strided_of_a_partial_view_reads_its_base(offset):
    check_same_outcome(lambda t: _partial_view(t, (2, 2), (1, 2), *offset))


_AS_STRIDED_ERRORS = [
    ("out_of_bounds", lambda t: t.arange(20.)[5:15].as_strided((2, 2), (1, 2), 18)),
    ("contiguous_out_of_bounds", lambda t: t.arange(9.).as_strided((2, 2), (1, 2), 8)),
    ("negative_stride", lambda t: t.arange(9.).as_strided((2, 2), (-1, 2))),
    ("negative_offset", lambda t: t.arange(9.).as_strided((2, 2), (1, 2), -1)),
    ("scatter_out_of_bounds", lambda t: t.zeros(3, 3).as_strided_scatter(
        t.ones(2, 2), (2, 2), (1, 2), 8)),
    ("scatter_src_shape", lambda t: t.zeros(3, 3).as_strided_scatter(
        t.ones(4), (2, 2), (1, 2))),
    ("scatter_overlap", lambda t: t.zeros(3, 3).as_strided_scatter(
        t.ones(2, 2), (2, 2), (0, 0))),
    ("scatter_rank", lambda t: t.zeros(3, 3).as_strided_scatter(t.ones(2, 2), (2, 2), (1,))),
]


@pytest.mark.parametrize("name,fn", _AS_STRIDED_ERRORS, ids=[c[0] for c in _AS_STRIDED_ERRORS])
def test_as_strided_errors_match_torch(name, fn):
    check_error(fn)


def test_as_strided_scatter_gradients_are_pytorchs():
    # PyTorch's input gradient keeps the grad at the scattered positions (not elsewhere)
    rng = np.random.default_rng(1)
    check_op(lambda a, s: _lib(a).as_strided_scatter(a, s, (2, 2), (1, 2), 1),
             rng.standard_normal((3, 3)), rng.standard_normal((2, 2)))


def test_as_strided_scatter_casts_src(torch):
    check_same_outcome(lambda t: t.zeros(2, 2).as_strided_scatter(
        t.ones(2, dtype=t.float64), (2,), (3,)))


# ---- triplet_margin_with_distance_loss ---------------------------------------------------
def test_triplet_with_distance_module_argument():
    rng = np.random.default_rng(2)
    a, p, n = (rng.standard_normal((4, 5)) for _ in range(3))
    check_op(lambda *xs: _lib(xs[0]).nn.functional.triplet_margin_with_distance_loss(
        *xs, distance_function=_lib(xs[0]).nn.PairwiseDistance(p=1.5), swap=True), a, p, n)


_TRIPLET_ERRORS = [
    ("margin", lambda t: t.nn.functional.triplet_margin_with_distance_loss(
        t.zeros(2, 3), t.zeros(2, 3), t.zeros(2, 3), margin=0.0)),
    ("reduction", lambda t: t.nn.functional.triplet_margin_with_distance_loss(
        t.zeros(2, 3), t.zeros(2, 3), t.zeros(2, 3), margin=-1.0, reduction="avg")),
    ("dims", lambda t: t.nn.functional.triplet_margin_with_distance_loss(
        t.zeros(2, 3), t.zeros(3), t.zeros(2, 3))),
    ("module_margin", lambda t: t.nn.TripletMarginWithDistanceLoss(margin=0.0)),
]


@pytest.mark.parametrize("name,fn", _TRIPLET_ERRORS, ids=[c[0] for c in _TRIPLET_ERRORS])
def test_triplet_with_distance_errors_match_torch(name, fn):
    check_error(fn)
