"""Bad input to nn ops gets PyTorch's exception type and message (a user's mistaken script
prints ``type(e).__name__, e``): convolution, pooling and adaptive pooling checks, in
PyTorch's order and wording."""
import numpy as np
import pytest

from helpers import check_error


def _t(m, *shape, dtype=None):
    """A deterministic tensor of ``shape`` in library ``m``."""
    data = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape).astype("float32")
    out = m.from_numpy(data)
    return out if dtype is None else out.to(getattr(m, dtype))


def _conv2d(m, x_shape, w_shape, bias=None, x_dtype=None, w_dtype=None, **kw):
    x, w = _t(m, *x_shape, dtype=x_dtype), _t(m, *w_shape, dtype=w_dtype)
    b = None if bias is None else _t(m, *bias[0], dtype=bias[1])
    return m.nn.functional.conv2d(x, w, b, **kw)


CONV_CASES = {
    "list input": lambda m: m.nn.functional.conv1d([[1.0] * 5] * 3, _t(m, 2, 3, 3)),
    "None input": lambda m: m.nn.functional.conv2d(None, _t(m, 2, 3, 3, 3)),
    "list weight": lambda m: m.nn.functional.conv1d(_t(m, 1, 3, 5), [[1.0]]),
    "list bias": lambda m: m.nn.functional.conv2d(_t(m, 1, 4, 5, 5), _t(m, 3, 4, 3, 3),
                                                  [1.0, 2.0, 3.0]),
    "float stride": lambda m: m.nn.functional.conv2d(_t(m, 1, 4, 5, 5), _t(m, 3, 4, 3, 3),
                                                     stride=1.0),
    "module list input": lambda m: m.nn.Conv2d(3, 2, 3)([1.0]),
    "module None input": lambda m: m.nn.Conv1d(3, 2, 3, bias=False)(None),
    "seven args": lambda m: m.nn.functional.conv2d(
        [1.0], _t(m, 2, 3, 3, 3), None, (1, 1), (0, 0), (1, 1), 1),
    "bias dtype": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), ((3,), None), "float64"),
    "bias dtype before dims": lambda m: _conv2d(m, (5, 5), (3, 4, 3, 3), ((3,), None),
                                                "float64"),
    "weight dtype": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), w_dtype="float64"),
    "long input": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), x_dtype="int64"),
    "bool input": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), x_dtype="bool"),
    "module double input": lambda m: m.nn.Conv2d(3, 8, 3)(_t(m, 1, 3, 8, 8, dtype="float64")),
    "2-d input": lambda m: _conv2d(m, (5, 5), (3, 4, 3, 3)),
    "channels": lambda m: _conv2d(m, (1, 3, 5, 5), (3, 4, 3, 3), ((4,), None)),
    "bias size": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), ((4,), None)),
    "bias 2-d": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), ((3, 1), None)),
    "stride 0": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), stride=0),
    "negative padding": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), padding=-1),
    "negative dilation": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), dilation=-1),
    "zero dilation": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), dilation=(1, 0)),
    "zero dilation 1d": lambda m: m.nn.functional.conv1d(_t(m, 1, 4, 5), _t(m, 3, 4, 3),
                                                         dilation=0),
    "groups 0": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), groups=0),
    "groups > out": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), groups=4),
    "groups divisible": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 2, 3, 3), groups=2),
    "stride length": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3), stride=(1, 1, 1)),
    "weight 5-d": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4, 3, 3, 1)),
    "weight 2-d": lambda m: _conv2d(m, (1, 4, 5, 5), (3, 4)),
    "conv1d weight 4-d": lambda m: m.nn.functional.conv1d(_t(m, 1, 4, 5), _t(m, 3, 4, 3, 3)),
    "kernel too big": lambda m: _conv2d(m, (1, 4, 2, 2), (3, 4, 3, 3)),
    "padding string": lambda m: m.nn.functional.conv1d(_t(m, 1, 4, 5), _t(m, 3, 4, 3),
                                                       padding="full"),
    "transposed list weight": lambda m: m.nn.functional.conv_transpose2d(_t(m, 1, 1, 3, 3),
                                                                         [1.0]),
    "transposed dtype": lambda m: m.nn.functional.conv_transpose2d(
        _t(m, 1, 4, 5, 5, dtype="float64"), _t(m, 4, 3, 3, 3)),
    "transposed bias size": lambda m: m.nn.functional.conv_transpose2d(
        _t(m, 1, 4, 5, 5), _t(m, 4, 3, 3, 3), _t(m, 4)),
    "transposed output padding": lambda m: m.nn.functional.conv_transpose2d(
        _t(m, 1, 4, 5, 5), _t(m, 4, 3, 3, 3), output_padding=1),
    "transposed output padding 3d": lambda m: m.nn.functional.conv_transpose3d(
        _t(m, 1, 4, 3, 3, 3), _t(m, 4, 2, 2, 2, 2), output_padding=1),
    "transposed output padding 1d": lambda m: m.nn.functional.conv_transpose1d(
        _t(m, 1, 4, 5), _t(m, 4, 3, 3), output_padding=1),
    "transposed dilation 0": lambda m: m.nn.functional.conv_transpose2d(
        _t(m, 1, 4, 5, 5), _t(m, 4, 3, 3, 3), dilation=0),
    "transposed output too small": lambda m: m.nn.functional.conv_transpose1d(
        _t(m, 1, 4, 1), _t(m, 4, 2, 1), padding=3),
    "transposed groups": lambda m: m.nn.functional.conv_transpose2d(
        _t(m, 1, 4, 5, 5), _t(m, 4, 3, 3, 3), groups=3),
    "transposed negative output padding": lambda m: m.nn.functional.conv_transpose2d(
        _t(m, 1, 4, 3, 3), _t(m, 4, 2, 1, 1), output_padding=-1),
}


@pytest.mark.parametrize("name", list(CONV_CASES))
def test_conv_errors(name):
    check_error(CONV_CASES[name])


def test_conv_transpose_casts_bias(torch):
    import numtorch
    out = numtorch.nn.functional.conv_transpose2d(
        _t(numtorch, 1, 1, 3, 3), _t(numtorch, 1, 1, 2, 2), _t(numtorch, 1, dtype="float64"))
    ref = torch.nn.functional.conv_transpose2d(
        _t(torch, 1, 1, 3, 3), _t(torch, 1, 1, 2, 2), _t(torch, 1, dtype="float64"))
    assert str(out.dtype) == str(ref.dtype)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6)


def _pool(name, *shape, dtype=None, **kw):
    return lambda m: getattr(m.nn.functional, name)(_t(m, *shape, dtype=dtype), **kw)


POOL_CASES = {
    "max_pool2d list": lambda m: m.nn.functional.max_pool2d([1.0], 2),
    "max_pool1d list": lambda m: m.nn.functional.max_pool1d([1.0], 2),
    "avg_pool2d list": lambda m: m.nn.functional.avg_pool2d([1.0], 2),
    "MaxPool2d 2-d": lambda m: m.nn.MaxPool2d(2)(_t(m, 4, 4)),
    "max_pool2d 5-d": _pool("max_pool2d", 1, 1, 1, 4, 4, kernel_size=2),
    "max_pool3d 2-d": _pool("max_pool3d", 4, 4, kernel_size=2),
    "max_pool1d 1-d": _pool("max_pool1d", 4, kernel_size=2),
    "max_pool1d 4-d": _pool("max_pool1d", 1, 3, 4, 4, kernel_size=2),
    "max_pool1d too small": _pool("max_pool1d", 1, 3, 4, kernel_size=5),
    "max_pool1d kernel 0": _pool("max_pool1d", 1, 1, 4, kernel_size=0),
    "max_pool1d stride 0": _pool("max_pool1d", 1, 1, 4, kernel_size=2, stride=0),
    "max_pool1d padding": _pool("max_pool1d", 1, 1, 4, kernel_size=2, stride=2, padding=2),
    "max_pool1d negative padding": _pool("max_pool1d", 1, 1, 4, kernel_size=2, padding=-1),
    "max_pool1d dilation 0": _pool("max_pool1d", 1, 1, 4, kernel_size=2, dilation=0),
    "max_pool1d kernel tuple": _pool("max_pool1d", 1, 1, 4, kernel_size=(2, 2)),
    "max_pool1d long": _pool("max_pool1d", 1, 1, 4, dtype="int64", kernel_size=2),
    "max_pool1d empty channels": _pool("max_pool1d", 1, 0, 4, kernel_size=2),
    "max_pool2d kernel 0": _pool("max_pool2d", 1, 1, 4, 4, kernel_size=0),
    "max_pool2d kernel 0 stride 1": _pool("max_pool2d", 1, 1, 4, 4, kernel_size=(2, 0),
                                          stride=1),
    "max_pool2d dilation 0": _pool("max_pool2d", 1, 1, 4, 4, kernel_size=2, dilation=0),
    "max_pool3d dilation 0": _pool("max_pool3d", 1, 1, 4, 4, 4, kernel_size=2, dilation=0),
    "max_pool2d negative padding": _pool("max_pool2d", 1, 1, 4, 4, kernel_size=2, padding=-1),
    "max_pool2d bool": _pool("max_pool2d", 1, 1, 4, 4, dtype="bool", kernel_size=2),
    "max_pool2d empty channels": _pool("max_pool2d", 1, 0, 4, 4, kernel_size=2),
    "max_pool3d empty": _pool("max_pool3d", 1, 1, 0, 4, 4, kernel_size=2),
    "avg_pool1d 1-d": _pool("avg_pool1d", 4, kernel_size=2),
    "avg_pool1d stride 0": _pool("avg_pool1d", 1, 1, 4, kernel_size=2, stride=0),
    "avg_pool1d kernel 0": _pool("avg_pool1d", 1, 1, 4, kernel_size=0, stride=1),
    "avg_pool2d 2-d": _pool("avg_pool2d", 4, 4, kernel_size=2),
    "avg_pool2d 5-d": _pool("avg_pool2d", 1, 1, 1, 4, 4, kernel_size=2),
    "avg_pool3d 2-d": _pool("avg_pool3d", 4, 4, kernel_size=2),
    "avg_pool3d too small": _pool("avg_pool3d", 1, 1, 2, 4, 4, kernel_size=3),
    "avg_pool3d empty": _pool("avg_pool3d", 1, 0, 4, 4, 4, kernel_size=2),
    "adaptive_avg_pool2d list": lambda m: m.nn.functional.adaptive_avg_pool2d([1.0], 2),
    "adaptive_avg_pool1d list": lambda m: m.nn.functional.adaptive_avg_pool1d([1.0], 2),
    "adaptive_avg_pool1d 1-d": _pool("adaptive_avg_pool1d", 4, output_size=2),
    "adaptive_avg_pool1d tuple": _pool("adaptive_avg_pool1d", 1, 1, 4, output_size=(1, 2)),
    "adaptive_avg_pool1d long": _pool("adaptive_avg_pool1d", 1, 1, 4, dtype="int64",
                                      output_size=2),
    "adaptive_avg_pool2d 1-d": _pool("adaptive_avg_pool2d", 4, output_size=2),
    "AdaptiveAvgPool2d tuple on 1-d": lambda m: m.nn.AdaptiveAvgPool2d((2, 2))(_t(m, 4)),
    "adaptive_avg_pool2d negative": _pool("adaptive_avg_pool2d", 1, 1, 4, 4, output_size=-1),
    "adaptive_avg_pool3d negative": _pool("adaptive_avg_pool3d", 1, 4, 4, output_size=-1),
    "adaptive_avg_pool2d length": _pool("adaptive_avg_pool2d", 1, 1, 1, 4, 4,
                                        output_size=(1, 2, 3)),
    "adaptive_avg_pool2d empty": _pool("adaptive_avg_pool2d", 1, 1, 0, 0, output_size=2),
    "adaptive_avg_pool3d empty": _pool("adaptive_avg_pool3d", 1, 0, 4, 4, 4, output_size=2),
    "adaptive_avg_pool2d 1x1 long": _pool("adaptive_avg_pool2d", 1, 4, 4, dtype="int64",
                                          output_size=1),
    "adaptive_avg_pool3d 1 bool": _pool("adaptive_avg_pool3d", 1, 4, 4, 4, dtype="bool",
                                        output_size=1),
    "adaptive_max_pool2d 1-d": _pool("adaptive_max_pool2d", 4, output_size=2),
    "adaptive_max_pool2d empty": _pool("adaptive_max_pool2d", 1, 0, 4, 4, output_size=2),
    "adaptive_max_pool2d negative long": _pool("adaptive_max_pool2d", 1, 1, 4, 4,
                                               dtype="int64", output_size=-1),
    "adaptive_max_pool3d length": _pool("adaptive_max_pool3d", 1, 4, 4, 4,
                                        output_size=(1, 1)),
    "adaptive_max_pool3d bool": _pool("adaptive_max_pool3d", 1, 4, 4, 4, dtype="bool",
                                      output_size=1),
    "adaptive_max_pool1d empty": _pool("adaptive_max_pool1d", 1, 0, 4, output_size=2),
    "adaptive_max_pool1d 1-d": _pool("adaptive_max_pool1d", 4, output_size=(1, 2)),
}


@pytest.mark.parametrize("name", list(POOL_CASES))
def test_pool_errors(name):
    check_error(POOL_CASES[name])


_L = [1.0, -2.0]
NON_TENSOR_CASES = {name: (lambda f, args: lambda m: getattr(m.nn.functional, f)(*args))(
    name.split()[0], args) for name, args in {
        "relu6": (_L,), "elu": (_L,), "selu": (_L,), "celu": (_L,), "gelu": (_L,),
        "silu": (_L,), "mish": (_L,), "softplus": (_L,), "hardsigmoid": (_L,),
        "hardswish": (_L,), "hardtanh": (_L,), "leaky_relu": (_L,), "logsigmoid": (_L,),
        "softshrink": (_L,), "hardshrink": (_L,), "sigmoid": (_L,), "tanh": (_L,),
        "rrelu": (_L,), "threshold": (_L, 0.5, 0.0), "dropout": (_L,),
        "alpha_dropout": (_L,), "feature_alpha_dropout": (_L,), "one_hot": (_L,),
        "pdist": (_L,), "pixel_shuffle": (_L, 2), "channel_shuffle": (_L, 2),
        "unfold": (_L, 2), "fold": (_L, 2, 2), "pad": (_L, (1, 1)),
        "layer_norm": (_L, (2,)), "batch_norm": (_L, None, None), "rms_norm": (_L, (2,)),
        "soft_margin_loss": (_L, _L), "kl_div": (_L, _L, None, None, "sum"), "poisson_nll_loss": (_L, _L),
        "cosine_similarity": (_L, _L), "pairwise_distance": (_L, _L),
        "triplet_margin_loss": (_L, _L, _L), "hinge_embedding_loss": (_L, _L),
        "multilabel_soft_margin_loss": (_L, _L), "multi_margin_loss": (_L, _L),
        "cosine_embedding_loss": (_L, _L, _L), "elu inplace": (_L, 1.0, True),
    }.items()}
NON_TENSOR_CASES.update({
    "embedding indices": lambda m: m.nn.functional.embedding([1, 2], _t(m, 3, 2)),
    "embedding weight": lambda m: m.nn.functional.embedding(m.tensor([1]), [[1.0]]),
    "prelu": lambda m: m.nn.functional.prelu(_L, _t(m, 1)),
    "bilinear": lambda m: m.nn.functional.bilinear(_L, _L, _t(m, 1, 2, 2)),
    "soft_margin_loss target": lambda m: m.nn.functional.soft_margin_loss(_t(m, 2), _L),
    "triplet positive": lambda m: m.nn.functional.triplet_margin_loss(_t(m, 2), _L, _L),
})


@pytest.mark.parametrize("name", list(NON_TENSOR_CASES))
def test_non_tensor_errors(name):
    check_error(NON_TENSOR_CASES[name])


NORM_CASES = {
    "bilinear input2": lambda m: m.nn.functional.bilinear(_t(m, 2, 3), _t(m, 2, 5),
                                                          _t(m, 5, 3, 4)),
    "bilinear input1": lambda m: m.nn.functional.bilinear(_t(m, 2, 2), _t(m, 2, 4),
                                                          _t(m, 5, 3, 4)),
    "bilinear batch": lambda m: m.nn.functional.bilinear(_t(m, 2, 3), _t(m, 3, 4),
                                                         _t(m, 5, 3, 4)),
    "bilinear dims": lambda m: m.nn.functional.bilinear(_t(m, 2, 3), _t(m, 1, 2, 4),
                                                        _t(m, 5, 3, 4)),
    "bilinear bias": lambda m: m.nn.functional.bilinear(_t(m, 2, 3), _t(m, 2, 4),
                                                        _t(m, 5, 3, 4), _t(m, 4)),
    "BatchNorm1d double": lambda m: m.nn.BatchNorm1d(3)(_t(m, 4, 3, dtype="float64")),
    "BatchNorm1d eval double": lambda m: m.nn.BatchNorm1d(3).eval()(
        _t(m, 4, 3, dtype="float64")),
    "BatchNorm2d long": lambda m: m.nn.BatchNorm2d(3)(_t(m, 2, 3, 2, 2, dtype="int64")),
    "batch_norm double stats": lambda m: m.nn.functional.batch_norm(
        _t(m, 4, 3), _t(m, 3, dtype="float64"), _t(m, 3, dtype="float64")),
    "LayerNorm double": lambda m: m.nn.LayerNorm(3)(_t(m, 4, 3, dtype="float64")),
    "LayerNorm long": lambda m: m.nn.LayerNorm(3)(_t(m, 4, 3, dtype="int64")),
    "layer_norm long": lambda m: m.nn.functional.layer_norm(_t(m, 4, 3, dtype="int64"), (3,)),
    "GroupNorm double": lambda m: m.nn.GroupNorm(1, 3)(_t(m, 4, 3, dtype="float64")),
    "GroupNorm channels": lambda m: m.nn.GroupNorm(2, 4)(_t(m, 2, 6, 3)),
    "InstanceNorm1d long": lambda m: m.nn.InstanceNorm1d(3)(_t(m, 2, 3, 4, dtype="int64")),
}


@pytest.mark.parametrize("name", list(NORM_CASES))
def test_norm_and_bilinear_errors(name):
    check_error(NORM_CASES[name])
