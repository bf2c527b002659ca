"""The hot paths built for speed (benchmarks W1, W2, W4) must build exactly what the general
paths build: the same node, edges, metadata and saved tensors, the same values and errors.

- operators (``x * y``, ``x + 1.0``) record through ``record_binary`` or compute inline;
  ``E.Mul.apply`` / ``E.Add.apply`` are the general path;
- unary functions (``torch.sin(x)``, ``x.cos()``) record through ``record_unary`` or compute
  inline; ``cls.apply`` is the general path;
- the engine runs a chain without its heap, in the same order.
"""
import gc
import weakref

import numpy as np
import pytest

import numtorch
from numtorch.ops import elementwise as E
from numtorch.autograd.graph import saved_entries

from helpers import check_error, check_same


def _leaf(*shape, dtype=numtorch.float32, seed=0):
    rng = np.random.default_rng(seed)
    return numtorch.tensor(rng.standard_normal(shape).astype(dtype.np) + 1.5,
                           requires_grad=True)


def _node_summary(t):
    """Everything a node records, with tensors and nodes by identity."""
    node = t.grad_fn
    saved = saved_entries(node)
    saved = tuple(None if e is None else (e[0],) + tuple(id(v) if not isinstance(
        v, (int, bool, float)) else v for v in e[1:]) for e in saved)
    return (type(node).__name__, tuple((id(n) if n is not None else None, nr)
                                       for n, nr in node.next_functions),
            node._in_meta, node._out_meta, node.needs_input_grad, saved,
            dict(getattr(node, "__dict__", {})), t._data.dtype, t._data.shape, t._rg)


OPERANDS = {
    "tensor-float": lambda a, b: (a, 1.5),
    "tensor-int": lambda a, b: (a, 3),
    "both-grad": lambda a, b: (a, b),
    "other-no-grad": lambda a, b: (a, b.detach()),
    "self-no-grad": lambda a, b: (a.detach(), b),
    "broadcast": lambda a, b: (a, b[:1]),
}


@pytest.mark.parametrize("op,cls", [("mul", E.Mul), ("add", E.Add)])
@pytest.mark.parametrize("case", list(OPERANDS))
def test_operator_records_what_apply_records(op, cls, case):
    a, b = _leaf(3, 4), _leaf(3, 4, seed=1)
    a, b = a * 1, b * 1  # non-leaf inputs: edges to their nodes
    x, y = OPERANDS[case](a, b)
    fast = x * y if op == "mul" else x + y
    general = cls.apply(x, y)
    assert _node_summary(fast)[0] == _node_summary(general)[0]
    assert _node_summary(fast)[1:] == _node_summary(general)[1:]
    np.testing.assert_array_equal(fast._data, general._data)


@pytest.mark.parametrize("name", ["sin", "exp", "tanh", "neg", "abs", "sqrt", "sigmoid"])
def test_unary_records_what_apply_records(name):
    x = _leaf(5) * 1
    fn = getattr(numtorch, name)
    cls = type(fn(x).grad_fn)._forward_cls
    fast, general = fn(x), cls.apply(x)
    assert _node_summary(fast)[0] == _node_summary(general)[0]
    f, g = _node_summary(fast), _node_summary(general)
    # an output saved for backward is packed from its own tensor: compare all but its ids
    assert f[1:5] == g[1:5] and f[6:] == g[6:]
    assert [e[0] for e in f[5]] == [e[0] for e in g[5]]
    np.testing.assert_array_equal(fast._data, general._data)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64"])
def test_inline_no_grad_values_match_torch(torch, dtype):
    def fn(lib):
        dt = getattr(lib, dtype)
        x = lib.tensor([[0.5, -1.25, 2.0]], dtype=dt)
        y = lib.tensor([[1.5], [0.25]], dtype=dt)
        z = lib.tensor(0.75, dtype=dt)
        out = [x * y, x + 2, 3 * x, 1 - x, x - 0.5, x * z, z * z, z + 1.5, x.exp(), z.exp()]
        if dtype != "complex64":
            out += [lib.sin(x), x.tanh(), lib.sigmoid(z)]
        return out
    check_same(fn)


def test_inline_broadcast_error_matches_torch(torch):
    from helpers import check_error
    check_error(lambda lib: lib.ones(2, 3) * lib.ones(4))
    check_error(lambda lib: lib.ones(2, 3, requires_grad=True) + lib.ones(4))


def test_zero_dim_saved_output_keeps_its_graph(torch):
    # a 0-d forward gives a NumPy scalar; saved, it must still be the op's output
    def fn(lib):
        x = lib.tensor(0.7, requires_grad=True)
        out = []
        for f in (lib.exp, lib.tanh, lib.sigmoid, lib.sqrt):
            g, = lib.autograd.grad(f(x), x, create_graph=True)
            gg, = lib.autograd.grad(g, x)
            out += [g.detach(), gg]
        return out
    check_same(fn)


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_fused_backward_ops_to_third_order(torch, name):
    def fn(lib):
        x = lib.tensor([0.3, -1.2, 2.0], dtype=lib.float64, requires_grad=True)
        y = getattr(lib, name)(x)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), x, create_graph=True)
        ggg, = lib.autograd.grad(gg.sum(), x)
        return g.grad_fn.name(), g.detach(), gg.detach(), ggg
    check_same(fn)


def test_mul_saves_only_what_the_other_gradient_needs(torch):
    # as PyTorch: x * 2.0 does not save x; x * w (w without grad) saves w only
    def fn(lib):
        out = []
        for make in (lambda x: x * 2.0, lambda x: x * lib.tensor([3.0, 4.0]),
                     lambda x: lib.tensor([3.0, 4.0]) * x):
            a = lib.tensor([1.0, 2.0], requires_grad=True)
            x = a * 1
            y = make(x)
            x.add_(1)
            y.sum().backward()
            out.append(a.grad)
        return out
    check_same(fn)


def test_chain_and_branch_order_matches_torch(torch):
    # the engine skips its heap along a chain; hooks must still fire in PyTorch's order
    def fn(lib):
        order = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        b = a.sin()
        c = a.exp()
        d = b * c + b.tanh() + c
        for name, t in (("a", a), ("b", b), ("c", c), ("d", d)):
            t.register_hook(lambda g, name=name: order.append(name))
        d.sum().backward()
        return order, x.grad
    check_same(fn)


def test_long_chain_backward_has_no_recursion():
    x = numtorch.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(50_000):
        y = y * 1.0
    y.backward()
    assert x.grad.item() == 1.0


def test_graph_is_freed_by_reference_counting():
    # no reference cycles: nodes never hold their outputs
    class Double(numtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2

    x = _leaf(3)
    was = gc.isenabled()
    gc.disable()
    try:
        y = Double.apply(x.exp().tanh()) * x
        refs = [weakref.ref(t) for t in (y, y.grad_fn)]
        node = y.grad_fn
        while node is not None and node.next_functions:
            refs.append(weakref.ref(node))
            node = node.next_functions[0][0]
        del node
        y.sum().backward(retain_graph=True)
        del y
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        if was:
            gc.enable()


def test_fast_paths_pack_through_saved_tensors_hooks(torch):
    # with saved-tensor hooks active, the fast paths must pack through them too
    def fn(lib):
        packed = []

        def pack(t):
            packed.append(tuple(t.shape))
            return t * 1

        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        w = lib.tensor([1.5, 2.0, -0.5], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = (lib.sin(x) * w + x.exp() * 2.0).tanh()
        y.sum().backward()
        return len(packed), x.grad, w.grad
    check_same(fn)


def _slots_set(node):
    names = {s for k in type(node).__mro__ for s in getattr(k, "__slots__", ())
             if s not in ("__dict__", "__weakref__")}
    return {s for s in names if hasattr(node, s)}


class _Double(numtorch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


@pytest.mark.parametrize("make", [
    lambda x, y: x.sin(), lambda x, y: x.exp(), lambda x, y: -x, lambda x, y: x * 1.5,
    lambda x, y: x + 1, lambda x, y: x * y, lambda x, y: x + y, lambda x, y: _Double.apply(x)],
    ids=["sin", "exp", "neg", "mul-number", "add-number", "mul", "add", "custom"])
def test_fast_nodes_set_every_slot_the_general_init_sets(make):
    # record_unary, record_binary and Function.apply inline _init_ctx and _init_node:
    # a slot added there must be set by them too
    x, y = _leaf(3) * 1, _leaf(3, seed=1)
    node = make(x, y).grad_fn
    ref = object.__new__(type(node))
    ref._init_ctx()
    ref._init_node(())
    assert _slots_set(ref) <= _slots_set(node)


def test_chain_nodes_share_their_metadata():
    # fewer objects for the garbage collector: a chain of same-shaped ops shares one
    # (shape, dtype) tuple instead of building its own per node
    x = _leaf(4)
    y = _Double.apply(((x * 1.5).sin().tanh() + 1.0).exp())
    nodes = []
    node = y.grad_fn
    while node.next_functions:
        nodes.append(node)
        node = node.next_functions[0][0]
    metas = {id(n._out_meta) for n in nodes} | {id(n._in_meta) for n in nodes
                                                if len(n._in_meta) == 1}
    assert len(metas) == 1


def test_chain_root_that_also_gets_a_gradient_from_another_root(torch):
    # a root with its own seed gradient is also the child of another root: the chain
    # shortcut must not skip the buffered seed
    def fn(lib):
        x = lib.tensor([0.5, -1.0], requires_grad=True)
        y = (x * 3.0).sin()
        z = (y * 2.0).exp()
        lib.autograd.backward([z, y], [lib.ones(2), lib.full((2,), 0.5)])
        return x.grad
    check_same(fn)


def test_anomaly_mode_records_fast_path_nodes():
    # record_unary / record_binary / Function.apply inline _init_node, but call it while anomaly
    # mode has swapped it for its recording version
    x = _leaf(3)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"), \
            numtorch.autograd.detect_anomaly():
        for node in ((x * 2.0).grad_fn, x.sin().grad_fn, (x * x).grad_fn,
                     _Double.apply(x).grad_fn):
            assert "traceback_" in node.metadata


def _made_leaf():
    """A leaf made by Tensor._make (an op's output, detached): nothing in its _extra yet."""
    t = (numtorch.arange(3.0) * 2).detach().requires_grad_()
    assert t._extra is None
    return t


def test_a_leaf_keeps_its_accumulator_and_hooks_in_extra():
    # (a leaf's AccumulateGrad and tensor hooks are not Tensor slots: see Tensor._edge)
    t = _made_leaf()
    (t * t).sum().backward()
    assert t.grad.tolist() == [0.0, 4.0, 8.0] and t._leaf_hooks() is None
    node = (t * 1).grad_fn.next_functions[0][0]
    assert t._extra["acc"]() is node and (t + 1).grad_fn.next_functions[0][0] is node
    t2 = _made_leaf()
    seen = []
    t2.register_hook(lambda g: seen.append(g.tolist()))
    (t2 * 3).sum().backward()
    assert seen == [[3.0, 3.0, 3.0]] and t2.grad.tolist() == [3.0, 3.0, 3.0]
    t3 = _made_leaf()
    t3.register_hook(lambda g: g * 0)  # a hook on a leaf used in two graphs
    for _ in range(2):
        (t3 * 3).sum().backward()
    assert t3.grad.tolist() == [0.0, 0.0, 0.0]


def test_a_leaf_copies_and_pickles_without_its_accumulator():
    import copy
    import pickle
    t = _made_leaf()
    (t * 1).sum().backward()
    for c in (copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
        assert c.tolist() == t.tolist() and c.requires_grad and not vars(c)


@pytest.mark.parametrize("make", [lambda x: x * 2.0, lambda x: x + x, lambda x: 2 * x],
                         ids=["mul-number", "add", "rmul"])
def test_operator_results_set_every_slot_make_sets(make):
    # the operators' fast path inlines Tensor._make: a slot added there must be set there too
    x = numtorch.arange(3.0)
    out = make(x)
    ref = numtorch.Tensor._make(out._data, None, False)
    assert _slots_set(ref) <= _slots_set(out)
    assert all(getattr(out, s) == getattr(ref, s) for s in _slots_set(ref) if s != "_data")


def test_one_input_nodes_share_the_needs_singleton():
    # the engine skips its gradient check for a one-input node by testing needs_input_grad
    # for identity with one tuple: the general paths hand that tuple out too
    from numtorch.autograd.function import _TRUE1

    class Scale(numtorch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2.0

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2.0

    x = _leaf(3)
    for y in (_Double.apply(x), Scale.apply(x), x.sin(), x * 2.0, x.sum(), x.reshape(3, 1),
              numtorch.cumsum(x, 0)):
        assert y.grad_fn.needs_input_grad != (True,) or y.grad_fn.needs_input_grad is _TRUE1


def _save_input(lib):
    class SaveInput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x
    return SaveInput


@pytest.mark.parametrize("op", ["sin", "custom"])
def test_compact_saved_input_keeps_every_check(torch, op):
    # one input saved as it is is kept as the tensor itself (graph.saved_entries): the
    # version check, the freed check and retain_graph behave as with an entry tuple
    def make(lib, x):
        return x.sin() if op == "sin" else _save_input(lib).apply(x)

    def modified(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True) * 1
        y = make(lib, x)
        x.mul_(2)
        y.sum().backward()

    def twice(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = make(lib, x).sum()
        y.backward()
        y.backward()

    def retained(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = make(lib, x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad

    check_error(modified)
    check_error(twice)
    check_same(retained)
    x = numtorch.tensor([0.5, 1.0], requires_grad=True)
    node = make(numtorch, x).grad_fn
    assert node._saved is x and saved_entries(node) == ((0, x, 0),)
    raw, = node._raw_saved_tensors
    raw.register_hooks(lambda t: t * 10, lambda t: t)
    assert node.saved_tensors[0].tolist() == [5.0, 10.0]


# ---- F.linear's recording (ops.linalg._record_linear) ------------------------------------
def _linear_summary(t):
    """_node_summary of an addmm output, its TBackward0 input node summarised in place of its
    identity, and that view's own slots (version counter shared with the weight)."""
    s = list(_node_summary(t))
    attrs = {k: getattr(t.grad_fn, k) for k in dir(t.grad_fn) if k.startswith("_saved_")}
    s.append({k: (v._data.shape, v._data.strides) if isinstance(v, numtorch.Tensor) else v
              for k, v in attrs.items()})
    tnode, nr = t.grad_fn.next_functions[2]
    wt = t.grad_fn.saved_tensors[1]
    tsum = (type(tnode).__name__, tuple((id(n) if n is not None else None, k)
                                        for n, k in tnode.next_functions),
            tnode._in_meta, tnode._out_meta, tnode.needs_input_grad, dict(tnode.__dict__),
            tnode._saved)
    s[1] = s[1][:2] + ((tsum, nr),)
    # kinds and versions (the weight's view is saved only when the input needs a gradient)
    s[5] = tuple(e and e[:1] + (e[2],) for e in saved_entries(t.grad_fn))
    view = wt is not None and (id(wt._base), wt._view, wt._view_ver, wt._vc is wt._base._vc,
                               wt._data.strides, wt._extra)
    return tuple(s), view, tnode._seq < t.grad_fn._seq


LINEAR_CASES = {
    "input-no-grad": lambda x, w, b: (x.detach(), w, b),
    "input-leaf": lambda x, w, b: (x.detach().requires_grad_(), w, b),
    "input-node": lambda x, w, b: (x * 2, w, b),
    "input-view": lambda x, w, b: ((x * 2)[1:], w, b),
    "bias-no-grad": lambda x, w, b: (x * 2, w, b.detach()),
    "weight-node": lambda x, w, b: (x.detach(), w * 1, b),
    "float64": lambda x, w, b: (x.detach().double(), w.double(), b.double()),
}


@pytest.mark.parametrize("case", list(LINEAR_CASES))
def test_linear_records_what_addmm_records(case):
    F = numtorch.nn.functional
    x, w, b = _leaf(4, 3), _leaf(2, 3, seed=1), _leaf(2, seed=2)
    x, w, b = LINEAR_CASES[case](x, w, b)
    fast = F.linear(x, w, b)
    general = numtorch.ops.linalg.Addmm.apply(b, x, w.t(), 1, 1)
    assert _linear_summary(fast) == _linear_summary(general)
    np.testing.assert_array_equal(fast._data, general._data)
    for g in (fast, general):
        g.sum().backward(retain_graph=True)  # (the two share the input's graph)
    assert fast.grad_fn.next_functions[2][0]._saved == ()


def test_linear_node_sets_every_slot_the_general_init_sets():
    x, w, b = _leaf(4, 3) * 1, _leaf(2, 3, seed=1), _leaf(2, seed=2)
    node = numtorch.nn.functional.linear(x, w, b).grad_fn
    for n in (node, node.next_functions[2][0]):
        ref = object.__new__(type(n))
        ref._init_ctx()
        ref._init_node(())
        assert _slots_set(ref) <= _slots_set(n)


def _linear_step(lib, mode):
    """A linear layer under each recording context the fast path leaves to the general one."""
    lib.manual_seed(0)
    lin = lib.nn.Linear(3, 2)
    x = lib.randn(4, 3, requires_grad=True)
    if mode == "anomaly":
        with lib.autograd.detect_anomaly():
            y = lin(x)
    elif mode == "hooks":
        seen = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t.shape) or t,
                                                    lambda t: t):
            y = lin(x)
        assert len(seen) == 2
    elif mode == "half":
        lin = lin.half()
        y = lin(x.detach().half())
    elif mode == "inference":
        with lib.inference_mode():
            x = lib.randn(4, 3)
        y = lin(x)
    else:
        y = lin(x)
    y.pow(2).sum().backward()
    nodes = [type(n).__name__ for n, _ in y.grad_fn.next_functions]
    return y, lin.weight.grad, lin.bias.grad, nodes, [type(n).__name__ for n, _ in
                                                     y.grad_fn.next_functions[2][0]
                                                     .next_functions]


@pytest.mark.parametrize("mode", ["plain", "anomaly", "hooks", "half", "inference"])
def test_linear_matches_torch_in_every_recording_mode(torch, mode):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # detect_anomaly's warning
        # (an inference tensor cannot be saved: PyTorch's error)
        check = check_error if mode == "inference" else check_same
        check(lambda lib: _linear_step(lib, mode))


@pytest.mark.parametrize("op", ["linear", "addmm", "mm"])
def test_product_saves_an_operand_only_for_the_others_gradient(torch, op):
    # as PyTorch: the weight (its view) is saved only when the input needs a gradient, so
    # changing it in place before backward is an error only then
    def fn(lib, input_grad):
        lib.manual_seed(0)
        lin = lib.nn.Linear(3, 2)
        x = lib.randn(4, 3, requires_grad=input_grad)
        if op == "linear":
            y = lin(x)
        elif op == "addmm":
            y = lib.addmm(lin.bias, x, lin.weight.t())
        else:
            y = x.mm(lin.weight.t())
        g = y.grad_fn
        saved = (g._saved_mat1, g._saved_mat2) if op != "mm" else (g._saved_self, g._saved_mat2)
        with lib.no_grad():
            lin.weight.mul_(2)
        y.pow(2).sum().backward()
        return lin.weight.grad, saved
    check_same(lambda lib: fn(lib, False))
    check_error(lambda lib: fn(lib, True))


# ---- array backwards declared exact (BuiltinFunction._np_exact) ---------------------------
def _exact_cases():
    t = numtorch.tensor
    F = numtorch.nn.functional
    x = _leaf(4, 3) * 1
    w = _leaf(3, 5, seed=1)
    yield "addmm-row-bias", lambda: numtorch.addmm(_leaf(5, seed=2), x, w)
    yield "addmm-full-bias", lambda: numtorch.addmm(_leaf(4, 5, seed=2), x, w, beta=0.5,
                                                    alpha=2.0)
    yield "addmm-scalar-bias", lambda: numtorch.addmm(_leaf(seed=2), x, w)
    yield "addmm-column-bias", lambda: numtorch.addmm(_leaf(4, 1, seed=2), x.detach(), w)
    yield "addmm-float64", lambda: numtorch.addmm(_leaf(5, dtype=numtorch.float64), x.double(),
                                                  w.double())
    yield "linear", lambda: F.linear(x, _leaf(5, 3, seed=3), _leaf(5, seed=4))
    yield "t", lambda: x.t()
    yield "transpose-3d", lambda: _leaf(2, 3, 4).transpose(0, 2)
    yield "t-0d", lambda: _leaf().t()
    for red in ("mean", "sum", "none"):
        yield f"nll-{red}", lambda red=red: F.nll_loss(x, t([0, 2, 1, 1]), reduction=red)
        yield f"cross-entropy-{red}", lambda red=red: F.cross_entropy(x, t([0, 2, 1, 1]),
                                                                      reduction=red)
    for dim in (0, 1, -1):
        yield f"softmax-{dim}", lambda dim=dim: x.softmax(dim)
        yield f"log-softmax-{dim}", lambda dim=dim: F.log_softmax(x, dim)
    yield "log-softmax-dtype", lambda: F.log_softmax(x, 1, dtype=numtorch.float64)


@pytest.mark.parametrize("name,make", list(_exact_cases()), ids=[n for n, _ in _exact_cases()])
def test_exact_array_backward_passes_the_check_it_skips(name, make):
    # every gradient tuple an exact array backward returns is one the engine's check
    # (function._all_fine: per input, None or its shape and dtype) accepts as it is
    from numtorch.autograd.function import _all_fine
    out = make()
    node = out.grad_fn
    while not type(node)._np_exact:  # (cross_entropy: log_softmax, then nll_loss)
        node = node.next_functions[0][0]
    rng = np.random.default_rng(0)
    d = rng.standard_normal(node._out_meta[0][0]).astype(node._out_meta[0][1].np)
    outs = node._np_fast(node, d)
    assert outs is not NotImplemented
    assert type(outs) is tuple and _all_fine(node, outs) is not None
    edges = len(node.next_functions)
    assert all(g is None for g in outs[edges:])


def test_exact_is_lost_with_the_array_backward():
    from numtorch.ops import linalg, shape

    class MyT(shape.Transpose):
        @staticmethod
        def backward(ctx, g):
            return g.transpose(ctx.d0, ctx.d1), None, None

    assert type(_leaf(2, 3).t().grad_fn)._np_exact
    assert not MyT._backward_cls._np_exact and MyT._backward_cls._np_fast is None
    # a broadcasting matmul's gradients need the engine's reduction: not declared exact
    assert not linalg.MatmulND._backward_cls._np_exact
    assert not linalg.Mm._backward_cls._np_exact
