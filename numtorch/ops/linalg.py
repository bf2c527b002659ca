"""Matrix products: matmul (with broadcasting), mm, bmm, mv, dot, outer, addmm, einsum.

>>> import numtorch as torch
>>> a = torch.ones(2, 3, requires_grad=True)
>>> (a @ torch.ones(3, 4)).sum().backward(); a.grad
tensor([[4., 4., 4.],
        [4., 4., 4.]])
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._base import BuiltinFunction

_make = Tensor._make

_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
          "int32": "int", "int16": "short int", "int8": "signed char",
          "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
          "complex128": "c10::complex<double>"}


def _check_same_dtype(a, b, what="m1 and m2"):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected {what} to have the same dtype, but got: "
                           f"{_NAMES[a.dtype.name]} != {_NAMES[b.dtype.name]}")


def _dims(shape):
    return "x".join(map(str, shape))


class Mm(BuiltinFunction):
    """out = a @ b (matrices);  da = g @ b.T, db = a.T @ g."""
    _backward_name = "MmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.matmul(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        na, nb = ctx.needs_input_grad[:2]
        return (g.matmul(b.mT) if na else None), (a.mT.matmul(g) if nb else None)


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
        return (outer(g, v) if na else None), (a.mT.matmul(g) if nv else None)


class Dot(BuiltinFunction):
    """out = sum(a * b) (vectors);  da = g * b, db = g * a."""
    _backward_name = "DotBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.asarray(np.dot(a, b))

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        na, nb = ctx.needs_input_grad[:2]
        return (g * b if na else None), (g * a if nb else None)


def _check_mm(a, b, op="mm"):
    _check_same_dtype(a, b, "m1 and m2" if op == "mm" else "scalar type of mat1 and mat2")
    if a._data.shape[-1] != b._data.shape[-2]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({_dims(a._data.shape[-2:])} and {_dims(b._data.shape[-2:])})")


def mm(input, mat2, *, out=None):
    """Matrix product of two 2-D tensors."""
    if input.ndim != 2 or mat2.ndim != 2:
        bad = input if input.ndim != 2 else mat2
        raise RuntimeError(f"{'self' if bad is input else 'mat2'} must be a matrix")
    _check_mm(input, mat2)
    return Mm.apply(input, mat2)


def bmm(input, mat2, *, out=None):
    """Batched matrix product of two 3-D tensors."""
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if input.ndim != 3 else
                           "batch2 must be a 3D tensor")
    _check_same_dtype(input, mat2, "batch1 and batch2")
    if input._data.shape[0] != mat2._data.shape[0] or \
            input._data.shape[2] != mat2._data.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input._data.shape[0]}, {input._data.shape[2]}] but got: "
                           f"[{mat2._data.shape[0]}, {mat2._data.shape[1]}].")
    return Bmm.apply(input, mat2)


def mv(input, vec):
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {vec.ndim}, {input.ndim}")
    _check_same_dtype(input, vec)
    if input._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0]}), mat "
                           f"({_dims(input._data.shape)}), vec ({vec._data.shape[0]})")
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
    _check_same_dtype(input, tensor, "both vectors")
    return Dot.apply(input, tensor)


vdot = dot
inner_1d = dot


def matmul(input, other, *, out=None):
    """Matrix product with NumPy/PyTorch broadcasting rules for 1-D and batched operands."""
    if not isinstance(other, Tensor) or not isinstance(input, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    da, db = input.ndim, other.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 2:
        return mm(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1:
        _check_mm(input.unsqueeze(0), other)
        return MatmulND.apply(input.unsqueeze(0), other).squeeze(-2)
    if db == 1:
        _check_mm(input, other.unsqueeze(-1))
        return MatmulND.apply(input, other.unsqueeze(-1)).squeeze(-1)
    _check_mm(input, other)
    try:
        np.broadcast_shapes(input._data.shape[:-2], other._data.shape[:-2])
    except ValueError:
        raise RuntimeError("The size of tensor a must match the size of tensor b at "
                           "non-singleton dimension") from None
    return MatmulND.apply(input, other)


def outer(input, vec2):
    """Outer product of two vectors."""
    return input.reshape(-1, 1) * vec2.reshape(1, -1)


ger = outer


class Addmm(BuiltinFunction):
    """out = beta * c + alpha * (a @ b);  the sum of the mm and add gradients."""
    _backward_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, c, a, b, beta, alpha):
        ctx.save_for_backward(a, b)
        ctx.beta, ctx.alpha, ctx.cshape = beta, alpha, c.shape
        prod = np.matmul(a, b)
        if alpha != 1:
            prod = prod * alpha
        return prod + (c if beta == 1 else c * beta)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        nc, na, nb = ctx.needs_input_grad[:3]
        gc = (g if ctx.beta == 1 else g * ctx.beta) if nc else None
        ga = g.matmul(b.mT) * ctx.alpha if na else None
        gb = a.mT.matmul(g) * ctx.alpha if nb else None
        return gc, ga, gb, None, None


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)``."""
    _check_mm(mat1, mat2)
    return Addmm.apply(input, mat1, mat2, beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    return input * beta + mv(mat, vec) * alpha


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    return input * beta + outer(vec1, vec2) * alpha


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return input * beta + bmm(batch1, batch2) * alpha


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return input * beta + bmm(batch1, batch2).sum(0) * alpha


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` (``torch.nn.functional.linear``)."""
    if input.ndim == 2 and bias is not None:
        _check_mm(input, weight.t())
        return Addmm.apply(bias, input, weight.t(), 1, 1)
    out = matmul(input, weight.t())
    return out + bias if bias is not None else out


class Einsum(BuiltinFunction):
    """out = einsum(eq, *xs);  dx_i = einsum of g with the other operands into x_i's indices."""
    _backward_name = "EinsumBackward0"

    @staticmethod
    def forward(ctx, eq, *xs):
        ctx.eq = eq
        ctx.save_for_backward(*xs)
        return np.asarray(np.einsum(eq, *xs))

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
            ops = [xs[k] for k in range(len(xs)) if k != i]
            grads.append(_einsum_grad(subs[i], out, others, g, ops, x))
        return tuple(grads)


def _einsum_grad(target, out, others, g, ops, x):
    """Gradient for one einsum operand; repeated indices (diagonals) are not supported."""
    if len(set(target)) != len(target):
        raise NotImplementedError("numtorch's einsum backward does not support repeated "
                                  "indices in one operand")
    present = set(out) | set("".join(others))
    missing = [c for c in target if c not in present]
    eq = ",".join([out] + others) + "->" + "".join(c for c in target if c not in missing)
    grad = einsum(eq, g, *ops)
    if missing:
        shape = [x.shape[k] if c in missing else 1 for k, c in enumerate(target)]
        view = [x.shape[k] if c not in missing else 1 for k, c in enumerate(target)]
        grad = grad.reshape(view).expand([x.shape[k] for k in range(len(target))])
    return grad


def _normalize_equation(eq, operands):
    eq = eq.replace(" ", "")
    if "..." in eq:
        raise NotImplementedError("numtorch's einsum does not support '...' yet")
    if "->" not in eq:
        ins = eq.split(",")
        letters = "".join(ins)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
        eq = eq + "->" + out
    return eq


def einsum(equation, *operands):
    """Einstein summation over the operands' labelled dims."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    eq = _normalize_equation(equation, operands)
    return Einsum.apply(eq, *operands)


def tensordot(a, b, dims=2):
    if isinstance(dims, int):
        da = list(range(a.ndim - dims, a.ndim))
        db = list(range(dims))
    else:
        da, db = [list(d) if isinstance(d, (list, tuple)) else [d] for d in dims]
    letters = "abcdefghijklmnopqrstuvwxyz"
    sa = letters[:a.ndim]
    sb = list(letters[a.ndim:a.ndim + b.ndim])
    for i, j in zip(da, db):
        sb[j] = sa[i]
    sb = "".join(sb)
    out = "".join(c for k, c in enumerate(sa) if k not in da) + \
        "".join(c for k, c in enumerate(sb) if k not in db)
    return einsum(f"{sa},{sb}->{out}", a, b)


def kron(input, other):
    a, b = input, other
    n = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (n - a.ndim) + tuple(a.shape))
    b = b.reshape((1,) * (n - b.ndim) + tuple(b.shape))
    ia = [d for k in range(n) for d in (a.shape[k], 1)]
    ib = [d for k in range(n) for d in (1, b.shape[k])]
    return (a.reshape(ia) * b.reshape(ib)).reshape([a.shape[k] * b.shape[k] for k in range(n)])


def cross(input, other, dim=None):
    if dim is None:
        dim = next(i for i, s in enumerate(input.shape) if s == 3)
    a = [input.select(dim, i) for i in range(3)]
    b = [other.select(dim, i) for i in range(3)]
    from .shape import stack
    return stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                  a[0] * b[1] - a[1] * b[0]], dim)


def trace(input):
    return input.diagonal().sum()
