"""Linear, bilinear and trilinear resampling (``interpolate``) rounded as PyTorch's CPU kernels round it.

A resampled value is a short weighted sum of input taps, and PyTorch's float32 result
depends on how that sum is formed: its kernels are built with floating-point contraction,
so ``a * w0 + b * w1`` is one fused multiply-add over the rounded ``b * w1``, and each
further tap is fused onto the running sum. A matrix product (``AxisMaps``) rounds
differently, so ``interpolate`` computes its forward here and keeps the matrices for the
(linear) backward.

Two kernels exist for float input (PyTorch's ``upsample_bilinear2d_kernel_impl_float``):

- the general one resamples the last dim first and then each earlier one (the nested
  ``InterpolateNonSeparable``), rounding after each dim: ``separable`` here;
- bilinear 2-d takes the channels-last kernel when the output is small (height + width
  <= 128), the input is channels-last with more than 3 channels, or PyTorch runs one thread
  and there are 3 channels: the four corner weights are products ``h * w`` and the taps are
  summed in one go, vectorised over channels (the full SIMD blocks nest the sum the other
  way round from the scalar tail): ``bilinear_channels_last`` here.

float64 input is computed in the same order without the fusing (NumPy has no exact float64
fma); its last bits may differ from PyTorch's, far below any printed precision.

>>> x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
>>> resample(x, [linear_taps(2, 3, None, False, np.float32)] * 2, "bilinear").tolist()
[[[[0.0, 0.5, 1.0], [1.0, 1.5, 2.0], [2.0, 2.5, 3.0]]]]
"""
import numpy as np

from .._layout import _is_contiguous_as, channels_last
from .._threads import get_num_threads
from .pooling import AxisMaps, named

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _simd_floats():
    """Float32 lanes of PyTorch's vectorised kernels on this CPU (AVX512: 16, else 8)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as feats
    except ImportError:  # NumPy < 2
        try:
            from numpy.core._multiarray_umath import __cpu_features__ as feats
        except ImportError:
            return 8
    return 16 if all(feats.get(f) for f in ("AVX512F", "AVX512BW", "AVX512DQ",
                                              "AVX512VL")) else 8


_LANES = _simd_floats()


def _fma(a, b, c):
    """round(a * b + c) for float32 arrays (the product is exact in float64); plain a * b + c
    for float64."""
    if a.dtype == _F32:
        return (a.astype(_F64) * b + c).astype(_F32)
    return a * b + c


def _mul(a, b):
    return a * b


def _chain(terms):
    """Sum of the (value, weight) ``terms`` as a contracted C sum ``v0*w0 + v1*w1 + ...``:
    fma(v0, w0, v1*w1), then each further term fused onto the running sum."""
    (v0, w0), (v1, w1) = terms[0], terms[1]
    acc = _fma(v0, w0, _mul(v1, w1))
    for v, w in terms[2:]:
        acc = _fma(v, w, acc)
    return acc


def _nested(terms):
    """Sum of ``terms`` as PyTorch's recursive SIMD ``interpolate`` forms it:
    v0*w0 + (v1*w1 + (... + v[n-1]*w[n-1])), each level fused; the innermost pair fuses its
    last term onto the rounded one before it (measured)."""
    (va, wa), (vb, wb) = terms[-2], terms[-1]
    acc = _fma(vb, wb, _mul(va, wa))
    for v, w in reversed(terms[:-2]):
        acc = _fma(v, w, acc)
    return acc


def _scale(n_in, n_out, scale, align_corners, dt):
    """PyTorch's area_pixel_compute_scale in the kernel's precision ``dt``."""
    if align_corners:
        return dt.type(dt.type(n_in - 1) / dt.type(n_out - 1)) if n_out > 1 else dt.type(0)
    if scale is not None and scale > 0:
        return dt.type(1.0 / scale)
    return dt.type(dt.type(n_in) / dt.type(n_out))


def _source_index(n_in, n_out, scale, align_corners, dt):
    """PyTorch's area_pixel_compute_source_index (linear: clamped at 0), fused."""
    s = _scale(n_in, n_out, scale, align_corners, dt)
    i = np.arange(n_out).astype(dt)
    if align_corners:
        return s * i
    return np.maximum(_fma(np.full(n_out, s, dt), i + dt.type(0.5), dt.type(-0.5)),
                      dt.type(0))


def _floor_and_fraction(src, n_in, dt):
    """PyTorch's guard_index_and_lambda: (floor index, clamped to n_in - 1; fraction in
    [0, 1])."""
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    t = np.clip(src - i0.astype(dt), dt.type(0), dt.type(1))
    return i0, t


def linear_taps(n_in, n_out, scale, align_corners, dt):
    """The two taps of each output along one dim: ([i0, i1], [w0, w1])."""
    dt = np.dtype(dt)
    if n_in == n_out:  # PyTorch copies (weights 1 and 0)
        i = np.arange(n_out)
        return [i, i], [np.ones(n_out, dt), np.zeros(n_out, dt)]
    src = _source_index(n_in, n_out, scale, align_corners, dt)
    i0, l1 = _floor_and_fraction(src, n_in, dt)
    i1 = i0 + (i0 < n_in - 1)
    return [i0, i1], [dt.type(1) - l1, l1]


def separable(x, taps):
    """Resample the trailing ``len(taps)`` dims of ``x``, the last dim first, each output a
    contracted sum of its taps, rounded after each dim."""
    nsp = len(taps)
    out = x
    for d in reversed(range(nsp)):
        axis = x.ndim - nsp + d
        idx, ws = taps[d]
        shape = [1] * (x.ndim - axis)
        shape[0] = -1
        terms = [(np.take(out, i, axis=axis), w.reshape(shape)) for i, w in zip(idx, ws)]
        out = _chain(terms)
    return out


def bilinear_channels_last(x, taps):
    """PyTorch's channels-last bilinear kernel for (N, C, H, W) ``x``: corner weights
    h * w, the four corners summed at once; channels in full SIMD blocks nest the sum."""
    (hi, hw), (wi, ww) = taps
    corners = []
    for a in range(2):
        for b in range(2):
            v = x[:, :, hi[a][:, None], wi[b][None, :]]
            corners.append((v, hw[a][:, None] * ww[b][None, :]))
    c = x.shape[1]
    vec = c - c % _LANES if x.dtype == _F32 else c - c % (_LANES // 2)
    if vec == 0:
        return _chain(corners)
    out = np.empty(x.shape[:2] + corners[0][0].shape[2:], x.dtype)
    out[:, :vec] = _nested([(v[:, :vec], w) for v, w in corners])
    out[:, vec:] = _chain([(v[:, vec:], w) for v, w in corners])
    return out


def resample(x, taps, mode, channels_last_kernel=False):
    """``x`` resampled with per-dim ``taps`` (from ``linear_taps``), by the kernel PyTorch
    picks for ``mode``."""
    if mode == "bilinear" and channels_last_kernel:
        return np.ascontiguousarray(bilinear_channels_last(x, taps))
    return np.ascontiguousarray(separable(x, taps))


def uses_channels_last_kernel(x, out_size):
    """Whether PyTorch's float bilinear takes its channels-last kernel for Tensor ``x``
    resized to ``out_size`` (``_use_channels_last_kernel_2d`` and the one-thread RGB case)."""
    c = x.shape[1]
    return (c > 3 and _is_contiguous_as(tuple(x.shape), x.stride(), channels_last)) or \
        sum(out_size) <= 128 or (get_num_threads() == 1 and c == 3)


class Resample(AxisMaps):
    """out = ``resample(x, taps, mode)``;  dx = the transposed per-dim matrices ``mats`` of
    the same (linear) map applied to g, as ``AxisMaps``."""

    @staticmethod
    def forward(ctx, x, mats, name, taps, mode, channels_last_kernel):
        ctx.mats = mats
        return resample(x, taps, mode, channels_last_kernel)

    @staticmethod
    def backward(ctx, g):
        return AxisMaps.backward(ctx, g) + (None, None, None)


def resample_op(x, mats, name, taps, mode):
    """Tensor ``x`` resampled (see ``Resample``) with grad_fn ``name``."""
    cl = mode == "bilinear" and uses_channels_last_kernel(x, [len(t[0][0]) for t in taps])
    return named(Resample, name).apply(x, mats, name, taps, mode, cl)
