"""Reductions, scans, softmax and norms against PyTorch (values, dtypes, gradients to second
order, grad_fn names, errors), plus numerical gradient checks without PyTorch."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op, check_op_or_error, check_same, numerical_grad_check

_rng = np.random.default_rng(1)


def r(*shape, lo=-2.0, hi=2.0, dtype=np.float32):
    return _rng.uniform(lo, hi, size=shape).astype(dtype)


def ri(*shape, lo=-5, hi=6, dtype=np.int64):
    return _rng.integers(lo, hi, size=shape).astype(dtype)


X = r(3, 4, 5)

REDUCTIONS = [
    ("sum", lambda x: x.sum()), ("sum-dim", lambda x: x.sum(1)),
    ("sum-neg-dim", lambda x: x.sum(-1)), ("sum-dims", lambda x: x.sum((0, 2))),
    ("sum-keepdim", lambda x: x.sum(1, keepdim=True)), ("sum-list-dims", lambda x: x.sum([2, 0],
                                                                                        True)),
    ("sum-empty-dims", lambda x: x.sum(())),
    ("sum-dtype", lambda x: x.sum(dtype=numtorch_or_torch(x).float64)),
    ("mean", lambda x: x.mean()), ("mean-dim", lambda x: x.mean(0)),
    ("mean-keepdim", lambda x: x.mean((1, 2), keepdim=True)),
    ("prod", lambda x: x.prod()), ("prod-dim", lambda x: x.prod(1)),
    ("prod-keepdim", lambda x: x.prod(-1, keepdim=True)),
    ("max", lambda x: x.max()), ("min", lambda x: x.min()),
    ("max-dim", lambda x: x.max(1)), ("min-dim-keepdim", lambda x: x.min(2, keepdim=True)),
    ("amax", lambda x: x.amax((0, 1))), ("amin", lambda x: x.amin(-1, keepdim=True)),
    ("argmax", lambda x: x.argmax()), ("argmax-dim", lambda x: x.argmax(1)),
    ("argmin-keepdim", lambda x: x.argmin(0, keepdim=True)),
    ("var", lambda x: x.var()), ("var-dim", lambda x: x.var(1)),
    ("var-unbiased-false", lambda x: x.var(0, unbiased=False)),
    ("var-correction", lambda x: x.var((0, 2), correction=2, keepdim=True)),
    ("std", lambda x: x.std()), ("std-dim", lambda x: x.std(2, keepdim=True)),
    ("cumsum", lambda x: x.cumsum(1)), ("cumprod", lambda x: x.cumprod(2)),
    ("cummax", lambda x: x.cummax(0)), ("cummin", lambda x: x.cummin(-1)),
    ("logsumexp", lambda x: x.logsumexp(1)), ("logsumexp-dims", lambda x: x.logsumexp((0, 2))),
    ("softmax", lambda x: x.softmax(1)), ("log_softmax", lambda x: x.log_softmax(-1)),
    ("norm", lambda x: x.norm()), ("norm-dim", lambda x: x.norm(dim=1)),
    ("norm-p1", lambda x: x.norm(1)), ("norm-p3", lambda x: x.norm(3, dim=(0, 2))),
    ("norm-inf", lambda x: x.norm(float("inf"))),
    ("nansum", lambda x: x.nansum(1)), ("nanmean", lambda x: x.nanmean(0)),
]


def numtorch_or_torch(t):
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


@pytest.mark.parametrize("fn", [c[1] for c in REDUCTIONS], ids=[c[0] for c in REDUCTIONS])
def test_reductions(fn):
    check_op(fn, X)


@pytest.mark.parametrize("fn", [c[1] for c in REDUCTIONS], ids=[c[0] for c in REDUCTIONS])
def test_reductions_float64(fn):
    check_op(fn, X.astype(np.float64)[:2, :3, :2])


ON_INTS = [
    ("sum", lambda x: x.sum()), ("sum-dim", lambda x: x.sum(0)), ("prod", lambda x: x.prod()),
    ("max", lambda x: x.max()), ("max-dim", lambda x: x.max(1)), ("amin", lambda x: x.amin()),
    ("argmax", lambda x: x.argmax(1)), ("cumsum", lambda x: x.cumsum(0)),
    ("cumprod", lambda x: x.cumprod(1)), ("all", lambda x: x.all()), ("any", lambda x: x.any(1)),
    ("count_nonzero", lambda x: x.count_nonzero()), ("sum-float", lambda x: x.sum(
        dtype=numtorch_or_torch(x).float32)), ("mean-dtype", lambda x: x.mean(
            dtype=numtorch_or_torch(x).float64)),
]


@pytest.mark.parametrize("fn", [c[1] for c in ON_INTS], ids=[c[0] for c in ON_INTS])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_])
def test_reductions_on_ints_and_bools(fn, dtype):
    check_op_or_error(fn, ri(3, 4, lo=0, hi=3).astype(dtype))


def test_ties_split_gradients():
    ties = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, -1.0]], np.float32)
    for fn in (lambda x: x.max(), lambda x: x.amax(1), lambda x: x.min(1)[0],
               lambda x: x.amin(), lambda x: x.norm(float("inf"))):
        check_op(fn, ties)


def test_prod_with_zeros():
    check_op(lambda x: x.prod(1), np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5]], np.float32))
    check_op(lambda x: x.prod(), np.array([1.5, 0.0, -2.0], np.float32))


def test_zero_dim_and_empty():
    check_op(lambda x: x.sum(0), r())
    check_op(lambda x: x.max(0), r())
    check_op(lambda x: x.sum(), r(0, 3))
    check_op(lambda x: x.mean(1), r(2, 0))
    check_op(lambda x: x.softmax(0), r())
    check_op(lambda x: x.cumsum(0), r())


def test_max_min_named_tuples(torch):
    def fn(lib):
        out = lib.tensor([[1.0, 5.0], [7.0, 2.0]]).max(1)
        return type(out).__name__, out.values, out.indices, out[0], tuple(out)
    check_same(fn)


def test_max_with_other_tensor():
    check_op(lambda a, b: a.max(b), r(3), r(3))
    check_op(lambda a, b: numtorch_or_torch(a).min(a, b), r(2, 3), r(3))


def test_var_std_mean(torch):
    check_same(lambda lib: (lib.var_mean(lib.tensor(X), 1), lib.std_mean(lib.tensor(X)),
                            lib.aminmax(lib.tensor(X), dim=0)))


def test_softmax_dtype_and_implicit_dim(torch):
    check_op(lambda x: x.softmax(0, dtype=numtorch_or_torch(x).float64), r(4))
    check_op(lambda x: x.log_softmax(1, dtype=numtorch_or_torch(x).float64), r(2, 3))
    check_op(lambda x: numtorch_or_torch(x).softmax(x, -1), r(2, 3))


def test_softmax_large_values():
    check_op(lambda x: x.softmax(0), np.array([1000.0, 0.0, -1000.0], np.float32))
    check_op(lambda x: x.log_softmax(0), np.array([1000.0, 0.0, -1000.0], np.float32))
    check_op(lambda x: x.logsumexp(0), np.array([1000.0, 1000.0], np.float32))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2, 3).sum(2), lambda lib: lib.ones(2, 3).sum((0, 0)),
    lambda lib: lib.ones(2, 3).mean(-3), lambda lib: lib.tensor([1, 2]).mean(),
    lambda lib: lib.ones(0).max(), lambda lib: lib.ones(2, 0).max(1),
    lambda lib: lib.tensor([1, 2]).var(), lambda lib: lib.tensor([1, 2]).softmax(0),
    lambda lib: lib.tensor([1, 2]).norm(), lambda lib: lib.ones(2, 3).cumsum(2),
    lambda lib: lib.ones(2).argmax(1), lambda lib: lib.ones(2, dtype=lib.bool).argmin(),
    lambda lib: lib.ones(0).argmax(), lambda lib: lib.ones(2, 0).argmin(1),
    lambda lib: lib.ones(2, 3).logsumexp(3), lambda lib: lib.tensor([1, 2]).log_softmax(0),
], ids=["dim-range", "dup-dims", "neg-range", "int-mean", "empty-max", "empty-dim-max",
        "int-var", "int-softmax", "int-norm", "cumsum-range", "argmax-range", "bool-argmin",
        "empty-argmax", "empty-dim-argmin", "logsumexp-range", "int-log-softmax"])
def test_errors(fn):
    check_error(fn)


def test_implicit_softmax_dim_warns(torch):
    for lib in (numtorch, torch):
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            lib.nn.functional.softmax(lib.ones(2, 3))


# ---- numerical checks (no PyTorch needed) --------------------------------------------------
NUMERICAL = [
    ("sum-mean", lambda x: x.sum(1, keepdim=True) * x.mean(0, keepdim=True)),
    ("prod", lambda x: x.prod(0)),
    ("prod-with-zero", lambda x: (x * numtorch.tensor([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]])).prod(1)),
    ("var-std", lambda x: x.var(1).sum() + x.std(0)),
    ("logsumexp", lambda x: x.logsumexp(1)),
    ("softmax", lambda x: x.softmax(1) * x),
    ("log_softmax", lambda x: x.log_softmax(0)),
    ("norm", lambda x: x.norm(dim=1) + x.norm(3)),
    ("cumsum-cumprod", lambda x: x.cumsum(1) * x.cumprod(0)),
    ("max-amax", lambda x: x.max(1).values + x.amax(0).sum()),
]


@pytest.mark.parametrize("f", [n[1] for n in NUMERICAL], ids=[n[0] for n in NUMERICAL])
def test_numerical_gradients(f):
    numerical_grad_check(f, [np.array([[0.3, -0.7, 1.2], [0.9, 0.4, -1.5]])])


def _lib(t):
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


# OpInfo regressions: one line per case
OPINFO_FIXES = [
    ("prod-0d-dim", lambda a: a.prod(0), np.array(1.5)),
    ("prod-size1-dim", lambda a: a.prod(1), np.array([[0.5], [2.0]])),
    ("prod-empty-dim", lambda a: a.prod(0), np.zeros((0, 2))),
    ("logsumexp-0d", lambda a: _lib(a).logsumexp(a, 0), np.array(0.7)),
    ("norm-nuc", lambda a: _lib(a).norm(a, "nuc"), np.array([[1.0, 2.0], [3.0, -4.0]])),
    ("norm-nuc-dim", lambda a: _lib(a).norm(a, "nuc", dim=(0, 2)),
     np.arange(12.0).reshape(2, 3, 2) ** 1.5),
]


@pytest.mark.parametrize("fn, inputs", [(c[1], c[2:]) for c in OPINFO_FIXES],
                         ids=[c[0] for c in OPINFO_FIXES])
def test_opinfo_fixes(fn, inputs):
    check_op(fn, *inputs)


# ---- found by sweeping scripts against torch ---------------------------------------------
@pytest.mark.parametrize("op", ["var", "std", "var_mean", "std_mean"])
def test_no_degrees_of_freedom_warns(torch, op):
    import warnings
    for lib in (numtorch, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(lib, op)(lib.ones(2, 1), 1)
        assert [str(w.message).split(" (Triggered")[0] for w in caught] == [
            f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel)."]
        assert caught[0].filename == __file__  # points at the caller, as torch's does


def test_complex_to_real_cast_warns_at_caller():
    with pytest.warns(UserWarning, match="Casting complex values to real discards") as rec:
        numtorch.tensor([1 + 2j]).float()
    assert rec[0].filename == __file__
    numtorch.tensor([1j, 0]).bool()  # no warning: bool tests for nonzero


REDUCTION_ERRORS = [
    ("bincount-float", lambda lib: lib.bincount(lib.tensor([1.0]))),
    ("bincount-bool", lambda lib: lib.bincount(lib.tensor([True]))),
    ("quantile-scalar-q", lambda lib: lib.quantile(lib.ones(3), 1.5)),
    ("kthvalue-k", lambda lib: lib.ones(3).kthvalue(4)),
]


@pytest.mark.parametrize("name, fn", REDUCTION_ERRORS, ids=[c[0] for c in REDUCTION_ERRORS])
def test_more_reduction_errors(name, fn):
    check_error(fn)


REDUCTION_EDGE = [
    ("all-empty-dims", lambda lib: lib.tensor([[1.0, 0.0], [3.0, 4.0]]).all(dim=())),
    ("any-empty-dims", lambda lib: lib.tensor([[1.0, 0.0], [3.0, 4.0]]).any(())),
    ("amax-empty-dim", lambda lib: lib.zeros(0, 3).amax(0)),
    ("amin-empty-all", lambda lib: lib.zeros(0, 3).amin()),
    ("amax-empty-other-dim", lambda lib: lib.zeros(0, 3).amax(1)),
    ("aminmax-empty-dim", lambda lib: lib.zeros(0, 3).aminmax(dim=0)),
    ("softmax-long-dim0", lambda lib: lib.softmax(lib.ones(2, 2, dtype=lib.int64), 0)),
    ("log_softmax-long-last", lambda lib: lib.log_softmax(lib.ones(2, 2, dtype=lib.int64), 1)),
    ("mean-int-dtype", lambda lib: lib.ones(2).mean(dtype=lib.int32)),
    ("nanmean-int", lambda lib: lib.ones(2, dtype=lib.int64).nanmean()),
]


@pytest.mark.parametrize("name, fn", REDUCTION_EDGE, ids=[c[0] for c in REDUCTION_EDGE])
def test_reduction_edge_cases(name, fn):
    from helpers import check_same_outcome
    check_same_outcome(fn)
