"""Nodes, edges and saved tables of RNN cells and a few losses, walked node by node against
PyTorch (sweep AX): LSTMCell / GRUCell (UnsafeSplitBackward0, GRU operand order),
unsafe_split / unsafe_chunk's saved tables, cosine_embedding_loss / hinge_embedding_loss
(the C++ composites' Scalar overloads) and multilabel_margin_loss (one node)."""
import numpy as np
import pytest

import numtorch
from helpers import graph_table


def _both(build):
    """``build(lib) -> (out, leaves)`` in both libraries: the same graph, output and leaves'
    gradients."""
    torch = pytest.importorskip("torch")
    got = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        out, leaves = build(lib)
        graph = graph_table(out)
        out.backward(lib.ones_like(out))
        got.append((graph, out.detach().numpy().copy(),
                    [leaf.grad.numpy().copy() for leaf in leaves]))
    assert got[0][0] == got[1][0]
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-6, atol=1e-7)
    for a, b in zip(got[0][2], got[1][2]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def _x(lib, *shape):
    return lib.randn(*shape, requires_grad=True)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("which", [0, 1])
def test_lstm_cell_graph(bias, which):
    def build(lib):
        m = lib.nn.LSTMCell(3, 4, bias=bias)
        x, h, c = _x(lib, 2, 3), _x(lib, 2, 4), _x(lib, 2, 4)
        return m(x, (h, c))[which], [x, h, c] + list(m.parameters())
    _both(build)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batched", [True, False])
def test_gru_cell_graph(bias, batched):
    def build(lib):
        m = lib.nn.GRUCell(3, 4, bias=bias)
        x, h = (_x(lib, 2, 3), _x(lib, 2, 4)) if batched else (_x(lib, 3), _x(lib, 4))
        return m(x, h), [x, h] + list(m.parameters())
    _both(build)


@pytest.mark.parametrize("op, args", [
    ("unsafe_chunk", (4, 1)), ("unsafe_chunk", (3, -1)), ("unsafe_split", (5, 0)),
    ("unsafe_split", (4, -1)), ("unsafe_split_with_sizes", ([2, 8], 1)),
    ("unsafe_split_with_sizes", ([1, 2], -2))])
def test_unsafe_split_saved(op, args):
    _both(lambda lib: (getattr(_x(lib, 3, 10), op)(*args)[0], []))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("margin", [0.0, 0.3])
def test_cosine_embedding_loss_graph(reduction, margin):
    def build(lib):
        a, b = _x(lib, 4, 5), _x(lib, 4, 5)
        y = lib.tensor([1, -1, 1, -1])
        return lib.nn.functional.cosine_embedding_loss(a, b, y, margin, reduction=reduction), \
            [a, b]
    _both(build)


def test_cosine_embedding_loss_graph_1d():
    def build(lib):
        a, b = _x(lib, 5), _x(lib, 5)
        return lib.nn.CosineEmbeddingLoss(margin=-0.2)(a, b, lib.tensor(-1)), [a, b]
    _both(build)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("margin", [1.0, 0.5])
def test_hinge_embedding_loss_graph(reduction, margin):
    def build(lib):
        x = _x(lib, 2, 3)
        t = lib.tensor([[1., -1, 1], [-1, -1, 1]])
        return lib.nn.functional.hinge_embedding_loss(x, t, margin, reduction=reduction), [x]
    _both(build)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("one_d", [False, True])
def test_multilabel_margin_loss_node(reduction, one_d):
    def build(lib):
        if one_d:
            x, t = _x(lib, 4), lib.tensor([2, 1, -1, 0])
        else:
            x = _x(lib, 3, 4)
            t = lib.tensor([[3, 0, -1, 1], [1, 2, 3, -1], [0, -1, 2, 2]])
        return lib.nn.functional.multilabel_margin_loss(x, t, reduction=reduction), [x]
    _both(build)


def test_multilabel_margin_loss_random_float64():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for _ in range(20):
        n, c = rng.integers(1, 6), rng.integers(1, 12)
        xv, tv = rng.standard_normal((n, c)), rng.integers(-1, c, (n, c))
        got = []
        for lib in (numtorch, torch):
            x = lib.tensor(xv, requires_grad=True)
            loss = lib.nn.functional.multilabel_margin_loss(x, lib.tensor(tv), reduction="none")
            loss.backward(lib.arange(1.0, n + 1, dtype=lib.float64))
            got.append((loss.detach().numpy(), x.grad.numpy()))
        np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-12, atol=1e-12)


def test_multilabel_margin_loss_double_backward_refused():
    torch = pytest.importorskip("torch")
    msgs = []
    for lib in (numtorch, torch):
        x = lib.randn(3, 4, requires_grad=True)
        t = lib.tensor([[3, 0, -1, 1], [1, 2, 3, -1], [0, -1, 2, 2]])
        (g,) = lib.autograd.grad(lib.nn.functional.multilabel_margin_loss(x, t), x,
                                 create_graph=True)
        assert g.requires_grad
        with pytest.raises(RuntimeError) as err:
            g.sum().backward()
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_loss_graph(swap):
    # (PyTorch: margin + d_pos - d_neg, in that order)
    def build(lib):
        a, p, n = _x(lib, 4, 5), _x(lib, 4, 5), _x(lib, 4, 5)
        return lib.nn.functional.triplet_margin_loss(a, p, n, margin=0.7, swap=swap), [a, p, n]
    _both(build)


def test_margin_ranking_loss_graph():
    def build(lib):
        a, b = _x(lib, 6), _x(lib, 6)
        y = lib.tensor([1., -1, 1, -1, 1, 1])
        return lib.nn.functional.margin_ranking_loss(a, b, y, margin=0.2), [a, b]
    _both(build)


@pytest.mark.parametrize("full", [False, True])
def test_poisson_nll_loss_graph_rate_input(full):
    def build(lib):
        x = lib.rand(3, 4, requires_grad=True)
        t = lib.randn(3, 4).abs()
        return lib.nn.functional.poisson_nll_loss(x, t, log_input=False, full=full), [x]
    _both(build)


@pytest.mark.parametrize("args", ["tt", "st", "ts"])
def test_xlogy_saved(args):
    def build(lib):
        a, b = _x(lib, 3, 4), lib.rand(3, 4, requires_grad=True)
        x, y = (2.5 if args[0] == "s" else a), (3.0 if args[1] == "s" else b)
        return lib.xlogy(x, y), [v for v in (x, y) if not isinstance(v, float)]
    _both(build)
