"""torch.nn.grad: conv{1,2,3}d_input / conv{1,2,3}d_weight against torch (values, graph,
errors), and against numtorch's own autograd without torch."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, numerical_grad_check

CASES = [  # (input shape, weight shape, kwargs)
    ((2, 3, 9), (4, 3, 3), {}),
    ((2, 3, 9), (4, 3, 3), dict(stride=2, padding=1)),
    ((1, 4, 10), (2, 2, 2), dict(dilation=3, groups=2)),
    ((2, 4, 7, 6), (6, 2, 3, 2), dict(stride=(2, 1), padding=1, groups=2)),
    ((1, 2, 8, 8), (3, 2, 3, 3), dict(stride=3, dilation=2)),
    ((1, 2, 5, 5), (2, 2, 2, 2), dict(stride=2)),  # a row and column the windows miss
    ((1, 2, 4, 5, 5), (2, 1, 2, 3, 2), dict(stride=(1, 2, 1), padding=(1, 0, 1), groups=2)),
]


def _conv(lib, nsp):
    return getattr(lib.nn.functional, f"conv{nsp}d")


@pytest.mark.parametrize("xs, ws, kw", CASES)
def test_equals_autograd_of_conv(xs, ws, kw):
    """Each function is the gradient the convolution's own backward computes."""
    nsp = len(ws) - 2
    rng = np.random.default_rng(0)
    x = numtorch.tensor(rng.standard_normal(xs), requires_grad=True)
    w = numtorch.tensor(rng.standard_normal(ws), requires_grad=True)
    out = _conv(numtorch, nsp)(x, w, **kw)
    go = numtorch.tensor(rng.standard_normal(tuple(out.shape)))
    gx, gw = numtorch.autograd.grad(out, (x, w), go)
    G = numtorch.nn.grad
    a = getattr(G, f"conv{nsp}d_input")(x.shape, w, go, **kw)
    b = getattr(G, f"conv{nsp}d_weight")(x, w.shape, go, **kw)
    np.testing.assert_allclose(a.detach().numpy(), gx.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b.detach().numpy(), gw.numpy(), rtol=1e-10, atol=1e-12)
    assert a.grad_fn.name() == b.grad_fn.name() == "ConvolutionBackwardBackward0"


@pytest.mark.parametrize("xs, ws, kw", CASES)
def test_values_match_torch(xs, ws, kw):
    nsp = len(ws) - 2
    rng = np.random.default_rng(1)
    xv, wv = rng.standard_normal(xs), rng.standard_normal(ws)

    def run(lib):
        x, w = lib.tensor(xv), lib.tensor(wv)
        go = lib.ones_like(_conv(lib, nsp)(x, w, **kw)) * 0.5
        G = lib.nn.functional.grad  # the docs' spelling: F.grad is torch.nn.grad
        return (getattr(G, f"conv{nsp}d_input")(list(x.shape), w, go, **kw),
                getattr(G, f"conv{nsp}d_weight")(x, tuple(w.shape), go, **kw))
    check_same(run)


def test_differentiable_to_second_order():
    """Their nodes differentiate again (the fused conv-bn tutorial's backward relies on it)."""
    rng = np.random.default_rng(2)
    w = numtorch.tensor(rng.standard_normal((2, 3, 2)), requires_grad=True)
    x = numtorch.tensor(rng.standard_normal((2, 3, 7)), requires_grad=True)
    go = numtorch.tensor(rng.standard_normal((2, 2, 3)), requires_grad=True)
    G = numtorch.nn.grad
    numerical_grad_check(lambda w, go: G.conv1d_input((2, 3, 7), w, go, stride=2), [w, go])
    numerical_grad_check(lambda x, go: G.conv1d_weight(x, (2, 3, 2), go, stride=2), [x, go])


ERRORS = [  # (function, input or size, weight or size, grad_output shape, kwargs)
    ("conv2d_input", (1, 1, 4, 4), (1, 1, 2, 2), (1, 1, 2, 2), {}),
    ("conv2d_input", (1, 1, 3, 3), (1, 1, 2, 2), (1, 2, 2, 2), {}),
    ("conv2d_input", (1, 1, 3, 3), (1, 2, 2, 2), (1, 1, 2, 2), {}),
    ("conv2d_input", (1, 1, 3, 3), (1, 1, 2, 2), (1, 1, 2), {}),
    ("conv2d_input", (1, 1, 1, 1), (1, 1, 2, 2), (1, 1, 2, 2), {}),
    ("conv2d_input", (1, 1, 3, 3), (1, 1, 2, 2), (1, 1, 2, 2), dict(groups=0)),
    ("conv2d_input", (1, 1, 3, 3), (1, 1, 2, 2), (1, 1, 5, 5), dict(dilation=0)),
    ("conv2d_input", (1, 1, 3, 3), (1, 1, 2, 2), (1, 1, 2), dict(stride=0)),
    ("conv2d_input", (1, 1, 3, 3), (1, 1, 2, 2), (1, 1, 2, 2), dict(padding=-1)),
    ("conv2d_input", (1, 1, 5, 5), (1, 1, 2, 2), (1, 1, 2, 2), dict(dilation=2)),
    ("conv2d_input", (1, 1, 5, 5), (1, 1, 2, 2), (1, 2, 3, 3), dict(dilation=2)),
    ("conv2d_input", (1, 1, 3, 3), (1, 1, 2, 2), (1, 1, 2, 2), dict(stride=2.0)),
    ("conv2d_input", (1, 1, 3, 3), (1, 1, 2, 2), (1, 1, 2, 2), dict(padding="same")),
    ("conv2d_input", (1, 1, 3, 3), (1, 1, 2, 2), (1, 1, 2, 2), dict(groups=1.0)),
    ("conv2d_weight", (1, 1, 3, 3), (1, 1, 2, 2), (1, 1, 3, 3), {}),
    ("conv2d_weight", (1, 1, 3, 3), (2, 1, 2, 2), (1, 1, 2, 2), {}),
    ("conv2d_weight", (1, 1, 3, 3), (1, 1, 2, 2), (1, 1, 2, 2), dict(groups=2)),
    ("conv1d_input", (1, 1, 3), (1, 1, 2), (1, 1, 3), {}),
    ("conv1d_input", (1, 1, 3), (1, 1, 2), (1, 1, 2), dict(stride=(1, 1))),
    ("conv1d_input", (1, 1, 5), (1, 1, 2), (1, 1, 2), dict(dilation=2)),
    ("conv1d_input", (1, 1, 5), (1, 1, 2), (1, 1, 2), dict(dilation=0)),
    ("conv3d_input", (1, 1, 3, 3, 3), (1, 1, 2, 2, 2), (1, 1, 2, 3, 2), {}),
    ("conv3d_weight", (1, 1, 3, 3, 3), (1, 1, 2, 2, 2), (1, 2, 2, 2, 2), {}),
]


@pytest.mark.parametrize("name, xs, ws, gs, kw", ERRORS)
def test_errors_match_torch(name, xs, ws, gs, kw):
    def run(lib):
        fn = getattr(lib.nn.grad, name)
        go = lib.ones(gs)
        if name.endswith("_input"):
            return fn(xs, lib.ones(ws), go, **kw)
        return fn(lib.ones(xs), ws, go, **kw)
    check_error(run)


@pytest.mark.parametrize("name, dtypes", [
    ("conv2d_input", ("float64", "float32")),
    ("conv2d_input", ("int64", "int64")),
    ("conv2d_weight", ("int64", "int64")),
    ("conv2d_weight", ("float32", "int64")),
    ("conv3d_input", ("int64", "int64")),
    ("conv1d_weight", ("int64", "int64")),
])
def test_dtype_errors_match_torch(name, dtypes):
    nsp = int(name[4])
    xs, ws, gs = (1, 1) + (3,) * nsp, (1, 1) + (2,) * nsp, (1, 1) + (2,) * nsp

    def run(lib):
        fn = getattr(lib.nn.grad, name)
        a, b = (getattr(lib, d) for d in dtypes)
        if name.endswith("_input"):
            return fn(xs, lib.ones(ws, dtype=a), lib.ones(gs, dtype=b))
        return fn(lib.ones(xs, dtype=a), ws, lib.ones(gs, dtype=b))
    check_error(run)
