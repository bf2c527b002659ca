"""N-d convolution and transposed convolution (any stride, padding, dilation, groups).

The forward builds a strided window view of the padded input (no copy, no loop over pixels)
and contracts it with the weight in one batched matmul per call. Three ops close the set
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
    """

    __slots__ = ("in_size", "kernel", "stride", "pad", "dilation", "groups")

    def __init__(self, in_size, kernel, stride, pad, dilation, groups):
        self.in_size, self.kernel, self.stride = tuple(in_size), tuple(kernel), tuple(stride)
        self.pad, self.dilation, self.groups = tuple(pad), tuple(dilation), groups

    def out_size(self):
        """The spatial size L of the convolution's output."""
        return tuple((s + lo + hi - d * (k - 1) - 1) // st + 1 for s, k, st, (lo, hi), d in
                     zip(self.in_size, self.kernel, self.stride, self.pad, self.dilation))

    def padded_size(self):
        return tuple(s + lo + hi for s, (lo, hi) in zip(self.in_size, self.pad))


def pad_array(x, pad, value=0):
    """Pad the spatial (trailing) dims of ``x`` by ``pad`` = ((lo, hi), ...)."""
    if not any(lo or hi for lo, hi in pad):
        return x
    widths = ((0, 0),) * (x.ndim - len(pad)) + tuple(pad)
    return np.pad(x, widths, constant_values=value)


def windows(xp, out_size, kernel, stride, dilation):
    """A read-only view (N, C, *L, *K) of the padded input's sliding windows."""
    nsp = len(kernel)
    st = xp.strides
    lead = xp.shape[:-nsp]
    shape = lead + tuple(out_size) + tuple(kernel)
    strides = (st[:-nsp] + tuple(st[-nsp + i] * stride[i] for i in range(nsp)) +
               tuple(st[-nsp + i] * dilation[i] for i in range(nsp)))
    return as_strided(xp, shape, strides, writeable=False)


def col2im(cols, geom):
    """Adjoint of ``windows``: add cols (N, C, *L, *K) into a padded input, then crop."""
    nsp = len(geom.kernel)
    lead = cols.shape[:-2 * nsp]
    L = cols.shape[-2 * nsp:-nsp]
    out = np.zeros(lead + geom.padded_size(), cols.dtype)
    for k in itertools.product(*(range(n) for n in geom.kernel)):
        target = tuple(slice(ki * d, ki * d + (li - 1) * s + 1, s) for ki, d, li, s in
                       zip(k, geom.dilation, L, geom.stride))
        out[(Ellipsis,) + target] += cols[(Ellipsis,) + k]
    crop = tuple(slice(lo, lo + s) for (lo, _), s in zip(geom.pad, geom.in_size))
    return out[(Ellipsis,) + crop]


def _grouped_windows(x, geom):
    """Windows as a (G, N * prod(L), Cg * prod(K)) matrix (a copy) and L."""
    n, c = x.shape[:2]
    g = geom.groups
    L = geom.out_size()
    win = windows(pad_array(x, geom.pad), L, geom.kernel, geom.stride, geom.dilation)
    nsp = len(L)
    win = win.reshape((n, g, c // g) + L + geom.kernel)
    # (G, N, *L, Cg, *K)
    order = (1, 0) + tuple(range(3, 3 + nsp)) + (2,) + tuple(range(3 + nsp, 3 + 2 * nsp))
    mat = win.transpose(order).reshape(g, n * int(np.prod(L, dtype=np.int64)), -1)
    return mat, L


def conv_forward(x, w, geom):
    """out (N, O, *L) = sum over (Cg, K) of windows * w, per group."""
    n = x.shape[0]
    g = geom.groups
    o = w.shape[0]
    mat, L = _grouped_windows(x, geom)
    wm = w.reshape(g, o // g, -1).transpose(0, 2, 1)
    out = np.matmul(mat, wm)                           # (G, N*L, Og)
    out = out.reshape((g, n) + L + (o // g,))
    nsp = len(L)
    order = (1, 0, 2 + nsp) + tuple(range(2, 2 + nsp))
    return np.ascontiguousarray(out.transpose(order).reshape((n, o) + L))


def conv_transpose_forward(y, w, geom):
    """The adjoint of ``conv_forward`` in x: y (N, O, *L) -> x-shaped (N, C, *S)."""
    n, o = y.shape[:2]
    g = geom.groups
    cg = w.shape[1]
    L = y.shape[2:]
    nsp = len(L)
    ym = np.moveaxis(y.reshape((n, g, o // g) + L), 2, -1)          # (N, G, *L, Og)
    ym = np.moveaxis(ym, 1, 0).reshape(g, -1, o // g)                 # (G, N*L, Og)
    wm = w.reshape(g, o // g, -1)                                     # (G, Og, Cg*K)
    cols = np.matmul(ym, wm).reshape((g, n) + L + (cg,) + geom.kernel)
    order = (1, 0, 2 + nsp) + tuple(range(2, 2 + nsp)) + tuple(range(3 + nsp, 3 + 2 * nsp))
    cols = cols.transpose(order).reshape((n, g * cg) + L + geom.kernel)
    return np.ascontiguousarray(col2im(cols, geom))


def conv_weight_forward(x, gy, geom, wshape):
    """dw (O, Cg, *K) = sum over (N, L) of gy * windows(x), per group."""
    g = geom.groups
    n, o = gy.shape[:2]
    mat, L = _grouped_windows(x, geom)                                 # (G, N*L, Cg*K)
    # NOTE: a C-contiguous (G, Og, N*L) operand keeps np.matmul on its BLAS path
    ym = gy.reshape(n, g, o // g, -1).transpose(1, 2, 0, 3)
    ym = np.ascontiguousarray(ym).reshape(g, o // g, -1)
    return np.matmul(ym, mat).reshape(wshape)


def _bias_grad(g):
    dims = [0] + list(range(2, g.ndim))
    return g.sum(dims)


def _add_bias(out, b):
    if b is None:
        return out
    return out + b.reshape((1, -1) + (1,) * (out.ndim - 2))


class Convolution(BuiltinFunction):
    """out = conv(x, w) + b;  dx = conv_transpose(g, w), dw = conv_weight(x, g), db = sum g."""
    _backward_name = "ConvolutionBackward0"

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
