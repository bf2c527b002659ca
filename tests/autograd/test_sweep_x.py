"""Sweep X (functional autograd): forward-AD tangents of broadcasting ops and of ops whose
outputs are modified in place, clamp's tangent at ties, PyTorch's errors for ops without a
forward-AD formula, linearize's tangent checks, the layout of functional.jacobian's
forward-mode result; all against PyTorch."""
import pytest

import numtorch
from helpers import check_error, check_same

pytestmark = [pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated"),
              pytest.mark.filterwarnings("ignore:Attempted to insert a get_attr Node")]


def _tangent_of(f, x=(1.0, 2.0), t=(1.0, 3.0)):
    """``f(lib, dual)``'s output tangent for a dual of ``x`` with tangent ``t``."""
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(lib.tensor(x), lib.tensor(t))
            return fw.unpack_dual(f(lib, d)).tangent
    return run


@pytest.mark.parametrize("f", [
    lambda t, d: d + t.ones(3, 2),
    lambda t, d: t.ones(3, 2) - d,
    lambda t, d: t.add(d, t.ones(3, 2), alpha=2),
    lambda t, d: t.sub(t.ones(3, 2), d, alpha=3),
    lambda t, d: d.clamp(min=t.ones(3, 2)),
    lambda t, d: d.clamp(min=t.ones(2)),
    lambda t, d: d.clamp(max=t.tensor([1.0, 2.0])),
    lambda t, d: d.clamp(t.ones(2), t.tensor([1.0, 2.0])),
    lambda t, d: d.clamp(min=1.0),
], ids=["add_bcast", "rsub_bcast", "add_alpha", "sub_alpha", "clamp_min_bcast",
        "clamp_min_tie", "clamp_max_tie", "clamp_both_tie", "clamp_scalar_tie"])
def test_tangent_broadcast_and_ties(f):
    check_same(_tangent_of(f), exact=True)


def test_output_tangent_is_not_the_input_tangent():
    # x + 1 then in place: the dual input's tangent must stay as it was
    def f(lib):
        fw = lib.autograd.forward_ad
        t = lib.tensor([1.0, 3.0])
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1.0, 2.0]), t)
            y = d + 1
            y.mul_(2)
            return t.clone(), fw.unpack_dual(y).tangent, fw.unpack_dual(d).tangent
    check_same(f, exact=True)


def test_inplace_on_same_shape_expand():
    def f(lib):
        x = lib.tensor([1.0, 2.0])
        x.expand(2).mul_(2)
        return x
    check_same(f, exact=True)


@pytest.mark.parametrize("f", [
    lambda t, d: t.cdist(d, d + 1),
    lambda t, d: t.cdist(t.ones(2, 2), d, compute_mode="use_mm_for_euclid_dist"),
    lambda t, d: t.nn.functional.pdist(d),
    lambda t, d: t.heaviside(d, t.tensor(0.5)),
    lambda t, d: t.floor_divide(d, 2.0),
    lambda t, d: d // 2,
    lambda t, d: t.unique(d),
    lambda t, d: t.unique(d, dim=0),
    lambda t, d: t.unique_consecutive(d),
    lambda t, d: t.nn.functional.grid_sample(d[None, None], t.zeros(1, 2, 2, 2),
                                             align_corners=False),
    lambda t, d: t.nn.functional.multi_margin_loss(d, t.tensor([0, 1])),
    lambda t, d: t.nn.functional.multilabel_margin_loss(d, t.tensor([[0, -1], [1, -1]])),
    lambda t, d: t.nn.functional.embedding_bag(t.tensor([0, 1]), d, t.tensor([0])),
    lambda t, d: t.igamma(d, d),
    lambda t, d: t.special.zeta(d + 1, d),
], ids=["cdist", "euclidean_dist", "pdist", "heaviside", "floor_divide", "floordiv_op",
        "unique", "unique_dim", "unique_consecutive", "grid_sample", "multi_margin",
        "multilabel_margin", "embedding_bag", "igamma", "zeta"])
def test_ops_without_forward_ad_raise(f):
    check_error(_tangent_of(f, x=[[1.0, 2.0], [0.5, 3.0]], t=[[1.0, 0.0], [2.0, 1.0]]))


@pytest.mark.parametrize("tangents", [
    lambda t: (t.ones(3), t.ones(3)),
    lambda t: ((t.ones(3),),),
    lambda t: (t.ones(3, dtype=t.float64),),
    lambda t: (t.ones(2, 3),),
], ids=["two", "nested", "dtype", "shape"])
def test_linearize_checks_tangents(tangents):
    def f(lib):
        _, jvp_fn = lib.func.linearize(lib.sin, lib.ones(3))
        return jvp_fn(*tangents(lib))
    check_error(f)


def test_linearize_dict_primals():
    def f(lib):
        out, jvp_fn = lib.func.linearize(lambda d: d["a"].sin(), {"a": lib.ones(3)})
        return out, jvp_fn({"a": lib.tensor([1.0, 2.0, 3.0])})
    check_same(f)
    check_error(lambda lib: lib.func.linearize(lambda d: d["a"].sin(),
                                               {"a": lib.ones(3)})[1](lib.ones(3)))


def test_forward_over_reverse_hessian_grad_fn():
    # PyTorch's forward-mode jacobian moves the batch dim last and reshapes: the hessian's
    # result carries that view's grad_fn
    def f(lib):
        h = lib.autograd.functional.hessian(lambda a: (a ** 3).sum(), lib.tensor([1.0, 2.0, 3.0]),
                                            vectorize=True, outer_jacobian_strategy="forward-mode")
        return h, type(h.grad_fn).__name__
    check_same(f)


@pytest.mark.parametrize("f", [
    lambda t, a: a.sum(), lambda t, a: a.mean(), lambda t, a: a.sum(0, keepdim=True),
    lambda t, a: a.softmax(0), lambda t, a: a.log_softmax(-1), lambda t, a: a.cumsum(0),
    lambda t, a: a.max(0)[0], lambda t, a: a.logsumexp(0), lambda t, a: a.prod(0),
    lambda t, a: a.norm(dim=0), lambda t, a: a.t(), lambda t, a: a.unsqueeze(-1),
], ids=["sum", "mean", "sum_keepdim", "softmax", "log_softmax", "cumsum", "max", "logsumexp",
        "prod", "norm", "t", "unsqueeze"])
def test_vmap_over_0dim_samples(f):
    # each sample of a 1-d input is 0-dim: its dim 0 is the sample, never the batch
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = lib.func.vmap(lambda a: f(lib, a))(x)
        (g,) = lib.autograd.grad(y.sum(), x)
        return y, g
    check_same(run)


def test_vmap_over_0dim_samples_grad_fn():
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        return [type(lib.func.vmap(f)(x).grad_fn).__name__ for f in
                (lambda a: a.sum(), lambda a: a.softmax(0), lambda a: a.max(0)[0])]
    check_same(run)
