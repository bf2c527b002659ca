"""The array backward of mm, addmm, batched matmul and the transpose views: a plain backward
(no create_graph) runs NumPy directly instead of the Tensor formula, so it must give the
formula's gradients bit for bit and with the same strides (a transposed operand's gradient
is computed transposed), fall back for complex data, and leave double backward as it was."""
import sys

import numpy as np
import pytest

import numtorch
from numtorch.ops import linalg as L
from helpers import check_op

DTYPES = [np.float32, np.float64]
IDS = ["float32", "float64"]


def _leaf(x):
    return numtorch.tensor(x, requires_grad=True)


def _both(fn, arrays, seed=0):
    """(plain, create_graph) gradients of ``fn(*leaves)`` for a random upstream gradient."""
    leaves = [_leaf(x) for x in arrays]
    out = fn(*leaves)
    rng = np.random.default_rng(seed)
    g = numtorch.tensor(rng.standard_normal(tuple(out.shape)).astype(out.detach().numpy().dtype))
    plain = numtorch.autograd.grad(out, leaves, g, retain_graph=True, allow_unused=True)
    graph = numtorch.autograd.grad(out, leaves, g, create_graph=True, allow_unused=True)
    return plain, graph


def _assert_same(plain, graph):
    """Bit-identical values, same dtype, shape and strides, and the plain ones outside the
    graph."""
    for p, q in zip(plain, graph):
        assert (p is None) == (q is None)
        if p is None:
            continue
        assert not p.requires_grad and p.grad_fn is None
        assert p.dtype == q.dtype and p.shape == q.shape
        assert p.stride() == q.stride(), (p.stride(), q.stride())
        a, b = p.numpy(), q.detach().numpy()
        assert a.tobytes(order="A") == b.tobytes(order="A")


def _r(*shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed + len(shape)).standard_normal(shape).astype(dtype)


BIAS_SHAPES = [(3,), (1, 3), (5, 3), (), (5, 1), (1, 1)]
SCALES = [(1, 1), (0.5, 2), (0, -1.5), (2, 1), (1, 3)]


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("bias_shape", BIAS_SHAPES, ids=str)
@pytest.mark.parametrize("beta,alpha", SCALES)
def test_addmm_bias_shapes_and_scales(dtype, bias_shape, beta, alpha):
    def f(c, x, w):
        return numtorch.addmm(c, x, w.t(), beta=beta, alpha=alpha)
    _assert_same(*_both(f, [_r(*bias_shape, dtype=dtype), _r(5, 4, dtype=dtype),
                            _r(3, 4, dtype=dtype)]))


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt"])
def test_addmm_operand_layouts(dtype, layout):
    """Either operand may be a transposed view: its gradient comes back transposed."""
    def f(c, x, w):
        a = x.t() if layout[0] == "t" else x
        b = w.t() if layout[1] == "t" else w
        return numtorch.addmm(c, a, b, alpha=0.75)
    x = _r(4, 5, dtype=dtype) if layout[0] == "t" else _r(5, 4, dtype=dtype)
    w = _r(3, 4, dtype=dtype) if layout[1] == "t" else _r(4, 3, dtype=dtype)
    _assert_same(*_both(f, [_r(3, dtype=dtype), x, w]))


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt"])
def test_mm_operand_layouts(dtype, layout):
    def f(x, w):
        return (x.t() if layout[0] == "t" else x).mm(w.t() if layout[1] == "t" else w)
    x = _r(4, 5, dtype=dtype) if layout[0] == "t" else _r(5, 4, dtype=dtype)
    w = _r(3, 4, dtype=dtype) if layout[1] == "t" else _r(4, 3, dtype=dtype)
    _assert_same(*_both(f, [x, w]))


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("shape", [(6, 4), (2, 3, 4), (4,)], ids=str)
@pytest.mark.parametrize("bias", [True, False])
def test_linear(dtype, shape, bias):
    def f(x, w, *b):
        return numtorch.nn.functional.linear(x, w, *b)
    arrays = [_r(*shape, dtype=dtype), _r(3, 4, dtype=dtype)] + \
        ([_r(3, dtype=dtype)] if bias else [])
    _assert_same(*_both(f, arrays))


def test_linear_weight_grad_is_contiguous():
    """``weight.t()``'s gradient is computed transposed, so ``weight.grad`` is C-ordered."""
    x, w, b = _leaf(_r(6, 4)), _leaf(_r(3, 4)), _leaf(_r(3))
    numtorch.nn.functional.linear(x, w, b).sum().backward()
    assert w.grad.is_contiguous() and w.grad.stride() == (4, 1)
    np.testing.assert_allclose(b.grad.numpy(), np.full(3, 6.0))


MATMUL_CASES = {
    "bmm": lambda a, b: a.bmm(b),
    "bmm-transposed": lambda a, b: a.bmm(b.mT),
    "matmul-4d": lambda a, b: a.reshape(2, 1, 4, 3) @ b.reshape(2, 1, 3, 5),
    "matmul-4d-transposed": lambda a, b: a.reshape(2, 1, 4, 3) @ b.mT.reshape(2, 1, 3, 5),
    # batch dims that do not fold without a copy: the Tensor formula
    "matmul-permuted": lambda a, b: a.reshape(2, 2, 2, 3).permute(1, 0, 2, 3) @
    b.mT[:, :4].reshape(2, 2, 2, 3).mT,
    # broadcast batch and size-1 matrix dims: the Tensor formula
    "matmul-broadcast": lambda a, b: a @ b[:1],
    "matmul-vector-rows": lambda a, b: a[:, :1] @ b,
    "matmul-3d-2d": lambda a, b: a @ b[0],
}


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("case", list(MATMUL_CASES))
def test_batched_matmul(dtype, case):
    b = _r(2, 3, 5, dtype=dtype) if "transposed" not in case else _r(2, 5, 3, dtype=dtype)
    _assert_same(*_both(MATMUL_CASES[case], [_r(2, 4, 3, dtype=dtype), b]))


@pytest.mark.parametrize("heads_first", [True, False])
def test_matmul_nd_op(heads_first):
    """``MatmulND`` (the transformer's attention product) directly; with the heads split
    off the last dim, batch dims that do not fold without a copy (the Tensor formula)."""
    def f(q, k):
        if not heads_first:
            q, k = (t.reshape(2, 4, 3, 5).transpose(1, 2) for t in (q, k))
        return L.MatmulND.apply(q, k.transpose(-2, -1))
    _assert_same(*_both(f, [_r(2, 3, 4, 5), _r(2, 3, 4, 5)]))


VIEW_CASES = {
    "t": lambda x: x.t(),
    "t-1d": lambda x: x[0].t(),
    "T": lambda x: x.T,
    "mT": lambda x: x.mT,
    "transpose": lambda x: x.transpose(0, 1),
    "transpose-0d": lambda x: x[0, 0].transpose(0, -1),
    "permute": lambda x: x.reshape(2, 3, 2).permute(2, 0, 1),
    "permute-T-3d": lambda x: x.reshape(2, 3, 2).permute(1, 2, 0).mT,
}


@pytest.mark.parametrize("case", list(VIEW_CASES))
@pytest.mark.parametrize("dtype", DTYPES + [np.complex128], ids=IDS + ["complex128"])
def test_transpose_views(case, dtype):
    x = (_r(4, 3) + (1j * _r(4, 3, seed=1) if dtype == np.complex128 else 0)).astype(dtype)
    leaf = _leaf(x)
    out = VIEW_CASES[case](leaf)
    g = numtorch.tensor(np.arange(out.numel(), dtype=dtype).reshape(tuple(out.shape)))
    plain = numtorch.autograd.grad(out, leaf, g, retain_graph=True)
    graph = numtorch.autograd.grad(out, leaf, g, create_graph=True)
    _assert_same(plain, graph)


def _calls(fn):
    """The code objects ``fn()`` calls."""
    called = set()

    def profile(frame, event, arg):
        if event == "call":
            called.add(frame.f_code)
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return called


@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=["float32", "complex64"])
def test_complex_takes_the_tensor_formula(dtype):
    x = (_r(5, 4) + (1j * _r(5, 4, seed=1) if dtype == np.complex64 else 0)).astype(dtype)
    a, w, b = _leaf(x), _leaf(x[:3].copy()), _leaf(x[0, :3].copy())
    out = numtorch.nn.functional.linear(a, w, b)
    called = _calls(lambda: out.sum().abs().backward())
    assert (L._mm_grads.__code__ in called) == (dtype == np.complex64)
    assert (L._mm_array_grads.__code__ in called) == (dtype == np.float32)


def test_complex_gradients_against_torch(torch):
    c = (_r(2, 4) + 1j * _r(2, 4, seed=3)).astype(np.complex128)
    a = (_r(2, 3) - 1j * _r(2, 3, seed=4)).astype(np.complex128)
    b = (_r(3, 4) + 2j * _r(3, 4, seed=5)).astype(np.complex128)
    check_op(lambda c, a, b: c.addmm(a, b, beta=0.5, alpha=2), c, a, b)


def test_saved_tensor_hooks_still_apply():
    """Unpacked tensors from saved-tensor hooks are what the array backward reads."""
    x, w = _leaf(_r(5, 4)), _leaf(_r(3, 4))
    with numtorch.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
        out = numtorch.nn.functional.linear(x, w, None)
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * np.ones((3, 5)) @ x.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.ones((5, 3)) @ w.detach().numpy())


def test_in_place_change_of_a_saved_operand_still_raises():
    x, w = _leaf(_r(5, 4)), _leaf(_r(3, 4))
    h = x * 1
    out = numtorch.nn.functional.linear(h, w, None)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_leaf_grads_accumulate_bit_identically():
    """Two plain backward passes accumulate into .grad exactly as twice the first."""
    x, w, b = _leaf(_r(6, 4, dtype=np.float32)), _leaf(_r(3, 4, dtype=np.float32)), \
        _leaf(_r(3, dtype=np.float32))
    for _ in range(2):
        numtorch.nn.functional.linear(x, w, b).pow(2).sum().backward()
    once = [p.grad.numpy() / 2 for p in (x, w, b)]
    x.grad = w.grad = b.grad = None
    numtorch.nn.functional.linear(x, w, b).pow(2).sum().backward()
    for o, p in zip(once, (x, w, b)):
        np.testing.assert_array_equal(o, p.grad.numpy())


def _lib(t):
    """The library (numtorch or torch) a tensor belongs to."""
    return numtorch if isinstance(t, numtorch.Tensor) else sys.modules["torch"]


DOUBLE_CASES = [
    ("addmm", lambda c, a, b: c.addmm(a, b.t(), beta=0.5, alpha=2), _r(4), _r(2, 3), _r(4, 3)),
    ("addmm-scalar-bias", lambda c, a, b: c.addmm(a, b, beta=2), _r(), _r(2, 3), _r(3, 4)),
    ("addmm-transposed-a", lambda c, a, b: c.addmm(a.t(), b), _r(1, 4), _r(3, 2), _r(3, 4)),
    ("linear", lambda c, a, b: _lib(a).nn.functional.linear(a, b, c), _r(4), _r(2, 3),
     _r(4, 3)),
    ("mm-tt", lambda a, b: a.t().mm(b.t()), _r(3, 2), _r(4, 3)),
    ("bmm", lambda a, b: a.bmm(b.mT), _r(2, 2, 3), _r(2, 4, 3)),
    ("matmul-4d", lambda a, b: a @ b.transpose(-1, -2), _r(2, 1, 2, 3), _r(2, 1, 4, 3)),
    ("permute", lambda a: a.permute(2, 0, 1).sin(), _r(2, 3, 4)),
]


@pytest.mark.parametrize("case", DOUBLE_CASES, ids=[c[0] for c in DOUBLE_CASES])
def test_double_backward_against_torch(torch, case):
    check_op(case[1], *case[2:], grad_fn=False)


def test_w3_step_against_torch(torch):
    """A linear-relu-linear step: plain gradients of numtorch equal torch's (float64)."""
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(s) for s in [(8, 6), (5, 6), (5,), (3, 5), (3,)]]
    grads = []
    for lib in (numtorch, torch):
        x, w1, b1, w2, b2 = [lib.tensor(a, requires_grad=True) for a in arrays]
        F = lib.nn.functional
        loss = F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2),
                               lib.tensor([0, 1, 2, 0, 1, 2, 0, 1]))
        loss.backward()
        grads.append([t.grad.numpy() for t in (x, w1, b1, w2, b2)])
    for m, r in zip(*grads):
        np.testing.assert_allclose(m, r, rtol=1e-12, atol=1e-14)
