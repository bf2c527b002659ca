"""In-place view ops (transpose_, t_, squeeze_, unsqueeze_, swapdims_, resize_) against
PyTorch: shape, strides, version counter, grad_fn names, gradients, views staying views, and
saved tensors caught as modified."""
import pytest

from helpers import check_error, check_same

OPS = {
    "transpose_": lambda t: t.transpose_(0, 1),
    "t_": lambda t: t.t_(),
    "squeeze_": lambda t: t.squeeze_(),
    "squeeze_dim": lambda t: t.squeeze_(1),
    "squeeze_dims": lambda t: t.squeeze_((1,)),
    "unsqueeze_": lambda t: t.unsqueeze_(0),
    "swapdims_": lambda t: t.swapdims_(0, 1),
    "swapaxes_": lambda t: t.swapaxes_(-1, 0),
}


@pytest.mark.parametrize("name", list(OPS))
def test_history_version_and_gradient(torch, name):
    def run(lib):
        a = lib.arange(2.).reshape(2, 1).requires_grad_()
        b = a * 2
        out = OPS[name](b)
        weights = lib.arange(b.numel(), dtype=b.dtype).reshape(b.shape)
        (b * weights).sum().backward()
        return out is b, b._version, b.grad_fn.name(), b.shape, b.stride(), a.grad
    check_same(run, exact=True)


@pytest.mark.parametrize("name", list(OPS))
def test_view_stays_a_view_and_shares_the_version(torch, name):
    def run(lib):
        base = lib.arange(2.).reshape(2, 1) * 1
        view = base[:]
        OPS[name](view)
        view.mul_(10)
        return view._base is base, view._version, base._version, base, view
    check_same(run, exact=True)


@pytest.mark.parametrize("name", list(OPS))
def test_saved_tensor_is_caught(name):
    def run(lib):
        a = lib.ones(2, 1, requires_grad=True)
        b = a * 2
        c = b * b
        OPS[name](b)
        c.sum().backward()
    check_error(run)


def test_leaf_requiring_grad_and_bad_dims():
    check_error(lambda lib: lib.ones(2, 2, requires_grad=True).t_())
    check_error(lambda lib: lib.ones(2, 2, 2).t_())
    check_error(lambda lib: lib.ones(2, 2).transpose_(0, 2))


def test_resize(torch):
    def run(lib):
        x = lib.arange(6.)
        y = lib.arange(6.)
        y.resize_(8)
        z = lib.zeros(2, 3)
        return (x.resize_(2, 2), x._version, y.shape, y[:6], z.resize_as_(lib.ones(3, 2)).shape)
    check_same(run, exact=True)
    check_error(lambda lib: lib.ones(2, requires_grad=True).resize_(3))
