"""Regression tests of the autograd conformance sweep A4, each against PyTorch: keyword
arguments of ``Function.apply`` bound to forward's positional slots, an input marked
non-differentiable and returned as is, tangents hidden inside a custom Function's forward and
jvp, ``type(MyFunction)``, ``autograd.grad`` with a root given twice, the version error's hint
under anomaly mode."""
import pytest

import numtorch
from helpers import check_error, check_same, check_same_outcome, torch_or_skip


# ---- apply(**kwargs): PyTorch puts keywords in forward's positional slots ------------------
def _ctx_style(lib, log):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, a=1, b=2):
            log.append(("forward", repr(a), repr(b), ctx.needs_input_grad))
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return (g,) + (None,) * (len(ctx.needs_input_grad) - 1)
    return F


def _setup_style(lib, log):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(x, a=1, b=2, *, c=3):
            log.append(("forward", repr(a), repr(b)))
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            log.append(("setup", len(inputs), ctx.needs_input_grad))

        @staticmethod
        def backward(ctx, g):
            return (g,) + (None,) * (len(ctx.needs_input_grad) - 1)
    return F


CALLS = {
    "b-only": lambda x: ((x,), {"b": 5}),
    "a-only": lambda x: ((x,), {"a": 3}),
    "tensor-kw": lambda x: ((x, 3), {"b": x}),
    "out-of-order": lambda x: ((x,), {"b": x, "a": 4}),
    "unknown": lambda x: ((x,), {"c": 1}),
    "kw-only": lambda x: ((x,), {"c": 1}),
    "twice": lambda x: ((x, 3), {"a": 4}),
    "all-kw": lambda x: ((), {"x": x}),
}


@pytest.mark.parametrize("style", [_ctx_style, _setup_style], ids=["ctx", "setup_context"])
@pytest.mark.parametrize("call", list(CALLS), ids=list(CALLS))
def test_apply_keyword_arguments(torch, style, call):
    """Which slot a keyword fills, what counts as an input, and the TypeErrors."""
    def fn(lib):
        log = []
        F = style(lib, log)
        x = lib.ones(2, requires_grad=True)
        args, kwargs = CALLS[call](x)
        out = F.apply(*args, **kwargs)
        out.sum().backward()
        return log, x.grad
    check_same_outcome(fn)


# ---- mark_non_differentiable on an input returned as it is ---------------------------------
def test_input_marked_non_differentiable(torch):
    def fn(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_non_differentiable(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        x = lib.ones(2, requires_grad=True)
        r = F.apply(x)
        return r is x, r.requires_grad, r.grad_fn is None, r.is_leaf
    check_same(fn, exact=True)


# ---- forward AD: tangents are hidden inside forward and jvp --------------------------------
# PyTorch's forward AD loads its jvp decompositions through torch.jit.script, which warns
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")
def test_tangents_hidden_in_forward_and_jvp(torch):
    def fn(lib):
        fwAD = lib.autograd.forward_ad
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                seen.append(("forward", repr(x), fwAD.unpack_dual(x).tangent))
                ctx.save_for_forward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

            @staticmethod
            def jvp(ctx, t):
                x, = ctx.saved_tensors
                seen.append(("jvp", repr(x), fwAD.unpack_dual(x).tangent))
                return t * 2
        with fwAD.dual_level():
            d = fwAD.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([0.5, 0.5]))
            out = F.apply(d)
            seen.append(("out", repr(out)))
        return seen
    check_same(fn, exact=True)


# ---- printing the classes --------------------------------------------------------------------
def test_function_metaclass_name(torch):
    def fn(lib):
        class F(lib.autograd.Function):
            pass
        return (str(type(F)).split(".")[-1], type(F).__name__,
                "FunctionMeta" in lib.autograd.function.__all__)
    check_same(fn, exact=True)


# ---- autograd.grad / backward with a root given twice --------------------------------------
@pytest.mark.parametrize("how", ["grad", "grad-gradouts", "backward", "backward-inputs"])
def test_root_given_twice(torch, how):
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        z = x * 2
        if how == "grad":
            return lib.autograd.grad([z.sum(), z.sum()], x)
        if how == "grad-gradouts":
            return lib.autograd.grad([z, z], [x], [lib.ones(2), lib.full((2,), 3.0)])
        s = z.sum()
        lib.autograd.backward([s, s], inputs=[x] if how == "backward-inputs" else None)
        return x.grad
    check_same(fn)


# ---- the in-place version error's hint depends on anomaly mode -----------------------------
@pytest.mark.parametrize("anomaly", [False, True])
def test_version_error_hint(torch, anomaly):
    import warnings

    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.set_detect_anomaly(anomaly), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # anomaly mode warns with a traceback
            a = x.exp()
            a.mul_(2)
            a.sum().backward()
    check_error(fn)


# ---- grad_fn._raw_saved_<name> / _raw_saved_tensors: SavedTensor.register_hooks -------------
def _logging_hooks(log):
    def pack(t):
        log.append(("pack", repr(t)))
        return t * 1

    def unpack(t):
        log.append(("unpack", repr(t)))
        return t
    return pack, unpack


@pytest.mark.parametrize("op", ["pow", "exp", "custom"])
def test_raw_saved_register_hooks(torch, op):
    """Pack runs at once on the saved tensor (detached), unpack in backward; registering
    again, on a None entry, or after backward raises PyTorch's errors."""
    def fn(lib):
        log = []
        pack, unpack = _logging_hooks(log)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        if op == "custom":
            class Sq(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x, None)
                    return x * x

                @staticmethod
                def backward(ctx, g):
                    x, _ = ctx.saved_tensors
                    return 2 * g * x
            y = Sq.apply(x)
            raw = y.grad_fn._raw_saved_tensors
            log.append(len(raw))
            raw, none = raw
            log.append(_outcome(lambda: none.register_hooks(pack, unpack)))
        else:
            y = x.pow(2) if op == "pow" else x.exp()
            raw = y.grad_fn._raw_saved_self if op == "pow" else y.grad_fn._raw_saved_result
        raw.register_hooks(pack, unpack)
        log.append(_outcome(lambda: raw.register_hooks(pack, unpack)))
        log.append(_outcome(lambda: raw.register_hooks(pack)))
        y.sum().backward()
        log.append(repr(x.grad))
        log.append(_outcome(lambda: raw.register_hooks(pack, unpack)))
        if op == "custom":
            log.append(_outcome(lambda: y.grad_fn._raw_saved_tensors))
        return log
    check_same(fn, exact=True)


def _outcome(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the exception is what we compare
        return type(e).__name__, str(e).split("\n")[0]
    return None


# ---- a saved view made in forward (no_grad mode) whose base changed in place ---------------
def test_saved_no_grad_view_modified(torch):
    def fn(lib):
        class SaveView(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x[0])
                return x * 2

            @staticmethod
            def backward(ctx, g):
                v, = ctx.saved_tensors
                return g * v
        b = lib.ones(2, requires_grad=True).clone()
        y = SaveView.apply(b)
        b.add_(1)
        y.sum().backward()
    check_error(fn)
