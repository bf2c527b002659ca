"""``torch.signal.windows``: window functions as 1-d tensors.

``sym=True`` gives a symmetric window (for filter design); ``sym=False`` a periodic one (for
spectral analysis: the symmetric window of length M + 1 without its last point).

>>> import numtorch as torch
>>> torch.signal.windows.hann(4)
tensor([0.0000, 0.7500, 0.7500, 0.0000])
"""
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _window(name, M, sym, dtype, requires_grad, values):
    """Check ``M``, evaluate ``values(n, L)`` at n = 0..L-1 (L = M, or M + 1 when periodic)
    and trim; a float tensor of length ``M``."""
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    dt = D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()
    if not dt.is_floating_point:
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dt}")
    if M == 0:
        out = np.zeros(0)
    elif M == 1:
        out = np.ones(1)
    else:
        L = M if sym else M + 1
        out = values(np.arange(L, dtype=np.float64), L)[:M]
    t = Tensor._make(np.asarray(out, dt.np), None, False)
    return t.requires_grad_(True) if requires_grad else t


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """sum_k (-1)^k a_k cos(2 pi k n / (L - 1))."""
    coeffs = list(a.tolist() if isinstance(a, Tensor) else a)

    def values(n, L):
        return sum((-1) ** k * c * np.cos(2 * math.pi * k * n / (L - 1))
                   for k, c in enumerate(coeffs))
    return _window("general_cosine", M, sym, dtype, requires_grad, values)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """alpha - (1 - alpha) cos(2 pi n / (L - 1))."""
    return general_cosine(M, a=[alpha, 1 - alpha], sym=sym, dtype=dtype,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Hamming window (general_hamming with alpha 0.54)."""
    return general_hamming(M, alpha=0.54, sym=sym, dtype=dtype, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Hann window (general_hamming with alpha 0.5)."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Blackman window (general_cosine with a = [0.42, 0.5, 0.08])."""
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype,
                          requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The triangular window 1 - |2n / (L - 1) - 1|."""
    return _window("bartlett", M, sym, dtype, requires_grad,
                   lambda n, L: 1 - np.abs(2 * n / (L - 1) - 1))


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The cosine (sine) window sin(pi (n + 0.5) / L)."""
    return _window("cosine", M, sym, dtype, requires_grad,
                   lambda n, L: np.sin(math.pi * (n + 0.5) / L))


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """exp(-|n - center| / tau), centred by default."""
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")

    def values(n, L):
        c = (L - 1) / 2 if center is None else center
        return np.exp(-np.abs(n - c) / tau)
    return _window("exponential", M, sym, dtype, requires_grad, values)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None,
             requires_grad=False):
    """exp(-((n - (L - 1) / 2) / std)^2 / 2)."""
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    return _window("gaussian", M, sym, dtype, requires_grad,
                   lambda n, L: np.exp(-((n - (L - 1) / 2) / std) ** 2 / 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None,
           requires_grad=False):
    """I0(beta sqrt(1 - (2n / (L - 1) - 1)^2)) / I0(beta)."""
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    return _window("kaiser", M, sym, dtype, requires_grad,
                   lambda n, L: np.i0(beta * np.sqrt(np.clip(
                       1 - (2 * n / (L - 1) - 1) ** 2, 0, None))) / np.i0(beta))
