"""``torch.utils.checkpoint``: gradients equal to the uncheckpointed ones (against torch and
numerically), the random state restored for dropout, memory actually saved, and PyTorch's
warnings and errors for both implementations."""
import contextlib
import gc
import warnings
import weakref

import numpy as np
import pytest

import numtorch
from numtorch.utils import checkpoint as ckpt
from numtorch.autograd.graph import saved_entries
from helpers import check_error, check_same, numerical_grad_check

REENTRANT = "ignore:None of the inputs have requires_grad"
MODES = [True, False]


def _block(lib, a, b):
    """A small block with dropout (random), a view and a reduction."""
    h = lib.nn.functional.dropout(a.sin() * b, 0.5, training=True)
    return (h.exp() + a[:2].sum()).tanh().sum()


def _inputs(lib):
    a = lib.tensor([0.3, -1.2, 0.8, 2.0], requires_grad=True)
    b = lib.tensor([1.5, 0.5, -0.7, 1.1], requires_grad=True)
    return a, b


# ---- gradients identical to the uncheckpointed ones ----------------------------------------
@pytest.mark.parametrize("use_reentrant", MODES)
def test_gradients_match_plain_and_torch(torch, use_reentrant):
    def fn(lib, checkpointed):
        a, b = _inputs(lib)
        lib.manual_seed(1)
        if checkpointed:
            y = lib.utils.checkpoint.checkpoint(lambda p, q: _block(lib, p, q), a, b,
                                                use_reentrant=use_reentrant)
        else:
            y = _block(lib, a, b)
        y.backward()
        # the stream after backward: recomputing must not consume or reset it
        return y, a.grad, b.grad, lib.rand(2)
    plain = fn(numtorch, False)
    mine = check_same(lambda lib: fn(lib, True))  # torch's values, the same dropout mask
    # and exactly the uncheckpointed values (the same ops run on the same data)
    assert all(np.array_equal(m.detach().numpy(), p.detach().numpy())
               for m, p in zip(mine, plain))


def test_numerical_gradients():
    # non-reentrant only: the check uses autograd.grad, which reentrant refuses
    def f(a, b):
        return numtorch.utils.checkpoint.checkpoint(
            lambda p, q: (p.sin() * q).exp().sum(), a, b, use_reentrant=False)
    a = numtorch.tensor([0.3, -1.2, 0.8], dtype=numtorch.float64, requires_grad=True)
    b = numtorch.tensor([1.5, 0.5, -0.7], dtype=numtorch.float64, requires_grad=True)
    numerical_grad_check(f, [a, b], order=2)


@pytest.mark.parametrize("use_reentrant", MODES)
def test_preserve_rng_state_false_draws_a_new_mask(torch, use_reentrant):
    def fn(lib):
        x = lib.ones(64, requires_grad=True)
        lib.manual_seed(0)
        y = lib.utils.checkpoint.checkpoint(
            lambda t: lib.nn.functional.dropout(t, 0.5), x, use_reentrant=use_reentrant,
            preserve_rng_state=False)
        y.sum().backward()
        return y, x.grad
    y, g = check_same(fn, exact=True)
    assert not np.array_equal((y != 0).numpy(), (g != 0).numpy())


def test_checkpoint_sequential(torch):
    def fn(lib, use_reentrant):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Dropout(0.3),
                                  lib.nn.Linear(8, 8), lib.nn.Tanh(), lib.nn.Linear(8, 2))
        x = lib.randn(3, 4, requires_grad=True)
        out = lib.utils.checkpoint.checkpoint_sequential(model, 3, x,
                                                         use_reentrant=use_reentrant)
        out.sum().backward()
        return out, x.grad, model[0].weight.grad, model[5].bias.grad
    for mode in MODES:
        check_same(lambda lib: fn(lib, mode))
    check_error(lambda lib: lib.utils.checkpoint.checkpoint_sequential(
        [lib.sin], 1, lib.ones(1), use_reentrant=True, foo=1))


def test_non_tensor_and_tuple_outputs(torch):
    def fn(lib, use_reentrant):
        x = lib.tensor([0.5, 1.0, -2.0], requires_grad=True)
        out = lib.utils.checkpoint.checkpoint(lambda t, k: (t.exp(), t.sin() * k, "tag"), x,
                                              3.0, use_reentrant=use_reentrant)
        (out[0] + out[1]).sum().backward()
        return out[2], out[0].grad_fn.name(), x.grad
    for mode in MODES:
        check_same(lambda lib: fn(lib, mode))


def test_module_parameters_get_gradients(torch):
    def fn(lib, use_reentrant):
        lib.manual_seed(0)
        lin = lib.nn.Linear(4, 3)
        x = lib.randn(2, 4, requires_grad=True)
        lib.utils.checkpoint.checkpoint(lin, x, use_reentrant=use_reentrant).sum().backward()
        return lin.weight.grad, lin.bias.grad, x.grad
    for mode in MODES:
        check_same(lambda lib: fn(lib, mode))


# ---- non-reentrant: everything a graph supports --------------------------------------------
def test_non_reentrant_grad_kwargs_retain_graph_and_double_backward(torch):
    def fn(lib):
        cp = lib.utils.checkpoint.checkpoint
        x = lib.tensor([0.5, 1.0, -2.0], requires_grad=True)
        y = cp(lambda t, s=1.0: (t ** 3 * s).sum(), x, s=2.0, use_reentrant=False)
        g, = lib.autograd.grad(y, x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        z = cp(lambda t: t.exp().sin().sum(), x, use_reentrant=False)
        z.backward(retain_graph=True)
        z.backward(inputs=[x])
        return g, gg, x.grad
    check_same(fn)


def test_non_reentrant_nested_and_grad_inside(torch):
    def fn(lib):
        cp = lib.utils.checkpoint.checkpoint
        x = lib.tensor([0.5, 1.0, -2.0], requires_grad=True)

        def inner(a):
            return a.sin().cos()

        def outer(a):
            return cp(inner, a * 2, use_reentrant=False).exp()

        def grad_inside(t):
            gx, = lib.autograd.grad(t.sin().sum(), t, create_graph=True)
            return (gx * t).sum()
        g1, = lib.autograd.grad(cp(outer, x, use_reentrant=False).sum(), x)
        g2, = lib.autograd.grad(cp(grad_inside, x, use_reentrant=False), x)
        with lib.utils.checkpoint.set_checkpoint_early_stop(False):
            y = cp(lambda t: t.sin().exp().sum(), x, use_reentrant=False)
        g3, = lib.autograd.grad(y, x)
        return g1, g2, g3
    check_same(fn)


def test_non_reentrant_under_no_grad(torch):
    def fn(lib):
        x = lib.ones(2, requires_grad=True)
        with lib.no_grad():
            return lib.utils.checkpoint.checkpoint(lambda t: t * 2, x,
                                                   use_reentrant=False).requires_grad
    assert check_same(fn) is False


def _flaky(lib, second):
    calls = []

    def fn(a):
        calls.append(1)
        return a.exp() if len(calls) == 1 else second(a)
    return fn


@pytest.mark.parametrize("second", ["shape", "count", "more"])
def test_determinism_errors(torch, second):
    other = {"shape": lambda a: a[:2].exp(), "count": lambda a: a.sin(),
             "more": lambda a: a.exp().exp()}[second]

    def fn(lib):
        x = lib.tensor([0.5, 1.0, -2.0], requires_grad=True)
        first = (lambda a: a.exp().exp()) if second == "count" else (lambda a: a.exp())
        calls = []

        def f(a):
            calls.append(1)
            return first(a) if len(calls) == 1 else other(a)
        # without early stop, recomputing runs the whole function (so may save more)
        with lib.utils.checkpoint.set_checkpoint_early_stop(second != "more"):
            y = lib.utils.checkpoint.checkpoint(f, x, use_reentrant=False).sum()
        y.backward()
    err = check_error(fn)
    assert type(err) is ckpt.CheckpointError


def test_determinism_check_none_skips_the_check(torch):
    def fn(lib):
        x = lib.tensor([0.5, 1.0, -2.0], requires_grad=True)
        calls = []

        def f(a):
            calls.append(1)
            return a.exp() if len(calls) == 1 else a[:2].exp()
        lib.utils.checkpoint.checkpoint(f, x, use_reentrant=False,
                                        determinism_check="none").sum().backward()
    check_error(fn)  # the backward then fails on the shapes, as in torch
    check_error(lambda lib: lib.utils.checkpoint.checkpoint(
        lib.sin, lib.ones(1), use_reentrant=False, determinism_check="exact"))


def test_debug_report_lists_what_each_run_saved():
    x = numtorch.tensor([0.5, 1.0, -2.0], requires_grad=True)
    calls = []

    def f(a):
        calls.append(1)
        return a.exp() if len(calls) == 1 else a[:2].exp()
    y = ckpt.checkpoint(f, x, use_reentrant=False, debug=True).sum()
    with pytest.raises(ckpt.CheckpointError) as info:
        y.backward()
    text = str(info.value)
    assert "f32[3] saved by ExpBackward0   (1 of 1 in original)" in text
    assert "f32[2] saved by ExpBackward0   (1 of 1 in recompute)" in text
    assert "test_checkpoint.py" in text and "ERROR: Detected non-determinism" in text


def test_unpacking_twice_and_modified_inputs(torch):
    def twice(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                ctx.saved_tensors
                a, = ctx.saved_tensors
                return g * a
        x = lib.ones(2, requires_grad=True)
        lib.utils.checkpoint.checkpoint(lambda t: Twice.apply(t.sin()), x,
                                        use_reentrant=False).sum().backward()

    def modified(lib, use_reentrant):
        a = lib.ones(3, requires_grad=True).clone()
        y = lib.utils.checkpoint.checkpoint(lambda t: t.exp(), a,
                                            use_reentrant=use_reentrant).sum()
        a.add_(1)
        y.backward()
    check_error(twice)
    for mode in MODES:
        check_error(lambda lib: modified(lib, mode))


def test_context_fn(torch):
    class Swallow:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return True

    def boom(t):
        raise ValueError("boom")

    def suppressed(lib):
        lib.utils.checkpoint.checkpoint(boom, lib.ones(1), use_reentrant=False,
                                        context_fn=lambda: (Swallow(), Swallow()))
    check_error(suppressed)
    check_error(lambda lib: lib.utils.checkpoint.checkpoint(boom, lib.ones(1),
                                                            use_reentrant=False))
    check_error(lambda lib: lib.utils.checkpoint.checkpoint(
        boom, lib.ones(1), use_reentrant=False, debug=True,
        context_fn=lambda: (Swallow(), Swallow())))
    # the contexts wrap the forward and the recomputation
    log = []

    @contextlib.contextmanager
    def tag(name):
        log.append(name)
        yield
    x = numtorch.ones(2, requires_grad=True)
    y = ckpt.checkpoint(lambda t: t.exp().sum(), x, use_reentrant=False,
                        context_fn=lambda: (tag("forward"), tag("recompute")))
    y.backward()
    assert log == ["forward", "recompute"]


def test_graph_exec_group():
    x = numtorch.ones(2, requires_grad=True)
    y = ckpt.checkpoint(lambda t: t.exp(), x, use_reentrant=False)
    with ckpt.GraphExecGroup() as group:
        with pytest.raises(RuntimeError, match="GraphExecGroup contexts cannot be nested"):
            with ckpt.GraphExecGroup():
                pass
        assert ckpt.GraphExecGroup._get_current_group() is group
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx([np.e, np.e])


# ---- reentrant: PyTorch's warnings and errors ----------------------------------------------
def test_use_reentrant_not_passed_warns():
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed"):
        y = ckpt.checkpoint(numtorch.sin, numtorch.ones(1, requires_grad=True))
    assert y.grad_fn.name() == "CheckpointFunctionBackward"
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant"):
        ckpt.checkpoint_sequential([numtorch.sin], 1, numtorch.ones(1, requires_grad=True))


@pytest.mark.filterwarnings(REENTRANT)
def test_reentrant_errors(torch):
    def cp(lib, fn, *args, **kw):
        return lib.utils.checkpoint.checkpoint(fn, *args, use_reentrant=True, **kw)

    def no_input_requires_grad(lib):
        cp(lib, lambda t: t.sin(), lib.ones(2)).sum().backward()

    def with_grad(lib):
        x = lib.ones(2, requires_grad=True)
        lib.autograd.grad(cp(lib, lambda t: t.sin(), x).sum(), x)

    def with_inputs(lib):
        x = lib.ones(2, requires_grad=True)
        cp(lib, lambda t: t.sin(), x).sum().backward(inputs=[x])

    def detached_output(lib):
        x = lib.ones(2, requires_grad=True)
        cp(lib, lambda t: t.detach() * 2, x).sum().backward()
    for fn in (no_input_requires_grad, with_grad, with_inputs, detached_output):
        check_error(fn)
    check_error(lambda lib: cp(lib, lambda t: t, lib.ones(1), foo=1))
    check_error(lambda lib: cp(lib, lambda t: t, lib.ones(1), debug=True))
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        ckpt.checkpoint(numtorch.sin, numtorch.ones(1), use_reentrant=True)


# ---- memory is actually saved --------------------------------------------------------------
def _saved_bytes(root):
    """Bytes of the arrays the graph behind ``root`` holds as saved tensors."""
    seen, stack, total = set(), [root.grad_fn], 0
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for entry in (saved_entries(node) if hasattr(node, "_saved") else None) or ():
            if entry is None or not isinstance(entry, tuple):
                continue
            if entry[0] == 0:
                total += entry[1]._data.nbytes
            elif entry[0] == 1:
                total += entry[1].nbytes
            elif entry[0] == 3 and isinstance(entry[1], numtorch.Tensor):
                total += entry[1]._data.nbytes
        stack.extend(fn for fn, _ in node.next_functions)
    return total


def _deep(t):
    for _ in range(6):
        t = (t * 1.5).sin().exp()
    return t.sum()


@pytest.mark.parametrize("use_reentrant", MODES)
def test_memory_is_saved(use_reentrant):
    x = numtorch.randn(10_000, requires_grad=True)
    plain = _deep(x)
    checkpointed = ckpt.checkpoint(_deep, x, use_reentrant=use_reentrant)
    # the plain graph keeps ~12 activations of 40 kB; the checkpointed one nothing but the
    # input (a leaf, alive anyway)
    assert _saved_bytes(plain) >= 12 * x._data.nbytes
    assert _saved_bytes(checkpointed) <= x._data.nbytes
    # intermediates die with the forward: weak references to their arrays are dead
    refs = []

    def traced(t):
        for _ in range(4):
            t = (t * 1.5).sin()
            refs.append(weakref.ref(t._data))
        return t.sum()
    y = ckpt.checkpoint(traced, x, use_reentrant=use_reentrant)
    assert [r() for r in refs] == [None] * 4
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), _grad_of(traced, x), rtol=1e-6)


def _grad_of(fn, x):
    x2 = x.detach().clone().requires_grad_()
    fn(x2).backward()
    return x2.grad.numpy()


def test_recomputed_tensors_are_freed_even_with_retain_graph():
    x = numtorch.randn(1000, requires_grad=True)
    frames = []
    hook_init = ckpt._checkpoint_hook.__init__

    def spy(self, frame):
        frames.append(frame)
        hook_init(self, frame)
    ckpt._checkpoint_hook.__init__ = spy
    try:
        y = ckpt.checkpoint(_deep, x, use_reentrant=False)
    finally:
        ckpt._checkpoint_hook.__init__ = hook_init
    y.backward(retain_graph=True)
    frame = frames[0]
    assert all(len(d) == 0 for d in frame.recomputed.values())  # each handed out once
    y.backward()  # a second backward recomputes again
    first = x.grad.clone()
    np.testing.assert_allclose(first.numpy(), 2 * _grad_of(_deep, x), rtol=1e-5)
    del y
    gc.collect()
    assert all(r() is None for r in frame.weak_holders)


def test_cli_import_paths(tmp_path):
    import os
    import subprocess
    import sys
    script = tmp_path / "s.py"
    script.write_text(
        "import torch\n"
        "import torch.autograd.graph\n"
        "import torch.utils.checkpoint\n"
        "from torch.utils.checkpoint import checkpoint\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "checkpoint(lambda t: t.exp(), x, use_reentrant=False).sum().backward()\n"
        "print(x.grad, torch.autograd.graph.Node, torch.utils.checkpoint.checkpoint is "
        "checkpoint)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run([sys.executable, "-m", "numtorch", str(script)], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("tensor([2.7183, 2.7183]) <class ")
    assert out.stdout.rstrip().endswith("True")


def test_no_warning_leaks_from_explicit_calls():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = numtorch.ones(2, requires_grad=True)
        ckpt.checkpoint(numtorch.sin, x, use_reentrant=True).sum().backward()
        ckpt.checkpoint(numtorch.sin, x, use_reentrant=False).sum().backward()


def test_doctests():
    import doctest
    result = doctest.testmod(ckpt, extraglobs={"torch": numtorch})
    assert result.attempted > 0 and result.failed == 0
