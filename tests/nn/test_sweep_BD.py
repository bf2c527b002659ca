"""Sweep BD (training scripts: nn modules): TransformerEncoder's nested-tensor inference path
(padded positions come back as zeros), and the uninitialized parameters of lazy modules
refusing to be used before their first forward, against PyTorch."""
import copy
import io
import warnings

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same


def _encoder_out(lib, kpm_rows, *, mask_check=True, train=False, grad=False, norm=True,
                 float_mask=False, batch_first=True):
    """An eval-mode (or training) 2-layer encoder's output for a padding mask."""
    nn = lib.nn
    lib.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=batch_first)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the nested-tensor and batch_first notices)
        enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8) if norm else None,
                                    mask_check=mask_check)
        enc.train(train)
        if norm:
            with lib.no_grad():
                enc.norm.bias.fill_(0.25)  # padded rows come back as the norm of zeros
        x = lib.randn(len(kpm_rows), len(kpm_rows[0]), 8)
        if not batch_first:
            x = x.transpose(0, 1)
        kpm = lib.tensor(kpm_rows)
        if float_mask:
            kpm = lib.zeros(kpm.shape).masked_fill(kpm, float("-inf"))
        if grad:
            return enc(x, src_key_padding_mask=kpm).detach().numpy()
        with lib.no_grad():
            return enc(x, src_key_padding_mask=kpm).numpy()


_RIGHT_PADDED = [[False, False, False, True], [False] * 4, [False, True, True, True]]
_NOT_LEFT_ALIGNED = [[True, False, False, False], [False] * 4, [False, True, True, True]]
_ONE_EMPTY = [[False, False, True, True], [True] * 4, [False] * 4]


@pytest.mark.parametrize("case", [
    dict(kpm_rows=_RIGHT_PADDED),
    dict(kpm_rows=_RIGHT_PADDED, norm=False),
    dict(kpm_rows=_RIGHT_PADDED, float_mask=True),
    dict(kpm_rows=_ONE_EMPTY),                            # a fully padded sequence: zeros
    dict(kpm_rows=_NOT_LEFT_ALIGNED),                     # mask_check: the ordinary path
    dict(kpm_rows=_NOT_LEFT_ALIGNED, mask_check=False),   # each keeps its first k tokens
    dict(kpm_rows=_RIGHT_PADDED, train=True),             # training: the ordinary path
    dict(kpm_rows=_RIGHT_PADDED, grad=True),              # parameters need grad: ordinary
    dict(kpm_rows=_RIGHT_PADDED, batch_first=False),      # use_nested_tensor is off
])
def test_encoder_nested_path_matches_torch(torch, case):
    mine, ref = _encoder_out(numtorch, **case), _encoder_out(torch, **case)
    # NOTE: PyTorch's fused inference kernels round differently in the last bits
    np.testing.assert_allclose(mine, ref, rtol=1e-4, atol=1e-5)
    assert np.array_equal(np.isnan(mine), np.isnan(ref))


def test_encoder_nested_path_zeroes_padding():
    out = _encoder_out(numtorch, _RIGHT_PADDED, norm=False)
    assert (out[0, 3] == 0).all() and (out[2, 1:] == 0).all() and (out[1] != 0).all()


def test_encoder_all_padded_error():
    check_error(lambda lib: _encoder_out(lib, [[True, True], [True, True]]))


def test_fastpath_flag_turns_nested_path_off(torch):
    def run(lib):
        lib.backends.mha.set_fastpath_enabled(False)
        try:
            return _encoder_out(lib, _RIGHT_PADDED, norm=False)
        finally:
            lib.backends.mha.set_fastpath_enabled(True)
    mine, ref = run(numtorch), run(torch)
    np.testing.assert_allclose(mine, ref, rtol=1e-4, atol=1e-5)
    assert (mine[0, 3] != 0).any()


# ---- lazy modules before their first forward --------------------------------------------
def _lazy(lib):
    return lib.nn.Sequential(lib.nn.LazyLinear(3), lib.nn.ReLU(), lib.nn.LazyBatchNorm1d())


@pytest.mark.parametrize("use", [
    lambda m: sum(p.numel() for p in m.parameters()),
    lambda m: [p.shape for p in m.parameters()],
    lambda m: m[0].weight.sum(),
    lambda m: m[0].weight.tolist(),
    lambda m: m[0].weight.dim(),
    lambda m: m[0].weight.view(-1),
    lambda m: m[0].weight.detach(),
    lambda m: m.requires_grad_(False),
    lambda m: m.apply(lambda mod: mod.weight.zero_() if hasattr(mod, "weight") else None),
    lambda m: m.share_memory(),
    lambda m: m[2].running_mean.mean(),
])
def test_uninitialized_parameter_refuses_use(use):
    check_error(lambda lib: use(_lazy(lib)))


def test_uninitialized_deepcopy_refused(torch):
    mine = pytest.raises(ValueError, copy.deepcopy, _lazy(numtorch)).value
    ref = pytest.raises(ValueError, copy.deepcopy, _lazy(torch)).value
    head = "Attempted to use an uninitialized parameter in <function Tensor.__deepcopy__ at "
    assert str(mine).startswith(head) and str(ref).startswith(head)


@pytest.mark.parametrize("use", [
    lambda m: [type(p).__name__ for p in m.parameters()],
    lambda m: [(p.dtype, p.requires_grad, p.is_leaf, p.grad, p.size()) for p in m.parameters()],
    lambda m: [repr(v) for v in m.state_dict().values()],
    lambda m: [type(p).__name__ for p in m.double().parameters()],
    lambda m: repr(m.zero_grad()),
    lambda m: type(m(numtorch_or_torch(m).ones(2, 5))).__name__,
])
def test_uninitialized_parameter_allows(use):
    check_same(lambda lib: use(_lazy(lib)))


def numtorch_or_torch(module):
    """The library ``module`` comes from."""
    return numtorch if isinstance(module, numtorch.nn.Module) else __import__("torch")


def test_uninitialized_state_dict_round_trip(torch):
    def run(lib):
        buf = io.BytesIO()
        lib.save(_lazy(lib).state_dict(), buf)
        buf.seek(0)
        return [repr(v) for v in lib.load(buf, weights_only=False).values()]
    check_same(run)


# ---- Module without a forward ----------------------------------------------------------
def test_unimplemented_forward_repr_and_error():
    check_same(lambda lib: repr(lib.nn.Module().forward))
    check_error(lambda lib: type("NoForward", (lib.nn.Module,), {})()(lib.ones(1)))
    assert not hasattr(numtorch.nn.Module, "_forward_unimplemented")


# ---- huber_loss of an input and a target of different dtypes ----------------------------
@pytest.mark.parametrize("dtypes", [("float32", "int64"), ("float32", "float64"),
                                    ("float64", "float32"), ("float32", "bool"),
                                    ("float16", "float32")])
@pytest.mark.parametrize("kwargs", [{}, {"reduction": "none"}, {"weight": "ones"}])
def test_huber_mixed_dtypes_forward_then_backward_error(dtypes, kwargs):
    """The forward promotes (the loss has the input's dtype); the backward refuses the pair."""
    def loss(lib):
        x = lib.tensor([0.5, 3.0, -1.0], dtype=getattr(lib, dtypes[0]), requires_grad=True)
        t = lib.tensor([1, 0, 0], dtype=getattr(lib, dtypes[1]))
        kw = {k: lib.ones(3) if v == "ones" else v for k, v in kwargs.items()}
        return lib.nn.functional.huber_loss(x, t, **kw)
    check_same(lambda lib: (loss(lib).dtype, loss(lib).grad_fn.name()))
    check_error(lambda lib: loss(lib).sum().backward())


def test_huber_same_dtype_backward(torch):
    def grad(lib):
        x = lib.tensor([0.5, 3.0, -1.0], requires_grad=True)
        lib.nn.HuberLoss(delta=0.7)(x, lib.tensor([1.0, 0.0, 0.0])).backward()
        return x.grad
    check_same(grad)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_weighted_huber_reduction(reduction):
    """huber_loss's weighted 'mean' is the mean of the weighted losses (mse_loss's and
    l1_loss's is the weighted average)."""
    def run(lib):
        x = lib.tensor([0.5, 3.0, -1.0, 2.0], requires_grad=True)
        t, w = lib.tensor([1.0, 0.0, 0.0, 1.5]), lib.tensor([0.5, 2.0, 1.0, 0.0])
        out = []
        for f in (lib.nn.functional.huber_loss, lib.nn.functional.mse_loss,
                  lib.nn.functional.l1_loss):
            loss = f(x, t, reduction=reduction, weight=w)
            out += [loss, lib.autograd.grad(loss.sum(), x)[0]]
        return out
    check_same(run)


@pytest.mark.parametrize("target_dtype", ["float64", "int64", "float16"])
def test_soft_margin_loss_in_input_dtype(target_dtype):
    """The loss is computed in the input's dtype whatever the target's, in one node."""
    def run(lib):
        x = lib.tensor([0.5, 3.0, -1.0], requires_grad=True)
        t = lib.tensor([1, -1, 1], dtype=getattr(lib, target_dtype))
        loss = lib.nn.functional.soft_margin_loss(x, t)
        edges = [type(f).__name__ for f, _ in loss.grad_fn.next_functions]
        return loss.dtype, loss.grad_fn.name(), edges, loss
    check_same(run)
