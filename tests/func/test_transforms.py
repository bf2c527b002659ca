"""torch.func gradient transforms (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
linearize) and their compositions, against PyTorch and numerically."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same

pytestmark = [pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated"),
              pytest.mark.filterwarnings("ignore:Attempted to insert a get_attr Node")]


def _x(lib, values=(0.5, -1.0, 2.0)):
    return lib.tensor(values, dtype=lib.float64)


def f_scalar(lib, x):
    return (x.sin() * x.exp()).sum()


# one function per op family, vector -> vector, to differentiate every way
FAMILIES = {
    "elementwise": lambda t, x: x.tanh() * x.sigmoid() + (x * x + 1).log() / (x.abs() + 2),
    "reduction": lambda t, x: t.stack([x.logsumexp(0), x.var(), x.prod(), x.amax()]),
    "softmax": lambda t, x: t.softmax(x, 0) * t.log_softmax(x * 2, 0),
    "shape": lambda t, x: t.cat([x.flip(0), x.reshape(3, 1).expand(3, 2).reshape(-1)])[1:5],
    "indexing": lambda t, x: x[[2, 0]] * x[1] + x.gather(0, t.tensor([1, 1])),
    "linalg": lambda t, x: t.outer(x, x) @ x + t.einsum("i,i->", x, x),
    "nn": lambda t, x: t.nn.functional.linear(x.exp(), t.ones(2, 3, dtype=x.dtype) * 0.5),
}


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("transform", ["jacrev", "jacfwd", "hessian_sum", "vjp", "jvp"])
def test_families_under_transforms(torch, family, transform):
    f = FAMILIES[family]

    def run(lib):
        fn, x = (lambda t: f(lib, t)), _x(lib)
        F = lib.func
        if transform == "jacrev":
            return F.jacrev(fn)(x)
        if transform == "jacfwd":
            return F.jacfwd(fn)(x)
        if transform == "hessian_sum":
            return F.hessian(lambda t: fn(t).sum())(x)
        if transform == "vjp":
            out, vjp_fn = F.vjp(fn, x)
            return out, vjp_fn(lib.ones_like(out))
        return F.jvp(fn, (x,), (lib.ones_like(x),))
    check_same(run)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_jacobians_numerically(family):
    f = FAMILIES[family]
    x = np.array([0.5, -1.0, 2.0])
    jr = numtorch.func.jacrev(lambda t: f(numtorch, t))(numtorch.tensor(x)).numpy()
    jf = numtorch.func.jacfwd(lambda t: f(numtorch, t))(numtorch.tensor(x)).numpy()
    h = 1e-6
    cols = [(f(numtorch, numtorch.tensor(x + h * e)).numpy() -
             f(numtorch, numtorch.tensor(x - h * e)).numpy()) / (2 * h) for e in np.eye(3)]
    num = np.stack(cols, -1)
    np.testing.assert_allclose(jr, num, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(jf, num, rtol=1e-6, atol=1e-7)


def test_grad_variants(torch):
    def run(lib):
        F = lib.func
        x, y = _x(lib), _x(lib, (1.0, 2.0, 3.0))
        g2 = F.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, y)
        g_dict = F.grad(lambda d: (d["a"] * d["b"]).sum())({"a": x, "b": y})
        gv = F.grad_and_value(lambda a: (a ** 2).sum())(x)
        aux = F.grad(lambda a: ((a ** 2).sum(), a * 10), has_aux=True)(x)
        gva = F.grad_and_value(lambda a: ((a ** 2).sum(), {"k": a}), has_aux=True)(x)
        last = F.grad(lambda a, b: (a * b).sum(), argnums=-1)(x, y)
        return g2, g_dict, gv, aux, gva, last, gv[1].requires_grad, aux[0].requires_grad
    check_same(run)


def test_nested_transforms(torch):
    def run(lib):
        F = lib.func
        x = _x(lib)

        def f(t):
            return f_scalar(lib, t)
        return (F.grad(F.grad(lambda t: (t ** 3).sum().sin()))(x[0]),
                F.jacfwd(F.jacrev(f))(x), F.jacrev(F.jacfwd(f))(x), F.jacrev(F.jacrev(f))(x),
                F.jvp(F.grad(f), (x,), (lib.ones_like(x),)),
                F.grad(lambda t: F.jvp(lambda s: s.sin(), (t,), (t,))[1].sum())(x),
                F.vmap(F.grad(f))(lib.stack([x, x * 2])),
                F.vmap(F.jacrev(lambda t: t.sin() * t))(lib.stack([x, -x])),
                F.hessian(f)(x))
    check_same(run)


def test_closure_over_outer_variable_no_perturbation_confusion(torch):
    def run(lib):
        F = lib.func
        x = _x(lib, (2.0,))[0]
        # d/dx [ x * d/dy (x * y) ] = d/dx [x * x] = 2x  (perturbation confusion would give 4x)
        return F.grad(lambda a: a * F.grad(lambda b: a * b)(a))(x)
    check_same(run)


def test_outer_autograd_through_transform(torch):
    def run(lib):
        w = lib.tensor([1.5, -0.5], dtype=lib.float64, requires_grad=True)
        x = _x(lib, (0.3, 0.7))
        g = lib.func.grad(lambda t: (t.sin() * w).sum())(x)
        (gw,) = lib.autograd.grad(g.sum(), w)
        jac = lib.func.jacrev(lambda t: t * w)(x)
        return g, gw, g.requires_grad, jac.requires_grad
    check_same(run)


def test_vjp_and_jvp_structures(torch):
    def run(lib):
        F = lib.func
        x, y = _x(lib), _x(lib, (1.0, 2.0, 3.0))
        out, fn = F.vjp(lambda a, b: {"p": a * b, "q": (a + b, a.sum())}, x, y)
        cts = {"p": lib.ones(3, dtype=lib.float64),
               "q": (lib.ones(3, dtype=lib.float64), lib.tensor(2.0, dtype=lib.float64))}
        aux = F.vjp(lambda a: (a * 2, a.sum()), x, has_aux=True)
        jv = F.jvp(lambda a, b: (a * b, a.exp()), (x, y), (y, x))
        jva = F.jvp(lambda a: (a * 2, a.sum()), (x,), (x,), has_aux=True)
        return out, fn(cts), aux[0], aux[1](lib.ones(3, dtype=lib.float64)), aux[2], jv, jva
    check_same(run)


def test_jacobian_argnums_and_outputs(torch):
    def run(lib):
        F = lib.func
        x, y = _x(lib), _x(lib, (1.0, 2.0, 3.0))

        def f(a, b):
            return {"prod": a * b, "sum": (a + b).sum()}
        return (F.jacrev(f, argnums=(0, 1))(x, y), F.jacfwd(f, argnums=1)(x, y),
                F.jacrev(lambda a: (a.sin(), a.cos()))(x),
                F.jacrev(lambda a: a.sum(), has_aux=False)(x),
                F.jacrev(lambda a: (a * 2, {"aux": a}), has_aux=True)(x),
                F.jacfwd(lambda a: (a * 2, a[0]), has_aux=True)(x),
                F.hessian(lambda a, b: (a * a * b).sum(), argnums=(0, 1))(x, y))
    check_same(run)


def test_linearize(torch):
    def run(lib):
        x = _x(lib)
        out, fn = lib.func.linearize(lambda t: t.sin() * t, x)
        return out, fn(lib.ones_like(x)), fn(x)
    check_same(run)


def test_results_are_plain_at_top_level(torch):
    def run(lib):
        F = lib.func
        x = _x(lib)
        out, _ = F.vjp(lambda t: t * 2, x)
        return (repr(F.grad(lambda t: (t ** 2).sum())(x)), repr(out),
                repr(F.jacrev(lambda t: t ** 2)(x)), repr(F.jvp(lambda t: t ** 2, (x,), (x,))))
    check_same(run, exact=True)


@pytest.mark.parametrize("case", [
    lambda F, t: F.grad(lambda a: a)(t.ones(2)),
    lambda F, t: F.grad(lambda a: (a, a))(t.ones(2)),
    lambda F, t: F.grad(lambda a: a.sum(), has_aux=True)(t.ones(2)),
    lambda F, t: F.grad(lambda a, b: a.sum(), argnums=2)(t.ones(2), t.ones(2)),
    lambda F, t: F.grad(lambda a, b: a.sum(), argnums=1.0)(t.ones(2), t.ones(2)),
    lambda F, t: F.grad(lambda a: a.sum())(t.tensor([1, 2])),
    lambda F, t: F.jvp(t.sin, t.ones(2), t.ones(2)),
    lambda F, t: F.jvp(t.sin, (t.ones(2),), t.ones(2)),
    lambda F, t: F.jvp(t.sin, (t.ones(2),), (t.ones(2), t.ones(2))),
    lambda F, t: F.jvp(t.sin, (t.ones(2),), (t.ones(3),)),
    lambda F, t: F.vjp(t.sin, t.ones(2))[1](t.ones(3)),
    lambda F, t: F.vjp(lambda a: 3, t.ones(2)),
    lambda F, t: F.vjp(t.sin, t.ones(2))[1]((t.ones(2),)),
    lambda F, t: F.grad(lambda a: a.sum())(3.0),
    lambda F, t: F.vjp(lambda a, b: a, t.ones(2), 3),
    lambda F, t: F.jacrev(lambda a: a)(3.0),
    lambda F, t: F.jacfwd(lambda a: a)(3.0),
    lambda F, t: F.jvp(lambda a: a, (3.0,), (1.0,)),
    lambda F, t: F.jvp(lambda a: a, (), ()),
    lambda F, t: F.jvp(lambda a: (), (t.ones(2),), (t.ones(2),)),
    lambda F, t: F.vjp(lambda a: None, t.ones(2)),
    lambda F, t: F.vjp(lambda a: (), t.ones(2)),
    lambda F, t: F.grad(lambda a: (a.sum(), 3), has_aux=True)(t.ones(2)),
    lambda F, t: F.grad(lambda a: (a.sum(), None), has_aux=True)(t.ones(2)),
    lambda F, t: F.vjp(lambda a: (a, {"n": 3}), t.ones(2), has_aux=True),
    lambda F, t: F.jvp(lambda a: (a, 3), (t.ones(2),), (t.ones(2),), has_aux=True),
    lambda F, t: F.jacfwd(lambda a: (a, 3), has_aux=True)(t.ones(2)),
    lambda F, t: F.jacrev(t.sin, chunk_size=0),
], ids=["not_scalar", "tuple_out", "aux_not_tuple", "argnum_range", "argnum_type", "int_input",
        "jvp_primals", "jvp_tangents", "jvp_structure", "jvp_size", "vjp_size", "vjp_out_type",
        "vjp_structure", "grad_float_input", "vjp_int_input", "jacrev_float_input",
        "jacfwd_float_input", "jvp_float_primal", "jvp_no_primals", "jvp_empty_output",
        "vjp_none_output", "vjp_empty_output", "grad_int_aux", "grad_none_aux", "vjp_int_aux",
        "jvp_int_aux", "jacfwd_int_aux", "jacrev_chunk_size"])
def test_errors(torch, case):
    check_error(lambda lib: case(lib.func, lib))


def test_aux_is_cut_from_the_transform_graph(torch):
    """PyTorch unwraps the auxiliary output: no grad_fn of the transform's own graph."""
    def run(lib):
        F, x = lib.func, _x(lib)
        _, _, aux = F.vjp(lambda a: (a * 2, (a * 3, a.sum())), x, has_aux=True)
        _, (_, aux2) = F.grad_and_value(lambda a: (a.sum(), a * 2), has_aux=True)(x)
        _, aux3 = F.jacrev(lambda a: (a * 2, a.sum()), has_aux=True)(x)
        return repr(aux), repr(aux2), repr(aux3)
    check_same(run, exact=True)


def test_vjp_function_prints_as_pytorch(torch):
    def run(lib):
        _, fn = lib.func.vjp(lib.sin, _x(lib))
        return fn.__qualname__
    check_same(run, exact=True)


def test_jvp_primal_is_an_alias_view(torch):
    def run(lib):
        x = _x(lib).requires_grad_()
        return repr(lib.func.jvp(lambda a: a, (x,), (x,))[0])
    check_same(run, exact=True)


def test_reverse_over_reverse_signs_of_zeros(torch):
    """jacrev batches even a single one-hot cotangent, as PyTorch does: the zeros of the
    Hessian come out of a batched backward's reductions with PyTorch's signs."""
    def run(lib):
        F = lib.func
        x = lib.tensor([1., 2., 3.])

        def f(a):
            return (a.sin() * a).sum()
        return (repr(F.jacrev(F.jacrev(f))(x)),
                repr(F.jacrev(F.jacrev(f, chunk_size=1), chunk_size=1)(x)))
    check_same(run, exact=True)
