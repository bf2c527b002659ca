"""``nn.utils.parametrize``, ``nn.utils.parametrizations`` (weight_norm, spectral_norm,
orthogonal) and the deprecated ``nn.utils.weight_norm`` / ``spectral_norm`` against PyTorch:
values, gradients, buffers after power iterations, state_dict keys, reprs, removal, errors."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same

P = numtorch.nn.utils.parametrize


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()
    return Symmetric()


def _scale(lib):
    class Double(lib.nn.Module):
        def forward(self, X):
            return 2 * X

        def right_inverse(self, A):
            return A / 2
    return Double()


def test_register_and_use(torch):
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _symmetric(lib))
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _scale(lib))
        x = lib.randn(2, 3)
        m(x).sum().backward()
        grads = [p.grad for p in m.parameters()]
        m.weight = lib.eye(3) * 4  # through both right inverses
        return (type(m).__name__, repr(m), sorted(m.state_dict()), m.weight, grads,
                m.parametrizations.weight.original,
                lib.nn.utils.parametrize.is_parametrized(m),
                lib.nn.utils.parametrize.is_parametrized(m, "bias"),
                lib.nn.utils.parametrize.type_before_parametrizations(m).__name__)
    check_same(run)


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations(torch, leave):
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _scale(lib))
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave)
        return type(m).__name__, m.weight, type(m.weight).__name__, sorted(m.state_dict())
    check_same(run)


def test_cached_computes_once():
    calls = []

    class Counting(numtorch.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 1
    m = P.register_parametrization(numtorch.nn.Linear(2, 2), "weight", Counting())
    calls.clear()
    with P.cached():
        m.weight, m.weight
    assert len(calls) == 1
    m.weight
    assert len(calls) == 2


def test_deepcopy_works_pickle_refuses(torch):
    m = P.register_parametrization(numtorch.nn.Linear(2, 2), "weight", _scale(numtorch))
    c = copy.deepcopy(m)
    assert np.allclose(c.weight.detach().numpy(), m.weight.detach().numpy())
    assert c.parametrizations.weight.original is not m.parametrizations.weight.original

    def dump(lib):
        pickle.dumps(lib.nn.utils.parametrize.register_parametrization(
            lib.nn.Linear(2, 2), "weight", _scale(lib)))
    check_error(dump)


def test_errors(torch):
    def widen(lib):
        class Widen(lib.nn.Module):
            def forward(self, X):
                return lib.cat([X, X], 0)
        return Widen()

    def to_double(lib):
        class ToDouble(lib.nn.Module):
            def forward(self, X):
                return X.double()
        return ToDouble()
    R = "nn.utils.parametrize.register_parametrization"
    check_error(lambda lib: eval(f"lib.{R}")(lib.nn.Linear(2, 2), "weight", widen(lib)))
    check_error(lambda lib: eval(f"lib.{R}")(lib.nn.Linear(2, 2), "weight", to_double(lib)))
    check_error(lambda lib: eval(f"lib.{R}")(lib.nn.Linear(2, 2), "nope", _scale(lib)))
    check_error(lambda lib: lib.nn.utils.parametrize.remove_parametrizations(
        lib.nn.Linear(2, 2), "weight"))


# ---- the parametrizations ---------------------------------------------------------------------
BUILDERS = {
    "weight_norm": lambda lib: lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(4, 3)),
    "weight_norm_conv_dim1": lambda lib: lib.nn.utils.parametrizations.weight_norm(
        lib.nn.Conv2d(2, 3, 3), dim=1),
    "weight_norm_dim_none": lambda lib: lib.nn.utils.parametrizations.weight_norm(
        lib.nn.Linear(4, 3), dim=None),
    "spectral_norm": lambda lib: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.Linear(4, 3)),
    "spectral_norm_convT": lambda lib: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.ConvTranspose2d(2, 3, 3)),
    "orthogonal_exp": lambda lib: lib.nn.utils.parametrizations.orthogonal(
        lib.nn.Linear(4, 4)),
    "orthogonal_cayley": lambda lib: lib.nn.utils.parametrizations.orthogonal(
        lib.nn.Linear(4, 4), orthogonal_map="cayley"),
    "orthogonal_householder": lambda lib: lib.nn.utils.parametrizations.orthogonal(
        lib.nn.Linear(3, 5)),
    "orthogonal_no_trivialization": lambda lib: lib.nn.utils.parametrizations.orthogonal(
        lib.nn.Linear(5, 3), use_trivialization=False),
    "legacy_weight_norm": lambda lib: lib.nn.utils.weight_norm(lib.nn.Linear(4, 3)),
    "legacy_spectral_norm": lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(4, 3)),
    "legacy_spectral_norm_conv": lambda lib: lib.nn.utils.spectral_norm(
        lib.nn.Conv2d(2, 3, 3), n_power_iterations=2),
}


def _input(lib, m):
    conv = isinstance(m, (lib.nn.Conv2d, lib.nn.ConvTranspose2d))
    return lib.randn(1, 2, 5, 5) if conv else lib.randn(2, m.in_features)


@pytest.mark.parametrize("name", list(BUILDERS))
def test_parametrizations_match_torch(torch, name):
    def run(lib):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            m = BUILDERS[name](lib)
        x = _input(lib, m)
        first, second = m(x), m(x)
        second.pow(2).sum().backward()
        m.eval()
        third = m(x)
        return (first, second, third, [p.grad for p in m.parameters()], list(m.buffers()),
                sorted(m.state_dict()), type(m).__name__, repr(m))
    check_same(run)


def test_legacy_weight_norm_warns_and_removes(torch):
    def run(lib):
        lib.manual_seed(0)
        with pytest.warns(FutureWarning) as record:
            m = lib.nn.utils.weight_norm(lib.nn.Linear(3, 2))
        lib.nn.utils.remove_weight_norm(m)
        return str(record[0].message), sorted(m.state_dict()), m.weight
    check_same(run)
    check_error(lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.Linear(2, 2)))
    check_error(lambda lib: lib.nn.utils.remove_spectral_norm(lib.nn.Linear(2, 2)))


def test_legacy_spectral_norm_removes(torch):
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(3, 2))
        m(lib.randn(1, 3))
        lib.nn.utils.remove_spectral_norm(m)
        return sorted(m.state_dict()), m.weight
    check_same(run)


def test_weight_norm_loads_legacy_state_dict(torch):
    def run(lib):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            old = lib.nn.utils.weight_norm(lib.nn.Linear(3, 2))
        new = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 2))
        new.load_state_dict(old.state_dict())
        return new.weight
    check_same(run)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_second_derivatives(dim):
    from helpers import numerical_grad_check
    from numtorch.ops.weight_norm import weight_norm
    rng = np.random.RandomState(0)
    g_shape = {0: (3, 1, 1), 1: (1, 2, 1), None: ()}[dim]
    numerical_grad_check(lambda v, g: weight_norm(v, g, -1 if dim is None else dim),
                         [rng.randn(3, 2, 2), rng.rand(*g_shape) + 0.5])


def test_spectral_norm_errors():
    check_error(lambda lib: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.Linear(2, 2), n_power_iterations=0))
    check_error(lambda lib: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.Linear(2, 2), dim=3))
    check_error(lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2),
                                                                    "bias"))
    check_error(lambda lib: lib.nn.utils.parametrizations.orthogonal(
        lib.nn.Linear(2, 2), orthogonal_map="svd"))
