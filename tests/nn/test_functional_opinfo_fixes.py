"""Regression tests for ``torch.nn.functional`` cases the OpInfo suite caught: integer dtypes
kept by clamping activations and integer average pooling, empty and 0-dim inputs, PyTorch's
argument forms, and the torch-level normalisation functions (``torch.native_*``)."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op, check_same

rng = np.random.default_rng(0)


def a(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def ints(*shape, dtype=np.int64, low=-9, high=10):
    return rng.integers(low, high, shape).astype(dtype)


def F(lib):
    return lib.nn.functional


def tensor_of(lib, array):
    return lib.from_numpy(np.array(array, copy=True))


def _lib_of(t):
    """numtorch or torch, whichever ``t`` belongs to (for ``check_op`` lambdas)."""
    return numtorch if isinstance(t, numtorch.Tensor) else pytest.importorskip("torch")


# ---- clamping activations keep integer dtypes ----------------------------------------------
XI = ints(3, 4)
XU8 = ints(3, 4, dtype=np.uint8, low=0, high=255)


@pytest.mark.parametrize("call", [
    lambda lib, x: F(lib).hardtanh(x),
    lambda lib, x: F(lib).hardtanh(x, -1.5, 2.5),     # limits truncate toward zero
    lambda lib, x: F(lib).relu6(x),
    lambda lib, x: F(lib).threshold(x, -0.5, 20.7),   # threshold 0, value 20
    lambda lib, x: F(lib).hardtanh_(x.clone(), -2, 3),
    lambda lib, x: F(lib).threshold_(x.clone(), 1, 7),
])
def test_clamping_activations_keep_int64(call):
    check_same(lambda lib: call(lib, tensor_of(lib, XI)), exact=True)


@pytest.mark.parametrize("call", [
    lambda lib, x: F(lib).relu6(x),
    lambda lib, x: F(lib).hardtanh(x, 1, 6),
    lambda lib, x: F(lib).threshold(x, 100, -9),   # a negative int value wraps into uint8
    lambda lib, x: F(lib).threshold(x, -1, 3),     # ... and so does the threshold
])
def test_clamping_activations_keep_uint8(call):
    check_same(lambda lib: call(lib, tensor_of(lib, XU8)), exact=True)


@pytest.mark.parametrize("call", [
    lambda lib: F(lib).hardtanh(tensor_of(lib, XU8)),
    lambda lib: F(lib).hardtanh(tensor_of(lib, XU8), 1, 300),
    lambda lib: F(lib).hardtanh(tensor_of(lib, XI.astype(np.int8)), -200, 3),
    lambda lib: F(lib).threshold(tensor_of(lib, XU8), 300, 3),
    lambda lib: F(lib).hardtanh(tensor_of(lib, XI > 0)),
    lambda lib: F(lib).relu6(tensor_of(lib, XI > 0)),
    lambda lib: F(lib).threshold(tensor_of(lib, XI > 0), 0, 1),
])
def test_clamping_activation_errors(call):
    check_error(call)


# ---- average pooling -----------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda lib, x: F(lib).avg_pool1d(x[0], 2),
    lambda lib, x: F(lib).avg_pool1d(x[0], (3,), (1,), (1,), True, False),
    lambda lib, x: F(lib).avg_pool2d(x, 2),                       # rounds toward zero
    lambda lib, x: F(lib).avg_pool2d(x, (2, 2), (), (0,), False, True, -2),
    lambda lib, x: F(lib).avg_pool2d(x, (3, 3), (1, 1), (1,), True, False, 3),
    lambda lib, x: F(lib).avg_pool3d(x.unsqueeze(0), (2,)),
])
def test_avg_pool_int64_truncates(call):
    x = ints(2, 5, 6, low=-50, high=50)
    check_same(lambda lib: call(lib, tensor_of(lib, x)), exact=True)


@pytest.mark.parametrize("args", [
    ((2, 2), (1,), (1,)),            # a 1-tuple stride or padding repeats
    ((2,), (), 0),                   # an empty stride means the kernel size
])
def test_avg_pool2d_short_tuples(args):
    check_op(lambda x: _lib_of(x).nn.functional.avg_pool2d(x, *args), a(1, 2, 5, 5))


@pytest.mark.parametrize("call", [
    lambda lib: F(lib).avg_pool2d(lib.zeros(1, 1, 4, 4), (2, 2), (1, 2, 3)),
    lambda lib: F(lib).avg_pool2d(lib.zeros(1, 1, 4, 4), (2, 2, 1)),
    lambda lib: F(lib).avg_pool3d(lib.zeros(1, 4, 4, 4), (2, 2)),
    lambda lib: F(lib).avg_pool3d(lib.zeros(1, 4, 4, 4), 2, 1, (1, 1)),
    lambda lib: F(lib).max_pool2d(lib.zeros(1, 4, 4), 2, 1, 0, (1, 1, 1)),
    lambda lib: F(lib).max_pool3d(lib.zeros(1, 4, 4, 4), 2, (1, 1)),
    lambda lib: F(lib).avg_pool3d(lib.zeros(1, 4, 4, 4), 2, (1, 1)),
    lambda lib: F(lib).max_pool3d(lib.zeros(1, 4, 4, 4), 2, 1, 0, (1, 1)),
    lambda lib: F(lib).avg_pool1d(lib.zeros(1, 4), (2, 2)),
    lambda lib: F(lib).avg_pool2d(lib.zeros(1, 4, 4, dtype=lib.int32), 2),
    lambda lib: F(lib).avg_pool3d(lib.zeros(1, 4, 4, 4, dtype=lib.uint8), 2),
])
def test_pool_argument_errors(call):
    check_error(call)


# ---- other nn.functional edge cases --------------------------------------------------------
def test_prelu_0dim_input_with_one_slope():
    y = check_op(lambda x, w: _lib_of(x).nn.functional.prelu(x, w), a(), np.array([0.25]))
    assert tuple(y.shape) == ()


@pytest.mark.parametrize("x,t,reduction", [
    (a(), np.array(0), "mean"), (a(), np.array(0), "none"),
    (a(5), np.array([1, 1, 3, -1, 0]), "none"),          # a class listed twice counts twice
    (a(4, 5), ints(4, 5, low=-1, high=5), "mean"),
    (a(4, 5), ints(4, 5, low=0, high=5), "sum"),
])
def test_multilabel_margin_loss(x, t, reduction):
    check_op(lambda x, t: _lib_of(x).nn.functional.multilabel_margin_loss(
        x, t, reduction=reduction), x, t, gradgrad=False, grad_fn=False)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_empty_1d(training):
    check_op(lambda x, m, v: _lib_of(x).nn.functional.batch_norm(
        x, m.detach(), v.detach(), training=training), a(0), a(0), np.ones(0), grad=False)


def test_batch_norm_1d_input_size_error():
    check_error(lambda lib: F(lib).batch_norm(lib.ones(3), lib.zeros(3), lib.ones(3)))


def test_unfold_empty_batch():
    check_op(lambda x: _lib_of(x).nn.functional.unfold(x, (2, 2)), a(0, 3, 4, 4))


@pytest.mark.parametrize("name", ["dropout", "alpha_dropout"])
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0])
def test_dropout_0dim(name, p):
    def run(lib):
        lib.manual_seed(0)
        return getattr(F(lib), name)(lib.ones((), dtype=lib.float64) * 3, p, True)
    check_same(run)


@pytest.mark.parametrize("pad", [(-1, 1, -2, 1), (1, -1, 0, 2), (-1, 2, 1, -2)])
def test_pad_circular_negative(pad):
    check_op(lambda x: _lib_of(x).nn.functional.pad(x, pad, "circular"), a(1, 3, 4, 4),
             grad_fn=False)  # PyTorch builds circular padding from slice copies


# ---- torch-level normalisation -------------------------------------------------------------
def test_torch_layer_group_rms_norm():
    check_op(lambda x, w, b: _lib_of(x).layer_norm(x, (4,), w, b, 1e-3), a(2, 3, 4), a(4), a(4))
    check_op(lambda x, w, b: _lib_of(x).group_norm(x, 2, w, b), a(2, 4, 3), a(4), a(4))
    check_op(lambda x, w: _lib_of(x).rms_norm(x, [3, 4], w), a(2, 3, 4), a(3, 4))


@pytest.mark.parametrize("shape,k", [((2, 3, 4), 1), ((2, 3, 4), 2), ((0, 3), 1)])
def test_native_layer_norm(shape, k):
    norm = shape[len(shape) - k:]
    check_op(lambda x, w, b: _lib_of(x).native_layer_norm(x, norm, w, b, 1e-5),
             a(*shape), a(*norm), a(*norm))


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm(training):
    def run(x, w, b):
        lib = _lib_of(x)
        m, v = lib.zeros(3, dtype=x.dtype), lib.ones(3, dtype=x.dtype)
        out = lib.native_batch_norm(x, w, b, m, v, training, 0.1, 1e-5)
        return out + (m, v)
    check_op(run, a(4, 3, 5), a(3), a(3))


def test_native_batch_norm_without_running_stats():
    check_op(lambda x: _lib_of(x).native_batch_norm(x, None, None, None, None, True, 0.1, 0.5),
             a(4, 2, 3))


@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 2), ((1, 3), 1), ((0, 2), 1)])
def test_native_group_norm(shape, groups):
    n, c = shape[:2]
    hxw = int(np.prod(shape[2:], dtype=np.int64))
    check_op(lambda x, w, b: _lib_of(x).native_group_norm(x, w, b, n, c, hxw, groups, 0.5),
             a(*shape), a(c), a(c), grad_fn=False)
