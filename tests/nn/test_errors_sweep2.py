"""Bad input to losses, activations, linear and interpolation gets PyTorch's exception type
and message (second sweep: the cases a mistaken tutorial script hits)."""
import numpy as np
import pytest

from helpers import check_error, check_same


def _t(m, *shape, dtype=None):
    """A deterministic tensor of ``shape`` in library ``m``."""
    data = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape).astype("float32")
    out = m.from_numpy(data)
    return out if dtype is None else out.to(getattr(m, dtype))


def _long(m, *values):
    return m.tensor(list(values))


F = lambda m: m.nn.functional  # noqa: E731 - one short name per case keeps them on a line

ERROR_CASES = {
    # cross_entropy / nll_loss: non-tensors, class-probability targets, 1-D input
    "ce list input": lambda m: F(m).cross_entropy([[1.0, 2.0]], _long(m, 0)),
    "ce list target": lambda m: F(m).cross_entropy(_t(m, 3, 3), [1, 2, 0]),
    "nll list input": lambda m: F(m).nll_loss([[1.0, 2.0]], _long(m, 0)),
    "nll list target": lambda m: F(m).nll_loss(_t(m, 3, 3), [1, 2, 0]),
    "CrossEntropyLoss list": lambda m: m.nn.CrossEntropyLoss()([[1.0, 2.0]], _long(m, 0)),
    "ce long probs": lambda m: F(m).cross_entropy(
        _t(m, 4, 3), m.eye(3, dtype=m.long)[[0, 1, 2, 1]]),
    "ce long probs 3d": lambda m: F(m).cross_entropy(_t(m, 2, 3, 4),
                                                     m.ones(2, 3, 4, dtype=m.long)),
    "ce int probs": lambda m: F(m).cross_entropy(_t(m, 3, 3), m.ones(3, 3, dtype=m.int32)),
    "ce 1d same shape": lambda m: F(m).cross_entropy(_t(m, 3), _long(m, 0, 1, 2)),
    "ce 0d": lambda m: F(m).cross_entropy(m.tensor(1.0), m.tensor(1)),
    "ce probs weight": lambda m: F(m).cross_entropy(_t(m, 2, 3), _t(m, 2, 3),
                                                    weight=m.ones(4)),
    "nll 1d target size": lambda m: F(m).nll_loss(_t(m, 3), _long(m, 0, 1, 2)),
    "nll 1d byte target size": lambda m: F(m).nll_loss(
        _t(m, 3), m.tensor([1, 2, 0], dtype=m.uint8)),
    "nll 1d float target": lambda m: F(m).nll_loss(_t(m, 3), m.tensor([1.0, 2.0, 0.0])),
    "nll 1d 2d target": lambda m: F(m).nll_loss(_t(m, 3), m.ones(1, 2, dtype=m.long)),
    "nll long input": lambda m: F(m).nll_loss(m.ones(3, 3, dtype=m.long), _long(m, 1, 2, 0)),
    "nll int input none": lambda m: F(m).nll_loss(m.ones(3, 3, dtype=m.int32),
                                                  _long(m, 1, 2, 0), reduction="none"),
    "nll long input 3d": lambda m: F(m).nll_loss(m.ones(2, 3, 4, dtype=m.long),
                                                 m.ones(2, 4, dtype=m.long)),
    # linear
    "linear 0-d input": lambda m: m.nn.Linear(5, 2)(m.tensor(1.0)),
    "linear 0-d input no bias": lambda m: F(m).linear(m.tensor(1.0), _t(m, 2, 5)),
    "linear 0-d weight": lambda m: F(m).linear(_t(m, 2, 5), m.tensor(1.0)),
    "linear 0-d weight bias": lambda m: F(m).linear(_t(m, 2, 5), m.tensor(1.0), _t(m, 2)),
    # float-only loss kernels
    "mse long": lambda m: F(m).mse_loss(_long(m, 1, 2), _long(m, 1, 3)),
    "mse bool": lambda m: F(m).mse_loss(_long(m, 1, 2) > 1, _long(m, 1, 3) > 1),
    "MSELoss int none": lambda m: m.nn.MSELoss(reduction="none")(
        m.tensor([1, 2], dtype=m.int32), m.tensor([1, 3], dtype=m.int32)),
    "smooth_l1 long": lambda m: F(m).smooth_l1_loss(_long(m, 1, 2), _long(m, 1, 3)),
    "huber long": lambda m: F(m).huber_loss(_long(m, 1, 2), _long(m, 1, 3)),
    "soft margin long": lambda m: F(m).soft_margin_loss(_long(m, 1, 2), _long(m, 1, 3)),
    "soft margin long float": lambda m: F(m).soft_margin_loss(_long(m, 1, 2), _t(m, 2)),
    "soft margin bool": lambda m: F(m).soft_margin_loss(_long(m, 1, 2) > 1, _long(m, 1) > 0),
    "bce long": lambda m: F(m).binary_cross_entropy(_long(m, 1, 0), _long(m, 1, 0)),
    "bce logits long": lambda m: F(m).binary_cross_entropy_with_logits(_long(m, 1, 0),
                                                                      _t(m, 2)),
    "kl_div long target": lambda m: F(m).kl_div(_t(m, 3), _long(m, 1, 2, 3), reduction="sum"),
    "kl_div long input": lambda m: F(m).kl_div(_long(m, 1, 2, 3), _t(m, 3), reduction="sum"),
    "multilabel soft margin long": lambda m: F(m).multilabel_soft_margin_loss(
        m.ones(2, 3, dtype=m.long), _t(m, 2, 3)),
    "hinge long": lambda m: F(m).hinge_embedding_loss(_long(m, 1, 2, 3), _long(m, 1, -1, 1)),
    # multi_margin_loss / multilabel_margin_loss
    "mml target out of range": lambda m: F(m).multi_margin_loss(_t(m, 2, 3), _long(m, 0, 3)),
    "mml negative target": lambda m: F(m).multi_margin_loss(_t(m, 2, 3), _long(m, 0, -1)),
    "mml long input": lambda m: F(m).multi_margin_loss(m.ones(2, 3, dtype=m.long),
                                                       _long(m, 0, 3)),
    "mml 3d": lambda m: F(m).multi_margin_loss(_t(m, 2, 3, 1), _long(m, 0, 1)),
    "mml empty": lambda m: F(m).multi_margin_loss(_t(m, 0), _long(m, 0)),
    "mml target size": lambda m: F(m).multi_margin_loss(_t(m, 2, 3), _long(m, 0, 1, 1)),
    "mml target 2d": lambda m: F(m).multi_margin_loss(_t(m, 2, 3), m.tensor([[0], [1]])),
    "mml weight size": lambda m: F(m).multi_margin_loss(_t(m, 2, 3), _long(m, 0, 1),
                                                        weight=m.ones(4)),
    "mml weight dtype": lambda m: F(m).multi_margin_loss(_t(m, 2, 3), _long(m, 0, 1),
                                                         weight=m.ones(3, dtype=m.long)),
    "mml float target": lambda m: F(m).multi_margin_loss(_t(m, 2, 3), m.tensor([0.0, 1.0])),
    "mlml out of range": lambda m: F(m).multilabel_margin_loss(_t(m, 1, 3),
                                                               m.tensor([[5, -1, 0]])),
    "mlml below -1": lambda m: F(m).multilabel_margin_loss(_t(m, 1, 3),
                                                           m.tensor([[-2, -1, 0]])),
    "mlml target size": lambda m: F(m).multilabel_margin_loss(_t(m, 2, 3),
                                                              m.tensor([[0, -1, 2]])),
    "mlml int target": lambda m: F(m).multilabel_margin_loss(
        _t(m, 1, 3), m.tensor([[1, -1, 0]], dtype=m.int32)),
    "mlml long input": lambda m: F(m).multilabel_margin_loss(m.ones(1, 3, dtype=m.long),
                                                             m.tensor([[1, -1, 0]])),
    "mlml list": lambda m: F(m).multilabel_margin_loss([1.0], m.tensor([[0, -1, 2]])),
    # float-only activations
    "elu long": lambda m: F(m).elu(_long(m, -1, 0, 2)),
    "selu bool": lambda m: F(m).selu(_long(m, -1, 0, 2) > 0),
    "gelu long": lambda m: F(m).gelu(_long(m, -1, 0, 2)),
    "silu long": lambda m: m.nn.SiLU()(_long(m, -1, 0, 2)),
    "softplus long": lambda m: m.nn.Softplus()(_long(m, -1, 0, 2)),
    "logsigmoid long": lambda m: F(m).logsigmoid(_long(m, -1, 0, 2)),
    "leaky_relu long": lambda m: m.nn.LeakyReLU()(_long(m, -1, 0, 2)),
    "hardswish long": lambda m: F(m).hardswish(_long(m, -1, 0, 2)),
    "softshrink long": lambda m: F(m).softshrink(_long(m, -1, 0, 2)),
    "glu long": lambda m: F(m).glu(_long(m, 1, 2)),
    "normalize long": lambda m: F(m).normalize(_long(m, 1, 2, 3)),
    # unfold / interpolate
    "unfold blocks": lambda m: F(m).unfold(_t(m, 1, 3, 2, 2), 3),
    "Unfold blocks": lambda m: m.nn.Unfold(kernel_size=(2, 9))(_t(m, 1, 3, 4, 4)),
    "Upsample 2-d": lambda m: m.nn.Upsample(scale_factor=2)(_t(m, 3, 4)),
    "interpolate 1-d bilinear": lambda m: F(m).interpolate(_t(m, 4), scale_factor=2,
                                                           mode="bilinear"),
    "interpolate bad mode": lambda m: F(m).interpolate(_t(m, 1, 1, 4), scale_factor=2,
                                                       mode="foo"),
    "interpolate size tuple": lambda m: F(m).interpolate(_t(m, 1, 1, 4, 4), size=(2, 3, 4)),
    "interpolate scale tuple": lambda m: F(m).interpolate(_t(m, 1, 1, 4, 4),
                                                          scale_factor=(2, 2, 2)),
    # Parameter of an integer tensor
    "Parameter long": lambda m: m.nn.Parameter(_long(m, 1, 2)),
    "Parameter bool": lambda m: m.nn.Parameter(m.tensor([True])),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors(name):
    check_error(ERROR_CASES[name])


VALUE_CASES = {
    "nll 1d input, 1-element target": lambda m: F(m).nll_loss(_t(m, 3), _long(m, 1)),
    "nll 1d input, 1-element target none": lambda m: F(m).nll_loss(_t(m, 3), _long(m, 1),
                                                                   reduction="none"),
    "ce 1d input, 1-element target": lambda m: F(m).cross_entropy(_t(m, 3), _long(m, 2)),
    "ce double probs": lambda m: F(m).cross_entropy(_t(m, 3, 3), _t(m, 3, 3, dtype="float64")),
    "mml 1d none": lambda m: F(m).multi_margin_loss(_t(m, 2), _long(m, 0), reduction="none"),
    "mml 0d none": lambda m: F(m).multi_margin_loss(m.tensor(1.0), m.tensor(0),
                                                    reduction="none"),
    "mlml 1d none": lambda m: F(m).multilabel_margin_loss(_t(m, 4), _long(m, 3, 0, -1, 1),
                                                          reduction="none"),
    "margin ranking long": lambda m: F(m).margin_ranking_loss(_long(m, 1, 2), _long(m, 2, 1),
                                                              _long(m, 1, -1)),
    "hinge long none": lambda m: F(m).hinge_embedding_loss(
        _long(m, 1, 2, 3), _long(m, 1, -1, 1), margin=2.5, reduction="none"),
    "mse long float": lambda m: F(m).mse_loss(_long(m, 1, 2, 3), _t(m, 3)),
    "Parameter long no grad": lambda m: m.nn.Parameter(_long(m, 1, 2), requires_grad=False),
}


@pytest.mark.parametrize("name", list(VALUE_CASES))
def test_values(name):
    check_same(VALUE_CASES[name])
