"""Custom Function behaviours found by conformance sweep J, each compared with PyTorch.

Every scenario is a function of the library (``lib`` is numtorch or torch); ``check_same``
compares what the two runs observed and ``check_error`` the exceptions.
"""
import pytest

from helpers import check_error, check_same

# (torch's forward_ad and torch.func import torch.jit.script, deprecated in PyTorch 2.13)
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")


def _leaf(lib):
    return lib.tensor([1.0, 2.0], requires_grad=True)


def _recorder(lib, log, materialize=True):
    """A Function that doubles its input and logs the gradient its backward receives."""
    class Rec(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            log.append(None if g is None else g.tolist())
            return None if g is None else g * 2
    return Rec


def _drops_grad(lib):
    class DropsGrad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return None
    return DropsGrad


# ---- a node reached without any gradient still runs ------------------------------------------
@pytest.mark.parametrize("materialize", [True, False])
def test_custom_backward_runs_without_incoming_gradient(materialize):
    def fn(lib):
        log = []
        x = _leaf(lib)
        y = _drops_grad(lib).apply(_recorder(lib, log, materialize).apply(x))
        y.sum().backward()
        return log, x.grad
    check_same(fn)


def test_autograd_grad_through_node_without_gradient():
    def fn(lib):
        log = []
        x = _leaf(lib)
        y = _drops_grad(lib).apply(_recorder(lib, log).apply(x) * 3)
        return log, lib.autograd.grad(y.sum(), x)
    check_same(fn)


def test_unused_input_without_gradient_still_raises():
    def fn(lib):
        x = _leaf(lib)
        lib.autograd.grad(_drops_grad(lib).apply(x).sum(), x)
    check_error(fn)


# ---- what backward returns ---------------------------------------------------------------------
def test_gradient_for_non_tensor_argument_names_its_position():
    def fn(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g, 2  # not even a Tensor: the position is what PyTorch reports
        F.apply(_leaf(lib), 2).sum().backward()
    check_error(fn)


def test_post_hook_sees_gradient_of_input_not_requiring_grad():
    def fn(lib):
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g * 3, g * 4
        out = F.apply(_leaf(lib), lib.ones(2))
        out.grad_fn.register_hook(
            lambda gi, go: seen.append([None if g is None else g.tolist() for g in gi]))
        out.sum().backward()
        return seen
    check_same(fn)


# ---- setup_context-style forward binds its arguments -------------------------------------------
@pytest.mark.parametrize("nargs", [0, 2])
def test_setup_context_forward_wrong_argument_count(nargs):
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
                return g * 2
        F.apply(*[_leaf(lib)] * nargs)
    check_error(fn)


# ---- an input returned as it is ------------------------------------------------------------------
def _identity(lib):
    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x, y

        @staticmethod
        def backward(ctx, g, h):
            return g, h
    return Ident


def test_input_returned_as_is_under_no_grad_is_detached_alias():
    def fn(lib):
        x = _leaf(lib)
        p = lib.ones(2)
        with lib.no_grad():
            a, b = _identity(lib).apply(x, p)
        facts = (a is x, a.requires_grad, a._is_view(), a.is_leaf, b is p, b._is_view())
        a.add_(1)  # an alias of x: allowed, and visible through x
        return facts, x.detach(), x._version
    check_same(fn)


def test_non_differentiable_input_returned_as_is():
    def fn(lib):
        x = _leaf(lib)
        h = x * 3

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.mark_non_differentiable(a)
                return a

            @staticmethod
            def backward(ctx, g):
                return g
        out = F.apply(h)
        return out is h, out.requires_grad, out.grad_fn is None, out._is_view()
    check_same(fn)


# ---- ctx attributes ------------------------------------------------------------------------------
def test_ctx_marks_visible_during_forward_and_cleared_after():
    def fn(lib):
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                seen.append((ctx.non_differentiable, ctx.dirty_tensors))
                i = x.argmax()
                ctx.mark_non_differentiable(i)
                x.add_(0)
                ctx.mark_dirty(x)
                seen.append((len(ctx.non_differentiable), len(ctx.dirty_tensors)))
                return x, i

            @staticmethod
            def backward(ctx, g, gi):
                seen.append((ctx.non_differentiable, ctx.dirty_tensors))
                return g
        a, _ = F.apply(_leaf(lib).clone())
        seen.append((a.grad_fn.non_differentiable, a.grad_fn.dirty_tensors))
        a.sum().backward()
        return seen
    check_same(fn)


def test_ctx_materialize_grads_is_write_only():
    def fn(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.materialize_grads = False
                return ctx.materialize_grads

            @staticmethod
            def backward(ctx, g):
                return g
        F.apply(_leaf(lib))
    check_error(fn)


def test_deprecated_saved_variables_warns():
    def fn(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 3

            @staticmethod
            def backward(ctx, g):
                with pytest.warns(DeprecationWarning, match="'saved_variables' is deprecated"):
                    (x,) = ctx.saved_variables
                return g * x
        x = _leaf(lib)
        F.apply(x).sum().backward()
        return x.grad
    check_same(fn)


def test_setup_context_saving_input_returned_as_is_raises():
    def fn(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(inputs[0])

            @staticmethod
            def backward(ctx, g):
                return g
        F.apply(_leaf(lib))
    check_error(fn)


def test_node_input_metadata():
    def fn(lib):
        meta = (_leaf(lib).reshape(1, 2) * 2).grad_fn._input_metadata[0]
        return meta.shape, meta.dtype, str(meta.device), repr(meta).split(" object at")[0]
    check_same(fn)


# ---- forward AD (jvp) checks -----------------------------------------------------------------
def _jvp_function(lib, forward, jvp):
    class F(lib.autograd.Function):
        @staticmethod
        def backward(ctx, *gs):
            return gs[0]
    F.forward = staticmethod(forward)
    F.jvp = staticmethod(jvp)
    return F


_JVP_CASES = {
    "view_not_view": (lambda ctx, x: x.view_as(x), lambda ctx, t: -t),
    "as_is_not_view": (lambda ctx, x: x, lambda ctx, t: t),
    "view_of_other": (lambda ctx, x: x[:1], lambda ctx, t: t.clone()[:1]),
    "view_ok": (lambda ctx, x: x[1:], lambda ctx, t: t[1:]),
    "non_diff_output": (lambda ctx, x: (x * 2, x.argmax()), lambda ctx, t: (t * 2, t.sum())),
}


@pytest.mark.parametrize("case", sorted(_JVP_CASES))
def test_custom_jvp_output_checks(case):
    def fn(lib):
        fwAD = lib.autograd.forward_ad
        F = _jvp_function(lib, *_JVP_CASES[case])
        with fwAD.dual_level():
            out = F.apply(fwAD.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 10.0])))
            out = out[0] if isinstance(out, tuple) else out
            return fwAD.unpack_dual(out).tangent
    if case == "view_ok":
        check_same(fn)
    else:
        check_error(fn)


def test_func_jvp_skips_view_check():
    def fn(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x.view_as(x)

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, g):
                return -g

            @staticmethod
            def jvp(ctx, t):
                return -t
        return lib.func.jvp(F.apply, (lib.tensor([1.0, 2.0]),), (lib.ones(2),))
    check_same(fn)


def test_setup_context_reads_needs_input_grad_under_forward_ad():
    def fn(lib):
        fwAD = lib.autograd.forward_ad
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(x, y):
                return x * y

            @staticmethod
            def setup_context(ctx, inputs, output):
                seen.append(ctx.needs_input_grad)
                ctx.save_for_forward(*inputs)

            @staticmethod
            def backward(ctx, g):
                return g, g

            @staticmethod
            def jvp(ctx, tx, ty):
                x, y = ctx.saved_tensors
                return tx * y + x * ty
        with fwAD.dual_level():
            d = fwAD.make_dual(lib.tensor([1.0, 2.0]), lib.ones(2))
            out = F.apply(d, _leaf(lib))
            return seen, fwAD.unpack_dual(out).tangent
    check_same(fn)


@pytest.mark.parametrize("what", ["ndarray", "int", "tuple"])
def test_save_for_backward_rejects_non_tensors(what):
    def fn(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                value = {"ndarray": x.detach().numpy(), "int": 3, "tuple": (x, x)}[what]
                ctx.save_for_backward(x, value)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g
        F.apply(_leaf(lib))
    check_error(fn)


def test_builtin_node_without_gradient_still_needs_its_saved_tensors():
    def fn(lib):
        x = _leaf(lib)
        r = _drops_grad(lib).apply(x.exp())
        first = lib.autograd.grad(r.sum(), [x], allow_unused=True)
        lib.autograd.grad(r.sum(), [x], allow_unused=True)  # exp's saved result was freed
        return first
    check_error(fn)


def test_once_differentiable_node_without_gradient_still_raises():
    def fn(lib):
        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 2

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        x = _leaf(lib)
        (g,) = lib.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
        lib.autograd.grad(_drops_grad(lib).apply(g).sum(), x, allow_unused=True)
    check_error(fn)
