"""``torch.nn.functional`` against PyTorch: values, grad_fn names, gradients and second
derivatives, one line per case."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op

rng = np.random.default_rng(0)


def a(*shape, dtype=np.float64, low=None, high=None):
    """Random test data (standard normal, or uniform in [low, high))."""
    if low is not None:
        return rng.uniform(low, high, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def idx(high, *shape):
    return rng.integers(0, high, shape).astype(np.int64)


class K:
    """A constant input (a tensor that does not require grad, e.g. a target or weight)."""

    def __init__(self, array):
        self.array = array


def F(name):
    """``name`` from the functional module of whichever library the tensors belong to;
    ``K`` constants become that library's tensors."""
    def call(*args, **kwargs):
        is_nt = any(isinstance(x, numtorch.Tensor) for x in args)
        if is_nt:
            import numtorch as lib
        else:
            import torch as lib
        args = [lib.from_numpy(x.array.copy()) if isinstance(x, K) else x for x in args]
        return getattr(lib.nn.functional, name)(*args, **kwargs)
    call.__name__ = name
    return call


X = a(3, 4, 5)
# (name, inputs, kwargs, check_op options)
ACTIVATIONS = [
    ("hardsigmoid", [X * 4], {"gradgrad": False}),
    ("relu", [X], {}), ("relu6", [X * 4], {}), ("leaky_relu", [X], {"negative_slope": 0.2}),
    ("elu", [X], {"alpha": 1.5}), ("selu", [X], {}), ("celu", [X], {"alpha": 0.7}),
    ("gelu", [X], {}), ("gelu", [X], {"approximate": "tanh"}), ("silu", [X], {}),
    ("mish", [X], {}), ("softplus", [X], {"beta": 2.0, "threshold": 1.0}),
    ("softsign", [X], {}), ("hardtanh", [X], {"min_val": -0.5, "max_val": 0.7}),
    ("hardswish", [X * 4], {}), ("sigmoid", [X], {}),
    ("tanh", [X], {}), ("logsigmoid", [X * 10], {}), ("softmax", [X], {"dim": 1}),
    ("log_softmax", [X], {"dim": -1}), ("softmin", [X], {"dim": 0}), ("glu", [X], {"dim": 1}),
    ("glu", [a(4, 6)], {}), ("threshold", [X], {"threshold": 0.1, "value": -2.0}),
    ("prelu", [X, a(4)], {}), ("prelu", [X, np.array([0.3])], {}),
    ("tanhshrink", [X], {}), ("softshrink", [X], {"lambd": 0.3}),
    ("hardshrink", [X], {"lambd": 0.3}), ("rrelu", [X], {}),
    ("gelu", [a(10, dtype=np.float32)], {}), ("silu", [a(10, dtype=np.float32)], {}),
    ("mish", [a(10, dtype=np.float32)], {}), ("elu", [a(10, dtype=np.float32)], {}),
]


@pytest.mark.parametrize("name,inputs,kwargs", ACTIVATIONS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(ACTIVATIONS)])
def test_activation(name, inputs, kwargs):
    opts = {"gradgrad": kwargs.pop("gradgrad")} if "gradgrad" in kwargs else {}
    check_op(F(name), *inputs, kwargs=kwargs, **opts)


T = a(3, 4, 5)
P = a(6, 4, low=0.05, high=0.95)
LOSSES = [
    ("mse_loss", [X, T], {}, {}), ("mse_loss", [X, T], {"reduction": "sum"}, {}),
    ("mse_loss", [X, T], {"reduction": "none"}, {}),
    ("l1_loss", [X, T], {}, {"gradgrad": False}),
    ("l1_loss", [X, T], {"reduction": "none"}, {"gradgrad": False}), ("smooth_l1_loss", [X, T], {"beta": 0.5}, {}),
    ("smooth_l1_loss", [X, T], {"beta": 0.0}, {"gradgrad": False}),
    ("smooth_l1_loss", [X, T], {"reduction": "none"}, {}),
    ("huber_loss", [X, T], {"delta": 0.5}, {}), ("soft_margin_loss", [X, K(np.sign(T))], {}, {}),
    ("cross_entropy", [a(6, 4), idx(4, 6)], {}, {}),
    ("cross_entropy", [a(6, 4), np.array([0, 3, -100, 2, 1, 3])], {"reduction": "sum"}, {}),
    ("cross_entropy", [a(6, 4), idx(4, 6), K(a(4, low=0.5, high=2))], {}, {}),
    ("cross_entropy", [a(6, 4), idx(4, 6)], {"label_smoothing": 0.1}, {"grad_fn": False}),
    ("cross_entropy", [a(6, 4), idx(4, 6), K(a(4, low=0.5, high=2))],
     {"label_smoothing": 0.2, "reduction": "none"}, {"grad_fn": False}),
    ("cross_entropy", [a(6, 4), P], {}, {}),
    ("cross_entropy", [a(6, 4), P], {"label_smoothing": 0.1, "reduction": "sum"}, {}),
    ("cross_entropy", [a(2, 3, 4, 5), idx(3, 2, 4, 5)], {}, {}),
    ("cross_entropy", [a(4), np.array(2)], {}, {}),
    ("nll_loss", [a(6, 4), idx(4, 6)], {"reduction": "none"}, {}),
    ("nll_loss", [a(2, 3, 4), idx(3, 2, 4)], {"ignore_index": 1}, {}),
    ("nll_loss", [a(2, 3, 4, 5), idx(3, 2, 4, 5)], {}, {}),
    ("binary_cross_entropy", [P, a(6, 4, low=0, high=1)], {}, {}),
    ("binary_cross_entropy", [P, a(6, 4, low=0, high=1), K(a(4, low=0.5, high=2))],
     {"reduction": "sum"}, {}),
    ("binary_cross_entropy_with_logits", [a(6, 4), a(6, 4, low=0, high=1)], {}, {}),
    ("binary_cross_entropy_with_logits", [a(6, 4), a(6, 4, low=0, high=1), None, None, None,
                                          "none", K(a(4, low=0.5, high=3))], {}, {}),
    ("kl_div", [np.log(P), a(6, 4, low=0.1, high=1)], {"reduction": "batchmean"}, {}),
    ("kl_div", [np.log(P), np.log(P[::-1].copy())], {"reduction": "sum", "log_target": True},
     {}),
    ("cosine_embedding_loss", [a(5, 3), a(5, 3), np.array([1, -1, 1, -1, 1])], {"margin": 0.1},
     {}),
    ("margin_ranking_loss", [a(6), a(6), np.sign(a(6))], {"margin": 0.2}, {}),
    ("hinge_embedding_loss", [a(6, 3), np.sign(a(6, 3))], {}, {}),
    ("triplet_margin_loss", [a(5, 3), a(5, 3), a(5, 3)], {"swap": True}, {}),
    ("poisson_nll_loss", [a(6), a(6, low=0, high=4)], {"full": True}, {}),
    ("poisson_nll_loss", [a(6, low=0.1, high=2), a(6, low=0, high=4)], {"log_input": False},
     {}),
    ("gaussian_nll_loss", [a(6, 2), a(6, 2), a(6, 2, low=0.1, high=2)], {"full": True}, {}),
    ("multilabel_soft_margin_loss", [a(5, 3), np.sign(a(5, 3)).clip(0)], {}, {}),
    ("multi_margin_loss", [a(5, 4), idx(4, 5)], {}, {"gradgrad": False}),
    ("multi_margin_loss", [a(5, 4), idx(4, 5)], {"p": 2, "margin": 0.5,
                                                  "reduction": "none"}, {"gradgrad": False}),
    ("multilabel_margin_loss", [a(3, 4), np.array([[3, 0, -1, 1], [0, 1, 2, 3],
                                                   [1, -1, 0, 0]])], {},
     {"gradgrad": False}),
    ("multilabel_margin_loss", [a(3, 4), np.array([[3, 0, -1, 1], [0, 1, 2, 3],
                                                   [1, -1, 0, 0]])], {"reduction": "none"},
     {"gradgrad": False}),
]


@pytest.mark.parametrize("name,inputs,kwargs,opts", LOSSES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(LOSSES)])
def test_loss(name, inputs, kwargs, opts):
    check_op(F(name), *inputs, kwargs=kwargs, **opts)


IMG = a(2, 4, 7, 6)
SEQ = a(2, 4, 9)
SHAPES = [
    ("linear", [a(3, 5), a(4, 5), a(4)], {}, {}),
    ("linear", [a(2, 3, 5), a(4, 5)], {}, {}),
    ("bilinear", [a(3, 2), a(3, 4), a(5, 2, 4), a(5)], {}, {}),
    ("bilinear", [a(2, 3, 2), a(2, 3, 4), a(5, 2, 4)], {}, {}),
    ("embedding", [idx(5, 2, 3), a(5, 4)], {}, {}),
    # PyTorch's double backward ignores scale_grad_by_freq: compare first derivatives
    ("embedding", [idx(5, 7), a(5, 4)], {"padding_idx": 1, "scale_grad_by_freq": True},
     {"gradgrad": False}),
    ("normalize", [a(3, 4)], {}, {}), ("normalize", [a(3, 4)], {"p": 1, "dim": 0}, {}),
    ("cosine_similarity", [a(3, 4), a(3, 4)], {}, {"grad_fn": False}),
    ("pairwise_distance", [a(3, 4), a(3, 4)], {}, {}),
    ("pairwise_distance", [a(3, 4), a(3, 4)], {"p": 1.0, "keepdim": True}, {}),
    ("pdist", [a(4, 3)], {}, {"grad_fn": False, "gradgrad": False}),
    ("pad", [SEQ, (1, 2)], {}, {}), ("pad", [IMG, (1, 2, 0, 1)], {"value": 0.5}, {}),
    ("pad", [IMG, (-1, 2, 1, -2)], {}, {}),
    ("pad", [SEQ, (2, 3)], {"mode": "reflect"}, {}),
    ("pad", [IMG, (2, 1, 3, 0)], {"mode": "reflect"}, {}),
    ("pad", [IMG, (2, 1, 3, 0)], {"mode": "replicate"}, {}),
    ("pad", [SEQ, (2, 3)], {"mode": "circular"}, {}),
    ("pad", [IMG, (1, 2, 2, 1)], {"mode": "circular"}, {}),
    ("pad", [a(1, 2, 3, 3, 3), (1, 1, 1, 1, 1, 1)], {"mode": "replicate"}, {}),
    ("one_hot", [idx(4, 5)], {}, {}), ("one_hot", [idx(3, 2, 2)], {"num_classes": 5}, {}),
    ("pixel_shuffle", [a(1, 8, 2, 3), 2], {}, {"grad_fn": False}),
    ("pixel_unshuffle", [a(1, 2, 4, 6), 2], {}, {"grad_fn": False}),
    ("unfold", [IMG, (2, 3)], {"stride": 2, "padding": 1, "dilation": (1, 2)}, {}),
    ("fold", [a(2, 12, 8), (5, 6), (2, 3)], {"stride": (1, 2)}, {}),
]


@pytest.mark.parametrize("name,inputs,kwargs,opts", SHAPES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(SHAPES)])
def test_shape_ops(name, inputs, kwargs, opts):
    check_op(F(name), *inputs, kwargs=kwargs, **opts)


CONV = [
    ("conv1d", [SEQ, a(6, 4, 3), a(6)], {}),
    ("conv1d", [SEQ, a(6, 2, 3)], {"stride": 2, "padding": 2, "dilation": 2, "groups": 2}),
    ("conv1d", [SEQ, a(3, 4, 5), a(3)], {"padding": "same"}),
    ("conv1d", [SEQ, a(3, 4, 4)], {"padding": "valid"}),
    ("conv1d", [a(4, 9), a(3, 4, 2)], {}),
    ("conv2d", [IMG, a(6, 4, 3, 2), a(6)], {"stride": (2, 1), "padding": (1, 0)}),
    ("conv2d", [IMG, a(4, 1, 3, 3)], {"groups": 4, "dilation": 2, "padding": 2}),
    ("conv2d", [IMG, a(5, 4, 2, 3)], {"padding": "same", "dilation": (2, 1)}),
    ("conv3d", [a(1, 2, 4, 5, 3), a(3, 2, 2, 3, 2), a(3)], {"padding": 1}),
    ("conv_transpose1d", [SEQ, a(4, 3, 3), a(3)], {"stride": 2, "padding": 1,
                                                   "output_padding": 1}),
    ("conv_transpose2d", [IMG, a(4, 2, 3, 2)], {"stride": 2, "groups": 2, "dilation": (1, 2)}),
]


@pytest.mark.parametrize("name,inputs,kwargs", CONV,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CONV)])
def test_conv(name, inputs, kwargs):
    check_op(F(name), *inputs, kwargs=kwargs, rtol=1e-7, atol=1e-9)


POOL = [
    ("max_pool1d", [SEQ, 2], {}, {}),
    ("max_pool1d", [SEQ, 3], {"stride": 2, "padding": 1, "ceil_mode": True,
                              "return_indices": True}, {}),
    ("max_pool2d", [IMG, 2], {}, {}),
    ("max_pool2d", [IMG, (3, 2)], {"stride": (2, 1), "padding": 1, "dilation": (1, 2),
                                   "return_indices": True}, {}),
    ("max_pool2d", [IMG, 3], {"stride": 2, "ceil_mode": True}, {}),
    ("max_pool2d", [a(4, 5, 5), 2], {}, {}),
    ("avg_pool1d", [SEQ, 3], {"stride": 2, "padding": 1}, {}),
    ("avg_pool1d", [SEQ, 4], {"ceil_mode": True, "count_include_pad": False}, {}),
    ("avg_pool2d", [IMG, 2], {}, {}),
    ("avg_pool2d", [IMG, 3], {"stride": 2, "padding": 1, "ceil_mode": True,
                              "count_include_pad": False}, {}),
    ("avg_pool2d", [IMG, 3], {"stride": 2, "padding": 1, "ceil_mode": True}, {}),
    ("avg_pool2d", [IMG, 2], {"divisor_override": 3}, {}),
    ("adaptive_avg_pool1d", [SEQ, 4], {}, {}),
    ("adaptive_avg_pool2d", [IMG, (3, 4)], {}, {}),
    ("adaptive_avg_pool2d", [IMG, (None, 1)], {}, {}),
    ("adaptive_avg_pool2d", [IMG, 1], {}, {}),
    ("adaptive_avg_pool1d", [SEQ, 1], {}, {}),
    ("adaptive_max_pool1d", [SEQ, 4], {}, {}),
    ("adaptive_max_pool2d", [IMG, (3, 4)], {"return_indices": True}, {}),
    ("lp_pool1d", [np.abs(SEQ) + 0.1, 2, 3], {}, {"grad_fn": False}),
    ("lp_pool2d", [np.abs(IMG) + 0.1, 1.5, 2], {}, {"grad_fn": False}),
    ("interpolate", [SEQ], {"scale_factor": 2}, {}),
    ("interpolate", [SEQ], {"size": 13}, {}),
    ("interpolate", [SEQ], {"size": 5, "mode": "nearest-exact"}, {}),
    ("interpolate", [SEQ], {"scale_factor": 1.7, "mode": "linear"}, {}),
    ("interpolate", [SEQ], {"size": 4, "mode": "linear", "align_corners": True}, {}),
    ("interpolate", [IMG], {"size": (9, 4), "mode": "bilinear"}, {}),
    ("interpolate", [IMG], {"scale_factor": (1.5, 0.5), "mode": "bilinear",
                            "align_corners": True}, {}),
    ("interpolate", [IMG], {"scale_factor": 2, "mode": "nearest"}, {}),
    ("interpolate", [IMG], {"size": (3, 4), "mode": "area"}, {"grad_fn": False}),
]


@pytest.mark.parametrize("name,inputs,kwargs,opts", POOL,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(POOL)])
def test_pool_and_resample(name, inputs, kwargs, opts):
    check_op(F(name), *inputs, kwargs=kwargs, **opts)


C = a(4, 3, 5)
NORMS = [
    ("batch_norm", [C, None, None, a(3), a(3)], {"training": True}, {}),
    ("batch_norm", [C, K(a(3)), K(a(3, low=0.5, high=2)), a(3), a(3)], {}, {}),
    ("batch_norm", [a(6, 3), None, None], {"training": True}, {}),
    ("layer_norm", [C, (5,), a(5), a(5)], {}, {}),
    ("layer_norm", [C, (3, 5)], {"eps": 1e-3}, {}),
    ("group_norm", [a(2, 6, 5), 3, a(6), a(6)], {}, {}),
    ("group_norm", [a(2, 4, 3, 3), 2], {}, {}),
    ("instance_norm", [C, None, None, a(3), a(3)], {}, {"grad_fn": False}),
    ("rms_norm", [C, (5,), a(5)], {}, {}),
    ("rms_norm", [C, (3, 5)], {"eps": 1e-2}, {}),
    ("local_response_norm", [a(2, 5, 4), 3], {}, {"grad_fn": False}),
]


@pytest.mark.parametrize("name,inputs,kwargs,opts", NORMS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(NORMS)])
def test_norm(name, inputs, kwargs, opts):
    check_op(F(name), *inputs, kwargs=kwargs, **opts)


def test_batch_norm_running_stats(torch):
    x = a(8, 3, 2, dtype=np.float32)
    stats = {}
    for lib in (numtorch, torch):
        rm, rv = lib.zeros(3), lib.ones(3)
        lib.nn.functional.batch_norm(lib.tensor(x), rm, rv, training=True, momentum=0.3)
        stats[lib.__name__] = (rm.numpy(), rv.numpy())
    np.testing.assert_allclose(stats["numtorch"][0], stats["torch"][0], rtol=1e-6)
    np.testing.assert_allclose(stats["numtorch"][1], stats["torch"][1], rtol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.dropout(lib.ones(50, 4), 0.3),
    lambda lib: lib.nn.functional.dropout(lib.ones(7), 0.5, training=False),
    lambda lib: lib.nn.functional.dropout1d(lib.ones(3, 6, 2), 0.5),
    lambda lib: lib.nn.functional.dropout2d(lib.ones(2, 6, 2, 2), 0.4),
    lambda lib: lib.nn.functional.dropout3d(lib.ones(2, 3, 1, 2, 2), 0.4),
    lambda lib: lib.nn.functional.alpha_dropout(lib.ones(20), 0.2, training=True),
    lambda lib: lib.nn.functional.feature_alpha_dropout(lib.ones(2, 5, 3), 0.2, True),
    lambda lib: lib.nn.functional.rrelu(-lib.ones(20), training=True),
    lambda lib: lib.nn.functional.gumbel_softmax(lib.zeros(3, 4), tau=0.5, hard=True),
    lambda lib: lib.nn.functional.dropout(lib.ones(30, dtype=lib.float64), 0.9),
], ids=["dropout", "eval", "1d", "2d", "3d", "alpha", "feature-alpha", "rrelu", "gumbel",
        "f64"])
def test_random_ops_follow_torch_stream(torch, fn):
    results = []
    for lib in (numtorch, torch):
        lib.manual_seed(3)
        results.append((fn(lib).numpy().copy(), lib.rand(2).numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_dropout_grad_fn_and_inplace(torch):
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        x = lib.ones(4, requires_grad=True) * 1
        y = lib.nn.functional.dropout(x, 0.5)
        assert y.grad_fn.name() == "MulBackward0"
        z = lib.ones(6)
        assert lib.nn.functional.dropout(z, 0.5, inplace=True) is z


def test_scaled_dot_product_attention(torch):
    q, k, v, m = a(2, 3, 4), a(2, 5, 4), a(2, 5, 4), a(3, 5) > 0
    check_op(F("scaled_dot_product_attention"), q, k, v, kwargs={}, grad_fn=False)
    check_op(F("scaled_dot_product_attention"), q, k, v, m, kwargs={}, grad_fn=False)
    check_op(F("scaled_dot_product_attention"), q, k[:, :3], v[:, :3],
             kwargs={"is_causal": True, "scale": 0.3}, grad_fn=False)


ERRORS = [
    lambda lib: lib.nn.functional.conv1d(lib.ones(1, 2, 5), lib.ones(3, 3, 2)),
    lambda lib: lib.nn.functional.conv1d(lib.ones(1, 3, 2), lib.ones(3, 3, 4)),
    lambda lib: lib.nn.functional.conv2d(lib.ones(2, 5), lib.ones(3, 3, 4, 1)),
    lambda lib: lib.nn.functional.conv1d(lib.ones(1, 3, 5), lib.ones(3, 3, 2), stride=2,
                                         padding="same"),
    lambda lib: lib.nn.functional.cross_entropy(lib.ones(3, 4), lib.tensor([0, 5, 1])),
    lambda lib: lib.nn.functional.nll_loss(lib.ones(3, 4), lib.tensor([0, 1])),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(3) * 2, lib.ones(3)),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(3) / 2, lib.ones(2)),
    lambda lib: lib.nn.functional.mse_loss(lib.ones(3), lib.ones(3), reduction="avg"),
    lambda lib: lib.nn.functional.dropout(lib.ones(3), 1.5),
    lambda lib: lib.nn.functional.dropout1d(lib.ones(3), 0.5),
    lambda lib: lib.nn.functional.batch_norm(lib.ones(1, 3), None, None, training=True),
    lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3), (4,)),
    lambda lib: lib.nn.functional.group_norm(lib.ones(2, 3, 4), 2),
    lambda lib: lib.nn.functional.pad(lib.ones(2, 3), (1,)),
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 3), (3, 3), mode="reflect"),
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 3, 3), (1, 1), mode="reflect"),
    lambda lib: lib.nn.functional.pad(lib.ones(3, 3), (1, 1, 1, 1), mode="circular"),
    lambda lib: lib.nn.functional.max_pool2d(lib.ones(1, 1, 4, 4), 2, padding=2),
    lambda lib: lib.nn.functional.one_hot(lib.tensor([0, 3]), 3),
    lambda lib: lib.nn.functional.one_hot(lib.tensor([0.0])),
    lambda lib: lib.nn.functional.embedding(lib.tensor([4]), lib.ones(3, 2)),
    # with max_norm, PyTorch's renormalisation selects the rows first: its message wins
    lambda lib: lib.nn.functional.embedding(lib.tensor([0, 4]), lib.ones(3, 2), max_norm=1.0),
    lambda lib: lib.nn.functional.embedding(lib.tensor([-4]), lib.ones(3, 2), max_norm=1.0),
    lambda lib: lib.nn.functional.embedding(lib.tensor([-1]), lib.ones(3, 2), max_norm=1.0),
    # nll_loss takes Long or Byte class targets ((N, C) input); its N-d kernel only Long
    lambda lib: lib.nn.functional.cross_entropy(lib.ones(3, 4), lib.tensor([0.0, 1.0, 2.0])),
    lambda lib: lib.nn.functional.nll_loss(lib.ones(3, 4), lib.tensor([0, 1, 2],
                                                                      dtype=lib.int32)),
    lambda lib: lib.nn.functional.nll_loss(lib.ones(3, 4, 2),
                                           lib.zeros(3, 2, dtype=lib.uint8)),
    lambda lib: lib.nn.functional.multi_margin_loss(lib.ones(3, 4),
                                                    lib.zeros(3, dtype=lib.uint8)),
    # target shapes: nll_loss's checks, in PyTorch's order
    lambda lib: lib.nn.functional.cross_entropy(lib.ones(4, 3), lib.zeros(4, 1, dtype=lib.long)),
    lambda lib: lib.nn.functional.cross_entropy(lib.ones(4, 3), lib.zeros(4, 2)),
    lambda lib: lib.nn.functional.cross_entropy(lib.ones(4, 3), lib.tensor(1)),
    lambda lib: lib.nn.functional.nll_loss(lib.ones(2, 3, 4), lib.zeros(2, 5, dtype=lib.long)),
    lambda lib: lib.nn.functional.nll_loss(lib.ones(2, 3, 4, 5), lib.zeros(2, 4, dtype=lib.long)),
    lambda lib: lib.nn.functional.nll_loss(lib.ones(2, 3, 4, 5),
                                           lib.zeros(2, 4, 6, dtype=lib.long)),
    lambda lib: lib.nn.functional.nll_loss(lib.ones(2, 3, 4, 5, 6),
                                           lib.zeros(2, 4, 5, 7, dtype=lib.long)),
    # binary cross entropy: target dtypes
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(2) / 2,
                                                       lib.ones(2, dtype=lib.long)),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(2) / 2, lib.ones(2).double()),
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.ones(2).double(), lib.ones(2, dtype=lib.uint8)),
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.ones(2), lib.ones(2, dtype=lib.long)),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4), size=2, scale_factor=2),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4), scale_factor=2,
                                              align_corners=True),
    lambda lib: lib.nn.functional.glu(lib.ones(3)),
    lambda lib: lib.nn.functional.prelu(lib.ones(2, 3), lib.ones(2)),
    lambda lib: lib.nn.functional.prelu(lib.tensor([[-1, 1]]), lib.tensor([1])),
    lambda lib: lib.nn.functional.prelu(lib.ones(1, 2), lib.ones(1, dtype=lib.float64)),
    lambda lib: lib.nn.functional.prelu(lib.tensor([1]), lib.tensor([1.0])),
    lambda lib: lib.nn.functional.prelu(lib.ones(2), 2.0),
    lambda lib: lib.nn.functional.hardshrink(lib.tensor([-1, 2])),
    lambda lib: lib.nn.functional.hardshrink(lib.tensor([True])),
    lambda lib: lib.nn.functional.hardshrink(lib.tensor([1j])),
    lambda lib: lib.nn.functional.hardshrink(lib.ones(2), "a"),
    lambda lib: lib.hardshrink(lib.ones(2), None),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(fn):
    check_error(fn)


# ---- the Tensor methods hardshrink and prelu -------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda x, w: x.hardshrink(), lambda x, w: x.hardshrink(0.3),
    lambda x, w: x.hardshrink(lambd=1.2), lambda x, w: x.prelu(w),
    lambda x, w: x.prelu(weight=w[:1]),
], ids=["hardshrink", "hardshrink-lambd", "hardshrink-kw", "prelu", "prelu-shared"])
def test_activation_methods(fn):
    check_op(fn, X, a(4))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.tensor([-1, 2]).hardshrink(), lambda lib: lib.ones(2).hardshrink("a"),
    lambda lib: lib.ones(2).hardshrink(None), lambda lib: lib.tensor([[-1, 1]]).prelu(
        lib.tensor([1])), lambda lib: lib.ones(2, 3).prelu(lib.ones(2)),
    lambda lib: lib.ones(2).prelu(0.5), lambda lib: lib.ones(1).prelu(lib.ones(1).double()),
], ids=["hardshrink-int", "hardshrink-str", "hardshrink-None", "prelu-int", "prelu-channels",
        "prelu-float", "prelu-promote"])
def test_activation_method_errors(fn):
    check_error(fn)


def test_numerical_gradients_without_torch():
    from helpers import numerical_grad_check
    import numtorch.nn.functional as Fn
    numerical_grad_check(lambda x, w: Fn.conv1d(x, w, padding=1, stride=2), [a(2, 2, 5),
                                                                               a(3, 2, 2)])
    numerical_grad_check(lambda x, w: Fn.conv_transpose2d(x, w, stride=2),
                         [a(1, 2, 3, 2), a(2, 1, 2, 2)])
    numerical_grad_check(lambda x: Fn.max_pool1d(x, 2), [a(1, 2, 6)], order=1)
    numerical_grad_check(lambda x: Fn.avg_pool2d(x, 2, ceil_mode=True), [a(1, 1, 3, 3)],
                         order=1)
    numerical_grad_check(lambda x, w: Fn.layer_norm(x, (4,), w), [a(3, 4), a(4)])
    numerical_grad_check(lambda x: Fn.batch_norm(x, None, None, training=True), [a(4, 3)])
    numerical_grad_check(lambda x: Fn.group_norm(x, 2), [a(2, 4, 2)])
    numerical_grad_check(lambda x: Fn.gelu(x), [a(5)])


@pytest.mark.filterwarnings("ignore:Using padding='same'")
def test_conv_same_even_kernel():
    check_op(F("conv2d"), IMG, a(3, 4, 2, 4), kwargs={"padding": "same", "dilation": (3, 1)},
             rtol=1e-7, atol=1e-9)


GIMG, GRID = a(2, 3, 4, 5), a(2, 6, 7, 2, low=-1.3, high=1.3)
GVOL, GRID3 = a(2, 2, 3, 4, 5), a(2, 3, 2, 4, 3, low=-1.3, high=1.3)
GRIDS = [(m, p, ac) for m in ("bilinear", "nearest") for p in ("zeros", "border", "reflection")
         for ac in (False, True)]


@pytest.mark.parametrize("mode,padding_mode,align_corners", GRIDS)
def test_grid_sample(mode, padding_mode, align_corners):
    kw = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    check_op(F("grid_sample"), GIMG, GRID, kwargs=kw, gradgrad=False)
    check_op(F("grid_sample"), GVOL, GRID3, kwargs=kw, gradgrad=False)
    check_op(F("grid_sample"), GIMG.astype(np.float32), GRID.astype(np.float32), kwargs=kw,
             gradgrad=False)


@pytest.mark.parametrize("theta,size,ac", [
    (a(2, 2, 3), (2, 3, 4, 5), False), (a(2, 2, 3), (2, 3, 4, 5), True),
    (a(2, 3, 4), (2, 1, 4, 5, 3), False), (a(2, 3, 4), (2, 1, 4, 5, 3), True),
    (a(1, 2, 3, dtype=np.float32), (1, 1, 1, 6), False)])
def test_affine_grid(theta, size, ac):
    check_op(F("affine_grid"), theta, size, kwargs={"align_corners": ac})


def test_affine_grid_then_grid_sample():
    def warp(x, theta):
        lib = numtorch if isinstance(x, numtorch.Tensor) else __import__("torch")
        grid = lib.nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
        return lib.nn.functional.grid_sample(x, grid, align_corners=False)
    check_op(warp, GIMG, a(2, 2, 3), gradgrad=False)


GRID_ERRORS = [
    lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.ones(1, 1, 1, 2),
                                              mode="cubic"),
    lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.ones(1, 1, 1, 2),
                                              padding_mode="wrap"),
    lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.ones(2, 1, 1, 2),
                                              align_corners=True),
    lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.ones(1, 1, 1, 3),
                                              align_corners=True),
    lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 2, 3), (1, 1, 2), False),
    lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 3, 3), (1, 1, 2, 2), False),
    lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 2, 3, dtype=lib.int64), (1, 1, 2, 2)),
]


@pytest.mark.parametrize("fn", GRID_ERRORS, ids=[str(i) for i in range(len(GRID_ERRORS))])
def test_grid_errors(fn):
    check_error(fn)


def test_grid_sample_warns_without_align_corners(torch):
    for lib in (numtorch, torch):
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
            lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2))


def _mha(q, k, v, w, b, ow, ob, mask=None, mask_name=None, **kw):
    """F.multi_head_attention_forward with embed 6, 2 heads (``mask`` passed as mask_name)."""
    lib = numtorch if isinstance(q, numtorch.Tensor) else __import__("torch")
    if mask is not None:
        kw[mask_name] = mask
    out = lib.nn.functional.multi_head_attention_forward(q, k, v, 6, 2, w, b, None, None, False,
                                                         0.0, ow, ob, **kw)
    return out if out[1] is not None else out[0]


def _mha_separate(q, k, v, wq, wk, wv, bk, bv, ow):
    lib = numtorch if isinstance(q, numtorch.Tensor) else __import__("torch")
    return lib.nn.functional.multi_head_attention_forward(
        q, k, v, 6, 2, None, None, bk, bv, True, 0.0, ow, None, use_separate_proj_weight=True,
        q_proj_weight=wq, k_proj_weight=wk, v_proj_weight=wv)


def _mha_static(q, k, v, w, ow, sk, sv):
    lib = numtorch if isinstance(q, numtorch.Tensor) else __import__("torch")
    return lib.nn.functional.multi_head_attention_forward(
        q, k, v, 6, 2, w, None, None, None, False, 0.0, ow, None, static_k=sk, static_v=sv)


def test_multi_head_attention_forward():
    qkv = (a(3, 2, 6), a(4, 2, 6), a(4, 2, 6))
    proj = (a(18, 6), a(18), a(6, 6), a(6))
    check_op(_mha, *qkv, *proj, grad_fn=False)
    # torch's need_weights=False path (flash attention) has no double backward
    check_op(_mha, *qkv, *proj, np.array([[0, 0, 1, 0], [0, 0, 0, 0]], bool),
             "key_padding_mask", kwargs={"need_weights": False}, grad_fn=False, gradgrad=False)
    check_op(_mha, a(3, 6), a(4, 6), a(4, 6), *proj, a(3, 4), "attn_mask",
             kwargs={"average_attn_weights": False}, grad_fn=False)
    check_op(_mha_separate, a(3, 2, 6), a(4, 2, 5), a(4, 2, 7), a(6, 6), a(6, 5), a(6, 7),
             a(1, 1, 6), a(1, 1, 6), a(6, 6), grad_fn=False)
    check_op(_mha_static, *qkv, a(18, 6), a(6, 6), a(4, 5, 3), a(4, 5, 3), grad_fn=False)


WITH_INDICES = [
    ("max_pool1d_with_indices", [SEQ, 3], {"stride": 2}),
    ("max_pool2d_with_indices", [IMG, 2], {}),
    ("max_pool3d_with_indices", [a(2, 2, 4, 5, 4), 2], {"padding": 1}),
    ("adaptive_max_pool1d_with_indices", [SEQ, 4], {}),
    ("adaptive_max_pool2d_with_indices", [IMG, (3, 2)], {}),
    ("adaptive_max_pool3d_with_indices", [a(2, 2, 4, 5, 4), 2], {}),
    ("channel_shuffle", [a(2, 6, 3, 2), 3], {}),
    ("channel_shuffle", [a(2, 4, 5), 2], {}),
]


@pytest.mark.parametrize("name,inputs,kwargs", WITH_INDICES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(WITH_INDICES)])
def test_pool_with_indices_and_shuffle(name, inputs, kwargs):
    check_op(F(name), *inputs, kwargs=kwargs)


@pytest.mark.parametrize("p", [2.0, 1.5, float("inf")])
def test_lp_pool3d(p):
    check_op(F("lp_pool3d"), np.abs(a(2, 2, 4, 5, 4)) + 0.1, p, 2, grad_fn=False)


def _unpool3d(x):
    lib = numtorch if isinstance(x, numtorch.Tensor) else __import__("torch")
    y, i = lib.nn.functional.max_pool3d(x, 2, return_indices=True)
    return (lib.nn.MaxUnpool3d(2)(y * 2, i),
            lib.nn.functional.max_unpool3d(y, i, 2, output_size=(5, 4, 5)))


def test_max_unpool3d():
    check_op(_unpool3d, a(2, 2, 4, 4, 4))


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_deprecated_upsample(torch, name):
    for lib in (numtorch, torch):
        with pytest.warns(UserWarning, match=f"`nn.functional.{name}` is deprecated. Use "
                                             "`nn.functional.interpolate` instead."):
            getattr(lib.nn.functional, name)(lib.ones(1, 1, 2, 2), scale_factor=2)
    with pytest.warns(UserWarning):
        check_op(F(name), a(1, 2, 3, 4), kwargs={"scale_factor": 2})


@pytest.mark.parametrize("size,args", [(3, (0.1, 0.75, 1.5)), (4, (0.1, 0.5, 2.0)),
                                       (5, ()), (8, (0.2,))])
def test_cross_map_lrn2d(torch, size, args):
    # torch's legacy backward cannot create_graph, so compare one backward by hand
    x, g = a(2, 6, 3, 2), a(2, 6, 3, 2)
    res = []
    for lib in (numtorch, torch):
        t = lib.from_numpy(x.copy()).requires_grad_()
        y = lib.nn.CrossMapLRN2d(size, *args)(t)
        y.backward(lib.from_numpy(g.copy()))
        res.append((y.detach().numpy(), t.grad.numpy(), y.grad_fn.name()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-9)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-9)
    assert res[0][2] == res[1][2]


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.channel_shuffle(lib.ones(1, 4, 2), 3),
    lambda lib: lib.nn.CrossMapLRN2d(3)(lib.ones(1, 4, 2)),
])
def test_pool_extra_errors(fn):
    check_error(fn)


def test_new_module_reprs(torch):
    for make in (lambda lib: lib.nn.CrossMapLRN2d(3, k=2), lambda lib: lib.nn.LPPool3d(2, 3),
                 lambda lib: lib.nn.MaxUnpool3d(2), lambda lib: lib.nn.ChannelShuffle(2)):
        assert repr(make(numtorch)) == repr(make(torch))


def test_embedding_max_norm_renormalises_as_torch(torch):
    """Rows over max_norm are scaled by max_norm / (norm + 1e-7) in float32, as PyTorch's
    embedding_renorm_ (a float64 norm would leave them one ulp off)."""
    out = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        emb = lib.nn.Embedding(10, 4, padding_idx=1, max_norm=1.0)
        emb(lib.tensor([[1, 2, 3], [3, 9, 1]]))
        out.append(emb.weight.detach().numpy().copy())
    np.testing.assert_array_equal(out[0], out[1])


def test_uint8_class_targets(torch):
    x = a(3, 4)
    for kwargs in ({}, {"label_smoothing": 0.1}):
        mine = numtorch.nn.functional.cross_entropy(
            numtorch.tensor(x), numtorch.tensor([0, 3, 1], dtype=numtorch.uint8), **kwargs)
        ref = torch.nn.functional.cross_entropy(
            torch.tensor(x), torch.tensor([0, 3, 1], dtype=torch.uint8), **kwargs)
        np.testing.assert_allclose(mine.numpy(), ref.numpy(), rtol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_grad_fn(torch, mode):
    names = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        out = lib.nn.EmbeddingBag(5, 2, mode=mode)(lib.tensor([[1, 2], [0, 4]]))
        names.append(type(out.grad_fn).__name__)
    assert names[0] == names[1]


def test_bce_with_logits_result_has_the_target_dtype(torch):
    x, t = a(2, 3), a(2, 3, low=0, high=1)
    for xd, td, extra in [("float32", "float64", {}), ("float64", "float32", {}),
                          ("float32", "float32", {"pos_weight": np.ones(3, np.int64)}),
                          ("float32", "float32", {"weight": np.ones(3, np.int64)})]:
        out = []
        for lib in (numtorch, torch):
            kw = {k: lib.tensor(v) for k, v in extra.items()}
            out.append(lib.nn.functional.binary_cross_entropy_with_logits(
                lib.tensor(x.astype(xd)), lib.tensor(t.astype(td)), **kw))
        assert str(out[0].dtype) == str(out[1].dtype)
        np.testing.assert_allclose(out[0].numpy(), out[1].numpy(), rtol=1e-6)
