"""Short-time Fourier transforms: ``stft`` and its inverse ``istft``, written with
differentiable ops (framing by ``unfold``, ``torch.fft``, overlap-add by ``index_add``).

>>> import numtorch as torch
>>> spec = torch.stft(torch.ones(16), 8, window=torch.ones(8), return_complex=True)
>>> spec.shape
torch.Size([5, 9])
"""
import numpy as np

from .._tensor import Tensor

_make = Tensor._make


def _const(a):
    return _make(np.asarray(a), None, False)


def _padded_window(window, win_length, n_fft, like):
    """The window (ones by default) zero-padded on both sides to ``n_fft``."""
    from .._creation import ones
    from .misc import constant_pad_nd
    if window is None:
        window = ones(win_length, dtype=like.real.dtype if like.is_complex() else like.dtype)
    if window.shape[0] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")
    left = (n_fft - win_length) // 2
    return constant_pad_nd(window, [left, n_fft - win_length - left]) if left or \
        n_fft != win_length else window


def _reflect_pad(x, p, mode):
    """Pad the last dim by ``p`` on both sides ('reflect', 'replicate', 'constant' or
    'circular') with an index gather, so it differentiates."""
    n = x.shape[-1]
    idx = np.arange(-p, n + p)
    if mode == "reflect":
        if p >= n:
            raise RuntimeError(f"Argument #4: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({p}, {p}) at "
                               f"dimension {x.ndim - 1} of input {list(x.shape)}")
        idx = np.abs(idx)
        idx = np.where(idx > n - 1, 2 * (n - 1) - idx, idx)
    elif mode == "replicate":
        idx = np.clip(idx, 0, n - 1)
    elif mode == "circular":
        idx = idx % n
    elif mode == "constant":
        from .misc import constant_pad_nd
        return constant_pad_nd(x, [p, p])
    else:
        raise RuntimeError(f"Unrecognised padding mode {mode}")
    return x[..., _const(idx.astype(np.int64))]


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform: (frequencies, frames) per signal in the last dim."""
    from .. import fft as F
    from .complex_ops import view_as_real
    if return_complex is None:
        if input.is_complex() or (window is not None and window.is_complex()):
            return_complex = True
        else:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D")
    x = input
    if center:
        x = _reflect_pad(x, n_fft // 2, pad_mode)
    if n_fft <= 0 or n_fft > x.shape[-1]:
        raise RuntimeError(f"stft: expected 0 < n_fft < {x.shape[-1]}, but got n_fft={n_fft}")
    frames = x.unfold(-1, n_fft, hop) * _padded_window(window, win, n_fft, x)
    twosided = (onesided is False) or input.is_complex() or (
        window is not None and window.is_complex())
    norm = "ortho" if normalized else None
    spec = F.fft(frames, dim=-1, norm=norm) if twosided else F.rfft(frames, dim=-1, norm=norm)
    spec = spec.transpose(-1, -2)
    return spec if return_complex else view_as_real(spec)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse short-time Fourier transform by windowed overlap-add."""
    from .. import fft as F
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor")
    spec = input.transpose(-1, -2)  # (..., frames, freqs)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        frames = F.ifft(spec, n_fft, -1, norm)
    else:  # a real signal: only the non-negative frequencies count
        if onesided is False or (onesided is None and spec.shape[-1] == n_fft):
            spec = spec[..., :n_fft // 2 + 1]
        frames = F.irfft(spec, n_fft, -1, norm)
    w = _padded_window(window, win, n_fft, frames)
    frames = frames * w
    return _overlap_add(frames, w, n_fft, hop, center, length)


def _overlap_add(frames, w, n_fft, hop, center, length):
    from .scatter_ops import index_add
    from .._creation import zeros
    n_frames = frames.shape[-2]
    total = n_fft + hop * (n_frames - 1)
    pos = (np.arange(n_frames)[:, None] * hop + np.arange(n_fft)[None, :]).reshape(-1)
    idx = _const(pos.astype(np.int64))
    lead = frames.shape[:-2]
    y = index_add(zeros(lead + (total,), dtype=frames.dtype), -1, idx,
                  frames.reshape(lead + (-1,)))
    sq = (w.detach() ** 2).numpy()  # PyTorch's envelope: window ** 2 (complex stays complex)
    env = np.zeros(total, sq.dtype)
    np.add.at(env, pos, np.tile(sq, n_frames))
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + length
    end = min(end, total)
    if np.any(np.abs(env[start:end]) < 1e-11):
        raise RuntimeError("istft: window overlap add min: 0 (the window must not vanish "
                           "where frames overlap)")
    y = y[..., start:end] / _const(env[start:end].astype(
        y._data.dtype if sq.dtype.kind == "c" or not y.is_complex() else y.real._data.dtype))
    if length is not None and y.shape[-1] < length:
        from .misc import constant_pad_nd
        y = constant_pad_nd(y, [0, length - y.shape[-1]])
    return y


METHODS = ["stft", "istft"]
