"""Fused LSTM and GRU ops: a whole layer as one op, or one op per time step.

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

``GRULayerFused`` and ``GRUCellFused`` do the same for PyTorch's GRU (equations with the
ops below), taking ``b_hh`` as an input since its n chunk is scaled by the reset gate:

>>> from numtorch.ops.rnn_cells import GRUCellFused, GRULayerFused
>>> w3 = torch.zeros(6, 2)
>>> GRUCellFused.apply(torch.zeros(1, 6), torch.ones(1, 2), w3, None, w3.t().contiguous())
tensor([[0.5000, 0.5000]])
>>> out, h_n = GRULayerFused.apply(torch.zeros(3, 1, 6), torch.ones(1, 2), w3, None,
...                                w3.t().contiguous(), False)
>>> h_n
tensor([[0.1250, 0.1250]])
"""
import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import STATE
from . import _libm
from ._base import NULL_CTX, BuiltinFunction
from ._util import scalar_array
from .elementwise import _sigmoid

# Gate slabs (batch x 4 hidden for an LSTM, x 3 hidden for a GRU) larger than this take
# NumPy's float32 exp and tanh (within an ulp or two) instead of ``_libm``'s correctly
# rounded ones, which cost 4-5x as much: at hidden 128, batch 32 they were a third of an
# LSTM step. Neither is PyTorch's (SLEEF's sigmoid, MKL's tanh), and a layer this wide
# already differs from PyTorch in the last bits through its matrix products; a small cell,
# whose values a script may print, keeps the better rounding.
FAST_GATES = 1 << 12


def _gate_sigmoid(x, slab):
    """sigmoid of the gate array ``x`` in place (``_sigmoid``; see FAST_GATES)."""
    if slab > FAST_GATES and x.dtype == np.float32:
        np.negative(x, out=x)
        with np.errstate(over="ignore"):
            np.exp(x, out=x)
        x += np.float32(1)
        return np.divide(np.float32(1), x, out=x)
    return _sigmoid(x, out=x)


def _gate_tanh(x, slab, out=None):
    """tanh of the gate array ``x`` (``_libm.tanh``; see FAST_GATES)."""
    if slab > FAST_GATES and x.dtype == np.float32:
        return np.tanh(x, out=out)
    return _libm.tanh(x, out=out)


__all__ = ["LSTMCellFused", "LSTMLayerFused", "lstm_pointwise", "GRUCellFused", "GRULayerFused",
           "gru_pointwise"]

_make = Tensor._make


def _const(a):
    return _make(a, None, False)


def _unsafe_chunk(a, n):
    """``a.unsafe_chunk(n, 1)`` for a width divisible by n (the gate blocks)."""
    from .misc import UnsafeSplit
    return UnsafeSplit.apply(a, 1, (a.shape[1] // n,) * n)


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
    slab = act.size
    g = _gate_tanh(act[:, 2 * hidden:3 * hidden], slab)
    _gate_sigmoid(act, slab)
    act[:, 2 * hidden:3 * hidden] = g
    i, f, g, o = _chunks(act, hidden)
    c_new = f * c
    c_new += i * g  # PyTorch's order: (f * c) + (i * g)
    tc = _gate_tanh(c_new, slab)
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
    # NOTE: PyTorch's cell takes ``unsafe_chunk`` of the gates (UnsafeSplitBackward0)
    i, f, g, o = _unsafe_chunk(gates, 4)
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


# ---- GRU -----------------------------------------------------------------------------------
# PyTorch's GRU cell, from xg = x W_ih^T + b_ih and gh = h W_hh^T + b_hh (chunks r, z, n):
#     r = sigmoid(xg_r + gh_r);  z = sigmoid(xg_z + gh_z);  n = tanh(xg_n + r * gh_n)
#     h' = (h - n) * z + n
# b_hh stays out of xg because its n chunk is scaled by r. Backward, from g = dL/dh':
#     dn = g (1 - z) (1 - n^2);  dz = g (h - n) z (1 - z);  dr = dn gh_n r (1 - r)
#     d xg = [dr dz dn];  d gh = [dr dz dn*r];  dh = g z + d gh W_hh;  dW_hh = d gh^T h


class GRUCellFused(BuiltinFunction):
    """h' of one GRU step from (xg, h, W_hh, b_hh, W_hh^T), ``b_hh`` None meaning no bias;
    the BPTT step above. ``w_t`` is a contiguous copy of W_hh^T, not differentiated."""
    _backward_name = "ThnnFusedGruCellBackward0"

    @staticmethod
    def forward(ctx, xg, h, w, b, w_t):
        act, gh = np.empty_like(xg), np.empty_like(xg)
        h_new = _gru_step(xg, h, w_t, b, act, gh, np.empty_like(h))
        if ctx is not NULL_CTX:
            ctx.save_for_backward(xg, h, w, b)
            ctx.act, ctx.gh = act, gh
        return h_new

    @staticmethod
    def backward(ctx, g):
        xg, h, w, b = ctx.saved_tensors
        nx, nh, nw, nb = ctx.needs_input_grad[:4]
        if STATE.enabled:  # create_graph: differentiable formulas
            dx, dgh, dh = _gru_grads_graph(g, xg, h, w, b)
        else:
            gd = g._data
            dx, dgh = np.empty_like(ctx.act), np.empty_like(ctx.act)
            dh = _gru_grads(gd, ctx.act, ctx.gh, h._data, dx, dgh)
            dh = _const(dh + np.matmul(dgh, w._data)) if nh else None
            dx, dgh = _const(dx), _const(dgh)
        return ((dx if nx else None), (dh if nh else None),
                (dgh.t().matmul(h) if nw else None), (dgh.sum(0) if nb else None), None)


class GRULayerFused(BuiltinFunction):
    """(out, h_n) of a GRU layer over the input projection ``xg`` = x W_ih^T + b_ih
    (T, B, 3H), from h0, stepping through time backwards when ``reverse``;  backpropagation
    through time, with dW_hh = sum_t d gh_t^T h_t as one matmul and db_hh as one sum.
    ``w_t``: as in ``GRUCellFused``."""
    # NOTE: PyTorch's CPU GRU composes each step and stacks the outputs: its output (the
    # node this op stands for) reports StackBackward0
    _backward_name = "StackBackward0"

    @staticmethod
    def forward(ctx, xg, h0, w, b, w_t, reverse):
        steps = xg.shape[0]
        act, gh = np.empty_like(xg), np.empty_like(xg)
        out = np.empty(xg.shape[:2] + (h0.shape[1],), xg.dtype)
        order = range(steps - 1, -1, -1) if reverse else range(steps)
        h = h0
        for t in order:
            h = _gru_step(xg[t], h, w_t, b, act[t], gh[t], out[t])  # h' straight into out
        if ctx is not NULL_CTX:
            ctx.save_for_backward(xg, h0, w, b)
            # the state entering each step, a copy (out is the caller's to modify in place)
            first = h0[None]
            ctx.h_in = np.concatenate([out[1:], first] if reverse else [first, out[:-1]])
            ctx.act, ctx.gh, ctx.reverse = act, gh, reverse
        return out, h.copy()

    @staticmethod
    def backward(ctx, g_out, g_h):
        xg, h0, w, b = ctx.saved_tensors
        nx, nh, nw, nb = ctx.needs_input_grad[:4]
        if STATE.enabled:  # create_graph: differentiable formulas
            dx, dgh, dh, h_in = _gru_layer_grads_graph(g_out, g_h, xg, h0, w, b, ctx.reverse)
        else:
            dx, dgh, dh = _gru_layer_grads(g_out._data, g_h._data, ctx, w._data, nh)
            dx, dgh, dh, h_in = _const(dx), _const(dgh), _const(dh), _const(ctx.h_in)
        dw = db = None
        if nw or nb:
            dgh = dgh.reshape(-1, dgh.shape[-1])
        if nw:  # one matmul over all steps: (3H, T*B) @ (T*B, H)
            dw = dgh.t().matmul(h_in.reshape(-1, h_in.shape[-1]))
        if nb:
            db = dgh.sum(0)
        return (dx if nx else None), (dh if nh else None), dw, db, None, None


def _gru_step(xg, h, w_t, b, act, gh, out):
    """h' of one step on ndarrays, written into ``out``; r, z, n go into ``act`` and the
    hidden projection into ``gh``."""
    hidden = h.shape[1]
    np.matmul(h, w_t, out=gh)
    if b is not None:
        gh += b
    rz = np.add(xg[:, :2 * hidden], gh[:, :2 * hidden], out=act[:, :2 * hidden])
    slab = act.size
    _gate_sigmoid(rz, slab)  # one pass over r and z together
    r, z, n = _chunks3(act, hidden)
    np.multiply(gh[:, 2 * hidden:], r, out=n)
    n += xg[:, 2 * hidden:]  # PyTorch's order: xg_n + (gh_n * r)
    _gate_tanh(n, slab, out=n)
    h_new = np.subtract(h, n, out=out)
    h_new *= z
    h_new += n
    return h_new


def _chunks3(a, hidden):
    return a[:, :hidden], a[:, hidden:2 * hidden], a[:, 2 * hidden:]


def _gru_grads(g, act, gh, h, dx, dgh):
    """d xg into ``dx`` and d gh into ``dgh`` on ndarrays; returns g z (the gradient
    reaching h directly, to which the caller adds d gh W_hh)."""
    hidden = h.shape[1]
    r, z, n = _chunks3(act, hidden)
    dr, dz, dn = _chunks3(dx, hidden)
    one = scalar_array(1, act.dtype)
    gomz = np.subtract(one, z)
    gomz *= g
    np.multiply(n, n, out=dn)
    np.subtract(one, dn, out=dn)
    dn *= gomz  # tanh' times g (1 - z)
    np.subtract(h, n, out=dz)
    dz *= gomz
    dz *= z
    np.subtract(one, r, out=dr)
    dr *= r  # sigmoid'
    dr *= gh[:, 2 * hidden:]
    dr *= dn
    dgh[:, :2 * hidden] = dx[:, :2 * hidden]
    np.multiply(dn, r, out=dgh[:, 2 * hidden:])
    return np.multiply(g, z, out=gomz)


def _gru_layer_grads(g_out, g_h, ctx, w, need_h0):
    """(d xg, d gh (both T, B, 3H), d h0) on ndarrays, stepping back through time."""
    act, gh, h_in = ctx.act, ctx.gh, ctx.h_in
    dx, dgh = np.empty_like(act), np.empty_like(act)
    steps = act.shape[0]
    order = range(steps) if ctx.reverse else range(steps - 1, -1, -1)
    dh = g_h
    for k, t in enumerate(order):
        dh = _gru_grads(g_out[t] + dh, act[t], gh[t], h_in[t], dx[t], dgh[t])
        if k < steps - 1 or need_h0:  # NOTE: h0's gradient only when asked for
            dh += np.matmul(dgh[t], w)
    return dx, dgh, dh


# ---- the same in Tensor ops (create_graph) -------------------------------------------------
def gru_pointwise(gi, gh, h):
    """h' from the input and hidden projections [r z n] (``gh`` with b_hh), in composed
    Tensor ops."""
    # NOTE: operands in PyTorch's order (the graph's edges follow it; the values are the same)
    i_r, i_z, i_n = _unsafe_chunk(gi, 3)
    h_r, h_z, h_n = _unsafe_chunk(gh, 3)
    r = (h_r + i_r).sigmoid()
    z = (h_z + i_z).sigmoid()
    n = (i_n + h_n * r).tanh()
    return (h - n) * z + n


def _hidden_gates(h, w, b):
    gh = h.matmul(w.t())
    return gh if b is None else gh + b


def _gru_grads_graph(g, xg, h, w, b):
    """(d xg, d gh, d h) in Tensor ops, recomputing the step from its inputs."""
    from .shape import cat
    i_r, i_z, i_n = xg.chunk(3, 1)
    h_r, h_z, h_n = _hidden_gates(h, w, b).chunk(3, 1)
    r, z = (i_r + h_r).sigmoid(), (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    gomz = g * (1 - z)
    dn = gomz * (1 - n * n)
    dz = gomz * (h - n) * z
    dr = dn * h_n * r * (1 - r)
    dgh = cat([dr, dz, dn * r], 1)
    return cat([dr, dz, dn], 1), dgh, g * z + dgh.matmul(w)


def _gru_layer_grads_graph(g_out, g_h, xg, h0, w, b, reverse):
    """``_gru_layer_grads`` in Tensor ops, from the recomputed states; also the states
    entering each step, stacked."""
    from .shape import stack
    steps = xg.shape[0]
    forward = range(steps - 1, -1, -1) if reverse else range(steps)
    hs, h = [None] * steps, h0
    for t in forward:
        hs[t] = h
        h = gru_pointwise(xg[t], _hidden_gates(h, w, b), h)
    dxs, dghs = [None] * steps, [None] * steps
    dh = g_h
    for t in reversed(forward):
        dxs[t], dghs[t], dh = _gru_grads_graph(g_out[t] + dh, xg[t], hs[t], w, b)
    return stack(dxs, 0), stack(dghs, 0), dh, stack(hs, 0)
