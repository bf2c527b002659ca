"""N-d convolution and transposed convolution (any stride, padding, dilation, groups).

The forward copies a strided window view of the padded input into (N, C, *K, *L) columns
(``im2col``; no loop over pixels) and contracts them with the weight in one batched matmul
whose product is already in (N, O, *L) order. Three ops close the set
under differentiation, so convolutions differentiate to any order:

- ``Convolution(x, w, b)``: the convolution; dx = ConvTranspose(g, w), dw = ConvWeight(x, g).
- ``ConvTranspose(y, w, b)``: its adjoint in x; dy = Convolution(g, w), dw = ConvWeight(g, y).
- ``ConvWeight(x, gy)``: the weight gradient, bilinear in (x, gy).

>>> import numtorch as torch
>>> from numtorch.ops.conv import Convolution, ConvGeom
>>> x = torch.ones(1, 1, 4)
>>> Convolution.apply(x, torch.ones(1, 1, 2), None, ConvGeom((4,), (2,), (1,), ((0, 0),), (1,), 1))
tensor([[[2., 2., 2.]]])
"""
import itertools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._tensor import Tensor
from ._base import BuiltinFunction

_make = Tensor._make


class ConvGeom:
    """Shapes and hyper-parameters of one convolution, seen from its (un-transposed) input.

    Args:
        in_size: spatial size S of the convolution's input.
        kernel: spatial kernel size K.
        stride, dilation: per spatial dim.
        pad: per spatial dim, (low, high) zero padding.
        groups: channel groups.
        out: the output size L when it is not the one the sizes imply: a transposed
            convolution's input, whose ``output_padding`` (which may reach the stride when
            the dilation is larger) leaves room for more windows than it has positions.
    """

    __slots__ = ("in_size", "kernel", "stride", "pad", "dilation", "groups", "out")

    def __init__(self, in_size, kernel, stride, pad, dilation, groups, out=None):
        self.in_size, self.kernel, self.stride = tuple(in_size), tuple(kernel), tuple(stride)
        self.pad, self.dilation, self.groups = tuple(pad), tuple(dilation), groups
        self.out = None if out is None else tuple(out)

    def out_size(self):
        """The spatial size L of the convolution's output."""
        if self.out is not None:
            return self.out
        return tuple((s + lo + hi - d * (k - 1) - 1) // st + 1 for s, k, st, (lo, hi), d in
                     zip(self.in_size, self.kernel, self.stride, self.pad, self.dilation))

    def padded_size(self):
        return tuple(s + lo + hi for s, (lo, hi) in zip(self.in_size, self.pad))


def pad_array(x, pad, value=0):
    """Pad the spatial (trailing) dims of ``x`` by ``pad`` = ((lo, hi), ...)."""
    if not any(lo or hi for lo, hi in pad):
        return x
    nsp = len(pad)
    lead = x.shape[:x.ndim - nsp]
    # NOTE: a filled buffer and one slice assignment: np.pad costs several times more
    out = np.full(lead + tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[x.ndim - nsp:], pad)),
                  value, x.dtype)
    out[(Ellipsis,) + tuple(slice(lo, lo + s) for s, (lo, _) in
                            zip(x.shape[x.ndim - nsp:], pad))] = x
    return out


def windows(xp, out_size, kernel, stride, dilation):
    """A read-only view (N, C, *L, *K) of the padded input's sliding windows."""
    nsp = len(kernel)
    st = xp.strides
    lead = xp.shape[:-nsp]
    shape = lead + tuple(out_size) + tuple(kernel)
    strides = (st[:-nsp] + tuple(st[-nsp + i] * stride[i] for i in range(nsp)) +
               tuple(st[-nsp + i] * dilation[i] for i in range(nsp)))
    return as_strided(xp, shape, strides, writeable=False)


def im2col(x, geom, L, batch_inner=False):
    """The windows of ``x`` (N, C, *S) as a C-contiguous (N, C, *K, *L) copy, or with
    ``batch_inner`` (C, *K, N, *L).

    Kernel offsets before output positions: reshaped to (N, G, Cg * prod(K), prod(L)), each
    (n, g) pane is one matmul operand with no further copy, and the product comes out in
    (N, O, *L) order. ``batch_inner`` makes (G, Cg * prod(K), N * prod(L)) instead: one gemm
    per group, for small L.
    """
    nsp = len(L)
    win = windows(pad_array(x, geom.pad), L, geom.kernel, geom.stride, geom.dilation)
    k_axes, l_axes = tuple(range(2 + nsp, 2 + 2 * nsp)), tuple(range(2, 2 + nsp))
    order = (1,) + k_axes + (0,) + l_axes if batch_inner else (0, 1) + k_axes + l_axes
    return np.ascontiguousarray(win.transpose(order))


# NOTE: below this many output positions a per-sample product (Og, Cg*K) @ (Cg*K, L) is a
# thin matmul that re-reads the weight for every sample; one gemm over N * L is then faster
# even with the transposed copies it needs (about 2x at L = 4, even at L = 16-32).
_PER_SAMPLE_MIN_L = 32


def col2im(cols, geom):
    """Adjoint of ``im2col``: add cols (*lead, *K, *L) into a padded input, then crop."""
    nsp = len(geom.kernel)
    lead = cols.shape[:-2 * nsp]
    L = cols.shape[cols.ndim - nsp:]
    out = np.zeros(lead + geom.padded_size(), cols.dtype)
    at = (slice(None),) * len(lead)
    for k in itertools.product(*(range(n) for n in geom.kernel)):
        target = tuple(slice(ki * d, ki * d + (li - 1) * s + 1, s) for ki, d, li, s in
                       zip(k, geom.dilation, L, geom.stride))
        out[at + target] += cols[at + k]
    if not any(lo or hi for lo, hi in geom.pad):
        return out
    crop = tuple(slice(lo, lo + s) for (lo, _), s in zip(geom.pad, geom.in_size))
    return np.ascontiguousarray(out[(Ellipsis,) + crop])


def _prod(shape):
    return int(np.prod(shape, dtype=np.int64))


def conv_forward(x, w, geom):
    """out (N, O, *L) = sum over (Cg, K) of windows * w, per group."""
    n = x.shape[0]
    g = geom.groups
    o = w.shape[0]
    L = geom.out_size()
    nl, ck = _prod(L), _prod(w.shape[1:])  # no -1 in reshapes: N may be 0
    wm = w.reshape(g, o // g, ck)                                     # (G, Og, Cg*K)
    if nl >= _PER_SAMPLE_MIN_L:
        cols = im2col(x, geom, L).reshape(n, g, ck, nl)
        return np.matmul(wm, cols).reshape((n, o) + L)               # (N, G, Og, L)
    cols = im2col(x, geom, L, batch_inner=True).reshape(g, ck, n * nl)
    out = np.matmul(wm, cols).reshape(o, n, nl)                      # (G, Og, N*L)
    return np.ascontiguousarray(out.transpose(1, 0, 2)).reshape((n, o) + L)


def conv_transpose_forward(y, w, geom):
    """The adjoint of ``conv_forward`` in x: y (N, O, *L) -> x-shaped (N, C, *S)."""
    n, o = y.shape[:2]
    g = geom.groups
    c = g * w.shape[1]
    L = tuple(y.shape[2:])
    nl = _prod(L)
    wm = w.reshape(g, o // g, _prod(w.shape[1:])).transpose(0, 2, 1)  # (G, Cg*K, Og)
    ym = y.reshape(n, g, o // g, nl)
    if nl >= _PER_SAMPLE_MIN_L:
        cols = np.matmul(wm, ym)                                       # (N, G, Cg*K, L)
        return col2im(cols.reshape((n, c) + geom.kernel + L), geom)
    ym = np.ascontiguousarray(ym.transpose(1, 2, 0, 3)).reshape(g, o // g, n * nl)
    cols = np.matmul(wm, ym).reshape((c,) + geom.kernel + (n,) + L)   # (G, Cg*K, N*L)
    nsp = len(L)
    order = (1 + nsp, 0) + tuple(range(1, 1 + nsp)) + tuple(range(2 + nsp, 2 + 2 * nsp))
    return col2im(cols.transpose(order), geom)


def conv_weight_forward(x, gy, geom, wshape):
    """dw (O, Cg, *K) = sum over (N, L) of gy * windows(x), per group."""
    g = geom.groups
    n, o = gy.shape[:2]
    L = geom.out_size()
    nl, ck = _prod(L), _prod(wshape[1:])
    ym = gy.reshape(n, g, o // g, nl)
    if o // g <= nl and nl >= _PER_SAMPLE_MIN_L:
        # NOTE: per-sample products (N, G, Og, Cg*K) summed over N: no transposed copies, and
        # the temporary is no larger than the columns because Og <= L
        cols = im2col(x, geom, L).reshape(n, g, ck, nl)                # (N, G, Cg*K, L)
        return np.matmul(ym, cols.transpose(0, 1, 3, 2)).sum(0).reshape(wshape)
    # one gemm over N*L per group
    cols = im2col(x, geom, L, batch_inner=True).reshape(g, ck, n * nl)  # (G, Cg*K, N*L)
    ym = np.ascontiguousarray(ym.transpose(1, 2, 0, 3)).reshape(g, o // g, n * nl)
    return np.matmul(ym, cols.transpose(0, 2, 1)).reshape(wshape)


def _bias_grad(g):
    dims = [0] + list(range(2, g.ndim))
    return g.sum(dims)


def _add_bias(out, b):
    if b is None:
        return out
    b = b.reshape((1, -1) + (1,) * (out.ndim - 2))
    if b.dtype != out.dtype:
        return out + b
    out += b  # out is a fresh array of the conv's own
    return out


class Convolution(BuiltinFunction):
    """out = conv(x, w) + b;  dx = conv_transpose(g, w), dw = conv_weight(x, g), db = sum g."""
    _backward_name = "ConvolutionBackward0"
    _wrapped_scalars = (2,)  # an absent bias (None) still has an edge, as in PyTorch

    @staticmethod
    def forward(ctx, x, w, b, geom):
        ctx.save_for_backward(x, w)
        ctx.geom = geom
        return _add_bias(conv_forward(x, w, geom), b)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        nx, nw, nb = ctx.needs_input_grad[:3]
        gx = ConvTranspose.apply(g, w, None, ctx.geom) if nx else None
        gw = ConvWeight.apply(x, g, ctx.geom, tuple(w.shape)) if nw else None
        return gx, gw, (_bias_grad(g) if nb else None), None


class ConvTranspose(BuiltinFunction):
    """out = conv_transpose(y, w) + b;  dy = conv(g, w), dw = conv_weight(g, y), db = sum g."""
    _backward_name = "ConvolutionBackward0"
    _wrapped_scalars = (2,)  # an absent bias (None) still has an edge, as in PyTorch

    @staticmethod
    def forward(ctx, y, w, b, geom):
        ctx.save_for_backward(y, w)
        ctx.geom = geom
        return _add_bias(conv_transpose_forward(y, w, geom), b)

    @staticmethod
    def backward(ctx, g):
        y, w = ctx.saved_tensors
        ny, nw, nb = ctx.needs_input_grad[:3]
        gy = Convolution.apply(g, w, None, ctx.geom) if ny else None
        gw = ConvWeight.apply(g, y, ctx.geom, tuple(w.shape)) if nw else None
        return gy, gw, (_bias_grad(g) if nb else None), None


class ConvWeight(BuiltinFunction):
    """out = conv_weight(x, gy);  dx = conv_transpose(gy, gw), dgy = conv(x, gw)."""
    _backward_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, x, gy, geom, wshape):
        ctx.save_for_backward(x, gy)
        ctx.geom = geom
        return conv_weight_forward(x, gy, geom, wshape)

    @staticmethod
    def backward(ctx, gw):
        x, gy = ctx.saved_tensors
        nx, ngy = ctx.needs_input_grad[:2]
        gx = ConvTranspose.apply(gy, gw, None, ctx.geom) if nx else None
        ggy = Convolution.apply(x, gw, None, ctx.geom) if ngy else None
        return gx, ggy, None, None


# NOTE: PyTorch convolves half input in float32 (the bias added there too), rounds once
from ._util import half_in_float32  # noqa: E402
half_in_float32(Convolution)
