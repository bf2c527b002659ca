"""Regression tests of the autograd conformance sweep M, each against PyTorch: custom
Functions' class hierarchy, views a custom Function made (returned or saved) and in-place
changes of their bases, ``detach_`` of views, the ``requires_grad`` setter's dtype error,
``out=`` with arguments that require grad, what division saves, and PyTorch's module names on
the hook, anomaly-mode, saved-tensor-hook and checkpoint classes under ``numtorch run``."""
import subprocess
import sys
import textwrap

import pytest

import numtorch
from helpers import check_error, check_same, torch_or_skip


# ---- the MRO of a custom Function and of its node -------------------------------------------
def _square(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g
    return Square


def test_function_mro_names(torch):
    def fn(lib):
        sq = _square(lib)
        node = sq.apply(lib.ones(2, requires_grad=True)).grad_fn
        fc = lib.autograd.function.FunctionCtx
        return ([c.__name__ for c in sq.__mro__], [c.__name__ for c in sq.__bases__],
                issubclass(sq, lib.autograd.function._SingleLevelFunction),
                issubclass(sq, fc), isinstance(node, fc),
                issubclass(type(node), lib.autograd.function._HookMixin),
                sq.jvp.__qualname__)
    check_same(fn, exact=True)


def test_backward_node_mro_starts_as_pytorch(torch):
    # (numtorch's node classes also derive from graph.Node, after PyTorch's bases)
    def fn(lib):
        node = _square(lib).apply(lib.ones(2, requires_grad=True)).grad_fn
        return [c.__name__ for c in type(node).__mro__][:5]
    check_same(fn, exact=True)


def test_hook_mixin_register_hook(torch):
    def fn(lib):
        hooks, handle = lib.autograd.function._HookMixin._register_hook(None, print)
        n = len(hooks)
        handle.remove()
        return n, len(hooks)
    check_same(fn, exact=True)


# ---- views made inside a custom Function ------------------------------------------------------
def _returns_input_view(lib):
    class A(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            v = x[:2]
            ctx.save_for_backward(v)
            return v

        @staticmethod
        def backward(ctx, g):
            v, = ctx.saved_tensors
            return lib.cat([g * v, g.new_zeros(1)])
    return A


def test_returned_view_base_modified_inplace(torch):
    def fn(lib):
        x = lib.ones(3, requires_grad=True).clone()
        y = _returns_input_view(lib).apply(x)
        x.mul_(2)
        y.sum().backward()
    check_error(fn)


def _saves_output_view(lib):
    class E(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            ctx.save_for_backward(out[1:], x)
            return out

        @staticmethod
        def backward(ctx, g):
            v, x = ctx.saved_tensors
            return g * v.sum()
    return E


@pytest.mark.parametrize("no_grad", [False, True])
def test_saved_output_view_base_modified(torch, no_grad):
    def fn(lib):
        y = _saves_output_view(lib).apply(lib.ones(3, requires_grad=True))
        if no_grad:
            with lib.no_grad():
                y.mul_(3)
        else:
            y.mul_(3)
        y.sum().backward()
    check_error(fn)


def test_saved_output_view_requires_grad(torch):
    def fn(lib):
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x * 2
                ctx.save_for_backward(out[:1], out.view(3), x[:1], x + 1)
                return out

            @staticmethod
            def backward(ctx, g):
                for t in ctx.saved_tensors:
                    seen.append((repr(t), t.requires_grad, t.grad_fn is None, t.is_leaf))
                return g
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        F.apply(x).sum().backward()
        return seen, x.grad
    check_same(fn, exact=True)


def test_saved_output_view_unchanged_still_works(torch):
    def fn(lib):
        x = lib.ones(3, requires_grad=True)
        _saves_output_view(lib).apply(x).sum().backward()
        return x.grad
    check_same(fn, exact=True)


# ---- detach_ and requires_grad ------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda lib: lib.ones(3)[:1],
    lambda lib: lib.ones(2, 3).t(),
    lambda lib: lib.ones(3).view(3),
    lambda lib: lib.ones(3, requires_grad=True)[1:],
])
def test_detach_inplace_of_any_view(torch, make):
    check_error(lambda lib: make(lib).detach_())


def test_detach_inplace_of_non_views(torch):
    def fn(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        y.detach_()
        x.detach_()
        d = lib.ones(3).detach().detach_()
        return y.requires_grad, y.is_leaf, x.requires_grad, d.requires_grad
    check_same(fn, exact=True)


def test_requires_grad_setter_integer_message(torch):
    def setter(lib):
        t = lib.tensor([1, 2])
        t.requires_grad = True
    check_error(setter)
    check_error(lambda lib: lib.tensor([1, 2]).requires_grad_())


# ---- out= while an argument requires grad -------------------------------------------------
_OUT_CASES = {
    "add": lambda lib, x, o: lib.add(x, 1, out=o),
    "mul": lambda lib, x, o: lib.mul(x, x, out=o),
    "div": lambda lib, x, o: lib.div(x, 2, out=o),
    "exp": lambda lib, x, o: lib.exp(x, out=o),
    "matmul": lambda lib, x, o: lib.matmul(x, x, out=o),
    "mm": lambda lib, x, o: lib.mm(x, x, out=o),
    "clamp": lambda lib, x, o: lib.clamp(x, 0, 1, out=o),
    "cumsum": lambda lib, x, o: lib.cumsum(x, 0, out=o),
    "cat": lambda lib, x, o: lib.cat([x, x], out=lib.empty(4, 2)),
    "sum": lambda lib, x, o: lib.sum(x, 0, out=lib.empty(2)),
    "prod": lambda lib, x, o: lib.prod(x, 0, out=lib.empty(2)),
    "out_requires_grad": lambda lib, x, o: lib.add(lib.ones(2, 2), 1, out=x),
}


@pytest.mark.parametrize("op", sorted(_OUT_CASES))
def test_out_with_grad_raises(torch, op):
    def fn(lib):
        _OUT_CASES[op](lib, lib.ones(2, 2, requires_grad=True), lib.empty(2, 2))
    check_error(fn)


def test_out_with_grad_allowed_under_no_grad(torch):
    def fn(lib):
        x, o = lib.ones(2, 2, requires_grad=True), lib.empty(2, 2)
        with lib.no_grad():
            lib.add(x, 1, out=o)
        return o
    check_same(fn, exact=True)


# ---- division saves the dividend only for the divisor's gradient --------------------------
@pytest.mark.parametrize("divisor", ["number", "tensor", "tensor_rg"])
def test_div_dividend_changed_in_place(torch, divisor):
    def fn(lib):
        x = lib.tensor([1.0, 2.0, 4.0], requires_grad=True)
        d = {"number": 2.0, "tensor": lib.tensor([2.0, 4.0, 8.0]),
             "tensor_rg": lib.tensor([2.0, 4.0, 8.0], requires_grad=True)}[divisor]
        y = x.clone()
        w = y / d
        y.add_(1)
        w.sum().backward()
        return x.grad, getattr(d, "grad", None)
    if divisor == "tensor_rg":
        check_error(fn)
    else:
        check_same(fn, exact=True)


def test_div_saved_attributes(torch):
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([2.0, 4.0])
        node = (x / b).grad_fn
        return node._saved_self, node._saved_other
    check_same(fn, exact=True)


# ---- PyTorch's module names where torch is numtorch -----------------------------------------
_NAMES_SCRIPT = textwrap.dedent("""
    import torch, torch.utils.checkpoint as C
    x = torch.ones(2, requires_grad=True)
    print(type(x.register_hook(lambda g: g)))
    print(torch.autograd.set_detect_anomaly(False).__class__, torch.autograd.detect_anomaly)
    print(torch.autograd.graph.saved_tensors_hooks, torch.autograd.graph.save_on_cpu)
    print(torch.autograd.forward_ad.dual_level, C.CheckpointError)
    from torch.autograd.gradcheck import GradcheckError
    print(GradcheckError)
    print(torch.autograd.function._SingleLevelFunction.__mro__)
""")


def test_class_module_names_under_numtorch_run(tmp_path):
    torch_or_skip()
    script = tmp_path / "names.py"
    script.write_text(_NAMES_SCRIPT)
    runs = [subprocess.run([sys.executable] + args + [str(script)], capture_output=True,
                           text=True, timeout=120, cwd=tmp_path)
            for args in ([], ["-m", "numtorch"])]
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[1].returncode == 0, runs[1].stderr
    assert runs[1].stdout == runs[0].stdout


def test_numtorch_names_beside_torch():
    # imported as itself (as here), the classes keep numtorch's module names
    assert numtorch.utils.hooks.RemovableHandle.__module__.startswith(("numtorch", "torch"))
    assert numtorch.autograd.function._FunctionBase.__module__ == "torch._C"
