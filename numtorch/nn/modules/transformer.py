"""``MultiheadAttention`` and the Transformer family (encoder/decoder layers and stacks).

Parameters are created and initialised in PyTorch's order (so the same seed gives the same
weights, including the deep-copied identical layers of ``TransformerEncoder``); attention is
the explicit softmax(q k^T / sqrt(d) + mask) v computation PyTorch's reference path uses.

>>> import numtorch as torch
>>> mha = torch.nn.MultiheadAttention(4, 2, batch_first=True)
>>> out, w = mha(torch.ones(3, 5, 4), torch.ones(3, 6, 4), torch.ones(3, 6, 4))
>>> out.shape, w.shape
(torch.Size([3, 5, 4]), torch.Size([3, 5, 6]))
"""
import copy
import math
import warnings

from ... import _dtype as D
from .. import functional as F
from ...ops.linalg import MatmulND
from .. import init
from ._factory import new_param
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection of MultiheadAttention (a Linear, named as in PyTorch)."""


def _canonical_mask(mask, name, target_dtype):
    """Bool masks become additive float masks (-inf where True), as PyTorch does."""
    if mask is None:
        return None
    if mask.dtype is not D.bool_ and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if mask.dtype is D.bool_:
        from ... import zeros_like
        return zeros_like(mask, dtype=target_dtype).masked_fill(mask, float("-inf"))
    return mask


def _project(query, key, value, mha):
    """q, k, v projections: packed weights take one matmul for self-attention and one for
    a shared key/value (as PyTorch's ``_in_projection_packed``), else one each."""
    b = mha.in_proj_bias
    if mha._qkv_same_embed_dim:
        w = mha.in_proj_weight
        if query is key and key is value:
            return F.linear(query, w, b).chunk(3, -1)
        if key is value:
            e = mha.embed_dim
            bq, bkv = (None, None) if b is None else b.split([e, 2 * e])
            wq, wkv = w.split([e, 2 * e])
            return (F.linear(query, wq, bq),) + F.linear(key, wkv, bkv).chunk(2, -1)
        wq, wk, wv = w.chunk(3)
    else:
        wq, wk, wv = mha.q_proj_weight, mha.k_proj_weight, mha.v_proj_weight
    bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
    return F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)


def _attn_mask(attn_mask, tgt, src, bsz, heads):
    if attn_mask is None:
        return None
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt, src):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt, src)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * heads, tgt, src):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(bsz * heads, tgt, src)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _plain_keys(mha):
    """Whether keys and values are just the projections (no extra rows, no static ones)."""
    return mha.bias_k is None and not mha.add_zero_attn and \
        getattr(mha, "static_k", None) is None and getattr(mha, "static_v", None) is None


def _split_heads(t, bsz, heads, head_dim):
    """(L, B, E) -> (B, H, L, hd), a view (the batched matmuls take its strides as they are)."""
    return t.unflatten(-1, (heads, head_dim)).permute(1, 2, 0, 3)


def _extend_keys(k, v, mask, kpm, mha, bsz, heads, head_dim):
    """bias_k/bias_v rows and the zero-attention slot (add_zero_attn), masks padded along;
    k, v come back as (B, H, S, hd)."""
    from ... import cat, zeros
    if mha.bias_k is not None:
        k = cat([k, mha.bias_k.repeat(1, bsz, 1)])
        v = cat([v, mha.bias_v.repeat(1, bsz, 1)])
        mask = None if mask is None else F.pad(mask, (0, 1))
        kpm = None if kpm is None else F.pad(kpm, (0, 1))
    k = k.reshape(k.shape[0], bsz * heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * heads, head_dim).transpose(0, 1)
    # F.multi_head_attention_forward's static_k / static_v replace the projected keys/values
    k = k if getattr(mha, "static_k", None) is None else mha.static_k
    v = v if getattr(mha, "static_v", None) is None else mha.static_v
    if mha.add_zero_attn:
        z = zeros(bsz * heads, 1, head_dim, dtype=k.dtype)
        k, v = cat([k, z], 1), cat([v, z], 1)
        mask = None if mask is None else F.pad(mask, (0, 1))
        kpm = None if kpm is None else F.pad(kpm, (0, 1))
    k = k.reshape(bsz, heads, k.shape[1], head_dim)
    v = v.reshape(bsz, heads, v.shape[1], head_dim)
    return k, v, mask, kpm


def _merged_mask(mask, kpm, bsz, heads, src):
    """attn_mask ((1 or B*H), T, S) plus key_padding_mask (B, S), shaped to broadcast over
    the (B, H, T, S) scores."""
    if mask is not None and mask.shape[0] != 1:
        mask = mask.view(bsz, heads, mask.shape[1], src)
    if kpm is None:
        return mask
    if kpm.shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                             f"{kpm.shape[0]}")
    if kpm.shape[1] != src:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src}, but got "
                             f"{kpm.shape[1]}")
    kpm = kpm.view(bsz, 1, 1, src)
    return kpm if mask is None else mask + kpm


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """PyTorch's dimension checks on the attention inputs, before unbatched ones get a batch."""
    b = query.dim() == 3
    kind, n = ("batched (3-D)", 3) if b else ("unbatched (2-D)", 2)
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    if key.dim() != n or value.dim() != n:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {n}-D but "
                             f"found {key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != n - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{n - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or "
                                 f"3-D but found {attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not b and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")


def _check_key_value(mha, key, value, batch_first, bsz):
    """Key and value must agree (in sequence and batch only, with separate projections) and
    have the query's batch; shapes are named sequence-first, as PyTorch's functional form sees
    them, and a batch mismatch fails where PyTorch's does (in a cat or a view)."""
    ks, vs = key.shape, value.shape
    if batch_first:
        ks, vs = key.transpose(0, 1).shape, value.transpose(0, 1).shape
    if not mha._qkv_same_embed_dim:
        if ks[:2] != vs[:2]:
            raise AssertionError(f"key's sequence and batch dims {ks[:2]} do not match "
                                 f"value's {vs[:2]}")
    elif ks != vs:
        raise AssertionError(f"key shape {ks} does not match value shape {vs}")
    if ks[1] != bsz and getattr(mha, "static_k", None) is None:
        if mha.bias_k is not None:
            raise RuntimeError(f"Sizes of tensors must match except in dimension 0. Expected "
                               f"size {ks[1]} but got size {bsz} for tensor number 1 in the "
                               f"list.")
        raise RuntimeError(f"shape '[{ks[0]}, {bsz * mha.num_heads}, {mha.head_dim}]' is "
                           f"invalid for input of size {ks[0] * ks[1] * mha.embed_dim}")


def _check_attention(mha, query, key_padding_mask, attn_mask, is_causal):
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if key_padding_mask is not None and attn_mask is not None and \
            key_padding_mask.dtype != attn_mask.dtype:
        warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. Use "
                      "same type for both instead.", stacklevel=5)
    if query.shape[-1] != mha.embed_dim:
        raise AssertionError(f"was expecting embedding dimension of {mha.embed_dim}, but got "
                             f"{query.shape[-1]}")


def _unbatched(query, key, value, key_padding_mask):
    if key_padding_mask is not None:
        key_padding_mask = key_padding_mask.unsqueeze(0)
    if key is query and value is query:  # keep self-attention recognisable
        query = key = value = query.unsqueeze(1)
        return query, key, value, key_padding_mask
    return query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1), key_padding_mask


def multi_head_attention(mha, query, key, value, key_padding_mask, need_weights, attn_mask,
                         average_attn_weights, is_causal, batch_first=False):
    """Multi-head attention of ``mha`` (PyTorch's reference computation), sequence-first
    unless ``batch_first`` (which, as in PyTorch, unbatched inputs ignore).

    Heads are (B, H, L, hd) views of the projections: the score and value products are
    batched matmuls over (B, H) that read those strides, so no head is copied out. Batch-first
    inputs are projected as they are laid out (no transposed copy).
    """
    _mha_shape_check(query, key, value, key_padding_mask, attn_mask, mha.num_heads)
    batched = query.dim() == 3
    if not batched:
        query, key, value, key_padding_mask = _unbatched(query, key, value, key_padding_mask)
    bf = batch_first and batched
    tgt, bsz, e = (query.shape[1], query.shape[0], query.shape[2]) if bf else query.shape
    heads, head_dim = mha.num_heads, mha.head_dim
    _check_attention(mha, query, key_padding_mask, attn_mask, is_causal)
    _check_key_value(mha, key, value, bf, bsz)
    kpm = _canonical_mask(key_padding_mask, "key_padding_mask", query.dtype)
    mask = _canonical_mask(attn_mask, "attn_mask", query.dtype)
    q, k, v = _project(query, key, value, mha)
    if bf:
        q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
    mask = _attn_mask(mask, tgt, k.shape[0], bsz, heads)
    if _plain_keys(mha):
        k, v = _split_heads(k, bsz, heads, head_dim), _split_heads(v, bsz, heads, head_dim)
    else:
        k, v, mask, kpm = _extend_keys(k, v, mask, kpm, mha, bsz, heads, head_dim)
    mask = _merged_mask(mask, kpm, bsz, heads, k.shape[2])
    q = _split_heads(q, bsz, heads, head_dim) * math.sqrt(1.0 / float(head_dim))
    scores = MatmulND.apply(q, k.transpose(-2, -1))
    if mask is not None:
        scores = scores + mask
    weights = F.softmax(scores, -1)
    if mha.dropout > 0.0 and mha.training:
        weights = F.dropout(weights, mha.dropout)
    out = _output_projection(mha, MatmulND.apply(weights, v), bf)
    if not need_weights:
        return (out if batched else out.squeeze(1)), None
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not batched:
        return out.squeeze(1), weights.squeeze(0)
    return out, weights


def _output_projection(mha, heads_out, batch_first):
    """(B, H, T, hd) -> out_proj of the joined heads, (T, B, E) or its (B, T, E) view.

    NOTE: batch-first output stays a transposed view of a (T, B, E) array, as PyTorch's:
    a following dropout draws its mask in memory order, so the layout decides the numbers.
    """
    b, h, t, d = heads_out.shape
    out = heads_out.permute(2, 0, 1, 3).reshape(t * b, h * d)
    out = F.linear(out, mha.out_proj.weight, mha.out_proj.bias).view(t, b, -1)
    return out.transpose(0, 1) if batch_first else out


class MultiheadAttention(Module):
    """Multi-head scaled dot-product attention with input and output projections.

    >>> MultiheadAttention(8, 2)
    MultiheadAttention(
      (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)
    )
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim="
                             f"{embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        kw = {"device": device, "dtype": dtype}
        self._make_projections(embed_dim, bias, kw)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = new_param(1, 1, embed_dim, **kw)
            self.bias_v = new_param(1, 1, embed_dim, **kw)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _make_projections(self, e, bias, kw):
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = new_param(e, e, **kw)
            self.k_proj_weight = new_param(e, self.kdim, **kw)
            self.v_proj_weight = new_param(e, self.vdim, **kw)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = new_param(3 * e, e, **kw)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        if bias:
            self.in_proj_bias = new_param(3 * e, **kw)
        else:
            self.register_parameter("in_proj_bias", None)

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        return multi_head_attention(self, query, key, value, key_padding_mask, need_weights,
                                    attn_mask, average_attn_weights, is_causal,
                                    self.batch_first)


def _activation(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if isinstance(activation, str):
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with residual and LayerNorm.

    >>> TransformerEncoderLayer(4, 2, dim_feedforward=8).linear1
    Linear(in_features=4, out_features=8, bias=True)
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        self.activation = _activation(activation)
        self.activation_relu_or_gelu = 1 if self.activation is F.relu else \
            (2 if self.activation is F.gelu else 0)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """Self-attention, cross-attention over ``memory``, then a feed-forward block."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _nested_tensor_reason(layer):
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return (f"{name}.self_attn.batch_first was not True(use batch_first for better "
                "inference performance)")
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


def _arange_like(mask):
    """Column indices 0..S-1 of an (N, S) mask, shaped (1, S) to compare with lengths."""
    from ... import arange
    return arange(mask.shape[1]).unsqueeze(0)


_NESTED_WARNED = []  # PyTorch warns once per process (TORCH_WARN_ONCE)


def _warn_nested_prototype():
    """PyTorch's one-time warning when the encoder packs its input into a nested tensor."""
    if not _NESTED_WARNED:
        _NESTED_WARNED.append(True)
        warnings.warn("The PyTorch API of nested tensors is in prototype stage and will change "
                      "in the near future. We recommend specifying layout=torch.jagged when "
                      "constructing a nested tensor, as this layout receives active "
                      "development, has better operator coverage, and works with "
                      "torch.compile. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/NestedTensorImpl.cpp:177.)",
                      UserWarning, stacklevel=3)


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` (then an optional norm)."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        reason = _nested_tensor_reason(encoder_layer)
        if enable_nested_tensor and reason:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {reason}", stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """The layers in turn, then ``norm``. On PyTorch's nested-tensor path (see
        ``_nested_keep``) the padded positions of the result are zeros before ``norm``."""
        keep = self._nested_keep(src, mask, src_key_padding_mask)
        if keep is not None:
            # the layers attend over each sequence's kept prefix only, as on nested tensors
            src_key_padding_mask = keep.logical_not()
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, is_causal=bool(is_causal),
                        src_key_padding_mask=src_key_padding_mask)
        if keep is not None:
            out = out.masked_fill(src_key_padding_mask.unsqueeze(-1), 0.0)
        return self.norm(out) if self.norm is not None else out

    def _nested_keep(self, src, mask, src_key_padding_mask):
        """The (N, S) bool mask of the positions PyTorch keeps when it runs the stack on a
        nested tensor, or None when it takes the ordinary path.

        PyTorch packs the unpadded tokens into a nested tensor (eval mode, batched input,
        a padding mask and no attention mask, no gradient needed) and pads the result back
        with zeros. Each sequence keeps its first ``count(not padded)`` tokens: with
        ``mask_check`` a padding mask that is not left-aligned disables the path instead.
        """
        from ... import backends, is_grad_enabled
        layer = self.layers[0]
        if (not backends.mha.get_fastpath_enabled() or not self.use_nested_tensor
                or layer.training or src.dim() != 3 or src_key_padding_mask is None
                or mask is not None):
            return None
        attn = layer.self_attn
        params = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
                  attn.out_proj.bias, layer.norm1.weight, layer.norm1.bias, layer.norm2.weight,
                  layer.norm2.bias, layer.linear1.weight, layer.linear1.bias,
                  layer.linear2.weight, layer.linear2.bias)
        if is_grad_enabled() and any(p is not None and p.requires_grad for p in params):
            return None
        given = _canonical_mask(src_key_padding_mask, "src_key_padding_mask", src.dtype)
        given = given.logical_not()
        lengths = given.sum(1, keepdim=True)
        keep = _arange_like(given) < lengths
        if getattr(self, "mask_check", True) and not keep.equal(given):
            return None
        _warn_nested_prototype()
        if not bool(lengths.any()):
            raise RuntimeError("to_padded_tensor: at least one constituent tensor should "
                               "have non-zero numel")
        return keep


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer`` (then an optional norm)."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask)
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """The encoder-decoder Transformer; weights re-drawn with xavier_uniform_ as PyTorch."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        kw = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                  layer_norm_eps=layer_norm_eps, batch_first=batch_first,
                  norm_first=norm_first, bias=bias, device=device, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A float mask with -inf above the diagonal (0 elsewhere)."""
        from ... import full
        return full((sz, sz), float("-inf"), dtype=dtype).triu(diagonal=1)
