"""More linear algebra: LU (``lu_factor``, ``lu``, ``lu_unpack``, ``lu_solve``), QR by
Householder reflectors (``geqrf``, ``householder_product``, ``ormqr``), Cholesky solves,
``triangular_solve``, ``cond``, ``tensorinv``, ``tensorsolve``, ``solve_ex`` and the low-rank
SVD/PCA.

LU comes from LAPACK's ``getrf`` (through SciPy, as in PyTorch), so pivots agree; its gradient
is written with triangular solves, so it differentiates again. The others are compositions of
differentiable ops.

>>> import numtorch as torch
>>> P, L, U = torch.linalg.lu(torch.tensor([[1., 2.], [3., 4.]]))
>>> (P @ L @ U).tolist()
[[1.0, 2.0], [3.0, 4.0]]
"""
import numpy as np

from .._tensor import Tensor
from ._base import BuiltinFunction
from . import return_types
from .special_ops import _scipy_linalg

_make = Tensor._make


def _const(a):
    return _make(np.asarray(a), None, False)


def _linalg():
    from .. import linalg
    return linalg


def _batched(fn, A, *outs):
    """Apply ``fn(matrix) -> tuple of arrays`` over the batch dims of ``A``."""
    batch = A.shape[:-2]
    flat = A.reshape((int(np.prod(batch)),) + A.shape[-2:])
    results = [fn(m) for m in flat]
    if not results:
        return tuple(np.zeros(batch + shape, dt) for shape, dt in outs)
    return tuple(np.stack([r[i] for r in results]).reshape(batch + results[0][i].shape)
                 for i in range(len(results[0])))


# ---- LU ------------------------------------------------------------------------------------
def _getrf(a):
    """LAPACK getrf of one matrix: (packed LU, 1-based pivots as int32, info)."""
    get_lapack_funcs = _scipy_linalg().get_lapack_funcs
    m, n = a.shape
    if m == 0 or n == 0:
        return a.copy(), np.zeros(min(m, n), np.int32), np.zeros((), np.int32)
    (getrf,) = get_lapack_funcs(("getrf",), (a,))
    lu, piv, info = getrf(a)
    return lu.astype(a.dtype), (piv + 1).astype(np.int32), np.asarray(max(info, 0), np.int32)


def _perm_matrix(piv, m, dtype):
    """The P with A = P L U from LAPACK's 1-based row swaps ``piv``."""
    perm = np.arange(m)
    for i, p in enumerate(piv):
        perm[[i, p - 1]] = perm[[p - 1, i]]
    P = np.zeros((m, m), dtype)
    P[perm, np.arange(m)] = 1
    return P


def _unpack_arrays(lu, piv):
    m, n = lu.shape
    k = min(m, n)
    L = np.tril(lu, -1)[:, :k] + np.eye(m, k, dtype=lu.dtype)
    U = np.triu(lu)[:k, :]
    return _perm_matrix(piv, m, lu.dtype), L, U


class LinalgLu(BuiltinFunction):
    """(P, L, U) with A = P L U (partial pivoting);  dA from (dL, dU) by triangular solves."""
    _backward_name = "LinalgLuBackward0"

    @staticmethod
    def forward(ctx, A):
        def one(a):
            lu, piv, _ = _getrf(a)
            return _unpack_arrays(lu, piv)
        m, n = A.shape[-2:]
        k = min(m, n)
        P, L, U = _batched(one, A, ((m, m), A.dtype), ((m, k), A.dtype), ((k, n), A.dtype))
        ctx.save_for_backward(P, L, U)
        return P, L, U

    @staticmethod
    def backward(ctx, gP, gL, gU):
        P, L, U = ctx.saved_tensors
        return _lu_backward(P, L, U, gL, gU)


def _zeros_like(t):
    return t.detach() * 0


def _lu_backward(P, L, U, gL, gU):
    """dA for A = P L U (square, wide or tall), PyTorch's formulas."""
    tri = _linalg().solve_triangular
    m, n = L.shape[-2], U.shape[-1]
    gL = _zeros_like(L) if gL is None else gL
    gU = _zeros_like(U) if gU is None else gU
    if m == n:
        phi = (L.mH @ gL).tril(-1) + (gU @ U.mH).triu()
        return P @ tri(L.mH, tri(U.mH, phi, upper=False, left=False), upper=True,
                       unitriangular=True)
    if m < n:  # A = P L [U1 U2]
        U1, U2 = U[..., :m], U[..., m:]
        gU1, gU2 = gU[..., :m], gU[..., m:]
        phi = (L.mH @ gL - gU2 @ U2.mH).tril(-1) + (gU1 @ U1.mH).triu()
        gA1 = tri(U1.mH, phi, upper=False, left=False)
        from .shape import cat
        return P @ tri(L.mH, cat([gA1, gU2], -1), upper=True, unitriangular=True)
    L1, L2 = L[..., :n, :], L[..., n:, :]  # tall: P^T A = [L1; L2] U
    gL1, gL2 = gL[..., :n, :], gL[..., n:, :]
    phi = (L1.mH @ gL1).tril(-1) + (gU @ U.mH - L2.mH @ gL2).triu()
    gA1 = tri(L1.mH, phi, upper=True, unitriangular=True)
    from .shape import cat
    return P @ tri(U.mH, cat([gA1, gL2], -2), upper=False, left=False)


def _float(A, op):
    if A._data.dtype.kind not in "fc":
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype}")
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    return A


def _lu(A, *, pivot=True, out=None):
    """``torch.linalg.lu``: (P, L, U) with A = P L U."""
    if not pivot:
        raise NotImplementedError("numtorch's linalg.lu supports only pivot=True (LAPACK)")
    return return_types.linalg_lu(*LinalgLu.apply(_float(A, "linalg.lu")))


def _pivots(A):
    return _batched(lambda a: _getrf(a)[1:], A._data,
                    ((min(A.shape[-2:]),), np.int32), ((), np.int32))


def _pack(L, U):
    """The packed LU (strict lower part of L and upper part of U) as one m x n tensor."""
    from .misc import constant_pad_nd
    m, k, n = L.shape[-2], L.shape[-1], U.shape[-1]
    low = L.tril(-1)
    if n > k:
        low = constant_pad_nd(low, [0, n - k])
    up = U if m == k else constant_pad_nd(U, [0, 0, 0, m - k])
    return low + up


def _lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``(LU, pivots, info)``: the packed LU factorisation and LAPACK's 1-based pivots."""
    _, L, U = LinalgLu.apply(_float(A, "linalg.lu_factor_ex"))
    piv, info = _pivots(A)
    if check_errors:
        _check_lu_info(info, "torch.linalg.lu_factor_ex")
    return return_types.linalg_lu_factor_ex(_pack(L, U), _const(piv), _const(info))


def _check_lu_info(info, op):
    """PyTorch's error for a zero pivot (``info`` is getrf's, 1-based, printed as is)."""
    bad = np.flatnonzero(info.reshape(-1))
    if bad.size:
        b = int(bad[0])
        k = int(info.reshape(-1)[b])
        where = f"(Batch element {b}): " if info.ndim else ""
        raise RuntimeError(f"{op}: {where}U[{k},{k}] is zero and using it on lu_solve would "
                           "result in a division by zero. If you still want to perform the "
                           "factorization, consider calling linalg.lu(A, pivot) or "
                           "linalg.lu_factor_ex(A, pivot)")


def _lu_factor(A, *, pivot=True, out=None):
    """``(LU, pivots)``: the packed LU factorisation and LAPACK's 1-based pivots; a zero
    pivot raises (``lu_factor_ex`` reports it instead)."""
    LU, piv, info = _lu_factor_ex(A, pivot=pivot)
    _check_lu_info(info._data, "torch.linalg.lu_factor")
    return return_types.linalg_lu_factor(LU, piv)


def lu(A, pivot=True, get_infos=False, out=None):
    """``torch.lu``: ``(LU, pivots)`` (and ``infos`` when ``get_infos``, as PyTorch's
    ``torch.return_types._lu_with_info``)."""
    LU, piv, info = _lu_factor_ex(A, pivot=pivot)
    return return_types._lu_with_info(LU, piv, info) if get_infos else (LU, piv)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``(P, L, U)`` from a packed LU factorisation and its pivots."""
    from .._creation import eye
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    L = LU_data[..., :, :k].tril(-1) + eye(m, k, dtype=LU_data.dtype)
    U = LU_data[..., :k, :].triu()
    P = _batched_perm(LU_pivots, m, LU_data)
    return return_types.lu_unpack(P, L, U)


def _batched_perm(pivots, m, like):
    piv = pivots._data
    batch = piv.shape[:-1]
    flat = piv.reshape(-1, piv.shape[-1]) if piv.size else np.zeros((int(np.prod(batch)), 0),
                                                                    np.int32)
    mats = [_perm_matrix(p, m, like._data.dtype) for p in flat]
    P = np.stack(mats) if mats else np.zeros((0, m, m), like._data.dtype)
    return _const(P.reshape(batch + (m, m)))


def _lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """``torch.linalg.lu_solve``: X with A X = B (``adjoint``: A^H X = B; ``left=False``:
    X A = B) given A's packed LU and pivots."""
    tri = _linalg().solve_triangular
    P, L, U = lu_unpack(LU, pivots)
    if left and not adjoint:
        return tri(U, tri(L, P.mT @ B, upper=False, unitriangular=True), upper=True)
    if left:
        return P @ tri(L.mH, tri(U.mH, B, upper=False), upper=True, unitriangular=True)
    if not adjoint:  # X P L U = B
        Y = tri(L, tri(U, B, upper=True, left=False), upper=False, left=False,
                unitriangular=True)
        return Y @ P.mT
    Y = B @ P  # X U^H L^H P^T = B
    return tri(U.mH, tri(L.mH, Y, upper=True, left=False, unitriangular=True), upper=False,
               left=False)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve(b, LU_data, LU_pivots)``."""
    return _lu_solve(LU_data, LU_pivots, b)


# ---- Householder QR --------------------------------------------------------------------------
def geqrf(input, *, out=None):
    """LAPACK's ``geqrf``: ``(a, tau)``, the QR factorisation as Householder reflectors."""
    get_lapack_funcs = _scipy_linalg().get_lapack_funcs
    A = input._data

    def one(a):
        m, n = a.shape
        if m == 0 or n == 0:
            return a.copy(), np.zeros(min(m, n), a.dtype)
        (fn,) = get_lapack_funcs(("geqrf",), (a,))
        qr, tau, _, _ = fn(a)
        return qr.astype(a.dtype), tau.astype(a.dtype)
    m, n = A.shape[-2:]
    a, tau = _batched(one, A, ((m, n), A.dtype), ((min(m, n),), A.dtype))
    return return_types.geqrf(_const(a), _const(tau))


def _reflectors(A, tau, cols):
    """Q = H_1 ... H_k applied to the first ``cols`` columns of the identity (differentiable),
    H_i = I - tau_i v_i v_i^H with v_i = (0.., 1, A[i+1:, i])."""
    from .._creation import eye
    m = A.shape[-2]
    Q = eye(m, cols, dtype=A.dtype)
    if tau.shape[-1] == 0 and cols <= A.shape[-1]:  # no reflector: keep A in the graph
        Q = Q + A[..., :, :cols] * 0
    rows = np.arange(m)
    for i in reversed(range(tau.shape[-1])):
        below = _const((rows > i).astype(A._data.dtype))
        unit = _const((rows == i).astype(A._data.dtype))
        v = A[..., :, i] * below + unit
        vh = v.conj() if v.is_complex() else v
        Q = Q - tau[..., i, None, None] * (v.unsqueeze(-1) @ (vh.unsqueeze(-2) @ Q))
    return Q


def _householder_product(A, tau, *, out=None):
    """The first n columns of the product of the Householder reflectors in ``A`` and
    ``tau`` (``torch.linalg.householder_product``)."""
    if A.shape[-1] > A.shape[-2]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater "
                           "than or equal to input.shape[-1]")
    if tau.shape[-1] > A.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    return _reflectors(A, tau, A.shape[-1])


def orgqr(input, tau):
    """Alias of ``householder_product``."""
    return _householder_product(input, tau)


def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """``Q @ C`` (or ``C @ Q``, with Q^H when ``transpose``) for the Q of ``geqrf``."""
    Q = _reflectors(input, input2, input.shape[-2])
    if transpose:
        Q = Q.mH
    return Q @ input3 if left else input3 @ Q


# ---- Cholesky and triangular solves ------------------------------------------------------------
def _from_cholesky(L, upper):
    return L.mH @ L if upper else L @ L.mH


def cholesky_inverse(L, upper=False, *, out=None):
    """The inverse of A = L L^H (``upper``: A = U^H U) from its Cholesky factor."""
    return _linalg().inv(_from_cholesky(L, upper))


def cholesky_solve(B, L, upper=False, *, out=None):
    """X with A X = B for A = L L^H (``upper``: U^H U) given the Cholesky factor."""
    tri = _linalg().solve_triangular
    if upper:
        return tri(L, tri(L.mH, B, upper=False), upper=True)
    return tri(L.mH, tri(L, B, upper=False), upper=True)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``(X, A)`` with T X = b for the triangle T of ``A`` (T^T when ``transpose``)."""
    T = A.triu() if upper else A.tril()
    if unitriangular:
        from .._creation import eye
        n = A.shape[-1]
        T = T * (1 - eye(n, dtype=A.dtype)) + eye(n, dtype=A.dtype)
    if transpose:
        T = T.mT
    X = _linalg().solve_triangular(T, b, upper=upper != transpose)
    return return_types.triangular_solve(X, A.clone())


# ---- solve variants, condition number, tensor inverses -------------------------------------------
def _solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``(result, info)`` of A X = B: a singular A gives getrf's first zero pivot in
    ``info`` and LAPACK's infinities and NaNs in ``result`` (no gradient), unless
    ``check_errors``."""
    L = _linalg()
    L._square(A, "solve")
    info = _pivots(A)[1] if A._data.dtype.kind in "fc" else np.zeros(A.shape[:-2], np.int32)
    if not info.any():
        return return_types.linalg_solve_ex(L.solve(A, B, left=left), _const(info))
    if check_errors:
        raise L._singular_solve("torch.linalg.solve_ex", A._data)
    if not left:
        return return_types.linalg_solve_ex(_solve_ex(A.mT, B.mT).result.mT, _const(info))
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    b = B._data[..., None] if vector else B._data
    batch = np.broadcast_shapes(A.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(A._data, batch + A.shape[-2:]).reshape((-1,) + A.shape[-2:])
    bb = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    get_lapack_funcs = _scipy_linalg().get_lapack_funcs
    X = np.empty(bb.shape, np.result_type(a, bb))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(a.shape[0]):
            getrf, getrs = get_lapack_funcs(("getrf", "getrs"), (a[i], bb[i]))
            lu, piv, _ = getrf(a[i])
            X[i] = getrs(lu, piv, bb[i])[0]
    X = X.reshape(batch + b.shape[-2:])
    return return_types.linalg_solve_ex(_const(X[..., 0] if vector else X), _const(info))


def _cond(A, p=None, *, out=None):
    """The condition number of A in the ``p`` norm (2-norm by default, via singular
    values)."""
    L = _linalg()
    if p is None or p in (2, -2):
        s = L.svdvals(A)
        hi, lo = s[..., 0], s[..., -1]
        return hi / lo if p != -2 else lo / hi
    return L.matrix_norm(A, p) * L.matrix_norm(L.inv(A), p)


def _tensorinv(A, ind=2, *, out=None):
    """The tensor inverse: ``tensordot(tensorinv(A), A, ind)`` is the identity."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape, in_shape = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    rows = int(np.prod(out_shape))
    if rows != int(np.prod(in_shape)):
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           "prod(self.shape[:ind]), but got "
                           f"{int(np.prod(in_shape))} != {rows}")
    return _linalg().inv(A.reshape(rows, rows)).reshape(in_shape + out_shape)


def _tensorsolve(A, B, dims=None, *, out=None):
    """X with ``tensordot(A, X, X.ndim) == B``; ``dims`` of A move to the end first."""
    if dims is not None:
        n = A.ndim
        dims = [d % n for d in dims]
        A = A.permute([d for d in range(n) if d not in dims] + list(dims))
    x_shape = tuple(A.shape[B.ndim:])
    rows = B.numel()
    X = _linalg().solve(A.reshape(rows, int(np.prod(x_shape))), B.reshape(rows))
    return X.reshape(x_shape)


# ---- low-rank SVD and PCA ---------------------------------------------------------------------
def _approximate_basis(A, q, niter, M):
    """Q with q orthonormal columns spanning (nearly) the range of A - M: a random projection
    refined by ``niter`` subspace iterations (Halko, Martinsson and Tropp 2009, alg. 4.4)."""
    from .._creation import randn
    qr = _linalg().qr

    def times(X, left):
        out = (A.mH if left else A) @ X
        return out if M is None else out - (M.mH if left else M) @ X
    Q = qr(times(randn(A.shape[-1], q, dtype=A.dtype), False)).Q
    for _ in range(2 if niter is None else niter):
        Q = qr(times(Q, True)).Q
        Q = qr(times(Q, False)).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """``(U, S, V)``: a rank-``q`` SVD of A - M by randomized subspace iteration (PyTorch's
    algorithm and random stream, so the same seed gives the same factors)."""
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:
        A, M = A.mH, (None if M is None else M.mH)
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M
    U, S, Vh = _linalg().svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mH
    return (V, S, U) if m < n else (U, S, V)


def pca_lowrank(A, q=None, center=True, niter=2):
    """``(U, S, V)``: the leading principal components of the rows of A (centred when
    ``center``) by ``svd_lowrank``."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    X = A - A.mean(-2, keepdim=True) if center else A
    return svd_lowrank(X, q, niter)


METHODS = ["lu", "lu_solve", "cholesky_inverse", "cholesky_solve", "triangular_solve", "geqrf",
           "ormqr", "orgqr"]


# ---- QR with its gradient ---------------------------------------------------------------------
class LinalgQr(BuiltinFunction):
    """(Q, R) = qr(A);  dA = (gQ + Q copyltu(R gR^H - gQ^H Q)) R^-H (tall or square; a wide
    A splits as [X | Y] with Y = Q R2; copyltu keeps only the real part of the diagonal)."""
    _backward_name = "LinalgQrBackward0"

    @staticmethod
    def forward(ctx, A, mode):
        Q, R = np.linalg.qr(A, mode="complete" if mode == "complete" else "reduced")
        ctx.mode = mode
        ctx.save_for_backward(Q, R)
        if mode == "r":
            return np.zeros((0,), A.dtype), R
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                               "are going to differentiate through linalg.qr.")
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when "
                               "mode='complete' and nrows > ncols.")
        gQ = _zeros_like(Q) if gQ is None else gQ
        gR = _zeros_like(R) if gR is None else gR
        return _qr_grad(Q, R, gQ, gR), None


def _qr_grad(Q, R, gQ, gR):
    from .shape import cat
    m, n = Q.shape[-2], R.shape[-1]
    if m >= n:
        M = R @ gR.mH - gQ.mH @ Q
        sym = M.tril() + M.tril(-1).mH  # the lower triangle mirrored
        if sym.is_complex():  # R's diagonal is real, so only Re diag(M) reaches A
            from .complex_ops import imag
            sym = sym - (1j * imag(M.diagonal(0, -2, -1))).diag_embed()
        return _linalg().solve_triangular(R.mH, gQ + Q @ sym, upper=False, left=False)
    R1, R2, gR1, gR2 = R[..., :m], R[..., m:], gR[..., :m], gR[..., m:]
    Y = Q @ R2
    gX = _qr_grad(Q, R1, gQ + Y @ gR2.mH, gR1)
    return cat([gX, Q @ gR2], -1)


def _qr(A, mode="reduced", *, out=None):
    """``torch.linalg.qr``: (Q, R) with A = Q R ('reduced', 'complete' or 'r')."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    return return_types.linalg_qr(*LinalgQr.apply(_float(A, "linalg.qr"), mode))


# ---- pseudo-inverse with PyTorch's derivative (valid for rank-deficient matrices) ---------------
class LinalgPinv(BuiltinFunction):
    """X = pinv(A);  dA by the projector formula of Golub and Pereyra (PyTorch's), which does
    not differentiate through the rank cut-off."""
    _backward_name = "LinalgPinvBackward0"

    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        out = _pinv_arrays(A, atol, rtol, hermitian)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, g):
        A, P = ctx.saved_tensors
        m, n = A.shape[-2:]
        Ph, gh = P.mH, g.mH
        if m <= n:
            K = gh @ P
            KPh = K @ Ph
            return (-(P @ K).mH + KPh - (A @ P) @ KPh + (Ph @ P) @ (gh - K @ A),
                    None, None, None)
        K = P @ gh
        PhK = Ph @ K
        return (-(K @ P).mH + (gh - A @ K) @ P @ Ph + PhK - PhK @ P @ A, None, None, None)


def _pinv_arrays(A, atol, rtol, hermitian):
    m, n = A.shape[-2:]
    if m == 0 or n == 0:
        return np.zeros(A.shape[:-2] + (n, m), A.dtype)
    if hermitian:
        w, V = np.linalg.eigh(A)
        U, Vh, S, mag = V, np.swapaxes(V.conj(), -1, -2), w, np.abs(w)
    else:
        U, S, Vh = np.linalg.svd(A, full_matrices=False)
        mag = S
    if rtol is None:
        rtol = 0.0 if atol is not None and np.any(np.asarray(atol) > 0) else \
            max(m, n) * np.finfo(A.dtype).eps
    cutoff = np.maximum(0.0 if atol is None else np.asarray(atol)[..., None],
                        np.asarray(rtol)[..., None] * mag.max(-1, keepdims=True))
    keep = mag > cutoff
    inv = np.where(keep, 1 / np.where(keep, S, 1), 0)
    out = (np.swapaxes(Vh.conj(), -1, -2) * inv[..., None, :]) @ np.swapaxes(U.conj(), -1, -2)
    return out.astype(A.dtype)


def _pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """``torch.linalg.pinv``: the Moore-Penrose pseudo-inverse (singular values, or
    eigenvalues of the lower triangle when ``hermitian``, below max(atol, rtol * largest)
    count as zero)."""
    def arr(v):
        return v._data if isinstance(v, Tensor) else v
    return LinalgPinv.apply(_float(A, "linalg.pinv"), arr(atol), arr(rtol), bool(hermitian))


# ---- LDL^T (Bunch-Kaufman, LAPACK sytrf/sytrs as PyTorch; no gradient there either) -------------
def _ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """``(LD, pivots, info)``: the compact LDL^T factorisation of symmetric A (its lower
    triangle), with LAPACK's pivots (negative for 2 x 2 blocks)."""
    lapack = _scipy_linalg().lapack
    name = "hetrf" if hermitian and A.is_complex() else "sytrf"

    def one(a):
        n = a.shape[-1]
        if n == 0:
            return a.copy(), np.zeros(0, np.int32), np.zeros((), np.int32)
        (fn,) = lapack.get_lapack_funcs((name,), (a,))
        ld, piv, info = fn(a, lower=1)
        return np.tril(ld).astype(a.dtype), piv.astype(np.int32), np.asarray(info, np.int32)
    x = _float(A, "linalg.ldl_factor_ex")._data
    n = x.shape[-1]
    ld, piv, info = _batched(one, x, ((n, n), x.dtype), ((n,), np.int32), ((), np.int32))
    if check_errors and np.any(info != 0):
        raise RuntimeError("linalg.ldl_factor_ex: the factorization could not be completed")
    return return_types.linalg_ldl_factor_ex(_const(ld), _const(piv), _const(info))


def _ldl_factor(A, *, hermitian=False, out=None):
    """``(LD, pivots)`` of the LDL^T factorisation (see ``ldl_factor_ex``)."""
    LD, piv, _ = _ldl_factor_ex(A, hermitian=hermitian)
    return return_types.linalg_ldl_factor(LD, piv)


def _ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """X with A X = B from A's ``ldl_factor``."""
    lapack = _scipy_linalg().lapack
    name = "hetrs" if hermitian and LD.is_complex() else "sytrs"
    ld, piv, b = LD._data, pivots._data, B._data
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    count = int(np.prod(batch))
    ld = np.broadcast_to(ld, batch + ld.shape[-2:]).reshape((count,) + ld.shape[-2:])
    piv = np.broadcast_to(piv, batch + piv.shape[-1:]).reshape((count,) + piv.shape[-1:])
    bb = np.broadcast_to(b, batch + b.shape[-2:]).reshape((count,) + b.shape[-2:])
    out = np.empty(bb.shape, np.result_type(ld, bb))
    for i in range(bb.shape[0]):
        (fn,) = lapack.get_lapack_funcs((name,), (ld[i],))
        out[i] = fn(ld[i], piv[i], bb[i], lower=1)[0] if bb[i].size else bb[i]
    return _const(out.reshape(batch + b.shape[-2:]))


# ---- general eigendecomposition with its gradient ------------------------------------------------
class LinalgEig(BuiltinFunction):
    """(L, V) with A V = V diag(L) (unit-norm V, LAPACK's geev as PyTorch);
    dA = V^-H (diag(gL) + P(V^H gV) / conj(L_j - L_i)) V^H, P the projection that removes the
    real part of the diagonal (each eigenvector's free phase)."""
    _backward_name = "LinalgEigBackward0"

    @staticmethod
    def forward(ctx, A):
        ct = np.complex128 if A.dtype in (np.float64, np.complex128) else np.complex64
        w, V = np.linalg.eig(A)
        w, V = w.astype(ct), V.astype(ct)
        ctx.real_input = A.dtype.kind != "c"
        ctx.save_for_backward(w, V)
        return w, V

    @staticmethod
    def backward(ctx, gL, gV):
        from .elementwise import where
        from .complex_ops import real
        L, V = ctx.saved_tensors
        Vh = V.mH
        n = L.shape[-1]
        eye = _const(np.eye(n, dtype=bool))
        if gV is None:
            inner = (gL if gL is not None else L * 0).diag_embed()
        else:
            VhgV = Vh @ gV
            VhgV = VhgV - Vh @ (V * real(VhgV.diagonal(0, -2, -1)).unsqueeze(-2))
            Lc = L.conj()
            E = where(eye, 1.0, Lc.unsqueeze(-2) - Lc.unsqueeze(-1))
            inner = where(eye, 0.0, VhgV / E)
            if gL is not None:
                inner = inner + gL.diag_embed()
        gA = _linalg().solve(Vh, inner @ Vh)
        return real(gA) if ctx.real_input else gA


def _eig(A, *, out=None):
    """``torch.linalg.eig``: complex eigenvalues and unit-norm eigenvectors."""
    return return_types.linalg_eig(*LinalgEig.apply(_float(A, "linalg.eig")))


def _eigvals(A, *, out=None):
    """``torch.linalg.eigvals``: the complex eigenvalues."""
    return LinalgEig.apply(_float(A, "linalg.eigvals"))[0]
