"""``torch.fft``: discrete Fourier transforms with gradients (NumPy's pocketfft underneath).

Three ops do the work, each linear, so each one's gradient is another transform:

- ``FftC2C``: complex -> complex, ``out = scale * F_sign(x)``;  ``dx = scale * F_-sign(g)``;
- ``FftR2C``: real -> onesided complex (``rfftn``);  ``dx = Re(scale * F_+(g zero-padded))``;
- ``FftC2R``: onesided complex -> real (``irfftn``);  ``dx = scale * rfftn(g)`` with the
  bins that stand for two conjugate frequencies doubled (PyTorch's formula).

``n``/``s`` trim or zero-pad the input first (differentiable ops), ``norm`` picks the scale
('backward': none forward, 1/n inverse; 'forward': the reverse; 'ortho': 1/sqrt(n) both ways).
Real inputs of real-to-complex transforms give real gradients.

>>> import numtorch as torch
>>> torch.fft.fft(torch.tensor([1., 0., 0., 0.]))
tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
"""
import math

import numpy as np

from . import _dtype as D
from ._tensor import Tensor
from .ops._base import BuiltinFunction
from .ops._util import wrap_dim

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_make = Tensor._make
_COMPLEX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
            np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}
_REAL = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64,
         np.dtype(np.float32): np.float32, np.dtype(np.float64): np.float64}


def _complex_dtype(x):
    dt = x.dtype if x.dtype.kind in "fc" else D._state["default"].np
    return _COMPLEX[np.dtype(dt)]


class FftC2C(BuiltinFunction):
    """out = scale * F_sign(x) over dims;  dx = scale * F_-sign(g) (real part for real x)."""
    _backward_name = "FftC2CBackward0"

    @staticmethod
    def forward(ctx, x, dims, sign, scale):
        ctx.dims, ctx.sign, ctx.scale = dims, sign, scale
        ctx.real_input = x.dtype.kind != "c"
        dt = _complex_dtype(x)
        if sign < 0:
            out = np.fft.fftn(x, axes=dims, norm="backward")
        else:
            out = np.fft.ifftn(x, axes=dims, norm="forward")
        return _scaled(out, scale, dt)

    @staticmethod
    def backward(ctx, g):
        gx = FftC2C.apply(g, ctx.dims, -ctx.sign, ctx.scale)
        return (_real(gx) if ctx.real_input else gx), None, None, None


class FftR2C(BuiltinFunction):
    """out = scale * rfftn(x) (onesided);  dx = Re(scale * F_+(g zero-padded to full))."""
    _backward_name = "FftR2CBackward0"

    @staticmethod
    def forward(ctx, x, dims, scale):
        ctx.dims, ctx.scale, ctx.n_last = dims, scale, x.shape[dims[-1]]
        dt = _complex_dtype(x)
        return _scaled(np.fft.rfftn(x, axes=dims, norm="backward"), scale, dt)

    @staticmethod
    def backward(ctx, g):
        full = _resize(g, ctx.dims[-1], ctx.n_last)
        return _real(FftC2C.apply(full, ctx.dims, 1, ctx.scale)), None, None


class FftC2R(BuiltinFunction):
    """out = scale * irfftn(x) with last length n;  dx = scale * rfftn(g), middle bins x2."""
    _backward_name = "FftC2RBackward0"

    @staticmethod
    def forward(ctx, x, dims, n_last, scale):
        ctx.dims, ctx.scale = dims, scale
        sizes = [x.shape[d] for d in dims[:-1]] + [n_last]
        out = np.fft.irfftn(x, s=sizes, axes=dims, norm="forward")
        return _scaled(out, scale, _REAL[np.dtype(_complex_dtype(x))])

    @staticmethod
    def backward(ctx, g):
        gx = FftR2C.apply(g, ctx.dims, ctx.scale)
        last = ctx.dims[-1]
        m, n = gx.shape[last], g.shape[last]
        twice = n - m  # bins standing for a frequency and its conjugate
        if twice > 0:
            w = np.ones(m)
            w[1:1 + twice] = 2
            shape = [1] * gx.ndim
            shape[last] = m
            gx = gx * _make(w.reshape(shape).astype(_REAL[gx._data.dtype]), None, False)
        return gx, None, None, None


def _scaled(out, scale, dt):
    out = np.asarray(out)
    if scale != 1:
        out = out * scale
    return out.astype(dt, copy=False)


def _real(t):
    from .ops.complex_ops import real
    return real(t)


def _resize(x, dim, n):
    """``x`` trimmed or zero-padded to length ``n`` along ``dim`` (differentiable)."""
    size = x.shape[dim]
    if n == size:
        return x
    if n < size:
        return x.narrow(dim, 0, n)
    from .ops.shape import cat
    from ._creation import zeros
    shape = list(x.shape)
    shape[dim] = n - size
    return cat([x, zeros(shape, dtype=x.dtype)], dim)


# ---- arguments ---------------------------------------------------------------------------
_NORMS = (None, "backward", "forward", "ortho")


def _scale(norm, n, forward):
    """The factor a transform of ``n`` points applies for ``norm`` in its direction."""
    if norm not in _NORMS:
        raise ValueError(f"Invalid normalization mode: {norm}")
    if norm == "ortho":
        return 1 / math.sqrt(n) if n else 1.0
    scaled = (norm == "forward") if forward else (norm in (None, "backward"))
    return 1.0 / n if scaled and n else 1.0


def _swap(norm):
    return {None: "forward", "backward": "forward", "forward": "backward",
            "ortho": "ortho"}.get(norm, norm)


def _dims_and_sizes(x, s, dim, op):
    """Normalised (dims, sizes) of an n-dim transform (sizes None: keep the input's)."""
    if dim is None:
        dims = list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    dims = [wrap_dim(d, x.ndim) for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"{op} dims must be unique")
    if s is not None:
        s = [s] if isinstance(s, int) else list(s)
        if len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    return dims, s


def _prepare(x, dims, sizes, op):
    """``x`` as a float/complex tensor, trimmed or padded to ``sizes`` along ``dims``."""
    if x._data.dtype.kind not in "fc":
        x = x.to(D.get_default_dtype())
    if sizes is not None:
        for d, n in zip(dims, sizes):
            if n == -1:
                continue
            if n < 1:
                raise RuntimeError(f"Invalid number of data points ({n}) specified")
            x = _resize(x, d, n)
    return x


def _count(x, dims):
    return math.prod(x.shape[d] for d in dims)


# ---- complex-to-complex --------------------------------------------------------------------
def _c2c(input, s, dim, norm, forward, op):
    dims, sizes = _dims_and_sizes(input, s, dim, op)
    x = _prepare(input, dims, sizes, op)
    if not dims:
        return x.to(_complex_dtype_of(x))
    scale = _scale(norm, _count(x, dims), forward)
    return FftC2C.apply(x, tuple(dims), -1 if forward else 1, scale)


def _complex_dtype_of(x):
    return D._FROM_NP[np.dtype(_complex_dtype(x._data))]


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-d discrete Fourier transform along ``dim`` (length ``n``)."""
    return _c2c(input, None if n is None else [n], dim, norm, True, "fft")


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-d inverse discrete Fourier transform along ``dim``."""
    return _c2c(input, None if n is None else [n], dim, norm, False, "ifft")


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-d discrete Fourier transform over ``dim``."""
    return _c2c(input, s, dim, norm, True, "fft2")


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-d inverse discrete Fourier transform over ``dim``."""
    return _c2c(input, s, dim, norm, False, "ifft2")


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-d discrete Fourier transform over ``dim`` (all dims by default)."""
    return _c2c(input, s, dim, norm, True, "fftn")


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-d inverse discrete Fourier transform over ``dim``."""
    return _c2c(input, s, dim, norm, False, "ifftn")


# ---- real-to-complex and complex-to-real -------------------------------------------------------
def _r2c(input, s, dim, norm, op):
    if input._data.dtype.kind == "c":
        raise RuntimeError(f"{op} expects a real input tensor, but got {input.dtype}")
    dims, sizes = _dims_and_sizes(input, s, dim, op)
    if not dims:
        raise RuntimeError(f"{op} must transform at least one axis")
    x = _prepare(input, dims, sizes, op)
    return FftR2C.apply(x, tuple(dims), _scale(norm, _count(x, dims), True))


def _c2r(input, s, dim, norm, op):
    dims, sizes = _dims_and_sizes(input, s, dim, op)
    if not dims:
        raise RuntimeError(f"{op} must transform at least one axis")
    last = dims[-1]
    n_last = sizes[-1] if sizes is not None and sizes[-1] != -1 else \
        2 * (input.shape[last] - 1)
    if n_last < 1:
        raise RuntimeError(f"Invalid number of data points ({n_last}) specified")
    half = (sizes[:-1] if sizes is not None else None)
    x = _prepare(input, dims[:-1], half, op) if half else input
    if x._data.dtype.kind != "c":
        x = x.to(_complex_dtype_of(x))
    x = _resize(x, last, n_last // 2 + 1)
    n = _count(x, dims[:-1]) * n_last
    return FftC2R.apply(x, tuple(dims), n_last, _scale(norm, n, False))


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-d Fourier transform of real ``input``: the n//2 + 1 non-negative frequencies."""
    return _r2c(input, None if n is None else [n], dim, norm, "rfft")


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``rfft``: a real signal of length ``n`` (2 * (m - 1) by default)."""
    return _c2r(input, None if n is None else [n], dim, norm, "irfft")


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-d Fourier transform of real ``input`` (onesided in the last dim)."""
    return _r2c(input, s, dim, norm, "rfft2")


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of ``rfft2``."""
    return _c2r(input, s, dim, norm, "irfft2")


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-d Fourier transform of real ``input`` (onesided in the last dim)."""
    return _r2c(input, s, dim, norm, "rfftn")


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of ``rfftn``."""
    return _c2r(input, s, dim, norm, "irfftn")


# ---- Hermitian ----------------------------------------------------------------------------------
def _conj(t):
    from .ops.complex_ops import conj
    return conj(t)


def _as_complex(t):
    return t if t._data.dtype.kind == "c" else t.to(_complex_dtype_of(
        t if t._data.dtype.kind == "f" else t.to(D.get_default_dtype())))


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: real."""
    return _c2r(_conj(_as_complex(input)), None if n is None else [n], dim, _swap(norm),
                "hfft")


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``hfft``: the first half of a Hermitian spectrum of real ``input``."""
    return _conj(_r2c(input, None if n is None else [n], dim, _swap(norm), "ihfft"))


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-d ``hfft``."""
    return _c2r(_conj(_as_complex(input)), s, dim, _swap(norm), "hfft2")


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-d ``ihfft``."""
    return _conj(_r2c(input, s, dim, _swap(norm), "ihfft2"))


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-d ``hfft``."""
    return _c2r(_conj(_as_complex(input)), s, dim, _swap(norm), "hfftn")


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-d ``ihfft``."""
    return _conj(_r2c(input, s, dim, _swap(norm), "ihfftn"))


# ---- helpers: frequencies and shifts ------------------------------------------------------------
def fftfreq(n, d=1.0, *, dtype=None, device=None, layout=None, requires_grad=False,
            out=None):
    """The sample frequencies of an ``n``-point transform with spacing ``d``."""
    dt = D.to_dtype(dtype).np if dtype is not None else D._state["default"].np
    t = _make(np.fft.fftfreq(n, d).astype(dt), None, False)
    return t.requires_grad_(requires_grad) if requires_grad else t


def rfftfreq(n, d=1.0, *, dtype=None, device=None, layout=None, requires_grad=False,
             out=None):
    """The non-negative sample frequencies of an ``n``-point ``rfft``."""
    dt = D.to_dtype(dtype).np if dtype is not None else D._state["default"].np
    t = _make(np.fft.rfftfreq(n, d).astype(dt), None, False)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _shift(input, dim, sign):
    from .ops.shape import roll
    dims = list(range(input.ndim)) if dim is None else (
        [dim] if isinstance(dim, int) else list(dim))
    dims = [wrap_dim(d, input.ndim) for d in dims]
    if not dims:
        return input.clone()
    shifts = [(input.shape[d] // 2) * sign if sign > 0 else -(input.shape[d] // 2)
              for d in dims]
    return roll(input, shifts, dims)


def fftshift(input, dim=None):
    """Move the zero frequency to the centre (roll by n // 2 along ``dim``)."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """The inverse of ``fftshift``."""
    return _shift(input, dim, -1)
