"""Small fixes checked against PyTorch: complex var/std, complex sinc, pow with a negative
scalar base, as_strided on partial views."""
import warnings

import numpy as np
import pytest

import numtorch
from helpers import check_op, torch_or_skip

_rng = np.random.default_rng(11)


def _complex(*shape, dtype=np.complex128):
    return (_rng.uniform(-2, 2, shape) + 1j * _rng.uniform(-2, 2, shape)).astype(dtype)


# ---- var / std on complex input: a real result, conjugate-Wirtinger gradients ----------
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("op", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": 0, "correction": 0},
                                    {"dim": (0, 1), "keepdim": True}])
def test_var_std_complex(op, dtype, kwargs):
    # var_mean/std_mean are two nodes in numtorch (PyTorch: one VarMeanBackward0 node).
    out = check_op(op, _complex(3, 4, dtype=dtype), kwargs=kwargs,
                   grad_fn=not op.endswith("_mean"))
    first = out[0] if isinstance(out, tuple) else out
    assert first.dtype == (numtorch.float32 if dtype == np.complex64 else numtorch.float64)


def test_var_complex_degenerate_is_real():
    x = numtorch.tensor(_complex(1, 3))
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        assert numtorch.var(x, 0).dtype == numtorch.float64


# ---- sinc: complex values (np.sinc dropped the imaginary part, with a warning) ----------
_SINC_POINTS = [0, 1 + 2j, -0.5 + 0.1j, 3j, 1e-3 + 1e-3j, 2, 0.5, -1.25 - 0.75j]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32, np.float64])
def test_sinc_values_and_grads(dtype):
    x = np.array(_SINC_POINTS, dtype=np.complex128)
    x = (x if np.dtype(dtype).kind == "c" else x.real).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_op("sinc", x, gradgrad=False)
        # PyTorch's second derivative is NaN at 0 (ours the finite limit) and loses digits
        # near 0 to cancellation, as ours does in another way: compare away from 0
        check_op("sinc", x[np.abs(x) > 0.1])


def test_sinc_float32_rounding_and_int_input():
    # computed in float32 like PyTorch: sinc(1.) is -2.78e-08, not float64's 3.9e-17
    torch = torch_or_skip()
    for data in ([1.0, 2.0, 1e-3], [1, 2, 3]):
        mine = numtorch.sinc(numtorch.tensor(data)).numpy()
        ref = torch.sinc(torch.tensor(data)).numpy()
        assert mine.dtype == ref.dtype
        np.testing.assert_array_equal(mine, ref)


# ---- pow with a Python-number base: a negative base gives NaN gradients, no error ---------
_EXPONENTS = np.array([2.0, 3.0, 0.5, -1.0, 0.0, 1.5])


@pytest.mark.parametrize("base", [-2.0, -2, -1.5, 0.0, 0, 2.0])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_scalar_base(base, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_op(lambda x: base ** x, _EXPONENTS.astype(dtype))
        check_op("pow", base, _EXPONENTS.astype(dtype))


# ---- as_strided of a view indexes its base's storage (OpInfo as_strided partial_views) ----
_AS_STRIDED_CASES = [
    (lambda b: b[5:15], (2, 2), (1, 2), {}),
    (lambda b: b[5:15], (2, 2), (1, 2), {"storage_offset": 0}),
    (lambda b: b[5:15], (2, 2), (1, 2), {"storage_offset": 10}),
    (lambda b: b[5:15], (3, 3), (1, 1), {"storage_offset": 4}),  # overlapping reads
    (lambda b: b.view(4, 5).t()[1:], (3, 2), (2, 3), {}),
    (lambda b: b.view(4, 5)[:, 1:3], (3,), (0,), {"storage_offset": 6}),
]


@pytest.mark.parametrize("case", range(len(_AS_STRIDED_CASES)))
def test_as_strided_partial_view(case):
    torch = torch_or_skip()
    make_view, size, stride, kwargs = _AS_STRIDED_CASES[case]
    data = np.random.default_rng(case).standard_normal(20)
    results = []
    for lib in (numtorch, torch):
        x = make_view(lib.tensor(data)).requires_grad_()
        y = lib.as_strided(x, size, stride, **kwargs)
        w = lib.tensor(np.arange(1.0, y.numel() + 1).reshape(size))
        (g,) = lib.autograd.grad((y * w).sum(), x)
        results.append((y.detach().numpy(), g.numpy()))
    (y, g), (ty, tg) = results
    np.testing.assert_allclose(y, ty)
    np.testing.assert_allclose(g, tg)
