"""In-place ops and autograd: version counters, PyTorch's errors, differentiable in-place
changes of non-leaf tensors and of views (CopySlices), and ``x[idx] = v``."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, check_same_outcome, numerical_grad_check


def _leaf(lib, values=(1.5, -2.0, 3.0, 0.5)):
    return lib.tensor(values, requires_grad=True)


def _leaf2d(lib):
    return lib.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)


# ---- version counters ----------------------------------------------------------------------
INPLACE_OPS = [
    ("add_", lambda x: x.add_(1)), ("add_-alpha", lambda x: x.add_(x.detach(), alpha=2)),
    ("sub_", lambda x: x.sub_(0.5)), ("mul_", lambda x: x.mul_(3)),
    ("div_", lambda x: x.div_(4)), ("pow_", lambda x: x.pow_(2)),
    ("neg_", lambda x: x.neg_()), ("exp_", lambda x: x.exp_()), ("abs_", lambda x: x.abs_()),
    ("clamp_", lambda x: x.clamp_(-1, 1)), ("clamp_min_", lambda x: x.clamp_min_(0)),
    ("zero_", lambda x: x.zero_()), ("fill_", lambda x: x.fill_(7)),
    ("fill_-tensor", lambda x: x.fill_(x.detach().sum())),
    ("copy_", lambda x: x.copy_(x.detach() * 2)),
    ("copy_-broadcast", lambda x: x.copy_(x.detach()[:1].clone())),
    ("iadd", lambda x: x.__iadd__(2)), ("imul", lambda x: x.__imul__(x.detach().clone())),
    ("clamp_max_", lambda x: x.clamp_max_(1)),
    ("clamp_min_-tensor", lambda x: x.clamp_min_(x.detach().flip(0))),
    ("setitem-int", lambda x: x.__setitem__(0, 9.0)),
    ("setitem-slice", lambda x: x.__setitem__(slice(1, 3), 0.25)),
    ("setitem-list", lambda x: x.__setitem__([0, 2], 5.0)),
    ("setitem-mask", lambda x: x.__setitem__(x.detach() > 0, -1.0)),
    ("masked_fill_", lambda x: x.masked_fill_(x.detach() < 0, 0.0)),
    ("sigmoid_", lambda x: x.sigmoid_()), ("tanh_", lambda x: x.tanh_()),
    ("relu_", lambda x: x.relu_()), ("sqrt_", lambda x: x.abs_().sqrt_()),
]


@pytest.mark.parametrize("op", [o[1] for o in INPLACE_OPS], ids=[o[0] for o in INPLACE_OPS])
def test_inplace_value_version_and_grad(torch, op):
    def fn(lib):
        a = _leaf(lib)
        x = a * 1
        view = x[1:]
        before = x._version
        out = op(x)
        x_version, view_version = x._version, view._version
        (x * lib.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return (out is x, x, before, x_version, view_version, x.grad_fn.name(), a.grad)
    check_same(fn)


@pytest.mark.parametrize("op", [o[1] for o in INPLACE_OPS], ids=[o[0] for o in INPLACE_OPS])
def test_inplace_without_grad(torch, op):
    def fn(lib):
        x = lib.tensor([1.5, -2.0, 3.0, 0.5])
        out = op(x)
        return out is x, x, x._version, x.requires_grad
    check_same(fn)


# ---- errors --------------------------------------------------------------------------------
ERRORS = [
    ("leaf", lambda lib: _leaf(lib).add_(1)),
    ("leaf-setitem", lambda lib: _leaf(lib).__setitem__(0, 1.0)),
    ("leaf-view", lambda lib: _leaf(lib)[1:].mul_(2)),
    ("leaf-view-setitem", lambda lib: _leaf2d(lib)[0].__setitem__(1, 5.0)),
    ("leaf-zero_", lambda lib: _leaf(lib).zero_()),
    ("leaf-copy_", lambda lib: _leaf(lib).copy_(lib.ones(4))),
    ("int-result-into-int", lambda lib: lib.ones(3, dtype=lib.int64).add_(1.5)),
    ("float-into-bool", lambda lib: lib.ones(3, dtype=lib.bool).mul_(2.5)),
    ("broadcast-shape", lambda lib: lib.ones(3).add_(lib.ones(2, 3))),
    ("copy-shape", lambda lib: lib.ones(3).copy_(lib.ones(4))),
    ("setitem-shape", lambda lib: lib.ones(2, 3).__setitem__(0, lib.ones(4))),
    ("setitem-adv-shape", lambda lib: lib.ones(4).__setitem__([0, 1], lib.ones(3))),
    ("expanded", lambda lib: lib.ones(1, 3).expand(2, 3).add_(1)),
    ("copy-partial-overlap", lambda lib: (lambda x: x.copy_(x[:1]))(lib.arange(4.0))),
    ("add-partial-overlap", lambda lib: (lambda x: x[1:].add_(x[:-1]))(lib.arange(4.0))),
    ("unbind-output", lambda lib: (_leaf2d(lib) * 1).unbind(0)[1].mul_(2)),
    ("split-output", lambda lib: (_leaf2d(lib) * 1).split(1)[0].add_(1)),
    ("split-sizes-output", lambda lib: (_leaf2d(lib) * 1).split([1, 2], 1)[1].zero_()),
    ("chunk-output-view", lambda lib: (_leaf2d(lib) * 1).chunk(2)[1][0].exp_()),
    ("iter-row", lambda lib: list(_leaf2d(lib) * 1)[0].mul_(2)),
    ("setitem-leading-dims", lambda lib: lib.ones(2, 3).__setitem__(0, lib.ones(2, 3))),
    ("masked-fill-mask-dtype", lambda lib: lib.ones(3).masked_fill_(lib.ones(3), 0.0)),
]


@pytest.mark.parametrize("fn", [e[1] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_inplace_errors(torch, fn):
    check_error(fn)


def test_leaf_inplace_allowed_under_no_grad(torch):
    def fn(lib):
        x = _leaf(lib)
        with lib.no_grad():
            x.mul_(2)
            x[0] = 10.0
        (x * x).sum().backward()
        return x, x.grad, x.is_leaf, x._version
    check_same(fn)


SAVED = [
    ("mul", lambda x: x * x), ("exp-output", lambda x: x.exp()),
    ("sigmoid-output", lambda x: x.sigmoid()), ("sin", lambda x: x.sin()),
    ("pow", lambda x: x ** 3), ("matmul", lambda x: x.view(2, 2) @ x.view(2, 2)),
    ("div", lambda x: 1 / x),
]


@pytest.mark.parametrize("op", [s[1] for s in SAVED], ids=[s[0] for s in SAVED])
def test_saved_tensor_modified_in_place(torch, op):
    """An error where the op saved its input; the right gradient where it saved its output."""
    def fn(lib):
        a = _leaf(lib)
        x = a * 1
        y = op(x)
        x.add_(1)
        y.sum().backward()
        return a.grad
    check_same_outcome(fn)


@pytest.mark.parametrize("op", [("exp_", lambda y: y.exp_()), ("sigmoid_", lambda y: y.sigmoid_()),
                                ("tanh_", lambda y: y.tanh_())], ids=lambda o: o[0])
def test_output_of_inplace_op_modified_again(torch, op):
    def fn(lib):
        y = _leaf(lib) * 1
        op[1](y)
        y.mul_(2)
        y.sum().backward()
    check_error(fn)


@pytest.mark.parametrize("op", [("exp_", lambda y: y.exp_()), ("sqrt_", lambda y: y.sqrt_())],
                         ids=lambda o: o[0])
def test_output_of_inplace_op_on_view_modified_again(torch, op):
    def fn(lib):
        a = _leaf(lib)
        y = a.abs() + 1
        op[1](y[1:])
        (y * y).sum().backward()
        return a.grad
    check_same(fn)


def test_saved_output_modified_in_place(torch):
    def fn(lib):
        y = _leaf(lib).exp()
        y.add_(1)
        y.sum().backward()
    check_error(fn)


def test_saved_tensor_modified_through_view(torch):
    def fn(lib):
        x = _leaf(lib) * 1
        y = x * x
        x[1:].mul_(2)
        y.sum().backward()
    check_error(fn)


def test_unsaved_input_may_change(torch):
    def fn(lib):
        a = _leaf(lib)
        x = a * 1
        y = x + 2  # add saves nothing: changing x afterwards is fine
        x.mul_(5)
        (y * 3).sum().backward()
        return a.grad, y
    check_same(fn)


# ---- in-place through views (CopySlices) ----------------------------------------------------
VIEW_CASES = [
    ("slice-mul", lambda x: x[1:].mul_(2)),
    ("select-add", lambda x: x[0].add_(x[1].detach())),
    ("row-exp", lambda x: x.view(2, 2)[1].exp_()),
    ("transpose-mul", lambda x: x.view(2, 2).t().mul_(lib_tensor(x, [[1.0, 2.0],
                                                                       [3.0, 4.0]]))),
    ("chain", lambda x: x.view(2, 2)[:, 1:].squeeze(1).unsqueeze(0).mul_(3)),
    ("diagonal", lambda x: x.view(2, 2).diagonal().mul_(-1)),
    ("two-views", lambda x: (x[:2].mul_(2), x[2:].add_(1))),
    ("view-of-view-then-base", lambda x: (x[1:][1:].mul_(4), x.mul_(2))),
    ("copy_-into-view", lambda x: x[1:3].copy_(x.detach()[:2] * 10)),
    ("zero_-view", lambda x: x[::2].zero_()),
    ("unbind-no-grad-base", lambda x: x.detach().view(2, 2).unbind(0)[1].mul_(7)),
    ("narrow", lambda x: x.narrow(0, 1, 2).pow_(2)),
    ("expand-source", lambda x: x.view(2, 2)[0].add_(x.detach()[:1].expand(2).clone())),
    ("tensor-split", lambda x: x.tensor_split(2)[1].mul_(3)),
    ("bool-index", lambda x: x[True].mul_(2)),
]


def lib_tensor(like, values):
    lib = numtorch if isinstance(like, numtorch.Tensor) else __import__("torch")
    return lib.tensor(values)


@pytest.mark.parametrize("op", [v[1] for v in VIEW_CASES], ids=[v[0] for v in VIEW_CASES])
def test_inplace_through_views(torch, op):
    def fn(lib):
        a = _leaf(lib)
        x = a * 1
        v = x[1:]  # a view made before the change: its grad_fn is regenerated
        op(x)
        loss = (x * lib.tensor([1.0, -2.0, 3.0, 0.5])).sum() + (v * v).sum()
        (g,) = lib.autograd.grad(loss, a, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), a, allow_unused=True)
        return x, v, g, gg, x.grad_fn.name(), v.grad_fn.name(), x._version
    check_same(fn)


def test_view_of_view_modified_through_custom_function(torch):
    def fn(lib):
        class Scale_(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.k = k
                ctx.mark_dirty(x)
                return x.mul_(k)

            @staticmethod
            def backward(ctx, g):
                return g * ctx.k, None
        a = _leaf(lib)
        base = a * 1
        Scale_.apply(base.view(2, 2)[1], 3.0)
        base.sum().backward()
        return base, a.grad, base.grad_fn.name()
    check_same(fn)


def test_view_grad_fn_regenerated_after_base_change(torch):
    def fn(lib):
        a = _leaf(lib)
        x = a * 1
        v = x[:2]
        name_before = v.grad_fn.name()
        x.mul_(2)
        (v * v).sum().backward()
        return name_before, v.grad_fn.name(), v, a.grad
    check_same(fn)


def test_view_of_non_grad_base_gets_history(torch):
    def fn(lib):
        a = _leaf(lib)
        base = lib.zeros(4)
        v = base[1:3]
        before = v.requires_grad
        base.copy_(a * 2)
        after = v.requires_grad
        (v * 3).sum().backward()
        return before, after, v.grad_fn.name(), base.grad_fn.name(), a.grad
    check_same(fn)


def test_inplace_on_leaf_view_under_no_grad(torch):
    def fn(lib):
        a = _leaf(lib)
        v = a[1:]
        with lib.no_grad():
            v.mul_(2)
        (v * a[1:]).sum().backward()
        return a, a.grad, v.grad_fn.name()
    check_same(fn)


# ---- x[idx] = v ----------------------------------------------------------------------------
SETITEM = [
    ("int", 1, "tensor0d"), ("negative", -1, "scalar"), ("slice", slice(0, 2), "row"),
    ("step", slice(None, None, 2), "scalar"), ("ellipsis", (Ellipsis, 1), "col"),
    ("tuple", (1, slice(1, 3)), "pair"), ("none", (None, 0), "row3"),
    ("list", [0, 2], "rows2"), ("tensor-index", "long", "rows2"),
    ("mask", "mask", "scalar"), ("mask-values", "mask", "masked"),
    ("adv-pair", ([0, 1], [2, 0]), "pair"), ("adv-mixed", (slice(None), [0, 2]), "col2"),
    ("duplicate-index", ([0, 0],), "rows2"), ("bool-scalar", (True,), "scalar"),
]


def _key(lib, key):
    if key == "long":
        return lib.tensor([2, 0])
    if key == "mask":
        return lib.tensor([[True, False, True, False], [False, True, True, False],
                           [True, True, False, False]])
    return key


def _value(lib, kind):
    w = lib.tensor([0.5, -1.5, 2.0, 3.0, -0.25, 1.25], requires_grad=True)
    return w, {"tensor0d": w[0] * 2, "scalar": 4.5, "row": w[:4], "col": w[:3],
               "pair": w[:2], "row3": w[2:6], "rows2": w[:4] * 3, "masked": w[:6],
               "col2": w[:6].view(3, 2)}[kind]


@pytest.mark.parametrize("key, value", [s[1:] for s in SETITEM], ids=[s[0] for s in SETITEM])
def test_setitem_differentiable(torch, key, value):
    def fn(lib):
        a = lib.arange(12.0).view(3, 4).requires_grad_()
        x = a * 1
        w, v = _value(lib, value)
        x[_key(lib, key)] = v
        loss = (x * x).sum()
        ga, gw = lib.autograd.grad(loss, [a, w], create_graph=True, allow_unused=True,
                                   materialize_grads=True)
        (gga,) = lib.autograd.grad((ga * ga).sum() + (gw * gw).sum(), a, allow_unused=True)
        return x, ga, gw, gga, x.grad_fn.name(), x._version
    check_same(fn)


def test_setitem_on_view_of_non_leaf(torch):
    def fn(lib):
        a = lib.arange(12.0).view(3, 4).requires_grad_()
        x = a * 1
        row = x[1]
        row[[0, 3]] = lib.tensor([10.0, 20.0])
        row[1:3] = 0.5
        (x.exp() * 0.01).sum().backward()
        return x, a.grad, x.grad_fn.name(), row.grad_fn.name()
    check_same(fn)


def test_setitem_numerically():
    def f(x):
        y = x * 1
        y[0, 1:] = y[1, :2].clone() * y[0, 0].clone()
        y[[1, 1], [0, 2]] = y[0, 0].exp()
        return y * y
    numerical_grad_check(f, [np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])])


def test_inplace_chain_numerically():
    def f(x):
        y = x * 2
        y[1:].mul_(y[:-1].clone() + 1)
        y.exp_()
        return y.view(2, 2).t().contiguous()
    numerical_grad_check(f, [np.array([0.1, -0.3, 0.2, 0.4])])


def test_inference_tensor_flags_and_errors():
    def made(lib):
        with lib.inference_mode():
            return lib.ones(2) * 2
    check_same(lambda lib: (made(lib).is_inference(), lib.ones(1).is_inference(),
                            made(lib).requires_grad, lib.ones(2)[0]._is_view()))
    check_error(lambda lib: made(lib).requires_grad_())
    check_error(lambda lib: made(lib).add_(1))
    check_error(lambda lib: made(lib) * lib.ones(2, requires_grad=True))


def test_version_counter_is_made_when_first_needed(torch):
    # an op's output has no counter list until something shares or bumps it (Tensor._vc):
    # the versions, and their sharing by views and detached aliases, are PyTorch's
    def fn(lib):
        x = lib.ones(3) * 2
        fresh = x._version
        v, d = x[1:], x.detach()
        x.add_(1)
        d.mul_(2)
        v.sub_(1)
        y = lib.ones(2) + 0
        return [fresh, x._version, v._version, d._version, y._version, x.tolist()]
    check_same(fn)
    x = numtorch.ones(3) * 2
    assert x._vcs is None
    v = x[1:]
    assert x._vcs is not None and v._vc is x._vc
