"""Sweep E: float16 numerics ("opmath": PyTorch computes half in float32 and rounds once),
grad_fn names and graph shape, saved-tensor unpack order, in-place on a no_grad view.

Values are compared bit for bit with PyTorch (the oracle; skipped without it)."""
import numpy as np
import pytest

import numtorch
from helpers import torch_or_skip

_rng = np.random.default_rng(5)
_X = _rng.standard_normal(1000).astype(np.float16)
_Y = (_rng.uniform(0, 1, 1000) + 0.5).astype(np.float16)

# (name, fn(lib, x, y)): x, y are float16 tensors of 1000 elements
_HALF_CASES = [
    ("mul_number", lambda t, x, y: x * 0.1),
    ("rmul_number", lambda t, x, y: 0.1 * x),
    ("mul_0dim", lambda t, x, y: x * t.tensor(0.1)),
    ("mul_0dim_first", lambda t, x, y: t.tensor(0.1) * x),
    ("mul_", lambda t, x, y: x.clone().mul_(0.1)),
    ("div_number", lambda t, x, y: x / 0.3),
    ("rdiv_number", lambda t, x, y: 0.3 / y),
    ("div_", lambda t, x, y: x.clone().div_(0.3)),
    ("add_number", lambda t, x, y: x + 0.1),
    # NOTE: [:992]: PyTorch's scalar tail (the last n % 32 elements) skips the fused
    # multiply-add / rounds rsqrt's sqrt to half; numtorch follows the vectorised loop
    ("add_alpha", lambda t, x, y: t.add(x[:992], x.flip(0)[:992], alpha=0.3)),
    ("sub_alpha", lambda t, x, y: t.sub(x[:992], x.flip(0)[:992], alpha=0.7)),
    ("add_number_alpha", lambda t, x, y: t.add(x[:992], 0.1, alpha=3)),
    ("cumsum", lambda t, x, y: x.cumsum(0)),
    ("cumprod", lambda t, x, y: y[:50].cumprod(0)),
    ("addcmul", lambda t, x, y: x.addcmul(x, x, value=0.1)),
    ("addcdiv", lambda t, x, y: x.addcdiv(x, y, value=0.1)),
    ("lerp", lambda t, x, y: x.lerp(x * 2, 0.3)),
    ("lerp_tensor", lambda t, x, y: x.lerp(x * 2, y)),
    ("sum_dim0", lambda t, x, y: x.view(10, 100).sum(0)),
    ("sum_dims", lambda t, x, y: x.view(10, 10, 10).sum((0, 2))),
    ("mean", lambda t, x, y: x.mean()),
    ("mean_dim0", lambda t, x, y: x.view(10, 100).mean(0)),
    ("mean_dim1", lambda t, x, y: x.view(10, 100).mean(1)),
    ("var", lambda t, x, y: x.var()),
    ("var_dim", lambda t, x, y: x.view(10, 100).var(1)),
    ("std_dim", lambda t, x, y: x.view(10, 100).std(0)),
    ("var_mean", lambda t, x, y: t.var_mean(x.view(10, 100), 1)[0]),
    ("norm_dim", lambda t, x, y: x.view(10, 100).norm(dim=1)),
    ("rsqrt", lambda t, x, y: y[:992].rsqrt()),
    ("round_decimals", lambda t, x, y: x.round(decimals=2)),
    ("gelu", lambda t, x, y: t.nn.functional.gelu(x, approximate="tanh")),
    ("silu", lambda t, x, y: t.nn.functional.silu(x)),
    ("leaky_relu", lambda t, x, y: t.nn.functional.leaky_relu(x, 0.1)),
    ("softplus", lambda t, x, y: t.nn.functional.softplus(x)),
    ("mish", lambda t, x, y: t.nn.functional.mish(x)),
    ("hardswish", lambda t, x, y: t.nn.functional.hardswish(x)),
    ("logsigmoid", lambda t, x, y: t.nn.functional.logsigmoid(x)),
    ("glu", lambda t, x, y: t.nn.functional.glu(x.view(10, 100), 1)),
    ("layer_norm", lambda t, x, y: t.nn.functional.layer_norm(x.view(10, 100), (100,))),
    ("group_norm", lambda t, x, y: t.nn.functional.group_norm(x.view(4, 10, 25), 2)),
    ("normalize", lambda t, x, y: t.nn.functional.normalize(x.view(10, 100), dim=1)),
    ("addmm", lambda t, x, y: t.addmm(y.view(10, 100)[:, :10], x.view(10, 100),
                                      y.view(100, 10), alpha=0.5, beta=0.3)),
    ("linear_bias", lambda t, x, y: t.nn.functional.linear(x.view(10, 100), y.view(10, 100),
                                                           y[:10])),
    ("baddbmm", lambda t, x, y: t.baddbmm(y.view(10, 10, 10), x.view(10, 10, 10),
                                          y.view(10, 10, 10), alpha=0.5, beta=0.3)),
    ("einsum", lambda t, x, y: t.einsum("ij,jk->ik", x.view(10, 100), y.view(100, 10))),
    ("conv1d_bias", lambda t, x, y: t.nn.functional.conv1d(x.view(2, 5, 100), y[:60].view(4, 5, 3),
                                                           y[:4], padding=1)),
]


@pytest.mark.parametrize("name,fn", _HALF_CASES, ids=[c[0] for c in _HALF_CASES])
def test_half_opmath_bits(name, fn):
    torch = torch_or_skip()
    want = fn(torch, torch.from_numpy(_X.copy()), torch.from_numpy(_Y.copy()))
    got = fn(numtorch, numtorch.from_numpy(_X.copy()), numtorch.from_numpy(_Y.copy()))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_half_mul_number_backward_bits():
    torch = torch_or_skip()
    out = []
    for lib in (numtorch, torch):
        x = lib.from_numpy(_X[:100].copy()).requires_grad_()
        (x * 0.1).backward(lib.from_numpy(_Y[:100].copy()))
        out.append(x.grad.numpy())
    np.testing.assert_array_equal(*out)


def test_half_saved_tensors_are_the_half_input():
    # computing in float32 must not change what the node saves (the half input)
    for f in (numtorch.nn.functional.silu, numtorch.var, numtorch.nn.functional.mish):
        x = numtorch.from_numpy(_X[:10].copy()).requires_grad_()
        y = f(x)
        saved = y.grad_fn.saved_tensors[0]
        assert saved.dtype == numtorch.float16 and saved.data_ptr() == x.data_ptr()
        y.sum().backward()
        assert x.grad.dtype == numtorch.float16


def _graph(y):
    fn = y.grad_fn
    return fn.name(), [(type(n).__name__ if n is not None else None, i)
                       for n, i in fn.next_functions]


_GRAPH_CASES = [
    ("renorm", lambda t, x: x.renorm(2, 0, 1.0)),
    ("reshape_noncontig", lambda t, x: x.transpose(1, 2).reshape(-1)),
    ("flatten_noncontig", lambda t, x: x.transpose(1, 2).flatten(1)),
    ("ravel_noncontig", lambda t, x: x.transpose(1, 2).ravel()),
    ("ravel_contig", lambda t, x: x.ravel()),
    ("pixel_shuffle", lambda t, x: t.nn.functional.pixel_shuffle(x.view(1, 8, 2, 2), 2)),
    ("pixel_unshuffle", lambda t, x: t.nn.functional.pixel_unshuffle(x.view(1, 2, 4, 4), 2)),
    ("outer", lambda t, x: t.outer(x[0, 0], x[0, 1])),
    ("layer_norm_no_affine", lambda t, x: t.nn.functional.layer_norm(x, (4,))),
    ("batch_norm_no_affine", lambda t, x: t.nn.functional.batch_norm(x, None, None,
                                                                     training=True)),
    ("group_norm_no_affine", lambda t, x: t.nn.functional.group_norm(x, 2)),
    ("conv1d_no_bias", lambda t, x: t.nn.functional.conv1d(x, x[0, :1, :].view(1, 1, 4)
                                                           .expand(1, 4, 4))),
    ("reshape_alias", lambda t, x: x.transpose(1, 2)[0].reshape(2, 8).t().reshape(16)),
    ("reshape_alias_same", lambda t, x: x.permute(2, 0, 1).reshape(4, 2, 4)),
    ("index_select_select", lambda t, x: x[-1, -1]),
    ("index_none_select", lambda t, x: x[None, :, 1]),
    ("index_slice_select", lambda t, x: x[1:, 2]),
    ("index_ellipsis_none", lambda t, x: x[0, ..., None]),
    ("index_full_slices_alias", lambda t, x: x[:, 0:4]),
    ("index_bare_full_slice", lambda t, x: x[0:2]),
    ("clamp_tensor_min", lambda t, x: x[0].clamp(min=x[1])),
    ("clamp_tensor_max", lambda t, x: x[0].clamp(max=x[1])),
]


@pytest.mark.parametrize("name,fn", _GRAPH_CASES, ids=[c[0] for c in _GRAPH_CASES])
def test_graph_names(name, fn):
    torch = torch_or_skip()
    data = _rng.standard_normal((2, 4, 4)).astype(np.float32)
    res = []
    for lib in (numtorch, torch):
        x = lib.from_numpy(data.copy()).requires_grad_()
        y = fn(lib, x)
        (y * y).sum().backward()
        res.append((_graph(y), y.detach().numpy(), x.grad.numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("p", [1, 2, 3, 1.5, 0.5, float("inf")])
def test_renorm_gradient_numerical(p):
    from helpers import numerical_grad_check
    x = _rng.standard_normal((3, 4))
    numerical_grad_check(lambda t: t.renorm(p, 1, 0.8), [x], order=1)


def _hook_log(lib, op):
    log = []
    a = lib.tensor([1., 2.], requires_grad=True)
    b = lib.tensor([3., 4.], requires_grad=True)
    y = op(a, b)
    for raw in (y.grad_fn._raw_saved_self, y.grad_fn._raw_saved_other):
        raw.register_hooks(lambda t: t, lambda t: log.append(t.tolist()) or t)
    y.sum().backward()
    return log


@pytest.mark.parametrize("op", [lambda a, b: a * b, lambda a, b: a / b,
                                lambda a, b: a.mul(b)])
def test_saved_tensor_unpack_order(op):
    torch = torch_or_skip()
    assert _hook_log(numtorch, op) == _hook_log(torch, op)


def test_saved_tensor_pack_order_mul():
    torch = torch_or_skip()
    logs = []
    for lib in (numtorch, torch):
        log = []
        a = lib.tensor([1., 2.], requires_grad=True)
        b = lib.tensor([3., 4.], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: log.append(t.tolist()) or t,
                                                    lambda t: t):
            a * b
        logs.append(log)
    assert logs[0] == logs[1]


def _no_grad_view_inplace(lib, make_view, other):
    c = lib.zeros(3)
    with lib.no_grad():
        cv = make_view(c)
    try:
        other(lib, cv)
    except RuntimeError as e:
        return str(e)
    return cv.tolist(), c.tolist(), cv.requires_grad


@pytest.mark.parametrize("make_view", [lambda c: c[:2], lambda c: c.view(3)[1:],
                                       lambda c: c.unbind(0)[0]])
@pytest.mark.parametrize("other", [
    lambda t, v: v.mul_(t.ones(v.shape, requires_grad=True)),
    lambda t, v: v.copy_(t.ones(v.shape, requires_grad=True)),
    lambda t, v: v.add_(1.0),
    lambda t, v: v[...].add_(t.ones(v.shape, requires_grad=True)),
])
def test_no_grad_view_inplace(make_view, other):
    torch = torch_or_skip()
    assert _no_grad_view_inplace(numtorch, make_view, other) == \
        _no_grad_view_inplace(torch, make_view, other)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float16])
@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp"])
def test_scan_accumulates_wide_bits(op, dtype):
    # PyTorch's CPU scans accumulate float32 in double (half in float32)
    torch = torch_or_skip()
    if op == "logcumsumexp" and dtype is np.complex64:
        pytest.skip("complex logcumsumexp keeps its own path")
    data = _rng.uniform(0.5, 1.5, (3, 4000)).astype(dtype)
    if dtype is np.complex64:
        data = data + 1j * _rng.uniform(-0.1, 0.1, (3, 4000)).astype(np.float32)
    if op == "cumprod":
        data = data[:, :200]
    want = getattr(torch, op)(torch.from_numpy(data.copy()), 1).numpy()
    got = getattr(numtorch, op)(numtorch.from_numpy(data.copy()), 1).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", [((5000,), None), ((64, 300), 1), ((64, 300), None),
                                       ((7, 3, 33), (1, 2)), ((7, 3, 33), 0), ((3, 5), -1)])
@pytest.mark.parametrize("p", [2, 1])
def test_vector_norm_bits(p, shape, dim, dtype):
    # p = 2 over trailing dims: PyTorch's 8-lane (AVX2) vector kernel; p = 1: its scalar
    # kernel's running sum
    torch = torch_or_skip()
    data = _rng.standard_normal(shape).astype(dtype)
    want = torch.linalg.vector_norm(torch.from_numpy(data.copy()), p, dim).numpy()
    got = numtorch.linalg.vector_norm(numtorch.from_numpy(data.copy()), p, dim).numpy()
    np.testing.assert_array_equal(got, want)
