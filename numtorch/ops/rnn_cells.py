"""Fused LSTM ops: a whole layer as one op, or one op per time step.

Both take the input projection ``xg = x W_ih^T + b`` (computed for the whole sequence in one
matmul before the time loop), the state (h, c) and ``W_hh``, and step with the equations of
PyTorch's LSTM cell:

    [i f g o] = xg_t + h W_hh^T;  i, f, o = sigmoid(.), g = tanh(.)
    c' = f * c + i * g;  h' = o * tanh(c')

``LSTMLayerFused`` runs every step of a layer (PyTorch's CPU LSTM does the same, as
``MkldnnRnnLayer``), so the graph holds one node per layer and direction instead of about
fifteen per step, and backward computes dW_hh for all steps in one matmul; ``LSTMCellFused``
is one step, for the loops that need their own (projections, packed sequences). Forward runs
on ndarrays; backward is a NumPy pass when nothing is recorded (every first-order backward),
and the same formulas in Tensor ops under ``create_graph``, recomputed from the saved inputs
so that higher derivatives see their dependence on them.

>>> import numtorch as torch
>>> from numtorch.ops.rnn_cells import LSTMCellFused, LSTMLayerFused
>>> xg, h, c, w = torch.zeros(1, 8), torch.zeros(1, 2), torch.ones(1, 2), torch.zeros(8, 2)
>>> h1, c1 = LSTMCellFused.apply(xg, h, c, w)
>>> c1
tensor([[0.5000, 0.5000]])
>>> out, h_n, c_n = LSTMLayerFused.apply(torch.zeros(3, 1, 8), h, c, w, w.t().contiguous(),
...                                      False)
>>> out.shape, c_n
(torch.Size([3, 1, 2]), tensor([[0.1250, 0.1250]]))
"""
import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import STATE
from ._base import NULL_CTX, BuiltinFunction
from ._util import scalar_array
from .elementwise import _sigmoid

__all__ = ["LSTMCellFused", "LSTMLayerFused", "lstm_pointwise"]

_make = Tensor._make


def _const(a):
    return _make(a, None, False)


class LSTMCellFused(BuiltinFunction):
    """(h', c') of one LSTM step from (xg, h, c, W_hh, W_hh^T), ``h`` None meaning zeros;
    the BPTT step: d gates from (g_h', g_c'), then dxg = d, dh = d W_hh, dW_hh = d^T h,
    dc = d_c f. ``w_t`` is a contiguous copy of W_hh^T (or None), not differentiated."""
    _backward_name = "ThnnFusedLstmCellBackward0"

    @staticmethod
    def forward(ctx, xg, h, c, w, w_t=None):
        act = np.empty_like(xg)
        h_new, c_new, tc = _lstm_step(xg, h, c, w.T if w_t is None else w_t, act)
        if ctx is not NULL_CTX:
            ctx.save_for_backward(xg, h, c, w)
            ctx.act, ctx.tc = act, tc
        return h_new, c_new

    @staticmethod
    def backward(ctx, gh, gc):
        xg, h, c, w = ctx.saved_tensors
        nx, nh, nc, nw = ctx.needs_input_grad[:4]
        if STATE.enabled:  # create_graph: differentiable formulas
            d, dc = _lstm_grads_graph(gh, gc, xg, h, c, w)
        else:
            d, dc = _lstm_grads(gh._data, gc._data, ctx.act, ctx.tc, c._data)
            d, dc = _const(d), _const(dc)
        dh = d.matmul(w) if nh and h is not None else None
        dw = d.t().matmul(h) if nw and h is not None else None
        return (d if nx else None), dh, (dc if nc else None), dw, None


class LSTMLayerFused(BuiltinFunction):
    """(out, h_n, c_n) of an LSTM layer over the input projection ``xg`` (T, B, 4H), from
    (h0, c0), stepping through time backwards when ``reverse``;  backpropagation through
    time, with dW_hh = sum_t d_t^T h_t as one matmul. ``w_t``: as in ``LSTMCellFused``."""
    _backward_name = "MkldnnRnnLayerBackward0"  # PyTorch's CPU LSTM layer op

    @staticmethod
    def forward(ctx, xg, h0, c0, w, w_t, reverse):
        steps = xg.shape[0]
        act = np.empty_like(xg)
        out = np.empty(xg.shape[:2] + (h0.shape[1],), xg.dtype)
        h_in, c_in, tc = np.empty_like(out), np.empty_like(out), np.empty_like(out)
        h, c = h0, c0
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            h_in[t], c_in[t] = h, c  # the state entering step t, for backward
            h, c, tc[t] = _lstm_step(xg[t], h, c, w_t, act[t])
            out[t] = h
        if ctx is not NULL_CTX:
            ctx.save_for_backward(xg, h0, c0, w)
            ctx.act, ctx.tc, ctx.h_in, ctx.c_in, ctx.reverse = act, tc, h_in, c_in, reverse
        return out, h, c

    @staticmethod
    def backward(ctx, g_out, g_h, g_c):
        xg, h0, c0, w = ctx.saved_tensors
        nx, nh, nc, nw = ctx.needs_input_grad[:4]
        if STATE.enabled:  # create_graph: differentiable formulas
            d, dh, dc, h_in = _layer_grads_graph(g_out, g_h, g_c, xg, h0, c0, w, ctx.reverse)
        else:
            d, dh, dc = _layer_grads(g_out._data, g_h._data, g_c._data, ctx, w._data, nh)
            d, dh, dc, h_in = _const(d), _const(dh), _const(dc), _const(ctx.h_in)
        dw = None
        if nw:  # one matmul over all steps: (4H, T*B) @ (T*B, H)
            dw = d.reshape(-1, d.shape[-1]).t().matmul(h_in.reshape(-1, h_in.shape[-1]))
        return (d if nx else None), (dh if nh else None), (dc if nc else None), dw, None, None


def _layer_grads(g_out, g_h, g_c, ctx, w, need_h0):
    """(d gates (T, B, 4H), d h0, d c0) on ndarrays, stepping back through time."""
    act = ctx.act
    d = np.empty_like(act)
    steps = act.shape[0]
    order = range(steps) if ctx.reverse else range(steps - 1, -1, -1)
    dh, dc = g_h, g_c
    for k, t in enumerate(order):
        _, dc = _lstm_grads(g_out[t] + dh, dc, act[t], ctx.tc[t], ctx.c_in[t], out=d[t])
        if k < steps - 1 or need_h0:  # NOTE: h0's gradient only when asked for
            dh = np.matmul(d[t], w)
    return d, dh, dc


def _lstm_step(xg, h, c, w_t, act):
    """(h', c', tanh(c')) of one step on ndarrays; the activated gates go into ``act``."""
    hidden = c.shape[1]
    if h is None:
        act[...] = xg
    else:
        # NOTE: OpenBLAS multiplies by a contiguous W^T a third faster than by the
        # transposed view of W (and backward's d W by W itself): callers pass the copy
        np.matmul(h, w_t, out=act)
        act += xg
    # NOTE: one sigmoid over the whole slab (one contiguous pass beats three strided ones);
    # the g columns take tanh of their pre-activations, saved before
    g = np.tanh(act[:, 2 * hidden:3 * hidden])
    _sigmoid(act, out=act)
    act[:, 2 * hidden:3 * hidden] = g
    i, f, g, o = _chunks(act, hidden)
    c_new = f * c
    c_new += i * g  # PyTorch's order: (f * c) + (i * g)
    tc = np.tanh(c_new)
    return o * tc, c_new, tc


def _chunks(a, hidden):
    return (a[:, :hidden], a[:, hidden:2 * hidden], a[:, 2 * hidden:3 * hidden],
            a[:, 3 * hidden:])


def _lstm_grads(gh, gc, act, tc, c, out=None):
    """(d gates, d c) on ndarrays, from the saved activations and tanh(c'); d gates goes
    into ``out`` when given."""
    batch, hidden = tc.shape
    i, f, g, o = _chunks(act, hidden)
    one = scalar_array(1, act.dtype)
    # the gradient reaching c': its own plus h' = o * tanh(c')'s
    dct = tc * tc
    np.subtract(one, dct, out=dct)
    dct *= o
    dct *= gh
    dct += gc
    # d = local derivative of each activation times what multiplies it, times dct (or gh)
    d = np.subtract(one, act, out=out)
    d *= act  # sigmoid' for the i, f, o columns
    d3 = d.reshape(batch, 4, hidden)
    np.subtract(one, g * g, out=d3[:, 2])  # tanh' for the g columns
    d3[:, 0] *= g
    d3[:, 1] *= c
    d3[:, 2] *= i
    d3[:, :3] *= dct[:, None]
    d3[:, 3] *= tc * gh
    return d, np.multiply(dct, f, out=dct)


# ---- the same in Tensor ops (create_graph) -------------------------------------------------
def lstm_pointwise(gates, c):
    """(h', c') from the gate pre-activations [i f g o] and c, in composed Tensor ops."""
    i, f, g, o = gates.chunk(4, 1)
    cy = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * cy.tanh(), cy


def _lstm_grads_graph(gh, gc, xg, h, c, w):
    """(d gates, d c) in Tensor ops, recomputing the step from its inputs."""
    from .shape import cat
    gates = xg if h is None else xg + h.matmul(w.t())
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    tc = (f * c + i * g).tanh()
    dct = gc + gh * o * (1 - tc * tc)
    d = cat([dct * g * i * (1 - i), dct * c * f * (1 - f), dct * i * (1 - g * g),
             gh * tc * o * (1 - o)], 1)
    return d, dct * f


def _run_graph(xg, h0, c0, w, reverse):
    """The states (h, c) entering each step, in time order, recomputed in Tensor ops."""
    steps = xg.shape[0]
    hs, cs = [None] * steps, [None] * steps
    h, c = h0, c0
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        hs[t], cs[t] = h, c
        h, c = lstm_pointwise(xg[t] + h.matmul(w.t()), c)
    return hs, cs


def _layer_grads_graph(g_out, g_h, g_c, xg, h0, c0, w, reverse):
    """``_layer_grads`` in Tensor ops, from the recomputed states; also the states h entering
    each step, stacked."""
    from .shape import stack
    hs, cs = _run_graph(xg, h0, c0, w, reverse)
    steps = xg.shape[0]
    ds = [None] * steps
    dh, dc = g_h, g_c
    for t in (range(steps) if reverse else range(steps - 1, -1, -1)):
        ds[t], dc = _lstm_grads_graph(g_out[t] + dh, dc, xg[t], hs[t], cs[t], w)
        dh = ds[t].matmul(w)
    return stack(ds, 0), dh, dc, stack(hs, 0)
