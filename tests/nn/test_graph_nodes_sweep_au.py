"""Nodes, edges and saved tables of composite nn ops, walked node by node against PyTorch
(sweep AU): rrelu, celu / hardshrink / softshrink, prelu, embedding_bag, pairwise_distance,
cosine_similarity, and clamp with one tensor bound and one number."""
import numpy as np
import pytest

import numtorch
from helpers import graph_table


def _both(build, skip=()):
    torch = pytest.importorskip("torch")
    got = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        out = build(lib)
        got.append((graph_table(out, skip), out.detach().numpy().copy()))
    assert got[0][0] == got[1][0]
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-6, atol=1e-7)


def _x(lib, *shape):
    return lib.randn(*shape, requires_grad=True)


@pytest.mark.parametrize("training", [True, False])
def test_rrelu_node(training):
    # (outside training PyTorch's noise is unfilled memory: compare its shape only)
    skip = () if training else ("_saved_noise",)
    _both(lambda lib: lib.nn.functional.rrelu(_x(lib, 3, 4), 0.1, 0.3, training=training),
          skip)


@pytest.mark.parametrize("name, args", [("celu", (0.5,)), ("celu", ()), ("hardshrink", ()),
                                        ("softshrink", (0.3,))])
def test_activation_saved_tables(name, args):
    _both(lambda lib: getattr(lib.nn.functional, name)(_x(lib, 3, 4), *args))


@pytest.mark.parametrize("shape, n", [((3, 4), 1), ((2, 4, 5), 1), ((2, 4, 5), 4), ((4,), 1),
                                      ((), 1)])
def test_prelu_weight_view(shape, n):
    _both(lambda lib: lib.nn.PReLU(n)(lib.randn(shape)))


def test_prelu_zero_dim_weight_on_1d_input():
    _both(lambda lib: lib.nn.functional.prelu(lib.randn(3),
                                              lib.tensor(0.25, requires_grad=True)))


@pytest.mark.parametrize("kw", [dict(mode="mean"), dict(mode="sum"), dict(mode="max"),
                                dict(mode="mean", padding_idx=4), dict(mode="max", padding_idx=4),
                                dict(mode="sum", padding_idx=2)])
def test_embedding_bag_one_node(kw):
    def build(lib):
        w = lib.randn(10, 3, requires_grad=True)
        return lib.nn.functional.embedding_bag(lib.tensor([1, 2, 4, 5, 4, 3, 2, 9]), w,
                                               lib.tensor([0, 4, 4]), **kw)
    _both(build)


def test_embedding_bag_per_sample_weights_grads():
    torch = pytest.importorskip("torch")
    res = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        w = lib.randn(10, 3, requires_grad=True)
        p = lib.rand(2, 4, requires_grad=True)
        o = lib.nn.functional.embedding_bag(lib.tensor([[1, 2, 4, 5], [4, 3, 2, 9]]), w,
                                            mode="sum", per_sample_weights=p)
        res.append((graph_table(o), [t.numpy() for t in lib.autograd.grad(o.sum(), (w, p))]))
    assert res[0][0] == res[1][0]
    for a, b in zip(res[0][1], res[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_embedding_bag_max_gradient_goes_to_first_winner():
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (numtorch, torch):
        w = lib.tensor([[1., 2.], [1., 0.], [3., 3.]], requires_grad=True)
        o = lib.nn.functional.embedding_bag(lib.tensor([0, 1, 2, 0]), w, lib.tensor([0, 2]),
                                            mode="max")
        grads.append(lib.autograd.grad(o.sum(), w)[0].numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


@pytest.mark.parametrize("fn", ["pairwise_distance", "cosine_similarity"])
def test_distance_nodes(fn):
    _both(lambda lib: getattr(lib.nn.functional, fn)(_x(lib, 4, 5), _x(lib, 4, 5)))


def test_pairwise_distance_p1_keepdim():
    _both(lambda lib: lib.nn.functional.pairwise_distance(_x(lib, 4, 5), _x(lib, 4, 5), p=1,
                                                          keepdim=True))


@pytest.mark.parametrize("bounds", ["t_num", "num_t", "int_t"])
def test_clamp_zero_dim_tensor_bound_is_a_number(bounds):
    def build(lib):
        lo, hi = {"t_num": (lib.tensor(0.1), 1.0), "num_t": (0.1, lib.tensor(1.0)),
                  "int_t": (lib.tensor(0), 2.0)}[bounds]
        return lib.clamp(_x(lib, 5), lo, hi)
    _both(build)


@pytest.mark.parametrize("fn", ["clamp", "clip"])
@pytest.mark.parametrize("case", ["vector", "requires_grad", "one_elem"])
def test_clamp_mixed_bounds_type_error(fn, case):
    torch = pytest.importorskip("torch")
    msgs = []
    for lib in (numtorch, torch):
        bound = {"vector": lib.tensor([0., .1, .2]),
                 "requires_grad": lib.tensor(0.1, requires_grad=True),
                 "one_elem": lib.tensor([0.5])}[case]
        with pytest.raises(TypeError) as e:
            getattr(lib, fn)(lib.randn(3), bound, 1.0)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
