"""Convolutions (``numtorch/ops/conv.py``: im2col columns in (N, C, *K, *L) order, one
batched matmul, and both weight-gradient layouts) against PyTorch: values, gradients and
second derivatives, float32 and float64."""
import numpy as np
import pytest

import numtorch
from helpers import check_op

rng = np.random.default_rng(0)


def a(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def F(name):
    def call(*args, **kwargs):
        lib = numtorch if isinstance(args[0], numtorch.Tensor) else __import__("torch")
        return getattr(lib.nn.functional, name)(*args, **kwargs)
    return call


# Paths: L >= 32 output positions takes per-sample matmuls (conv, transpose and, when
# Og <= L, the weight gradient); fewer take one gemm over N * L per group.
CONV = [
    # the W5 benchmark's layer, small: one input channel, Og <= L (per-sample throughout)
    ("conv2d", [a(4, 1, 8, 8, dtype=np.float32), a(8, 1, 3, 3, dtype=np.float32),
                a(8, dtype=np.float32)], {}),
    ("conv2d", [a(3, 1, 8, 8), a(8, 1, 3, 3), a(8)], {"padding": 1}),
    ("conv2d", [a(2, 4, 9, 9), a(6, 2, 3, 3), a(6)], {"groups": 2, "padding": 1}),
    ("conv1d", [a(2, 2, 40), a(4, 2, 5)], {"dilation": 2, "padding": 3}),
    ("conv2d", [a(2, 2, 8, 8), a(40, 2, 3, 3)], {}),           # L = 36 < Og: gemm weight grad
    ("conv_transpose2d", [a(2, 4, 6, 6), a(4, 2, 3, 3)], {"stride": 2, "padding": 1,
                                                          "groups": 2}),
    # small L: every product is one gemm over N * L
    ("conv2d", [a(3, 4, 3, 3), a(16, 4, 3, 3), a(16)], {}),
    ("conv2d", [a(2, 4, 4, 4), a(12, 2, 3, 3)], {"groups": 2, "stride": 2}),
    ("conv2d", [a(2, 6, 5, 4), a(6, 2, 1, 1), a(6)], {"groups": 3}),    # 1x1 kernel
    ("conv2d", [a(2, 3, 6, 7), a(4, 3, 3, 3)], {"padding": "same", "dilation": (2, 1)}),
    ("conv1d", [a(2, 3, 9), a(10, 3, 4)], {"stride": 3, "padding": 2}),
    ("conv3d", [a(2, 2, 4, 3, 5), a(3, 2, 2, 2, 3), a(3)], {"stride": (1, 2, 1),
                                                           "padding": (1, 0, 1)}),
    ("conv_transpose2d", [a(2, 4, 3, 3), a(4, 3, 3, 3), a(3)], {"stride": 2, "padding": 1,
                                                                "output_padding": 1}),
    ("conv_transpose1d", [a(2, 4, 5), a(4, 1, 3)], {"groups": 4, "dilation": 2}),
    # output_padding reaching the stride (allowed when the dilation is larger): the padded
    # output has room for one more window than the input has positions
    ("conv_transpose2d", [a(2, 2, 4, 4), a(2, 2, 4, 5), a(4)],
     {"stride": (3, 2), "padding": (1, 2), "output_padding": (2, 3), "groups": 2,
      "dilation": (4, 4)}),
    ("conv_transpose3d", [a(1, 2, 3, 3, 3), a(2, 1, 2, 2, 2)], {"dilation": 3,
                                                              "output_padding": 2}),
]


@pytest.mark.parametrize("name,inputs,kwargs", CONV,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CONV)])
def test_conv(name, inputs, kwargs):
    f32 = inputs[0].dtype == np.float32
    check_op(F(name), *inputs, kwargs=kwargs, rtol=1e-4 if f32 else 1e-7,
             atol=1e-5 if f32 else 1e-9)


@pytest.mark.parametrize("unfold", [True, False])
def test_unfold_fold_layout(unfold):
    if unfold:
        check_op(F("unfold"), a(2, 3, 5, 6), (2, 3), kwargs={"padding": 1, "stride": (2, 1)})
    else:
        check_op(F("fold"), a(2, 12, 42), (5, 7), (2, 3), kwargs={"padding": 1})


def test_unfold_1x1_is_a_fresh_writable_copy():
    # regression: a 1x1 kernel's windows are the input itself, as a read-only view
    x = numtorch.ones(1, 2, 3, 3)
    u = numtorch.nn.functional.unfold(x, 1)
    u.add_(1)
    assert u.sum().item() == 36 and x.sum().item() == 18
