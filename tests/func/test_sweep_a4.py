"""Regression tests of the autograd conformance sweep A4 for torch.func, against PyTorch: how
often a custom Function's forward, setup_context, backward, jvp and vmap staticmethod run
under each transform and their compositions (PyTorch calls setup_context once more per
grad/jvp level, and never under a vmap staticmethod), jacfwd calling the function once, and
a random op under jacfwd failing rather than looping."""
import pytest

from helpers import check_same, check_same_outcome

# PyTorch's forward AD loads its jvp decompositions through torch.jit.script, which warns
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")


def _square(lib, calls, generate, own_vmap):
    """x * x as a Function that logs each of its methods' calls to ``calls``."""
    class Sq(lib.autograd.Function):
        generate_vmap_rule = generate

        @staticmethod
        def forward(x):
            calls.append("f")
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            calls.append("s")
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            calls.append("b")
            x, = ctx.saved_tensors
            return 2 * g * x

        @staticmethod
        def jvp(ctx, t):
            calls.append("j")
            x, = ctx.saved_tensors
            return 2 * t * x
    if own_vmap:
        def vmap(info, in_dims, x):
            calls.append("v")
            return x * x, in_dims[0]
        Sq.vmap = staticmethod(vmap)
    return Sq


def _transforms(lib, F):
    fn = lib.func
    x, xs, one = lib.tensor(1.5), lib.tensor([1.0, 2.0, 3.0]), lib.tensor(1.0)
    return {
        "grad": lambda: fn.grad(F.apply)(x),
        "grad-grad": lambda: fn.grad(fn.grad(F.apply))(x),
        "vjp": lambda: fn.vjp(F.apply, x)[1](one),
        "jvp": lambda: fn.jvp(F.apply, (x,), (one,)),
        "vmap": lambda: fn.vmap(F.apply)(xs),
        "vmap-grad": lambda: fn.vmap(fn.grad(F.apply))(xs),
        "grad-vmap": lambda: fn.grad(lambda t: fn.vmap(F.apply)(t).sum())(xs),
        "jacrev": lambda: fn.jacrev(F.apply)(xs),
        "jacfwd": lambda: fn.jacfwd(F.apply)(xs),
        "jvp-grad": lambda: fn.jvp(fn.grad(F.apply), (x,), (one,)),
        "grad-jvp": lambda: fn.grad(lambda t: fn.jvp(F.apply, (t,), (one,))[1])(x),
        "vjp-requires-grad": lambda: fn.vjp(F.apply, lib.tensor(2.0, requires_grad=True))[1](one),
    }


@pytest.mark.parametrize("rule", ["generated", "staticmethod"])
@pytest.mark.parametrize("how", ["grad", "grad-grad", "vjp", "jvp", "vmap", "vmap-grad",
                                 "grad-vmap", "jacrev", "jacfwd", "jvp-grad", "grad-jvp",
                                 "vjp-requires-grad"])
def test_custom_function_calls_under_transforms(torch, how, rule):
    """The sequence of forward/setup_context/backward/jvp/vmap calls, and the result."""
    def fn(lib):
        calls = []
        F = _square(lib, calls, rule == "generated", rule == "staticmethod")
        out = _transforms(lib, F)[how]()
        return "".join(calls), out
    check_same_outcome(fn)


def test_vmap_staticmethod_is_differentiated_through_its_ops(torch):
    """Under vmap (no transform inside it), PyTorch records the vmap staticmethod's ops: the
    Function's own backward is not called, nor its setup_context."""
    def fn(lib):
        calls = []

        class Clip(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x * 2

            @staticmethod
            def setup_context(ctx, inputs, output):
                calls.append("setup")

            @staticmethod
            def backward(ctx, g):
                calls.append("backward")
                return g.clamp(-1, 1)

            @staticmethod
            def vmap(info, in_dims, x):
                calls.append("vmap")
                return x * 3, in_dims[0]
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = lib.func.vmap(Clip.apply)(x)
        y.sum().backward()
        return calls, y.detach(), x.grad
    check_same(fn)


def test_jacfwd_calls_the_function_once(torch):
    def fn(lib):
        calls = []

        def f(a, b):
            calls.append(1)
            return (a.sin().sum() * b).exp(), a * 2
        g = lib.Generator().manual_seed(0)
        a, b = lib.randn(3, generator=g), lib.randn(2, 2, generator=g)
        jac = lib.func.jacfwd(f, argnums=(0, 1))(a, b)
        aux = lib.func.jacfwd(lambda t: (t.cos(), {"s": t.sum()}), has_aux=True)(a)
        return len(calls), jac, aux
    check_same(fn)


def test_jacfwd_random_op_raises(torch):
    def fn(lib):
        return lib.func.jacfwd(lambda t: lib.nn.functional.dropout(t, 0.5))(lib.ones(3))
    check_same_outcome(fn)


def _scaled(lib, calls, generate, own_vmap):
    class F(lib.autograd.Function):
        generate_vmap_rule = generate

        @staticmethod
        def forward(x, *, scale=2.0):
            return x * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            calls.append(("setup", len(inputs)))

        @staticmethod
        def backward(ctx, g):
            return g * 2
    if own_vmap:
        def vmap(info, in_dims, x, **kwargs):
            calls.append(("vmap", sorted(kwargs)))
            return x * kwargs.get("scale", 2.0), 0
        F.vmap = staticmethod(vmap)
    return F


@pytest.mark.parametrize("rule", ["generated", "staticmethod"])
@pytest.mark.parametrize("how", ["vmap", "vmap-tensor", "vmap-unbatched", "grad", "vmap-grad",
                                 "grad-vmap", "plain"])
def test_keyword_only_arguments_under_transforms(torch, how, rule):
    """PyTorch's rules drop, pass on or refuse a Function's keyword-only arguments."""
    def fn(lib):
        calls = []
        F = _scaled(lib, calls, rule == "generated", rule == "staticmethod")
        x, vmap, grad = lib.ones(3), lib.func.vmap, lib.func.grad
        run = {
            "vmap": lambda: vmap(lambda t: F.apply(t, scale=3.0))(x),
            "vmap-tensor": lambda: vmap(lambda t: F.apply(t, scale=lib.tensor(3.0)))(x),
            "vmap-unbatched": lambda: vmap(lambda t: F.apply(x, scale=3.0) + t)(x),
            "grad": lambda: grad(lambda t: F.apply(t, scale=3.0).sum())(x),
            "vmap-grad": lambda: vmap(grad(lambda t: F.apply(t, scale=3.0).sum()))(x[None]),
            "grad-vmap": lambda: grad(lambda t: vmap(lambda u: F.apply(u, scale=3.0))(t).sum())(x),
            "plain": lambda: F.apply(x, scale=3.0),
        }[how]
        return run(), calls
    check_same_outcome(fn)
