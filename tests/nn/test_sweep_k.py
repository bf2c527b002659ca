"""Training-script sweep K against PyTorch: nn.Buffer is a plain tensor marked as a buffer,
Parameter's requires_grad must be a bool, SyncBatchNorm (single process: batch norm),
LinearCrossEntropyLoss / F.linear_cross_entropy, elu's zero keeps its sign, rms_norm's
eps and weight multiply in the math type (float16 input, mixed dtypes)."""
import copy
import warnings

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same


# ---- nn.Buffer --------------------------------------------------------------------------
def _buffer_facts(lib):
    nn = lib.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Buffer(lib.ones(2), persistent=False)
            self.b = nn.Buffer(lib.zeros(1))

    m = M()
    x = lib.ones(2)
    b = nn.Buffer(x)
    m.c = b
    x.add_(1)   # shares memory and version counter with the data it was made from
    m.register_buffer("d", nn.Buffer(lib.ones(1), persistent=False))   # persistent=True wins
    m2 = copy.deepcopy(m)
    return (type(b).__name__, isinstance(b, nn.Buffer), isinstance(lib.ones(1), nn.Buffer),
            isinstance(nn.Parameter(lib.ones(1)), nn.Buffer), b.persistent, m.c is b,
            m.c.tolist(), m.c._version, list(m.state_dict()), list(m2.state_dict()),
            type(m.a).__name__, nn.Buffer(lib.ones(1, requires_grad=True)).requires_grad)


def test_buffer_is_a_marked_plain_tensor(torch):
    check_same(_buffer_facts, exact=True)


# ---- Parameter(requires_grad=...) -----------------------------------------------------
@pytest.mark.parametrize("value", [1, 0, None, np.bool_(True), 1.0])
def test_parameter_requires_grad_must_be_bool(torch, value):
    check_error(lambda lib: lib.nn.Parameter(lib.ones(2), requires_grad=value))


# ---- SyncBatchNorm --------------------------------------------------------------------
def _sync_bn_run(lib):
    lib.manual_seed(0)
    bn = lib.nn.SyncBatchNorm(3, momentum=None)
    outs = [bn(lib.randn(4, 3, 2, 2, 2) + i) for i in range(2)]
    bn.eval()
    outs.append(bn(lib.randn(2, 3)))
    return [o.detach() for o in outs] + [bn.running_mean, bn.running_var,
                                         bn.num_batches_tracked, repr(bn)]


def test_sync_batchnorm_runs_as_batch_norm_in_one_process(torch):
    check_same(_sync_bn_run)


@pytest.mark.parametrize("shape", [(3,), (2, 0)])
def test_sync_batchnorm_input_errors(torch, shape):
    check_error(lambda lib: lib.nn.SyncBatchNorm(shape[-1] if len(shape) > 1 else 3)(
        lib.zeros(*shape)))


def _converted(lib):
    nn = lib.nn
    net = nn.Sequential(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2),
                        nn.Sequential(nn.BatchNorm1d(4, affine=False, momentum=0.3)))
    net.eval()
    out = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    return (repr(out), out is net, out[1].weight is net[1].weight,
            out[1].running_mean is net[1].running_mean, out[1].training,
            repr(nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(2))))


def test_convert_sync_batchnorm(torch):
    check_same(_converted, exact=True)


# ---- LinearCrossEntropyLoss -------------------------------------------------------------
def _lce_kdim(lib):
    lib.manual_seed(283)
    loss = lib.nn.LinearCrossEntropyLoss(5, 10, out_features=(4, 3))
    x = lib.randn(2, 5, requires_grad=True)
    out = loss(x, lib.randint(0, 10, (2, 4, 3)))
    out.backward()
    probs = loss(x.detach(), lib.randn(2, 10, 4, 3).softmax(dim=1))
    return [repr(loss), out.detach(), x.grad, loss.linear.weight.grad, probs.detach(),
            type(out.grad_fn).__name__]


def _lce_options(lib):
    lib.manual_seed(1)
    loss = lib.nn.LinearCrossEntropyLoss(3, 4, bias=True, reduction="none", label_smoothing=0.1,
                                         weight=lib.tensor([1.0, 2.0, 3.0, 4.0]))
    x, y = lib.randn(5, 3), lib.tensor([0, 1, 2, 3, 1])
    ignoring = lib.nn.LinearCrossEntropyLoss(3, 4, ignore_index=1)
    return [loss(x, y).detach(), loss(x[0], y[0]).detach(), ignoring(x, y).detach(),
            list(loss.state_dict())]


@pytest.mark.parametrize("case", [_lce_kdim, _lce_options])
def test_linear_cross_entropy_loss(torch, case):
    check_same(case)


LCE_ERRORS = [
    lambda lib: lib.nn.LinearCrossEntropyLoss(3, 4, weight=lib.ones(3)),
    lambda lib: lib.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=2.0),
    lambda lib: lib.nn.LinearCrossEntropyLoss(3, 4, ignore_index=1)(
        lib.ones(5, 3), lib.ones(5, 4) / 4),
    lambda lib: lib.nn.functional.linear_cross_entropy(lib.ones(2, 2, 3), lib.ones(4, 3),
                                                       lib.tensor([0, 1])),
    lambda lib: lib.nn.functional.linear_cross_entropy(lib.ones(2, 3), lib.ones(4),
                                                       lib.tensor([0, 1])),
    lambda lib: lib.nn.functional.linear_cross_entropy(lib.ones(2, 3), lib.ones(4, 2),
                                                       lib.tensor([0, 1])),
    lambda lib: lib.nn.functional.linear_cross_entropy(
        lib.ones(2, 3), lib.ones(4, 3), lib.tensor([0, 1]), linear_bias=lib.ones(3)),
    lambda lib: lib.nn.functional.linear_cross_entropy(lib.ones(3), lib.ones(4, 2, 3),
                                                       lib.tensor([0, 1])),
]


@pytest.mark.parametrize("i", range(len(LCE_ERRORS)))
def test_linear_cross_entropy_errors(torch, i):
    check_error(LCE_ERRORS[i])


def test_linear_cross_entropy_chunked_path_is_refused():
    with pytest.raises(NotImplementedError, match="chunked path"):
        numtorch.nn.functional.linear_cross_entropy(numtorch.ones(2, 3), numtorch.ones(4, 3),
                                                    numtorch.tensor([0, 1]), options=object())


# ---- elu / celu: a zero keeps its sign with a negative alpha ------------------------------
@pytest.mark.parametrize("fn,alpha", [("elu", -1.0), ("celu", -2.0), ("elu", 1.0)])
def test_elu_zero_sign(torch, fn, alpha):
    def run(lib):
        x = lib.zeros(10)
        x[1::2] = -0.0
        y = getattr(lib.nn.functional, fn)(x, alpha=alpha)
        return np.signbit(y.numpy()).tolist(), y.tolist()
    check_same(run, exact=True)


# ---- rms_norm: float16 eps and mixed dtypes -------------------------------------------------
RMS_DTYPES = [("float16", None), ("float16", "float16"), ("float64", "float32"),
              ("float32", "float64"), ("float16", "float32"), ("float32", "float16")]


@pytest.mark.parametrize("xd,wd", RMS_DTYPES)
def test_rms_norm_dtypes(torch, xd, wd):
    def run(lib):
        lib.manual_seed(0)
        x = lib.randn(2, 3).to(getattr(lib, xd)).requires_grad_()
        w = None if wd is None else lib.randn(3).to(getattr(lib, wd)).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # PyTorch warns (once) for mixed dtypes
            out = lib.nn.functional.rms_norm(x, (3,), w)
        out.sum().backward()
        return [out.detach(), out.dtype, type(out.grad_fn).__name__, x.grad] + \
            ([] if w is None else [w.grad])
    check_same(run, exact=True)
