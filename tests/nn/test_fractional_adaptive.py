"""Fractional max pooling and adaptive softmax against PyTorch: values, indices, gradients,
the random samples drawn from the global stream, errors, parameters and reprs."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_op

rng = np.random.default_rng(0)


def a(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def frac(nsp, *args, seed=3, **kwargs):
    """fractional_max_pool{nsp}d of whichever library the input belongs to, after seeding it
    (so that the drawn ``_random_samples`` are the same in both)."""
    def call(x):
        lib = numtorch if isinstance(x, numtorch.Tensor) else __import__("torch")
        lib.manual_seed(seed)
        return getattr(lib.nn.functional, f"fractional_max_pool{nsp}d")(x, *args, **kwargs)
    return call


def nan_data(*shape):
    x = a(*shape, dtype=np.float32)
    x[rng.random(shape) < 0.2] = np.nan
    return x


FRACTIONAL = [
    (frac(2, 2, output_size=(5, 7), return_indices=True), a(2, 3, 11, 13)),
    (frac(2, (3, 2), output_ratio=(0.5, 0.7), return_indices=True), a(3, 17, 9)),
    (frac(2, 2, output_size=(61, 19)), a(1, 1, 100, 37, dtype=np.float32)),
    (frac(2, 2, output_size=(9, 13), return_indices=True), a(2, 3, 20, 21, dtype=np.float16)),
    (frac(2, 3, output_size=4, return_indices=True), nan_data(2, 3, 8, 8)),
    (frac(2, 2, output_size=0, return_indices=True), a(2, 3, 7, 8)),
    (frac(2, 2, output_size=1), a(2, 3, 7, 8)),
    (frac(3, 2, output_size=(3, 4, 5), return_indices=True), a(2, 2, 7, 9, 8)),
    (frac(3, (1, 2, 3), output_ratio=0.5, return_indices=True), a(2, 7, 9, 8)),
    (frac(3, 2, output_ratio=0.4), a(1, 2, 20, 21, 9, dtype=np.float32)),
    (frac(3, 3, output_size=3, return_indices=True), nan_data(2, 3, 8, 8, 7)),
]


@pytest.mark.parametrize("fn, x", FRACTIONAL, ids=[str(i) for i in range(len(FRACTIONAL))])
def test_fractional_max_pool(fn, x):
    check_op(fn, x, rtol=0, atol=0)


@pytest.mark.parametrize("seed", range(10))
def test_fractional_random_samples_follow_torch_stream(torch, seed):
    for nsp, shape, ratio in ((2, (4, 3, 31, 29), (0.6, 0.6)), (3, (2, 3, 13, 11, 9), 0.6)):
        x = a(*shape, dtype=np.float32)
        fn = frac(nsp, 2, output_ratio=ratio, return_indices=True, seed=seed)
        mine, ref = fn(numtorch.from_numpy(x.copy())), fn(torch.from_numpy(x.copy()))
        for m, r in zip(mine, ref):
            np.testing.assert_array_equal(m.numpy(), r.numpy())


def test_fractional_explicit_samples_and_with_indices(torch):
    x, u = a(2, 3, 9, 10), rng.random((3, 3, 2))
    for lib in (numtorch, torch):
        out = lib.nn.functional.fractional_max_pool2d_with_indices(
            lib.from_numpy(x.copy()), 2, output_size=4, _random_samples=lib.from_numpy(u))
        if lib is numtorch:
            mine = out
    for m, r in zip(mine, out):
        np.testing.assert_array_equal(m.numpy(), r.numpy())


def _f(nsp, shape, *args, dtype=None, **kwargs):
    def call(lib):
        F = lib.nn.functional
        x = lib.randn(*shape) if dtype is None else lib.ones(*shape, dtype=getattr(lib, dtype))
        return getattr(F, f"fractional_max_pool{nsp}d")(x, *args, **kwargs)
    return call


ERRORS = [
    _f(2, (2, 3, 7, 8), 2),
    _f(2, (2, 3, 7, 8), 2, output_ratio=0.5),
    _f(2, (2, 3, 7, 8), 2, output_ratio=(0.5, 0.5, 0.5)),
    _f(2, (2, 3, 7, 8), 2, output_ratio=[0.5]),
    _f(2, (2, 3, 7, 8), 2, output_size=7),
    _f(2, (2, 3, 7, 8), 2, output_size=(3, 8)),
    _f(2, (2, 3, 7, 8), (2, 2, 2), output_size=3),
    _f(2, (2, 3, 7, 8), 2, output_size=(3, 3, 3)),
    _f(2, (2, 3, 7, 8), 2.5, output_size=3),
    _f(2, (2, 3, 7, 8), 2, output_size=(3., 3)),
    _f(2, (7, 8), 2, output_size=3),
    _f(2, (2, 3, 3, 7, 8), 2, output_size=3),
    _f(2, (2, 0, 7, 8), 2, output_size=3),
    _f(2, (2, 3, 7, 8), 2, output_size=3, dtype="int64"),
    _f(3, (2, 3, 7, 8, 9), 2),
    _f(3, (2, 3, 7, 8, 9), 2, output_size=(6, 7, 8)),
    _f(3, (2, 3, 7, 8, 9), 2, output_size=(5, 7, 8)),
    _f(3, (2, 3, 7, 8, 9), 2, output_size=(5, 7, 7)),
    _f(3, (2, 3, 7, 8, 9), (2, 2), output_size=3),
    _f(3, (3, 7, 8), 2, output_size=3),
    _f(3, (3, 7, 0, 8), 2, output_size=3),
    lambda lib: lib.nn.functional.fractional_max_pool2d(
        lib.ones(2, 3, 7, 8), 2, output_size=3, _random_samples=lib.ones(2, 3, 2).double()),
    lambda lib: lib.nn.functional.fractional_max_pool2d(
        lib.ones(2, 3, 7, 8), 2, output_size=3, _random_samples=lib.ones(2, 3)),
    lambda lib: lib.nn.functional.fractional_max_pool2d(
        lib.ones(2, 3, 7, 8), 2, output_size=3, _random_samples=lib.ones(1, 3, 2)),
    lambda lib: lib.nn.functional.fractional_max_pool2d(
        lib.ones(2, 3, 7, 8), 2, output_size=3, _random_samples=lib.ones(2, 4, 2)),
    lambda lib: lib.nn.functional.fractional_max_pool3d(
        lib.ones(2, 3, 7, 8, 9), 2, output_size=3, _random_samples=lib.ones(2, 3, 2)),
    lambda lib: lib.nn.functional.fractional_max_pool3d(
        lib.ones(3, 7, 8, 9, dtype=lib.int64), 2, output_size=3,
        _random_samples=lib.ones(1, 3, 3, dtype=lib.int64)),
    lambda lib: lib.nn.FractionalMaxPool2d(2),
    lambda lib: lib.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5),
    lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0)),
    lambda lib: lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 1.0, 0.5)),
    lambda lib: lib.nn.FractionalMaxPool3d(0, output_ratio=0.5),
    lambda lib: lib.nn.FractionalMaxPool3d((1, 0, 1)),
    lambda lib: lib.nn.FractionalMaxPool3d(2),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, []),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5, 3]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [0, 3]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 10]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 3]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [2.5]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(lib.ones(3, 4), lib.tensor([0, 1])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(lib.ones(2, 2, 4),
                                                              lib.tensor([0, 1])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(lib.ones(2, 4), lib.tensor(1)),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(lib.ones(2, 4), lib.tensor([[1]])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(lib.ones(2, 4), lib.tensor([1, 12])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(lib.ones(2, 4),
                                                              lib.tensor([-1, 12])),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(fn):
    check_error(fn)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.FractionalMaxPool2d(2, output_size=3),
    lambda lib: lib.nn.FractionalMaxPool2d((2, 3), output_ratio=(0.5, 0.4), return_indices=True),
    lambda lib: lib.nn.FractionalMaxPool3d(2, output_ratio=0.5),
    lambda lib: lib.nn.FractionalMaxPool2d(2, output_size=3,
                                           _random_samples=lib.full((1, 1, 2), 0.3)),
])
def test_fractional_modules(torch, make):
    mine, ref = make(numtorch), make(torch)
    assert repr(mine) == repr(ref)
    for name in ("kernel_size", "output_size", "output_ratio", "return_indices"):
        assert getattr(mine, name) == getattr(ref, name), name
    assert list(mine.state_dict()) == list(ref.state_dict())
    x = a(1, 1, *(9,) * len(ref.kernel_size), dtype=np.float32)
    numtorch.manual_seed(5)
    torch.manual_seed(5)
    outs = mine(numtorch.from_numpy(x.copy())), ref(torch.from_numpy(x.copy()))
    for m, r in zip(*(o if isinstance(o, tuple) else (o,) for o in outs)):
        np.testing.assert_array_equal(m.numpy(), r.numpy())


ASM = [((16, 20, [5, 10, 15]), {"div_value": 2.0}),
       ((8, 10, [4]), {"div_value": 2.0, "head_bias": True}),
       ((32, 100, (10, 50)), {"div_value": 3.0})]


def _asm(lib, args, kwargs):
    lib.manual_seed(0)
    return lib.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs)


@pytest.mark.parametrize("args, kwargs", ASM)
def test_adaptive_log_softmax_init_and_repr(torch, args, kwargs):
    mine, ref = _asm(numtorch, args, kwargs), _asm(torch, args, kwargs)
    assert repr(mine) == repr(ref)
    mp, rp = dict(mine.named_parameters()), dict(ref.named_parameters())
    assert list(mp) == list(rp)
    for k in rp:
        np.testing.assert_array_equal(mp[k].detach().numpy(), rp[k].detach().numpy())
    assert (mine.shortlist_size, mine.n_clusters, mine.head_size, mine.cutoffs) == \
        (ref.shortlist_size, ref.n_clusters, ref.head_size, ref.cutoffs)


@pytest.mark.parametrize("args, kwargs", ASM)
@pytest.mark.parametrize("case", ["batch", "single", "one_row", "shortlist_only"])
def test_adaptive_log_softmax_forward_and_grads(torch, args, kwargs, case):
    mine, ref = _asm(numtorch, args, kwargs), _asm(torch, args, kwargs)
    x = a(7, args[0], dtype=np.float32)
    t = rng.integers(0, args[1], 7)
    x, t = {"batch": (x, t), "single": (x[0], t[0]), "one_row": (x[:1], t[:1]),
            "shortlist_only": (x, np.zeros(7, np.int64))}[case]
    mx = numtorch.from_numpy(x.copy()).requires_grad_()
    rx = torch.from_numpy(x.copy()).requires_grad_()
    mo, ro = mine(mx, numtorch.as_tensor(t)), ref(rx, torch.as_tensor(t))
    assert type(mo).__name__ == "_ASMoutput" and mo._fields == ro._fields
    assert tuple(mo.output.shape) == tuple(ro.output.shape)
    np.testing.assert_allclose(mo.output.detach().numpy(), ro.output.detach().numpy(), 1e-5,
                               1e-6)
    np.testing.assert_allclose(mo.loss.detach().numpy(), ro.loss.detach().numpy(), 1e-5, 1e-6)
    mo.loss.backward()
    ro.loss.backward()
    np.testing.assert_allclose(mx.grad.numpy(), rx.grad.numpy(), 1e-5, 1e-6)
    for (name, mp), (_, rp) in zip(mine.named_parameters(), ref.named_parameters()):
        assert (mp.grad is None) == (rp.grad is None), name  # clusters no target reached
        if rp.grad is not None:
            np.testing.assert_allclose(mp.grad.numpy(), rp.grad.numpy(), 1e-5, 1e-6,
                                       err_msg=name)


@pytest.mark.parametrize("args, kwargs", ASM)
def test_adaptive_log_softmax_log_prob_and_predict(torch, args, kwargs):
    mine, ref = _asm(numtorch, args, kwargs), _asm(torch, args, kwargs)
    x = a(7, args[0], dtype=np.float32)
    np.testing.assert_allclose(mine.log_prob(numtorch.from_numpy(x)).detach().numpy(),
                               ref.log_prob(torch.from_numpy(x)).detach().numpy(), 1e-5, 1e-6)
    for scale in (0.1, 1.0, 3.0, 10.0):
        xx = (a(50, args[0]) * scale).astype(np.float32)
        np.testing.assert_array_equal(mine.predict(numtorch.from_numpy(xx)).numpy(),
                                      ref.predict(torch.from_numpy(xx)).numpy())


def test_fractional_numerical_gradients_without_torch():
    from helpers import numerical_grad_check
    u = numtorch.tensor([[[0.3, 0.7]], [[0.9, 0.1]]], dtype=numtorch.float64)
    numerical_grad_check(lambda x: numtorch.nn.functional.fractional_max_pool2d(
        x, 2, output_size=3, _random_samples=u), [a(2, 1, 6, 5)])
