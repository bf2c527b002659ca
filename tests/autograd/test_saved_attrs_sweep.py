"""Sweep Z (what built-in nodes expose): ``grad_fn._saved_*`` names and values of common
ops against PyTorch: negative dims and indices kept as given (shown as uint64), the nodes
that had no table entry (unary ops, activations, reductions, shape and sort ops), a saved
output recomputed as the node's own output, and a detached operand that shares its
partner's array."""
import pytest

import numtorch
from helpers import torch_or_skip


def _summary(lib, fn, raw=True):
    """``(node name, [(attr, value)], [raw attrs])`` of ``fn(lib, x)``'s grad_fn, a saved
    tensor read as (shape, dtype, requires_grad, has grad_fn, values)."""
    lib.manual_seed(0)
    x = lib.randn(2, 3, 4, requires_grad=True)
    g = fn(lib, x).grad_fn
    out = []
    for n in dir(g):
        if not n.startswith("_saved"):
            continue
        v = getattr(g, n)
        if isinstance(v, lib.Tensor):
            # (values to 4 places: the last bit of tan or softmax is not the point here)
            v = (tuple(v.shape), str(v.dtype), v.requires_grad, v.grad_fn is not None,
                 v.detach().double().mul(1e4).round().tolist())
        out.append((n, v))
    return g.name(), out, [n for n in dir(g) if raw and n.startswith("_raw_saved")]


_CASES = {
    # negative dims and indices, kept as given
    "sum_neg": lambda t, x: x.sum(-1),
    "sum_tuple_neg": lambda t, x: x.sum((-1, 0), keepdim=True),
    "mean_neg": lambda t, x: x.mean([-2]),
    "softmax_neg": lambda t, x: t.nn.functional.softmax(x, -1),
    "log_softmax_neg": lambda t, x: x.log_softmax(dim=-2),
    "select_neg": lambda t, x: x.select(-1, -1),
    "cat_neg": lambda t, x: t.cat([x, x], -1),
    "stack_neg": lambda t, x: t.stack([x, x], -1),
    "transpose_neg": lambda t, x: x.transpose(-1, 0),
    "mT": lambda t, x: x.mT,
    "permute_neg": lambda t, x: x.permute(-1, 0, 1),
    "unsqueeze_neg": lambda t, x: x.unsqueeze(-1),
    "squeeze_neg": lambda t, x: x[:, :1].squeeze(-2),
    "max_neg": lambda t, x: x.max(-1)[0],
    "narrow_neg": lambda t, x: x.narrow(-1, 1, 2),
    "amax_neg": lambda t, x: x.amax(-1),
    "cumsum_neg": lambda t, x: x.cumsum(-1),
    "cumprod_neg": lambda t, x: x.cumprod(-1),
    "flip_neg": lambda t, x: x.flip(-1),
    "split_neg": lambda t, x: x.split(2, -1)[0],
    "split_sizes": lambda t, x: x.split([1, 3], -1)[1],
    "chunk": lambda t, x: x.chunk(2, 1)[1],
    "unbind_neg": lambda t, x: x.unbind(-1)[0],
    "sort_neg": lambda t, x: x.sort(-1)[0],
    "topk": lambda t, x: x.topk(2)[0],
    "index_select_neg": lambda t, x: x.index_select(-1, t.tensor([0, 2])),
    "prod_neg": lambda t, x: x.prod(-1),
    "logsumexp_neg": lambda t, x: x.logsumexp(-1),
    # nodes that had no entry
    "tan": lambda t, x: x.tan(),
    "log1p": lambda t, x: x.abs().log1p(),
    "rsqrt": lambda t, x: x.abs().rsqrt(),
    "asin": lambda t, x: (x * 0.1).asin(),
    "gelu_tanh": lambda t, x: t.nn.functional.gelu(x, approximate="tanh"),
    "silu": lambda t, x: t.nn.functional.silu(x),
    "leaky_relu": lambda t, x: t.nn.functional.leaky_relu(x, 0.2),
    "hardtanh": lambda t, x: t.nn.functional.hardtanh(x, -0.5, 0.5),
    "threshold": lambda t, x: t.nn.functional.threshold(x, 0.1, 2.0),
    "masked_fill": lambda t, x: x.masked_fill(x > 0, 0.0),
    "clamp_min": lambda t, x: x.clamp_min(0.1),
    "maximum": lambda t, x: t.maximum(x, x * 2),
    "rsub": lambda t, x: 2 - x,
    "mv": lambda t, x: x[0].mv(x[0, 0]),
    "dot": lambda t, x: x[0, 0].dot(x[0, 1]),
    "bmm": lambda t, x: x.bmm(x.mT),
    "prod_all": lambda t, x: x.prod(),
    "var": lambda t, x: x.var(1, correction=0),
    "std_dim": lambda t, x: x.std(1, keepdim=True),
    "norm_dim": lambda t, x: x.norm(dim=1),
    "pow_tensor": lambda t, x: x.abs().pow(x),
}


@pytest.mark.parametrize("name", list(_CASES))
def test_saved_attributes_match_torch(name):
    torch = torch_or_skip()
    fn = _CASES[name]
    # NOTE: a recomputed result (prod, pow) has no SavedTensor (``_raw_saved_result``)
    raw = name not in ("prod_neg", "prod_all", "pow_tensor")
    assert _summary(numtorch, fn, raw) == _summary(torch, fn, raw)


@pytest.mark.parametrize("f", [
    lambda t, x: t.nn.functional.mse_loss(x, x.detach()),
    lambda t, x: t.nn.functional.smooth_l1_loss(x, x.detach()),
    lambda t, x: t.nn.functional.binary_cross_entropy(x.sigmoid(), x.sigmoid().detach()),
], ids=["mse", "smooth_l1", "bce"])
def test_detached_target_sharing_the_array_is_saved_as_itself(f):
    torch = torch_or_skip()

    def run(lib):
        x = lib.tensor([0.25, 0.5], requires_grad=True)
        g = f(lib, x).grad_fn
        return g._saved_self.requires_grad, g._saved_target.requires_grad

    assert run(numtorch) == run(torch) == (True, False)


def test_positive_dims_leave_no_given_record():
    # the common path keeps nothing extra on the node
    x = numtorch.ones(2, 3, requires_grad=True)
    for y in (x.sum(1), x.softmax(1), x.select(1, 0), numtorch.cat([x, x], 1)):
        assert "given" not in y.grad_fn.__dict__
