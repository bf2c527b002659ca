"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp against PyTorch."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")


def _t(lib, values, rg=False):
    return lib.tensor(values, dtype=lib.float64, requires_grad=rg)


def _f1(lib):
    return lambda x: (x.exp() * x.sin()).sum()


def _f_multi(lib):
    return lambda x, y: (x * y.sum(), x.softmax(0))


@pytest.mark.parametrize("kwargs", [{}, {"create_graph": True}, {"vectorize": True},
                                    {"strategy": "forward-mode", "vectorize": True}],
                         ids=["plain", "create_graph", "vectorize", "forward_mode"])
def test_jacobian_structures(torch, kwargs):
    def run(lib):
        F = lib.autograd.functional
        x, y = _t(lib, [0.5, -1.0, 2.0]), _t(lib, [[1.0, 2.0], [3.0, 4.0]])
        single = F.jacobian(lambda a: a.tanh(), x, **kwargs)
        multi = F.jacobian(_f_multi(lib), (x, y), **kwargs)
        one_tuple = F.jacobian(lambda a: (a * 2,), (x,), **kwargs)
        return single, multi, one_tuple, single.requires_grad
    check_same(run)


def _structure(x):
    """The container types of a nested result (tensors as 'T')."""
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_structure(v) for v in x])
    return "T"


@pytest.mark.parametrize("outer", [False, True], ids=["jacobian", "hessian"])
def test_forward_mode_result_containers(torch, outer):
    """PyTorch's forward-mode path nests lists (not tuples) for tuple inputs."""
    def run(lib):
        F = lib.autograd.functional
        y = _t(lib, [1.0, 2.0])
        if outer:
            kw = {"vectorize": True, "outer_jacobian_strategy": "forward-mode"}
            return [_structure(F.hessian(lambda a, b: (a * b ** 2).sum(), (y, y), **kw)),
                    _structure(F.hessian(lambda a: (a ** 3).sum(), (y,), **kw))]
        kw = {"vectorize": True, "strategy": "forward-mode"}
        return [_structure(F.jacobian(lambda a, b: (a * b, a), (y, y), **kw)),
                _structure(F.jacobian(lambda a, b: a * b, (y, y), **kw)),
                _structure(F.jacobian(lambda a: (a * 2, a), y, **kw)),
                _structure(F.jacobian(lambda a: (a * 2, a), (y,), **kw))]
    check_same(run, exact=True)


def test_jacobian_prints_as_torch(torch):
    check_same(lambda lib: [repr(lib.autograd.functional.jacobian(f, lib.tensor(
        [1.0, -2.0, 0.5]))) for f in (lambda t: t.softmax(0), lambda t: t.sin() * 2)],
        exact=True)


@pytest.mark.parametrize("kwargs", [{}, {"create_graph": True}, {"vectorize": True},
                                    {"outer_jacobian_strategy": "forward-mode",
                                     "vectorize": True}],
                         ids=["plain", "create_graph", "vectorize", "forward_outer"])
def test_hessian(torch, kwargs):
    def run(lib):
        F = lib.autograd.functional
        x, y = _t(lib, [0.5, -1.0]), _t(lib, [2.0, 3.0])
        return (F.hessian(_f1(lib), x, **kwargs),
                F.hessian(lambda a, b: (a.exp() * b ** 2).sum(), (x, y), **kwargs))
    check_same(run)


@pytest.mark.parametrize("name", ["vjp", "jvp", "hvp", "vhp"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_vector_products(torch, name, create_graph):
    def run(lib):
        F = lib.autograd.functional
        fn = getattr(F, name)
        x, y = _t(lib, [0.5, -1.0, 2.0]), _t(lib, [1.5, 0.5, -0.5])
        v = _t(lib, [1.0, 2.0, 3.0])
        if name in ("vjp", "jvp"):
            single = fn(lambda a: a.exp() * a, x, v, create_graph=create_graph)
            multi = fn(lambda a, b: (a * b, a + b), (x, y), (v, v), create_graph=create_graph)
        else:
            single = fn(lambda a: (a ** 3).sum(), x, v, create_graph=create_graph)
            multi = fn(lambda a, b: (a ** 2 * b).sum(), (x, y), (v, v),
                       create_graph=create_graph)
        scalar = fn(lambda a: (a * a).sum(), _t(lib, [3.0]))
        return single, multi, scalar, single[1].requires_grad
    check_same(run)


def test_create_graph_gives_differentiable_results(torch):
    def run(lib):
        x = _t(lib, [0.5, 1.5], rg=True)
        jac = lib.autograd.functional.jacobian(lambda a: a ** 3, x, create_graph=True)
        (g,) = lib.autograd.grad(jac.sum(), x)
        return jac, g
    check_same(run)


@pytest.mark.parametrize("case", [
    lambda lib, F: F.jacobian(lambda a, b: a * 2, (_t(lib, [1.0]), _t(lib, [2.0])), strict=True),
    lambda lib, F: F.jacobian(lambda a: a.detach(), _t(lib, [1.0]), strict=True),
    lambda lib, F: F.jacobian(lambda a: a * 2, _t(lib, [1.0]), strict=True, vectorize=True),
    lambda lib, F: F.jacobian(lambda a: a * 2, _t(lib, [1.0]), strategy="forward-mode"),
    lambda lib, F: F.jacobian(lambda a: a * 2, _t(lib, [1.0]), strategy="sideways"),
    lambda lib, F: F.jacobian(lambda a: a * 2, _t(lib, [1.0]), create_graph=True,
                              strategy="forward-mode", vectorize=True),
    lambda lib, F: F.hessian(lambda a: a * 2, _t(lib, [1.0, 2.0])),
    lambda lib, F: F.hessian(lambda a: (a, a), _t(lib, [1.0])),
    lambda lib, F: F.hessian(lambda a: (a * 2).sum(), _t(lib, [1.0]), strict=True),
    lambda lib, F: F.vjp(lambda a: a * 2, _t(lib, [1.0, 2.0])),
    lambda lib, F: F.vjp(lambda a: a * 2, _t(lib, [1.0, 2.0]), _t(lib, [1.0])),
    lambda lib, F: F.vjp(lambda a, b: (a, b), (_t(lib, [1.0]), _t(lib, [1.0])),
                         (_t(lib, [1.0]),)),
    lambda lib, F: F.jvp(lambda a: a * 2, _t(lib, [1.0, 2.0])),
    lambda lib, F: F.jvp(lambda a: a * 2, [1.0]),
    lambda lib, F: F.jvp(lambda a: 3.0, _t(lib, [1.0]), _t(lib, [1.0])),
    lambda lib, F: F.hvp(lambda a: a * 2, _t(lib, [1.0, 2.0]), _t(lib, [1.0, 1.0])),
    lambda lib, F: F.vhp(lambda a: (a * 2).sum(), _t(lib, [1.0]), _t(lib, [1.0]), strict=True),
], ids=["strict_independent", "strict_no_grad", "strict_vectorize", "fwd_needs_vectorize",
        "bad_strategy", "fwd_create_graph", "hessian_not_scalar", "hessian_tuple",
        "hessian_strict_linear", "vjp_v_none", "vjp_v_size", "vjp_v_length", "jvp_v_none",
        "jvp_bad_input", "jvp_bad_output", "hvp_not_scalar", "vhp_strict_linear"])
def test_errors(torch, case):
    check_error(lambda lib: case(lib, lib.autograd.functional))


def test_strict_off_fills_zeros(torch):
    check_same(lambda lib: lib.autograd.functional.jacobian(
        lambda a, b: a * 2, (_t(lib, [1.0, 2.0]), _t(lib, [3.0]))))


def test_jacobian_numerically():
    x = np.array([0.3, -0.7, 1.1])
    jac = numtorch.autograd.functional.jacobian(
        lambda t: t.sin() * t.sum(), numtorch.tensor(x)).numpy()
    h = 1e-6
    num = np.stack([(np.sin(x + h * e) * (x + h * e).sum() - np.sin(x - h * e) *
                     (x - h * e).sum()) / (2 * h) for e in np.eye(3)], 1)
    np.testing.assert_allclose(jac, num, rtol=1e-6, atol=1e-8)
