"""Max pooling (``numtorch/ops/pooling.py``: the per-offset window scan and its scatter /
gather adjoints) against PyTorch: values, indices, gradients and second derivatives, with
ties, NaN, -inf next to padding, non-finite upstream gradients and every geometry the scan
must handle (padding, ceil mode, dilation, overlapping windows, sizes that do not divide)."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op

rng = np.random.default_rng(0)


def a(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def relu(*shape, dtype=np.float64):
    """Data with many ties (zeros), as after a ReLU: the first maximum must win."""
    return np.maximum(a(*shape, dtype=dtype), 0)


def F(name):
    def call(*args, **kwargs):
        lib = numtorch if isinstance(args[0], numtorch.Tensor) else __import__("torch")
        return getattr(lib.nn.functional, name)(*args, **kwargs)
    return call


MAX_POOL = [
    ("max_pool2d", [relu(2, 3, 6, 6), 2], {}),                       # tiles exactly, ties
    ("max_pool2d", [relu(2, 3, 6, 6, dtype=np.float32), 2], {}),
    ("max_pool2d", [a(2, 2, 7, 5), 2], {}),                          # remainder dropped
    ("max_pool2d", [a(2, 2, 7, 5), 2], {"ceil_mode": True}),         # partial last window
    ("max_pool2d", [relu(1, 2, 7, 7), 3], {"stride": 2, "padding": 1}),
    ("max_pool2d", [a(1, 2, 6, 7), 3], {"stride": 1}),                # overlapping windows
    ("max_pool2d", [a(1, 2, 8, 8), 2], {"stride": 1, "dilation": 2, "padding": 1}),
    ("max_pool2d", [a(1, 2, 8, 9), (2, 3)], {"stride": (3, 2), "padding": (1, 1),
                                             "return_indices": True}),
    ("max_pool2d", [relu(3, 6, 6), 2], {"return_indices": True}),    # unbatched
    ("max_pool2d", [a(1, 1, 24, 24), 12], {"stride": 1, "return_indices": True}),  # 144 offsets
    ("max_pool1d", [relu(2, 3, 9), 2], {}),
    ("max_pool1d", [a(2, 3, 9), 3], {"stride": 2, "padding": 1, "ceil_mode": True,
                                     "return_indices": True}),
    ("max_pool3d", [relu(1, 2, 4, 5, 4), 2], {}),
    ("max_pool3d", [a(1, 2, 5, 5, 5), 3], {"stride": 2, "padding": 1, "dilation": (1, 2, 1),
                                           "return_indices": True}),
]


@pytest.mark.parametrize("name,inputs,kwargs", MAX_POOL,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(MAX_POOL)])
def test_max_pool(name, inputs, kwargs):
    check_op(F(name), *inputs, kwargs=kwargs)


def _both(x, fn):
    """``fn(lib, tensor)`` in numtorch and torch on the same data."""
    torch = pytest.importorskip("torch")
    return fn(numtorch, numtorch.from_numpy(x.copy())), fn(torch, torch.from_numpy(x.copy()))


def _same(mine, ref):
    np.testing.assert_array_equal(mine.detach().numpy(), ref.detach().numpy())


@pytest.mark.parametrize("kwargs", [{}, {"stride": 1, "padding": 1}])
def test_max_pool_nan_picks_last_nan(kwargs):
    x = np.array([[[[1., np.nan, np.nan, 2.], [np.nan, 0., 3., np.nan],
                    [5., 6., np.nan, 1.], [2., 2., 2., 2.]]]])
    (mv, mi), (tv, ti) = _both(x, lambda lib, t: lib.nn.functional.max_pool2d(
        t, 2, return_indices=True, **kwargs))
    _same(mv, tv)
    _same(mi, ti)


def test_max_pool_neg_inf_beside_padding_points_inside():
    x = np.full((1, 1, 3, 4), -np.inf)
    x[0, 0, 2, 3] = 1.
    (mv, mi), (tv, ti) = _both(x, lambda lib, t: lib.nn.functional.max_pool2d(
        t, 3, stride=1, padding=1, return_indices=True))
    _same(mv, tv)
    _same(mi, ti)


@pytest.mark.parametrize("stride", [2, 1])
def test_max_pool_backward_non_finite_grad(stride):
    torch = pytest.importorskip("torch")
    x = relu(1, 2, 6, 6)
    up = a(1, 2, *((3, 3) if stride == 2 else (5, 5)))
    up[0, 0, 1, 1], up[0, 1, 0, 2] = np.inf, np.nan
    grads = []
    for lib in (numtorch, torch):
        t = lib.from_numpy(x.copy()).requires_grad_(True)
        out = lib.nn.functional.max_pool2d(t, 2, stride=stride)
        out.backward(lib.from_numpy(up.copy()))
        grads.append(t.grad)
    # overlapping windows add in another order than ATen: equal up to rounding
    np.testing.assert_allclose(grads[0].numpy(), grads[1].numpy(), rtol=1e-12)


def test_max_pool_double_backward_grad_fn_and_values():
    torch = pytest.importorskip("torch")
    x = relu(2, 2, 6, 6)
    res = []
    for lib in (numtorch, torch):
        t = lib.from_numpy(x.copy()).requires_grad_(True)
        g = lib.from_numpy(a(2, 2, 3, 3, dtype=np.float64) * 0 + 1.5).requires_grad_(True)
        (gx,) = lib.autograd.grad(lib.nn.functional.max_pool2d(t, 2), t, g, create_graph=True)
        (gg,) = lib.autograd.grad((gx * gx).sum(), g)
        res.append((gx.grad_fn.name(), gg))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1].numpy(), res[1][1].numpy())


def test_max_pool_integer():
    x = rng.integers(-5, 5, (2, 2, 5, 5)).astype(np.int64)
    (mv, mi), (tv, ti) = _both(x, lambda lib, t: lib.nn.functional.max_pool2d(
        t, 2, padding=1, return_indices=True))
    _same(mv, tv)
    _same(mi, ti)


def test_max_pool_no_grad_skips_indices_same_values():
    x = relu(2, 3, 7, 7)
    with numtorch.no_grad():
        mine = numtorch.nn.functional.max_pool2d(numtorch.from_numpy(x), 3, 2, 1)
    ref = check_op(F("max_pool2d"), x, 3, 2, 1, grad=False)
    _same(mine, ref)


def _backward_twice(lib):
    x = lib.ones(1, 1, 4, 4, requires_grad=True)
    y = lib.nn.functional.max_pool2d(x, 2).sum()
    y.backward()
    y.backward()


def test_max_pool_second_backward_raises():
    # the window offsets are a saved tensor, freed after the first backward
    check_error(_backward_twice)
