"""Regression tests of the custom-Function conformance sweep BA, each against PyTorch: the
engine's check on a custom backward's gradient of another kind (a complex gradient for a real
input), what a custom jvp may return (Tensors or None; a float tangent for each differentiable
output; an input modified in place needs its tangent modified in place and returned as it
is), and the in_dims a Function's ``vmap`` staticmethod receives for an input vmapped at a
dim other than 0."""
import pytest

import numtorch
from helpers import check_error, check_same, check_same_outcome

# PyTorch's forward AD loads its jvp decompositions through torch.jit.script, which warns
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")


# ---- backward's gradient dtype against the input's -----------------------------------------
def _real(g):
    return g.real if g.is_complex() else g  # (no cast warning: only the kind is tested)


GRADS = {
    "long": lambda lib, g: _real(g).long(),
    "bool": lambda lib, g: _real(g) > 0,
    "complex": lambda lib, g: lib.complex(_real(g), _real(g)),
    "double": lambda lib, g: _real(g).double(),
    "half": lambda lib, g: _real(g).half(),
}


def _cast_grad_fn(lib, make):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return make(lib, g)
    return F


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("grad", list(GRADS), ids=list(GRADS))
def test_backward_gradient_kind(torch, dtype, grad):
    """A real floating gradient casts to the input's dtype; any other kind only where it is
    complex exactly when the input is (PyTorch's engine raises its check otherwise)."""
    def fn(lib):
        x = lib.ones(2, dtype=getattr(lib, dtype), requires_grad=True)
        y = _cast_grad_fn(lib, GRADS[grad]).apply(x)
        (y.abs().sum() if x.is_complex() else y.sum()).backward()
        return x.grad
    check_same_outcome(fn)


# ---- what a custom jvp returns -------------------------------------------------------------
def _jvp_fn(lib, jvp_rule, n_out=1, dirty=False):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            if dirty:
                ctx.mark_dirty(x)
                return x.mul_(2)
            return x * 2 if n_out == 1 else (x * 2, x * 3)

        @staticmethod
        def backward(ctx, *gs):
            return gs[0]

        jvp = staticmethod(jvp_rule)
    return F


JVPS = {
    "none": (lambda ctx, t: None, 1, False),
    "none-second": (lambda ctx, t: (t * 2, None), 2, False),
    "long": (lambda ctx, t: t.long(), 1, False),
    "float": (lambda ctx, t: 2.0, 1, False),
    "float-count": (lambda ctx, t: (t, 2.0), 1, False),
    "double": (lambda ctx, t: t.double() * 2, 1, False),
    "dirty-in-place": (lambda ctx, t: t.mul_(2), 1, True),
    "dirty-new": (lambda ctx, t: t * 2, 1, True),
    "dirty-in-place-copy": (lambda ctx, t: t.mul_(2).clone(), 1, True),
}


@pytest.mark.parametrize("case", list(JVPS), ids=list(JVPS))
def test_custom_jvp_outputs(torch, case):
    """PyTorch's errors (or results) for each kind of jvp return under forward_ad."""
    jvp, n_out, dirty = JVPS[case]

    def fn(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            d = fwAD.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 3.0]))
            out = _jvp_fn(lib, jvp, n_out, dirty).apply(d)
            outs = out if isinstance(out, tuple) else (out,)
            return [tuple(fwAD.unpack_dual(o)) for o in outs]
    check_same_outcome(fn)


def test_custom_jvp_none_under_func_jvp(torch):
    """torch.func.jvp runs the same check: a None tangent for a float output fails."""
    def fn(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x * 2

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, g):
                return g

            @staticmethod
            def jvp(ctx, t):
                return None
        x = lib.ones(2)
        return lib.func.jvp(F.apply, (x,), (x,))
    check_error(fn)


def test_dirty_input_without_tangent(torch):
    """An input modified in place that had no tangent takes the one jvp returns."""
    def fn(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.mark_dirty(x)
                return x.mul_(y)

            @staticmethod
            def backward(ctx, g):
                return g, g

            @staticmethod
            def jvp(ctx, tx, ty):
                return ty * 5
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            d = fwAD.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 1.0]))
            return tuple(fwAD.unpack_dual(F.apply(lib.tensor([3.0, 3.0]), d)))
    check_same(fn, exact=True)


# ---- vmap staticmethod in_dims -------------------------------------------------------------
def _sum_fn(lib, log):
    class MySum(lib.autograd.Function):
        @staticmethod
        def forward(x, dim):
            return x.sum(dim)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.dim, ctx.shape = inputs[1], inputs[0].shape

        @staticmethod
        def backward(ctx, g):
            return g.unsqueeze(ctx.dim).expand(ctx.shape), None

        @staticmethod
        def vmap(info, in_dims, x, dim):
            log.append((in_dims, tuple(x.shape)))
            return MySum.apply(x.movedim(in_dims[0], 0), dim + 1), 0
    return MySum


VMAPS = {
    "dim1": lambda lib, F: lib.func.vmap(F.apply, in_dims=(1, None))(
        lib.arange(6.0).reshape(2, 3), 0),
    "dim-1": lambda lib, F: lib.func.vmap(F.apply, in_dims=(-1, None))(
        lib.arange(24.0).reshape(2, 3, 4), 1),
    "with-other": lambda lib, F: lib.func.vmap(lambda a, b: F.apply(a, 0) + b, in_dims=(1, 0))(
        lib.arange(6.0).reshape(2, 3), lib.ones(3)),
    "under-jacrev": lambda lib, F: lib.func.jacrev(
        lambda a: lib.func.vmap(F.apply, in_dims=(1, None))(a, 0))(
        lib.arange(6.0).reshape(2, 3)),
}


@pytest.mark.parametrize("case", list(VMAPS), ids=list(VMAPS))
def test_vmap_staticmethod_in_dims(torch, case):
    """An input vmapped at dim d reaches the vmap staticmethod batched at d, in_dims saying
    so (as PyTorch passes the batched tensor's own layout)."""
    def fn(lib):
        log = []
        out = VMAPS[case](lib, _sum_fn(lib, log))
        return out, log
    check_same(fn, exact=True)


def test_saved_for_forward_reads_none_before_any_save(torch):
    def seen(lib):
        got = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                got.append(ctx.saved_for_forward)
                ctx.save_for_forward(x)
                got.append(len(ctx.saved_for_forward))
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g
        F.apply(lib.ones(1, requires_grad=True))
        return got
    assert seen(numtorch) == seen(torch) == [None, 1]
