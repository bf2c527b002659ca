"""Regression tests of conformance sweep BE (torch.func in tutorial-style scripts), against
PyTorch: vmap's out_dims check, randomness='same' across chunks, vjp refusing integer
outputs, jacrev/jacfwd taking positional arguments only and refusing complex tensors,
functionalize, and printing inside grad/vjp/jvp (GradTrackingTensor wrappers)."""
import contextlib
import io

import pytest

from helpers import check_error, check_same

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated",
                                        "ignore:Attempted to insert a get_attr Node")


@pytest.mark.parametrize("out_dims", ["a", 0.5, (0, "b"), [None, 1.0]])
def test_vmap_out_dims_must_be_ints(out_dims):
    check_error(lambda lib: lib.func.vmap(lambda t: (t, t), out_dims=out_dims)(lib.ones(2)))


def test_vmap_out_dims_checked_before_inputs():
    # PyTorch checks out_dims before the inputs (whose in_dims are wrong here too)
    check_error(lambda lib: lib.func.vmap(lambda t: t, in_dims=3, out_dims="x")(lib.ones(2)))


@pytest.mark.parametrize("chunk", [1, 3])
@pytest.mark.parametrize("randomness", ["same", "different"])
def test_vmap_chunks_random_stream(chunk, randomness):
    def run(lib):
        lib.manual_seed(7)
        out = lib.func.vmap(lambda t: t * lib.rand(()), randomness=randomness,
                            chunk_size=chunk)(lib.ones(4, 2))
        return out, lib.rand(2)
    check_same(run)


@pytest.mark.parametrize("case", ["argmax", "bool", "jacrev"])
def test_vjp_integer_output_raises(case):
    def run(lib):
        x = lib.tensor([1.0, 3.0, 2.0])
        if case == "argmax":
            return lib.func.vjp(lambda t: t.argmax(), x)
        if case == "bool":
            return lib.func.vjp(lambda t: (t * 2, t > 1), x)
        return lib.func.jacrev(lambda t: t.argmax())(x)
    check_error(run)


@pytest.mark.parametrize("how", ["jacrev", "jacfwd", "hessian"])
def test_jacobians_take_no_keyword_arguments(how):
    def f(x, *, scale=1.0):
        return (x * scale).sum()
    check_error(lambda lib: getattr(lib.func, how)(f)(lib.ones(2), scale=2.0))


@pytest.mark.parametrize("how", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("where", ["input", "output", "other_arg"])
def test_jacobians_refuse_complex(how, where):
    def run(lib):
        jac = getattr(lib.func, how)
        if where == "input":
            return jac(lambda t: t * 2)(lib.ones(2, dtype=lib.complex64))
        if where == "output":
            return jac(lambda t: t * 1j)(lib.ones(2))
        return jac(lambda t, c: t * c.real)(lib.ones(2), lib.ones(2, dtype=lib.complex64))
    check_error(run)


def _mutating(t):
    """The functionalize tutorial's function: an intermediate mutated through a view."""
    b = t + 1.0
    b.view(-1).add_(1)
    return b


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_functionalize_values(remove):
    def run(lib):
        fz = lib.func.functionalize
        x = lib.tensor([0.5, -1.0])
        return (fz(_mutating, remove=remove)(x),
                lib.func.vmap(fz(_mutating, remove=remove))(lib.ones(3, 2)),
                lib.func.grad(lambda t: fz(_mutating, remove=remove)(t).sum())(x))
    check_same(run)


def test_functionalize_bad_remove():
    check_error(lambda lib: lib.func.functionalize(_mutating, remove="views"))


def test_functionalize_input_mutation_and_aliasing():
    def run(lib):
        def f(t):
            t.add_(1)
            return t.view(-1), t * 2
        x = lib.ones(2, 2)
        v, d = lib.func.functionalize(f)(x)
        y = lib.ones(3)
        same = lib.func.functionalize(lambda t: t)(y) is y
        view = lib.func.functionalize(lambda t: t.t())(lib.ones(2, 3))
        copy = lib.func.functionalize(lambda t: t.t(), remove="mutations_and_views")(
            lib.ones(2, 3))
        return (x, v, d, v.data_ptr() == x.data_ptr(), same, view.is_contiguous(),
                copy.is_contiguous(), copy._base is None)
    check_same(run)


def _printed(fn):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn()
    return buf.getvalue()


def _show(t):
    print(t)
    y = t.sin() * 2
    print(y)
    return y.sum()


@pytest.mark.parametrize("case", ["grad", "grad_rg", "grad_param", "grad_grad", "vjp", "jvp",
                                  "jacrev", "vmap_grad", "grad_vmap", "vmap_grad_in_dim",
                                  "other_arg", "captured", "format"])
def test_print_inside_transforms(case):
    def run(lib):
        fn = lib.func
        x = lib.tensor([1.0, 2.0])
        xs = lib.ones(2, 2)
        w = lib.tensor([3.0, 4.0], requires_grad=True)   # captured from outside
        cases = {
            "grad": lambda: fn.grad(_show)(x),
            "grad_rg": lambda: fn.grad(_show)(x.clone().requires_grad_()),
            "grad_param": lambda: fn.grad(_show)(lib.nn.Parameter(x.clone())),
            "grad_grad": lambda: fn.grad(fn.grad(lambda t: _show(t)))(lib.tensor(1.0)),
            "vjp": lambda: fn.vjp(_show, x),
            "jvp": lambda: fn.jvp(_show, (x,), (lib.ones(2),)),
            "jacrev": lambda: fn.jacrev(lambda t: _show(t) * t)(x),
            "vmap_grad": lambda: fn.vmap(fn.grad(_show))(xs),
            "grad_vmap": lambda: fn.grad(lambda t: fn.vmap(_show)(t).sum())(xs),
            "vmap_grad_in_dim": lambda: fn.vmap(fn.grad(_show), in_dims=1)(lib.ones(3, 2)),
            "other_arg": lambda: fn.grad(lambda a, b: _show(a * b), argnums=1)(x, x),
            "captured": lambda: fn.grad(lambda t: _show(t * w))(x),
            "format": lambda: fn.grad(lambda t: print(f"{t}|{t * 3!s}") or t.sum())(x),
        }
        return _printed(cases[case])
    check_same(run)


def test_print_after_transform_is_plain():
    # outside every transform (and for tensors a transform never saw) printing is unchanged
    def run(lib):
        w = lib.ones(2, requires_grad=True)

        def f(t):
            print(w)
            return (t * w).sum()
        return _printed(lambda: print(lib.func.grad(f)(lib.ones(2)), w * 2))
    check_same(run)
