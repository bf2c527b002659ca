"""The backward engine: accumulation, retain/create graph, autograd.grad, hooks, graph
inspection, grad modes, and a very long chain."""
import sys
import threading
import time

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same


def _leaf(lib, values=(1.5, -2.0, 3.0)):
    return lib.tensor(values, requires_grad=True)


# ---- accumulation, retain_graph, create_graph, inputs ---------------------------------------
def test_grad_accumulates(torch):
    def fn(lib):
        x = _leaf(lib)
        (x * x).sum().backward()
        first = x.grad
        (x * 3).sum().backward()
        return first is x.grad, x.grad, x.grad.requires_grad, x.grad.grad_fn
    check_same(fn)


def test_grad_is_not_the_upstream_tensor(torch):
    def fn(lib):
        x = _leaf(lib)
        g = lib.ones(3)
        x.backward(g)
        g.add_(5)
        return x.grad, x.grad is g
    check_same(fn)


def test_retain_graph(torch):
    def fn(lib):
        x = _leaf(lib)
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    check_same(fn)


CYCLE = "ignore:Using backward\\(\\) with create_graph=True"


@pytest.mark.filterwarnings(CYCLE)
def test_create_graph_grad_is_differentiable(torch):
    def fn(lib):
        x = _leaf(lib)
        (x ** 3).sum().backward(create_graph=True)
        g = x.grad
        name = g.grad_fn.name()
        x.grad = None
        g.sum().backward()
        return name, g.requires_grad, x.grad
    check_same(fn)


@pytest.mark.filterwarnings(CYCLE)
def test_create_graph_accumulation_is_out_of_place(torch):
    def fn(lib):
        x = _leaf(lib)
        (x * x).sum().backward(create_graph=True)
        first = x.grad
        (x * x).sum().backward(create_graph=True)
        return first is x.grad, first, x.grad, x.grad.grad_fn.name()
    check_same(fn)


def test_backward_inputs(torch):
    def fn(lib):
        a, b = _leaf(lib), _leaf(lib, (0.5, 1.0, 2.0))
        c = a * 2
        c.retain_grad()
        y = (c * b).sum()
        y.backward(inputs=[a], retain_graph=True)
        ga, gb = a.grad, b.grad
        y.backward(inputs=[b, c])
        return ga, gb, a.grad, b.grad, c.grad
    check_same(fn)


def test_backward_inputs_non_leaf(torch):
    def fn(lib):
        a = _leaf(lib)
        c = a * 2
        (c * c).sum().backward(inputs=[c])
        return c.grad, a.grad
    check_same(fn)


def test_autograd_backward_function(torch):
    def fn(lib):
        a, b = _leaf(lib), _leaf(lib)
        lib.autograd.backward([(a * b).sum(), a * 3], [lib.tensor(2.0), lib.ones(3)])
        return a.grad, b.grad
    check_same(fn)


def test_create_graph_backward_warns_once(monkeypatch):
    from numtorch.autograd import _api
    monkeypatch.setattr(_api, "_warned", [])
    x = _leaf(numtorch)
    with pytest.warns(UserWarning, match="will create a reference cycle"):
        (x * x).sum().backward(create_graph=True)
    (x * x).sum().backward(create_graph=True)  # no second warning (errors are raised here)


# ---- autograd.grad -------------------------------------------------------------------------
def test_grad_basic_and_multiple(torch):
    def fn(lib):
        a, b = _leaf(lib), _leaf(lib, (0.5, 1.0, 2.0))
        y = (a * b).sum()
        ga, gb = lib.autograd.grad(y, [a, b], retain_graph=True)
        (ga2,) = lib.autograd.grad([y, (a * a).sum()], a)
        return ga, gb, ga2, a.grad, b.grad
    check_same(fn)


def test_grad_outputs(torch):
    def fn(lib):
        a = _leaf(lib)
        y = a * a
        (g,) = lib.autograd.grad(y, a, grad_outputs=lib.tensor([1.0, 0.0, -2.0]))
        (g2,) = lib.autograd.grad([a * 2, (a * 3).sum()], a, grad_outputs=[lib.ones(3), None])
        (g3,) = lib.autograd.grad(a * 2, a, grad_outputs=lib.ones(3, dtype=lib.float64))
        return g, g2, g3
    check_same(fn)


def test_grad_allow_unused_and_materialize(torch):
    def fn(lib):
        a, b = _leaf(lib), _leaf(lib)
        ga, gb = lib.autograd.grad((a * 2).sum(), [a, b], allow_unused=True,
                                   retain_graph=True)
        ma, mb = lib.autograd.grad((a * 2).sum(), [a, b], materialize_grads=True)
        return ga, gb, ma, mb, mb.requires_grad
    check_same(fn)


def test_grad_of_intermediate(torch):
    def fn(lib):
        a = _leaf(lib)
        h = a.exp()
        y = (h * h).sum()
        (gh,) = lib.autograd.grad(y, h, retain_graph=True)
        (ga,) = lib.autograd.grad(y, a)
        return gh, ga, a.grad
    check_same(fn)


def test_grad_create_graph_hessian_vector(torch):
    def fn(lib):
        x = _leaf(lib)
        y = (x.sin() * x ** 2).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (hv,) = lib.autograd.grad(g, x, grad_outputs=lib.tensor([1.0, 2.0, 3.0]))
        return g, hv
    check_same(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.autograd.grad((_leaf(lib) * 2).sum(), [lib.ones(3)]),
    lambda lib: lib.autograd.grad(_leaf(lib) * 2, _leaf(lib)),
    lambda lib: lib.autograd.grad((_leaf(lib) * 2).sum(), _leaf(lib), allow_unused=False,
                                  materialize_grads=True),
    lambda lib: lib.autograd.grad([(_leaf(lib) * 2).sum()], [], allow_unused=True),
    lambda lib: (_leaf(lib) * 2).sum().backward(inputs=[]),
    lambda lib: lib.autograd.grad(_leaf(lib) * 2, _leaf(lib), grad_outputs=[lib.ones(2)]),
    lambda lib: lib.autograd.backward([_leaf(lib).sum()], [lib.ones(1), lib.ones(1)]),
    lambda lib: _leaf(lib).sum().backward(lib.ones(3)),
    lambda lib: (_leaf(lib) * 2).backward(1.0),
    lambda lib: lib.autograd.backward([_leaf(lib).sum(), _leaf(lib).sum()], [lib.tensor(1.0)]),
    lambda lib: lib.autograd.backward([_leaf(lib).sum()], []),
    lambda lib: lib.autograd.grad([_leaf(lib).sum(), lib.ones(1).sum()], _leaf(lib)),
    lambda lib: lib.autograd.grad(_leaf(lib) * 2, _leaf(lib), grad_outputs=lib.ones(
        3, dtype=lib.complex64)),
], ids=["input-no-grad", "non-scalar", "materialize-without-unused", "no-inputs",
        "empty-inputs", "grad-output-shape", "too-many-grads", "scalar-grad-shape",
        "grad-not-tensor", "too-few-grads", "no-grads", "output-without-grad",
        "complex-grad-output"])
def test_grad_errors(torch, fn):
    check_error(fn)


# ---- retain_grad and hooks -----------------------------------------------------------------
def test_retain_grad(torch):
    def fn(lib):
        x = _leaf(lib)
        h = x * 2
        h.retain_grad()
        h.retain_grad()  # twice is harmless
        z = h.exp()
        (z * z).sum().backward(retain_graph=True)
        first = h.grad.clone()
        (z * z).sum().backward()
        return h.retains_grad, x.retains_grad, first, h.grad, x.grad
    check_same(fn)


def test_retain_grad_on_leaf_is_noop(torch):
    def fn(lib):
        x = _leaf(lib)
        x.retain_grad()
        (x * 2).sum().backward()
        return x.retains_grad, x.grad
    check_same(fn)


def test_tensor_hooks_leaf_and_non_leaf(torch):
    def fn(lib):
        log = []
        x = _leaf(lib)
        h = x * 2
        hx1 = x.register_hook(lambda g: log.append(("x1", g.tolist())))
        x.register_hook(lambda g: g * 10)
        h.register_hook(lambda g: log.append(("h", g.tolist())) or g + 1)
        removed = h.register_hook(lambda g: log.append("removed"))
        removed.remove()
        (h * h).sum().backward()
        hx1.remove()
        x.grad = None
        (x * 1).sum().backward()
        return log, x.grad
    check_same(fn)


def test_hook_sees_accumulated_gradient_once(torch):
    def fn(lib):
        log = []
        x = _leaf(lib)
        h = x * 2
        h.register_hook(lambda g: log.append(g.tolist()))
        (h * 3 + h * h).sum().backward()
        return log, x.grad
    check_same(fn)


def test_retain_grad_sees_hook_result(torch):
    def fn(lib):
        x = _leaf(lib)
        h = x * 2
        h.retain_grad()
        h.register_hook(lambda g: g * 100)
        h.sum().backward()
        return h.grad, x.grad
    check_same(fn)


def test_post_accumulate_grad_hook(torch):
    def fn(lib):
        log = []
        x = _leaf(lib)

        def hook(t):
            log.append((t is x, t.grad.tolist()))
            with lib.no_grad():
                t.grad.mul_(0.5)
        handle = x.register_post_accumulate_grad_hook(hook)
        (x * 4).sum().backward()
        (x * 2).sum().backward()
        handle.remove()
        (x * 2).sum().backward()
        return log, x.grad
    check_same(fn)


def test_post_accumulate_grad_hook_on_non_leaf_error(torch):
    check_error(lambda lib: (_leaf(lib) * 2).register_post_accumulate_grad_hook(print))


def test_node_hooks(torch):
    def fn(lib):
        log = []
        x = _leaf(lib)
        y = x * x
        node = y.grad_fn
        node.register_prehook(lambda gouts: log.append(("pre", [g.tolist() for g in gouts])))
        node.register_prehook(lambda gouts: (gouts[0] * 2,))
        h = node.register_hook(lambda gins, gouts: log.append(
            ("post", [g.tolist() if g is not None else None for g in gins],
             [g.tolist() for g in gouts])))
        node.register_hook(lambda gins, gouts: (gins[0] + 1, gins[1]))
        y.sum().backward(retain_graph=True)
        h.remove()
        first = x.grad.clone()
        y.sum().backward()
        return log, first, x.grad
    check_same(fn)


def test_hook_on_accumulate_grad_node(torch):
    def fn(lib):
        log = []
        x = _leaf(lib)
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda g: log.append(("pre", g[0].tolist())))
        acc.register_hook(lambda gi, go: log.append(("post", len(gi), go[0].tolist())))
        y.sum().backward()
        return log, acc.name(), x.grad
    check_same(fn)


# ---- graph inspection ----------------------------------------------------------------------
def _graph_names(node, depth=6):
    """The nested names of a node and everything under it (bounded depth)."""
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return (node.name(), [(_graph_names(child, depth - 1), nr)
                          for child, nr in node.next_functions])


GRAPHS = [
    ("arith", lambda lib, a, b: (a * b + a / b - b).sum()),
    ("scalar-ops", lambda lib, a, b: (2 * a - 1 + a ** 2 / 3).mean()),
    ("unary", lambda lib, a, b: (a.exp().log().sin().cos().tanh().sigmoid().relu()).sum()),
    ("shapes", lambda lib, a, b: a.view(3, 1).t().unsqueeze(0).squeeze(0).transpose(0, 1)
     .reshape(-1).expand(2, 3).permute(1, 0).sum(1)),
    ("matmul", lambda lib, a, b: a.view(1, 3) @ b.view(3, 1)),
    ("indexing", lambda lib, a, b: a[1:] * b[[0, 2]] + a[0] + a[a > 0].sum()),
    ("reductions", lambda lib, a, b: a.sum(0, keepdim=True) + a.mean() + a.abs().sqrt()),
    ("leaf-only", lambda lib, a, b: a),
    ("mixed-no-grad", lambda lib, a, b: a * b.detach() + lib.ones(3)),
]


@pytest.mark.parametrize("make", [g[1] for g in GRAPHS], ids=[g[0] for g in GRAPHS])
def test_grad_fn_names_and_next_functions(torch, make):
    def fn(lib):
        a, b = _leaf(lib), _leaf(lib, (0.5, 1.0, 2.0))
        out = make(lib, a, b)
        return _graph_names(out.grad_fn), out.is_leaf, out.requires_grad
    check_same(fn)


def test_accumulate_grad_node_is_shared(torch):
    for lib in (numtorch, torch):
        x = _leaf(lib)
        y = x * 2
        z = x * 3
        acc_y = y.grad_fn.next_functions[0][0]
        assert acc_y is z.grad_fn.next_functions[0][0]
        assert acc_y.variable is x
        assert acc_y.name() == "torch::autograd::AccumulateGrad"


def test_node_metadata_and_repr(torch):
    for lib in (numtorch, torch):
        y = _leaf(lib) * 2
        y.grad_fn.metadata["k"] = 1
        assert y.grad_fn.metadata == {"k": 1}
        assert repr(y.grad_fn).startswith("<MulBackward0 object at 0x")


# ---- saved tensor hooks --------------------------------------------------------------------
def test_saved_tensors_hooks(torch):
    def fn(lib):
        log = []

        def pack(t):
            log.append(("pack", tuple(t.shape)))
            return t.detach() * 1  # a copy, as a compressing hook would keep

        def unpack(t):
            log.append(("unpack", tuple(t.shape)))
            return t
        x = _leaf(lib)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x * x).exp().sum()
        y.backward()
        return log, x.grad
    check_same(fn)


def test_save_on_cpu(torch):
    def fn(lib):
        x = _leaf(lib)
        with lib.autograd.graph.save_on_cpu():
            y = (x * x).sum()
        y.backward()
        return x.grad
    check_same(fn)


def test_disable_saved_tensors_hooks(torch):
    def fn(lib):
        with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    check_error(fn)


# ---- grad modes ----------------------------------------------------------------------------
def test_grad_mode_context_managers(torch):
    def fn(lib):
        x = _leaf(lib)
        out = []
        with lib.no_grad():
            out.append((x * 2).requires_grad)
            with lib.enable_grad():
                out.append((x * 2).requires_grad)
            out.append(lib.is_grad_enabled())
        with lib.set_grad_enabled(False):
            out.append((x * 2).requires_grad)
        out.append(lib.is_grad_enabled())
        with lib.inference_mode():
            out.append(((x * 2).requires_grad, lib.is_inference_mode_enabled(),
                        lib.is_grad_enabled()))
            with lib.inference_mode(False):
                out.append(lib.is_inference_mode_enabled())
        out.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
        return out
    check_same(fn)


def test_inference_mode_false_turns_grad_mode_on(torch):
    def fn(lib):
        out = []
        with lib.inference_mode():
            with lib.inference_mode(False):
                out.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
        with lib.no_grad():
            with lib.inference_mode(False):
                out.append(lib.is_grad_enabled())
            out.append(lib.is_grad_enabled())
        return out
    check_same(fn, exact=True)


def test_grad_mode_decorates_generators_per_step(torch):
    def fn(lib):
        x = _leaf(lib)
        seen = []

        @lib.no_grad()
        def gen(n):
            for i in range(n):
                r = yield (x * i).requires_grad
                seen.append((r, lib.is_grad_enabled()))
            return "done"
        g = gen(2)
        first = (next(g), lib.is_grad_enabled())
        second = g.send(5)
        try:
            g.send(6)
        except StopIteration as e:
            last = e.value
        return first, second, last, seen
    check_same(fn, exact=True)


def test_grad_mode_decorating_a_class_warns(torch):
    def fn(lib):
        x = _leaf(lib)
        with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):
            @lib.no_grad()
            class C:
                def __init__(self):
                    self.rg = (x * 2).requires_grad
        return C().rg
    check_same(fn, exact=True)


def test_set_grad_enabled_repr(torch):
    check_same(lambda lib: repr(lib.set_grad_enabled(True)), exact=True)


def test_set_grad_enabled_as_function(torch):
    def fn(lib):
        lib.set_grad_enabled(False)
        off = lib.is_grad_enabled()
        lib.set_grad_enabled(True)
        return off, lib.is_grad_enabled()
    check_same(fn)


def test_grad_modes_as_decorators(torch):
    def fn(lib):
        x = _leaf(lib)

        @lib.no_grad()
        def f1():
            return (x * 2).requires_grad

        @lib.no_grad
        def f2():
            return (x * 2).requires_grad

        @lib.enable_grad()
        def f3():
            return (x * 2).requires_grad

        @lib.set_grad_enabled(False)
        def f4():
            return (x * 2).requires_grad

        @lib.inference_mode()
        def f5():
            return (x * 2).requires_grad

        @lib.inference_mode
        def f6():
            return lib.is_inference_mode_enabled()
        with lib.no_grad():
            inner = f3()
        return f1(), f2(), inner, f4(), f5(), f6(), lib.is_grad_enabled(), f1.__name__
    check_same(fn)


def test_grad_mode_restored_after_exception(torch):
    for lib in (numtorch, torch):
        with pytest.raises(ValueError):
            with lib.no_grad():
                raise ValueError
        assert lib.is_grad_enabled()


def test_set_grad_enabled_type_error(torch):
    check_error(lambda lib: lib.set_grad_enabled(1))


def test_grad_mode_is_per_thread(torch):
    def fn(lib):
        seen = {}

        def worker():
            seen["thread"] = lib.is_grad_enabled()
        with lib.no_grad():
            t = threading.Thread(target=worker)
            t.start()
            t.join()
            seen["main"] = lib.is_grad_enabled()
        return seen
    check_same(fn)


def test_no_grad_blocks_recording_but_not_version(torch):
    def fn(lib):
        x = _leaf(lib)
        with lib.no_grad():
            x.mul_(2)
        return x, x._version, x.is_leaf, x.requires_grad
    check_same(fn)


# ---- node execution order ------------------------------------------------------------------
def test_hook_order_matches_torch(torch):
    """Which hooks run in which order over a diamond-shaped graph with a shared leaf."""
    def fn(lib):
        log = []
        x = _leaf(lib)
        w = _leaf(lib, (0.5, 0.25, 2.0))

        def tag(name):
            return lambda g: log.append(name)
        a = x * 2
        b = x.exp()
        c = a * b
        d = a + w
        e = c.sum() + d.sum() * 3
        for t, name in ((x, "x"), (w, "w"), (a, "a"), (b, "b"), (c, "c"), (d, "d"), (e, "e")):
            t.register_hook(tag(name))
        e.backward()
        return log
    check_same(fn)


def test_node_order_with_custom_function_prints(torch, capsys):
    def run(lib):
        class Tap(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, name):
                ctx.name = name
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                print("backward", ctx.name)
                return g, None
        x = _leaf(lib)
        p = Tap.apply(x, "p")
        q = Tap.apply(p * 2, "q")
        r = Tap.apply(p.exp(), "r")
        s = Tap.apply(q + r, "s")
        t = Tap.apply(x.sin(), "t")
        (s.sum() + t.sum() + Tap.apply(q, "u").sum()).backward()
    run(numtorch)
    mine = capsys.readouterr().out
    run(torch)
    assert mine == capsys.readouterr().out


# ---- a long chain: no recursion, linear time -----------------------------------------------
def _chain_backward(n):
    x = numtorch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0
    start = time.perf_counter()
    y.backward()
    return time.perf_counter() - start, x.grad


def test_long_chain_differentiates_without_recursion():
    limit = sys.getrecursionlimit()
    seconds, grad = _chain_backward(200_000)
    assert grad.tolist() == [1.0]
    assert sys.getrecursionlimit() == limit


def test_long_chain_time_is_linear():
    small, _ = _chain_backward(20_000)
    large, _ = _chain_backward(80_000)
    assert large < 4 * small * 2.5, (small, large)


def test_deep_graph_frees_without_recursion():
    x = numtorch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1.0
    del y  # dropping the graph must not recurse node by node either


def test_numpy_interplay_in_chain():
    x = numtorch.tensor(np.ones(2), requires_grad=True)
    y = (x * 2).sum()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_accumulators_run_first_in_ready_order(torch):
    """PyTorch runs a ready AccumulateGrad before any other node (its sequence number is the
    largest), accumulators among themselves in the order they became ready."""
    def order(lib):
        seen = []
        a, b, c = (lib.ones(2, requires_grad=True) for _ in range(3))
        for name, t in (("a", a), ("b", b), ("c", c)):
            t.register_hook(lambda g, name=name: seen.append(name))
        (a * b * c).sum().backward()
        (a + b + c).sum().backward()
        lib.stack([a, b, c]).sum().backward()
        return seen
    assert order(numtorch) == order(torch)


# ---- a second backward without retain_graph: raises where PyTorch's node saved something ----
SECOND_BACKWARD = {
    "mul_number": lambda x: x * 2, "rmul_number": lambda x: 2 * x,
    "torch_mul_number": lambda x: x.mul(2.5), "mul_number_inplace": lambda x: x.clone().mul_(3),
    "div_number": lambda x: x / 2, "add_number": lambda x: x + 2, "sub_number": lambda x: x - 2,
    "neg": lambda x: -x, "view": lambda x: x.view(2, 2), "exp": lambda x: x.exp(),
    "mul_tensor": lambda x: x * x, "clone": lambda x: x.clone(),
}


@pytest.mark.parametrize("name", SECOND_BACKWARD)
def test_second_backward_raises_as_pytorch(name):
    def fn(lib):
        x = lib.tensor([0.5, 1.5, 2.0, 3.0], requires_grad=True)
        y = SECOND_BACKWARD[name](x).sum()
        y.backward()
        y.backward()
        return x.grad
    torch = pytest.importorskip("torch")
    try:
        fn(torch)
    except RuntimeError:
        check_error(fn)
    else:
        check_same(fn)


def test_second_backward_through_number_mul_with_retain_graph():
    x = numtorch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_legacy_variable(torch):
    def run(lib):
        V = lib.autograd.Variable
        a = lib.ones(2)
        v = V(a, requires_grad=True)
        b = lib.ones(2, requires_grad=True) * 2
        w = V(b)
        return (v is a, a.requires_grad, v.requires_grad, v.is_leaf, repr(v),
                w is b, w.grad_fn is None, w.requires_grad, repr(V()),
                isinstance(a, V), issubclass(type(a), V), str(V))
    check_same(run, exact=True)
    check_error(lambda lib: lib.autograd.Variable(3))


def test_set_multithreading_enabled(torch):
    def run(lib):
        out = []
        with lib.autograd.set_multithreading_enabled(False):
            x = lib.ones(2, requires_grad=True)
            (x * 2).sum().backward()
            out.append(x.grad)
        return out
    check_same(run)


def test_grad_batched_shape_error_and_only_inputs_warning(torch):
    def batched(lib):
        b = lib.ones(2, requires_grad=True)
        lib.autograd.grad(b * 2, b, lib.ones(2), is_grads_batched=True)
    check_error(batched)
    for lib in (numtorch, torch):
        d = lib.ones(2, requires_grad=True)
        with pytest.warns(FutureWarning, match="only_inputs argument is deprecated"):
            lib.autograd.grad(d.sum(), d, only_inputs=False)


# ---- higher derivatives of powers: PyTorch's pow_backward keeps a graph through x.pow(1) --
@pytest.mark.parametrize("power", [lambda x: x ** 2, lambda x: x ** 3, lambda x: x.pow(2),
                                   lambda x: x.square(), lambda x: x ** 1, lambda x: x ** 0])
def test_power_derivatives_keep_pytorchs_graph(power):
    def fn(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out = []
        g = power(x).sum()
        for _ in range(3):
            if not g.requires_grad:
                break
            g, = lib.autograd.grad(g.sum(), x, create_graph=True, allow_unused=True)
            if g is None:
                break
            out.append((g.detach().tolist(), g.requires_grad,
                        g.grad_fn.name() if g.grad_fn is not None else None))
        return out
    check_same(fn)
