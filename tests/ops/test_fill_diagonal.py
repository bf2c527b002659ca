"""``Tensor.fill_diagonal_`` (numtorch/ops/inplace.py) against PyTorch: values for matrices,
tall ones with ``wrap``, cubes and views; dtype conversion and its errors; version counter;
gradients through the fill (CopySlices) to first and second order."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, numerical_grad_check


def _fill(shape, value=2.5, wrap=False, dtype="float32"):
    return lambda lib: lib.zeros(*shape, dtype=getattr(lib, dtype)).fill_diagonal_(value,
                                                                                   wrap=wrap)


CASES = [
    ("square", _fill((3, 3))), ("tall", _fill((7, 3))), ("wide", _fill((3, 7))),
    ("tall-wrap", _fill((7, 3), wrap=True)), ("tall8-wrap", _fill((8, 3), wrap=True)),
    ("tall20-wrap", _fill((20, 3), wrap=True)), ("tall4-wrap", _fill((4, 3), wrap=True)),
    ("tall5-wrap", _fill((5, 3), wrap=True)), ("wide-wrap", _fill((3, 7), wrap=True)),
    ("column-wrap", _fill((5, 1), wrap=True)), ("cube", _fill((3, 3, 3))),
    ("cube-wrap", _fill((3, 3, 3), wrap=True)), ("4d", _fill((2, 2, 2, 2))),
    ("empty", _fill((0, 0))), ("empty-rows", _fill((0, 3))),
    ("empty-columns-wrap", _fill((3, 0), wrap=True)),
    ("int-from-float", _fill((3, 3), 2.7, dtype="int64")),
    ("int-from-negative-float", _fill((3, 3), -2.7, dtype="int32")),
    ("bool-from-int", _fill((3, 3), 2, dtype="bool")),
    ("bool-from-complex", _fill((3, 3), 1j, dtype="bool")),
    ("float-from-bool", _fill((3, 3), True)),
    ("float-from-real-complex", _fill((3, 3), 1 + 0j)),
    ("complex", _fill((2, 2), 1 - 2j, dtype="complex64")),
    ("complex-from-int", _fill((2, 2), 3, dtype="complex128")),
    ("uint8-wraps-negative", _fill((3, 3), -1, dtype="uint8")),
    ("int64-max", _fill((2, 2), 2 ** 63 - 1, dtype="int64")),
    ("float-from-uint64-range", _fill((2, 2), 2 ** 64 - 1)),
    ("half", _fill((2, 2), 0.1, dtype="float16")),
    ("nan", _fill((2, 2), float("nan"))), ("inf", _fill((2, 2), float("-inf"))),
    ("0d-tensor-value", lambda lib: lib.zeros(3, 3).fill_diagonal_(lib.tensor(2))),
    ("numpy-value", lambda lib: lib.zeros(3, 3).fill_diagonal_(np.float32(2.5))),
    ("numpy-bool-value", lambda lib: lib.zeros(3, 3).fill_diagonal_(np.bool_(True))),
    ("view-rows", lambda lib: (lambda b: (b[1:].fill_diagonal_(4), b))(lib.zeros(4, 3))),
    ("view-t", lambda lib: (lambda b: (b.t()[:, :3].fill_diagonal_(5), b))(lib.zeros(4, 4))),
    ("view-step", lambda lib: (lambda b: (b[::2, 1:].fill_diagonal_(5), b))(lib.zeros(6, 4))),
    ("view-of-cube", lambda lib: (lambda b: (b[1:, 1:, 1:].fill_diagonal_(5), b))(
        lib.zeros(3, 3, 3))),
]


@pytest.mark.parametrize("fn", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_fill_diagonal_values(torch, fn):
    check_same(fn)


def test_fill_diagonal_returns_self_and_bumps_version(torch):
    def fn(lib):
        x, tall, base = lib.zeros(3, 3), lib.zeros(20, 3), lib.zeros(4, 4)
        view = base[1:]
        return (x.fill_diagonal_(1) is x, x._version,
                tall.fill_diagonal_(1, wrap=True)._version,  # two fills: main and wrapped
                view.fill_diagonal_(1)._version, base._version)
    check_same(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.zeros(3).fill_diagonal_(1), lambda lib: lib.zeros(()).fill_diagonal_(1),
    lambda lib: lib.zeros(3, 3, 4).fill_diagonal_(1),
    lambda lib: lib.zeros(3, 4, 3).fill_diagonal_(1),
    lambda lib: lib.zeros(3, 3).fill_diagonal_(lib.tensor([2.0])),
    lambda lib: lib.zeros(3, 3).fill_diagonal_(lib.tensor(2.0, requires_grad=True)),
    lambda lib: lib.zeros(3, 3).fill_diagonal_("a"),
    lambda lib: lib.zeros(3, 3).fill_diagonal_(None),
    lambda lib: lib.zeros(3, 3).fill_diagonal_([1]),
    lambda lib: lib.zeros(3, 3).fill_diagonal_(1, wrap="x"),
    lambda lib: lib.zeros(3, 3).fill_diagonal_(1, wrap=1),
    lambda lib: lib.zeros(3, 3).fill_diagonal_(1, wrap=np.bool_(True)),
    lambda lib: lib.zeros(3).fill_diagonal_(2 ** 70),
    lambda lib: lib.zeros(3, 3).fill_diagonal_(-2 ** 63 - 1),
    lambda lib: lib.zeros(3, 3, dtype=lib.int64).fill_diagonal_(2 ** 63),
    lambda lib: lib.zeros(3, 3, dtype=lib.int64).fill_diagonal_(1 + 2j),
    lambda lib: lib.zeros(3, 3, dtype=lib.int32).fill_diagonal_(float("nan")),
    lambda lib: lib.zeros(3, 3, dtype=lib.int16).fill_diagonal_(40000),
    lambda lib: lib.zeros(3, 3, dtype=lib.uint8).fill_diagonal_(300),
    lambda lib: lib.zeros(3, 3).fill_diagonal_(1 + 2j),
    lambda lib: lib.zeros(3, 3).fill_diagonal_(1e39),
    lambda lib: lib.zeros(3, 3, dtype=lib.float16).fill_diagonal_(70000),
    lambda lib: lib.zeros(3, 3, dtype=lib.complex64).fill_diagonal_(1e39),
    lambda lib: lib.zeros(3, 3, requires_grad=True).fill_diagonal_(1),
    lambda lib: lib.zeros(3, 3, requires_grad=True)[1:].fill_diagonal_(1),
], ids=["1d", "0d", "unequal-last", "unequal-middle", "1d-tensor-value",
        "requires-grad-value", "str", "None", "list", "wrap-str", "wrap-int", "wrap-numpy",
        "int-too-big", "int-too-small", "int64-overflow", "int-from-complex", "int-from-nan",
        "int16-overflow", "uint8-overflow", "float-from-complex", "float-overflow",
        "half-overflow", "complex64-overflow", "leaf", "view-of-leaf"])
def test_fill_diagonal_errors(torch, fn):
    check_error(fn)


def test_leaf_may_be_filled_under_no_grad(torch):
    def fn(lib):
        x = lib.zeros(2, 2, requires_grad=True)
        with lib.no_grad():
            x.fill_diagonal_(3)
        return x, x.requires_grad, x.grad_fn
    check_same(fn)


GRAD_CASES = [((3, 3), False, False), ((7, 3), True, False), ((20, 3), True, False),
              ((3, 7), True, False), ((3, 3, 3), False, False), ((2, 2, 2, 2), False, False),
              ((4, 3), False, True), ((8, 3), True, True), ((4, 4), False, "t")]


@pytest.mark.parametrize("shape,wrap,view", GRAD_CASES,
                         ids=[f"{s}-wrap={w}-view={v}" for s, w, v in GRAD_CASES])
def test_fill_diagonal_gradients(torch, shape, wrap, view):
    data = np.random.default_rng(0).standard_normal(shape)
    weights = np.arange(data.size, dtype=np.float64).reshape(shape)

    def fn(lib):
        a = lib.tensor(data, requires_grad=True)
        b = a * 2
        target = b[1:] if view is True else b.t() if view == "t" else b
        target.fill_diagonal_(3.0, wrap=wrap)
        loss = (b * b * lib.tensor(weights)).sum()
        (g,) = lib.autograd.grad(loss, a, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), a)
        return b, g, gg, b.grad_fn.name(), b._version
    check_same(fn)


def test_fill_diagonal_gradient_numerically():
    def f(x):
        y = x * 1
        y.fill_diagonal_(0.5, wrap=True)
        return y * x
    numerical_grad_check(f, [np.random.default_rng(1).standard_normal((7, 3))], order=2)


def test_fill_diagonal_without_torch():
    x = numtorch.zeros(5, 2).fill_diagonal_(1, wrap=True)
    assert x.tolist() == [[1, 0], [0, 1], [0, 0], [1, 0], [0, 1]]
    assert numtorch.zeros(2, 2, 2).fill_diagonal_(3).sum().item() == 6
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        numtorch.zeros(3).fill_diagonal_(1)


def test_doctests():
    import doctest
    from numtorch.ops import inplace
    result = doctest.testmod(inplace, extraglobs={"torch": numtorch})
    assert result.failed == 0 and result.attempted > 0
