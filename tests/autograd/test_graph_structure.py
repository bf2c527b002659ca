"""Sweep AD (graph structure): the whole backward graph of common composite ops, layers and
losses against PyTorch, walked breadth first over ``next_functions``: each node's name, its
edges (``(None, 0)`` entries and their places included) and its ``_saved_*`` attributes
(a saved tensor read as shape, dtype, requires_grad and its grad_fn's name)."""
import pytest

import numtorch
from helpers import torch_or_skip


def _shown(lib, v):
    if isinstance(v, lib.Tensor):
        return ("T", tuple(v.shape), str(v.dtype).replace("torch.", ""), v.requires_grad,
                None if v.grad_fn is None else v.grad_fn.name())
    if isinstance(v, (tuple, list)):
        return tuple(_shown(lib, a) for a in v)
    return (type(v).__name__, v)  # (2 and 2.0 differ, as PyTorch's nodes show them)


def _graph(lib, fn):
    """The graph of ``fn(lib, x)`` (x: a seeded (4, 5) leaf), node by node in BFS order."""
    lib.manual_seed(0)
    x = lib.randn(4, 5, requires_grad=True)
    root = fn(lib, x).grad_fn
    order, seen, out = [root], {id(root): 0}, []
    for node in order:
        edges = []
        for f, k in node.next_functions:
            if f is not None and id(f) not in seen:
                seen[id(f)] = len(order)
                order.append(f)
            edges.append((None if f is None else seen[id(f)], k))
        saved = [(a, _shown(lib, getattr(node, a))) for a in dir(node)
                 if a.startswith("_saved_")]
        out.append((node.name(), edges, saved))
    return out


_Y = [1, 0, 4, 2]
_CASES = {
    # losses: non-differentiable weights and targets have no edge; ATen's scalar products
    "ce_weight": lambda t, x: t.nn.functional.cross_entropy(
        x, t.tensor(_Y), weight=t.arange(1., 6.)),
    "ce_smoothing": lambda t, x: t.nn.functional.cross_entropy(
        x, t.tensor(_Y), label_smoothing=0.1),
    "ce_probs": lambda t, x: t.nn.functional.cross_entropy(x, x.detach().softmax(1)),
    "nll_weight": lambda t, x: t.nn.functional.nll_loss(
        x.log_softmax(1), t.tensor(_Y), weight=t.arange(1., 6.)),
    "bce_weight": lambda t, x: t.nn.functional.binary_cross_entropy(
        x.sigmoid(), t.ones(4, 5) / 2, weight=t.arange(1., 6.)),
    "bcel_pos_weight": lambda t, x: t.nn.functional.binary_cross_entropy_with_logits(
        x, t.ones(4, 5) / 2, pos_weight=t.arange(1., 6.)),
    "bcel_weight": lambda t, x: t.nn.functional.binary_cross_entropy_with_logits(
        x, t.ones(4, 5) / 2, weight=t.arange(1., 6.)),
    "soft_margin": lambda t, x: t.nn.functional.soft_margin_loss(x, t.ones(4, 5)),
    "multi_margin": lambda t, x: t.nn.functional.multi_margin_loss(x, t.tensor(_Y)),
    # reductions: dims and corrections as given (None for all dims)
    "std_last": lambda t, x: x.std(-1),
    "var_all": lambda t, x: x.var(),
    "var_unbiased_all": lambda t, x: x.var(unbiased=False),
    "var_correction": lambda t, x: x.var(correction=0),
    "std_mean": lambda t, x: t.std_mean(x, dim=1)[0],
    "var_mean_all": lambda t, x: t.var_mean(x)[1],
    "norm_last": lambda t, x: x.norm(dim=-1),
    "norm_all": lambda t, x: x.norm(),
    "linalg_norm": lambda t, x: t.linalg.norm(x, dim=-1),
    "normalize": lambda t, x: t.nn.functional.normalize(x, dim=-1),
    "amax_all": lambda t, x: x.amax(),
    "amax_none": lambda t, x: x.amax(None),
    "amin_dim0": lambda t, x: x.amin(0),
    "median_all": lambda t, x: x.median(),
    "cummax": lambda t, x: x.cummax(1)[0],
    "cummin_neg": lambda t, x: x.cummin(-1)[0],
    # an integer operand of a differentiable argument still has an edge
    "mul_int": lambda t, x: x * t.arange(5),
    "rsub_int": lambda t, x: t.tensor(3) - x,
    "where_int": lambda t, x: t.where(x > 0, x, t.tensor(1)),
    "maximum_int": lambda t, x: t.maximum(x, t.arange(5)),
    "atan2_int": lambda t, x: t.atan2(x, t.arange(1, 6)),
    "addcmul_int": lambda t, x: t.addcmul(x, x, t.arange(5)),
    "fmod_int": lambda t, x: x.fmod(t.tensor(2)),
    "masked_fill_t": lambda t, x: x.masked_fill(x > 0, t.tensor(1.)),
    # layers
    "conv1d": lambda t, x: t.nn.functional.conv1d(x[None], t.ones(3, 4, 2), t.zeros(3),
                                                  stride=2, padding=1),
    "conv2d_nobias": lambda t, x: t.nn.functional.conv2d(x[None, None], t.ones(2, 1, 2, 2),
                                                         dilation=(1, 2)),
    "conv_transpose": lambda t, x: t.nn.functional.conv_transpose2d(
        x[None, None], t.ones(1, 2, 3, 3), t.zeros(2), stride=2, padding=1,
        output_padding=1),
    "pad": lambda t, x: t.nn.functional.pad(x, (-1, 2, 1, 0)),
    "relu6": lambda t, x: t.nn.functional.relu6(x),
    "softplus": lambda t, x: t.nn.functional.softplus(x),
    "softplus_float": lambda t, x: t.nn.functional.softplus(x, beta=2.0),
    "elu": lambda t, x: t.nn.functional.elu(x),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_graph_matches_torch(case):
    torch = torch_or_skip()
    fn = _CASES[case]
    assert _graph(numtorch, fn) == _graph(torch, fn)


_NONDIFF = {
    "nll_loss": lambda t, x, w: t.nn.functional.nll_loss(x, t.tensor(_Y), weight=w),
    "cross_entropy": lambda t, x, w: t.nn.functional.cross_entropy(x, t.tensor(_Y), weight=w),
    "bce_logits_pos": lambda t, x, w: t.nn.functional.binary_cross_entropy_with_logits(
        x, t.ones(4, 5), pos_weight=w),
    "bce": lambda t, x, w: t.nn.functional.binary_cross_entropy(
        x.sigmoid(), t.ones(4, 5), weight=w.expand(4, 5)),
    "multi_margin": lambda t, x, w: t.nn.functional.multi_margin_loss(x, t.tensor(_Y),
                                                                      weight=w),
    "soft_margin": lambda t, x, w: t.nn.functional.soft_margin_loss(x, w.expand(4, 5)),
}


@pytest.mark.parametrize("case", sorted(_NONDIFF))
def test_nondifferentiable_argument_error(case):
    """A weight (or soft_margin's target) that requires grad: PyTorch's RuntimeError."""
    torch = torch_or_skip()
    msgs = []
    for lib in (numtorch, torch):
        x = lib.ones(4, 5, requires_grad=True)
        w = lib.ones(5, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            _NONDIFF[case](lib, x, w)
        msgs.append(str(info.value))
        with lib.no_grad():  # (no check without grad mode)
            _NONDIFF[case](lib, x, w)
    assert msgs[0] == msgs[1]


def test_weighted_losses_still_differentiate():
    """Weights passed as plain arrays: the input's gradient is unchanged, twice over."""
    torch = torch_or_skip()
    grads = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        x = lib.randn(4, 5, dtype=lib.float64, requires_grad=True)
        w = lib.arange(1., 6., dtype=lib.float64)
        loss = (lib.nn.functional.cross_entropy(x, lib.tensor(_Y), weight=w,
                                                label_smoothing=0.2) +
                lib.nn.functional.binary_cross_entropy_with_logits(
                    x, lib.ones(4, 5, dtype=lib.float64) / 3, weight=w, pos_weight=w))
        g, = lib.autograd.grad(loss, x, create_graph=True)
        gg, = lib.autograd.grad(g.sin().sum(), x)
        grads.append((g.detach().numpy(), gg.numpy()))
    for a, b in zip(*grads):
        assert abs(a - b).max() < 1e-12
