"""In-place activations against PyTorch: those whose PyTorch backward reads the output
(relu_, sigmoid_, tanh_, exp_, elu_, leaky_relu_, celu_, selu_, rrelu_ ...) save it, so an
in-place change of the output before backward raises PyTorch's error; otherwise gradients
(first and second order) and grad_fn names are PyTorch's."""
import pytest

from helpers import check_error, check_same

ACTIVATIONS = {
    "relu_": lambda lib, y: y.relu_(),
    "F.relu": lambda lib, y: lib.nn.functional.relu(y, inplace=True),
    "sigmoid_": lambda lib, y: y.sigmoid_(),
    "tanh_": lambda lib, y: y.tanh_(),
    "exp_": lambda lib, y: y.exp_(),
    "sqrt_": lambda lib, y: y.sqrt_(),
    "elu": lambda lib, y: lib.nn.functional.elu(y, 0.7, inplace=True),
    "elu_": lambda lib, y: lib.nn.functional.elu_(y),
    "selu": lambda lib, y: lib.nn.functional.selu(y, inplace=True),
    "celu": lambda lib, y: lib.nn.functional.celu(y, 2.0, inplace=True),
    "leaky_relu": lambda lib, y: lib.nn.functional.leaky_relu(y, 0.2, inplace=True),
    "leaky_relu_": lambda lib, y: lib.nn.functional.leaky_relu_(y),
    "rrelu_eval": lambda lib, y: lib.nn.functional.rrelu(y, inplace=True),
    "rrelu_train": lambda lib, y: lib.nn.functional.rrelu(y, training=True, inplace=True),
    "nn.ELU": lambda lib, y: lib.nn.ELU(inplace=True)(y),
    "nn.LeakyReLU": lambda lib, y: lib.nn.LeakyReLU(0.1, inplace=True)(y),
    "hardtanh": lambda lib, y: lib.nn.functional.hardtanh(y, inplace=True),
    "silu": lambda lib, y: lib.nn.functional.silu(y, inplace=True),
    "threshold": lambda lib, y: lib.nn.functional.threshold(y, 0.1, -1.0, inplace=True),
}


def _input(lib):
    lib.manual_seed(0)
    return (lib.rand(6, dtype=lib.float64) * 4 - 2).requires_grad_()


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_gradients_match_torch(torch, name):
    def run(lib):
        x = _input(lib)
        y = ACTIVATIONS[name](lib, x * 1)
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return y, y.grad_fn.name(), g, gg
    check_same(run)


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_changing_the_output_in_place_is_caught(torch, name):
    def run(lib):
        x = _input(lib)
        y = ACTIVATIONS[name](lib, x * 1)
        y.mul_(2)
        y.sum().backward()
        return x.grad
    try:  # PyTorch raises where the op saved its output; numtorch must do the same
        ref = run(torch)
    except RuntimeError:
        check_error(run)
    else:
        check_same(lambda lib: run(lib) if lib is not torch else ref)


@pytest.mark.parametrize("fn", [
    lambda lib, y: lib.nn.functional.leaky_relu_(y, -0.1),
    lambda lib, y: lib.nn.functional.elu_(y, -1.0),
    lambda lib, y: lib.nn.functional.celu_(y, -1.0),
    lambda lib, y: lib.nn.functional.rrelu_(y, -0.3, -0.1),
], ids=["leaky", "elu", "celu", "rrelu"])
def test_negative_slope_in_place_backward_errors(fn):
    def run(lib):
        x = _input(lib)
        fn(lib, x * 1).sum().backward()
    check_error(run)
