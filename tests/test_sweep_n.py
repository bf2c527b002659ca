"""Sweep N: small leftovers of the earlier sweeps, each checked against PyTorch.

- a ``requires_grad`` that is no bool given to a creation function (the parser's TypeError,
  or its overload listing for the factories PyTorch overloads);
- ``Tensor.new_full``'s argument binding.
"""
import numpy as np
import pytest

from helpers import check_error, check_same


# ---- requires_grad must be a bool --------------------------------------------------------
_FACTORIES = {
    "tensor": lambda lib, v: lib.tensor([1.], requires_grad=v),
    "new_tensor": lambda lib, v: lib.ones(2).new_tensor([1.], requires_grad=v),
    "zeros": lambda lib, v: lib.zeros(2, requires_grad=v),
    "zeros_size_kw": lambda lib, v: lib.zeros(size=(2, 3), requires_grad=v),
    "ones": lambda lib, v: lib.ones(2, requires_grad=v),
    "empty": lambda lib, v: lib.empty(2, requires_grad=v),
    "full": lambda lib, v: lib.full((2,), 1., requires_grad=v),
    "zeros_like": lambda lib, v: lib.zeros_like(lib.ones(2), requires_grad=v),
    "ones_like": lambda lib, v: lib.ones_like(lib.ones(2), requires_grad=v),
    "empty_like": lambda lib, v: lib.empty_like(lib.ones(2), requires_grad=v),
    "full_like": lambda lib, v: lib.full_like(lib.ones(2), 2., requires_grad=v),
    "rand_like": lambda lib, v: lib.rand_like(lib.ones(2), requires_grad=v),
    "randn_like": lambda lib, v: lib.randn_like(lib.ones(2), requires_grad=v),
    "new_zeros": lambda lib, v: lib.ones(2).new_zeros(2, 3, requires_grad=v),
    "new_ones": lambda lib, v: lib.ones(2).new_ones((2,), requires_grad=v),
    "new_full": lambda lib, v: lib.ones(2).new_full((2,), 3., requires_grad=v),
    "new_empty": lambda lib, v: lib.ones(2).new_empty((2,), requires_grad=v),
    "randn": lambda lib, v: lib.randn(2, 3, requires_grad=v),
    "randn_size_kw": lambda lib, v: lib.randn(size=(2,), requires_grad=v),
    "rand_dtype": lambda lib, v: lib.rand(2, dtype=lib.float64, requires_grad=v),
    "randint": lambda lib, v: lib.randint(0, 3, (2,), requires_grad=v),
    "randperm": lambda lib, v: lib.randperm(3, requires_grad=v),
    "arange": lambda lib, v: lib.arange(3., requires_grad=v),
    "arange_kw": lambda lib, v: lib.arange(start=0, end=3, requires_grad=v),
    "linspace": lambda lib, v: lib.linspace(0, 1, 3, requires_grad=v),
    "logspace": lambda lib, v: lib.logspace(0, 1, 3, requires_grad=v),
    "eye": lambda lib, v: lib.eye(2, 3, requires_grad=v),
    "normal": lambda lib, v: lib.normal(0., 1., (2,), requires_grad=v),
    "empty_strided": lambda lib, v: lib.empty_strided((2,), (1,), requires_grad=v),
    "scalar_tensor": lambda lib, v: lib.scalar_tensor(1., requires_grad=v),
    "asarray": lambda lib, v: lib.asarray([1.], requires_grad=v),
}


@pytest.mark.parametrize("value", [1, 0, 1.0, np.bool_(True), "yes"],
                         ids=["int1", "int0", "float", "np_bool", "str"])
@pytest.mark.parametrize("name", sorted(_FACTORIES))
def test_requires_grad_not_bool(name, value):
    check_error(lambda lib: _FACTORIES[name](lib, value))


@pytest.mark.parametrize("name", sorted(_FACTORIES))
def test_requires_grad_none(name):
    """None is False for the TensorOptions factories; tensor/new_tensor take no None."""
    def call(lib):
        t = _FACTORIES[name](lib, None)
        return t.requires_grad, tuple(t.shape)
    if name in ("tensor", "new_tensor"):
        check_error(call)
    else:
        check_same(call)


def test_range_requires_grad_before_its_warning(torch):
    import warnings
    import numtorch
    for lib in (numtorch, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the TypeError comes first, no warning
            with pytest.raises(TypeError, match="range\\(\\): argument 'requires_grad' must "
                                                "be bool, not NoneType"):
                lib.range(0, 2, requires_grad=None)


@pytest.mark.parametrize("name", ["zeros", "randn", "arange", "tensor", "new_full"])
def test_requires_grad_true_still_works(name):
    check_same(lambda lib: _FACTORIES[name](lib, True).requires_grad)


# ---- Tensor.new_full ---------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda x: x.new_full((2,), 3.),
    lambda x: x.new_full([2, 2], 1),
    lambda x: x.new_full(size=(2,), fill_value=3.),
    lambda x: x.new_full((2,), fill_value=3.),
    lambda x: x.new_full((2,), 5, dtype=x.new_zeros(0, dtype=x.dtype).int().dtype),
])
def test_new_full(call):
    check_same(lambda lib: call(lib.ones(2, dtype=lib.float64)), exact=True)


@pytest.mark.parametrize("call", [
    lambda x: x.new_full((2,)),
    lambda x: x.new_full(),
    lambda x: x.new_full(fill_value=3.),
    lambda x: x.new_full(size=(2,)),
    lambda x: x.new_full((2,), size=(3,)),
    lambda x: x.new_full(2, 3.),
    lambda x: x.new_full(3., size=(2,)),
    lambda x: x.new_full((2,), 1., fill_value=2.),
    lambda x: x.new_zeros(2, fill_value=1),
])
def test_new_full_errors(call):
    check_error(lambda lib: call(lib.ones(2)))


# ---- a reduction's dim given as None, keepdim that is no bool ----------------------------
_X = [[1., 5.], [3., 2.]]


@pytest.mark.parametrize("call", [
    lambda lib, x: x.max(None), lambda lib, x: x.max(dim=None), lambda lib, x: x.min(None),
    lambda lib, x: x.max(0, keepdim=None), lambda lib, x: x.max(0, None),
    lambda lib, x: lib.max(x, None), lambda lib, x: lib.min(x, dim=None),
    lambda lib, x: lib.max(x, other=None), lambda lib, x: x.max(1, keepdim=1),
    lambda lib, x: x.sum(None, keepdim=None), lambda lib, x: x.sum(0, keepdim=None),
    lambda lib, x: x.sum(keepdim=True), lambda lib, x: lib.sum(x, keepdim=True),
    lambda lib, x: x.sum(lib.float64),
    lambda lib, x: x.mean(0, keepdim=None), lambda lib, x: x.mean(keepdim=True),
    lambda lib, x: x.argmax(0, keepdim=None), lambda lib, x: x.argmin(1, keepdim=1),
    lambda lib, x: x.prod(None), lambda lib, x: x.prod(dim=None),
    lambda lib, x: x.prod(0, keepdim=None),
    lambda lib, x: x.median(None), lambda lib, x: x.median(dim=None),
    lambda lib, x: x.median(keepdim=True), lambda lib, x: lib.median(x, out=lib.empty(0)),
    lambda lib, x: x.median(0, keepdim=1), lambda lib, x: x.nanmedian(None),
    lambda lib, x: lib.median(x, None),
    lambda lib, x: x.logsumexp(None), lambda lib, x: lib.logsumexp(x, None),
    lambda lib, x: x.softmax(None), lambda lib, x: lib.softmax(x, None),
])
def test_dim_none_errors(call):
    check_error(lambda lib: call(lib, lib.tensor(_X)))


@pytest.mark.parametrize("call", [
    lambda lib, x: x.max(), lambda lib, x: x.max(0), lambda lib, x: x.max(1, True),
    lambda lib, x: lib.max(x, 1, keepdim=True), lambda lib, x: x.max(x * 0 + 2),
    lambda lib, x: x.max(other=x * 0 + 2), lambda lib, x: x.min(0, keepdim=True),
    lambda lib, x: x.sum(), lambda lib, x: x.sum(None), lambda lib, x: x.sum(dim=None),
    lambda lib, x: x.sum(dim=None, keepdim=True), lambda lib, x: x.sum(1, True),
    lambda lib, x: x.sum(dtype=lib.float64), lambda lib, x: x.sum(0, dtype=None),
    lambda lib, x: x.mean(None), lambda lib, x: lib.mean(x, None, True),
    lambda lib, x: x.mean(dim=None, keepdim=True), lambda lib, x: x.argmax(None),
    lambda lib, x: x.argmax(None, True), lambda lib, x: x.prod(), lambda lib, x: x.prod(0),
    lambda lib, x: x.prod(0, keepdim=True), lambda lib, x: x.median(),
    lambda lib, x: x.median(0), lambda lib, x: x.nanmedian(),
    lambda lib, x: lib.median(x, 0, out=(lib.empty(0), lib.empty(0, dtype=lib.long))),
    lambda lib, x: lib.max(x, 1, out=(lib.empty(0), lib.empty(0, dtype=lib.long))),
    lambda lib, x: x.logsumexp(0), lambda lib, x: x.amax(None),
])
def test_dim_given_or_not(call):
    check_same(lambda lib: call(lib, lib.tensor(_X)), exact=True)


# ---- the norms' argument types -------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda lib, x: lib.linalg.matrix_norm(x, ord="fro", dim=0),
    lambda lib, x: lib.linalg.matrix_norm(x, dim=(0, 1.)),
    lambda lib, x: lib.linalg.matrix_norm(x, ord=None),
    lambda lib, x: lib.linalg.matrix_norm(x, keepdim=1),
    lambda lib, x: lib.linalg.matrix_norm(x, dim=(0,)),
    lambda lib, x: x.norm(p=2, dim=1.0), lambda lib, x: x.norm(2, 1.0),
    lambda lib, x: x.norm(dim=1.0), lambda lib, x: x.norm(dim=(0, 1.)),
    lambda lib, x: x.norm(dim="a"), lambda lib, x: lib.norm(x, p=2, dim=1.0),
    lambda lib, x: x.norm(dim=1, keepdim=None), lambda lib, x: x.norm(p="nuc", dim=1),
    lambda lib, x: lib.linalg.vector_norm(x, dim=1.0),
    lambda lib, x: lib.linalg.vector_norm(x, ord="fro"),
    lambda lib, x: lib.linalg.vector_norm(x, ord=None),
    lambda lib, x: lib.linalg.vector_norm(x, 2, None, 1),
    lambda lib, x: lib.linalg.norm(x, dim=1.0), lambda lib, x: lib.linalg.norm(x, "fro", 0),
    lambda lib, x: lib.linalg.norm(x, ord="abc"), lambda lib, x: lib.linalg.norm(x, ord=3),
    lambda lib, x: lib.linalg.norm(x, dim=(0, 1, 1)),
    lambda lib, x: lib.nn.functional.normalize(x, dim=1.0),
])
def test_norm_argument_errors(call):
    check_error(lambda lib: call(lib, lib.tensor([[1., -5.], [3., 2.]])))


@pytest.mark.parametrize("call", [
    lambda lib, x: x.norm(), lambda lib, x: x.norm(p=1, dim=-1), lambda lib, x: x.norm(2.5),
    lambda lib, x: x.norm(p=float("inf")), lambda lib, x: x.norm(dim=[]),
    lambda lib, x: lib.norm(x, p="fro", dim=(0, 1)), lambda lib, x: x.norm(p="nuc"),
    lambda lib, x: lib.linalg.norm(x, ord=2, dim=(0, 1)), lambda lib, x: lib.linalg.norm(x),
    lambda lib, x: lib.linalg.norm(x, "nuc"), lambda lib, x: lib.linalg.norm(x[0], 1),
    lambda lib, x: lib.linalg.matrix_norm(x, "nuc"), lambda lib, x: lib.linalg.matrix_norm(x, -2),
    lambda lib, x: lib.linalg.vector_norm(x, 3, (0, 1), True),
])
def test_norms_still_compute(call):
    check_same(lambda lib: call(lib, lib.tensor([[1., -5.], [3., 2.]])))


# ---- grad_fn._saved_* of common nodes, and dir() of a node -----------------------------------
def _saved_view(lib, node):
    """``{name: value}`` of a node's ``_saved_*`` attributes (tensors as values)."""
    out = {}
    for n in dir(node):
        if n.startswith("_saved"):
            v = getattr(node, n)
            if isinstance(v, lib.Tensor):
                v = v.detach().numpy()
                v = (np.round(v, 5) if v.dtype.kind == "f" else v).tolist()
            out[n] = v
    return type(node).__name__, out


_NODES = [
    lambda lib, x, w: x[0], lambda lib, x, w: x[:, 1], lambda lib, x, w: x[..., -1],
    lambda lib, x, w: x[0, :], lambda lib, x, w: x[1:3], lambda lib, x, w: x[:, ::2],
    lambda lib, x, w: x[-2:], lambda lib, x, w: x[:-1], lambda lib, x, w: x[:, 1:10],
    lambda lib, x, w: x[0, 1:], lambda lib, x, w: x[None], lambda lib, x, w: x[:, None],
    lambda lib, x, w: x.select(1, 2), lambda lib, x, w: x.narrow(1, 1, 2),
    lambda lib, x, w: x[:1].expand(2, 4), lambda lib, x, w: x.permute(1, 0),
    lambda lib, x, w: x.transpose(0, 1), lambda lib, x, w: x.t(),
    lambda lib, x, w: x.unsqueeze(1), lambda lib, x, w: x[:1].squeeze(0),
    lambda lib, x, w: x[:1].squeeze(), lambda lib, x, w: x.view(12),
    lambda lib, x, w: lib.cat([x, x], 1), lambda lib, x, w: lib.stack([x, x]),
    lambda lib, x, w: x.clamp(-0.5, 0.5), lambda lib, x, w: x.clamp(min=0),
    lambda lib, x, w: x.abs().pow(w), lambda lib, x, w: lib.where(x > 0, x, w),
    lambda lib, x, w: x.mean(1), lambda lib, x, w: x.mean((0, 1), keepdim=True),
    lambda lib, x, w: x.sum(1, keepdim=True), lambda lib, x, w: x.max(1)[0],
    lambda lib, x, w: x.min(0, keepdim=True)[0], lambda lib, x, w: x.max(),
    lambda lib, x, w: x.min(), lambda lib, x, w: lib.nn.functional.mse_loss(x, w),
    lambda lib, x, w: lib.nn.functional.mse_loss(x, w, reduction="sum"),
    lambda lib, x, w: x * w, lambda lib, x, w: x.exp(), lambda lib, x, w: -x,
]


@pytest.mark.parametrize("make", _NODES)
def test_saved_attributes(make):
    data = [[1.5, -0.3, -2.2, 0.6], [-1.1, -1.4, 0.4, 0.8], [-0.7, -0.4, -0.6, 0.2]]

    def run(lib):
        x = lib.tensor(data, requires_grad=True)
        w = lib.tensor(data).flip(0).requires_grad_()
        return _saved_view(lib, make(lib, x, w).grad_fn)
    check_same(run)


def test_node_dir_hides_internals(torch):
    import numtorch

    def names(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                ctx.k = 3
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = lib.ones(2, requires_grad=True)
        return [{n for n in dir(g) if not n.startswith("__")} for g in (Double.apply(x).grad_fn, (x * 2).grad_fn,
                                      x.exp().grad_fn.next_functions[0][0])]
    for mine, ref in zip(names(numtorch), names(torch)):
        assert mine <= ref, mine - ref  # (a few of PyTorch's names numtorch lacks)
    custom, mul, _ = names(numtorch)
    assert {"k", "saved_tensors", "needs_input_grad"} <= custom
    assert {"_saved_self", "_saved_other", "next_functions"} <= mul
    assert "_saved" not in mul and "scalar" not in mul and "_in_meta" not in custom


# ---- torch._C and Tensor._backward_hooks -----------------------------------------------------
def test_c_module(torch):
    import numtorch
    for lib in (numtorch, torch):
        assert lib._C._get_tracing_state() is None
        assert issubclass(lib.autograd.Function, lib._C._FunctionBase)
        assert isinstance(lib.ones(1), lib._C.TensorBase)
        lib._C._set_grad_enabled(False)
        assert not lib.is_grad_enabled()
        lib._C._set_grad_enabled(True)
        assert lib._C.is_grad_enabled()
        assert not hasattr(lib._C, "_no_such_name_here")
    check_error(lambda lib: lib._C._set_grad_enabled(1))
    with pytest.raises(NotImplementedError, match="torch._C._no_such_name_here"):
        numtorch._C._no_such_name_here


def test_backward_hooks_attribute():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        seen = [y._backward_hooks, x._backward_hooks, lib.ones(2)._backward_hooks]
        h = y.register_hook(lambda g: g)
        seen.append((type(y._backward_hooks).__name__, len(y._backward_hooks)))
        h.remove()
        seen.append(dict(y._backward_hooks))
        x.register_hook(lambda g: g)
        seen.append(len(x._backward_hooks))
        return seen
    check_same(run)
