"""The op families added for the OpInfo suite (sorting, special, fft, misc, scatter, linalg
extras): what the OpInfo samples do not reach, and numerical derivative checks without torch.
"""
import sys

import numpy as np
import pytest

import numtorch
from helpers import check_op, check_same, numerical_grad_check

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape)


# ---- missing names: NotImplementedError naming the nearest supported one ---------------------
def test_missing_function_names_the_nearest():
    with pytest.raises(NotImplementedError, match=r"torch\.sortt .*nearest supported: torch\.sort"):
        numtorch.sortt
    assert not hasattr(numtorch, "no_such_op_at_all")


def test_missing_tensor_method_names_the_nearest():
    x = numtorch.ones(2)
    with pytest.raises(NotImplementedError, match=r"Tensor\.dequantize .*Tensor\.quantile"):
        x.dequantize()
    with pytest.raises(NotImplementedError, match=r"Tensor\.dequantize"):
        numtorch.Tensor.dequantize
    assert not hasattr(x, "dequantize")
    with pytest.raises(AttributeError):
        x._no_such_private
    assert not hasattr(x, "no_such_method_at_all")


def test_unknown_tensor_attribute_is_pytorchs_attribute_error():
    # a name PyTorch has not either: PyTorch's own error (numtorch adds nothing)
    with pytest.raises(AttributeError, match="^'Tensor' object has no attribute 'sortt'$"):
        numtorch.ones(2).sortt


def test_tensor_has_no_getattr_hook():
    # a __getattr__ on Tensor would stop CPython from specialising every attribute load on a
    # tensor (the missing names are class attributes instead; see _lazy.TENSOR_NOT_PROVIDED)
    assert all("__getattr__" not in vars(k) for k in numtorch.Tensor.__mro__)
    assert numtorch.Tensor.__getattribute__ is object.__getattribute__


def test_not_provided_list_matches_pytorch():
    torch = pytest.importorskip("torch")
    from numtorch._lazy import TENSOR_NOT_PROVIDED, _NotProvided, _static
    theirs = {n for n in dir(torch.Tensor) if not n.startswith("_")}
    ours = {n for n in dir(numtorch.Tensor)
            if not isinstance(_static(numtorch.Tensor, n), _NotProvided)}
    # every listed name is PyTorch's and still missing; every missing name is listed
    assert set(TENSOR_NOT_PROVIDED) <= theirs
    assert not set(TENSOR_NOT_PROVIDED) & ours
    assert theirs - ours <= set(TENSOR_NOT_PROVIDED)


def test_special_functions_name_scipy_when_it_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match="pip install scipy"):
        numtorch.erf(numtorch.ones(1))


# ---- numerical derivatives (no torch needed) ----------------------------------------------------
@pytest.mark.parametrize("f", [
    lambda x: numtorch.sort(x, 1).values,
    lambda x: numtorch.topk(x, 2).values,
    lambda x: numtorch.quantile(x, 0.3, dim=1),
    lambda x: numtorch.logcumsumexp(x, 1),
    lambda x: numtorch.view_as_real(numtorch.fft.rfft(x)) ** 2,
    lambda x: numtorch.fft.irfft(numtorch.fft.fft(x)),
    lambda x: numtorch.special.i1e(x),
    lambda x: numtorch.cdist(x, x + 1),
    lambda x: numtorch.scatter_reduce(x, 1, numtorch.tensor([[0, 0, 1, 2]] * 3), x, "amax"),
    lambda x: numtorch.linalg.lu(x[:, :3]).U,
    lambda x: numtorch.linalg.qr(x).R,
], ids=["sort", "topk", "quantile", "logcumsumexp", "rfft", "irfft", "i1e", "cdist",
        "scatter_amax", "lu", "qr"])
def test_second_derivatives_numerically(f):
    numerical_grad_check(f, [rand(3, 4)], order=2)


# ---- against torch: what OpInfo does not sample -------------------------------------------------
def test_fftfreq_and_shifts(torch):
    check_same(lambda t: t.fft.fftfreq(7, 0.5))
    check_same(lambda t: t.fft.rfftfreq(8, dtype=t.float64))
    check_op(lambda x: numtorch_or(x).fft.fftshift(x, dim=(0,)), rand(5, 4))


def numtorch_or(x):
    """The library ``x`` belongs to (check_op passes tensors of either)."""
    return numtorch if isinstance(x, numtorch.Tensor) else __import__("torch")


@pytest.mark.parametrize("name", ["hann", "hamming", "blackman", "bartlett", "kaiser",
                                  "nuttall", "cosine", "gaussian"])
@pytest.mark.parametrize("sym", [True, False])
def test_windows(torch, name, sym):
    check_same(lambda t: getattr(t.signal.windows, name)(7, sym=sym))


def test_sort_descending_is_stable_with_nan(torch):
    data = np.array([1.0, np.nan, 0.0, 1.0, -0.0, np.nan])
    check_same(lambda t: t.sort(t.tensor(data), descending=True, stable=True))
    check_same(lambda t: t.sort(t.tensor(data), stable=True))


def test_special_results_of_underivable_ops_are_outside_the_graph(torch):
    x = numtorch.ones(2, requires_grad=True)
    assert not numtorch.special.bessel_j0(x).requires_grad
    assert not numtorch.special.hermite_polynomial_h(x, 2).requires_grad
    assert numtorch.special.i0e(x).requires_grad


def test_in_place_shape_methods(torch):
    check_same(lambda t: t.ones(2, 1, 3).squeeze_(1).unsqueeze_(0).transpose_(0, 2).shape)
