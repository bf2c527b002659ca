"""Custom autograd Functions of both styles under every transform, as PyTorch allows them
(setup_context style; ``generate_vmap_rule`` or a ``vmap`` staticmethod) and with PyTorch's
errors otherwise."""
import pytest

import numtorch
from helpers import check_error, check_same

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")


def _classes(lib):
    class Cube(lib.autograd.Function):
        """x**3 whose backward calls another Function (so double backward goes through it)."""
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return Square3.apply(x) * g

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * t

    class Square3(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return 3 * x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 6 * x * g

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return 6 * x * t

    class MyMul(lib.autograd.Function):
        """A Function with its own vmap rule."""

        @staticmethod
        def forward(x, y):
            return x * y

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

        @staticmethod
        def vmap(info, in_dims, x, y):
            x = x.movedim(in_dims[0], 0) if in_dims[0] is not None else x.unsqueeze(0)
            y = y.movedim(in_dims[1], 0) if in_dims[1] is not None else y.unsqueeze(0)
            return MyMul.apply(x, y), 0

    class Classic(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos()

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * x.cos()

    class NoRule(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Cube, MyMul, Classic, NoRule


def _data(lib):
    return (lib.tensor([1.0, 2.0, 3.0]), lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
            lib.tensor([1.0, 10.0]))


TRANSFORMS = {
    "grad": lambda F, Cube, x, xb, u: F.grad(lambda t: Cube.apply(t).sum())(x),
    "grad_grad": lambda F, Cube, x, xb, u: F.grad(
        lambda s: F.grad(lambda t: Cube.apply(t).sum())(s).sum())(x),
    "jacrev": lambda F, Cube, x, xb, u: F.jacrev(Cube.apply)(x),
    "jacfwd": lambda F, Cube, x, xb, u: F.jacfwd(Cube.apply)(x),
    "hessian": lambda F, Cube, x, xb, u: F.hessian(lambda t: Cube.apply(t).sum())(x),
    "jvp": lambda F, Cube, x, xb, u: F.jvp(Cube.apply, (x,), (x * 0 + 1,)),
    "vjp": lambda F, Cube, x, xb, u: F.vjp(Cube.apply, x)[1](x),
    "vmap": lambda F, Cube, x, xb, u: F.vmap(Cube.apply)(xb),
    "vmap_grad": lambda F, Cube, x, xb, u: F.vmap(F.grad(lambda t: Cube.apply(t).sum()))(xb),
    "grad_vmap": lambda F, Cube, x, xb, u: F.grad(lambda t: F.vmap(Cube.apply)(t).sum())(xb),
    "vmap_jacrev": lambda F, Cube, x, xb, u: F.vmap(F.jacrev(Cube.apply))(xb),
    "vmap_jvp": lambda F, Cube, x, xb, u: F.vmap(
        lambda a, b: F.jvp(Cube.apply, (a,), (b,)))(xb, xb * 0 + 1),
}


@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_setup_context_function_with_generated_vmap_rule(torch, transform):
    def run(lib):
        Cube = _classes(lib)[0]
        return TRANSFORMS[transform](lib.func, Cube, *_data(lib))
    check_same(run)


@pytest.mark.parametrize("case", ["vmap", "vmap_unbatched", "vmap_grad", "grad", "jacrev"])
def test_function_with_vmap_staticmethod(torch, case):
    def run(lib):
        MyMul = _classes(lib)[1]
        F = lib.func
        x, xb, u = _data(lib)
        if case == "vmap":
            return F.vmap(MyMul.apply)(xb, xb)
        if case == "vmap_unbatched":
            return F.vmap(MyMul.apply, in_dims=(0, None))(xb, u)
        if case == "vmap_grad":
            return F.vmap(F.grad(lambda a, b: MyMul.apply(a, b).sum()), in_dims=(0, None))(xb, u)
        if case == "grad":
            return F.grad(lambda a: MyMul.apply(a, a).sum())(x)
        return F.jacrev(lambda a: MyMul.apply(a, a))(x)
    check_same(run)


@pytest.mark.parametrize("case", ["grad", "vmap", "jvp", "jacrev"])
def test_classic_function_is_refused_under_transforms(torch, case):
    def run(lib):
        Classic = _classes(lib)[2]
        F = lib.func
        x, xb, _ = _data(lib)
        return {"grad": lambda: F.grad(lambda t: Classic.apply(t).sum())(x),
                "vmap": lambda: F.vmap(Classic.apply)(xb),
                "jvp": lambda: F.jvp(Classic.apply, (x,), (x,)),
                "jacrev": lambda: F.jacrev(Classic.apply)(x)}[case]()
    check_error(run)


def test_function_without_vmap_support(torch):
    check_error(lambda lib: lib.func.vmap(_classes(lib)[3].apply)(_data(lib)[1]))


def test_classic_function_with_forward_ad_and_autograd(torch):
    def run(lib):
        Cube, MyMul, Classic, _ = _classes(lib)
        fw = lib.autograd.forward_ad
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(x, lib.tensor([1.0, 2.0]))
            out = Classic.apply(d)
            cube = Cube.apply(d)
            tangents = fw.unpack_dual(out).tangent, fw.unpack_dual(cube).tangent
        (g,) = lib.autograd.grad(out.sum() + cube.sum(), x)
        return tangents, g
    check_same(run)


def test_generated_rule_backward_after_vmap(torch):
    def run(lib):
        Cube = _classes(lib)[0]
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = lib.func.vmap(Cube.apply)(x.unsqueeze(1).expand(3, 2))
        y.sum().backward()
        return y, x.grad
    check_same(run)


def _with_vmap_rule(lib, rule, generate=False):
    class F(lib.autograd.Function):
        generate_vmap_rule = generate

        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

        vmap = staticmethod(rule)
    return F


@pytest.mark.parametrize("rule,generate", [
    (lambda info, in_dims, x: (x * 2, (0, 0)), False),
    (lambda info, in_dims, x: [x * 2, 0], False),
    (lambda info, in_dims, x: (x * 2, 0, 0), False),
    (lambda info, in_dims, x: (x * 2, 0), True),
], ids=["out_dims_structure", "not_a_tuple", "three_returns", "rule_and_generate"])
def test_vmap_staticmethod_result_errors(torch, rule, generate):
    check_error(lambda lib: lib.func.vmap(_with_vmap_rule(lib, rule, generate).apply)(
        lib.ones(2, 3)))
