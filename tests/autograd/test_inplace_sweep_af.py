"""Sweep AF: in-place ops and views under autograd, against PyTorch.

Multi-output views (unbind/split/chunk) refused before the write and after their base
changed; unsafe_split's non-view pieces; writes into expanded tensors (fills allowed, shared
elements refused, views without shared elements written); ``out=`` dtype rules; version
counters of ``.grad``, ``as_strided_`` and the optimizers' parameters; ``.data`` setter.
"""
import warnings

import pytest

from helpers import check_error, check_same, check_same_outcome


def _y(lib):
    x = lib.ones(2, 3, requires_grad=True)
    return x, x * 2


# ---- multi-output views --------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda x, y: x.unbind(0)[0], lambda x, y: x.split(1)[0], lambda x, y: x.chunk(2, 1)[1],
    lambda x, y: y.unbind(1)[2], lambda x, y: y.split([1, 1])[0],
], ids=["leaf-unbind", "leaf-split", "leaf-chunk", "unbind", "split_with_sizes"])
def test_multi_output_view_inplace_refused_before_the_write(make):
    def run(lib):
        x, y = _y(lib)
        try:
            make(x, y).add_(1)
        except RuntimeError as e:
            return str(e), x.detach().clone(), y.detach().clone()
        return None
    check_same(run, exact=True)


def test_multi_output_view_after_base_changed():
    def grad_fn(lib, grad_mode):
        x, y = _y(lib)
        a, b = y.unbind(0)
        with lib.set_grad_enabled(grad_mode):
            y.add_(1)
        return b.grad_fn

    for mode in (True, False):
        check_error(lambda lib: grad_fn(lib, mode))

    def through_detach(lib):
        x, y = _y(lib)
        a, _ = y.split(1)
        y.detach()[1].add_(1)  # shares the version counter
        return a + 1
    check_error(through_detach)

    def printed(lib):
        x, y = _y(lib)
        a, _ = y.unbind(0)
        y.add_(1)
        return repr(a), a.requires_grad
    check_same(printed, exact=True)


def test_unsafe_split_pieces_are_not_views():
    def run(lib):
        x, y = _y(lib)
        p = y.unsafe_split(1)
        p[0].add_(1)
        q = y.unsafe_chunk(3, 1)
        (p[0].sum() + q[2].sum() * 3 + y.sum()).backward()
        return (type(p[1].grad_fn).__name__, type(p[0].grad_fn).__name__, p[0]._is_view(),
                y._version, p[0]._version, y, x.grad)
    check_same(run, exact=True)


# ---- expanded tensors ------------------------------------------------------------------------
def _expanded(lib):
    x = lib.arange(3.)
    return x, x.expand(2, 3)


@pytest.mark.parametrize("op", [
    lambda e: e.zero_(), lambda e: e.fill_(2.5), lambda e: e.index_fill_(1, e.new_tensor([0]).long(), -1.),
    lambda e: e.index_put_((e.new_tensor([0]).long(),), e.new_tensor(4.)),
    lambda e: e.__setitem__((0, 1), 5.0), lambda e: e[0].add_(1),
    lambda e: e.__setitem__(0, e.new_tensor([7., 8., 9.])),
    lambda e: e.add_(1), lambda e: e.mul_(2), lambda e: e.copy_(e.new_zeros(2, 3)),
    lambda e: e.fill_(e.new_tensor(2.)), lambda e: e.__setitem__((slice(None), 0), 9.0),
    lambda e: e.clamp_(0, 1),
], ids=["zero_", "fill_", "index_fill_", "index_put_", "setitem-element", "row-add_",
        "setitem-row", "add_", "mul_", "copy_", "fill_-tensor", "setitem-column", "clamp_"])
def test_inplace_on_expanded(op):
    def run(lib):
        x, e = _expanded(lib)
        op(e)
        return x, x._version, e._version
    check_same_outcome(run)


def test_masked_fill_on_expanded_warns_and_writes_the_selected():
    def run(lib):
        x, e = _expanded(lib)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            e.masked_fill_(e > 100, 1.0)
            e.masked_fill_(e > 1, -1.0)
        return x, [type(m.message).__name__ for m in w][:1]
    check_same(run, exact=True)


def test_out_into_expanded_refused():
    check_error(lambda lib: lib.add(lib.ones(2, 3), 1, out=lib.zeros(3).expand(2, 3)))


# ---- out= dtypes -----------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda lib, a, o: lib.add(a, 1, out=o), lambda lib, a, o: lib.exp(a, out=o),
    lambda lib, a, o: lib.neg(a, out=o), lambda lib, a, o: lib.abs(a, out=o),
    lambda lib, a, o: lib.floor(a, out=o), lambda lib, a, o: lib.clamp(a, 0, 2, out=o),
    lambda lib, a, o: lib.where(a > 2, a, a, out=o),
    lambda lib, a, o: lib.cat([a, a[:0]], out=o), lambda lib, a, o: lib.sum(a.floor(), 0, out=o[0]),
], ids=["add", "exp", "neg", "abs", "floor", "clamp", "where", "cat", "sum"])
@pytest.mark.parametrize("dtype", ["int64", "float64", "float32"])
def test_out_dtype_rules(call, dtype):
    def run(lib):
        a = lib.tensor([1.5, 2.5, 3.5])
        return call(lib, a, lib.zeros(3, dtype=getattr(lib, dtype)))
    check_same_outcome(run)


# ---- versions --------------------------------------------------------------------------------
def test_copied_grad_is_at_version_one():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        x.sum().backward()
        first = x.grad._version
        x.mean().backward()
        w = lib.ones(2, requires_grad=True)
        (w * lib.tensor([2., 3.])).sum().backward()  # a fresh gradient: stolen, version 0
        return first, x.grad._version, w.grad._version
    check_same(run, exact=True)


def test_as_strided_inplace_bumps_the_version():
    def run(lib):
        x = lib.zeros(2, 2)
        x.as_strided_((4,), (1,))
        return x._version, x.shape
    check_same(run, exact=True)


@pytest.mark.parametrize("name, kwargs", [
    ("AdamW", {}), ("AdamW", {"weight_decay": 0}), ("Adam", {"weight_decay": 0.1}),
    ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}), ("ASGD", {}),
])
def test_optimizer_step_parameter_versions(name, kwargs):
    def run(lib):
        p = lib.nn.Parameter(lib.tensor([0.5, -1.0, 2.0]))
        opt = getattr(lib.optim, name)([p], **kwargs)
        for _ in range(2):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
        return p._version, opt.state[p]["step"]._version
    check_same(run, exact=True)


def test_data_setter_refuses_an_integer_tensor_for_a_tensor_requiring_grad():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        x.data = lib.tensor([1, 2])
    check_error(run)
