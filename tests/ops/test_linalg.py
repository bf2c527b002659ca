"""Matrix products against PyTorch: values, dtypes, broadcasting, gradients to second order,
grad_fn names and errors; numerical gradient checks without PyTorch."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op, check_same, numerical_grad_check

_rng = np.random.default_rng(4)


def r(*shape, dtype=np.float32):
    return _rng.uniform(-1, 1, size=shape).astype(dtype)


def lib_of(t):
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


MATMUL = [
    ("vec-vec", r(3), r(3)), ("mat-vec", r(2, 3), r(3)), ("vec-mat", r(3), r(3, 4)),
    ("mat-mat", r(2, 3), r(3, 4)), ("batch-mat", r(5, 2, 3), r(3, 4)),
    ("mat-batch", r(2, 3), r(5, 3, 4)), ("batch-batch", r(5, 2, 3), r(5, 3, 4)),
    ("broadcast-batch", r(2, 1, 2, 3), r(4, 3, 2)), ("batch-vec", r(5, 2, 3), r(3)),
    ("vec-batch", r(3), r(5, 3, 2)), ("f64", r(2, 3, dtype=np.float64), r(3, 2, dtype=np.float64)),
    ("empty-inner", r(2, 0), r(0, 3)),
]


@pytest.mark.parametrize("a, b", [m[1:] for m in MATMUL], ids=[m[0] for m in MATMUL])
def test_matmul(a, b):
    check_op("matmul", a, b)
    check_op(lambda x, y: x @ y, a, b)


def test_matmul_on_ints(torch):
    check_op("matmul", np.arange(6).reshape(2, 3), np.arange(6).reshape(3, 2))
    check_op("mm", np.arange(4).reshape(2, 2), np.arange(4).reshape(2, 2))


PRODUCTS = [
    ("mm", "mm", r(2, 3), r(3, 4)), ("bmm", "bmm", r(4, 2, 3), r(4, 3, 2)),
    ("mv", "mv", r(2, 3), r(3)), ("dot", "dot", r(4), r(4)), ("vdot", "vdot", r(4), r(4)),
    ("outer", "outer", r(3), r(2)), ("ger", "ger", r(3), r(2)),
    ("kron", "kron", r(2, 2), r(3, 1)), ("cross", lambda a, b: lib_of(a).cross(a, b, dim=1),
                                         r(2, 3), r(2, 3)),
    ("tensordot", lambda a, b: lib_of(a).tensordot(a, b, dims=([1], [0])), r(2, 3), r(3, 4)),
    ("tensordot-int", lambda a, b: lib_of(a).tensordot(a, b, dims=1), r(2, 3), r(3, 4)),
    ("einsum-mm", lambda a, b: lib_of(a).einsum("ij,jk->ik", a, b), r(2, 3), r(3, 4)),
    ("einsum-batch", lambda a, b: lib_of(a).einsum("bij,bjk->bik", a, b), r(2, 2, 3),
     r(2, 3, 2)),
    ("einsum-implicit", lambda a, b: lib_of(a).einsum("ij,kj", a, b), r(2, 3), r(4, 3)),
    ("einsum-sum", lambda a, b: lib_of(a).einsum("ij,ij->", a, b), r(2, 3), r(2, 3)),
    ("einsum-outer", lambda a, b: lib_of(a).einsum("i,j->ij", a[0], b[0]), r(2, 3), r(2, 3)),
]


@pytest.mark.parametrize("name, op, a, b", PRODUCTS, ids=[p[0] for p in PRODUCTS])
def test_products(name, op, a, b):
    # NOTE: PyTorch decomposes einsum (and tensordot, built on it) into permutes, views and
    # bmm, so its grad_fn is whatever op came last; numtorch's einsum is one EinsumBackward0
    # node. Values, dtypes and derivatives are compared; the node name is not.
    decomposed = name.startswith(("einsum", "tensordot"))
    check_op(op, a, b, grad_fn=not decomposed)


ADDS = [
    ("addmm", lambda c, a, b: c.addmm(a, b), r(2, 4), r(2, 3), r(3, 4)),
    ("addmm-bcast", lambda c, a, b: lib_of(c).addmm(c[0], a, b, beta=0.5, alpha=2), r(2, 4),
     r(2, 3), r(3, 4)),
    ("addmv", lambda c, a, b: lib_of(c).addmv(c[0, :2], a, b[:, 0], beta=2), r(2, 4), r(2, 3),
     r(3, 4)),
    ("addr", lambda c, a, b: lib_of(c).addr(c, a[:, 0], b[0], alpha=3), r(2, 4), r(2, 3),
     r(3, 4)),
    ("baddbmm", lambda c, a, b: lib_of(c).baddbmm(c, a.unsqueeze(0), b.unsqueeze(0)), r(2, 4),
     r(2, 3), r(3, 4)),
    ("addbmm", lambda c, a, b: lib_of(c).addbmm(c, a.expand(2, 2, 3), b.expand(2, 3, 4)),
     r(2, 4), r(2, 3), r(3, 4)),
    ("linear", lambda c, a, b: lib_of(c).nn.functional.linear(a, b.t(), c[0]), r(2, 4), r(2, 3),
     r(3, 4)),
    ("linear-3d", lambda c, a, b: lib_of(c).nn.functional.linear(a.expand(5, 2, 3), b.t()),
     r(2, 4), r(2, 3), r(3, 4)),
    ("trace", lambda c, a, b: (a @ b[:, :2]).trace(), r(2, 4), r(2, 3), r(3, 4)),
]


@pytest.mark.parametrize("fn, c, a, b", [x[1:] for x in ADDS], ids=[x[0] for x in ADDS])
def test_fused_adds(fn, c, a, b):
    check_op(fn, c, a, b)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2, 3) @ lib.ones(2, 3), lambda lib: lib.ones(3) @ lib.ones(4),
    lambda lib: lib.ones(2, 3) @ lib.ones(4), lambda lib: lib.ones(3) @ lib.ones(4, 2),
    lambda lib: lib.ones(2, 2, 3) @ lib.ones(3, 3, 2), lambda lib: lib.tensor(1.0) @ lib.ones(2),
    lambda lib: lib.ones(2, 3).mm(lib.ones(3)), lambda lib: lib.ones(2, 3).mm(lib.ones(2, 3)),
    lambda lib: lib.ones(2, 3).mm(lib.ones(3, 2, dtype=lib.float64)),
    lambda lib: lib.ones(2, 3).bmm(lib.ones(2, 3)), lambda lib: lib.ones(2, 2, 3).bmm(
        lib.ones(3, 3, 2)),
    lambda lib: lib.ones(3).dot(lib.ones(4)), lambda lib: lib.ones(3).dot(lib.ones(3, 1)),
    lambda lib: lib.ones(3).dot(lib.ones(3, dtype=lib.float64)),
    lambda lib: lib.ones(2, 3).mv(lib.ones(2)), lambda lib: lib.ones(2, 3) @ 2,
    lambda lib: lib.ones(2, 2).addmm(lib.ones(2, 3), lib.ones(2, 2)),
], ids=["mat-mat", "vec-vec", "mat-vec", "vec-mat", "batch", "0d", "mm-vec", "mm-shape",
        "mm-dtype", "bmm-2d", "bmm-batch", "dot-size", "dot-2d", "dot-dtype", "mv-size",
        "matmul-scalar", "addmm-shape"])
def test_errors(fn):
    check_error(fn)


NUMERICAL = [
    ("matmul", lambda a, b: a.view(2, 3) @ b.view(3, 2)),
    ("batched", lambda a, b: a.view(1, 2, 3) @ b.view(2, 3, 1)),
    ("mv-dot", lambda a, b: a.view(2, 3).mv(b) + a[:3].dot(b)),
    ("outer-addmm", lambda a, b: numtorch.addmm(a.view(2, 3)[:, :2], a.view(2, 3), b.view(3, 2)
                                                * 0.5) + a[:2].outer(b[:2])),
    ("einsum", lambda a, b: numtorch.einsum("ij,jk->ik", a.view(2, 3), b.view(3, 2))),
]


@pytest.mark.parametrize("f", [n[1] for n in NUMERICAL], ids=[n[0] for n in NUMERICAL])
def test_numerical_gradients(f):
    a = np.array([0.3, -0.7, 1.2, 0.9, 0.4, -1.5])
    b = np.array([0.5, 0.1, -0.8, 1.3, -0.2, 0.6])
    if f is NUMERICAL[2][1]:
        b = b[:3]
    numerical_grad_check(f, [a, b])


# OpInfo regressions: one line per case
OPINFO_FIXES = [
    ("addmv-int-float-scalars", lambda c, m, v: lib_of(c).addmv(c, m, v, beta=0.5, alpha=1.7),
     np.array([1, 2]), np.ones((2, 3), np.int64), np.arange(3)),
    ("addmv-uint8-wrap", lambda c, m, v: lib_of(c).addmv(c, m, v, beta=-1, alpha=3),
     np.array([1, 2], np.uint8), np.ones((2, 2), np.uint8), np.array([1, 1], np.uint8)),
    ("addr-bool", lambda c, u, v: lib_of(c).addr(c, u, v, beta=3, alpha=2),
     np.array([True, False]), np.array([True, False]), np.array([False, True])),
    ("baddbmm-int32", lambda c, a, b: lib_of(c).baddbmm(c, a, b, beta=0.2, alpha=0.6),
     np.ones((1, 2, 2), np.int32), np.ones((1, 2, 2), np.int32), np.ones((1, 2, 2), np.int32)),
    ("addbmm-int32", lambda c, a, b: lib_of(c).addbmm(c, a, b),
     np.ones((2, 2), np.int32), np.ones((3, 2, 2), np.int32), np.ones((3, 2, 2), np.int32)),
    ("logspace-uint8", lambda c: lib_of(c).logspace(4.3, 1.2, 4, 2.0, dtype=lib_of(c).uint8),
     np.zeros(1)),
]


@pytest.mark.parametrize("fn, inputs", [(c[1], c[2:]) for c in OPINFO_FIXES],
                         ids=[c[0] for c in OPINFO_FIXES])
def test_opinfo_fixes(fn, inputs):
    check_op(fn, *inputs)


@pytest.mark.parametrize("case", ["linear", "mm_transposed_a", "addmm_alpha", "complex"])
def test_mm_gradient_layout_follows_the_operand(case, torch):
    # PyTorch computes a transposed operand's gradient transposed: weight.t()'s backward then
    # gives the weight a C-contiguous gradient (strides, values and the optimizer's speed)
    rng = np.random.default_rng(0)

    def run(lib):
        dt = lib.complex128 if case == "complex" else lib.float64
        w = lib.tensor(rng.standard_normal((3, 5)), dtype=dt, requires_grad=True)
        x = lib.tensor(rng.standard_normal((4, 5)), dtype=dt, requires_grad=True)
        b = lib.tensor(rng.standard_normal(3), dtype=dt, requires_grad=True)
        if case == "mm_transposed_a":
            out = lib.mm(x.t().contiguous().t(), w.t())   # both operands stored transposed

        elif case == "addmm_alpha":
            out = lib.addmm(b, x, w.t(), alpha=2.5)
        else:
            out = lib.nn.functional.linear(x, w, b)
        out.abs().sum().backward()
        return [(t.grad.stride(), t.grad.detach().numpy()) for t in (w, x)]

    rng = np.random.default_rng(0)
    ours = run(numtorch)
    rng = np.random.default_rng(0)
    theirs = run(torch)
    for (s1, g1), (s2, g2) in zip(ours, theirs):
        assert s1 == s2
        np.testing.assert_allclose(g1, g2, rtol=1e-12)


def _d(lib, *shape):
    return lib.ones(*shape, dtype=lib.float64)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.mv(_d(lib, 2, 3), lib.ones(3)),
    lambda lib: lib.mv(lib.ones(2, 3), _d(lib, 3)),
    lambda lib: lib.bmm(_d(lib, 1, 2, 3), lib.ones(1, 3, 2)),
    lambda lib: lib.addmm(lib.ones(2), _d(lib, 2, 3), _d(lib, 3, 2)),
    lambda lib: lib.addmm(_d(lib, 2), _d(lib, 2, 3), lib.ones(3, 2)),
    lambda lib: lib.addmm(lib.ones(2), _d(lib, 2, 3), lib.ones(3, 2)),
    lambda lib: lib.matmul(lib.ones(2, 2, 3), _d(lib, 3, 2)),
    lambda lib: lib.nn.functional.linear(lib.ones(2, 2, 3), _d(lib, 4, 3), _d(lib, 4)),
    lambda lib: lib.nn.functional.linear(lib.ones(2, 3), lib.ones(4, 3), _d(lib, 4)),
    lambda lib: lib.nn.functional.linear(lib.ones(2, 3), _d(lib, 4, 3)),
    lambda lib: lib.addmv(lib.ones(2), _d(lib, 2, 3), _d(lib, 3)),
    lambda lib: lib.baddbmm(lib.ones(1, 2, 2), _d(lib, 1, 2, 3), _d(lib, 1, 3, 2)),
], ids=["mv-mat", "mv-vec", "bmm", "addmm-self", "addmm-mat2", "addmm-mat1", "matmul-3d",
        "linear-3d", "linear-bias", "linear-no-bias", "addmv", "baddbmm"])
def test_mixed_dtype_errors(fn):
    check_error(fn)


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 2, 3, 4), (4,), (0, 3, 4), (2, 0, 4)])
def test_linear_folds_contiguous_input_into_addmm(shape, torch):
    # as PyTorch: with a bias, a contiguous input is one addmm on its (rows, features) view
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(shape), rng.standard_normal((5, 4)), rng.standard_normal(5)

    def run(lib):
        xt, wt, bt = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        out = lib.nn.functional.linear(xt, wt, bt)
        out.sin().sum().backward()
        names = (type(out.grad_fn).__name__,
                 [type(n).__name__ for n, _ in out.grad_fn.next_functions])
        return names, [t.detach().numpy() for t in (out, xt.grad, wt.grad, bt.grad)]
    (n1, v1), (n2, v2) = run(numtorch), run(torch)
    assert n1 == n2
    for a, b_ in zip(v1, v2):
        np.testing.assert_allclose(a, b_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.linear(lib.ones(2, 4), lib.ones(4), lib.tensor(1.0)),
    lambda lib: lib.nn.functional.linear(lib.ones(2, 3, 4), lib.ones(5, 3), lib.ones(5)),
], ids=["vector-weight-with-bias", "folded-shape-mismatch"])
def test_linear_errors(fn):
    check_error(fn)


# ---- found by sweeping scripts against torch ---------------------------------------------
LINALG_ERRORS = [
    ("cross-len2", lambda lib: lib.linalg.cross(lib.ones(3, 2), lib.ones(3, 2))),
    ("cross-ndim", lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(3))),
    ("cross-dtype", lambda lib: lib.linalg.cross(lib.ones(3), lib.ones(3, dtype=lib.float64))),
    ("cross-dim", lambda lib: lib.cross(lib.ones(2, 4), lib.ones(2, 4), dim=1)),
    ("norm-3d-ord", lambda lib: lib.linalg.norm(lib.ones(2, 2, 2), ord=2)),
    ("norm-0d-ord", lambda lib: lib.linalg.norm(lib.tensor(2.0), ord=1)),
    ("cholesky-minor-2", lambda lib: lib.linalg.cholesky(lib.tensor([[1.0, 2.0], [2.0, 1.0]]))),
    ("cholesky-minor-3", lambda lib: lib.linalg.cholesky(lib.diag(lib.tensor([1.0, 1, -1])))),
    ("cholesky-batch", lambda lib: lib.linalg.cholesky(
        lib.tensor([[[4.0, 2.0], [2.0, 3.0]], [[1.0, 2.0], [2.0, 1.0]]]))),
]


@pytest.mark.parametrize("name, fn", LINALG_ERRORS, ids=[c[0] for c in LINALG_ERRORS])
def test_sweep_linalg_errors(name, fn):
    check_error(fn)


def test_cross_default_dim_is_first_of_size_3(torch):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_same(lambda lib: lib.cross(lib.ones(3, 2), lib.arange(6.0).view(3, 2)))


DET_MATRICES = [[[1.0, 2], [3, 4]], [[3.0, -1], [4, -1]], [[4.0, 1], [2, 3]],
                [[2.0, 0, 0], [0, 2, 0], [0, 0, 2]], [[1.0, 2, 3], [4, 5, 6], [7, 8, 10]],
                [[0.0, 1], [1, 0]],
                [[1.0, 2], [2, 4]]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m", DET_MATRICES)
def test_det_prints_as_torch(torch, m, dtype):
    """det is the product of LAPACK's LU of the column-major copy, not exp(log|det|): an
    integer determinant prints as torch prints it ('8.' rather than '8.0000').

    NOTE: not every matrix: MKL's fused multiply-adds round a few (~4% of small integer
    matrices, e.g. [[-5, -3], [-3, 3]] in float64) differently from NumPy's elimination."""
    check_same(lambda lib: str(lib.linalg.det(lib.tensor(m, dtype=getattr(lib, dtype)))),
               exact=True)
    check_same(lambda lib: str(lib.det(lib.tensor(m, dtype=getattr(lib, dtype)).T)),
               exact=True)


def test_det_batched_and_empty(torch):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 4, 4))
    check_same(lambda lib: lib.linalg.det(lib.tensor(a)))
    check_same(lambda lib: lib.linalg.det(lib.zeros(2, 0, 0)))
    check_same(lambda lib: lib.linalg.det(lib.zeros(3, 3)))


SOLVE_INV_ERRORS = [
    ("solve-vector-rows", lambda lib: lib.linalg.solve(lib.ones(2, 2), lib.ones(3))),
    ("solve-matrix-rows", lambda lib: lib.linalg.solve(lib.ones(2, 2), lib.ones(3, 2))),
    ("solve-singular-batch", lambda lib: lib.linalg.solve(lib.zeros(2, 2, 2), lib.ones(2))),
    ("inv-second-pivot", lambda lib: lib.linalg.inv(lib.ones(3, 3))),
    ("inv-first-pivot", lambda lib: lib.linalg.inv(lib.tensor([[0.0, 1], [0, 1]]))),
    ("inv-batch", lambda lib: lib.linalg.inv(lib.stack([lib.eye(2), lib.ones(2, 2)]))),
    ("outer-2d", lambda lib: lib.outer(lib.ones(2), lib.ones(2, 2))),
]


@pytest.mark.parametrize("name, fn", SOLVE_INV_ERRORS, ids=[c[0] for c in SOLVE_INV_ERRORS])
def test_solve_inv_errors(name, fn):
    check_error(fn)


EX_CASES = [
    ("inv_ex", lambda lib: lib.linalg.inv_ex(lib.tensor([[4.0, 1.0], [2.0, 3.0]]))),
    ("inv_ex-info", lambda lib: lib.linalg.inv_ex(lib.ones(2, 2)).info),
    ("inv_ex-check", lambda lib: lib.linalg.inv_ex(lib.ones(2, 2), check_errors=True)),
    ("cholesky_ex", lambda lib: lib.linalg.cholesky_ex(lib.tensor([[4.0, 2.0], [2.0, 3.0]]))),
    ("cholesky_ex-info", lambda lib: lib.linalg.cholesky_ex(
        lib.tensor([[1.0, 2.0], [2.0, 1.0]])).info),
    ("matrix_power-int", lambda lib: lib.linalg.matrix_power(lib.tensor([[1, 1], [1, 0]]), 10)),
    ("matrix_power-int-0", lambda lib: lib.linalg.matrix_power(lib.tensor([[1, 1], [1, 0]]), 0)),
    ("matrix_power-int-neg", lambda lib: lib.linalg.matrix_power(lib.tensor([[1, 1], [1, 0]]),
                                                                 -1)),
]


@pytest.mark.parametrize("name, fn", EX_CASES, ids=[c[0] for c in EX_CASES])
def test_ex_variants_and_int_matrix_power(name, fn):
    from helpers import check_same_outcome
    check_same_outcome(fn)


def test_ex_variants_repr(torch):
    check_same(lambda lib: repr(lib.linalg.inv_ex(lib.eye(2))), exact=True)
    check_same(lambda lib: repr(lib.linalg.cholesky_ex(lib.eye(2))), exact=True)


@pytest.mark.parametrize("bias_shape", [(4,), (3, 2), (5,)])
def test_linear_bias_that_does_not_broadcast_raises_pytorchs_error(bias_shape):
    check_error(lambda lib: lib.nn.functional.linear(lib.ones(2, 4), lib.ones(2, 4),
                                                     lib.ones(bias_shape)))


def test_linear_broadcastable_bias_shapes_match_pytorch():
    check_same(lambda lib: [lib.nn.functional.linear(lib.ones(2, 4), lib.ones(3, 4), lib.ones(s))
                            for s in [(1,), (), (2, 3), (1, 3)]])
