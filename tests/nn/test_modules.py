"""Layers against PyTorch: same seed -> same initial parameters, repr, forward output and
parameter gradients; one line per layer."""
import numpy as np
import pytest

import numtorch
from helpers import assert_close, check_error

rng = np.random.default_rng(0)


def a(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def idx(high, *shape):
    return rng.integers(0, high, shape).astype(np.int64)


# (constructor over a library's nn, inputs); float inputs require grad.
LAYERS = [
    (lambda nn: nn.Linear(5, 3), [a(4, 5)]),
    (lambda nn: nn.Linear(5, 3, bias=False), [a(2, 4, 5)]),
    (lambda nn: nn.Bilinear(3, 4, 2), [a(5, 3), a(5, 4)]),
    (lambda nn: nn.Identity(3, foo=1), [a(2, 3)]),
    (lambda nn: nn.Flatten(), [a(2, 3, 4)]),
    (lambda nn: nn.Unflatten(1, (2, 3)), [a(4, 6)]),
    (lambda nn: nn.Conv1d(4, 6, 3, stride=2, padding=1), [a(2, 4, 9)]),
    (lambda nn: nn.Conv1d(4, 4, 3, groups=2, padding="same", padding_mode="reflect"),
     [a(2, 4, 9)]),
    (lambda nn: nn.Conv2d(3, 4, (3, 2), dilation=(1, 2), bias=False), [a(2, 3, 7, 6)]),
    (lambda nn: nn.Conv2d(2, 4, 3, padding=1, padding_mode="circular"), [a(1, 2, 5, 5)]),
    (lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="replicate"), [a(1, 2, 5, 5)]),
    (lambda nn: nn.Conv3d(2, 3, 2), [a(1, 2, 3, 4, 3)]),
    (lambda nn: nn.ConvTranspose1d(4, 2, 3, stride=2, output_padding=1), [a(2, 4, 5)]),
    (lambda nn: nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2), [a(1, 4, 3, 4)]),
    (lambda nn: nn.MaxPool1d(3, stride=2, padding=1), [a(2, 3, 8)]),
    (lambda nn: nn.MaxPool2d(2, ceil_mode=True), [a(2, 3, 5, 7)]),
    (lambda nn: nn.AvgPool1d(3, stride=2, padding=1), [a(2, 3, 8)]),
    (lambda nn: nn.AvgPool2d(3, stride=2, count_include_pad=False, padding=1), [a(1, 2, 6, 5)]),
    (lambda nn: nn.AdaptiveAvgPool1d(3), [a(2, 3, 8)]),
    (lambda nn: nn.AdaptiveAvgPool2d((2, 3)), [a(2, 3, 5, 7)]),
    (lambda nn: nn.AdaptiveMaxPool2d(2), [a(2, 3, 5, 7)]),
    (lambda nn: nn.LPPool2d(2, 2), [a(1, 2, 4, 4)]),
    (lambda nn: nn.BatchNorm1d(3), [a(4, 3, 5)]),
    (lambda nn: nn.BatchNorm1d(3, affine=False, momentum=None), [a(6, 3)]),
    (lambda nn: nn.BatchNorm2d(3, track_running_stats=False), [a(2, 3, 4, 4)]),
    (lambda nn: nn.BatchNorm2d(3).eval(), [a(2, 3, 4, 4)]),
    (lambda nn: nn.InstanceNorm1d(3, affine=True), [a(2, 3, 6)]),
    (lambda nn: nn.InstanceNorm2d(3, track_running_stats=True), [a(2, 3, 4, 4)]),
    (lambda nn: nn.LayerNorm(5), [a(2, 3, 5)]),
    (lambda nn: nn.LayerNorm((3, 5), elementwise_affine=False), [a(2, 3, 5)]),
    (lambda nn: nn.LayerNorm(5, bias=False), [a(2, 5)]),
    (lambda nn: nn.GroupNorm(2, 4), [a(2, 4, 3)]),
    (lambda nn: nn.RMSNorm(5), [a(2, 3, 5)]),
    (lambda nn: nn.LocalResponseNorm(2), [a(2, 4, 3)]),
    (lambda nn: nn.Embedding(10, 3), [idx(10, 2, 4)]),
    (lambda nn: nn.Embedding(10, 3, padding_idx=2, max_norm=1.0), [idx(10, 6)]),
    (lambda nn: nn.EmbeddingBag(10, 3), [idx(10, 3, 4)]),
    (lambda nn: nn.EmbeddingBag(10, 3, mode="max", padding_idx=1), [idx(10, 3, 4)]),
    (lambda nn: nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2), [idx(3, 4, 3)]),
    (lambda nn: nn.Dropout(0.3), [a(4, 5)]),
    (lambda nn: nn.Dropout1d(0.3), [a(4, 5, 2)]),
    (lambda nn: nn.Dropout2d(0.3), [a(2, 5, 2, 2)]),
    (lambda nn: nn.AlphaDropout(0.3), [a(4, 5)]),
    (lambda nn: nn.ZeroPad2d((1, 2, 0, 1)), [a(1, 2, 3, 3)]),
    (lambda nn: nn.ConstantPad1d(2, 3.5), [a(1, 2, 3)]),
    (lambda nn: nn.ReflectionPad1d((2, 1)), [a(1, 2, 4)]),
    (lambda nn: nn.ReplicationPad2d(1), [a(1, 2, 3, 3)]),
    (lambda nn: nn.CircularPad1d(1), [a(1, 2, 3)]),
    (lambda nn: nn.PixelShuffle(2), [a(1, 8, 2, 2)]),
    (lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), [a(1, 2, 3, 3)]),
    (lambda nn: nn.Unfold(2, stride=2), [a(1, 2, 4, 4)]),
    (lambda nn: nn.Fold((4, 4), 2, stride=2), [a(1, 8, 4)]),
    (lambda nn: nn.PairwiseDistance(), [a(3, 4), a(3, 4)]),
    (lambda nn: nn.CosineSimilarity(dim=0), [a(3, 4), a(3, 4)]),
    (lambda nn: nn.PReLU(3), [a(2, 3, 4)]),
    (lambda nn: nn.PReLU(), [a(2, 3)]),
    (lambda nn: nn.LSTM(3, 5), [a(6, 2, 3)]),
    (lambda nn: nn.LSTM(3, 5, num_layers=2, bidirectional=True, batch_first=True,
                        dropout=0.3), [a(2, 6, 3)]),
    (lambda nn: nn.LSTM(3, 6, proj_size=2), [a(4, 3)]),
    (lambda nn: nn.GRU(3, 4, num_layers=2, bias=False), [a(5, 2, 3)]),
    (lambda nn: nn.RNN(3, 4, nonlinearity="relu", bidirectional=True), [a(5, 2, 3)]),
    (lambda nn: nn.LSTMCell(3, 4), [a(5, 3)]),
    (lambda nn: nn.GRUCell(3, 4), [a(3)]),
    (lambda nn: nn.RNNCell(3, 4, bias=False), [a(5, 3)]),
    (lambda nn: nn.MultiheadAttention(8, 2), [a(5, 2, 8), a(6, 2, 8), a(6, 2, 8)]),
    (lambda nn: nn.MultiheadAttention(8, 4, batch_first=True, add_bias_kv=True,
                                      add_zero_attn=True, dropout=0.2), [a(2, 5, 8)] * 3),
    (lambda nn: nn.MultiheadAttention(8, 2, kdim=3, vdim=5, bias=False),
     [a(5, 2, 8), a(6, 2, 3), a(6, 2, 5)]),
    (lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2), [a(5, 2, 8)]),
    (lambda nn: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True,
                                           activation="gelu"), [a(2, 5, 8)]),
    (lambda nn: nn.TransformerDecoderLayer(8, 2, 16), [a(4, 2, 8), a(5, 2, 8)]),
    (lambda nn: nn.Transformer(8, 2, 1, 1, 16), [a(5, 2, 8), a(4, 2, 8)]),
    (lambda nn: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 2)),
     [a(5, 4)]),
    (lambda nn: nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
                              nn.MaxPool2d(2), nn.Flatten(), nn.Linear(36, 3)),
     [a(2, 1, 8, 8)]),
]

ACTIVATIONS = ["ReLU()", "ReLU6()", "LeakyReLU(0.2)", "ELU(alpha=0.5)", "SELU()", "CELU(1.5)",
               "GELU()", "GELU(approximate='tanh')", "SiLU()", "Mish()", "Softplus(2, 3)",
               "Softsign()", "Hardtanh(-2, 2)", "Hardsigmoid()", "Hardswish()", "Sigmoid()",
               "Tanh()", "LogSigmoid()", "Softmax(dim=1)", "LogSoftmax(1)", "Softmin(dim=0)",
               "Softmax2d()", "GLU()", "Threshold(0.1, 20.0)", "Tanhshrink()",
               "Softshrink(0.3)", "Hardshrink()", "RReLU()", "RReLU(0.1, 0.3).eval()"]
LAYERS += [(lambda nn, s=s: eval("nn." + s), [a(3, 4, 6)]) for s in ACTIVATIONS]


def _run(lib, make, inputs):
    lib.manual_seed(7)
    m = make(lib.nn)
    params = {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}
    xs = [lib.from_numpy(x.copy()) for x in inputs]
    for x in xs:
        if x.is_floating_point():
            x.requires_grad_(True)
    out = m(*xs)
    out = out[0] if isinstance(out, tuple) else out
    up = lib.from_numpy(np.random.default_rng(1).standard_normal(tuple(out.shape))
                        .astype(np.float32))
    out.backward(up.to(out.dtype))
    grads = {k: p.grad for k, p in m.named_parameters()}
    buffers = {k: v.numpy().copy() for k, v in m.state_dict().items()}
    return m, params, out, grads, [x.grad for x in xs], buffers, lib.rand(1).item()


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")
@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize("make,inputs", LAYERS, ids=[str(i) for i in range(len(LAYERS))])
def test_layer_matches_torch(torch, make, inputs):
    mine = _run(numtorch, make, inputs)
    ref = _run(torch, make, inputs)
    assert repr(mine[0]) == repr(ref[0])
    assert mine[1].keys() == ref[1].keys()
    for k in ref[1]:
        np.testing.assert_array_equal(mine[1][k], ref[1][k], err_msg=f"initial {k}")
    assert_close(mine[2], ref[2], rtol=2e-5, atol=2e-5, what="output")
    assert (mine[2].grad_fn is None) == (ref[2].grad_fn is None)
    for k in ref[3]:
        assert (mine[3][k] is None) == (ref[3][k] is None), k
        if ref[3][k] is not None:
            assert_close(mine[3][k], ref[3][k], rtol=1e-4, atol=1e-4, what=f"grad of {k}")
    for g, r in zip(mine[4], ref[4]):
        if r is not None:
            assert_close(g, r, rtol=1e-4, atol=1e-4, what="input grad")
    for k in ref[5]:
        np.testing.assert_allclose(mine[5][k], ref[5][k], rtol=1e-5, atol=1e-6, err_msg=k)
    assert mine[6] == ref[6], "the random stream moved differently"


LOSSES = [
    ("L1Loss()", [a(4, 3), a(4, 3)]), ("MSELoss(reduction='sum')", [a(4, 3), a(4, 3)]),
    ("CrossEntropyLoss()", [a(5, 4), idx(4, 5)]),
    ("CrossEntropyLoss(weight=lib.tensor([1., 2., 0.5, 1.]), label_smoothing=0.1)",
     [a(5, 4), idx(4, 5)]),
    ("CrossEntropyLoss(ignore_index=1, reduction='none')", [a(5, 4), idx(4, 5)]),
    ("NLLLoss()", [a(5, 4), idx(4, 5)]),
    ("BCELoss()", [np.full((3, 2), 0.3, np.float32), np.ones((3, 2), np.float32)]),
    ("BCEWithLogitsLoss(pos_weight=lib.tensor([2.0, 0.5]))", [a(3, 2), np.ones((3, 2),
                                                                               np.float32)]),
    ("HuberLoss(delta=0.5)", [a(4, 3), a(4, 3)]), ("SmoothL1Loss(beta=0.5)", [a(4), a(4)]),
    ("SoftMarginLoss()", [a(4), np.sign(a(4))]),
    ("KLDivLoss(reduction='batchmean')", [a(3, 4), np.full((3, 4), 0.25, np.float32)]),
    ("HingeEmbeddingLoss(margin=0.5)", [a(4), np.sign(a(4))]),
    ("MultiLabelSoftMarginLoss()", [a(3, 4), (a(3, 4) > 0).astype(np.float32)]),
    ("MultiMarginLoss(p=2)", [a(3, 4), idx(4, 3)]),
    ("MultiLabelMarginLoss()", [a(2, 3), np.array([[2, -1, 0], [0, 1, -1]])]),
    ("PoissonNLLLoss()", [a(4), np.abs(a(4))]),
    ("GaussianNLLLoss()", [a(4, 2), a(4, 2), np.abs(a(4, 2)) + 0.1]),
    ("CosineEmbeddingLoss(margin=0.2)", [a(3, 4), a(3, 4), np.array([1, -1, 1])]),
    ("MarginRankingLoss(margin=0.1)", [a(4), a(4), np.sign(a(4))]),
    ("TripletMarginLoss(margin=0.5)", [a(3, 4), a(3, 4), a(3, 4)]),
    ("TripletMarginWithDistanceLoss(swap=True)", [a(3, 4), a(3, 4), a(3, 4)]),
]


@pytest.mark.parametrize("expr,inputs", LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_module(torch, expr, inputs):
    results = []
    for lib in (numtorch, torch):
        m = eval("lib.nn." + expr, {"lib": lib})
        xs = [lib.from_numpy(x.copy()) for x in inputs]
        xs[0].requires_grad_(True)
        out = m(*xs)
        out.backward(lib.ones_like(out))
        results.append((repr(m), out, xs[0].grad))
    assert results[0][0] == results[1][0]
    assert_close(results[0][1], results[1][1], what="loss")
    assert_close(results[0][2], results[1][2], rtol=1e-5, atol=1e-6, what="input grad")


def test_batchnorm_running_stats_over_steps(torch):
    x = a(6, 3, 4)
    stats = []
    for lib in (numtorch, torch):
        bn = lib.nn.BatchNorm1d(3, momentum=None)
        for k in range(3):
            bn(lib.from_numpy(x * (k + 1)))
        bn.eval()
        y = bn(lib.from_numpy(x))
        stats.append((bn.running_mean.numpy().copy(), bn.running_var.numpy().copy(),
                      int(bn.num_batches_tracked), y.detach().numpy()))
    for m, r in zip(stats[0], stats[1]):
        np.testing.assert_allclose(m, r, rtol=1e-5, atol=1e-6)


def test_containers(torch):
    def build(lib):
        nn = lib.nn
        lib.manual_seed(0)
        seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        seq.append(nn.Sigmoid())
        seq.insert(1, nn.Tanh())
        del seq[2]
        ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])
        ml.extend([nn.Identity()])
        md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(1, 1)})
        pl = nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(3, 1)])
        pd = nn.ParameterDict({"w": nn.Parameter(lib.ones(1)), "v": lib.zeros(2)})
        return (seq, seq[1:3], seq[-1], len(seq), ml, ml[1:], md, list(md.keys()), pl, pd,
                [n for n, _ in seq.named_parameters()], [n for n, _ in pd.named_parameters()],
                seq + nn.Sequential(nn.ReLU()), nn.Sequential(nn.ReLU()) * 2)
    mine, ref = build(numtorch), build(torch)
    assert [repr(m) for m in mine] == [repr(r) for r in ref]


def test_module_backward_hooks(torch):
    def run(lib):
        lib.manual_seed(0)
        lin = lib.nn.Linear(3, 2)
        log = []

        def hook(m, gin, gout):
            log.append(("hook", [None if g is None else g.sum().item() for g in gin],
                        [g.sum().item() for g in gout]))
            return tuple(g * 2 for g in gin)

        def pre_hook(m, gout):
            log.append(("pre", tuple(gout[0].shape)))
            return (gout[0] * 3,)

        lin.register_full_backward_hook(hook)
        lin.register_full_backward_pre_hook(pre_hook)
        x = lib.ones(4, 3, requires_grad=True)
        y = lin(x)
        log.append(y.grad_fn.name())
        y.sum().backward()
        return log, x.grad.numpy().copy(), lin.weight.grad.numpy().copy()
    mine, ref = run(numtorch), run(torch)
    assert mine[0][0] == ref[0][0] and mine[0][1] == ref[0][1]
    np.testing.assert_allclose(mine[0][2][1], ref[0][2][1], rtol=1e-5)
    np.testing.assert_allclose(mine[1], ref[1], rtol=1e-5)
    np.testing.assert_allclose(mine[2], ref[2], rtol=1e-5)


def test_global_forward_hooks(torch):
    """register_module_forward_(pre_)hook: run for every module, before the module's own."""
    def run(lib):
        lib.manual_seed(0)
        seq = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
        log = []
        seq[0].register_forward_hook(lambda m, a, o: log.append("own"))
        handles = [
            lib.nn.modules.module.register_module_forward_pre_hook(
                lambda m, a: log.append(("pre", type(m).__name__))),
            lib.nn.modules.module.register_module_forward_hook(
                lambda m, a, o: log.append(("post", type(m).__name__))),
            lib.nn.modules.module.register_module_forward_hook(
                lambda m, a, k, o: o * 2, with_kwargs=True)]
        try:
            out = seq(lib.ones(1, 2))
        finally:
            for h in handles:
                h.remove()
        seq(lib.ones(1, 2))
        return log, out.detach().numpy()
    (log_m, out_m), (log_r, out_r) = run(numtorch), run(torch)
    assert log_m == log_r
    np.testing.assert_allclose(out_m, out_r, rtol=1e-6)


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")
def test_backward_hook_without_input_grad(torch):
    for lib in (numtorch, torch):
        lin = lib.nn.Linear(2, 1)
        seen = []
        lin.register_full_backward_hook(lambda m, gi, go: seen.append(gi))
        lin(lib.ones(3, 2)).sum().backward()
        assert seen == [(None,)]


MODULE_ERRORS = [
    lambda lib: lib.nn.Conv2d(3, 4, 3, groups=2),
    lambda lib: lib.nn.Conv2d(2, 4, 3, stride=2, padding="same"),
    lambda lib: lib.nn.Conv1d(2, 4, 3, padding="full"),
    lambda lib: lib.nn.ConvTranspose2d(2, 4, 3, padding_mode="reflect"),
    lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(2, 3, 4, 5)),
    lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 3)),
    lambda lib: lib.nn.Sequential(lib.nn.ReLU())[3],
    lambda lib: lib.nn.ModuleList([lib.nn.ReLU()])[-2],
    lambda lib: lib.nn.Dropout(2.0),
    lambda lib: lib.nn.GroupNorm(3, 4),
    lambda lib: lib.nn.Linear(3, 2)(lib.ones(2, 4)),
    lambda lib: lib.nn.ParameterList([lib.ones(1)])(),
    lambda lib: lib.nn.MultiMarginLoss(p=3),
    lambda lib: lib.nn.Hardtanh(1, 0),
    lambda lib: lib.nn.Embedding(3, 2, padding_idx=5),
    lambda lib: lib.nn.InstanceNorm1d(3, affine=True)(lib.ones(2, 4, 5)),
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(5, 2, 2)),
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(5, 2, 3), (lib.ones(1, 3, 4), lib.ones(1, 2, 4))),
    lambda lib: lib.nn.GRU(3, 4)(lib.ones(5, 2, 3), lib.ones(2, 4)),
    lambda lib: lib.nn.GRU(3, 4, proj_size=2),
    lambda lib: lib.nn.RNN(3, 4, nonlinearity="gelu"),
    lambda lib: lib.nn.LSTM(3, 4, proj_size=4),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.ones(2, 2, 3)),
    # PyTorch names a plain tensor by torch.typename: 'torch.FloatTensor'
    lambda lib: lib.nn.Linear(1, 1).register_parameter("w", lib.ones(1)),
    lambda lib: lib.nn.Linear(1, 1).register_parameter("w", lib.ones(1, dtype=lib.int64)),
    lambda lib: lib.nn.Linear(1, 1).register_parameter("w", 3.0),
    lambda lib: lib.nn.Linear(1, 1).register_buffer("b", 3),
]


@pytest.mark.parametrize("fn", MODULE_ERRORS, ids=[str(i) for i in range(len(MODULE_ERRORS))])
def test_module_errors(fn):
    check_error(fn)


def test_padding_mode_error_lists_modes():
    # PyTorch prints a set here, whose order varies between runs: compare the content
    with pytest.raises(ValueError, match="padding_mode must be one of .*but got "
                                         "padding_mode='mirror'"):
        numtorch.nn.Conv1d(2, 4, 3, padding_mode="mirror")


def test_attention_masks_and_weights(torch):
    q = a(2, 5, 8)
    out = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        mha = lib.nn.MultiheadAttention(8, 4, batch_first=True)
        kpm = lib.tensor([[False] * 4 + [True], [False] * 5])
        mask = lib.ones(5, 5, dtype=lib.bool).triu(1)
        x = lib.from_numpy(q.copy())
        o, w = mha(x, x, x, key_padding_mask=kpm, attn_mask=mask, average_attn_weights=False)
        out.append((o.detach().numpy(), w.detach().numpy(), mask.numpy()))
    for m, r in zip(out[0], out[1]):
        np.testing.assert_allclose(m, r, rtol=1e-5, atol=1e-6)


def test_mismatched_mask_types_warn(torch):
    for lib in (numtorch, torch):
        mha = lib.nn.MultiheadAttention(4, 2)
        x = lib.ones(3, 1, 4)
        with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask"):
            mha(x, x, x, key_padding_mask=lib.zeros(1, 3, dtype=lib.bool),
                attn_mask=lib.zeros(3, 3))


def test_encoder_nested_tensor_warning(torch):
    for lib in (numtorch, torch):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16)
        with pytest.warns(UserWarning, match="enable_nested_tensor is True, but self.use_nested"
                                             "_tensor is False because encoder_layer.self_attn"
                                             ".batch_first was not True"):
            lib.nn.TransformerEncoder(layer, 2)


def test_load_state_dict_fills_num_batches_tracked_and_repr(torch):
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        d = dict(m.state_dict())
        del d["1.num_batches_tracked"]
        sd = m.state_dict()
        del sd["1.num_batches_tracked"]
        return [repr(m.load_state_dict(d)), repr(m.load_state_dict(sd, strict=False)),
                repr(m.load_state_dict({}, strict=False))]
    assert run(numtorch) == run(torch)


def test_load_state_dict_assign_and_non_tensor_entries(torch):
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        old = m[0].weight
        sd = {k: v.clone() + 1 for k, v in m.state_dict().items()}
        m.load_state_dict(sd, assign=True)
        facts = [m[0].weight is old, type(m[0].weight).__name__, m[0].weight.requires_grad,
                 m[1].running_mean is sd["1.running_mean"], m[0].bias is sd["0.bias"]]
        bad = dict(sd, **{"0.weight": [[1.0, 2.0]] * 2})
        try:
            m.load_state_dict(bad)
        except RuntimeError as e:
            facts.append(str(e))
        return facts
    assert run(numtorch) == run(torch)


def test_data_parallel_on_cpu_wraps_the_module(torch):
    def run(lib):
        lib.manual_seed(0)
        dp = lib.nn.DataParallel(lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU()))
        return [repr(dp), list(dp.state_dict()), dp(lib.ones(1, 2)).tolist(), dp.device_ids,
                hasattr(lib.nn, "no_such_thing")]
    assert run(numtorch) == run(torch)
    check_error(lambda lib: lib.nn.parallel.data_parallel(lib.nn.Linear(2, 1), lib.ones(1, 2)))


def test_reassignment_keeps_registration_order(torch):
    """Re-assigning a parameter, submodule or Sequential slot keeps its place (state_dict
    key order, repr order), as PyTorch's __setattr__ does; a Buffer cannot take a plain
    attribute's name."""
    def run(lib):
        nn = lib.nn
        lin = nn.Linear(2, 2)
        lin.weight = nn.Parameter(lib.ones(2, 2))
        seq = nn.Sequential(nn.ReLU(), nn.Tanh())
        seq[0] = nn.GELU()
        m = nn.Module()
        m.a, m.b = nn.ReLU(), nn.Tanh()
        m.a = nn.GELU()
        m.p, m.q = nn.Parameter(lib.ones(1)), nn.Parameter(lib.ones(1))
        m.p = nn.Parameter(lib.zeros(1))
        m.z = 3
        try:
            m.z = nn.Buffer(lib.zeros(1))
            err = None
        except KeyError as e:
            err = str(e)
        return [list(lin.state_dict()), repr(seq), repr(m), list(m.state_dict()), err]
    assert run(numtorch) == run(torch)


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_legacy_backward_hook_sees_the_last_node(torch):
    """register_backward_hook: grad_input are the gradients of the output's grad_fn inputs
    (Linear: bias, input, weight.T; Conv2d: input (None here), weight, bias)."""
    def run(lib):
        lib.manual_seed(0)
        seen = []

        def hook(mod, gin, gout):
            seen.append((type(mod).__name__, [None if g is None else tuple(g.shape) for g in gin],
                         [tuple(g.shape) for g in gout]))
            return tuple(None if g is None else g * 2 for g in gin)
        lin, conv = lib.nn.Linear(3, 2), lib.nn.Conv2d(1, 2, 3)
        lin.register_backward_hook(hook)
        conv.register_backward_hook(hook)
        x = lib.randn(4, 3, requires_grad=True)
        lin(x).sum().backward()
        conv(lib.randn(1, 1, 5, 5)).sum().backward()
        try:
            lin.register_full_backward_hook(hook)
        except RuntimeError as e:
            seen.append(str(e))
        return seen, x.grad.numpy(), lin.weight.grad.numpy()
    mine, ref = run(numtorch), run(torch)
    assert mine[0] == ref[0]
    np.testing.assert_allclose(mine[1], ref[1], rtol=1e-6)
    np.testing.assert_allclose(mine[2], ref[2], rtol=1e-6)


def test_extra_state_and_state_dict_hooks(torch):
    def run(lib):
        nn = lib.nn
        log = []

        class E(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(1, 1)
                self.count = 3

            def get_extra_state(self):
                return {"count": self.count}

            def set_extra_state(self, state):
                self.count = state["count"]

        class W(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(lib.ones(2))

            def _save_to_state_dict(self, destination, prefix, keep_vars):
                super()._save_to_state_dict(destination, prefix, keep_vars)
                destination[prefix + "extra"] = lib.zeros(1)

        e = E()
        sd = e.state_dict()
        log += [list(sd), sd["_extra_state"]]
        e2 = E()
        e2.count = 0
        e2.register_load_state_dict_post_hook(lambda m, keys: log.append(("post", repr(keys))))
        e2.lin.register_load_state_dict_post_hook(lambda m, keys: log.append("child post"))
        e2.load_state_dict(sd)
        log.append(e2.count)
        seq = nn.Sequential(nn.Linear(2, 2), W())
        seq.register_state_dict_pre_hook(lambda m, prefix, kv: log.append(("pre", prefix)))
        seq[0].register_state_dict_pre_hook(lambda m, prefix, kv: log.append(("pre0", prefix)))
        seq.register_state_dict_post_hook(lambda m, d, prefix, md: log.append(list(d)))
        log.append(list(seq.state_dict(prefix="model.")))
        log.append(list(seq.state_dict().keys()))
        return log
    assert run(numtorch) == run(torch)
