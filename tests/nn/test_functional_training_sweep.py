"""Regressions from the seeded-training conformance sweep: ``nn.functional`` results bit for
bit (signs of zero, NaN passing), dtypes and error messages against PyTorch."""
import warnings

import numpy as np
import pytest

from helpers import check_error, check_same

_EDGES = [float("nan"), -0.3, 0.2, -2.0, 2.0, -0.0, 0.0, 0.5, -0.5]


def _bits(t):
    """A tensor's values as raw bytes (so -0. and 0., and NaNs, are told apart) and dtype."""
    return (t.detach().numpy().tobytes(), str(t.dtype).replace("torch.", ""))


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.relu(x),
    lambda lib, x: lib.relu(x),
    lambda lib, x: x.relu(),
    lambda lib, x: lib.nn.functional.relu6(x),
    lambda lib, x: lib.nn.functional.hardtanh(x),
    lambda lib, x: lib.nn.functional.hardtanh(x, -0.0, 0.0),
    lambda lib, x: lib.clamp(x, 0.0, 1.0),
    lambda lib, x: lib.clamp(x, min=-0.0),
    lambda lib, x: lib.clamp(x, max=0.0),
    lambda lib, x: x.clamp_min(0.0),
    lambda lib, x: lib.nn.functional.softshrink(x, 0.5),
    lambda lib, x: lib.nn.functional.hardshrink(x, 0.5),
], ids=["relu", "torch.relu", "method", "relu6", "hardtanh", "hardtanh0", "clamp", "clamp_min",
        "clamp_max", "clamp_min_method", "softshrink", "hardshrink"])
def test_zero_signs_and_nan_as_pytorch(call):
    # PyTorch's clamps keep x on a tie with the bound (relu(-0.) is -0.), softshrink gives
    # x * 0 inside its band and hardshrink lets NaN through
    check_same(lambda lib: _bits(call(lib, lib.tensor(_EDGES))), exact=True)


@pytest.mark.parametrize("bad", [(1, 1, 1, 1), (0, 1, 1, 1), (0, 0, 1, 1), (1, 0, 0, 1)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_size_errors_name_running_stats_first(bad, training):
    def f(lib):
        args = [lib.ones(3 if b else 4) for b in bad]
        lib.nn.functional.batch_norm(lib.ones(2, 4), *args, training=training)
    check_error(f)


_PAIRS = [("float32", "int64"), ("int64", "float32"), ("float32", "int32"),
          ("float64", "float32"), ("float16", "float32")]


@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss", "l1_loss"])
@pytest.mark.parametrize("dtypes", _PAIRS, ids=["-".join(p) for p in _PAIRS])
def test_pointwise_loss_dtypes_as_pytorch(name, dtypes):
    # float32 with an integer target computes in float32 (not NumPy's float64); huber_loss
    # writes into the input's dtype, so an integer input is refused
    def f(lib):
        x = lib.tensor([0.5, 3.0, -1.0]).to(getattr(lib, dtypes[0]))
        t = lib.tensor([1, 0, 2]).to(getattr(lib, dtypes[1]))
        out = getattr(lib.nn.functional, name)(x, t)
        return out.item(), str(out.dtype)
    try:
        check_same(f, exact=True)
    except RuntimeError:
        check_error(f)


def test_mse_loss_int_target_gradient_is_float32():
    def f(lib):
        x = lib.tensor([0.5, 3.0, -1.0], requires_grad=True)
        loss = lib.nn.functional.mse_loss(x, lib.tensor([1, 0, 2]), reduction="sum")
        loss.backward()
        return loss.item(), str(loss.dtype), x.grad.tolist(), str(x.grad.dtype)
    check_same(f, exact=True)


def test_pointwise_loss_zero_dim_target_promotes_after_broadcast():
    def f(lib):
        x = lib.tensor([0.5, 3.0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # the size-mismatch warning
            out = lib.nn.functional.mse_loss(x, lib.tensor(1.0, dtype=lib.float64))
        return out.item(), str(out.dtype)
    check_same(f, exact=True)


_BN_SHAPES = [(10, 4), (64, 16), (7, 1), (3, 2, 2, 2), (8, 4, 5, 5), (4, 3, 20), (5, 3, 1),
              (1, 3, 4), (6, 1, 3, 3)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", [{}, {"affine": False}, {"momentum": None},
                                    {"track_running_stats": False},
                                    {"momentum": 0.3, "eps": 1e-3}])
@pytest.mark.parametrize("shape", _BN_SHAPES, ids=[str(s) for s in _BN_SHAPES])
def test_batch_norm_bits_as_pytorch(shape, kwargs, dtype):
    # statistics, running-stat blends and the fused x * alpha + beta round as PyTorch's CPU
    # kernels do, so a printed "mean of the normalised output" matches; three training
    # steps (running stats blended), then eval mode
    torch = pytest.importorskip("torch")
    gen = np.random.default_rng(len(shape) * 7 + shape[0])
    x = (gen.standard_normal(shape) * 3 + 1).astype(dtype)
    w = gen.uniform(0.5, 1.5, shape[1]).astype(dtype)
    b = gen.uniform(-1, 1, shape[1]).astype(dtype)

    def run(lib):
        lib.set_num_threads(torch.get_num_threads())
        cls = lib.nn.BatchNorm1d if len(shape) < 4 else lib.nn.BatchNorm2d
        bn = cls(shape[1], **kwargs).to(getattr(lib, dtype))
        if bn.affine:
            with lib.no_grad():
                bn.weight.copy_(lib.from_numpy(w.copy()))
                bn.bias.copy_(lib.from_numpy(b.copy()))
        out = []
        for step in range(3):
            out.append(_bits(bn(lib.from_numpy(x * (step + 1) - step))))
            if bn.track_running_stats:
                out += [_bits(bn.running_mean), _bits(bn.running_var)]
        bn.eval()
        out.append(_bits(bn(lib.from_numpy(x.copy()))))
        return out
    check_same(run, exact=True)


def test_batch_norm_seeded_module_bits_as_pytorch():
    def f(lib):
        lib.manual_seed(4)
        x = lib.randn(3, 2, 2, 2) * 5 + 3
        return _bits(lib.nn.BatchNorm2d(2)(x))
    check_same(f, exact=True)


def test_num_threads_as_pytorch():
    check_same(lambda lib: lib.get_num_threads(), exact=True)
    for bad in (0, -1, 2.0, True):
        check_error(lambda lib: lib.set_num_threads(bad))
