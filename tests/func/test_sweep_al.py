"""Regression tests of conformance sweep AL (torch.func as its tutorials use it), against
PyTorch: vmap'd matrix products round as PyTorch's batching rules do (one folded mm, so the
Jacobians tutorial's allclose holds), replace_all_batch_norm_modules_ and debug_unwrap,
batch norm refusing to update unbatched running statistics, printing inside vmap
(BatchedTensor), and reads of batched values raising PyTorch's errors instead of looping."""
import contextlib
import io

import numpy as np
import pytest

from helpers import check_error, check_same

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated",
                                        "ignore:There is a performance drop")

RNG = np.random.default_rng(7)
X = RNG.standard_normal((6, 5)).astype(np.float32)
W = RNG.standard_normal((4, 5)).astype(np.float32)
B = RNG.standard_normal(4).astype(np.float32)


def _max_diff(lib, batched, reference):
    return float((batched - reference).abs().max())


@pytest.mark.parametrize("case", ["linear_bias", "linear", "dot_one",
                                  "matmul_vec", "mm_rows"])
def test_vmap_matmul_rounds_as_one_product(case):
    # PyTorch's rules fold a batch of vectors into one matrix product: vmap(f) equals f on
    # the stacked rows bit for bit (the tutorial compares the two with allclose)
    def run(lib):
        x, w, b = lib.tensor(X), lib.tensor(W), lib.tensor(B)
        F, vmap = lib.nn.functional, lib.func.vmap
        pairs = {
            "linear_bias": (vmap(F.linear, in_dims=(0, None, None))(x, w, b),
                            F.linear(x, w, b)),
            "linear": (vmap(F.linear, in_dims=(0, None))(x, w), F.linear(x, w)),
            "dot_one": (vmap(lib.dot, in_dims=(0, None))(x, x[0]), x @ x[0]),
            "matmul_vec": (vmap(lib.matmul, in_dims=(0, None))(x, w.T), x @ w.T),
            "mm_rows": (vmap(lib.mm, in_dims=(0, None))(x.view(6, 1, 5), w.T),
                        (x @ w.T).view(6, 1, 4)),
        }
        return _max_diff(lib, *pairs[case])
    assert check_same(run, exact=True) == 0.0


def test_vmap_jacrev_matches_summed_jacobian():
    def run(lib):
        lib.manual_seed(0)
        w, b, x = lib.randn(7, 5), lib.randn(7), lib.randn(9, 5)

        def predict(w, b, x):
            return lib.nn.functional.linear(x, w, b).tanh()
        j0 = lib.func.vmap(lib.func.jacrev(predict, argnums=2), in_dims=(None, None, 0))(w, b, x)
        j1 = lib.func.jacrev(lambda w, b, x: predict(w, b, x).sum(0), argnums=2)(w, b, x)
        return lib.allclose(j0, j1.movedim(1, 0), rtol=0, atol=0)
    assert check_same(run) is True


def test_replace_all_batch_norm_modules_():
    def run(lib):
        nn = lib.nn
        lib.manual_seed(0)
        net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU())
        same = lib.func.replace_all_batch_norm_modules_(net) is net
        bn = net[1]
        out = lib.func.vmap(net)(lib.ones(2, 5, 3) * lib.arange(3.))
        return (same, repr(net), bn.running_mean, bn.running_var, bn.num_batches_tracked,
                bn.track_running_stats, sorted(net.state_dict()), out.shape)
    check_same(run)


def test_batch_norm_running_stats_under_vmap_raises():
    check_error(lambda lib: lib.func.vmap(lib.nn.BatchNorm1d(3))(lib.ones(4, 5, 3)))


def test_batch_norm_eval_under_vmap():
    def run(lib):
        bn = lib.nn.BatchNorm1d(3).eval()
        return lib.func.vmap(bn)(lib.arange(30.).view(2, 5, 3))
    check_same(run)


def test_debug_unwrap():
    def run(lib):
        seen = []

        def f(t):
            seen.append(tuple(lib.func.debug_unwrap(t).shape))
            seen.append(tuple(lib.func.debug_unwrap(t, recurse=False).shape))
            return t
        lib.func.vmap(lib.func.vmap(f))(lib.ones(2, 3, 4))
        return seen, lib.func.debug_unwrap(lib.ones(2))
    check_same(run)


def _printed(lib, fn, *args, **kwargs):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        lib.func.vmap(fn, **kwargs)(*args)
    return buf.getvalue()


@pytest.mark.parametrize("case", ["plain", "nested", "in_dim", "int", "result", "format",
                                  "scalar", "requires_grad"])
def test_print_inside_vmap(case):
    def run(lib):
        x = lib.arange(6.).reshape(2, 3)

        def show(t):
            print(t)
            return t
        if case == "plain":
            return _printed(lib, show, x)
        if case == "nested":
            return _printed(lib, lib.func.vmap(show), x)
        if case == "in_dim":
            return _printed(lib, show, x, in_dims=1) + _printed(lib, show, x, in_dims=-1)
        if case == "int":
            return _printed(lib, show, lib.arange(4))
        if case == "result":
            return _printed(lib, lambda t: show(t * 2 + 1), x, in_dims=1)
        if case == "format":
            return _printed(lib, lambda t: print(f"{t}|{t!s}") or t, x)
        if case == "scalar":
            return _printed(lib, lambda t: show(t.sum()), x)
        w = lib.ones(3, requires_grad=True)
        return _printed(lib, lambda t: show(t * w), x)
    check_same(run)


@pytest.mark.parametrize("case", ["item", "tolist", "format_float", "nonzero",
                                  "nonzero_tuple"])
def test_value_reads_inside_vmap_raise(case):
    fns = {
        "item": lambda t: t.sum().item(),
        "tolist": lambda t: t.tolist(),
        "format_float": lambda t: f"{t.sum():.2f}",
        "nonzero": lambda t: t.nonzero(),
        "nonzero_tuple": lambda t: t.nonzero(as_tuple=True),
    }
    check_error(lambda lib: lib.func.vmap(fns[case])(lib.ones(3, 4)))


def test_nonzero_static_inside_vmap_still_works():
    from helpers import torch_or_skip
    import numtorch
    torch_or_skip()
    out = numtorch.func.vmap(lambda t: numtorch.nonzero_static(t, size=2))(
        numtorch.tensor([[0., 1., 2.], [3., 0., 0.]]))
    assert out.tolist() == [[[1], [2]], [[0], [-1]]]
