"""The ``torch.*`` spellings of nn ops, with ATen's signatures rather than
``torch.nn.functional``'s.

PyTorch exposes its native nn kernels at the top level too: ``torch.dropout(input, p,
train)`` (``train`` required), ``torch.batch_norm(input, weight, bias, running_mean,
running_var, training, momentum, eps, cudnn_enabled)``, ``torch.embedding(weight, indices)``
(weight first), losses taking ``reduction`` as an int (0 none, 1 mean, 2 sum; any other
value leaves the loss unreduced), ``torch.max_pool1d_with_indices`` always returning the
indices ... Each function here maps those arguments onto numtorch's functional op, so the
values and ``grad_fn`` nodes are the functional op's, and raises the native kernel's error
where it differs from the Python wrapper's.

NOTE: PyTorch 2.13's Python binding of these losses reads the documented default
``reduction=Mean`` as 0: called without ``reduction`` they return the unreduced loss, and
so do these.

>>> import numtorch as torch
>>> torch.embedding(torch.eye(3), torch.tensor([2, 0]))
tensor([[0., 0., 1.],
        [1., 0., 0.]])
>>> torch.margin_ranking_loss(torch.tensor([1.0]), torch.tensor([2.0]), torch.tensor([1.0]))
tensor([1.])
"""
import numpy as np

from .._tensor import Tensor
from ._base import BuiltinFunction

__all__ = ["dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
           "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
           "native_dropout", "batch_norm", "instance_norm", "embedding", "embedding_bag",
           "embedding_renorm_", "max_pool1d", "max_pool2d", "max_pool3d",
           "max_pool1d_with_indices", "adaptive_max_pool1d", "convolution", "kl_div",
           "binary_cross_entropy_with_logits", "cosine_embedding_loss",
           "hinge_embedding_loss", "margin_ranking_loss", "triplet_margin_loss",
           "poisson_nll_loss", "ctc_loss", "lstm_cell", "gru_cell", "rnn_tanh_cell",
           "rnn_relu_cell", "native_channel_shuffle"]


def _F():
    from ..nn import functional
    return functional


# ---- dropout --------------------------------------------------------------------------------
def _dropout(name, input, p, train, inplace, feature, alpha):
    if not isinstance(input, Tensor):
        from ._util import not_a_tensor
        raise not_a_tensor(name, input)
    if p < 0 or p > 1:  # the native kernel's RuntimeError (F's wrapper raises ValueError)
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _F()._dropout_impl(input, p, train, inplace, feature=feature, alpha=alpha)


def dropout(input, p, train):
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p) when
    ``train``.

    >>> dropout(torch.ones(2), 0.5, False)
    tensor([1., 1.])
    """
    return _dropout("dropout", input, p, train, False, False, False)


def dropout_(input, p, train):
    """:func:`dropout` in place."""
    return _dropout("dropout_", input, p, train, True, False, False)


def alpha_dropout(input, p, train):
    """``F.alpha_dropout`` with ATen's signature."""
    return _dropout("alpha_dropout", input, p, train, False, False, True)


def alpha_dropout_(input, p, train):
    """:func:`alpha_dropout` in place."""
    return _dropout("alpha_dropout_", input, p, train, True, False, True)


def feature_dropout(input, p, train):
    """Dropout of whole (sample, channel) slices of an input of 2 or more dims."""
    return _dropout("feature_dropout", input, p, train, False, True, False)


def feature_dropout_(input, p, train):
    """:func:`feature_dropout` in place."""
    return _dropout("feature_dropout_", input, p, train, True, True, False)


def feature_alpha_dropout(input, p, train):
    """Alpha dropout of whole (sample, channel) slices."""
    return _dropout("feature_alpha_dropout", input, p, train, False, True, True)


def feature_alpha_dropout_(input, p, train):
    """:func:`feature_alpha_dropout` in place."""
    return _dropout("feature_alpha_dropout_", input, p, train, True, True, True)


class NativeDropout(BuiltinFunction):
    """out = x * mask * scale;  dx = g * mask * grad_scale (``mask`` a bool array).

    NOTE: PyTorch's derivative scales by 1 / (1 - p) only when ``train`` is given and
    True: with ``train=None`` the forward scales and the backward does not.
    """
    _backward_name = "NativeDropoutBackward0"

    @staticmethod
    def forward(ctx, x, mask, scale, grad_scale):
        ctx.mask, ctx.scale = mask, grad_scale
        return (x * mask.astype(x.dtype)) * x.dtype.type(scale)

    @staticmethod
    def backward(ctx, g):
        keep = Tensor._make(ctx.mask.astype(g._data.dtype), None, False)
        return g * keep * ctx.scale, None, None, None


def native_dropout(input, p, train):
    """(output, mask): dropout's output and the bool mask of the kept elements (all True,
    the output a copy, when not training; ``train=None`` trains).

    >>> native_dropout(torch.ones(2), 0.5, False)
    (tensor([1., 1.]), tensor([True, True]))
    """
    if not isinstance(input, Tensor):
        from ._util import not_a_tensor
        raise not_a_tensor("native_dropout", input)
    if train is None or train:
        if not 0 <= 1 - p <= 1:  # PyTorch draws bernoulli_(1 - p) unchecked
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1 - p}")
        mask = _F()._noise(input, p, False)._data != 0
        scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    else:
        mask, scale = np.ones(input.shape, bool), 1.0
    grad_scale = scale if train else 1.0
    return NativeDropout.apply(input, mask, scale, grad_scale), Tensor._make(mask, None, False)


# ---- normalisation --------------------------------------------------------------------------
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """``F.batch_norm`` with ATen's argument order (``cudnn_enabled`` is ignored)."""
    return _F()._batch_norm(input, running_mean, running_var, weight, bias, training,
                            momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """``F.instance_norm`` with ATen's argument order (``cudnn_enabled`` is ignored)."""
    return _F().instance_norm(input, running_mean, running_var, weight, bias,
                              use_input_stats, momentum, eps)


# ---- embeddings -----------------------------------------------------------------------------
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` at ``indices``; a negative ``padding_idx`` means none.

    >>> embedding(torch.eye(2), torch.tensor([1]))
    tensor([[0., 1.]])
    """
    if sparse:
        raise NotImplementedError("numtorch does not support sparse gradients (embedding "
                                  "with sparse=True)")
    return _F().embedding(indices, weight, padding_idx if padding_idx >= 0 else None,
                          None, 2.0, scale_grad_by_freq)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """Rescale in place each row of ``input`` named in ``indices`` whose ``norm_type`` norm
    exceeds ``max_norm`` to norm max_norm (PyTorch's 1e-7 guard included); returns ``input``.
    """
    idx = indices._data.astype(np.int64).reshape(-1)
    _F()._embedding_renorm(input, idx, max_norm, norm_type)
    return input


_BAG_MODES = ("sum", "mean", "max")


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """(output, offset2bag, bag_size, max_indices) of ``F.embedding_bag`` with ATen's
    argument order and integer ``mode`` (0 sum, 1 mean, 2 max). The three bookkeeping
    tensors are the ones PyTorch's CPU kernel returns: offset2bag, each index's bag (empty
    on the float32 sum path), bag_size, the count of each bag (zeros for sum), and
    max_indices, the row chosen per bag and column (mode max), else bag_size again
    (zeros for sum)."""
    from .. import _dtype as D
    from .._creation import tensor as _tensor
    if sparse:
        raise NotImplementedError("numtorch does not support sparse gradients (embedding_bag "
                                  "with sparse=True)")
    out = _F().embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq,
                             _BAG_MODES[mode], False, per_sample_weights, include_last_offset,
                             padding_idx)
    n_bags = out.shape[0]
    flat = indices._data.reshape(-1)
    bounds = offsets._data.astype(np.int64) if indices.dim() == 1 else \
        np.arange(0, flat.size, indices.shape[1] if indices.dim() == 2 else 1)
    bag_of = np.searchsorted(bounds, np.arange(flat.size), side="right") - 1
    if include_last_offset:
        bag_of = np.minimum(bag_of, n_bags - 1)
    keep = flat != (-1 if padding_idx is None else padding_idx % weight.shape[0])
    sizes = np.bincount(bag_of[keep], minlength=n_bags)[:n_bags].astype(np.int64)
    fast_sum = mode == 0 and weight.dtype == D.float32 and padding_idx is None
    offset2bag = np.zeros(0, np.int64) if fast_sum else bag_of.astype(np.int64)
    if mode == 0:
        sizes = np.zeros(n_bags, np.int64)
        max_idx = sizes
    elif mode == 1:
        max_idx = sizes
    else:
        max_idx = np.zeros(out.shape, np.int64)
        w = weight._data
        for b in range(n_bags):
            rows = flat[(bag_of == b) & keep]
            if rows.size:
                max_idx[b] = rows[np.argmax(w[rows], axis=0)]
    return (out, _tensor(offset2bag), _tensor(sizes), _tensor(max_idx))


# ---- pooling, convolution -------------------------------------------------------------------
def _stride(stride):
    # ATen's default ``stride=()`` means the kernel size
    return None if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``F.max_pool1d`` without ``return_indices``."""
    return _F().max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``F.max_pool2d`` without ``return_indices``.

    >>> max_pool2d(torch.arange(4.).reshape(1, 1, 2, 2), 2)
    tensor([[[[3.]]]])
    """
    return _F().max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``F.max_pool3d`` without ``return_indices``."""
    return _F().max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """(values, indices) of ``F.max_pool1d``."""
    return _F().max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode,
                           True)


def adaptive_max_pool1d(input, output_size):
    """(values, indices) of ``F.adaptive_max_pool1d``."""
    return _F().adaptive_max_pool1d(input, output_size, True)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """ATen's general convolution: ``conv{1,2,3}d`` or, with ``transposed``,
    ``conv_transpose{1,2,3}d``, picked by the weight's dims."""
    F = _F()
    nsp = weight.dim() - 2
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[nsp - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[nsp - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


def native_channel_shuffle(input, groups):
    """``channel_shuffle``'s result, without a derivative (as PyTorch's native op)."""
    from .torch_misc import NoDerivative
    out = _F().channel_shuffle(input.detach() if isinstance(input, Tensor) else input, groups)
    return NoDerivative.apply(input, out._data, "native_channel_shuffle")


# ---- losses with an integer reduction -------------------------------------------------------
# the parser's signatures (for its TypeError on a non-int reduction, which gives the
# argument's position when it was passed by position)
_LOSS_SIGNATURES = {
    "kl_div": "Tensor input, Tensor target, int reduction = 1, *, bool log_target = False",
    "binary_cross_entropy_with_logits": "Tensor input, Tensor target, Tensor weight = None, "
                                        "Tensor pos_weight = None, int reduction = 1",
    "cosine_embedding_loss": "Tensor input1, Tensor input2, Tensor target, float margin = 0.0, "
                             "int reduction = 1",
    "hinge_embedding_loss": "Tensor input, Tensor target, float margin = 1.0, "
                            "int reduction = 1",
    "margin_ranking_loss": "Tensor input1, Tensor input2, Tensor target, float margin = 0.0, "
                           "int reduction = 1",
    "triplet_margin_loss": "Tensor anchor, Tensor positive, Tensor negative, float margin = "
                           "1.0, float p = 2, float eps = 1e-06, bool swap = False, "
                           "int reduction = 1",
    "poisson_nll_loss": "Tensor input, Tensor target, bool log_input, bool full, float eps, "
                        "int reduction",
}


def _red(reduction, op):
    if type(reduction) is not int:
        from ._util import tp_name
        from ._arg_errors import bad_call
        error = TypeError(f"{op}(): argument 'reduction' must be int, not "
                          f"{tp_name(reduction)}")
        sig = _LOSS_SIGNATURES.get(op)
        raise bad_call(op, [f"({sig})"], error) if sig else error
    return {1: "mean", 2: "sum"}.get(reduction, "none")


def kl_div(input, target, reduction=0, *, log_target=False):
    """KL(target || input), ``input`` in log space; ``reduction`` 1 means it (over every
    element, no warning), 2 sums it."""
    F = _F()
    F._tensor_args("kl_div", ("input", input, 1), ("target", target, 2))
    red = _red(reduction, "kl_div")
    if input._data.dtype.kind not in "fc" or target._data.dtype.kind not in "fc":
        raise RuntimeError("kl_div: Integral inputs not supported.")
    from .elementwise import xlogy
    loss = target.exp() * (target - input) if log_target else \
        xlogy(target, target) - target * input
    return F._reduce(loss, red)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=0):
    """``F.binary_cross_entropy_with_logits`` with an integer ``reduction``."""
    return _F().binary_cross_entropy_with_logits(
        input, target, weight, reduction=_red(reduction, "binary_cross_entropy_with_logits"),
        pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``F.cosine_embedding_loss`` with an integer ``reduction``."""
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_red(reduction, "cosine_embedding_loss"))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``F.hinge_embedding_loss`` with an integer ``reduction``."""
    return _F().hinge_embedding_loss(input, target, margin,
                                     reduction=_red(reduction, "hinge_embedding_loss"))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``F.margin_ranking_loss`` with an integer ``reduction``."""
    # (the native op broadcasts: F's Python wrapper is the one that checks the dims)
    F = _F()
    F._tensor_args("margin_ranking_loss", ("input1", input1, 1), ("input2", input2, 2),
                   ("target", target, 3))
    red = _red(reduction, "margin_ranking_loss")
    return F._reduce((-target * (input1 - input2) + float(margin)).clamp_min(0), red)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        reduction=0):
    """``F.triplet_margin_loss`` with an integer ``reduction``."""
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_red(reduction, "triplet_margin_loss"))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``F.poisson_nll_loss`` with ATen's argument order and an integer ``reduction``."""
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_red(reduction, "poisson_nll_loss"))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """``F.ctc_loss`` with an integer ``reduction``."""
    from .ctc import ctc_loss as _ctc
    return _ctc(log_probs, targets, input_lengths, target_lengths, blank,
                _red(reduction, "ctc_loss"), zero_infinity)


# ---- recurrent cells ------------------------------------------------------------------------
def _rnn():
    from ..nn.modules import rnn
    return rnn


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """(h', c') of one LSTM step; ``hx`` is the pair (h, c).

    >>> h, c = lstm_cell(torch.zeros(1, 1), (torch.zeros(1, 1), torch.ones(1, 1)),
    ...                  torch.zeros(4, 1), torch.zeros(4, 1))
    >>> c
    tensor([[0.5000]])
    """
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    return _rnn().lstm_cell(input, tuple(hx), w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' of one GRU step."""
    return _rnn().gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return _rnn().rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """relu(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return _rnn().rnn_relu_cell(input, hx, w_ih, w_hh, b_ih, b_hh)
