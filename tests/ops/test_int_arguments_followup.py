"""Follow-up of the int-argument sweep: the ops whose int or int-list arguments still took
floats and bools silently (tril/triu/diagonal/roll/flip/tile/split/unfold/diag...), size
arguments of the factories and ``new_*`` methods (PyTorch's parser takes a bool as an int
after a list's first entry, never as its first), list entries that fail to unpack, explicit
``None`` dims, and ``requires_grad`` given something other than a bool."""
import numpy as np
import pytest

from helpers import check_error, check_same

X = lambda m: m.arange(6.).reshape(2, 3)  # noqa: E731


def _set_requires_grad(m, value):
    t = m.ones(2)
    t.requires_grad = value
    return t


ERRORS = {
    "tril float": lambda m: X(m).tril(1.0),
    "triu keyword": lambda m: m.triu(X(m), diagonal=1.0),
    "tril None": lambda m: X(m).tril(None),
    "diagonal bool offset": lambda m: X(m).diagonal(True),
    "diagonal bool dim2": lambda m: X(m).diagonal(0, 0, True),
    "diagonal offset keyword": lambda m: X(m).diagonal(offset=1.0),
    "roll float": lambda m: X(m).roll(1.0),
    "torch.roll float": lambda m: m.roll(X(m), 1.0, 0),
    "roll float dims": lambda m: m.roll(X(m), 1, 0.0),
    "roll later entry": lambda m: X(m).roll((1, 1.0), (0, 1)),
    "roll bool": lambda m: X(m).roll(True),
    "flip bool": lambda m: X(m).flip(True),
    "flip float": lambda m: X(m).flip(1.0),
    "flip float entry": lambda m: X(m).flip((1.0,)),
    "flip later entry": lambda m: m.flip(X(m), [0, 1.0]),
    "flip unpacked later": lambda m: X(m).flip(0, 1.0),
    "flip unpacked first": lambda m: X(m).flip(0.0, 1),
    "torch.flip int": lambda m: m.flip(X(m), 1),
    "flip keyword list": lambda m: m.flip(X(m), dims=[1.0]),
    "tile float entry": lambda m: X(m).tile((2.0, 1)),
    "tile later entry": lambda m: X(m).tile((2, 1.0)),
    "torch.tile int": lambda m: m.tile(X(m), 2),
    "torch.tile extra": lambda m: m.tile(X(m), 2, 1),
    "tile keyword int": lambda m: X(m).tile(dims=2),
    "zeros bool first": lambda m: m.zeros(True, 2),
    "new_ones bool first": lambda m: X(m).new_ones((True, 2)),
    "new_full float": lambda m: X(m).new_full((2.0,), 1),
    "new_zeros size keyword int": lambda m: X(m).new_zeros(size=2),
    "ones float": lambda m: m.ones(2.0),
    "empty later float": lambda m: m.empty((2, 1.5)),
    "zeros numpy bool": lambda m: m.zeros((2, np.bool_(True))),
    "ones size keyword": lambda m: m.ones(size=2),
    "randint 3 args float size": lambda m: m.randint(0, 5, (2.0,)),
    "randint 2 args float size": lambda m: m.randint(5, (2.0,)),
    "normal float size": lambda m: m.normal(0., 1., (2.0,)),
    "full float": lambda m: m.full((2.0,), 1.),
    "eye float m": lambda m: m.eye(2, 3.0),
    "linspace float steps": lambda m: m.linspace(0, 1, 3.0),
    "empty_strided": lambda m: m.empty_strided((2, 2.0), (1, 1)),
    "tril_indices": lambda m: m.tril_indices(3, 3, 1.0),
    "triu_indices": lambda m: m.triu_indices(3.0, 3),
    "cumsum None": lambda m: m.cumsum(X(m), None),
    "cumsum method None": lambda m: X(m).cumsum(None),
    "cumsum missing": lambda m: X(m).cumsum(),
    "cumprod None": lambda m: m.cumprod(X(m), None),
    "squeeze None": lambda m: X(m).squeeze(None),
    "torch.squeeze None": lambda m: m.squeeze(X(m), None),
    "squeeze keyword None": lambda m: X(m).squeeze(dim=None),
    "squeeze later entry": lambda m: X(m).squeeze((0, 1.0)),
    "split numpy int": lambda m: m.split(X(m), np.int64(2)),
    "split float": lambda m: X(m).split(1.0),
    "split later entry": lambda m: X(m).split([1, 1.0]),
    "split bool": lambda m: X(m).split(True),
    "split float dim": lambda m: X(m).split(1, 1.0),
    "split tensor list": lambda m: X(m).split(m.tensor([1, 1])),
    "split_with_sizes dim": lambda m: X(m).split([1, 1], 0.0),
    "view later numpy bool": lambda m: X(m).view((6, np.bool_(True))),
    "movedim later entry": lambda m: X(m).movedim((0, 1), (1, 0.0)),
    "unflatten int": lambda m: X(m).unflatten(1, 3),
    "unflatten float": lambda m: X(m).unflatten(1, (3.0, 1)),
    "unfold size": lambda m: X(m).unfold(0, 1.0, 1),
    "unfold step bool": lambda m: X(m).unfold(0, 1, True),
    "diag": lambda m: X(m).diag(1.0),
    "diag_embed": lambda m: m.diag_embed(X(m), 1.0),
    "tensor_split float": lambda m: X(m).tensor_split(2.0),
    "tensor_split dim": lambda m: X(m).tensor_split(2, 1.0),
    "index_add dim": lambda m: X(m).index_add(1.0, m.tensor([0]), X(m)[:, :1]),
    "index_fill dim": lambda m: X(m).index_fill(1.0, m.tensor([0]), 1.0),
    "scatter dim": lambda m: X(m).scatter(1.0, m.tensor([[0]]), 1.0),
    "take_along_dim dim": lambda m: m.take_along_dim(X(m), m.tensor([[0]]), 1.0),
    "logcumsumexp": lambda m: X(m).logcumsumexp(1.0),
    "expand_as": lambda m: X(m).expand_as(3),
    "view_as": lambda m: X(m).view_as(2),
    "requires_grad_ str": lambda m: m.ones(2).requires_grad_("yes"),
    "requires_grad_ int": lambda m: m.ones(2).requires_grad_(1),
    "requires_grad_ numpy bool": lambda m: m.ones(2).requires_grad_(np.bool_(True)),
    "requires_grad = int": lambda m: _set_requires_grad(m, 1),
    "requires_grad = None": lambda m: _set_requires_grad(m, None),
    "requires_grad = numpy bool": lambda m: _set_requires_grad(m, np.bool_(True)),
    "make_tensor requires_grad int": lambda m: m.testing.make_tensor(
        3, dtype=m.float32, device="cpu", requires_grad=1),
}


@pytest.mark.parametrize("name", ERRORS)
def test_parser_error(name):
    check_error(ERRORS[name])


ACCEPTED = {
    "zeros bool later": lambda m: m.zeros(2, True),
    "randn bool later": lambda m: m.randn(2, True).shape,
    "reshape bool later": lambda m: X(m).reshape(2, 3, True),
    "flip bool later": lambda m: X(m).flip(0, True),
    "tile bool later": lambda m: X(m).tile((2, True)),
    "tile unpacked": lambda m: X(m).tile(2, 1),
    "tile numpy": lambda m: X(m).tile(np.int64(2)),
    "tile tensor": lambda m: X(m).tile(m.tensor(2)),
    "flip numpy": lambda m: X(m).flip(np.int64(0)),
    "roll numpy": lambda m: X(m).roll(np.int64(1), np.int64(0)),
    "roll tensor": lambda m: X(m).roll(m.tensor(1), 0),
    "tril numpy": lambda m: X(m).tril(np.int64(1)),
    "triu tensor": lambda m: X(m).triu(m.tensor(1)),
    "diagonal numpy": lambda m: X(m).diagonal(np.int64(1)),
    "split tensor": lambda m: m.split(X(m), m.tensor(1)),
    "split bool size later": lambda m: X(m).split([1, True]),
    "zeros tensor sizes": lambda m: m.zeros((m.tensor(2), m.tensor([1]))),
    "new_zeros size keyword": lambda m: X(m).new_zeros(size=(2,)),
    "squeeze all": lambda m: X(m).unsqueeze(0).squeeze(),
    "squeeze numpy": lambda m: X(m).unsqueeze(0).squeeze(np.int64(0)),
    "requires_grad bool": lambda m: _set_requires_grad(m, True),
}


@pytest.mark.parametrize("name", ACCEPTED)
def test_integer_like_arguments_work(name):
    check_same(ACCEPTED[name])
