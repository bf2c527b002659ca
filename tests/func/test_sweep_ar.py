"""Regression tests of conformance sweep AR (vmap fidelity), against PyTorch: comparisons,
logical ops, predicates, any/all and argmax/argmin give batched results inside vmap, so
data-dependent control flow raises PyTorch's error instead of running per sample; ops with
value-dependent result sizes (boolean masks, masked_select, unique, equal, allclose,
where(cond)) raise PyTorch's errors; ``numpy()`` of a batched tensor; random ops with batched
parameters under randomness='same'."""
import pytest

from helpers import check_error, check_same

pytestmark = pytest.mark.filterwarnings("ignore:There is a performance drop")

X = [[1., -2., 3., 0.5], [4., 5., -6., float("nan")], [0., 1., 2., float("inf")]]


def _vmap(lib, fn, **kwargs):
    return lib.func.vmap(fn, **kwargs)


@pytest.mark.parametrize("case", ["if_sum", "bool_any", "all_gt", "while_max", "eq_all",
                                  "is_nonzero", "contains"])
def test_data_dependent_control_flow_raises(case):
    fns = {
        "if_sum": lambda t: t if t.sum() > 0 else -t,
        "bool_any": lambda t: t * 2 if bool(t.any()) else t,
        "all_gt": lambda t: t if (t > 0).all() else t * 0,
        "while_max": lambda t: t if t.max() < 10 else t,
        "eq_all": lambda t: t if (t == t).all() else t,
        "is_nonzero": lambda t: t.sum().is_nonzero(),
        "contains": lambda t: 3. in t,
    }
    check_error(lambda lib: _vmap(lib, fns[case])(lib.tensor(X)[:, :3]))


@pytest.mark.parametrize("case", ["gt", "eq_pair", "ge_unbatched", "lt_0dim_f64", "int_float",
                                  "logical_and", "logical_or", "logical_xor", "logical_not",
                                  "and_or", "invert", "isnan", "isinf", "isfinite", "isposinf",
                                  "isneginf", "signbit", "isclose", "any", "all_dim",
                                  "any_keep", "argmax", "argmin_dim", "argmax_keep",
                                  "argmax_flat_keep", "any_flat_keep", "nested", "where_mask", "masked_sum"])
def test_value_ops_batched(case):
    def run(lib):
        x = lib.tensor(X)
        vm = lib.func.vmap
        if case == "gt":
            return vm(lambda t: t > 0)(x)
        if case == "eq_pair":
            return vm(lambda t, u: t == u)(x, x.flip(0))
        if case == "ge_unbatched":
            return vm(lambda t, u: t >= u, in_dims=(0, None))(x, x[0])
        if case == "lt_0dim_f64":
            return vm(lambda t, u: t < u, in_dims=(0, None))(x, lib.tensor(2., dtype=lib.float64))
        if case == "int_float":
            return vm(lambda t, u: t >= u)(lib.tensor([[1, 2], [3, 0]]), lib.tensor([1.5, .5]))
        if case == "logical_and":
            return vm(lambda t: lib.logical_and(t > 0, t < 4))(x)
        if case == "logical_or":
            return vm(lambda t: lib.logical_or(t > 0, t < -4))(x)
        if case == "logical_xor":
            return vm(lambda t: lib.logical_xor(t > 0, t < 4))(x)
        if case == "logical_not":
            return vm(lambda t: lib.logical_not(t > 0))(x)
        if case == "and_or":
            return vm(lambda t: ((t > 0) & (t < 4)) | (t < -4) ^ (t == 0))(x)
        if case == "invert":
            return vm(lambda t: ~(t > 0))(x)
        if case in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"):
            return vm(getattr(lib, case))(x)
        if case == "isclose":
            return vm(lambda t: lib.isclose(t, t + 1e-6))(x)
        if case == "any":
            return vm(lambda t: lib.isnan(t).any())(x)
        if case == "all_dim":
            return vm(lambda t: (t > 0).all(dim=-1))(x.view(3, 2, 2))
        if case == "any_keep":
            return vm(lambda t: (t > 2).any(0, keepdim=True))(x.view(3, 2, 2))
        if case == "argmax":
            return vm(lib.argmax)(x)
        if case == "argmin_dim":
            return vm(lambda t: t.argmin(dim=-1))(x.view(3, 2, 2))
        if case == "argmax_keep":
            return vm(lambda t: t.argmax(0, keepdim=True))(x.view(3, 2, 2))
        if case == "argmax_flat_keep":
            return vm(lambda t: t.argmax(keepdim=True))(x.view(3, 2, 2))
        if case == "any_flat_keep":
            return vm(lambda t: (t > 0).any(keepdim=True))(x.view(3, 2, 1, 2))
        if case == "nested":
            return vm(vm(lambda t: t > t.mean()))(lib.arange(24.).view(2, 3, 4))
        if case == "where_mask":
            return vm(lambda t: lib.where(t > 0, t, 0.))(x)
        return vm(lambda t: (t * (t > 0)).sum())(x)
    check_same(run)


def test_value_ops_run_batched_not_per_sample():
    import numtorch
    from numtorch.func import _vmap
    _vmap.STATS.clear()
    x = numtorch.tensor(X)
    numtorch.func.vmap(lambda t: (lib_ops(numtorch, t)))(x)
    assert _vmap.STATS == {}


def lib_ops(lib, t):
    return (lib.isnan(t) | (t > 0)).any(), t.argmax(), lib.logical_not(t < 1).all(0)


@pytest.mark.parametrize("case", ["mask_index", "mask_only_batched", "mask_setitem",
                                  "masked_select", "unique", "unique_counts", "unique_dim",
                                  "unique_consecutive", "equal", "equal_one", "allclose",
                                  "where_cond", "numpy", "asarray", "data_ptr"])
def test_dynamic_shape_and_storage_errors(case):
    def setitem(t):
        t = t.clone()
        t[t > 0] = 0.
        return t
    fns = {
        "mask_index": lambda lib, x: lib.func.vmap(lambda t: t[t > 0])(x),
        "mask_only_batched": lambda lib, x: lib.func.vmap(lambda m: x[0][m])(x > 0),
        "mask_setitem": lambda lib, x: lib.func.vmap(setitem)(x),
        "masked_select": lambda lib, x: lib.func.vmap(lambda t: t.masked_select(t > 0))(x),
        "unique": lambda lib, x: lib.func.vmap(lib.unique)(x),
        "unique_counts": lambda lib, x: lib.func.vmap(
            lambda t: lib.unique(t, return_counts=True))(x),
        "unique_dim": lambda lib, x: lib.func.vmap(lambda t: lib.unique(t, dim=0))(x),
        "unique_consecutive": lambda lib, x: lib.func.vmap(lib.unique_consecutive)(x),
        "equal": lambda lib, x: lib.func.vmap(lambda t: lib.equal(t, t))(x),
        "equal_one": lambda lib, x: lib.func.vmap(lambda t, u: t.equal(u),
                                                  in_dims=(0, None))(x, x[0]),
        "allclose": lambda lib, x: lib.func.vmap(lambda t: lib.allclose(t, t))(x),
        "where_cond": lambda lib, x: lib.func.vmap(lambda t: lib.where(t > 0))(x),
        "numpy": lambda lib, x: lib.func.vmap(lambda t: lib.from_numpy(t.numpy()))(x),
        "asarray": lambda lib, x: lib.func.vmap(lambda t: __import__("numpy").asarray(t))(x),
        "data_ptr": lambda lib, x: lib.func.vmap(lambda t: t.data_ptr())(x),
    }
    check_error(lambda lib: fns[case](lib, lib.tensor([[1., -2., 3.], [4., 5., -6.]])))


@pytest.mark.parametrize("case", ["mask_unbatched", "masked_select_self", "argwhere"])
def test_value_dependent_ops_that_pytorch_supports(case):
    def run(lib):
        x = lib.tensor([[1., -2., 3.], [4., 5., -6.]])
        m = lib.tensor([True, False, True])
        vm = lib.func.vmap
        if case == "mask_unbatched":
            return vm(lambda t: t[m])(x)
        if case == "masked_select_self":
            return vm(lambda t: lib.masked_select(t, m))(x)
        return vm(lib.argwhere)(x > 0)
    check_same(run)


@pytest.mark.parametrize("case", ["bernoulli", "normal_mean", "normal_std", "poisson"])
def test_same_randomness_with_batched_parameters_raises(case):
    fns = {
        "bernoulli": lambda lib: lib.bernoulli,
        "normal_mean": lambda lib: lambda t: lib.normal(t, 1.),
        "normal_std": lambda lib: lambda t: lib.normal(0., t),
        "poisson": lambda lib: lib.poisson,
    }

    def run(lib):
        lib.manual_seed(0)
        return lib.func.vmap(fns[case](lib), randomness="same")(lib.rand(3, 4))
    check_error(run)
