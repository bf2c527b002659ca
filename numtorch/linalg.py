"""``torch.linalg``: decompositions, solvers and norms, with gradients.

Forward runs NumPy's LAPACK routines on the (batched) arrays; backward is written in tensor
ops, so second derivatives work wherever the first-order formula is itself differentiable.

>>> import numtorch as torch
>>> A = torch.tensor([[2., 1.], [1., 3.]], requires_grad=True)
>>> torch.linalg.det(A).backward(); A.grad
tensor([[ 3., -1.],
        [-1.,  2.]])
"""
import numpy as np

from ._dtype import SCALAR_NAMES
from ._tensor import Tensor
from .ops._base import BuiltinFunction
from .ops import return_types
from .ops.reduction import vector_norm, _dims_arg
from .ops.linalg import linalg_cross as _cross, matmul

__all__ = ["inv", "det", "slogdet", "solve", "cholesky", "qr", "svd", "svdvals", "eigh",
           "eigvalsh", "pinv", "lstsq", "matrix_power", "norm", "vector_norm", "matrix_norm",
           "cross", "multi_dot", "matrix_rank", "inv_ex", "cholesky_ex", "diagonal", "vecdot",
           "solve_triangular", "eig", "eigvals", "matmul", "LinAlgError"]

_make = Tensor._make


def _square(A, op):
    if A.ndim < 2:
        raise RuntimeError(f"linalg.{op}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{op}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"linalg.{op}: Expected a floating point or complex tensor as "
                           f"input. Got {SCALAR_NAMES[A.dtype]}")


def _eye_like(A):
    n = A.shape[-1]
    return _make(np.eye(n, dtype=A._data.dtype), None, False)


class _LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a LAPACK routine failed (singular or indefinite input)."""


_LinAlgError.__module__ = "torch._C"
LinAlgError = _LinAlgError


def _singular(op, A):
    """PyTorch's error for a singular ``A``: the first batch element and the first zero
    pivot of its LU."""
    lu, _ = _lu_rows(A, transpose=False)
    diag = np.diagonal(lu, axis1=-2, axis2=-1)
    bad = np.nonzero((diag == 0).any(axis=-1))[0]
    b = int(bad[0]) if bad.size else 0
    k = int(np.argmax(diag[b] == 0)) + 1 if bad.size else 1
    where = f"(Batch element {b}): " if A.ndim > 2 else ""
    return _LinAlgError(f"linalg.{op}: {where}The diagonal element {k} is zero, the inversion "
                        "could not be completed because the input matrix is singular.")


class Inv(BuiltinFunction):
    """out = A⁻¹;  dA = -out.mH @ g @ out.mH (mH: the conjugate gradient of complex A)."""
    _backward_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, A):
        try:
            out = np.linalg.inv(A)
        except np.linalg.LinAlgError:
            raise _singular("inv", A) from None
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return -(out.mH @ g @ out.mH)


def inv(A, *, out=None):
    """The inverse of each square matrix in ``A``."""
    _square(A, "inv")
    return Inv.apply(A)


def inv_ex(A, *, check_errors=False):
    """``inv`` that reports a singular matrix in ``info`` (the first zero pivot, 1-based)
    instead of raising, unless ``check_errors``."""
    _square(A, "inv_ex")
    lu, _ = _lu_rows(A._data, transpose=False)
    zero = np.diagonal(lu, axis1=-2, axis2=-1) == 0
    first = np.argmax(zero, -1) if zero.shape[-1] else np.zeros(zero.shape[:-1], np.int64)
    info = np.where(zero.any(-1), first + 1, 0).astype(np.int32)
    if info.any() and check_errors:
        raise _singular("inv_ex", A._data)
    if not info.any():
        return return_types.linalg_inv_ex(inv(A), _make(info.reshape(A.shape[:-2]), None, False))
    # NOTE: LAPACK leaves infs and NaNs in a singular matrix's inverse; numtorch gives NaN
    out = _make(np.full(A.shape, np.nan, A._data.dtype), None, False)
    return return_types.linalg_inv_ex(out, _make(info.reshape(A.shape[:-2]), None, False))


def _lu_rows(A, transpose):
    """LAPACK getrf's partial-pivot LU of each matrix in ``A`` (of ``Aᵀ`` with
    ``transpose``), as a (batch, n, n) array with U on and above the diagonal, and each
    matrix's permutation sign.

    NOTE: the elimination scales each column by the reciprocal of its pivot, as getf2 does,
    and skips a zero pivot, so rounding and zero pivots come out as in PyTorch.
    """
    n = A.shape[-1]
    a = np.array(np.swapaxes(A, -1, -2) if transpose else A)
    a = a.reshape((int(np.prod(A.shape[:-2])), n, n))
    rows = np.arange(a.shape[0])
    sign = np.ones(a.shape[0], a.dtype)
    for k in range(n):
        col = a[:, k:, k]
        size = np.abs(col.real) + np.abs(col.imag) if a.dtype.kind == "c" else np.abs(col)
        p = k + np.argmax(size, axis=1)
        swap = p != k
        if swap.any():
            top = a[rows, k].copy()
            a[rows, k] = a[rows, p]
            a[rows, p] = top
            sign[swap] = -sign[swap]
        pivot = a[:, k, k]
        with np.errstate(divide="ignore", invalid="ignore"):
            recip = np.where(pivot != 0, 1 / np.where(pivot != 0, pivot, 1), 0)
        low = a[:, k + 1:, k] * recip[:, None]
        a[:, k + 1:, k] = low
        a[:, k + 1:, k + 1:] -= low[:, :, None] * a[:, k, None, k + 1:]
    return a, sign


# Up to this size det replays the LU in Python (a loop per column: ~0.4 ms at 32, 50 ms at
# 256); above it LAPACK's own determinant (NumPy's, last bits may differ from PyTorch's)
_LU_DET_LIMIT = 32


def _lu_det(A):
    """det(A) as PyTorch computes it: the product of the diagonal of LAPACK's LU.

    NOTE: PyTorch hands LAPACK a column-major copy, i.e. it factors Aᵀ for a row-major A (A
    itself when it is already column-major). Rounding then matches far more often than
    NumPy's exp(log|det|), which turns det(2·I) into 7.999999999999998.
    """
    n = A.shape[-1]
    if n > _LU_DET_LIMIT:  # a Python loop per column: LAPACK's own det is much faster here
        return np.asarray(np.linalg.det(A))
    col_major = A.ndim >= 2 and n > 1 and not A.flags.c_contiguous and \
        np.swapaxes(A, -1, -2).flags.c_contiguous
    a, sign = _lu_rows(A, transpose=not col_major)
    out = np.ones(a.shape[0], a.dtype)
    for k in range(n):
        out = out * a[:, k, k]
    return (out * sign).reshape(A.shape[:-2])


class Det(BuiltinFunction):
    """out = det(A);  dA = g · conj(out) · A⁻ᴴ."""
    _backward_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, A):
        out = np.asarray(_lu_det(A))
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, g):
        A, out = ctx.saved_tensors
        scale = (g * out.conj()).unsqueeze(-1).unsqueeze(-1)
        return scale * inv(A).mH


def det(A, *, out=None):
    """The determinant of each square matrix in ``A``."""
    _square(A, "det")
    return Det.apply(A)


class Slogdet(BuiltinFunction):
    """(sign, log|det A|);  dA = (g_logabsdet + i·Im(g_sign · conj(sign))) · A⁻ᴴ.

    A real sign is piecewise constant, so only a complex sign (the phase of det A) adds the
    imaginary term."""
    _backward_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, A):
        sign, logabs = np.linalg.slogdet(A)
        sign = np.asarray(sign).astype(A.dtype)
        ctx.save_for_backward(A, sign)
        return sign, np.asarray(logabs)

    @staticmethod
    def backward(ctx, g_sign, g_logabs):
        A, sign = ctx.saved_tensors
        scale = g_logabs
        if A.is_complex():  # d(phase) = Im tr(A⁻¹ dA) feeds the sign's gradient back
            from .ops.complex_ops import imag
            scale = scale + 1j * imag(g_sign * sign.conj())
        return scale.unsqueeze(-1).unsqueeze(-1) * inv(A).mH


def slogdet(A, *, out=None):
    """Sign and natural log of the absolute determinant."""
    _square(A, "slogdet")
    return return_types.linalg_slogdet(*Slogdet.apply(A))


def logdet(A):
    sign, logabs = slogdet(A)
    from .ops.elementwise import where
    return where(sign < 0, float("nan"), logabs)


def _singular_solve(op, A):
    """PyTorch's error for a singular ``A`` in a solver, naming the first singular batch
    element."""
    lu, _ = _lu_rows(A, transpose=False)
    bad = np.nonzero((np.diagonal(lu, axis1=-2, axis2=-1) == 0).any(axis=-1))[0]
    where = f"(Batch element {int(bad[0]) if bad.size else 0}): " if A.ndim > 2 else ""
    return _LinAlgError(f"{op}: {where}The solver failed because the input matrix is "
                        "singular.")


class Solve(BuiltinFunction):
    """X = A⁻¹B;  dB = solve(Aᴴ, g), dA = -dB Xᴴ (ᴴ: the conjugate gradient of complex A)."""
    _backward_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, A, B, vector):
        try:
            X = np.linalg.solve(A, B[..., None] if vector else B)
        except np.linalg.LinAlgError:
            raise _singular_solve("torch.linalg.solve", A) from None
        X = X[..., 0] if vector else X
        ctx.vector = vector
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx, g):
        A, X = ctx.saved_tensors
        gB = solve(A.mH, g)
        if ctx.vector:
            gA = -(gB.unsqueeze(-1) @ X.conj().unsqueeze(-2))
        else:
            gA = -(gB @ X.mH)
        return gA, gB, None


def solve(A, B, *, left=True, out=None):
    """The solution X of ``A @ X = B`` (``B`` may be a batch of vectors)."""
    _square(A, "solve")
    if not left:
        return solve(A.mT, B.mT).mT
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    rows, cols = (B.shape[-1], 1) if vector else tuple(B.shape[-2:]) if B.ndim > 1 else (1, 1)
    if rows != A.shape[-1]:
        raise RuntimeError("linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {rows}x{cols})")
    return Solve.apply(A, B, vector)


def _cholesky_error(A, op="linalg.cholesky"):
    """PyTorch's error naming the first failing batch element and leading minor."""
    batch = A.reshape((-1,) + A.shape[-2:])
    for b, M in enumerate(batch):
        for k in range(1, M.shape[-1] + 1):
            try:
                np.linalg.cholesky(M[:k, :k])
            except np.linalg.LinAlgError:
                where = f"(Batch element {b}): " if A.ndim > 2 else ""
                return _LinAlgError(f"{op}: {where}The factorization could not be "
                                    "completed because the input is not positive-definite (the "
                                    f"leading minor of order {k} is not positive-definite).")
    return _LinAlgError(f"{op}: The factorization could not be completed because "
                        "the input is not positive-definite.")


class Cholesky(BuiltinFunction):
    """L with A = L Lᴴ;  dA = sym(L⁻ᴴ Φ(Lᴴ g) L⁻¹) (Φ: lower triangle, halved diagonal)."""
    _backward_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, A, upper, op="linalg.cholesky"):
        try:
            L = np.linalg.cholesky(A)
        except np.linalg.LinAlgError:
            raise _cholesky_error(A, op) from None
        ctx.upper = upper
        if upper:  # U = Lᴴ, so A = Uᴴ U (the conjugate matters for complex A)
            out = np.swapaxes(L.conj() if L.dtype.kind == "c" else L, -1, -2).copy()
        else:
            out = L
        ctx.save_for_backward(out)  # the output itself, so the backward differentiates again
        return out

    @staticmethod
    def backward(ctx, g):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, g = L.mH, g.mH
        if L.is_complex():  # PyTorch's gradient: Hermitian off the diagonal, not projected
            phi = (L.mH @ g).tril()
            Linv = inv(L)
            return Linv.mH @ (0.5 * (phi + phi.tril(-1).mH)) @ Linv, None, None
        phi = (L.mT @ g).tril()
        phi = phi - 0.5 * phi.diagonal(0, -2, -1).diag_embed()
        Linv = inv(L)
        S = Linv.mT @ phi @ Linv
        return 0.5 * (S + S.mT), None, None


def cholesky(A, *, upper=False, out=None):
    _square(A, "cholesky")
    return Cholesky.apply(A, upper)


def cholesky_ex(A, *, upper=False, check_errors=False):
    """``cholesky`` that reports the order of the first leading minor that is not positive
    definite in ``info`` instead of raising, unless ``check_errors``."""
    _square(A, "cholesky_ex")
    batch = A._data.reshape((int(np.prod(A.shape[:-2])),) + tuple(A.shape[-2:]))
    info = np.zeros(len(batch), np.int32)
    for b, M in enumerate(batch):
        for k in range(1, M.shape[-1] + 1):
            try:
                np.linalg.cholesky(M[:k, :k])
            except np.linalg.LinAlgError:
                info[b] = k
                break
    info_t = _make(info.reshape(A.shape[:-2]), None, False)
    if not info.any() or check_errors:
        return return_types.linalg_cholesky_ex(
            Cholesky.apply(A, upper, "linalg.cholesky_ex"), info_t)
    return return_types.linalg_cholesky_ex(_make(_partial_cholesky(batch, info, upper).reshape(
        A.shape), None, False), info_t)


def _partial_cholesky(batch, info, upper):
    """What LAPACK's potrf leaves in each matrix: the factor (in its triangle, the other
    zeroed, as PyTorch returns it) with the columns past a failing pivot untouched.

    NOTE: potrf stops at the first non-positive pivot, after writing the failing diagonal
    entry's ``a_kk - sum`` (not its square root), as the unblocked reference code does."""
    out = np.zeros_like(batch)
    for b, M in enumerate(batch):
        k = int(info[b])
        if k == 0:
            out[b] = np.linalg.cholesky(M)
            continue
        L = np.tril(M).astype(M.dtype)
        if k > 1:
            L[:k - 1, :k - 1] = np.linalg.cholesky(M[:k - 1, :k - 1])
            L[k - 1:, :k - 1] = np.linalg.solve(L[:k - 1, :k - 1], M[:k - 1, k - 1:]).conj().T
        row = L[k - 1, :k - 1]
        L[k - 1, k - 1] = M[k - 1, k - 1] - (row * row.conj()).sum()
        out[b] = L
    return np.swapaxes(out.conj(), -1, -2) if upper else out


class Eigh(BuiltinFunction):
    """(w, V) of a Hermitian A;  dA = V (diag(gw) + F∘(Vᴴ gV)) Vᴴ, made Hermitian (ᴴ is ᵀ
    for real A; for complex A, the Hermitian part drops each eigenvector's free phase)."""
    _backward_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, A, uplo):
        w, V = np.linalg.eigh(A, UPLO=uplo)
        ctx.save_for_backward(w, V)
        return w, V

    @staticmethod
    def backward(ctx, gw, gV):
        w, V = ctx.saved_tensors
        inner = gw.diag_embed() if gw is not None else 0
        if gV is not None:
            diff = w.unsqueeze(-2) - w.unsqueeze(-1)
            eye = _eye_like(V).to(bool)
            F = 1 / diff.masked_fill(eye, 1.0)
            F = F.masked_fill(eye, 0.0)
            inner = inner + F * (V.mH @ gV)
        gA = V @ inner @ V.mH
        return 0.5 * (gA + gA.mH), None


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and eigenvectors of symmetric/Hermitian matrices."""
    _square(A, "eigh")
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return return_types.linalg_eigh(*Eigh.apply(A, UPLO.upper()))


def eigvalsh(A, UPLO="L", *, out=None):
    return eigh(A, UPLO)[0]


class Svd(BuiltinFunction):
    """Thin SVD A = U diag(S) Vh, with the standard real-valued backward."""
    _backward_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, A, full_matrices):
        U, S, Vh = _lapack_svd(A, full_matrices)
        ctx.full = full_matrices
        # unused outputs get None, not zeros: a zero gU still divides by S_i^2 - S_j^2, which
        # is 0/0 at repeated singular values (a zero matrix), where svdvals' gradient is finite
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(A, U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        A, U, S, Vh = ctx.saved_tensors
        if gU is None and gS is None and gVh is None:
            return None, None
        if ctx.full:  # as PyTorch: the extra (arbitrary) singular vectors get no gradient
            k = S.shape[-1]
            U, Vh = U[..., :, :k], Vh[..., :k, :]
            gU = None if gU is None else gU[..., :, :k]
            gVh = None if gVh is None else gVh[..., :k, :]
        return _svd_grad(A, U, S, Vh, gU, gS, gVh), None


def _lapack_svd(A, full_matrices):
    """(U, S, Vh) of each matrix in ``A`` with the singular vectors' signs PyTorch's CPU
    LAPACK gives.

    NOTE: PyTorch's gesdd (MKL) agrees with reference LAPACK's gesvd on tall and square
    matrices and with its gesdd on wide ones, so SciPy runs those drivers (in the input's own
    precision: NumPy computes float32 in float64, so its rounding differs). NumPy's gesdd is
    the fallback without SciPy and for empty matrices."""
    m, n = A.shape[-2:]
    try:
        from scipy.linalg import svd as sp_svd
    except ImportError:
        sp_svd = None
    if sp_svd is None or A.size == 0 or A.dtype.kind not in "fc":
        return np.linalg.svd(A, full_matrices=full_matrices)
    driver = "gesvd" if m >= n else "gesdd"
    flat = A.reshape((-1, m, n))
    parts = [sp_svd(a, full_matrices=full_matrices, lapack_driver=driver, check_finite=False)
             for a in flat]
    batch = A.shape[:-2]
    return tuple(np.stack([p[i] for p in parts]).reshape(batch + parts[0][i].shape)
                 for i in range(3))


def _svd_grad(A, U, S, Vh, gU, gS, gVh):
    """dA for the thin A = U diag(S) Vh (ᴴ is ᵀ for real A, so the real path is unchanged)."""
    V = Vh.mH
    k = S.shape[-1]
    Sc = S.to(A.dtype) if A.is_complex() else S  # complex @ real does not promote
    Sm = Sc.diag_embed()
    inner = 0 if gS is None else gS.to(Sc.dtype).diag_embed()
    if gU is None and gVh is None:  # (gS is not None here)
        return U @ inner @ Vh
    eye = _make(np.eye(k, dtype=bool), None, False)
    s2 = S * S
    F = 1 / (s2.unsqueeze(-2) - s2.unsqueeze(-1)).masked_fill(eye, 1.0)
    F = F.masked_fill(eye, 0.0)
    Sinv = (1 / Sc).diag_embed()
    gA = 0
    if gU is not None:
        UhgU = U.mH @ gU
        J = F * UhgU
        inner = inner + (J + J.mH) @ Sm
        if A.is_complex():  # the phase of each (u_i, v_i) pair: i·Im(u_iᴴ gu_i) / s_i
            from .ops.complex_ops import imag
            inner = inner + (1j * imag(UhgU.diagonal(0, -2, -1)) / S).diag_embed()
        m = A.shape[-2]
        if m > k:
            proj = _make(np.eye(m, dtype=A._data.dtype), None, False) - U @ U.mH
            gA = gA + proj @ gU @ Sinv @ Vh
    if gVh is not None:
        gV = gVh.mH
        K = F * (V.mH @ gV)
        inner = inner + Sm @ (K + K.mH)
        n = A.shape[-1]
        if n > k:
            proj = _make(np.eye(n, dtype=A._data.dtype), None, False) - V @ Vh
            gA = gA + U @ Sinv @ gV.mH @ proj
    return gA + U @ inner @ Vh


def svd(A, full_matrices=True, *, driver=None, out=None):
    """Singular value decomposition ``A = U @ diag(S) @ Vh``."""
    return return_types.linalg_svd(*Svd.apply(A, full_matrices))


def svdvals(A, *, driver=None, out=None):
    return Svd.apply(A, False)[1]


def qr(A, mode="reduced", *, out=None):
    """QR decomposition (with its gradient: see ops/linalg_extra.py)."""
    from .ops.linalg_extra import _qr
    return _qr(A, mode)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """Moore–Penrose pseudo-inverse (with PyTorch's derivative: see ops/linalg_extra.py)."""
    from .ops.linalg_extra import _pinv
    return _pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)


def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B`` (via the pseudo-inverse)."""
    driver = driver or "gelsy"
    vector = B.ndim == A.ndim - 1
    X = pinv(A) @ (B.unsqueeze(-1) if vector else B)
    X = X.squeeze(-1) if vector else X
    empty = _make(np.zeros((0,), A._data.dtype), None, False)
    m, n = A.shape[-2:]
    residuals = A.reshape(-1)[:0] * 0  # empty, but in the graph as in PyTorch
    if m > n and driver != "gelsy" and bool(np.all(matrix_rank(A)._data == n)):
        diff = A @ (X.unsqueeze(-1) if vector else X) - (B.unsqueeze(-1) if vector else B)
        residuals = (diff * diff).sum(-2).squeeze(-1) if vector else (diff * diff).sum(-2)
    rank = matrix_rank(A) if driver != "gels" else _make(np.zeros((0,), np.int64), None, False)
    svals = svdvals(A).detach() if driver in ("gelsd", "gelss") else empty
    return return_types.linalg_lstsq(X, residuals, rank, svals)


def matrix_power(A, n):
    """``A`` multiplied by itself ``n`` times (negative ``n`` uses the inverse)."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        _square(A, "matrix_power")  # PyTorch's shape errors; integer A is fine for n >= 0
    if n == 0:  # in the graph (a zero gradient), as in PyTorch
        return A * 0 + _eye_like(A)
    base = inv(A) if n < 0 else A
    result = None
    for _ in range(abs(n)):
        result = base if result is None else result @ base
    return result


_MATRIX_NORM_SIGNATURES = [
    f"(Tensor input, {o}, tuple of ints dim = {{-2,-1}}, bool keepdim = False, *, torch.dtype "
    "dtype = None, Tensor out = None)" for o in ("Number ord", 'str ord = "fro"')]
_NORM_SIGNATURES = [
    f"(Tensor input, {o}, tuple of ints dim = None, bool keepdim = False, *, torch.dtype "
    "dtype = None, Tensor out = None)" for o in ("Number ord = None", "str ord")]


def _check_norm_args(op, sigs, ord, dim, keepdim, dim_ok):
    """The parser's TypeError (for the user's call) unless ``ord`` is a number or a string,
    ``dim`` fits (``dim_ok``) and ``keepdim`` is a bool."""
    from .ops._arg_errors import bad_call
    ok = (isinstance(ord, (str, int, float, np.number)) or isinstance(ord, Tensor)) and \
        (keepdim is True or keepdim is False) and dim_ok(dim)
    if not ok:
        raise bad_call(op, sigs, TypeError(f"{op}(): invalid arguments"))


def _int_list(dim):
    from .ops._arg_errors import _bad_element
    return type(dim) in (list, tuple) and _bad_element(dim) is None


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """Frobenius, nuclear, 2-, 1- and inf-norms of matrices."""
    if not _int_list(dim) or keepdim is not False and keepdim is not True or \
            not isinstance(ord, (str, int, float)):
        _check_norm_args("linalg_matrix_norm", _MATRIX_NORM_SIGNATURES, ord, dim, keepdim,
                         _int_list)
    dim = _matrix_norm_checks(A, ord, dim)
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, dim, keepdim)
    if ord in ("nuc", 2, -2):
        s = svdvals(A.movedim(dim, (-2, -1)))
        out = s.sum(-1) if ord == "nuc" else _extreme(s, -1, ord == 2, -1).squeeze(-1)
        return _keep(out, A, dim, keepdim)
    if ord in (1, -1, float("inf"), float("-inf")):
        d0, d1 = [d % A.ndim for d in dim]
        red, keep_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(red, keepdim=True)
        shown = keep_dim if keepdim else keep_dim - (red < keep_dim)  # PyTorch's numbering
        out = _extreme(sums, keep_dim, ord in (1, float("inf")), shown)
        return out if keepdim else out.squeeze((d0, d1))
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def _matrix_norm_checks(A, ord, dim):
    """``dim`` as a tuple after PyTorch's checks of a matrix norm's arguments, in its order."""
    if ord not in ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if A._data.dtype.kind not in "fc":
        from . import _dtype
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_dtype.SCALAR_NAMES[A.dtype]}")
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(map(str, dim)))
    from .ops._util import wrap_dim
    if wrap_dim(dim[0], A.ndim) == wrap_dim(dim[1], A.ndim):
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    return dim


def _extreme(t, dim, largest, shown_dim):
    """amax (``largest``) or amin of ``t`` over ``dim``, kept. On an empty dim PyTorch's
    norms give 0 for a max (norms are >= 0) and amin's error (naming ``shown_dim``) for a
    min."""
    if t.shape[dim] == 0:
        if largest:
            return t.sum(dim, keepdim=True)  # zeros, still in the graph
        raise IndexError(f"amin(): Expected reduction dim {shown_dim} to have non-zero size.")
    return t.amax(dim, keepdim=True) if largest else t.amin(dim, keepdim=True)


def _keep(out, A, dim, keepdim):
    if not keepdim:
        return out
    for d in sorted(d % A.ndim for d in dim):
        out = out.unsqueeze(d)
    return out


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """``vector_norm`` or ``matrix_norm`` depending on ``ord`` and ``dim``."""
    _check_norm_args("linalg_norm", _NORM_SIGNATURES, 2.0 if ord is None else ord, dim,
                     keepdim, lambda d: d is None or isinstance(d, int) and
                     not isinstance(d, bool) or _int_list(d))
    if dim is not None and not isinstance(dim, int) and len(dim) > 2:
        raise RuntimeError("linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {list(dim)}")
    if isinstance(ord, str):  # (a string order is a matrix norm's)
        return matrix_norm(A, ord, (dim,) if isinstance(dim, int) else dim or (-2, -1),
                           keepdim, dtype=dtype)
    if dim is not None and not isinstance(dim, int) and len(dim) == 2 or \
            (dim is None and ord is not None and A.ndim == 2):
        return matrix_norm(A, "fro" if ord is None else ord, dim or (-2, -1), keepdim,
                           dtype=dtype)
    if dim is None and ord is not None and A.ndim != 1:
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.ndim}D.")
    # (2.0: what PyTorch's node shows as the order of linalg.norm's default)
    return vector_norm(A, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)


def cross(input, other, *, dim=-1):
    return _cross(input, other, dim)


def multi_dot(tensors):
    result = tensors[0]
    for t in tensors[1:]:
        result = result @ t
    return result


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None):
    """The number of singular values above max(atol, rtol * largest); ``rtol`` defaults to
    eps * max(m, n) unless only ``atol`` is given."""
    a = A._data
    if hermitian:
        s = np.abs(np.linalg.eigvalsh(a))
    else:
        s = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-2] + (0,))
    if tol is not None:
        atol, rtol = tol, 0.0
    at = 0.0 if atol is None else (atol._data if hasattr(atol, "_data") else atol)
    if rtol is None:
        rtol = 0.0 if atol is not None and not _is_zero(at) else \
            np.finfo(a.dtype).eps * max(a.shape[-2:])
    rt = rtol._data if hasattr(rtol, "_data") else rtol
    smax = s.max(-1) if s.shape[-1] else np.zeros(s.shape[:-1])
    limit = np.maximum(np.asarray(at), np.asarray(rt) * smax)
    return _make(np.asarray((s > limit[..., None]).sum(-1)).astype(np.int64), None, False)


def _is_zero(v):
    return bool(np.all(np.asarray(v) == 0))


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


def vecdot(x, y, *, dim=-1):
    return (x * y).sum(dim)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    T = A.triu() if upper else A.tril()
    if unitriangular:
        n = A.shape[-1]
        eye = _make(np.eye(n, dtype=bool), None, False)
        T = T.masked_fill(eye, 1.0)
    return solve(T, B, left=left)


def eig(A, *, out=None):
    """Eigendecomposition of a general square matrix (complex results, with gradient)."""
    from .ops.linalg_extra import _eig
    return _eig(A)


def eigvals(A, *, out=None):
    """Eigenvalues of a general square matrix (complex)."""
    from .ops.linalg_extra import _eigvals
    return _eigvals(A)


def matrix_exp(A):
    """The matrix exponential (see ``torch.matrix_exp``)."""
    from .ops.misc import matrix_exp as _matrix_exp
    return _matrix_exp(A)


def vander(x, *, N=None):
    """The Vandermonde matrix with increasing powers along the last dim (batched ``x``)."""
    from .ops.misc import _powers
    from .ops.shape import stack
    if x.ndim == 0:
        x = x.reshape(1)
    n = x.shape[-1] if N is None else N
    if N is not None and n < 1:
        raise RuntimeError("N must be greater than 1.")
    if x._data.dtype.kind in "iub":
        x = x.long()
    return stack(_powers(x, n), -1)


# LU, Householder QR, solve_ex, cond, tensorinv, tensorsolve live in ops/linalg_extra.py
from .ops.linalg_extra import (_lu as lu, _lu_factor as lu_factor,  # noqa: E402,F401
                               _lu_factor_ex as lu_factor_ex, _lu_solve as lu_solve,
                               _householder_product as householder_product,
                               _solve_ex as solve_ex, _cond as cond, _tensorinv as tensorinv,
                               _tensorsolve as tensorsolve, _ldl_factor as ldl_factor,
                               _ldl_factor_ex as ldl_factor_ex, _ldl_solve as ldl_solve)
