"""Matrix products: matmul (with broadcasting), mm, bmm, mv, dot, outer, addmm, einsum.

>>> import numtorch as torch
>>> a = torch.ones(2, 3, requires_grad=True)
>>> (a @ torch.ones(3, 4)).sum().backward(); a.grad
tensor([[4., 4., 4.],
        [4., 4., 4.]])
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _InferenceVC
from ..autograd.grad_mode import STATE
from ..autograd.graph import ANOMALY, _hook_stack, _sequence
from . import _base
from ._base import NULL_CTX as _NULL_CTX, _NO_EDGE, BuiltinFunction, _mark_view
from .elementwise import number_array
from ._util import infer_size, not_a_tensor, sum_to_shape_array, write_out
from .shape import Squeeze, T, _viewable, expand, expand_shape

_make = Tensor._make
_new = object.__new__
_FROM_NP = D._FROM_NP

_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
          "int32": "int", "int16": "short int", "int8": "signed char",
          "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
          "complex128": "c10::complex<double>"}


def _scalar_name(t):
    return D.SCALAR_NAMES[t.dtype]


def _check_addmm_dtypes(c, a, b):
    """addmm's dtype checks in PyTorch's order: the added tensor against mat2, then mat1."""
    for x, what in ((c, "self"), (a, "mat1")):
        if x._data.dtype != b._data.dtype:
            raise RuntimeError(f"{what} and mat2 must have the same dtype, but got "
                               f"{_scalar_name(x)} and {_scalar_name(b)}")


def _check_addmv_dtypes(c_dtype, mat, vec):
    if not c_dtype == mat._data.dtype == vec._data.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{D.SCALAR_NAMES[D._FROM_NP[c_dtype]]}, {_scalar_name(mat)}, and "
                           f"{_scalar_name(vec)}")


def _check_same_dtype(a, b, what="m1 and m2"):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected {what} to have the same dtype, but got: "
                           f"{_NAMES[a.dtype.name]} != {_NAMES[b.dtype.name]}")


def _mH(t):
    """``t.mH`` for complex data, ``t.mT`` for real: PyTorch's gradients are conjugate
    Wirtinger derivatives (mm's gradient for ``a`` is ``g @ b.mH``)."""
    return t.mT if t._data.dtype.kind != "c" else t.mH


def _cj(t):
    """``conj(t)`` for a complex Tensor or Python complex, ``t`` itself otherwise."""
    if type(t) is complex:
        return t.conjugate()
    if isinstance(t, Tensor) and t._data.dtype.kind == "c":
        return t.conj()
    return t


def _save_operands(ctx, a, b, first):
    """Save what a matrix product's backward needs, as PyTorch does: each operand only for
    the other one's gradient, and the strides of each operand whose own gradient is needed
    (that gradient takes its layout: ``_mm_grads``). ``first``: the input position of ``a``.

    So a ``weight.t()`` whose input needs no gradient is not saved, and changing the weight
    in place before backward is no error, as in PyTorch."""
    if ctx is _NULL_CTX:  # nothing recorded: nothing to save
        return
    needs = ctx.needs_input_grad
    na, nb = needs[first], needs[first + 1]
    ctx.save_for_backward(a if nb else None, b if na else None)
    ctx.strides = (a.strides if na else None, b.strides if nb else None)


def _transposed(ctx, first):
    """For each matrix operand whose gradient is needed, whether it was stored transposed (a
    ``weight.t()`` view: column-major, not row-major), from the strides forward kept."""
    sa, sb = ctx.strides
    meta = ctx._in_meta
    return (sa is not None and _col_major(sa, meta[first]),
            sb is not None and _col_major(sb, meta[first + 1]))


def _col_major(strides, meta):
    """Whether a matrix of these (byte) strides and (shape, dtype) ``meta`` is laid out
    column by column and not row by row (NumPy's f_contiguous and not c_contiguous)."""
    shape, dtype = meta
    if len(shape) != 2:
        return False
    m, n = shape
    size = dtype.itemsize
    return m > 1 and n > 1 and strides == (size, size * m)


def _mm_grads(g, a, b, na, nb, transposed):
    """``(g @ b^H, a^H @ g)``, each laid out like its operand, as PyTorch's mm backward:
    the gradient of a transposed operand is computed transposed, so that ``weight.t()``'s
    backward hands ``weight`` a C-contiguous gradient (no strided updates in optimizers).
    ``transposed``: whether each operand was (``_transposed``)."""
    ga = gb = None
    if na:
        ga = _mH(b.matmul(_mH(g))) if transposed[0] else g.matmul(_mH(b))
    if nb:
        gb = _mH(_mH(g).matmul(a)) if transposed[1] else _mH(a).matmul(g)
    return ga, gb


def _plain_arrays(d, a, b):
    """The arrays of the saved operands (None for one not saved) when an array backward may
    run on them with the gradient's array ``d``: all real floating point of one dtype. None
    otherwise (complex or mixed data)."""
    dt = d.dtype
    if dt.kind != "f":
        return None
    x = y = None
    if a is not None:
        x = a._data
        if x.dtype is not dt:
            return None
    if b is not None:
        y = b._data
        if y.dtype is not dt:
            return None
    return x, y


def _mm2(a, b):
    """``np.matmul`` of two matrices with PyTorch's sign of zero: a product over an inner
    dim of 1 is each element's one product, -0 included (``0 * -1``), where PyTorch's gemm
    gives it so (both outer dims above 1; with one of them 1 its gemv accumulates from +0,
    as OpenBLAS's gemm always does)."""
    if a.shape[1] == 1 and a.shape[0] > 1 and b.shape[1] > 1 and a.dtype.kind == "f" and \
            b.dtype.kind == "f":
        return np.multiply(a, b)  # (m, 1) * (1, n): the outer product, C-contiguous
    return np.matmul(a, b)


def _mm_array_grads(g, a, b, na, nb, transposed):
    """``_mm_grads`` on arrays: the very ``np.matmul`` calls the Tensor formula makes (``mT``
    is ``np.swapaxes``, the same view as ``.T``), on the same operand layouts, so the same
    bits; a transposed operand's gradient is computed transposed here too."""
    ga = gb = None
    if na:
        ga = _mm2(b, g.T).T if transposed[0] else _mm2(g, b.T)
    if nb:
        gb = _mm2(g.T, a).T if transposed[1] else _mm2(a.T, g)
    return ga, gb


def _batched_plain(g, a_shape, b_shape, saved):
    """Whether a batched matmul's Tensor formula (``matmul`` -> expand, reshape, bmm) would
    hand ``np.matmul`` matrices with the strides of ``g`` and of the ``saved`` operands' ``^T``
    themselves: one batch shape everywhere (the operands' shapes ``a_shape``, ``b_shape``) and
    every matrix dim at least 2 (a size-1 dim's stride is not kept by a reshape, and may
    change which BLAS call NumPy makes)."""
    batch = g.shape[:-2]
    if not (len(a_shape) == len(b_shape) == g.ndim and a_shape[:-2] == batch and
            b_shape[:-2] == batch and min(a_shape[-2:] + b_shape[-1:]) >= 2):
        return False
    # more than one batch dim: each operand must fold into one without a copy
    return g.ndim == 3 or all(
        _viewable(x, (int(np.prod(x.shape[:-2])),) + x.shape[-2:]) for x in [g] + saved)


def _dims(shape):
    return "x".join(map(str, shape))


class Mm(BuiltinFunction):
    """out = a @ b (matrices);  da = g @ b.T, db = a.T @ g."""
    _backward_name = "MmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        _save_operands(ctx, a, b, 0)
        return _mm2(a, b) if a.ndim == 2 and b.ndim == 2 else np.matmul(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        na, nb = ctx.needs_input_grad[:2]
        if g._data.ndim == 2:
            return _mm_grads(g, a, b, na, nb, _transposed(ctx, 0))
        return (g.matmul(_mH(b)) if na else None), (_mH(a).matmul(g) if nb else None)

    @staticmethod
    def _np_backward(ctx, d):
        # NOTE: first order on arrays, the same matmuls as the Tensor formula
        a, b = ctx.saved_tensors
        arrays = _plain_arrays(d, a, b)
        if arrays is None:
            return NotImplemented
        x, y = arrays
        na, nb = ctx.needs_input_grad[:2]
        if d.ndim == 2:
            return _mm_array_grads(d, x, y, na, nb, _transposed(ctx, 0))
        meta = ctx._in_meta
        if _batched_plain(d, meta[0][0], meta[1][0], [v for v in (x, y) if v is not None]):
            return (np.matmul(d, np.swapaxes(y, -2, -1)) if na else None), \
                (np.matmul(np.swapaxes(x, -2, -1), d) if nb else None)
        return NotImplemented


class Bmm(Mm):
    _backward_name = "BmmBackward0"


class MatmulND(Mm):
    """Batched, broadcasting matmul; the engine sums gradients over broadcast batch dims."""
    _backward_name = "UnsafeViewBackward0"


class Mv(BuiltinFunction):
    """out = A @ v;  dA = outer(g, v), dv = A.T @ g."""
    _backward_name = "MvBackward0"

    @staticmethod
    def forward(ctx, a, v):
        ctx.save_for_backward(a, v)
        return np.matmul(a, v)

    @staticmethod
    def backward(ctx, g):
        a, v = ctx.saved_tensors
        na, nv = ctx.needs_input_grad[:2]
        return (outer(g, _cj(v)) if na else None), (_mH(a).matmul(g) if nv else None)


class Dot(BuiltinFunction):
    """out = sum(a * b) (vectors);  da = g * b, db = g * a."""
    _backward_name = "DotBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        # (PyTorch's dot accumulates from +0: never -0, where NumPy's product of one pair is)
        return np.asarray(np.dot(a, b) + 0.0) if a.dtype.kind == "f" else np.asarray(np.dot(a, b))

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        na, nb = ctx.needs_input_grad[:2]
        return (g * _cj(b) if na else None), (g * _cj(a) if nb else None)


def _check_mm(a, b, op="mm"):
    _check_same_dtype(a, b, "m1 and m2" if op == "mm" else "scalar type of mat1 and mat2")
    if a._data.shape[-1] != b._data.shape[-2]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({_dims(a._data.shape[-2:])} and {_dims(b._data.shape[-2:])})")
    _no_bool_kernel(a, "addmm_impl_cpu_")


def _no_bool_kernel(t, kernel):
    """PyTorch's matrix products have no bool kernel."""
    if t._data.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def mm(input, mat2, *, out=None):
    """Matrix product of two 2-D tensors."""
    if out is not None:
        return write_out(out, mm(input, mat2))
    if input.ndim != 2 or mat2.ndim != 2:
        bad = input if input.ndim != 2 else mat2
        raise RuntimeError(f"{'self' if bad is input else 'mat2'} must be a matrix")
    _check_mm(input, mat2)
    return Mm.apply(input, mat2)


def bmm(input, mat2, *, out=None):
    """Batched matrix product of two 3-D tensors."""
    if out is not None:
        return write_out(out, bmm(input, mat2))
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if input.ndim != 3 else
                           "batch2 must be a 3D tensor")
    if input._data.dtype != mat2._data.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(input)} but found "
                           f"{_scalar_name(mat2)}")
    if input._data.shape[0] != mat2._data.shape[0] or \
            input._data.shape[2] != mat2._data.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input._data.shape[0]}, {input._data.shape[2]}] but got: "
                           f"[{mat2._data.shape[0]}, {mat2._data.shape[1]}].")
    _no_bool_kernel(input, "bmm")
    return Bmm.apply(input, mat2)


def mv(input, vec):
    if input.ndim != 2 or vec.ndim != 1:
        # NOTE: PyTorch's addmv names its 1-d result's dims first
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, "
                           f"{vec.ndim}")
    _check_addmv_dtypes(vec._data.dtype, input, vec)  # mv is addmv into a vec-typed result
    if input._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0]}), mat "
                           f"({_dims(input._data.shape)}), vec ({vec._data.shape[0]})")
    _no_bool_kernel(input, "addmv_impl_cpu")
    return Mv.apply(input, vec)


def dot(input, tensor):
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D "
                           "tensors")
    n, m = input._data.shape[0], tensor._data.shape[0]
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to "
                           f"have the same number of elements, but got {n} and {m} elements "
                           "respectively")
    if input._data.dtype != tensor._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{D.SCALAR_NAMES[input.dtype]} and {D.SCALAR_NAMES[tensor.dtype]}")
    _no_bool_kernel(input, "dot")
    return Dot.apply(input, tensor)


class Vdot(Dot):
    """out = sum(conj(a) * b);  da = conj(g) * b, db = g * a."""
    _backward_name = "VdotBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.asarray(np.vdot(a, b))

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        na, nb = ctx.needs_input_grad[:2]
        return (_cj(g) * b if na else None), (g * a if nb else None)


def vdot(input, other):
    """The dot product of ``input`` conjugated with ``other`` (1-d tensors)."""
    dot(input, other) if input.ndim != 1 or other.ndim != 1 or \
        input._data.dtype != other._data.dtype else None  # PyTorch's errors, as dot's
    return Vdot.apply(input, other)


inner_1d = dot


def matmul(input, other, *, out=None):
    """Matrix product with NumPy/PyTorch broadcasting rules for 1-D and batched operands."""
    if out is not None:
        return write_out(out, matmul(input, other))
    if not isinstance(input, Tensor):
        raise not_a_tensor("matmul", input)
    if not isinstance(other, Tensor):
        raise not_a_tensor("matmul", other, "other", 2)
    da, db = input.ndim, other.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    # NOTE: the same decomposition into dot/mv/mm/bmm and views as PyTorch's _matmul_impl,
    # so results, gradients and grad_fn names match
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        return SqueezeInplace.apply(mm(input.unsqueeze(0), other), (0,))
    if da == 2 and db == 2:
        return mm(input, other)
    if _should_fold(input, other):
        return _matmul_folded(input, other)
    return _matmul_batched(input, other)


class SqueezeInplace(Squeeze):
    """``squeeze_`` on a fresh result (PyTorch's matmul of a vector and a matrix)."""
    _backward_name = "SqueezeBackward4"


class UnsafeView(BuiltinFunction):
    """out = x in a new shape, not tracked as a view (``_unsafe_view``);  dx = g reshaped."""
    _backward_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, x, shape):
        ctx.shape = x.shape
        return x.reshape(shape)

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.shape), None


def _should_fold(t1, t2):
    """PyTorch's should_fold: fold the batch dims of the larger operand into one matrix."""
    larger = t1.ndim >= t2.ndim
    big = t1 if larger else t2.mT
    small_dim = t2.ndim if larger else t1.ndim
    if not (big.ndim >= 3 and small_dim <= 2):
        return False
    if (t2 if larger else t1)._rg:
        return True
    if t1.ndim == 2:
        return False
    if big.numel() == 0:
        return True
    shape, strides = big.shape, big.stride()
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(big.ndim - 2))


def _matmul_folded(tensor1, tensor2):
    transpose = tensor2.ndim > tensor1.ndim
    t1 = tensor2.mT if transpose else tensor1
    t2 = (tensor1.t() if tensor1.ndim == 2 else tensor1) if transpose else tensor2
    out_shape = list(t1.shape[:-1])
    folded = int(np.prod(out_shape))
    t1_folded = t1.reshape(folded, t1.shape[-1])
    if t2.ndim == 2:
        out_shape.append(t2.shape[1])
        _check_mm(t1_folded, t2)
        output = UnsafeView.apply(t1_folded.mm(t2), tuple(out_shape))
        return output.mT.contiguous() if transpose else output
    _check_mv(t1_folded, t2)
    return UnsafeView.apply(t1_folded.mv(t2), tuple(out_shape))


def _matmul_batched(tensor1, tensor2):
    d1, d2 = tensor1.ndim, tensor2.ndim
    n = tensor1.shape[-2] if d1 > 1 else 1
    m1 = tensor1.shape[-1]
    batch1 = tuple(tensor1.shape[:max(d1 - 2, 0)])
    m2 = tensor2.shape[-2] if d2 > 1 else tensor2.shape[0]
    p = tensor2.shape[-1] if d2 > 1 else 1
    batch2 = tuple(tensor2.shape[:max(d2 - 2, 0)])
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and tensor1._rg:
            return matmul(tensor1.squeeze(0), tensor2)
        if batch2[0] == 1 and tensor2._rg:
            return matmul(tensor1, tensor2.squeeze(0))
    out_shape = list(_broadcast_batch(batch1, batch2))
    product = int(np.prod(out_shape))
    t1 = tensor1.expand(tuple(out_shape) + (n, m1)).reshape(product, n, m1)
    if d2 == 1:
        t2 = tensor2.expand(tuple(out_shape) + (m2,)).reshape(product, m2).unsqueeze(2)
    else:
        t2 = tensor2.expand(tuple(out_shape) + (m2, p)).reshape(product, m2, p)
    if d1 > 1:
        out_shape.append(n)
    if d2 > 1:
        out_shape.append(p)
    prod = t1.bmm(t2)
    if d2 == 1:
        prod = prod.squeeze(-1)
    return UnsafeView.apply(prod, tuple(out_shape))


_broadcast_batch = infer_size  # batch shapes of matmul


def _check_mv(mat, vec):
    if mat._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({mat._data.shape[0]}), mat "
                           f"({_dims(mat._data.shape)}), vec ({vec._data.shape[0]})")
    _no_bool_kernel(mat, "addmv_impl_cpu")


def outer(input, vec2):
    """Outer product of two vectors."""
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return input.reshape(-1, 1) * vec2  # as PyTorch's graph: vec2 itself is Mul's operand


ger = outer


def _plain_number(v):
    """Whether ``g * v`` of the Tensor formula is one ``np.multiply`` by ``number_array``
    (a Python float or int) or is skipped (``v == 1``)."""
    return type(v) is float or type(v) is int or v == 1


def _addmm_array_grads(ctx, d):
    """Addmm's first-order gradients on arrays, bit for bit those of its Tensor formula: the
    same multiplies and matmuls, and the bias gradient summed as the engine's
    ``sum_to_shape`` would sum it (so the engine has nothing left to reduce). NotImplemented
    where only the Tensor formula applies."""
    if d.ndim != 2 or len(ctx.cshape) > 2 or not (_plain_number(ctx.beta) and
                                                  _plain_number(ctx.alpha)):
        return NotImplemented
    a, b = ctx.saved_tensors
    arrays = _plain_arrays(d, a, b)
    if arrays is None:
        return NotImplemented
    x, y = arrays
    nc, na, nb = ctx.needs_input_grad[:3]
    gc = None
    if nc:
        beta = ctx.beta
        gc = d if beta == 1 else np.multiply(d, number_array(beta, d.dtype))
        gc = sum_to_shape_array(gc, ctx.cshape)
    ga, gb = _mm_array_grads(d, x, y, na, nb, _transposed(ctx, 1))
    alpha = ctx.alpha
    if alpha != 1:
        z = number_array(alpha, d.dtype)
        ga = np.multiply(ga, z) if na else None
        gb = np.multiply(gb, z) if nb else None
    return gc, ga, gb, None, None


class Addmm(BuiltinFunction):
    """out = beta * c + alpha * (a @ b);  the sum of the mm and add gradients."""
    _backward_name = "AddmmBackward0"
    _np_exact = True  # (the bias gradient summed to its shape; operands of one dtype)

    @staticmethod
    def forward(ctx, c, a, b, beta, alpha):
        _save_operands(ctx, a, b, 1)
        ctx.beta, ctx.alpha, ctx.cshape = beta, alpha, c.shape
        if a.dtype == np.float16 and b.dtype == a.dtype and c.dtype == a.dtype:
            # NOTE: PyTorch's half gemm works in float32 (alpha, beta too), rounds once
            return Addmm.forward(_NULL_CTX, c.astype(np.float32), a.astype(np.float32),
                                 b.astype(np.float32), beta, alpha).astype(np.float16)
        prod = _mm2(a, b) if a.ndim == 2 and b.ndim == 2 else np.matmul(a, b)
        if alpha != 1:
            prod = prod * alpha
        c = c if beta == 1 else c * beta
        if c.dtype == prod.dtype and c.ndim <= prod.ndim and prod.ndim == 2 and \
                all(n in (1, m) for n, m in zip(c.shape[::-1], prod.shape[::-1])):
            return np.add(prod, c, out=prod)  # prod is ours: no second output array
        if prod.ndim == 2:  # PyTorch expands c to the product's shape: its error if it cannot
            from .._dtype import _FROM_NP
            expand_shape(c.shape, prod.shape, _FROM_NP[c.dtype])
        return prod + c

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        nc, na, nb = ctx.needs_input_grad[:3]
        gc = (g if ctx.beta == 1 else g * _cj(ctx.beta)) if nc else None
        ga, gb = _mm_grads(g, a, b, na, nb, _transposed(ctx, 1))
        if ctx.alpha != 1:
            ga = ga * _cj(ctx.alpha) if na else None
            gb = gb * _cj(ctx.alpha) if nb else None
        return gc, ga, gb, None, None

    _np_backward = staticmethod(_addmm_array_grads)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)``."""
    _check_addmm_dtypes(input, mat1, mat2)
    _check_mm(mat1, mat2)
    res = Addmm.apply(input, mat1, mat2, beta, alpha)
    return res if out is None else write_out(out, res)


def _scaled_add_product(c, a, b, beta, alpha):
    """``beta * c + alpha * (a @ b)``; for half operands in float32, rounded once, as
    PyTorch's half gemm kernels compute it."""
    if a.dtype == np.float16 and b.dtype == a.dtype and c.dtype == a.dtype:
        f = np.float32
        out = _scaled_add(c.astype(f), np.matmul(a.astype(f), b.astype(f)), beta, alpha)
        return out.astype(np.float16)
    return _scaled_add(c, np.matmul(a, b), beta, alpha)


def _scaled_add(c, product, beta, alpha):
    """beta * c + alpha * product, where beta == 0 ignores c (nan included), as in PyTorch.
    For integer results beta and alpha are truncated to integers of that dtype (wrapping), for
    bool ones to bools, as PyTorch."""
    kind = product.dtype.kind
    if kind in "iub":
        dt = np.result_type(c, product)
        if kind == "b":
            out = product & bool(alpha)
            return np.array(out | c) if beta else np.array(np.broadcast_to(
                out, np.broadcast_shapes(c.shape, out.shape)))
        beta = np.asarray(int(beta)).astype(dt)
        alpha = np.asarray(int(alpha)).astype(dt)
    out = product * alpha if alpha != 1 else product
    if beta == 0:
        return np.array(np.broadcast_to(out, np.broadcast_shapes(c.shape, out.shape)))
    return out + (c * beta if beta != 1 else c)


class Addmv(BuiltinFunction):
    """out = beta c + alpha (m @ v);  dc = beta g, dm = alpha outer(g, v), dv = alpha m^T g."""
    _backward_name = "AddmvBackward0"

    @staticmethod
    def forward(ctx, c, m, v, beta, alpha):
        ctx.save_for_backward(m, v)
        ctx.beta, ctx.alpha = beta, alpha
        return _scaled_add_product(c, m, v, beta, alpha)

    @staticmethod
    def backward(ctx, g):
        m, v = ctx.saved_tensors
        nc, nm, nv = ctx.needs_input_grad[:3]
        beta, alpha = _cj(ctx.beta), _cj(ctx.alpha)
        return ((g * beta if nc else None), (outer(g, _cj(v)) * alpha if nm else None),
                (_mH(m).mv(g) * alpha if nv else None), None, None)


class Addr(BuiltinFunction):
    """out = beta c + alpha outer(u, v);  du = alpha g @ v, dv = alpha g^T @ u."""
    _backward_name = "AddrBackward0"

    @staticmethod
    def forward(ctx, c, u, v, beta, alpha):
        ctx.save_for_backward(u, v)
        ctx.beta, ctx.alpha = beta, alpha
        return _scaled_add(c, np.outer(u, v), beta, alpha)

    @staticmethod
    def backward(ctx, g):
        u, v = ctx.saved_tensors
        nc, nu, nv = ctx.needs_input_grad[:3]
        beta, alpha = _cj(ctx.beta), _cj(ctx.alpha)
        return ((g * beta if nc else None), (g.mv(_cj(v)) * alpha if nu else None),
                (g.t().mv(_cj(u)) * alpha if nv else None), None, None)


class Baddbmm(BuiltinFunction):
    """out = beta c + alpha (b1 @ b2) per batch;  db1 = alpha g b2^T, db2 = alpha b1^T g."""
    _backward_name = "BaddbmmBackward0"

    @staticmethod
    def forward(ctx, c, b1, b2, beta, alpha):
        ctx.save_for_backward(b1, b2)
        ctx.beta, ctx.alpha = beta, alpha
        return _scaled_add_product(c, b1, b2, beta, alpha)

    @staticmethod
    def backward(ctx, g):
        b1, b2 = ctx.saved_tensors
        nc, n1, n2 = ctx.needs_input_grad[:3]
        beta, alpha = _cj(ctx.beta), _cj(ctx.alpha)
        return ((g * beta if nc else None), (g.bmm(_mH(b2)) * alpha if n1 else None),
                (_mH(b1).bmm(g) * alpha if n2 else None), None, None)


class Addbmm(BuiltinFunction):
    """out = beta c + alpha sum_b (b1 @ b2);  db1 = alpha g b2^T, db2 = alpha b1^T g per batch."""
    _backward_name = "AddbmmBackward0"

    @staticmethod
    def forward(ctx, c, b1, b2, beta, alpha):
        ctx.save_for_backward(b1, b2)
        ctx.beta, ctx.alpha = beta, alpha
        prod = np.matmul(b1, b2)
        return _scaled_add(c, prod.sum(0, dtype=prod.dtype), beta, alpha)  # int32 stays

    @staticmethod
    def backward(ctx, g):
        b1, b2 = ctx.saved_tensors
        nc, n1, n2 = ctx.needs_input_grad[:3]
        gb = g.unsqueeze(0).expand(b1.shape[0], *g.shape)
        beta, alpha = _cj(ctx.beta), _cj(ctx.alpha)
        return ((g * beta if nc else None), (gb.bmm(_mH(b2)) * alpha if n1 else None),
                (_mH(b1).bmm(gb) * alpha if n2 else None), None, None)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``."""
    if mat.ndim != 2 or vec.ndim != 1:
        mv(mat, vec)  # PyTorch's shape errors
    _check_addmv_dtypes(input._data.dtype, mat, vec)
    return Addmv.apply(input, mat, vec, beta, alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    return Addr.apply(input, vec1, vec2, beta, alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` per batch."""
    bmm(batch1, batch2) if batch1.ndim != 3 or batch2.ndim != 3 else None
    if not input._data.dtype == batch1._data.dtype == batch2._data.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_NAMES[input.dtype.name]}"
                           f", batch1: {_NAMES[batch1.dtype.name]}, batch2: "
                           f"{_NAMES[batch2.dtype.name]}")
    return Baddbmm.apply(input, batch1, batch2, beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum of batch1[i] @ batch2[i]``."""
    bmm(batch1, batch2) if batch1.ndim != 3 or batch2.ndim != 3 else None
    return Addbmm.apply(input, batch1, batch2, beta, alpha)


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` (``torch.nn.functional.linear``).

    As PyTorch: with a bias, a contiguous input of any rank is folded into one ``addmm`` on
    its (rows, features) view and viewed back (``ViewBackward0``); otherwise ``matmul`` then
    an add.
    """
    if not isinstance(input, Tensor):
        raise not_a_tensor("linear", input)
    if not isinstance(weight, Tensor):
        raise not_a_tensor("linear", weight, "weight", 2)
    x, w = input._data, weight._data
    if x.ndim == 2 and w.ndim == 2 and isinstance(bias, Tensor):
        b = bias._data
        dt = w.dtype
        if x.dtype is dt and b.dtype is dt and dt.kind == "f" and x.shape[1] == w.shape[1] \
                and b.shape == (w.shape[0],):  # the usual call: every check below passes
            if weight._rg and _plain_recording(input, weight, dt):
                return _record_linear(input, weight, bias)
            return Addmm.apply(bias, input, weight.t(), 1, 1)
    if x.ndim == 0 or w.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{x.ndim}D and {w.ndim}D")
    wt = weight.t()
    if bias is not None and input.ndim == 2 and weight.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {weight.ndim}-D tensor")
    if bias is not None and input.ndim >= 1 and weight.ndim == 2:
        _check_addmm_dtypes(bias, input, weight)
        if input.ndim == 2:
            _check_mm(input, wt)
            _check_bias(bias, input._data.shape[0], weight._data.shape[0])
            return Addmm.apply(bias, input, wt, 1, 1)
        if input._data.flags.c_contiguous:
            lead = input._data.shape[:-1]
            rows = input.view(int(np.prod(lead, dtype=np.int64)), input._data.shape[-1])
            _check_mm(rows, wt)
            _check_bias(bias, rows._data.shape[0], weight._data.shape[0])
            return Addmm.apply(bias, rows, wt, 1, 1).view(lead + (weight.shape[0],))
    out = matmul(input, wt)
    return out + bias if bias is not None else out


def _plain_recording(x, w, dt):
    """Whether ``_record_linear`` may record ``linear(x, w, b)``: grad mode on with nothing
    interposed (forward AD, vmap, anomaly mode, saved-tensor hooks), ``w`` not a view, no
    inference tensor to save, float32 or float64 (Addmm's half path rounds differently)."""
    return (STATE.enabled and _base._interpose is None and not ANOMALY[0] and not _hook_stack
            and w._view is None and (dt is _F32 or dt is _F64)
            and type(x._vcs) is not _InferenceVC and type(w._vcs) is not _InferenceVC)


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_T_NEEDS = (True, False, False)  # TBackward0's: the weight, then its two dims


def _record_linear(x, w, b):
    """``Addmm.apply(b, x, w.t(), 1, 1)``, the graph the general path records for the usual
    training call (a ``TBackward0`` view of ``w``, then ``AddmmBackward0``), in one step:
    ``_apply_recorded``, both forwards and ``_finish`` folded, as ``record_unary`` does for
    the unary ops (see ``_plain_recording`` for when; test_fast_paths compares the two).

    >>> import numtorch as torch
    >>> lin = torch.nn.Linear(3, 2)
    >>> y = lin(torch.ones(4, 3))
    >>> y.grad_fn.name(), y.grad_fn.next_functions[2][0].name()
    ('AddmmBackward0', 'TBackward0')
    """
    xd, wd, bd = x._data, w._data, b._data
    dt = _FROM_NP[wd.dtype]
    # NOTE: _init_ctx and _init_node inlined for both nodes (test_fast_paths checks that
    # every slot they set is set here too; anomaly mode, which swaps _init_node, is excluded).
    # First the weight's transposed view and its node:
    tnode = _new(T._backward_cls)
    tnode.to_save = tnode._dirty = tnode._non_diff = tnode._x = None
    tnode._saved = ()
    tnode._materialize = True
    fn = w._grad_fn
    tnode.next_functions = ((fn, w._output_nr) if fn is not None else w._edge(),)
    tnode._seq = next(_sequence)
    tnode._in_meta = ((wd.shape, dt), None, None)
    tnode.needs_input_grad = _T_NEEDS
    tnode.d0, tnode.d1 = 0, 1
    wtd = wd.swapaxes(0, 1)
    tnode._out_meta = ((wtd.shape, dt),)
    wt = _make(wtd, tnode, True)
    _mark_view(wt, T, (w, 0, 1))
    # the product's node
    node = _new(Addmm._backward_cls)
    node.to_save = node._dirty = node._non_diff = node._x = None
    node._materialize = True
    fn = b._grad_fn  # (the bias's edge first: a new accumulator takes a sequence number)
    be = ((fn, b._output_nr) if fn is not None and b._view is None else b._edge()) \
        if b._rg else _NO_EDGE
    fn = x._grad_fn
    xe = ((fn, x._output_nr) if fn is not None and x._view is None else x._edge()) \
        if x._rg else _NO_EDGE
    node.next_functions = (be, xe, (tnode, 0))
    node._seq = next(_sequence)
    node._in_meta = ((bd.shape, dt), (xd.shape, dt), (wtd.shape, dt), None, None)
    node.needs_input_grad = (b._rg, x._rg, True, False, False)
    node.beta, node.alpha, node.cshape = 1, 1, bd.shape
    out = np.matmul(xd, wtd) if xd.shape[1] != 1 else _mm2(xd, wtd)
    np.add(out, bd, out=out)
    node._out_meta = ((out.shape, dt),)
    t = _make(out, node, True)
    # what _save_operands saves: the input for the weight's gradient; the weight's view (and
    # the input's strides) only when the input needs a gradient too
    xv = x._vcs
    if x._rg:
        node._saved = ((0, x, 0 if xv is None else xv[0]), (0, wt, wt._vcs[0]))
        node.strides = (xd.strides, wtd.strides)
    else:
        node._saved = ((0, x, 0 if xv is None else xv[0]), None)
        node.strides = (None, wtd.strides)
    return t


def _check_bias(bias, rows, features):
    """PyTorch's expand error for a bias that does not broadcast to addmm's (rows, features)
    output (a bias of ``(features,)``, the usual one, needs no check)."""
    if bias._data.shape != (features,):
        expand(bias.detach(), (rows, features))


class Einsum(BuiltinFunction):
    """out = einsum(eq, *xs);  dx_i = einsum of g with the other operands into x_i's indices."""
    _backward_name = "EinsumBackward0"

    @staticmethod
    def forward(ctx, eq, *xs):
        ctx.eq = eq
        ctx.save_for_backward(*xs)
        if xs and all(x.dtype == np.float16 for x in xs):
            # NOTE: PyTorch contracts half operands with float32 accumulation, rounds once
            f = np.float32
            out = np.einsum(eq, *[x.astype(f) for x in xs], dtype=_einsum_sum_dtype(eq, xs))
            return np.asarray(out).astype(np.float16)
        return np.asarray(np.einsum(eq, *xs, dtype=_einsum_sum_dtype(eq, xs)))

    @staticmethod
    def backward(ctx, g):
        xs = ctx.saved_tensors
        ins, out = ctx.eq.split("->")
        subs = ins.split(",")
        grads = [None]
        for i, x in enumerate(xs):
            if not ctx.needs_input_grad[i + 1]:
                grads.append(None)
                continue
            others = [s for k, s in enumerate(subs) if k != i]
            ops = [_cj(xs[k]) for k in range(len(xs)) if k != i]
            grads.append(_einsum_grad(subs[i], out, others, g, ops, x))
        return tuple(grads)


def _einsum_sum_dtype(eq, xs):
    """int64 where PyTorch's einsum sums an integer or bool operand over a label no other
    operand and not the output has (it reduces such labels first, with ``torch.sum``'s
    promotion); None (the operands' own dtype) otherwise."""
    if not xs or xs[0].dtype.kind not in "biu":
        return None
    ins, out = eq.split("->")
    subs = ins.split(",")
    for i, sub in enumerate(subs):
        others = set(out).union(*(set(t) for j, t in enumerate(subs) if j != i))
        if set(sub) - others:
            return np.int64
    return None


def _einsum_grad(target, out, others, g, ops, x):
    """Gradient for one einsum operand: g contracted with the other operands into this one's
    labels; constant along labels only it has; on the diagonal for a repeated label; summed
    over dims it broadcast."""
    uniq = "".join(dict.fromkeys(target))
    sizes = {c: x.shape[k] for k, c in enumerate(target)}
    present = set(out) | set("".join(others))
    kept = "".join(c for c in uniq if c in present)
    grad = einsum(",".join([out] + others) + "->" + kept, g, *ops)
    if len(kept) != len(uniq):
        view = [grad.shape[kept.index(c)] if c in kept else 1 for c in uniq]
        grad = grad.reshape(view).expand([grad.shape[kept.index(c)] if c in kept else sizes[c]
                                          for c in uniq])
    if len(uniq) != len(target):
        grad = _onto_diagonals(grad, uniq, target, sizes,
                               set(target) | present | set(out))
    if tuple(grad.shape) != tuple(x.shape):  # a label broadcast one way or the other
        grad = grad.expand([max(a, b) for a, b in zip(grad.shape, x.shape)])
        grad = grad.sum_to_size(x.shape)
    return grad


def _onto_diagonals(grad, uniq, target, sizes, used):
    """``grad`` over the distinct labels ``uniq``, placed on the diagonals of ``target``
    (a label repeated there): each repeat becomes a fresh label tied by an identity matrix."""
    from .._creation import eye
    fresh = iter(c for c in _EINSUM_LETTERS if c not in used)
    seen, labels, eyes, terms = set(), [], [], []
    for c in target:
        if c in seen:
            f = next(fresh)
            labels.append(f)
            terms.append(c + f)
            eyes.append(eye(sizes[c], dtype=grad.dtype))
        else:
            seen.add(c)
            labels.append(c)
    return einsum(",".join([uniq] + terms) + "->" + "".join(labels), grad, *eyes)


_EINSUM_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _einsum_labels(term, where):
    """A term's labels with '.' standing for its ellipsis, checked as PyTorch checks them."""
    if term.count("...") > 1 or (term.replace("...", "", 1).count(".")):
        if term.count("...") >= 1:
            tail = "but an ellipsis (...)" if where == "output" else "for which an ellipsis"
            raise RuntimeError(f"einsum(): found '.' for {where} {tail} was already found")
        raise RuntimeError(f"einsum(): found '.' for {where} that is not part of any ellipsis")
    labels = term.replace("...", ".")
    for c in labels:
        if c != "." and c not in _EINSUM_LETTERS:
            raise RuntimeError(f"einsum(): invalid subscript given at index "
                               f"{labels.index(c)} in the equation string, subscripts must be "
                               "in [a-zA-Z]")
    return labels


def _expand_ellipses(terms, operands, fresh):
    """Each operand's labels with its ellipsis dims as fresh letters (right-aligned)."""
    counts = []
    for k, (term, x) in enumerate(zip(terms, operands)):
        n = len(term.replace(".", ""))
        if "." in term:
            if n > x.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) "
                                   f"is more than the number of dimensions ({x.ndim}) for "
                                   f"operand {k}")
        elif n != x.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) does "
                               f"not match the number of dimensions ({x.ndim}) for operand {k} "
                               "and no ellipsis was given")
        counts.append(x.ndim - n if "." in term else 0)
    ell = "".join(fresh[:max(counts, default=0)])
    out = [t.replace(".", ell[len(ell) - c:] if c else "") for t, c in zip(terms, counts)]
    return out, ell


def _normalize_equation(eq, operands):
    """The equation with explicit labels only: '...' expanded, the output spelled out."""
    eq = eq.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    terms = [_einsum_labels(t, f"operand {k}") for k, t in enumerate(terms)]
    used = set(eq)
    terms, ell = _expand_ellipses(terms, operands, [c for c in _EINSUM_LETTERS
                                                    if c not in used])
    if arrow:
        out = _einsum_labels(rhs, "output").replace(".", ell)
        _check_einsum_output(out, terms)
    else:
        letters = "".join(terms)
        out = ell + "".join(sorted(c for c in set(letters) - set(ell)
                                   if letters.count(c) == 1))
    _check_einsum_sizes(terms, operands)
    return ",".join(terms) + "->" + out


def _check_einsum_output(out, terms):
    for c in out:
        if out.count(c) > 1:
            raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the "
                               "output")
        if not any(c in t for t in terms):
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                               "equation for any input operand")


def _check_einsum_sizes(terms, operands):
    """Sizes of one label must be equal or 1 (broadcast), as PyTorch requires."""
    seen = {}
    for k, (term, x) in enumerate(zip(terms, operands)):
        for c, n in zip(term, x.shape):
            if n == 1:
                continue
            if seen.setdefault(c, n) != n:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} which "
                                   f"does not broadcast with previously seen size {seen[c]}")


def einsum(equation, *operands):
    """Einstein summation over the operands' labelled dims."""
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for t in operands[1:]:
        if isinstance(t, Tensor) and isinstance(operands[0], Tensor) and \
                t.dtype is not operands[0].dtype:
            raise RuntimeError(f"expected scalar type {D.SCALAR_NAMES[operands[0].dtype]} but "
                               f"found {D.SCALAR_NAMES[t.dtype]}")
    eq = _normalize_equation(equation, operands)
    if len(operands) > 1 and isinstance(operands[0], Tensor):
        _no_bool_kernel(operands[0], "bmm")  # PyTorch contracts pairs with bmm
    return Einsum.apply(eq, *operands)


def tensordot(a, b, dims=2):
    if isinstance(dims, int):
        da = list(range(a.ndim - dims, a.ndim))
        db = list(range(dims))
        shown = list(range(-dims, 0))  # PyTorch's message names a's dims from the end
    else:
        da, db = [list(d) if isinstance(d, (list, tuple)) else [d] for d in dims]
        shown = da
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    for i, j, k in zip(da, db, shown):
        s1, s2 = a.shape[i], b.shape[j]
        if s1 != s2 and s1 != 1 and s2 != 1:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} "
                               f"in dim {k} and second has size {s2} in dim {j}")
    letters = "abcdefghijklmnopqrstuvwxyz"
    sa = letters[:a.ndim]
    sb = list(letters[a.ndim:a.ndim + b.ndim])
    for i, j in zip(da, db):
        sb[j] = sa[i]
    sb = "".join(sb)
    out = "".join(c for k, c in enumerate(sa) if k not in da) + \
        "".join(c for k, c in enumerate(sb) if k not in db)
    _no_bool_kernel(a, "addmm_impl_cpu_")  # PyTorch's tensordot is one mm
    return einsum(f"{sa},{sb}->{out}", a, b)


def kron(input, other):
    a, b = input, other
    n = max(a.ndim, b.ndim)
    sa = (1,) * (n - a.ndim) + tuple(a.shape)
    sb = (1,) * (n - b.ndim) + tuple(b.shape)
    ia = tuple(d for k in range(n) for d in (sa[k], 1))
    ib = tuple(d for k in range(n) for d in (1, sb[k]))
    # as PyTorch: _unsafe_view operands (not views: an in-place change of an input after
    # the call does not fail backward), a Mul, an _unsafe_view of the product
    return UnsafeView.apply(UnsafeView.apply(a, ia) * UnsafeView.apply(b, ib),
                            tuple(sa[k] * sb[k] for k in range(n)))


class Cross(BuiltinFunction):
    """out = a x b along dim;  da = b x g, db = g x a."""
    _backward_name = "LinalgCrossBackward0"

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.save_for_backward(a, b)
        ctx.dim = dim
        shape = np.broadcast_shapes(a.shape, b.shape)
        return np.cross(np.broadcast_to(a, shape), np.broadcast_to(b, shape), axis=dim)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        na, nb = ctx.needs_input_grad[:2]
        return ((Cross.apply(_cj(b), g, ctx.dim) if na else None),
                (Cross.apply(g, _cj(a), ctx.dim) if nb else None), None)


_WARNED = []


def cross(input, other, dim=None):
    """The cross product of 3-vectors along ``dim`` (the first dim of size 3 by default)."""
    from ._util import wrap_dim
    if dim is None and not _WARNED:
        from ._util import warn_user
        _WARNED.append("cross")  # PyTorch warns once per process
        warn_user("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross."
                      "\nThe default value of dim will change to agree with that of "
                      "linalg.cross in a future release. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)")
    if dim is None:
        dim = next((i for i, s in enumerate(np.broadcast_shapes(input.shape, other.shape))
                    if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim)


def linalg_cross(input, other, dim=-1):
    """``torch.linalg.cross``: PyTorch's checks, then the cross product along ``dim``."""
    from ._util import wrap_dim
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {D.SCALAR_NAMES[input.dtype]} but found "
                           f"{D.SCALAR_NAMES[other.dtype]}")
    return Cross.apply(input, other, d)


class Trace(BuiltinFunction):
    """out = sum of the main diagonal;  dx = g on the diagonal, 0 elsewhere."""
    _backward_name = "TraceBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        if x.dtype.kind == "f" and x.dtype.itemsize >= 4:
            # NOTE: PyTorch's CPU trace adds the diagonal left to right in double
            d = x.diagonal().astype(np.float64)
            return np.asarray(np.add.accumulate(d)[-1] if d.size else 0.0, x.dtype)
        return np.asarray(np.trace(x))

    @staticmethod
    def backward(ctx, g):
        from .shape import DiagEmbedInto
        k = min(ctx.shape)
        return DiagEmbedInto.apply(g.expand(k), ctx.shape, 0, 0, 1)


def trace(input):
    """The sum of the main diagonal of a matrix."""
    if input.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim "
                           f"{input.ndim}")
    if input._data.dtype.kind == "b":  # (PyTorch's kernel has no bool version)
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return Trace.apply(input)
