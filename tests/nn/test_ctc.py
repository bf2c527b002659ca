"""``F.ctc_loss`` / ``nn.CTCLoss`` against PyTorch: losses, gradients, reductions, blank,
zero_infinity, target layouts, the unbatched form, errors; and the gradient numerically."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, numerical_grad_check

T, N, C = 7, 3, 5


def _case(lib, steps=T, classes=C, input_lengths=(7, 5, 4), target_lengths=(3, 2, 0),
          layout="padded", dtype="float32", lengths_as="tensor"):
    rng = np.random.RandomState(0)
    logits = lib.tensor(rng.randn(steps, N, classes).astype(dtype), requires_grad=True)
    labels = rng.randint(1, classes, (N, max(max(target_lengths), 1)))
    labels[0, :2] = 2  # a repeated label needs a blank between its two frames
    if layout == "concat":
        targets = lib.tensor(np.concatenate([labels[b, :n] for b, n in
                                             enumerate(target_lengths)]))
    else:
        targets = lib.tensor(labels)
    if lengths_as == "tensor":
        return logits, targets, lib.tensor(input_lengths), lib.tensor(target_lengths)
    return logits, targets, list(input_lengths), tuple(target_lengths)


def _run(lib, reduction="mean", blank=0, zero_infinity=False, module=False, **case):
    logits, targets, il, tl = _case(lib, **case)
    log_probs = logits.log_softmax(2)
    if module:
        loss = lib.nn.CTCLoss(blank, reduction, zero_infinity)(log_probs, targets, il, tl)
    else:
        loss = lib.nn.functional.ctc_loss(log_probs, targets, il, tl, blank, reduction,
                                          zero_infinity)
    weights = lib.arange(1, loss.numel() + 1, dtype=loss.dtype).reshape(loss.shape)
    (loss * weights).sum().backward()
    return loss, loss.grad_fn.name(), logits.grad


@pytest.mark.parametrize("kwargs", [
    {"reduction": "none"}, {"reduction": "mean"}, {"reduction": "sum"},
    {"layout": "concat", "lengths_as": "list"}, {"blank": 4, "module": True},
    {"dtype": "float64", "reduction": "none"},
    {"input_lengths": (7, 2, 4), "target_lengths": (3, 2, 1), "reduction": "none"},
    {"input_lengths": (7, 2, 4), "target_lengths": (3, 2, 1), "zero_infinity": True},
    {"input_lengths": (7, 2, 4), "target_lengths": (3, 2, 1), "zero_infinity": True,
     "reduction": "none", "module": True},
    {"input_lengths": (0, 3, 7), "target_lengths": (0, 1, 2), "reduction": "none"},
], ids=["none", "mean", "sum", "concat", "blank", "f64", "infinite", "zero_inf",
        "zero_inf_none", "empty_input"])
def test_ctc_loss_matches_torch(torch, kwargs):
    mine, ref = _run(numtorch, **kwargs), _run(torch, **kwargs)
    assert mine[1] == ref[1]
    tol = 1e-5 if kwargs.get("dtype") != "float64" else 1e-10
    for a, b in ((mine[0], ref[0]), (mine[2], ref[2])):
        assert np.allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol,
                           equal_nan=True)


def test_long_sequences_match_torch(torch):
    kwargs = {"steps": 40, "classes": 6, "input_lengths": (40, 31, 12),
              "target_lengths": (15, 9, 6), "dtype": "float64", "reduction": "none"}
    check_same(lambda lib: _run(lib, **kwargs))


def test_unbatched(torch):
    def run(lib):
        lib.manual_seed(0)
        x = lib.randn(6, 4, requires_grad=True)
        loss = lib.nn.functional.ctc_loss(x.log_softmax(1), lib.tensor([1, 3, 3]), [6], [3],
                                          reduction="none")
        loss.backward()
        return loss, loss.grad_fn.name(), x.grad
    check_same(run)


def test_gradient_through_log_softmax_is_the_true_gradient():
    targets, il, tl = numtorch.tensor([[1, 2, 2], [3, 1, 0]]), [6, 5], [3, 2]

    def f(x):
        return numtorch.nn.functional.ctc_loss(x.log_softmax(2), targets, il, tl,
                                               reduction="none")
    numerical_grad_check(f, [np.random.RandomState(1).randn(6, 2, 4)], order=1)


def test_double_backward_is_not_implemented(torch):
    def run(lib):
        x = lib.randn(4, 1, 3, requires_grad=True)
        loss = lib.nn.functional.ctc_loss(x.log_softmax(2), lib.tensor([[1]]), [4], [1])
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        g.sum().backward()
    check_error(run)


def test_repr(torch):
    check_same(lambda lib: repr(lib.nn.CTCLoss(blank=1, zero_infinity=True)), exact=True)


def _lp(lib):
    return lib.zeros(6, 2, 4).log_softmax(2)


ERRORS = [
    lambda lib: lib.nn.functional.ctc_loss(_lp(lib), lib.ones(2, 3, dtype=lib.long), [7, 5],
                                           [3, 2]),
    lambda lib: lib.nn.functional.ctc_loss(_lp(lib), lib.ones(2, 3, dtype=lib.long), [6, 5],
                                           [4, 2]),
    lambda lib: lib.nn.functional.ctc_loss(_lp(lib), lib.ones(2, 3, dtype=lib.long), [6], [3]),
    lambda lib: lib.nn.functional.ctc_loss(_lp(lib), lib.ones(2, 3, dtype=lib.long), [6, 5],
                                           [3], ),
    lambda lib: lib.nn.functional.ctc_loss(_lp(lib), lib.ones(2, 3, dtype=lib.long), [6, 5],
                                           [3, 2], blank=4),
    lambda lib: lib.nn.functional.ctc_loss(_lp(lib), lib.ones(6, dtype=lib.long), [6, 5],
                                           [3, 4]),
    lambda lib: lib.nn.functional.ctc_loss(_lp(lib), lib.ones(3, 3, dtype=lib.long), [6, 5],
                                           [3, 2]),
    lambda lib: lib.nn.functional.ctc_loss(_lp(lib), lib.ones(2, 3, dtype=lib.long),
                                           lib.tensor([6., 5.]), lib.tensor([3, 2])),
    lambda lib: lib.nn.functional.ctc_loss(_lp(lib), lib.ones(2, 3, dtype=lib.long), [6, 5],
                                           [-1, 2]),
    lambda lib: lib.nn.functional.ctc_loss(_lp(lib), lib.ones(2, 3, dtype=lib.long), [6, -5],
                                           [1, 2]),
    lambda lib: lib.nn.functional.ctc_loss(_lp(lib), lib.ones(2, 3, dtype=lib.long), [6, 5],
                                           [3, 2], reduction="bad"),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(fn):
    check_error(fn)


def test_mixed_length_kinds_is_a_type_error(torch):
    for lib in (numtorch, torch):
        with pytest.raises(TypeError, match=r"^ctc_loss\(\) received an invalid combination "
                                            r"of arguments - got \(Tensor, Tensor, list, "
                                            r"Tensor, int, int, bool\)"):
            lib.nn.functional.ctc_loss(_lp(lib), lib.ones(2, 3, dtype=lib.long), [6, 5],
                                       lib.tensor([3, 2]))
