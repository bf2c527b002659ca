"""Regression tests from sweep BH (small training scripts end to end), against PyTorch:
tanh/sigmoid gradients rounded as PyTorch's kernels round them (tanh's ``1 - y*y`` fused,
sigmoid's ``(g * (1 - y)) * y``), std/var gradients (0 for a constant input, nan/inf with
no degrees of freedom, PyTorch's multiplication order), binary_cross_entropy's gradient for
its target (``-logit(x)``), and the warning of ``float()`` on a tensor that requires grad."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import numtorch
from helpers import check_same


def _grads(lib, fn, arrays, upstream_seed=1):
    """(output, input gradients) of ``fn`` over fresh leaves made of ``arrays``."""
    leaves = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
    out = fn(lib, *leaves)
    g = np.asarray(np.random.RandomState(upstream_seed).randn(*out.shape), arrays[0].dtype)
    out.backward(lib.from_numpy(g))
    return [out.detach().numpy()] + [t.grad.numpy() for t in leaves]


def _check_same_array(fn, torch):
    """``fn(numtorch)`` and ``fn(torch)`` are tensors of one dtype and the same values (nan
    where PyTorch has nan, infinities with their signs)."""
    mine, ref = fn(numtorch), fn(torch)
    assert str(mine.dtype) == str(ref.dtype)
    np.testing.assert_array_equal(mine.numpy(), ref.numpy())


def _assert_bits_equal(fn, arrays, torch):
    """numtorch's output and gradients of ``fn`` equal PyTorch's bit for bit."""
    for mine, ref in zip(_grads(numtorch, fn, arrays), _grads(torch, fn, arrays)):
        assert mine.dtype == ref.dtype
        np.testing.assert_array_equal(mine, ref)


# ---- tanh / sigmoid gradients: PyTorch's kernel rounding ----------------------------------
# NOTE: the forward values may differ from PyTorch's in the last bit (its SLEEF tanh), so the
# gradient is checked against PyTorch's backward kernel applied to numtorch's own output
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("scale", [1e-3, 0.4, 1.0, 4.0])
@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_tanh_sigmoid_grads_bitwise(torch, name, dtype, scale):
    x = (np.random.RandomState(0).randn(2051) * scale).astype(dtype)
    y, gx = _grads(numtorch, lambda t, v: getattr(v, name)(), [x])
    g = np.asarray(np.random.RandomState(1).randn(*y.shape), dtype)
    kernel = getattr(torch.ops.aten, f"{name}_backward")
    ref = kernel(torch.from_numpy(g), torch.from_numpy(y.copy())).numpy()
    assert gx.dtype == ref.dtype
    np.testing.assert_array_equal(gx, ref)


def test_tanh_grad_special_values(torch):
    x = np.array([0.0, -0.0, 1e-300, 0.5, -20.0, 30.0, np.inf, -np.inf, np.nan])
    _assert_bits_equal(lambda t, v: v.tanh(), [x], torch)


def test_xor_mlp_training_matches_bitwise(torch):
    """A tanh/sigmoid MLP's first gradients, where the matmuls are exact (0/1 inputs)."""
    def grads(lib):
        lib.manual_seed(0)
        x = lib.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
        y = lib.tensor([[0.], [1.], [1.], [0.]])
        w1 = lib.randn(2, 4, requires_grad=True)
        h = lib.tanh(x @ w1)
        out = lib.sigmoid(h.sum(1, keepdim=True))
        ((out - y) ** 2).mean().backward()
        return w1.grad.numpy()
    np.testing.assert_array_equal(grads(numtorch), grads(torch))


# ---- std / var gradients -----------------------------------------------------------------
_SPREAD_CASES = [
    lambda t, x: x.std(),
    lambda t, x: x.std(1),
    lambda t, x: x.std(0, keepdim=True),
    lambda t, x: x.var(1),
    lambda t, x: x.var(correction=0),
    lambda t, x: t.std_mean(x, 1)[0],
    lambda t, x: t.var_mean(x, 0)[0],
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(_SPREAD_CASES)))
def test_std_var_grads_bitwise(torch, case, dtype):
    x = np.random.RandomState(2).randn(37, 29).astype(dtype)
    _assert_bits_equal(_SPREAD_CASES[case], [x], torch)


@pytest.mark.parametrize("call", [
    lambda t, x: x.std(),                               # a constant input: 0, not nan
    lambda t, x: x.std(1),
    lambda t, x: t.std_mean(x, 1)[0] + t.std_mean(x, 1)[1],
    lambda t, x: x[1].std() + x[0].std(),
])
def test_std_of_constant_rows_has_zero_grad(torch, call):
    def grad(t):
        x = t.tensor([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]], requires_grad=True)
        call(t, x).sum().backward()
        return x.grad
    _check_same_array(grad, torch)


@pytest.mark.parametrize("call", [
    lambda t, x: x.var(correction=6),       # no degrees of freedom: nan where x == mean
    lambda t, x: x.std(correction=7),
    lambda t, x: x.var(1, correction=3),    # dims given: 2 / 0 = inf times (x - mean)
    lambda t, x: x.var((0, 1), correction=6),
    lambda t, x: x.var(1, correction=4),    # a negative dof over dims: a finite factor
    lambda t, x: x[0, 0].var(),
])
def test_var_grad_without_degrees_of_freedom(torch, call):
    def grad(t):
        x = t.tensor([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the degrees-of-freedom warning)
            call(t, x).sum().backward()
        return x.grad
    _check_same_array(grad, torch)


def test_std_double_backward_matches(torch):
    def second(t):
        x = t.tensor([1.0, 2.0, 4.0], dtype=t.float64, requires_grad=True)
        (g,) = t.autograd.grad(x.std(), x, create_graph=True)
        g.pow(2).sum().backward()
        return g.detach(), x.grad
    check_same(second)


# ---- binary_cross_entropy: the target's gradient ------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"reduction": "sum"}, {"reduction": "none"},
                                    {"weight": [1., 2., 3., 4., 5.]}])
def test_bce_target_grad_is_minus_logit(torch, kwargs):
    def grad(t):
        x = t.tensor([0.0, 0.25, 0.5, 0.9, 1.0])
        target = t.tensor([0.0, 0.5, 1.0, 0.3, 1.0], requires_grad=True)
        kw = {k: t.tensor(v) if k == "weight" else v for k, v in kwargs.items()}
        t.nn.functional.binary_cross_entropy(x, target, **kw).sum().backward()
        return target.grad
    _check_same_array(grad, torch)


# ---- float() of a tensor that requires grad warns once, as PyTorch ---------------------
_WARN_SCRIPT = """
import warnings, {lib} as torch
warnings.simplefilter("always")
x = torch.tensor(2.0, requires_grad=True) * 1
with torch.no_grad():
    print(float(x))  # no warning under no_grad, and the one warning is still to come
for conv in (int, bool, lambda t: t.item(), float, float, complex, lambda t: "%.2f" % t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        conv(x)
    print([(w.category.__name__, str(w.message)) for w in caught])
"""


def _warnings_printed(lib):
    script = _WARN_SCRIPT.format(lib=lib)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=str(__import__("pathlib").Path(numtorch.__file__).parents[1]))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_float_of_grad_tensor_warns_once(torch):
    assert _warnings_printed("numtorch") == _warnings_printed("torch")
