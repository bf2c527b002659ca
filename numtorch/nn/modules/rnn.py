"""Recurrent layers: ``RNN``, ``LSTM`` (with projections), ``GRU`` and their cells.

Multi-layer, bidirectional, ``batch_first``, inter-layer dropout (PyTorch's random stream),
unbatched inputs and ``PackedSequence`` inputs (``nn.utils.rnn``), with the cell equations of
PyTorch's CPU kernels; all weights start from U(-1/sqrt(hidden), 1/sqrt(hidden)) drawn in
registration order, as PyTorch draws them.

As PyTorch does, the input projection x W_ih^T + b of a whole layer is one matmul before the
time loop. An LSTM layer without projections is then one op (``ops.rnn_cells.LSTMLayerFused``,
PyTorch's MkldnnRnnLayer), other LSTMs one fused op per step; a GRU layer is one op too
(``GRULayerFused``), a packed GRU one fused op per step; RNN steps are composed of
differentiable Tensor ops. Under forward AD or vmap (no rules for the fused ops) every step
is composed.

>>> import numtorch as torch
>>> lstm = torch.nn.LSTM(3, 4, num_layers=2, batch_first=True)
>>> out, (h, c) = lstm(torch.zeros(2, 5, 3))
>>> out.shape, h.shape
(torch.Size([2, 5, 4]), torch.Size([2, 2, 4]))
"""
import math
import warnings

from .. import functional as F
from .. import init
from ._factory import new_param
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ---- cell equations (PyTorch's CPU cells) -------------------------------------------------
def _lin(x, w, b):
    return F.linear(x, w, b)


def rnn_tanh_cell(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    return (_lin(h, w_hh, b_hh) + _lin(x, w_ih, b_ih)).tanh()


def rnn_relu_cell(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    return (_lin(h, w_hh, b_hh) + _lin(x, w_ih, b_ih)).relu()


def lstm_cell(x, hc, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
    """(h', c') with gates i, f, g, o from x W_ih^T + b_ih + h W_hh^T + b_hh."""
    from ...ops.rnn_cells import lstm_pointwise
    h, c = hc
    hy, cy = lstm_pointwise(_lin(h, w_hh, b_hh) + _lin(x, w_ih, b_ih), c)
    if w_hr is not None:
        hy = _lin(hy, w_hr, None)
    return hy, cy


def gru_cell(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' = n + z (h - n) with r, z, n from the input and hidden projections."""
    from ...ops.rnn_cells import gru_pointwise
    return gru_pointwise(_lin(x, w_ih, b_ih), _lin(h, w_hh, b_hh), h)


# ---- the time loop's steps, on the input projection of the whole sequence -----------------
def _input_projection(x, w_ih, b_ih, b_hh, mode):
    """x W_ih^T + b for every time step in one matmul (as PyTorch's CPU RNNs do); the hidden
    bias is folded in except for GRU, whose n gate scales it by r."""
    bias = b_ih
    if b_hh is not None and mode != "GRU":
        bias = b_ih + b_hh
    flat = x.reshape(-1, x.shape[-1])
    return F.linear(flat, w_ih, bias).reshape(*x.shape[:-1], w_ih.shape[0])


def _step_fn(mode, params):
    """``step(xg_t, state) -> state`` for one layer and direction."""
    from ...ops import _base
    from ...ops.rnn_cells import LSTMCellFused, lstm_pointwise
    w_hh, b_hh = params[1], params[3]
    if mode == "LSTM":
        w_hr = params[4]
        # NOTE: forward AD and vmap see the composed cell (they have no rule for the fused op)
        fused = _base._interpose is None
        w_t = w_hh.detach().t().contiguous() if fused else None

        def lstm_step(xg, hc):
            if fused:
                h, c = LSTMCellFused.apply(xg, hc[0], hc[1], w_hh, w_t)
            else:
                h, c = lstm_pointwise(xg + F.linear(hc[0], w_hh, None), hc[1])
            return (h if w_hr is None else F.linear(h, w_hr, None)), c
        return lstm_step
    if mode == "GRU":
        return _gru_step_fn(w_hh, b_hh)
    w_hh_t = w_hh.t()  # one transpose for all steps
    act = "tanh" if mode == "RNN_TANH" else "relu"
    # b_hh is folded into xg: the hidden projection is one addmm onto it
    return lambda xg, h: getattr(_addmm(xg, h, w_hh_t), act)()


def _gru_step_fn(w_hh, b_hh):
    """The GRU step: the fused cell op, or composed ops under forward AD and vmap (no rule
    for the fused op) or for a state of another dtype."""
    from ...ops import _base
    from ...ops.rnn_cells import GRUCellFused, gru_pointwise
    fused = _base._interpose is None
    w_t = w_hh.detach().t().contiguous() if fused else None
    w_hh_t = w_hh.t()

    def gru_step(xg, h):
        if fused and h.dtype == xg.dtype:
            return GRUCellFused.apply(xg, h, w_hh, b_hh, w_t)
        return gru_pointwise(xg, _hidden_proj(h, w_hh_t, b_hh), h)
    return gru_step


def _whole_layer(xg, state, params, mode):
    """Whether a fused layer op runs this layer: an LSTM without projection or a GRU, over a
    dense non-empty sequence of one dtype, without forward AD or vmap (no rule for it)."""
    from ...ops import _base
    dt = xg.dtype
    if mode == "LSTM":
        if params[4] is not None or state[1].dtype != dt:
            return False
        state = state[0]
    elif mode != "GRU":
        return False
    return xg.shape[0] > 0 and _base._interpose is None and state.dtype == dt and \
        params[1].dtype == dt


def _lstm_layer(xg, state, w_hh, reverse):
    from ...ops.rnn_cells import LSTMLayerFused
    w_t = w_hh.detach().t().contiguous()
    out, h, c = LSTMLayerFused.apply(xg, state[0], state[1], w_hh, w_t, reverse)
    return out, (h, c)


def _gru_layer(xg, h0, w_hh, b_hh, reverse):
    from ...ops.rnn_cells import GRULayerFused
    w_t = w_hh.detach().t().contiguous()
    return GRULayerFused.apply(xg, h0, w_hh, b_hh, w_t, reverse)


def _addmm(c, a, b):
    from ... import addmm
    return addmm(c, a, b)


def _hidden_proj(h, w_hh_t, b_hh):
    if b_hh is None:
        return h.matmul(w_hh_t)
    return _addmm(b_hh, h, w_hh_t)


class RNNBase(Module):
    """Shared parameters, checks and the layer/direction/time loop of RNN, LSTM and GRU."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        self.proj_size = proj_size
        _check_rnn_args(self, mode, dropout, num_layers, hidden_size, proj_size)
        self._flat_weights_names, self._all_weights = [], []
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        for layer in range(num_layers):
            for direction in range(directions):
                in_size = input_size if layer == 0 else real_hidden * directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [("weight_ih", (gate_size, in_size)),
                          ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for name, shape in shapes:
                    setattr(self, name + suffix, new_param(*shape, device=device,
                                                           dtype=dtype))
                    names.append(name + suffix)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op (cuDNN weight layout), kept for compatibility."""

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ---- checks -----------------------------------------------------------------------
    def check_input(self, input, batch_sizes=None):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w.dtype}). Convert input: input.to({w.dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def _expected_hidden(self, input, size):
        batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    @staticmethod
    def check_hidden_size(hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != expected:
            raise RuntimeError(msg.format(expected, list(hx.size())))

    # ---- the recurrence ---------------------------------------------------------------
    def _layer_params(self, layer, direction):
        names = self._all_weights[layer * (2 if self.bidirectional else 1) + direction]
        params = {n.split("_l")[0]: getattr(self, n) for n in names}
        args = [params["weight_ih"], params["weight_hh"], params.get("bias_ih"),
                params.get("bias_hh")]
        if self.mode == "LSTM":
            args.append(params.get("weight_hr"))
        return args

    def _run(self, x, hidden, batch_sizes=None):
        """x: (T, B, I) time-major, or packed data (sum of lengths, I) with ``batch_sizes``;
        hidden: list per layer*direction of h or (h, c)."""
        from ... import cat
        directions = 2 if self.bidirectional else 1
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(directions):
                k = layer * directions + direction
                out, state = self._direction(x, hidden[k], self._layer_params(layer, direction),
                                             direction == 1, batch_sizes)
                finals.append(state)
                outs.append(out)
            x = outs[0] if directions == 1 else cat(outs, x.dim() - 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, finals

    def _direction(self, x, state, params, reverse, batch_sizes):
        """(outputs, final state) of one layer in one direction."""
        from ... import stack
        lstm = self.mode == "LSTM"
        xg = _input_projection(x, params[0], params[2], params[3], self.mode)
        if batch_sizes is None and _whole_layer(xg, state, params, self.mode):
            if lstm:
                return _lstm_layer(xg, state, params[1], reverse)
            return _gru_layer(xg, state, params[1], params[3], reverse)
        step = _step_fn(self.mode, params)
        if batch_sizes is not None:
            run = _packed_reverse if reverse else _packed_forward
            return run(step, xg.split(batch_sizes), batch_sizes, state, lstm)
        pieces = xg.unbind(0)
        steps = range(len(pieces) - 1, -1, -1) if reverse else range(len(pieces))
        seq = [None] * len(pieces)
        for t in steps:
            state = step(pieces[t], state)
            seq[t] = state[0] if lstm else state
        return stack(seq, 0), state

    def permute_hidden(self, hx, permutation):
        """The hidden state with its batch (dim 1) reordered by ``permutation``."""
        if permutation is None:
            return hx
        if self.mode == "LSTM":
            return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)
        return hx.index_select(1, permutation)

    def _forward_packed(self, packed, hx, real_hidden):
        """Forward of a PackedSequence: (PackedSequence output, final hidden state)."""
        from ... import float32, stack, zeros
        from ..utils.rnn import PackedSequence
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        sizes = batch_sizes.tolist()
        dirs = 2 if self.bidirectional else 1
        lstm = self.mode == "LSTM"
        if hx is None:
            h0 = zeros(self.num_layers * dirs, sizes[0], real_hidden, dtype=data.dtype)
            hx = (h0, zeros(self.num_layers * dirs, sizes[0], self.hidden_size,
                            dtype=data.dtype)) if lstm else h0
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        if lstm and isinstance(hx, (tuple, list)):
            hx = _packed_lstm_checks(self, data, sizes[0], hx)
        else:
            self.check_input(data, sizes)
        exp = (self.num_layers * dirs, sizes[0])
        if lstm:
            self.check_hidden_size(hx[0], exp + (real_hidden,),
                                   "Expected hidden[0] size {}, got {}")
            self.check_hidden_size(hx[1], exp + (self.hidden_size,),
                                   "Expected hidden[1] size {}, got {}")
            states = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
        else:
            self.check_hidden_size(hx, exp + (real_hidden,))
            states = list(hx.unbind(0))
        if lstm and not self.proj_size and data.dtype is float32 and min(sizes) == sizes[0]:
            # NOTE: PyTorch's kernel runs a float32 LSTM over equally long sequences as a
            # padded batch (its oneDNN path), so the output data comes back through a view
            out, finals = self._run(data.view(len(sizes), sizes[0], -1), states)
            out = out.view(-1, out.size(-1))
        else:
            out, finals = self._run(data, states, sizes)
        hidden = (stack([f[0] for f in finals], 0), stack([f[1] for f in finals], 0)) \
            if lstm else stack(finals, 0)
        return (PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices),
                self.permute_hidden(hidden, unsorted_indices))

    def _forward(self, input, hx, real_hidden):
        """Shared forward: batching, default states, checks, then the recurrence."""
        from ... import stack, zeros
        if input.dim() not in (2, 3):
            # NOTE: the class is named after the mode, not type(self) (a user's subclass);
            # PyTorch's RNN message alone says "tensor"
            name = "RNN" if self.mode.startswith("RNN") else self.mode
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             f"{'tensor ' if name == 'RNN' else ''}instead")
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        hx = _batch_hidden(hx, batched, self.mode == "LSTM")
        self.check_input(input)
        exp_h = self._expected_hidden(input, real_hidden)
        if hx is None:
            h0 = zeros(*exp_h, dtype=input.dtype)
            hx = (h0, zeros(*self._expected_hidden(input, self.hidden_size),
                            dtype=input.dtype)) if self.mode == "LSTM" else h0
        if self.mode == "LSTM":
            self.check_hidden_size(hx[0], exp_h, "Expected hidden[0] size {}, got {}")
            self.check_hidden_size(hx[1], self._expected_hidden(input, self.hidden_size),
                                   "Expected hidden[1] size {}, got {}")
            states = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
        else:
            self.check_hidden_size(hx, exp_h)
            states = list(hx.unbind(0))
        x = input.transpose(0, 1) if self.batch_first else input
        if x.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        out, finals = self._run(x, states)
        if self.batch_first:
            # NOTE: PyTorch's LSTM transposes its output back, its GRU and RNN in place
            # (TransposeBackward0 vs TransposeBackward1)
            out = out.transpose(0, 1) if self.mode == "LSTM" else out.transpose_(0, 1)
        if self.mode == "LSTM":
            hidden = (stack([f[0] for f in finals], 0), stack([f[1] for f in finals], 0))
        else:
            hidden = stack(finals, 0)
        if not batched:
            out = out.squeeze(batch_dim)
            hidden = tuple(h.squeeze(1) for h in hidden) if self.mode == "LSTM" else \
                hidden.squeeze(1)
        return out, hidden


# ---- packed sequences (PyTorch's PackedLayer / ReversedPackedLayer) -----------------------
def _packed_lstm_checks(m, data, batch, hx):
    """PyTorch's LSTM skips its Python checks for a PackedSequence, so a bad input or state
    fails in the kernel instead: its checks and messages, in its order. Returns (h0, c0) as
    the kernel reads them (a one-row c0 broadcasts, extra c0 layers go unread)."""
    from ..._dtype import SCALAR_NAMES
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    h, c = hx
    for t in (h, c):  # the kernel reads size(2) of both to see whether there are projections
        if t.dim() == 0:
            raise IndexError("dimension specified as 2 but tensor has no dimensions")
        if t.dim() < 3:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-t.dim()}, {t.dim() - 1}], but got 2)")
    per_cell = (4 if m.bias else 2) + (h.size(2) != c.size(2))
    if len(m._flat_weights) % per_cell:
        raise RuntimeError("got an incorrect number of RNN parameters")
    layers = h.size(0)
    if m.bidirectional:
        if layers % 2:
            raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
        layers //= 2
    if layers != m.num_layers:
        raise RuntimeError("Expected more hidden states in stacked_rnn")

    def matmul_check(x, w):  # x @ w.T, as the kernel's linear checks it
        if x.dtype != w.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{SCALAR_NAMES[x.dtype]} and {SCALAR_NAMES[w.dtype]}")
        if x.size(-1) != w.size(1):
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                               f"({x.numel() // max(x.size(-1), 1)}x{x.size(-1)} and "
                               f"{w.size(1)}x{w.size(0)})")
    matmul_check(data, m.weight_ih_l0)  # the whole layer's input projection comes first
    matmul_check(h[0], m.weight_hh_l0)
    gates = 4 * m.hidden_size
    if h.size(1) != batch:  # (h W_hh^T).add_(input gates of the first step)
        if h.size(1) == 1:
            raise RuntimeError(f"output with shape [1, {gates}] doesn't match the broadcast "
                               f"shape [{batch}, {gates}]")
        raise RuntimeError(f"The size of tensor a ({h.size(1)}) must match the size of "
                           f"tensor b ({batch}) at non-singleton dimension 0")
    if c.size(1) not in (batch, 1):  # forget gate * c0
        raise RuntimeError(f"The size of tensor a ({batch}) must match the size of tensor b "
                           f"({c.size(1)}) at non-singleton dimension 0")
    if c.size(0) != h.size(0) or c.size(1) != batch:
        c = c[:h.size(0)].expand(h.size(0), batch, c.size(2))
    return h, c


def _slice_state(state, start, stop):
    if isinstance(state, tuple):
        return tuple(s[start:stop] for s in state)
    return state[start:stop]


def _cat_states(states):
    from ... import cat
    if isinstance(states[0], tuple):
        return tuple(cat([s[k] for s in states], 0) for k in range(len(states[0])))
    return cat(states, 0)


def _packed_forward(step, pieces, batch_sizes, state, lstm):
    """Steps forward; a sequence's final state is set aside when the batch shrinks past it."""
    from ... import cat
    outs, ended, last = [], [], batch_sizes[0]
    for size, piece in zip(batch_sizes, pieces):
        if size < last:
            ended.append(_slice_state(state, size, last))
            state = _slice_state(state, 0, size)
        last = size
        state = step(piece, state)
        outs.append(state[0] if lstm else state)
    ended.append(state)
    return cat(outs, 0), _cat_states(ended[::-1])


def _packed_reverse(step, pieces, batch_sizes, initial, lstm):
    """Steps backward from the end; a sequence joins (from ``initial``) at its last step."""
    from ... import cat
    last = batch_sizes[-1]
    state, outs = _slice_state(initial, 0, last), []
    for size, piece in zip(reversed(batch_sizes), reversed(pieces)):
        if size > last:
            state = _cat_states([state, _slice_state(initial, last, size)])
        last = size
        state = step(piece, state)
        outs.append(state[0] if lstm else state)
    return cat(outs[::-1], 0), state


def _check_rnn_args(m, mode, dropout, num_layers, hidden_size, proj_size):
    if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or \
            not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
    if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable "
                         "projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")
    if proj_size and mode != "LSTM":
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


def _is_packed(input):
    from ..utils.rnn import PackedSequence
    return isinstance(input, PackedSequence)


def _batch_hidden(hx, batched, lstm):
    if hx is None:
        return None
    if lstm:
        if batched and (hx[0].dim() != 3 or hx[1].dim() != 3):
            raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but got "
                               f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        if not batched and (hx[0].dim() != 2 or hx[1].dim() != 2):
            raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but "
                               f"got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        return hx if batched else (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
    if batched and hx.dim() != 3:
        raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                           f"{hx.dim()}-D tensor")
    if not batched and hx.dim() != 2:
        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                           f"{hx.dim()}-D tensor")
    return hx if batched else hx.unsqueeze(1)


class RNN(RNNBase):
    """Elman RNN: h' = tanh (or relu)(x W_ih^T + b_ih + h W_hh^T + b_hh).

    >>> RNN(3, 5, num_layers=2, nonlinearity='relu')
    RNN(3, 5, num_layers=2)
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity, args = args[3], args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if nonlinearity not in modes:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__(modes[nonlinearity], *args, **kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if _is_packed(input):
            return self._forward_packed(input, hx, self.hidden_size)
        return self._forward(input, hx, self.hidden_size)


class LSTM(RNNBase):
    """Long short-term memory; returns (output, (h_n, c_n)).

    >>> LSTM(3, 6, proj_size=2, bidirectional=True)
    LSTM(3, 6, proj_size=2, bidirectional=True)
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        real = self.proj_size if self.proj_size > 0 else self.hidden_size
        if _is_packed(input):
            return self._forward_packed(input, hx, real)
        return self._forward(input, hx, real)


class GRU(RNNBase):
    """Gated recurrent unit; returns (output, h_n).

    >>> GRU(3, 4, batch_first=True, dropout=0.2, num_layers=2)
    GRU(3, 4, num_layers=2, batch_first=True, dropout=0.2)
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        if _is_packed(input):
            return self._forward_packed(input, hx, self.hidden_size)
        return self._forward(input, hx, self.hidden_size)


class RNNCellBase(Module):
    """Parameters of a single recurrent cell (``num_chunks`` gates)."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = new_param(num_chunks * hidden_size, input_size, device=device,
                                   dtype=dtype)
        self.weight_hh = new_param(num_chunks * hidden_size, hidden_size, device=device,
                                   dtype=dtype)
        if bias:
            self.bias_ih = new_param(num_chunks * hidden_size, device=device, dtype=dtype)
            self.bias_hh = new_param(num_chunks * hidden_size, device=device, dtype=dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batch(self, input, name):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        return input.dim() == 2, input if input.dim() == 2 else input.unsqueeze(0)

    def _params(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh

    def _check_sizes(self, x, *hidden):
        """PyTorch's cell checks on the (batched) input and hidden states, in its order."""
        if x.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {x.size(1)} expected "
                               f"{self.input_size}")
        for label, h in enumerate(hidden):
            if h.dim() < 2:  # (an unbatched input's unsqueezed hidden state is at least 2-D)
                continue
            if x.size(0) != h.size(0):
                raise RuntimeError(f"Input batch size {x.size(0)} doesn't match hidden{label} "
                                   f"batch size {h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got "
                                   f"{h.size(1)}, expected {self.hidden_size}")


class RNNCell(RNNCellBase):
    """One Elman RNN step.

    >>> RNNCell(3, 2, nonlinearity='relu')
    RNNCell(3, 2, nonlinearity=relu)
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        from ... import zeros
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                             "instead")
        batched, x = self._batch(input, "RNNCell")
        h = zeros(x.size(0), self.hidden_size, dtype=x.dtype) if hx is None else \
            (hx if batched else hx.unsqueeze(0))
        self._check_sizes(x, h)
        if self.nonlinearity == "tanh":
            out = rnn_tanh_cell(x, h, *self._params())
        elif self.nonlinearity == "relu":
            out = rnn_relu_cell(x, h, *self._params())
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns (h', c').

    >>> LSTMCell(3, 2)
    LSTMCell(3, 2)
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        from ... import zeros
        if hx is not None:
            for i, v in enumerate(hx):
                if v.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{i}] to be 1D or 2D, got "
                                     f"{v.dim()}D instead")
        batched, x = self._batch(input, "LSTMCell")
        if hx is None:
            z = zeros(x.size(0), self.hidden_size, dtype=x.dtype)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        elif len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        self._check_sizes(x, *hx)
        h, c = lstm_cell(x, hx, *self._params())
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step.

    >>> GRUCell(3, 2, bias=False)
    GRUCell(3, 2, bias=False)
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        from ... import zeros
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                             "instead")
        batched, x = self._batch(input, "GRUCell")
        h = zeros(x.size(0), self.hidden_size, dtype=x.dtype) if hx is None else \
            (hx if batched else hx.unsqueeze(0))
        self._check_sizes(x, h)
        out = gru_cell(x, h, *self._params())
        return out if batched else out.squeeze(0)
