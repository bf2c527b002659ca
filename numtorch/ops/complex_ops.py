"""Complex numbers: real, imag, conj, angle, polar, complex, view_as_real, view_as_complex,
and the conjugate-transpose properties ``mH`` / ``H`` / ``adjoint``.

numtorch has no lazy conjugate or negative bit: ``conj`` of a complex tensor is a copy, of a
real tensor the tensor itself (as in PyTorch), and ``resolve_conj``/``resolve_neg`` return
their input. Gradients follow PyTorch's convention (the conjugate Wirtinger derivative).

>>> import numtorch as torch
>>> z = torch.complex(torch.tensor([1.]), torch.tensor([2.]))
>>> torch.view_as_real(z)
tensor([[1., 2.]])
"""
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._base import BuiltinFunction

_make = Tensor._make
_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128),
               np.dtype(np.float16): np.dtype(np.complex64)}


class Real(BuiltinFunction):
    """out = Re(z);  dz = g (a real gradient)."""
    _backward_name = "RealBackward0"

    @staticmethod
    def forward(ctx, z):
        return z.real.copy()

    @staticmethod
    def backward(ctx, g):
        return g


class Imag(BuiltinFunction):
    """out = Im(z);  dz = g * i."""
    _backward_name = "ImagBackward0"

    @staticmethod
    def forward(ctx, z):
        return z.imag.copy()

    @staticmethod
    def backward(ctx, g):
        return g * 1j


class Conj(BuiltinFunction):
    """out = conj(z);  dz = conj(g)."""
    _backward_name = "ConjBackward0"

    @staticmethod
    def forward(ctx, z):
        return np.conj(z)

    @staticmethod
    def backward(ctx, g):
        return conj(g)


class ConjPhysical(Conj):
    _backward_name = "ConjPhysicalBackward0"


def real(input):
    """The real part (the tensor itself when it is real)."""
    if input._data.dtype.kind != "c":
        return input
    return Real.apply(input)


def imag(input):
    """The imaginary part of a complex tensor."""
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return Imag.apply(input)


def conj(input):
    """The complex conjugate (the tensor itself when it is real)."""
    if input._data.dtype.kind != "c":
        return input
    return Conj.apply(input)


def conj_physical(input, *, out=None):
    """The complex conjugate, always materialised."""
    if input._data.dtype.kind != "c":
        return input.clone()
    return ConjPhysical.apply(input)


def resolve_conj(input):
    """``input`` (numtorch has no lazy conjugate bit to resolve)."""
    return input


def resolve_neg(input):
    """``input`` (numtorch has no lazy negative bit to resolve)."""
    return input


class Angle(BuiltinFunction):
    """out = arg(z) (pi for negative reals, 0 otherwise);  dz = g * i z / |z|^2 (0 for
    real z)."""
    _backward_name = "AngleBackward0"

    @staticmethod
    def forward(ctx, z):
        ctx.save_for_backward(z)
        if z.dtype.kind == "c":
            return np.angle(z)
        x = z if z.dtype.kind == "f" else z.astype(D._state["default"].np)
        return np.where(np.isnan(x), x, np.where(x < 0, math.pi, 0.0)).astype(x.dtype)

    @staticmethod
    def backward(ctx, g):
        (z,) = ctx.saved_tensors
        if not z.is_complex():
            return g * 0
        return g * z * 1j / (z * conj(z)).real


def angle(input, *, out=None):
    """The element-wise argument (angle) in radians."""
    return Angle.apply(input)


class Complex(BuiltinFunction):
    """out = re + i im;  dre = Re(g), dim = Im(g)."""
    _backward_name = "ComplexBackward0"

    @staticmethod
    def forward(ctx, re, im):
        if re.dtype != im.dtype:
            raise RuntimeError(f"Expected object of scalar type {_name(re.dtype)} but got "
                               f"scalar type {_name(im.dtype)} for second argument")
        if re.dtype.kind != "f":
            raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but "
                               f"got {_name(re.dtype)} and {_name(im.dtype)}")
        out = np.empty(np.broadcast_shapes(re.shape, im.shape), _COMPLEX_OF[re.dtype])
        out.real, out.imag = re, im
        return out

    @staticmethod
    def backward(ctx, g):
        return real(g), imag(g)


def _name(npdt):
    """PyTorch's scalar type name of NumPy dtype ``npdt`` ('Float', 'Char')."""
    return D.SCALAR_NAMES[D._FROM_NP[npdt]]


def complex(real, imag, *, out=None):
    """The complex tensor ``real + i imag`` (floating inputs of one dtype)."""
    return Complex.apply(real, imag)


def polar(abs, angle, *, out=None):
    """The complex tensor with modulus ``abs`` and argument ``angle``."""
    return complex(abs * angle.cos(), abs * angle.sin())


class ViewAsReal(BuiltinFunction):
    """out[..., 0] = Re(z), out[..., 1] = Im(z) (a view);  dz = view_as_complex(g)."""
    _backward_name = "ViewAsRealBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, z):
        if z.dtype.kind != "c":
            raise RuntimeError("view_as_real is only supported for complex tensors")
        # the real parts' view, given a last dim that steps on to the imaginary parts
        part = z.real
        return np.lib.stride_tricks.as_strided(part, z.shape + (2,),
                                               z.strides + (part.itemsize,),
                                               writeable=z.flags.writeable)

    @staticmethod
    def backward(ctx, g):
        return view_as_complex(g.contiguous())


class ViewAsComplex(BuiltinFunction):
    """out = x[..., 0] + i x[..., 1] (a view);  dx = view_as_real(g)."""
    _backward_name = "ViewAsComplexBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, x):
        # (checked by view_as_complex, which sees the storage offset)
        return x.view(_COMPLEX_OF[x.dtype]).reshape(x.shape[:-1])

    @staticmethod
    def backward(ctx, g):
        return view_as_real(g)


def view_as_real(input):
    """A real tensor with a trailing dimension of 2 holding real and imaginary parts."""
    return ViewAsReal.apply(input)


def view_as_complex(input):
    """A complex tensor from a real one whose last dimension (of size 2) holds the parts (a
    view: the parts must lie next to each other, each pair at an even offset)."""
    x = input._data
    if x.dtype not in _COMPLEX_OF:
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {_name(x.dtype)}")
    if x.dtype == np.float16:  # (PyTorch gives a complex32 tensor, a dtype NumPy lacks)
        raise RuntimeError("numtorch does not support view_as_complex of a half tensor "
                           "(torch.complex32)")
    if not x.ndim:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if x.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = input.stride()
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last "
                           "dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return ViewAsComplex.apply(input)


def adjoint(input):
    """The conjugate transpose of the last two dimensions."""
    return _adjoint(input, "tensor.adjoint()", "adjoint")


def _adjoint(input, what, kind):
    from .shape import check_matrices, warn_transpose_once
    if input.ndim < 2 and check_matrices(input, what):
        warn_transpose_once(kind)  # (a 0-d tensor: its conjugate)
        return conj(input)
    return conj(input.transpose(-2, -1))


def _mH(self):
    return _adjoint(self, "tensor.mH", "mH")


def _H(self):
    if self.ndim != 2 and self.ndim != 0:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor." + (" For batches of matrices, consider "
                                                       "using tensor.mH" if self.ndim > 2 else ""))
    if self.ndim == 0:
        from .shape import warn_transpose_once
        warn_transpose_once("H")
        return conj(self)
    return conj(self.transpose(-2, -1))


def _install():
    T = Tensor
    T.mH = property(_mH)
    T.H = property(_H)
    T.real = property(real)
    T.imag = property(imag)
    T.is_conj = lambda self: False
    T.is_neg = lambda self: False


_install()

METHODS = ["conj", "conj_physical", "resolve_conj", "resolve_neg", "angle", "adjoint"]
INPLACE = ["conj_physical"]
