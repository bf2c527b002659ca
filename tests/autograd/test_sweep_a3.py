"""Regression tests of the autograd conformance sweep A3, each against PyTorch: what ops save
(an in-place change of an operand whose gradient is not needed does not fail backward),
cdist/dist as single nodes, views made in no_grad mode, retain_grad across in-place changes,
backward(inputs=[non-leaf]), ``grad_fn._saved_*`` attributes, ``torch.vmap``."""
import pytest

import numtorch
from helpers import check_error, check_same, check_same_outcome, numerical_grad_check


def _pair(lib, rg_a, rg_b):
    a = lib.tensor([1.5, -2.0, 3.0], requires_grad=rg_a)
    b = lib.tensor([0.5, 4.0, -1.0], requires_grad=rg_b)
    return a, b


# ---- only what the gradient needs is saved -------------------------------------------------
SAVING = [
    ("hypot-a", lambda lib, a, b: lib.hypot(a, b), (True, False), "b"),
    ("hypot-b", lambda lib, a, b: lib.hypot(a, b), (False, True), "a"),
    ("fmod-scalar", lambda lib, a, b: lib.fmod(a, 2.0), (True, False), "a"),
    ("fmod-a", lambda lib, a, b: lib.fmod(a, b), (True, False), "b"),
    ("fmod-a-self", lambda lib, a, b: lib.fmod(a, b), (True, False), "a"),
    ("fmod-b", lambda lib, a, b: lib.fmod(a, b), (False, True), "a"),
    ("copysign-b", lambda lib, a, b: lib.copysign(a, b), (False, True), "a"),
    ("copysign-a", lambda lib, a, b: lib.copysign(a, b), (True, False), "a"),
    ("kron-a", lambda lib, a, b: lib.kron(a, b), (False, True), "a"),
    ("kron-b", lambda lib, a, b: lib.kron(a, b), (True, False), "b"),
    ("cdist-other", lambda lib, a, b: lib.cdist(a[None], b[None]), (True, False), "b"),
    ("dist-other", lambda lib, a, b: lib.dist(a, b), (True, False), "b"),
]


@pytest.mark.parametrize("op,needs,modified", [c[1:] for c in SAVING],
                         ids=[c[0] for c in SAVING])
def test_inplace_change_after_op(torch, op, needs, modified):
    """Backward raises the version error exactly when PyTorch saved the modified operand."""
    def fn(lib):
        a0, b0 = _pair(lib, *needs)
        a, b = (a0 * 1 if needs[0] else a0.clone()), (b0 * 1 if needs[1] else b0.clone())
        y = op(lib, a, b)
        (a if modified == "a" else b).mul_(2)
        y.sum().backward()
        return a0.grad if needs[0] else b0.grad
    check_same_outcome(fn)


# ---- cdist and dist --------------------------------------------------------------------------
CDIST = [((3, 2), (4, 2)), ((30, 3), (5, 3)), ((2, 3, 4), (5, 4)), ((2, 1, 3, 2), (4, 5, 2))]


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                  "donot_use_mm_for_euclid_dist"])
@pytest.mark.parametrize("shapes", CDIST, ids=str)
def test_cdist_values_grads_and_node(torch, shapes, mode, p):
    def fn(lib):
        g = lib.Generator().manual_seed(0)
        a = lib.randn(*shapes[0], dtype=lib.float64, generator=g).requires_grad_()
        b = lib.randn(*shapes[1], dtype=lib.float64, generator=g).requires_grad_()
        y = lib.cdist(a, b, p=p, compute_mode=mode)
        w = lib.randn(*y.shape, dtype=lib.float64, generator=g)
        (y * w).sum().backward()
        return y.grad_fn.name(), y, a.grad, b.grad
    check_same(fn)


def test_cdist_zero_distances(torch):
    def fn(lib):
        a = lib.tensor([[0., 0.], [1., 1.], [0., 0.]], requires_grad=True)
        b = lib.tensor([[0., 0.], [1., 2.]], requires_grad=True)
        out = []
        for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
            y = lib.cdist(a, b, compute_mode=mode)
            ga, gb = lib.autograd.grad(y.sum(), (a, b))
            out += [y, ga, gb]
        return out
    check_same(fn)


def test_cdist_mm_path_second_derivative_numerically():
    # (numtorch differentiates cdist twice on either path; PyTorch only on the mm path)
    a = numtorch.tensor([[0.3, -1.0], [2.0, 0.5]], dtype=numtorch.float64)
    b = numtorch.tensor([[1.0, 1.0], [-0.5, 0.2], [0.0, 3.0]], dtype=numtorch.float64)
    numerical_grad_check(lambda x, y: numtorch.cdist(x, y, compute_mode="use_mm_for_euclid_dist"),
                         [a, b], order=2)


@pytest.mark.parametrize("case", [
    lambda lib: lib.cdist(lib.ones(2, 2), lib.ones(2, 2, dtype=lib.int64)),
    lambda lib: lib.cdist(lib.ones(2, 2, dtype=lib.float64), lib.ones(2, 2)),
    lambda lib: lib.cdist(lib.ones(2, 2), lib.ones(2, 2), compute_mode="foo"),
    lambda lib: lib.dist(lib.ones(2, dtype=lib.int64), lib.zeros(2, dtype=lib.int64)),
])
def test_cdist_dist_errors(torch, case):
    check_error(case)


@pytest.mark.parametrize("p", [1, 2, 3, float("inf")])  # (p=0: PyTorch fails)
def test_dist_node_value_and_grads(torch, p):
    def fn(lib):
        a, b = _pair(lib, True, True)
        y = lib.dist(a, b[:1], p)
        y.backward()
        return y.grad_fn.name(), y, a.grad, b.grad
    check_same(fn)


# ---- views made in no_grad mode ------------------------------------------------------------
def test_no_grad_view_requires_grad_and_prints_so(torch):
    def fn(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        with lib.no_grad():
            v, w, d = x[0], x.view(3, 1), x.detach()[1:]
        with lib.inference_mode():
            i = x[1:]
        q = v * 2
        q.backward()  # v has no accumulator: nothing reaches x or v
        return (repr(v), repr(w), v.requires_grad, v.is_leaf, v.grad_fn is None,
                d.requires_grad, i.requires_grad, repr(q), v.grad, x.grad)
    check_same(fn, exact=True)


@pytest.mark.parametrize("make,change", [
    ("leaf", lambda v, lib: v.mul_(2)),
    ("nonleaf", lambda v, lib: v.add_(1)),
    ("nonleaf", lambda v, lib: v.copy_(lib.zeros(2))),
    ("nonleaf", lambda v, lib: v.view(2)[0].mul_(2)),   # a view of the view, made with grad
    ("inference", lambda v, lib: v.mul_(2)),
])
def test_no_grad_view_inplace_error(torch, make, change):
    def fn(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        base = x if make == "leaf" else x * 1
        with (lib.inference_mode() if make == "inference" else lib.no_grad()):
            v = base[1:]
        change(v, lib)
    check_error(fn)


def test_no_grad_view_inplace_inside_no_grad_is_allowed(torch):
    def fn(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        b = x * 1
        with lib.no_grad():
            v = b[1:]
            v.mul_(2)
        return b.detach(), x.grad
    check_same(fn)


# ---- retain_grad and in-place changes -------------------------------------------------------
def test_retain_grad_follows_inplace_changes(torch):
    def fn(lib):
        a = lib.tensor([1., 2.], requires_grad=True)
        b = a * 2
        b.retain_grad()
        b.mul_(3)
        b.sum().backward()
        c = a * 1
        c.retain_grad()
        c.add_(1)
        c.exp_()
        (c * 2).sum().backward()
        d = a.clone()
        d.retain_grad()
        d[:1].mul_(5)            # through a view: d's history gets a CopySlices node
        (d * 3).sum().backward()
        return b.grad, c.grad, d.grad, a.grad, b.retains_grad
    check_same(fn)


# ---- backward(inputs=...) with a non-leaf input ---------------------------------------------
def test_backward_inputs_non_leaf_retains_grad(torch):
    def fn(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        h = x * 3
        (h * 2).sum().backward(inputs=[h], retain_graph=True)
        first = (h.retains_grad, h.grad.clone())
        (h * 2).sum().backward()   # a later backward adds to h.grad too
        unused = x * 4
        (x * 2).sum().backward(inputs=[unused])
        return first, h.grad, unused.retains_grad, unused.grad, x.grad
    check_same(fn)


# ---- grad_fn._saved_* -----------------------------------------------------------------------
SAVED = [
    ("mul", lambda x, w, c: x * w), ("mul-const", lambda x, w, c: x * c),
    ("const-mul", lambda x, w, c: c * x), ("mul-int", lambda x, w, c: x * 2),
    ("mul-float", lambda x, w, c: x * 2.5), ("div", lambda x, w, c: x / w),
    ("div-const", lambda x, w, c: x / c), ("const-div", lambda x, w, c: c / x),
    ("div-int", lambda x, w, c: x / 2), ("add-alpha", lambda x, w, c: x.add(w, alpha=2)),
    ("sub", lambda x, w, c: x - w), ("pow", lambda x, w, c: x.pow(3)),
    ("pow-2", lambda x, w, c: x.pow(2)), ("exp", lambda x, w, c: x.exp()),
    ("log", lambda x, w, c: x.log()), ("tanh", lambda x, w, c: x.tanh()),
    ("sigmoid", lambda x, w, c: x.sigmoid()), ("relu", lambda x, w, c: x.relu()),
    ("sum", lambda x, w, c: x.sum()), ("mean", lambda x, w, c: x.mean()),
    ("view", lambda x, w, c: x.view(6)), ("mm", lambda x, w, c: x.mm(w.t())),
    ("mm-t", lambda x, w, c: x.t().mm(w)), ("softmax", lambda x, w, c: x.softmax(1)),
]


@pytest.mark.parametrize("op", [s[1] for s in SAVED], ids=[s[0] for s in SAVED])
def test_saved_attributes(torch, op):
    def fn(lib):
        x = lib.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
        w = lib.tensor([[0.5, -1., 2.], [1., 1., 1.]], requires_grad=True)
        c = lib.tensor([[2., 2., 2.], [3., 3., 3.]])
        node = op(x, w, c).grad_fn
        names = sorted(a for a in dir(node) if a.startswith("_saved_"))
        values = [getattr(node, a) for a in names]
        same = [v is x or v is w for v in values]
        return node.name(), names, values, same
    check_same(fn)


def test_saved_attributes_freed_and_modified(torch):
    def freed(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        y = x * x
        y.sum().backward()
        return y.grad_fn._saved_self

    def modified(lib):
        b = lib.tensor([1., 2.], requires_grad=True) * 1
        y = b.sin()
        b.add_(1)
        return y.grad_fn._saved_self
    check_error(freed)
    check_error(modified)


def test_torch_vmap_is_func_vmap(torch):
    check_same(lambda lib: lib.vmap(lib.dot)(lib.ones(2, 3), lib.ones(2, 3) * 2))
    assert numtorch.vmap is numtorch.func.vmap


# ---- one node for (std|var)_mean and aminmax -------------------------------------------------
@pytest.mark.parametrize("op", ["std_mean", "var_mean"])
@pytest.mark.parametrize("args,kw", [((), {}), ((1,), {}), ((0,), {"keepdim": True}),
                                     (((0, 1),), {"correction": 0})], ids=str)
def test_std_var_mean_node(torch, op, args, kw):
    def fn(lib):
        g = lib.Generator().manual_seed(0)
        x = lib.randn(3, 4, dtype=lib.float64, generator=g).requires_grad_()
        a, b = getattr(lib, op)(x, *args, **kw)
        ga, = lib.autograd.grad((a * 2 + b * 3).sum(), x)
        gm, = lib.autograd.grad(getattr(lib, op)(x, *args, **kw)[1].sum(), x)
        return a.grad_fn.name(), a.grad_fn is b.grad_fn, a, b, ga, gm
    check_same(fn)
    numerical_grad_check(lambda x: _weighted(getattr(numtorch, op)(x, *args, **kw)),
                         [numtorch.tensor([[0.5, -1., 2., 3.], [1., 0.25, -2., 1.5]],
                                          dtype=numtorch.float64)], order=2)


def _weighted(pair):
    return pair[0] * 2 + pair[1] * 3


@pytest.mark.parametrize("kw", [{}, {"dim": 1}, {"dim": 0, "keepdim": True}], ids=str)
def test_aminmax_node_with_ties(torch, kw):
    def fn(lib):
        x = lib.tensor([[1., 1., 2.], [3., 0., 3.]], requires_grad=True)
        r = lib.aminmax(x, **kw)
        (r.min * 2 + r.max * 5).sum().backward()
        return r.min.grad_fn.name(), r.min.grad_fn is r.max.grad_fn, r.min, r.max, x.grad
    check_same(fn)


@pytest.mark.parametrize("case", [
    lambda lib: lib.aminmax(lib.ones(0)),
    lambda lib: lib.std_mean(lib.tensor([3, 1, 2])),
    lambda lib: lib.var_mean(lib.tensor([3, 1, 2]), 0),
])
def test_aminmax_std_mean_errors(torch, case):
    check_error(case)


def test_mark_dirty_on_a_tensor_that_is_not_an_input(torch):
    def fn(lib):
        class Dbl(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_dirty(y)
                return y

            @staticmethod
            def backward(ctx, g):
                return g * 3
        x = lib.tensor([1., 2.], requires_grad=True)
        with pytest.warns(UserWarning, match="mark_dirty"):
            y = Dbl.apply(x)
        y.sum().backward()
        return y, y._version, x.grad
    check_same(fn)


# ---- jacfwd (vmap over jvp) of a custom Function needs a vmap rule, as in PyTorch ------------
def _square_fn(lib, vmap_rule):
    class Sq(lib.autograd.Function):
        generate_vmap_rule = vmap_rule

        @staticmethod
        def forward(x):
            return x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(inputs[0])
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            return 2 * ctx.saved_tensors[0] * g

        @staticmethod
        def jvp(ctx, t):
            return 2 * ctx.saved_tensors[0] * t
    return Sq


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")  # torch's functorch
@pytest.mark.parametrize("how", ["jacfwd", "jacrev", "hessian"])
@pytest.mark.parametrize("vmap_rule", [False, True])
def test_jacobians_of_custom_function(torch, how, vmap_rule):
    def fn(lib):
        f = _square_fn(lib, vmap_rule).apply
        x = lib.tensor([1., 2.])
        if how == "hessian":
            return lib.func.hessian(lambda x: f(x).sum())(x)
        return getattr(lib.func, how)(f)(x)
    check_same_outcome(fn)


# ---- calling a node -------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda lib, x: x.exp(), lambda lib, x: x * lib.tensor([2., 2., 2.], requires_grad=True),
    lambda lib, x: x * 2, lambda lib, x: x.sum(), lambda lib, x: x.view(3, 1),
    lambda lib, x: x[1:], lambda lib, x: x.unbind()[1],
], ids=["exp", "mul", "mul-scalar", "sum", "view", "slice", "unbind"])
def test_calling_a_node(torch, make):
    def fn(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        y = make(lib, x)
        n = len(x.unbind()) if y.grad_fn.name() == "UnbindBackward0" else 1
        g = [lib.ones_like(y) * (k + 1) for k in range(n)]
        grads = y.grad_fn(*g)
        with lib.no_grad():
            plain = y.grad_fn(*g)
        acc = lib.autograd.graph.Node  # an AccumulateGrad node accumulates into .grad
        leaf = x.exp().grad_fn.next_functions[0][0]
        assert isinstance(leaf, acc)
        return grads, plain, leaf(lib.ones(3)), x.grad
    check_same(fn)


def test_calling_a_custom_function_node_raises(torch):
    def fn(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        return Twice.apply(lib.ones(2, requires_grad=True)).grad_fn(lib.ones(2))
    check_error(fn)


def test_calling_a_node_with_a_wrong_number_of_gradients(torch):
    check_error(lambda lib: lib.ones(3, requires_grad=True).unbind()[1].grad_fn(lib.ones(())))


@pytest.mark.parametrize("case", [
    lambda lib, x: lib.autograd.grad((x * 2).sum(), [1]),
    lambda lib, x: lib.autograd.grad((x * 2).sum(), [x, None]),
    lambda lib, x: (x * 2).sum().backward(inputs=[x, "a"]),
    lambda lib, x: (x * 2).sum().backward(inputs=[lib.ones(2)]),
])
def test_inputs_argument_errors(torch, case):
    check_error(lambda lib: case(lib, lib.tensor([1., 2.], requires_grad=True)))


# ---- post-accumulate-grad hooks -------------------------------------------------------------
def test_post_accumulate_grad_hook_must_return_none(torch):
    def fn(lib):
        e = lib.tensor([1., 2.], requires_grad=True)
        e.register_post_accumulate_grad_hook(lambda p: p.grad.mul_(0.5))
        (e * 4).sum().backward()
    check_error(fn)
    check_error(lambda lib: lib.ones(2).register_post_accumulate_grad_hook(lambda p: None))


def test_no_grad_view_requires_grad_flag(torch):
    def fn(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        with lib.no_grad():
            v, w = x[:2], x[1:]
        v.requires_grad_()          # its own flag: gradients now accumulate in v.grad
        (v * 2).sum().backward()
        w.requires_grad_(False)     # still requires grad through its base
        c = w.clone()
        (w * 3).sum().backward()
        return v.grad, w.requires_grad, repr(c), w.grad, x.grad
    check_same(fn, exact=True)
