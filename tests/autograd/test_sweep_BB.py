"""Sweep BB (core autograd and hooks): in-place changes to the index tensors and masks an
op saved for backward raise PyTorch's version error (and name bool/complex tensors as
PyTorch's C++ does), grad_fn attributes of operands never saved read None after backward,
``grad_fn.requires_grad``, non-tensor outputs given to autograd.grad, and the gradients of
pow and atan2 where the exponent or both arguments are 0; all against PyTorch."""
import pytest

from helpers import check_error, check_same


def _mutated_index_backward(op, make_index):
    """``op(lib, x, index)`` summed and backpropagated after ``index`` changed in place."""
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        index = make_index(lib)
        y = op(lib, x, index)
        index.zero_() if index.dtype is not lib.bool else index.fill_(True)
        y.sum().backward()
    return run


_LONG = lambda t: t.tensor([0, 1])          # noqa: E731
_LONG2 = lambda t: t.tensor([[0, 1], [1, 0]])  # noqa: E731
_MASK = lambda t: t.tensor([[True, False], [False, True]])  # noqa: E731


@pytest.mark.parametrize("op, make_index", [
    (lambda t, x, i: x[i], _LONG),
    (lambda t, x, i: x[i, i], _LONG),
    (lambda t, x, i: x[:, i], _LONG),
    (lambda t, x, i: x[0, i], _LONG),
    (lambda t, x, i: x[i], _MASK),
    (lambda t, x, i: x.masked_select(i), _MASK),
    (lambda t, x, i: x.take(i), _LONG2),
    (lambda t, x, i: t.nn.functional.embedding(i, x), _LONG2),
    (lambda t, x, i: x.gather(1, i), _LONG2),
    (lambda t, x, i: t.where(i, x, 0.0), _MASK),
], ids=["adv", "adv_pair", "adv_slice", "adv_int", "bool_mask", "masked_select", "take",
        "embedding", "gather", "where"])
def test_modified_index_raises_version_error(op, make_index):
    check_error(_mutated_index_backward(op, make_index))


@pytest.mark.parametrize("op", [
    lambda t, y: y.take(t.tensor([0, 3])),
    lambda t, y: y.masked_select(t.tensor([[True, False], [False, True]])),
    lambda t, y: y.gather(1, t.tensor([[0], [1]])),
], ids=["take", "masked_select", "gather"])
def test_modified_source_raises_version_error(op):
    def run(lib):
        y = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 1
        z = op(lib, y)
        y.add_(1)
        z.sum().backward()
    check_error(run)


def test_unmodified_index_still_differentiates():
    def f(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        i = lib.tensor([1, 1])
        (x[i] * 2).sum().backward()
        i2 = lib.tensor([[0, 1]])
        lib.nn.functional.embedding(i2, x).sum().backward()
        return x.grad
    check_same(f, exact=True)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_version_error_names_complex_type(dtype):
    def run(lib):
        dt = getattr(lib, dtype)
        x = lib.ones(2, dtype=dt, requires_grad=True)
        o = lib.ones(2, dtype=dt)
        y = x * o
        o.add_(1)
        y.sum().abs().backward()
    check_error(run)


@pytest.mark.parametrize("dtype", ["bool", "complex64", "float64"])
def test_hook_changing_type_names_types(dtype):
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        x.register_hook(lambda g: g.to(getattr(lib, dtype)))
        (x * 2).sum().backward()
    check_error(run)


def test_unsaved_operand_reads_none_after_backward():
    def f(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0])
        out = []
        for y in (x * 3, x * w, w * x):
            y.sum().backward()
            for name in ("_saved_self", "_saved_other"):
                try:
                    out.append(getattr(y.grad_fn, name))
                except RuntimeError as e:
                    out.append(str(e)[:40])
        return out
    check_same(f)


def test_node_requires_grad():
    def f(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        return y.grad_fn.requires_grad, y.grad_fn.next_functions[0][0].requires_grad
    check_same(f)


@pytest.mark.parametrize("call", [
    lambda t, x: t.autograd.grad("s", x),
    lambda t, x: t.autograd.backward("s"),
    lambda t, x: t.autograd.grad([(x * 2).sum(), 3], x),
], ids=["grad", "backward", "grad_list"])
def test_non_tensor_outputs(call):
    check_error(lambda lib: call(lib, lib.tensor([1.0, 2.0], requires_grad=True)))


def _grads(f, a=(1.0, 0.0, 0.0, 2.0, -0.0), b=(0.0, 0.0, 1.0, 0.0, -0.0)):
    def run(lib):
        x = lib.tensor(a, requires_grad=True)
        y = lib.tensor(b, requires_grad=True)
        return lib.autograd.grad(f(lib, x, y), [x, y], lib.tensor([2.0, 2.0, -3.0, 1.0, 1.0]))
    return run


@pytest.mark.parametrize("f", [
    lambda t, x, y: x.pow(y),
    lambda t, x, y: x ** y,
    lambda t, x, y: t.atan2(x, y),
    lambda t, x, y: t.atan2(y, x),
], ids=["pow", "pow_op", "atan2", "atan2_swapped"])
def test_gradients_at_zero(f):
    check_same(_grads(f), exact=True)


def test_atan2_gradient_bits():
    # PyTorch multiplies by the reciprocal of a² + b² (not a division): other roundings
    import numpy as np
    rng = np.random.RandomState(0)
    a, b, g = (tuple(rng.randn(200).astype(np.float32).tolist()) for _ in range(3))

    def f(lib):
        x = lib.tensor(a, requires_grad=True)
        y = lib.tensor(b, requires_grad=True)
        return lib.autograd.grad(lib.atan2(x, y), [x, y], lib.tensor(g))
    check_same(f, exact=True)
