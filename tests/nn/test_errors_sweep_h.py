"""Errors and warnings of nn functionals, modules and custom nodes match PyTorch's (sweep H:
bool/int inputs, dtype mismatches, missing arguments, bad keywords, deprecated arguments)."""
import warnings

import pytest

import numtorch
from helpers import check_error, check_same


def F(m):
    return m.nn.functional


def _bool(m):
    return m.tensor([True, False])


def _long(m, *values):
    return m.tensor(list(values))


def _identity(x):
    return x


ERROR_CASES = {
    # softmax: only F.softmax guesses a missing dim; the method and torch.softmax need it
    "method softmax no dim": lambda m: m.ones(2, 3).softmax(),
    "method log_softmax no dim": lambda m: m.ones(2, 3).log_softmax(),
    "torch.softmax no dim": lambda m: m.softmax(m.ones(2, 3)),
    "method softmax dim None": lambda m: m.ones(2, 3).softmax(dim=None),
    # subtraction with any bool operand (tanhshrink subtracts internally)
    "tanhshrink bool": lambda m: F(m).tanhshrink(_bool(m)),
    "bool - float tensor": lambda m: _bool(m) - m.tensor([0.5, 0.2]),
    "bool - int": lambda m: _bool(m) - 1,
    "int - bool": lambda m: 1 - _bool(m),
    "float - bool": lambda m: m.ones(2) - _bool(m),
    "float - True": lambda m: m.ones(2) - True,
    "sub alpha bool": lambda m: m.sub(m.ones(2), _bool(m), alpha=2),
    "rsub bool": lambda m: m.rsub(_bool(m), 1),
    "sub_ bool": lambda m: m.ones(2).sub_(_bool(m)),
    "two bools": lambda m: _bool(m) - _bool(m),
    # normalisation layers: parameter shapes, rms_norm rank and dtype
    "layer_norm weight shape": lambda m: F(m).layer_norm(m.ones(2, 3), (3,), m.ones(4)),
    "layer_norm bias shape": lambda m: F(m).layer_norm(m.ones(2, 3), (3,), m.ones(3),
                                                       m.ones(2)),
    "layer_norm 2d weight": lambda m: F(m).layer_norm(m.ones(2, 3), (3,), m.ones(1, 3)),
    "rms_norm shape": lambda m: F(m).rms_norm(m.ones(2, 3), (4, 5)),
    "rms_norm rank": lambda m: F(m).rms_norm(m.ones(2, 3), (1, 2, 3)),
    "rms_norm weight": lambda m: F(m).rms_norm(m.ones(2, 3), (3,), m.ones(4)),
    "rms_norm int": lambda m: F(m).rms_norm(m.ones(3, dtype=m.int32), (3,)),
    "RMSNorm shape": lambda m: m.nn.RMSNorm(4)(m.ones(2, 3)),
    # bilinear: one dtype for all
    "bilinear dtypes": lambda m: F(m).bilinear(m.ones(5, 2, dtype=m.float64), m.ones(5, 3),
                                               m.ones(4, 2, 3)),
    "bilinear bias dtype": lambda m: F(m).bilinear(m.ones(5, 2), m.ones(5, 3), m.ones(4, 2, 3),
                                                   m.ones(4, dtype=m.float64)),
    # dropout
    "dropout2d 1d": lambda m: F(m).dropout2d(m.ones(4)),
    "feature_alpha_dropout 1d": lambda m: F(m).feature_alpha_dropout(m.ones(4), training=True),
    "alpha_dropout long": lambda m: F(m).alpha_dropout(m.ones(4, dtype=m.long), training=True),
    "alpha_dropout bool": lambda m: F(m).alpha_dropout(m.ones(4, dtype=m.bool),
                                                       training=True),
    "alpha_dropout uint8": lambda m: F(m).alpha_dropout(m.ones(4, dtype=m.uint8),
                                                        training=True),
    # embedding indices: int32/int64 only
    "embedding bool": lambda m: F(m).embedding(m.ones(2, dtype=m.bool), m.ones(3, 2)),
    "embedding uint8": lambda m: F(m).embedding(m.ones(2, dtype=m.uint8), m.ones(3, 2)),
    "embedding int16": lambda m: F(m).embedding(m.ones(2, dtype=m.int16), m.ones(3, 2)),
    "embedding half": lambda m: F(m).embedding(m.ones(2, dtype=m.float16), m.ones(3, 2)),
    "embedding_bag float": lambda m: F(m).embedding_bag(m.ones(2), m.ones(3, 2),
                                                        _long(m, 0)),
    "embedding_bag float offsets": lambda m: F(m).embedding_bag(
        m.ones(2, dtype=m.long), m.ones(3, 2), m.tensor([0.0])),
    # in-place activations on integer tensors
    "elu_ long": lambda m: F(m).elu(_long(m, 1, 0), inplace=True),
    "selu_ int32": lambda m: F(m).selu(m.tensor([1, 0], dtype=m.int32), inplace=True),
    "celu_ bool": lambda m: F(m).celu(_bool(m), inplace=True),
    "silu_ long": lambda m: F(m).silu(_long(m, 1, 0), inplace=True),
    "mish_ uint8": lambda m: F(m).mish(m.tensor([1, 0], dtype=m.uint8), inplace=True),
    "hardswish_ long": lambda m: F(m).hardswish(_long(m, 1, 0), inplace=True),
    "hardsigmoid_ long": lambda m: F(m).hardsigmoid(_long(m, 1, 0), inplace=True),
    "leaky_relu_ long": lambda m: F(m).leaky_relu(_long(m, 1, 0), inplace=True),
    "rrelu_ long": lambda m: F(m).rrelu(_long(m, 1, 0), inplace=True),
    "rrelu train long": lambda m: F(m).rrelu(_long(m, 1, 0), training=True),
    "celu alpha 0": lambda m: F(m).celu(m.ones(2), 0.0),
    # argument errors name PyTorch's functions and classes
    "threshold missing value": lambda m: F(m).threshold(m.ones(2), 0.5),
    "ReLU bad keyword": lambda m: m.nn.ReLU(inplac=True),
    "Sigmoid keyword": lambda m: m.nn.Sigmoid(bogus=1),
    "Sigmoid positional": lambda m: m.nn.Sigmoid(1),
    "CELU bad keyword": lambda m: m.nn.CELU(bogus=1),
    "Softshrink bad keyword": lambda m: m.nn.Softshrink(bogus=1),
    "AvgPool3d bad keyword": lambda m: m.nn.AvgPool3d(bogus=1),
    "MaxPool2d bad keyword": lambda m: m.nn.MaxPool2d(2, bogus=1),
    "BatchNorm1d bad keyword": lambda m: m.nn.BatchNorm1d(2, bogus=1),
    "Dropout bad keyword": lambda m: m.nn.Dropout(bogus=1),
    "MSELoss bad keyword": lambda m: m.nn.MSELoss(bogus=1),
    "BCELoss bad keyword": lambda m: m.nn.BCELoss(bogus=1),
    "ZeroPad2d bad keyword": lambda m: m.nn.ZeroPad2d(1, bogus=1),
    "ConvTranspose2d bad keyword": lambda m: m.nn.ConvTranspose2d(1, 1, 2, bogus=1),
    "LazyConv2d bad keyword": lambda m: m.nn.LazyConv2d(1, 2, bogus=1),
    "LazyBatchNorm1d bad keyword": lambda m: m.nn.LazyBatchNorm1d(bogus=1),
    "AdaptiveAvgPool2d bad keyword": lambda m: m.nn.AdaptiveAvgPool2d(bogus=1),
    "bce_with_logits bool target": lambda m: F(m).binary_cross_entropy_with_logits(
        m.tensor([0.3, 0.6]), _bool(m)),
    "max_unpool2d float indices": lambda m: F(m).max_unpool2d(
        m.ones(1, 1, 2, 2), m.zeros(1, 1, 2, 2), 2),
    "max_unpool1d int32 indices": lambda m: F(m).max_unpool1d(
        m.ones(1, 2, 2), m.zeros(1, 2, 2, dtype=m.int32), 2),
    "max_unpool3d float indices": lambda m: F(m).max_unpool3d(
        m.ones(1, 1, 2, 2, 2), m.zeros(1, 1, 2, 2, 2), 2),
    # Module / Parameter argument types
    "Sequential of a function": lambda m: m.nn.Sequential(_identity),
    "add_module of a tensor": lambda m: m.nn.Module().add_module("a", m.ones(1)),
    "requires_grad_ str": lambda m: m.nn.Linear(2, 2).requires_grad_("yes"),
    "Parameter of a list": lambda m: m.nn.Parameter([1.0, 2.0]),
    # pixel_(un)shuffle, pdist, cosine_similarity
    "pixel_shuffle 2d": lambda m: F(m).pixel_shuffle(m.ones(4, 2), 2),
    "pixel_shuffle factor 0": lambda m: F(m).pixel_shuffle(m.ones(1, 3, 3), 0),
    "pixel_unshuffle height": lambda m: F(m).pixel_unshuffle(m.ones(1, 3, 3), 2),
    "pixel_unshuffle width": lambda m: F(m).pixel_unshuffle(m.ones(1, 4, 3), 2),
    "pixel_unshuffle float factor": lambda m: F(m).pixel_unshuffle(m.ones(1, 4, 4), 2.0),
    "PixelShuffle 2d": lambda m: m.nn.PixelShuffle(2)(m.ones(4, 2)),
    "pdist 1d": lambda m: F(m).pdist(m.ones(2)),
    "pdist long": lambda m: F(m).pdist(m.ones(2, 2, dtype=m.long)),
    "pdist negative p": lambda m: F(m).pdist(m.ones(2, 2), p=-1),
    "cosine_similarity long": lambda m: F(m).cosine_similarity(_long(m, 1, 2)[None],
                                                               _long(m, 1, 2)[None]),
    "cosine_similarity bool": lambda m: F(m).cosine_similarity(_bool(m), _bool(m), dim=0),
    "cosine_similarity eps": lambda m: F(m).cosine_similarity(m.ones(2, 3), m.ones(2, 3),
                                                              eps=-1),
    # recurrent cells: sizes of input and hidden states
    "LSTMCell input size": lambda m: m.nn.LSTMCell(3, 4)(m.ones(2, 5)),
    "LSTMCell hidden1 batch": lambda m: m.nn.LSTMCell(3, 4)(m.ones(2, 3), (m.zeros(2, 4),
                                                                           m.zeros(3, 4))),
    "LSTMCell hidden0 size": lambda m: m.nn.LSTMCell(3, 4)(m.ones(2, 3), (m.zeros(2, 5),
                                                                          m.zeros(2, 4))),
    "GRUCell hidden batch": lambda m: m.nn.GRUCell(3, 4)(m.ones(2, 3), m.zeros(3, 4)),
    "RNNCell unbatched hidden": lambda m: m.nn.RNNCell(3, 4)(m.ones(3), m.zeros(2, 4)),
    # scaled_dot_product_attention
    "sdpa dtypes": lambda m: F(m).scaled_dot_product_attention(
        m.ones(1, 2, 4, dtype=m.float64), m.ones(1, 2, 4), m.ones(1, 2, 4, dtype=m.float16)),
    "sdpa mask dtype": lambda m: F(m).scaled_dot_product_attention(
        m.ones(1, 2, 4), m.ones(1, 2, 4), m.ones(1, 2, 4), attn_mask=m.ones(2, 2, dtype=m.long)),
    "sdpa 1d": lambda m: F(m).scaled_dot_product_attention(m.ones(4), m.ones(4), m.ones(4)),
    "sdpa causal and mask": lambda m: F(m).scaled_dot_product_attention(
        m.ones(1, 2, 4), m.ones(1, 2, 4), m.ones(1, 2, 4), attn_mask=m.ones(2, 2, dtype=m.bool),
        is_causal=True),
}


@pytest.mark.parametrize("case", list(ERROR_CASES), ids=list(ERROR_CASES))
def test_error_matches_torch(case):
    check_error(ERROR_CASES[case])


@pytest.mark.filterwarnings("ignore:dropout2d")
def test_feature_dropout_early_returns_skip_rank_check(torch):
    check_same(lambda m: F(m).feature_alpha_dropout(m.ones(4), training=False))
    check_same(lambda m: F(m).dropout2d(m.ones(3, 4), p=1.0))


def test_embedding_bag_takes_bool_and_uint8_indices(torch):
    for dt in ("bool", "uint8"):
        check_same(lambda m: F(m).embedding_bag(m.ones(2, dtype=getattr(m, dt)),
                                                m.arange(6.0).view(3, 2), _long(m, 0)))


def test_mixed_int_float_cosine_similarity_computes(torch):
    check_same(lambda m: F(m).cosine_similarity(_long(m, 1, 2)[None], m.tensor([[1.0, 3.0]])))


def test_pdist_grad_fn_name(torch):
    for m in (numtorch, torch):
        out = F(m).pdist(m.ones(3, 2, requires_grad=True))
        assert type(out.grad_fn).__name__ == "PdistBackward0"


def test_nn_threshold_is_named_as_pytorch(torch):
    assert numtorch.nn.functional.threshold.__name__ == torch.nn.functional.threshold.__name__


def test_nllloss2d_deprecation_is_a_future_warning(torch):
    for m in (numtorch, torch):
        with pytest.warns(FutureWarning) as record:
            loss = m.nn.NLLLoss2d(ignore_index=3)
        assert loss.ignore_index == 3
        assert str(record[0].message).startswith("`NLLLoss2d` has been deprecated")


def _custom_node(m):
    class Double(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Double.apply(m.ones(2, requires_grad=True)).grad_fn


def test_custom_function_node_is_not_callable(torch):
    for m in (numtorch, torch):
        node = _custom_node(m)
        assert not callable(node)
        assert isinstance(node, m.autograd.graph.Node)
        with pytest.raises(TypeError, match="'DoubleBackward' object is not callable"):
            node(m.ones(2))
        assert node.apply(m.ones(2)).tolist() == [2.0, 2.0]


def test_builtin_nodes_stay_callable(torch):
    for m in (numtorch, torch):
        x = m.ones(2, requires_grad=True)
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        assert callable(y.grad_fn) and callable(acc)
        z = x.clone()
        z[0].mul_(2)
        assert callable(z.grad_fn)  # CopySlices


def test_softmax_functional_still_guesses_dim_with_a_warning(torch):
    for m in (numtorch, torch):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            out = F(m).log_softmax(m.ones(2, 3))
        assert out.shape == (2, 3)
        assert "Implicit dimension choice for log_softmax" in str(record[0].message)
