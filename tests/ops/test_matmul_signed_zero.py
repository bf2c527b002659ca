"""The sign of zero in products over an inner dim of 1 (ops/linalg.py ``_mm2``) and in dot:
PyTorch's gemm keeps -0 (``0 * -1``) when both outer dims exceed 1, its gemv and dot
accumulate from +0. Shows in printed gradients of batch-size-1 steps (``-0.``)."""
import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")


def _signs(t):
    a = t.detach().numpy()
    return np.signbit(a).tolist(), a.tolist()


def _same(fn):
    assert _signs(fn(numtorch)) == _signs(fn(torch))


@pytest.mark.parametrize("m,n", [(1, 1), (2, 2), (3, 5), (1, 6), (6, 1), (64, 40)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mm_inner_one(m, n, dtype):
    def fn(lib):
        dt = getattr(lib, dtype)
        a = lib.tensor([[0.0], [1.0], [-0.0]] * m, dtype=dt)[:m]
        b = lib.tensor([[-1.0, 0.0, 2.0] * n], dtype=dt)[:, :n]
        return a @ b
    _same(fn)
    _same(lambda lib: lib.mm(lib.zeros(m, 1), -lib.ones(1, n)))
    _same(lambda lib: lib.zeros(1, m).t() @ -lib.ones(1, n))  # a transposed operand


def test_folded_and_batched():
    _same(lambda lib: lib.zeros(2, 3, 1) @ -lib.ones(1, 4))  # folded into one mm: -0
    _same(lambda lib: lib.bmm(lib.zeros(2, 3, 1), -lib.ones(2, 1, 4)))  # bmm: +0


def test_dot_never_negative_zero():
    _same(lambda lib: lib.dot(lib.tensor([0.0]), lib.tensor([-1.0])))
    _same(lambda lib: lib.tensor([-0.0]) @ lib.tensor([1.0]))
    _same(lambda lib: lib.inner(lib.tensor([0.0]), lib.tensor([-1.0])))


def test_linear_and_batch_one_gradients():
    def fn(lib):
        x = lib.tensor([[0.0, -1.0, 2.0]], requires_grad=True)
        w = lib.tensor([[1.0, 0.5, -1.0], [-1.0, 2.0, 0.0]], requires_grad=True)
        (x @ w.t()).backward(lib.tensor([[-1.0, 0.0]]))
        return w.grad
    _same(fn)

    def lin(lib):
        layer = lib.nn.Linear(3, 2)
        with lib.no_grad():
            layer.weight.copy_(lib.tensor([[1.0, 0.5, -1.0], [-1.0, 2.0, 0.0]]))
            layer.bias.zero_()
        layer(lib.tensor([[0.0, -1.0, 2.0]])).backward(lib.tensor([[-1.0, 0.0]]))
        return layer.weight.grad
    _same(lin)
    _same(lambda lib: lib.nn.functional.linear(lib.tensor([[0.0], [-2.0]]),
                                               lib.tensor([[-1.0], [1.0]])))
