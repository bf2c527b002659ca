"""``torch.testing``: ``assert_close`` and ``make_tensor``.

>>> import numtorch as torch
>>> torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0 + 1e-7]))
"""
import numpy as np

from .._tensor import Tensor
from .. import _dtype as D

__all__ = ["assert_close", "make_tensor"]

# PyTorch's default tolerances by dtype: (rtol, atol)
_TOLS = {D.float16: (1e-3, 1e-5), D.float32: (1.3e-6, 1e-5), D.float64: (1e-7, 1e-7),
         D.complex64: (1.3e-6, 1e-5), D.complex128: (1e-7, 1e-7)}


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError unless ``actual`` and ``expected`` are close (PyTorch's rules)."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(f"The length of the sequences mismatch: {len(actual)} != "
                                 f"{len(expected)}")
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_dtype=check_dtype, msg=msg)
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        for k in expected:
            assert_close(actual[k], expected[k], rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_dtype=check_dtype, msg=msg)
        return
    a, e = _as_tensor(actual), _as_tensor(expected)
    _compare(a, e, rtol, atol, equal_nan, check_dtype, msg)


def _as_tensor(x):
    if isinstance(x, Tensor):
        return x
    from .._creation import tensor
    return tensor(x)


def _compare(a, e, rtol, atol, equal_nan, check_dtype, msg):
    if a.shape != e.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {a.shape} "
                             f"!= {e.shape}.")
    if check_dtype and a.dtype is not e.dtype:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {a.dtype} "
                             f"!= {e.dtype}.")
    if rtol is None:
        rtol, atol = _TOLS.get(a.dtype, (0.0, 0.0))
    x, y = a._data, e._data
    if x.dtype.kind in "biu" and y.dtype.kind in "biu":
        close = x == y
    else:
        close = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if not np.all(close):
        n_bad, n = int(np.size(close) - np.count_nonzero(close)), np.size(close)
        diff = np.abs(x.astype(np.float64) - y.astype(np.float64))
        kind = "Scalars" if a.ndim == 0 else "Tensor-likes"
        raise AssertionError(msg or (
            f"{kind} are not {'equal' if rtol == 0 and atol == 0 else 'close'}!\n\n"
            f"Mismatched elements: {n_bad} / {n} ({100.0 * n_bad / n:.1f}%)\n"
            f"Greatest absolute difference: {np.nanmax(diff)}\n"
            f"Greatest relative difference: "
            f"{np.nanmax(diff / np.abs(y.astype(np.float64)))}"))


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False):
    """A tensor of ``shape`` with values uniform in [low, high) (PyTorch's defaults)."""
    from .._creation import rand, randint
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if dtype is D.bool_:
        return randint(0, 2, shape).to(D.bool_)
    if not (dtype.is_floating_point or dtype.is_complex):
        lo = -9 if low is None else int(low)
        hi = 10 if high is None else int(high)
        return randint(max(lo, 0) if dtype is D.uint8 else lo, hi, shape, dtype=dtype)
    lo = -9.0 if low is None else low
    hi = 9.0 if high is None else high
    t = (rand(shape, dtype=dtype) * (hi - lo) + lo)
    t.requires_grad = requires_grad  # (PyTorch's setter: its RuntimeError for a non-bool)
    return t
