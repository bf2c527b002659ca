"""Recurrent layers' fast paths (``ops/rnn_cells``: the fused LSTM and GRU layer and cell ops,
the input projection of the whole sequence) against PyTorch: values, gradients of inputs,
states and weights, second derivatives; numerical first and second derivatives of the fused
ops; the fallbacks under forward AD and vmap; the sigmoid they use."""
import warnings

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, numerical_grad_check
from numtorch.ops.rnn_cells import GRUCellFused, GRULayerFused, LSTMCellFused, LSTMLayerFused

RNG = np.random.default_rng(0)


def _arr(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


CONFIGS = [
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"batch_first": True, "bias": False}), ("LSTM", {"proj_size": 3}),
    ("LSTM", {"proj_size": 2, "bidirectional": True, "num_layers": 2, "batch_first": True}),
    ("GRU", {"bidirectional": True}), ("GRU", {"bias": False, "num_layers": 2}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("RNN", {"nonlinearity": "relu", "bidirectional": True}), ("RNN", {"batch_first": True}),
]


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")
@pytest.mark.parametrize("mode,kwargs", CONFIGS, ids=[f"{m}{i}" for i, (m, _) in
                                                      enumerate(CONFIGS)])
@pytest.mark.parametrize("with_state", [False, True], ids=["zeros", "h0"])
def test_layer_against_torch(torch, mode, kwargs, with_state):
    x = _arr(5, 3, 4)  # (time, batch, features)
    if kwargs.get("batch_first"):
        x = np.ascontiguousarray(x.transpose(1, 0, 2))
    dirs = 2 if kwargs.get("bidirectional") else 1
    n = kwargs.get("num_layers", 1) * dirs
    h0, c0 = _arr(n, 3, kwargs.get("proj_size") or 6), _arr(n, 3, 6)

    def run(lib):
        lib.manual_seed(0)
        m = getattr(lib.nn, mode)(4, 6, **kwargs)
        xt = lib.tensor(x, requires_grad=True)
        state = None
        if with_state:
            h, c = lib.tensor(h0, requires_grad=True), lib.tensor(c0, requires_grad=True)
            state = (h, c) if mode == "LSTM" else h
        out, hn = m(xt, state)
        hn = hn if isinstance(hn, tuple) else (hn,)
        (out.pow(2).sum() + sum((h * h.sum()).sum() for h in hn)).backward()
        leaves = [xt] + (list(state) if isinstance(state, tuple) else [state] * with_state)
        return out, hn, [t.grad for t in leaves], [p.grad for p in m.parameters()]
    check_same(run)


def test_unbatched_lstm_and_unused_outputs(torch):
    """Unbatched input; only h_n reaches the loss (the other outputs' gradients are zeros)."""
    x = _arr(4, 3)

    def run(lib):
        lib.manual_seed(1)
        m = lib.nn.LSTM(3, 5, bidirectional=True)
        out, (h, c) = m(lib.tensor(x))
        h.sum().backward()
        return out, h, c, [p.grad for p in m.parameters()]
    check_same(run)


def test_lstm_output_grad_fn_names(torch):
    def run(lib):
        out, (h, c) = lib.nn.LSTM(2, 3)(lib.ones(4, 1, 2))
        return [type(t.grad_fn).__name__ for t in (out, h, c)]
    check_same(run, exact=True)


def _layer(xg, h0, c0, w, reverse=False):
    out, h, c = LSTMLayerFused.apply(xg, h0, c0, w, w.detach().t().contiguous(), reverse)
    return numtorch.cat([out.reshape(-1), h.reshape(-1), c.reshape(-1)])


@pytest.mark.parametrize("reverse", [False, True])
def test_fused_layer_derivatives(reverse):
    """First and second derivatives of the whole-layer op (T=3, B=2, H=2), numerically."""
    numerical_grad_check(lambda *a: _layer(*a, reverse=reverse),
                         [_arr(3, 2, 8, dtype=np.float64), _arr(2, 2, dtype=np.float64),
                          _arr(2, 2, dtype=np.float64), _arr(8, 2, dtype=np.float64)])


def test_fused_cell_derivatives():
    def cell(xg, h, c, w):
        h1, c1 = LSTMCellFused.apply(xg, h, c, w)
        return numtorch.cat([h1.reshape(-1), c1.reshape(-1)])
    numerical_grad_check(cell, [_arr(2, 12, dtype=np.float64), _arr(2, 3, dtype=np.float64),
                                _arr(2, 3, dtype=np.float64), _arr(12, 3, dtype=np.float64)])


def test_fused_cell_without_hidden_state():
    """h = None stands for zeros: the same values, and no gradient for W_hh."""
    xg, c = numtorch.tensor(_arr(2, 8)), numtorch.tensor(_arr(2, 2))
    w = numtorch.tensor(_arr(8, 2), requires_grad=True)
    h1, c1 = LSTMCellFused.apply(xg, None, c, w)
    h2, c2 = LSTMCellFused.apply(xg, numtorch.zeros(2, 2), c, w)
    np.testing.assert_allclose(h1.detach().numpy(), h2.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(c1.detach().numpy(), c2.detach().numpy(), rtol=1e-6)
    assert numtorch.autograd.grad(h1.sum(), w, allow_unused=True) == (None,)


def test_lstm_second_derivative_numerically():
    """create_graph through the module (fused layer and input projection) in float64."""
    def f(x, h0, c0):
        numtorch.manual_seed(0)
        m = numtorch.nn.LSTM(2, 2, bidirectional=True).double()
        out, (h, c) = m(x, (h0, c0))
        return numtorch.cat([out.reshape(-1), h.reshape(-1), c.reshape(-1)])
    numerical_grad_check(f, [_arr(3, 2, 2, dtype=np.float64), _arr(2, 2, 2, dtype=np.float64),
                             _arr(2, 2, 2, dtype=np.float64)])


def test_lstm_with_projection_second_derivative_numerically():
    """The per-step fused cell (projections) under create_graph."""
    def f(x):
        numtorch.manual_seed(0)
        m = numtorch.nn.LSTM(2, 3, proj_size=2).double()
        return m(x)[0]
    numerical_grad_check(f, [_arr(3, 2, 2, dtype=np.float64)])


def test_lstm_forward_ad_uses_the_composed_cell():
    """Forward AD has no rule for the fused ops: the module falls back to composed ops."""
    import numtorch.autograd.forward_ad as fwAD
    numtorch.manual_seed(0)
    m = numtorch.nn.LSTM(2, 3).double()
    x, v = numtorch.tensor(_arr(4, 1, 2, dtype=np.float64)), _arr(4, 1, 2, dtype=np.float64)
    with fwAD.dual_level():
        out = m(fwAD.make_dual(x, numtorch.tensor(v)))[0]
        tangent = fwAD.unpack_dual(out).tangent.detach().numpy()
    eps = 1e-6
    plus = m(x + numtorch.tensor(v) * eps)[0].detach().numpy()
    minus = m(x - numtorch.tensor(v) * eps)[0].detach().numpy()
    np.testing.assert_allclose(tangent, (plus - minus) / (2 * eps), rtol=1e-5, atol=1e-7)


# ---- sigmoid ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_sigmoid_extremes_match_torch_without_warnings(torch, dtype):
    x = np.array([-1e4, -100, -89, -88, -20, -1, -0.0, 0, 1e-8, 1, 20, 100, np.inf, -np.inf,
                  np.nan], dtype=dtype)

    def run(lib):
        return lib.from_numpy(x.copy()).sigmoid()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_same(run)


def test_lstm_under_vmap_matches_a_loop():
    """vmap has no batching rule for the fused ops either: the same fallback."""
    numtorch.manual_seed(0)
    m = numtorch.nn.LSTM(2, 3, bidirectional=True)
    x = numtorch.tensor(_arr(4, 5, 1, 2))
    with numtorch.no_grad():
        out = numtorch.func.vmap(lambda xi: m(xi)[0])(x)
        ref = numtorch.stack([m(xi)[0] for xi in x])
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)


# ---- GRU ----------------------------------------------------------------------------------
def test_unbatched_gru_dropout_and_unused_outputs(torch):
    """Unbatched input, dropout between layers (PyTorch's random stream), only h_n in the
    loss."""
    x = _arr(4, 3)

    def run(lib):
        lib.manual_seed(1)
        m = lib.nn.GRU(3, 5, num_layers=3, bidirectional=True, dropout=0.5)
        out, h = m(lib.tensor(x))
        h.sum().backward()
        return out, h, [p.grad for p in m.parameters()]
    check_same(run)


@pytest.mark.parametrize("kwargs", [{}, {"bidirectional": True}, {"batch_first": True}],
                         ids=["plain", "bidirectional", "batch_first"])
def test_gru_second_derivatives_against_torch(torch, kwargs):
    """Double backward through nn.GRU: the gradient norm's gradient for every weight."""
    x = _arr(4, 2, 3, dtype=np.float64)  # (2, 4, 3) read batch first: batch 2 either way
    x = x.transpose(1, 0, 2).copy() if kwargs.get("batch_first") else x
    h0 = _arr(2 if kwargs.get("bidirectional") else 1, 2, 5, dtype=np.float64)

    def run(lib):
        lib.manual_seed(2)
        m = lib.nn.GRU(3, 5, **kwargs).double()
        xt, ht = lib.tensor(x, requires_grad=True), lib.tensor(h0, requires_grad=True)
        out, h = m(xt, ht)
        leaves = [xt, ht] + list(m.parameters())
        grads = lib.autograd.grad(out.pow(2).sum() + h.sum(), leaves, create_graph=True)
        sum(g.pow(2).sum() for g in grads).backward()
        return grads, [t.grad for t in leaves]
    check_same(run)


def test_gru_output_grad_fn_names(torch):
    """PyTorch's CPU GRU stacks its steps: StackBackward0 (CatBackward0 when bidirectional,
    SqueezeBackward1 unbatched), for the output and h_n; batch_first transposes the output
    back in place (TransposeBackward1)."""
    def run(lib):
        names = []
        for kwargs, x in [({}, lib.ones(4, 1, 2)), ({"bidirectional": True}, lib.ones(4, 1, 2)),
                          ({"num_layers": 2, "bias": False}, lib.ones(4, 1, 2)),
                          ({}, lib.ones(4, 2)), ({"batch_first": True}, lib.ones(1, 4, 2))]:
            out, h = lib.nn.GRU(2, 3, **kwargs)(x)
            names += [type(t.grad_fn).__name__ for t in (out, h)]
        return names
    check_same(run, exact=True)


def _gru_layer(xg, h0, w, b=None, reverse=False):
    out, h = GRULayerFused.apply(xg, h0, w, b, w.detach().t().contiguous(), reverse)
    return numtorch.cat([out.reshape(-1), h.reshape(-1)])


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_fused_gru_layer_derivatives(reverse, bias):
    """First and second derivatives of the whole-layer op (T=3, B=2, H=2), numerically."""
    inputs = [_arr(3, 2, 6, dtype=np.float64), _arr(2, 2, dtype=np.float64),
              _arr(6, 2, dtype=np.float64)] + ([_arr(6, dtype=np.float64)] if bias else [])
    numerical_grad_check(lambda *a: _gru_layer(*a, reverse=reverse), inputs)


@pytest.mark.parametrize("bias", [False, True])
def test_fused_gru_cell_derivatives(bias):
    def cell(xg, h, w, b=None):
        return GRUCellFused.apply(xg, h, w, b, w.detach().t().contiguous())
    inputs = [_arr(2, 9, dtype=np.float64), _arr(2, 3, dtype=np.float64),
              _arr(9, 3, dtype=np.float64)] + ([_arr(9, dtype=np.float64)] if bias else [])
    numerical_grad_check(cell, inputs)


def test_fused_gru_layer_matches_the_cell_loop():
    """The layer op is the cell op stepped through time (values and every gradient)."""
    xg, h0 = _arr(4, 3, 6), _arr(3, 2)
    w, b = _arr(6, 2), _arr(6)

    def run(layer):
        ts = [numtorch.tensor(a, requires_grad=True) for a in (xg, h0, w, b)]
        w_t = ts[2].detach().t().contiguous()
        if layer:
            out, _ = GRULayerFused.apply(*ts[:4], w_t, True)
        else:
            h, outs = ts[1], [None] * 4
            for t in range(3, -1, -1):
                h = outs[t] = GRUCellFused.apply(ts[0][t], h, ts[2], ts[3], w_t)
            out = numtorch.stack(outs)
        out.pow(2).sum().backward()
        return [out.detach().numpy()] + [t.grad.numpy() for t in ts]
    for got, want in zip(run(True), run(False)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_gru_second_derivative_numerically():
    """create_graph through the module (fused layer and input projection) in float64."""
    def f(x, h0):
        numtorch.manual_seed(0)
        m = numtorch.nn.GRU(2, 2, bidirectional=True, num_layers=2).double()
        out, h = m(x, h0)
        return numtorch.cat([out.reshape(-1), h.reshape(-1)])
    numerical_grad_check(f, [_arr(3, 2, 2, dtype=np.float64), _arr(4, 2, 2, dtype=np.float64)])


def test_packed_gru_second_derivative_numerically():
    """The per-step fused cell (packed input, lengths 3 and 2) under create_graph."""
    from numtorch.nn.utils.rnn import pack_padded_sequence

    def f(x):
        numtorch.manual_seed(0)
        m = numtorch.nn.GRU(2, 3, bidirectional=True).double()
        out, h = m(pack_padded_sequence(x, [3, 2]))
        return numtorch.cat([out.data.reshape(-1), h.reshape(-1)])
    numerical_grad_check(f, [_arr(3, 2, 2, dtype=np.float64)])


def test_gru_forward_ad_uses_the_composed_cell():
    import numtorch.autograd.forward_ad as fwAD
    numtorch.manual_seed(0)
    m = numtorch.nn.GRU(2, 3, bidirectional=True).double()
    x, v = numtorch.tensor(_arr(4, 1, 2, dtype=np.float64)), _arr(4, 1, 2, dtype=np.float64)
    with fwAD.dual_level():
        out = m(fwAD.make_dual(x, numtorch.tensor(v)))[0]
        tangent = fwAD.unpack_dual(out).tangent.detach().numpy()
    eps = 1e-6
    plus = m(x + numtorch.tensor(v) * eps)[0].detach().numpy()
    minus = m(x - numtorch.tensor(v) * eps)[0].detach().numpy()
    np.testing.assert_allclose(tangent, (plus - minus) / (2 * eps), rtol=1e-5, atol=1e-7)


def test_gru_under_vmap_matches_a_loop():
    numtorch.manual_seed(0)
    m = numtorch.nn.GRU(2, 3, num_layers=2)
    x = numtorch.tensor(_arr(4, 5, 1, 2))
    with numtorch.no_grad():
        out = numtorch.func.vmap(lambda xi: m(xi)[0])(x)
        ref = numtorch.stack([m(xi)[0] for xi in x])
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)


def test_gru_output_modified_in_place_keeps_gradients(torch):
    """The layer op keeps its own copy of the states it needs, not the returned output."""
    x = _arr(3, 2, 2)

    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.GRU(2, 3)
        out, h = m(lib.tensor(x))
        out.mul_(2)
        out.sum().backward()
        return out, [p.grad for p in m.parameters()]
    check_same(run)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_empty_sequence_raises_pytorchs_error(cls, batch_first):
    def run(lib):
        m = getattr(lib.nn, cls)(4, 3, batch_first=batch_first)
        return m(lib.zeros(2, 0, 4) if batch_first else lib.zeros(0, 2, 4))
    check_error(run)
