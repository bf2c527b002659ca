"""Anomaly detection: flags, forward tracebacks on nodes, the warning when a backward fails and
the NaN check, as PyTorch reports them."""
import warnings

import pytest

import numtorch
from helpers import check_error, check_same

ENABLED_MSG = "Anomaly Detection has been enabled"


def _failing(lib):
    class MyFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError("Some error in backward")
    return MyFunc


def _run_failing(lib):
    with lib.autograd.detect_anomaly():
        x = lib.ones(2, requires_grad=True)
        out = _failing(lib).apply(x).sum()   # the forward line the warning must show
        out.backward()


def _caught(fn, lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            fn(lib)
        except RuntimeError as e:
            return str(e), [str(x.message) for x in w]
    return None, [str(x.message) for x in w]


def test_backward_error_warns_with_forward_traceback(torch):
    mine, mine_w = _caught(_run_failing, numtorch)
    ref, ref_w = _caught(_run_failing, torch)
    assert mine == ref == "Some error in backward"
    assert mine_w[0] == ref_w[0] and mine_w[0].startswith(ENABLED_MSG)
    head = "Error detected in MyFuncBackward. Traceback of forward call that caused the error:"
    assert mine_w[1].startswith(head) and ref_w[1].startswith(head)
    line = "out = _failing(lib).apply(x).sum()   # the forward line the warning must show"
    assert line in mine_w[1] and line in ref_w[1]
    assert "numtorch/" not in mine_w[1]   # numtorch's own frames are left out


def _nan(lib, check_nan=True):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    with lib.autograd.detect_anomaly(check_nan=check_nan):
        (x * float("nan")).sum().backward()
    return x.grad


def test_nan_check(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(_nan)
        check_same(lambda lib: _nan(lib, check_nan=False))


def test_nan_warning_names_the_node():
    _, w = _caught(_nan, numtorch)
    assert w[1].startswith("Error detected in MulBackward0. Traceback of forward call")


def test_flags_and_contexts(torch):
    def run(lib):
        seen = [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            seen += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
            with lib.autograd.set_detect_anomaly(False):
                seen.append(lib.is_anomaly_enabled())
            seen.append(lib.is_anomaly_enabled())
        seen.append(lib.is_anomaly_enabled())
        lib.autograd.set_detect_anomaly(True)     # takes effect without `with`
        seen.append(lib.is_anomaly_enabled())
        lib.autograd.set_detect_anomaly(False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly(check_nan=False):
                seen += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        seen += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        return seen
    check_same(run, exact=True)


def test_detect_anomaly_warns_and_is_not_a_decorator(torch):
    with pytest.warns(UserWarning, match=ENABLED_MSG):
        cm = numtorch.autograd.detect_anomaly()
    with pytest.raises(TypeError, match="'detect_anomaly' object is not callable"):
        cm(lambda: None)


def test_traceback_metadata(torch):
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            y = (x * 2).sum()
        z = x * 3
        return [line.split(", in ")[1] for line in y.grad_fn.metadata["traceback_"][-1:]], \
            "traceback_" in z.grad_fn.metadata
    check_same(run, exact=True)


def test_off_costs_nothing():
    from numtorch.autograd import anomaly_mode, graph
    assert graph.Node._init_node is anomaly_mode._ORIGINAL_INIT
    with numtorch.autograd.set_detect_anomaly(True):
        assert graph.Node._init_node is not anomaly_mode._ORIGINAL_INIT
    assert graph.Node._init_node is anomaly_mode._ORIGINAL_INIT


def test_successful_backward_in_anomaly_mode(torch):
    def run(lib):
        x = lib.tensor([0.5, 2.0], requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            y = (x.exp() * x).sum()
            (g,) = lib.autograd.grad(y, x, create_graph=True)
            g.sum().backward()
        return g, x.grad
    check_same(run)
