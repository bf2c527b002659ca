"""The custom autograd Function contract, run the same way on numtorch and on PyTorch.

Each scenario is a function of the library (``lib`` is numtorch or torch) that defines its
Function classes on ``lib.autograd.Function`` and returns what it observed; ``check_same``
compares the two runs and ``check_error`` the exceptions.
"""
import warnings

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, numerical_grad_check


def _leaf(lib, values=(1.5, -2.0, 3.0), dtype=None):
    return lib.tensor(values, dtype=dtype or lib.float32, requires_grad=True)


# ---- the two styles ------------------------------------------------------------------------
def _cube_classic(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2
    return Cube


def _cube_setup_context(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2
    return Cube


def _cube_vjp(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def vjp(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2
    return Cube


@pytest.mark.parametrize("make", [_cube_classic, _cube_setup_context, _cube_vjp],
                         ids=["classic", "setup_context", "vjp"])
def test_styles_forward_backward_and_double_backward(torch, make):
    def fn(lib):
        x = _leaf(lib)
        y = make(lib).apply(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return y, y.grad_fn.name(), g, gg, y.requires_grad, y.is_leaf
    check_same(fn)


@pytest.mark.parametrize("make", [_cube_classic, _cube_setup_context], ids=["classic", "setup"])
def test_cube_numerically(make):
    cube = make(numtorch)
    numerical_grad_check(lambda x: cube.apply(x), [np.array([0.5, -1.25, 2.0])])


def _scale(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, factor, shift=0.0):
            ctx.factor = factor  # a non-tensor argument kept on ctx
            ctx.n_inputs = len(ctx.needs_input_grad)
            return x * factor + shift

        @staticmethod
        def backward(ctx, g):
            # a keyword argument counts as an input: three gradients
            return g * ctx.factor, None, None
    return Scale


def _scale_setup(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(x, factor, shift=0.0):
            return x * factor + shift

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.factor = inputs[1]
            ctx.n_inputs = len(inputs)

        @staticmethod
        def backward(ctx, g):
            return g * ctx.factor, None, None
    return Scale


def test_apply_with_non_tensor_and_keyword_arguments(torch):
    def fn(lib):
        x = _leaf(lib)
        y = _scale(lib).apply(x, 2.5, shift=1.0)
        y.sum().backward()
        x2 = _leaf(lib)
        z = _scale_setup(lib).apply(x2, factor=-3.0)
        z.sum().backward()
        return y, x.grad, z, x2.grad, z.grad_fn.name()
    check_same(fn)


# ---- ctx -----------------------------------------------------------------------------------
def test_needs_input_grad_and_ctx_attributes(torch):
    def fn(lib):
        seen = []

        class Mul(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, flag):
                ctx.save_for_backward(a, b)
                ctx.flag = flag
                ctx.tag = {"k": [1, 2]}
                return a * b

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                seen.append((ctx.needs_input_grad, ctx.flag, ctx.tag))
                ga = g * b if ctx.needs_input_grad[0] else None
                gb = g * a if ctx.needs_input_grad[1] else None
                return ga, gb, None
        a, b = _leaf(lib), lib.tensor([2.0, 3.0, 4.0])
        Mul.apply(a, b, "f").sum().backward()
        c = _leaf(lib)
        Mul.apply(b, c, None).sum().backward()
        return seen, a.grad, c.grad, b.grad
    check_same(fn)


def test_needs_input_grad_inside_forward_and_setup_context(torch):
    def fn(lib):
        seen = []

        class Classic(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, k):
                seen.append(("forward", ctx.needs_input_grad))
                return a * b * k

            @staticmethod
            def backward(ctx, g):
                return g, g, None

        class Setup(lib.autograd.Function):
            @staticmethod
            def forward(a, b, k=2.0):
                return a * b * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                seen.append(("setup", ctx.needs_input_grad, len(inputs)))

            @staticmethod
            def backward(ctx, g):
                return g, g, None
        Classic.apply(_leaf(lib), lib.ones(3), 2.0)
        Setup.apply(lib.ones(3), _leaf(lib))
        return seen
    check_same(fn)


def test_saved_tensors_identity_and_none(torch):
    def fn(lib):
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                out = x * 2
                ctx.save_for_backward(x, None, out, y)
                return out

            @staticmethod
            def backward(ctx, g):
                x, none, out, y = ctx.saved_tensors
                seen.append((none is None, out.requires_grad, x.requires_grad,
                             y.requires_grad, out.grad_fn is not None))
                return g * 2, None
        x = _leaf(lib)
        F.apply(x, lib.ones(3)).sum().backward()
        return seen, x.grad
    check_same(fn)


def test_saved_input_is_same_object(torch):
    for lib in (numtorch, torch):
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                seen.append(ctx.saved_tensors[0])
                return g
        x = _leaf(lib)
        F.apply(x).sum().backward()
        assert seen[0] is x


def test_mark_dirty(torch):
    def fn(lib):
        class AddOne_(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2
        a = _leaf(lib)
        x = a * 1
        y = AddOne_.apply(x)
        same = y is x
        (y * y).sum().backward()
        return same, y, a.grad, x.grad_fn.name(), x._version
    check_same(fn)


def test_mark_dirty_on_view(torch):
    def fn(lib):
        class Double_(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2
        a = _leaf(lib)
        base = a * 1
        view = base[1:]
        Double_.apply(view)
        base.sum().backward()
        return base, a.grad, base.grad_fn.name(), view.grad_fn.name()
    check_same(fn)


def test_mark_non_differentiable(torch):
    def fn(lib):
        class SortWithIdx(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                idx = x.argmax(0, keepdim=True)
                values = x * 2
                mask = values > 0
                ctx.mark_non_differentiable(idx, mask)
                ctx.save_for_backward(idx)
                return values, idx, mask

            @staticmethod
            def backward(ctx, g, g_idx, g_mask):
                (idx,) = ctx.saved_tensors
                out = g * 2
                out[idx] = 0.0
                return out
        x = _leaf(lib)
        values, idx, mask = SortWithIdx.apply(x)
        (values * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        return values, idx, idx.requires_grad, mask.requires_grad, idx.grad_fn, x.grad
    check_same(fn)


def _max_with_aux(lib, materialize, log):
    class MaxAux(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2, x.sum()

        @staticmethod
        def backward(ctx, g_out, g_sum):
            log.append((g_out is None, g_sum is None))
            grad = 0
            if g_out is not None:
                grad = grad + g_out * 2
            if g_sum is not None:
                grad = grad + g_sum.expand(3)
            return grad
    return MaxAux


@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads(torch, materialize):
    def fn(lib):
        log = []
        x = _leaf(lib)
        out, total = _max_with_aux(lib, materialize, log).apply(x)
        out.sum().backward(retain_graph=True)
        g1 = x.grad.clone()
        total.backward()
        return log, g1, x.grad
    check_same(fn)


def test_multiple_and_non_tensor_outputs(torch):
    def fn(lib):
        class Split(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, "label", x.sum(), 7

            @staticmethod
            def backward(ctx, g_double, g_label, g_sum, g_seven):
                return g_double * 2 + g_sum
        x = _leaf(lib)
        double, label, total, seven = Split.apply(x)
        (double.sum() + total * 3).backward()
        return double, label, total, seven, x.grad, double.grad_fn is total.grad_fn
    check_same(fn)


def test_none_grads_and_bare_tensor(torch):
    def fn(lib):
        class Pick(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * 3 + b

            @staticmethod
            def backward(ctx, g):
                return g * 3, None  # no gradient for b even though it requires one

        class Neg(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return -x

            @staticmethod
            def backward(ctx, g):
                return -g  # one input: a bare tensor, not a tuple
        a, b = _leaf(lib), _leaf(lib)
        Pick.apply(a, b).sum().backward()
        c = _leaf(lib)
        Neg.apply(c).sum().backward()
        return a.grad, b.grad, c.grad
    check_same(fn)


def test_extra_trailing_none_grads_are_allowed(torch):
    def fn(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, None, None
        x = _leaf(lib)
        F.apply(x).sum().backward()
        return x.grad
    check_same(fn)


def test_broadcast_and_dtype_cast_grads(torch):
    def fn(lib):
        class Add(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a + b

            @staticmethod
            def backward(ctx, g):
                return g, g.double()  # g has a's shape; b is (1, 3) in float32
        a = lib.ones(4, 3, requires_grad=True)
        b = lib.ones(1, 3, requires_grad=True)
        c = lib.ones(3, requires_grad=True)
        Add.apply(a, b).sum().backward()
        Add.apply(a, c).sum().backward()
        return a.grad, b.grad, b.grad.dtype, c.grad
    check_same(fn)


def test_double_backward_through_custom_function(torch):
    def fn(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        x = _leaf(lib)
        y = Square.apply(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x, create_graph=True)
        (ggg,) = lib.autograd.grad(gg.sum(), x)
        return g, g.grad_fn.name(), gg, ggg
    check_same(fn)


def test_reentrant_grad_inside_backward(torch):
    def fn(lib):
        class Reentrant(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.sin()

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                with lib.enable_grad():
                    inner = x.detach().requires_grad_()
                    (d,) = lib.autograd.grad(inner.sin().sum(), inner)
                return g * d
        x = _leaf(lib)
        Reentrant.apply(x).sum().backward()
        return x.grad
    check_same(fn)


def test_clear_saved_tensors_on_access(torch):
    def fn(lib):
        class F(lib.autograd.Function):
            clear_saved_tensors_on_access = True

            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                try:
                    ctx.saved_tensors
                    again = "no error"
                except RuntimeError as e:
                    again = str(e)
                return g * 2 + x * 0, again
        x = _leaf(lib)
        y = F.apply(x)
        log = []
        orig = F.backward

        def logged(ctx, g):
            grad, again = orig(ctx, g)
            log.append(again)
            return grad
        F.backward = staticmethod(logged)
        y.sum().backward()
        return x.grad, log
    check_same(fn)


def _numpy_sinh(lib, decorate=True):
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * lib.from_numpy(np.cosh(x.detach().numpy()))

    class NumpySinh(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return lib.from_numpy(np.sinh(x.detach().numpy()))

    NumpySinh.backward = staticmethod(
        lib.autograd.function.once_differentiable(backward) if decorate else backward)
    return NumpySinh


def test_once_differentiable(torch):
    def fn(lib):
        x = _leaf(lib, dtype=lib.float64)
        y = _numpy_sinh(lib).apply(x)
        y.sum().backward()
        x2 = _leaf(lib, dtype=lib.float64)
        (g,) = lib.autograd.grad(_numpy_sinh(lib).apply(x2).sum(), x2, create_graph=True)
        # with an upstream gradient that requires grad, the result does too, through a node
        # that raises if differentiated
        v = lib.ones(3, dtype=lib.float64, requires_grad=True)
        (h,) = lib.autograd.grad(_numpy_sinh(lib).apply(x2), x2, v, create_graph=True)
        return (y, x.grad, g, g.requires_grad, g.grad_fn, h, h.requires_grad,
                h.grad_fn.name(), len(h.grad_fn.next_functions))
    check_same(fn)


def test_once_differentiable_without_graph_needed(torch):
    def fn(lib):
        x = _leaf(lib, dtype=lib.float64)
        (g,) = lib.autograd.grad(_numpy_sinh(lib).apply(x).sum(), x)
        return g, g.requires_grad
    check_same(fn)


# ---- misuse: PyTorch's exception type and message -----------------------------------------
def _returns(lib, grads_fn, n_inputs=1, non_tensor=False):
    """A Function of ``n_inputs`` tensors (and a trailing float when ``non_tensor``) whose
    backward returns ``grads_fn(g)``."""
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            return args[0] * 2

        @staticmethod
        def backward(ctx, g):
            return grads_fn(g)
    args = [_leaf(lib) for _ in range(n_inputs)] + ([2.0] if non_tensor else [])
    Bad.apply(*args).sum().backward()


MISUSES = [
    ("too-many-grads", lambda lib: _returns(lib, lambda g: (g, g))),
    ("too-few-grads", lambda lib: _returns(lib, lambda g: (g,), n_inputs=2)),
    ("too-many-non-none", lambda lib: _returns(lib, lambda g: (g, g, g), n_inputs=2)),
    ("wrong-shape", lambda lib: _returns(lib, lambda g: g[:2])),
    ("wrong-shape-2d", lambda lib: _returns(lib, lambda g: g.expand(2, 3).t())),
    ("grad-for-non-tensor", lambda lib: _returns(lib, lambda g: (g, g), non_tensor=True)),
    ("not-a-tensor", lambda lib: _returns(lib, lambda g: 1.0)),
    ("list-of-wrong-type", lambda lib: _returns(lib, lambda g: ["x"])),
]


@pytest.mark.parametrize("fn", [m[1] for m in MISUSES], ids=[m[0] for m in MISUSES])
def test_backward_return_errors(torch, fn):
    check_error(fn)


def _second_backward(lib):
    x = _leaf(lib)
    y = _cube_classic(lib).apply(x).sum()
    y.backward()
    y.backward()


def _saved_after_free(lib):
    ctxs = []

    class Keep(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctxs.append(ctx)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    x = _leaf(lib)
    Keep.apply(x).sum().backward()
    return ctxs[0].saved_tensors


def _builtin_second_backward(lib):
    x = _leaf(lib)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _saved_modified_in_place(lib):
    a = _leaf(lib)
    x = a * 1
    y = _cube_classic(lib).apply(x)
    x.add_(1)
    y.sum().backward()


def _saved_output_modified_in_place(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out
    y = Exp.apply(_leaf(lib))
    y.mul_(2)
    y.sum().backward()


def _dirty_not_returned(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g
    Bad.apply(_leaf(lib) * 1)


def _dirty_leaf(lib):
    class AddOne_(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g
    AddOne_.apply(_leaf(lib))


def _no_forward(lib):
    class NoForward(lib.autograd.Function):
        @staticmethod
        def backward(ctx, g):
            return g
    NoForward.apply(_leaf(lib))


def _no_backward(lib):
    class NoBackward(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
    NoBackward.apply(_leaf(lib)).sum().backward()


def _no_setup_context_forward_without_ctx(lib):
    class NoCtx(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g
    NoCtx.apply(_leaf(lib))


def _call_instance(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        f = _cube_classic(lib)()
    f(_leaf(lib))


def _once_differentiable_twice(lib):
    x = _leaf(lib, dtype=lib.float64)
    v = lib.ones(3, dtype=lib.float64, requires_grad=True)
    (g,) = lib.autograd.grad(_numpy_sinh(lib).apply(x), x, v, create_graph=True)
    g.sum().backward()


def _both_backward_and_vjp(lib):
    class Both(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def vjp(ctx, g):
            return g
    Both.apply(_leaf(lib)).sum().backward()


def _save_non_tensor(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3.0)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g
    Bad.apply(_leaf(lib))


def _non_scalar_backward(lib):
    (_leaf(lib) * 2).backward()


def _no_grad_backward(lib):
    lib.ones(3).sum().backward()


def _grad_of_no_grad_output(lib):
    lib.autograd.grad(lib.ones(3).sum(), _leaf(lib))


def _grad_unused_input(lib):
    a, b = _leaf(lib), _leaf(lib)
    lib.autograd.grad((a * 2).sum(), [a, b])


def _grad_output_wrong_shape(lib):
    x = _leaf(lib)
    (x * 2).backward(lib.ones(2))


def _non_float_scalar_backward(lib):
    x = lib.tensor(1.0 + 2j, requires_grad=True)
    (x * x).backward()


ERRORS = [
    ("second-backward", _second_backward), ("builtin-second-backward", _builtin_second_backward),
    ("saved-after-free", _saved_after_free), ("saved-modified-in-place", _saved_modified_in_place),
    ("saved-output-modified", _saved_output_modified_in_place),
    ("dirty-not-returned", _dirty_not_returned), ("dirty-leaf", _dirty_leaf),
    ("no-forward", _no_forward), ("no-backward", _no_backward),
    ("forward-without-ctx", _no_setup_context_forward_without_ctx),
    ("call-instance", _call_instance), ("once-differentiable-twice", _once_differentiable_twice),
    ("both-backward-and-vjp", _both_backward_and_vjp),
    ("save-non-tensor", _save_non_tensor), ("non-scalar-backward", _non_scalar_backward),
    ("backward-without-grad", _no_grad_backward),
    ("grad-of-output-without-grad", _grad_of_no_grad_output),
    ("grad-unused-input", _grad_unused_input), ("grad-output-shape", _grad_output_wrong_shape),
    ("complex-scalar-backward", _non_float_scalar_backward),
]


@pytest.mark.parametrize("fn", [e[1] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_misuse_errors(torch, fn):
    check_error(fn)


def test_saved_non_tensor_is_checked_after_forward_and_only_with_a_node(torch):
    """PyTorch checks what was saved once forward returns, and only when it records a node:
    a later save_for_backward replaces a bad one, and without grad nothing is checked."""
    def run(lib):
        log = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, first, second):
                ctx.save_for_backward(*first)
                log.append("saved")
                if second is not None:
                    ctx.save_for_backward(*second)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g, None, None
        out = []
        for x, first, second in [(lib.ones(2), (3,), None),
                                 (_leaf(lib), (1, 2.0), (None,)),
                                 (_leaf(lib), (None, "a"), None),
                                 (_leaf(lib), ("a",), None)]:
            try:
                out.append(repr(F.apply(x, first, second)))
            except TypeError as e:
                out.append(str(e))
        return out, log
    check_same(run, exact=True)


def test_instantiating_a_function_warns(torch):
    for lib in (numtorch, torch):
        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            _cube_classic(lib)()


def test_retain_graph_allows_second_backward(torch):
    def fn(lib):
        x = _leaf(lib)
        y = _cube_classic(lib).apply(x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    check_same(fn)


def test_function_node_api(torch):
    def fn(lib):
        x = _leaf(lib)
        y = _cube_classic(lib).apply(x)
        node = y.grad_fn
        return (node.name(), type(node).__name__, [f.name() if f else None
                                                  for f, _ in node.next_functions],
                hasattr(node, "saved_tensors"), node.needs_input_grad)
    check_same(fn)


def _view_out_fn(lib, multi):
    class V(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return (x[:2], x[2:].clone()) if multi else x.view(-1)

        @staticmethod
        def backward(ctx, *gs):
            return lib.cat(gs) if multi else gs[0]
    out = V.apply(lib.ones(4, requires_grad=True) * 1)
    (out[0] if multi else out).mul_(2)


@pytest.mark.parametrize("multi", [False, True])
def test_inplace_on_custom_function_view_output_raises(multi):
    check_error(lambda lib: _view_out_fn(lib, multi))
