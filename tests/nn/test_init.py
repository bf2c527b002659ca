"""``nn.init`` draws PyTorch's numbers for the same seed; gains and fans as PyTorch."""
import math

import numpy as np
import pytest

import numtorch
from helpers import check_error

INITS = [
    ("uniform_", (5, 4), {"a": -2, "b": 3}), ("normal_", (5, 4), {"mean": 1, "std": 2}),
    ("normal_", (3,), {}), ("normal_", (40, 3), {}), ("constant_", (2, 3), {"val": 0.3}),
    ("ones_", (2, 3), {}), ("zeros_", (2, 3), {}), ("eye_", (3, 4), {}),
    ("dirac_", (4, 2, 3, 3), {"groups": 2}), ("dirac_", (2, 2, 3), {}),
    ("xavier_uniform_", (5, 4), {"gain": 2}), ("xavier_normal_", (50, 4), {}),
    ("kaiming_uniform_", (5, 4, 3), {"a": math.sqrt(5)}),
    ("kaiming_uniform_", (6, 3), {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", (5, 4), {"mode": "fan_out", "nonlinearity": "relu"}),
    ("trunc_normal_", (40, 30), {"std": 0.02}),
    ("trunc_normal_", (40, 30), {"mean": 0.0, "std": 1.0, "a": 1.5, "b": 2.0}),
    ("sparse_", (6, 4), {"sparsity": 0.3}),
]


@pytest.mark.parametrize("name,shape,kwargs", INITS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(INITS)])
def test_initializer_draws_torch_numbers(torch, name, shape, kwargs):
    out = []
    for lib in (numtorch, torch):
        lib.manual_seed(1)
        t = getattr(lib.nn.init, name)(lib.empty(*shape), **kwargs)
        out.append((t.numpy().copy(), lib.rand(3).numpy()))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])


def test_orthogonal(torch):
    for shape in ((4, 6), (6, 4), (3, 2, 2)):
        out = []
        for lib in (numtorch, torch):
            lib.manual_seed(2)
            out.append(lib.nn.init.orthogonal_(lib.empty(*shape), gain=2).numpy())
        # QR runs in LAPACK on both sides; the last bits may differ
        np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-6)


def test_generator_argument(torch):
    out = []
    for lib in (numtorch, torch):
        g = lib.Generator().manual_seed(4)
        out.append(lib.nn.init.kaiming_normal_(lib.empty(3, 5), generator=g).numpy())
    np.testing.assert_array_equal(out[0], out[1])


@pytest.mark.parametrize("args", [("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",),
                                  ("leaky_relu",), ("leaky_relu", 0.2), ("leaky_relu", 3),
                                  ("selu",)])
def test_calculate_gain(torch, args):
    assert numtorch.nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


def test_fans(torch):
    for shape in ((3, 4), (3, 4, 5), (2, 3, 4, 5)):
        assert numtorch.nn.init._calculate_fan_in_and_fan_out(numtorch.empty(*shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))


def test_init_keeps_requires_grad_and_records_nothing():
    p = numtorch.nn.Parameter(numtorch.empty(2, 3))
    numtorch.nn.init.xavier_uniform_(p)
    assert p.requires_grad and p.grad_fn is None and p._version == 1


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.init.calculate_gain("swish"),
    lambda lib: lib.nn.init.calculate_gain("leaky_relu", "x"),
    lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)),
    lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3, 2), mode="fan"),
    lambda lib: lib.nn.init.eye_(lib.empty(3, 2, 1)),
    lambda lib: lib.nn.init.dirac_(lib.empty(3, 2)),
    lambda lib: lib.nn.init.dirac_(lib.empty(3, 2, 2), groups=2),
    lambda lib: lib.nn.init.orthogonal_(lib.empty(3)),
    lambda lib: lib.nn.init.sparse_(lib.empty(3, 2, 2), 0.5),
])
def test_errors(fn):
    check_error(fn)


def test_zero_element_warning(torch):
    for lib in (numtorch, torch):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            lib.nn.init.kaiming_uniform_(lib.empty(0, 3))
