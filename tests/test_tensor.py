"""Tensor: attributes, conversions, Python protocols, copying, views and autograd flags."""
import copy
import pickle

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, plain


def _x(lib, requires_grad=False):
    return lib.tensor([[1.5, -2.0, 3.0], [4.0, 5.0, -6.25]], requires_grad=requires_grad)


# ---- attributes ----------------------------------------------------------------------------
ATTRIBUTES = [
    ("shape", lambda t: t.shape),
    ("size", lambda t: (t.size(), t.size(0), t.size(-1)) if t.dim() else t.size()),
    ("dim", lambda t: (t.dim(), t.ndim, t.ndimension())),
    ("numel", lambda t: (t.numel(), t.nelement())),
    ("dtype", lambda t: t.dtype),
    ("device", lambda t: (t.device, str(t.device), t.is_cuda, t.get_device())),
    ("sizes", lambda t: (t.element_size(), t.itemsize, t.nbytes)),
    ("kind", lambda t: (t.is_floating_point(), t.is_complex(), t.is_signed())),
    ("autograd", lambda t: (t.requires_grad, t.is_leaf, t.grad_fn, t.grad)),
    ("layout", lambda t: (t.layout, t.is_sparse, t.is_quantized, t.is_meta)),
    ("flags", lambda t: (t.is_cpu, t.is_nested, t.is_mkldnn, t.is_sparse_csr, t.is_xla,
                         t.is_xpu, t.is_mps, t.is_ipu, t.is_vulkan, t.is_maia, t.is_mtia,
                         t.is_distributed())),
]

FLAG_PROPERTIES = ["is_cpu", "is_nested", "is_mkldnn", "is_sparse_csr", "is_xla", "is_xpu",
                   "is_mps", "is_ipu", "is_vulkan", "is_maia", "is_mtia"]


@pytest.mark.parametrize("fn", [a[1] for a in ATTRIBUTES], ids=[a[0] for a in ATTRIBUTES])
@pytest.mark.parametrize("make", [lambda lib: _x(lib), lambda lib: lib.tensor(7),
                                  lambda lib: lib.zeros(0, 3, dtype=lib.int16),
                                  lambda lib: lib.ones(2, dtype=lib.complex64),
                                  lambda lib: lib.tensor([True, False])],
                         ids=["2d", "0d", "empty", "complex", "bool"])
def test_attributes(torch, fn, make):
    check_same(lambda lib: fn(make(lib)))


def test_flags_are_properties_as_in_pytorch(torch):
    # PyTorch's flags are getset descriptors (read as attributes), is_distributed a method
    import inspect
    for name in FLAG_PROPERTIES:
        assert not callable(inspect.getattr_static(torch.Tensor, name)), name
        assert isinstance(inspect.getattr_static(numtorch.Tensor, name), property), name
    assert numtorch.ones(1).is_distributed() is False


def test_size_repr_and_type(torch):
    check_same(lambda lib: (repr(lib.ones(1, 3).shape), str(lib.ones(2).size()),
                            lib.ones(2, 3).shape[1:], lib.ones(2, 3).shape + (4,),
                            lib.Size([2, 3]).numel(), type(lib.ones(2).shape[0]).__name__))
    assert isinstance(numtorch.ones(2, 3).shape, tuple)


@pytest.mark.parametrize("dim", [2, -3])
def test_size_dim_out_of_range(torch, dim):
    check_error(lambda lib: lib.ones(2, 3).size(dim))
    check_error(lambda lib: lib.ones(2, 3).stride(dim))


@pytest.mark.parametrize("dim", [0, -1])
def test_size_of_0d_tensor(torch, dim):
    check_error(lambda lib: lib.tensor(1.0).size(dim))
    check_error(lambda lib: lib.tensor(1.0).stride(dim))


# ---- conversions ---------------------------------------------------------------------------
CONVERSIONS = [
    ("float", lambda t: t.float()), ("double", lambda t: t.double()),
    ("half", lambda t: t.half()), ("long", lambda t: t.long()), ("int", lambda t: t.int()),
    ("short", lambda t: t.short()), ("bool", lambda t: t.bool()), ("byte", lambda t: t.byte()),
    ("to-dtype", lambda t: t.to(t.new_ones(1, dtype=numtorch_or_torch(t).int8).dtype)),
    ("type-str", lambda t: t.type()),
    ("type-convert", lambda t: t.type("torch.DoubleTensor")),
    ("cdouble", lambda t: t.cdouble()),
]


def numtorch_or_torch(t):
    """The library a tensor belongs to."""
    return numtorch if isinstance(t, numtorch.Tensor) else __import__("torch")


@pytest.mark.parametrize("fn", [c[1] for c in CONVERSIONS], ids=[c[0] for c in CONVERSIONS])
def test_conversions(torch, fn):
    check_same(lambda lib: fn(lib.tensor([[1.7, -2.2, 0.0], [3.5, 250.0, -0.5]])))


def test_to_returns_self_unless_changed(torch):
    for lib in (numtorch, torch):
        x = lib.ones(2)
        assert x.to(lib.float32) is x and x.to("cpu") is x and x.float() is x
        assert x.to(lib.float32, copy=True) is not x
        assert x.to(lib.float64).dtype == lib.float64
        assert x.to("cpu", lib.int32).dtype == lib.int32
        assert x.to(lib.zeros(1, dtype=lib.int16)).dtype == lib.int16
        assert x.to(dtype=lib.float16).dtype == lib.float16


def test_conversion_keeps_graph(torch):
    check_same(lambda lib: _grad_of(lib, lambda x: x.double() * 2))
    check_same(lambda lib: (_x(lib, True).double().grad_fn.name(),
                            _x(lib, True).to(lib.float16).grad_fn.name()))


def _grad_of(lib, f, make=_x):
    x = make(lib, True)
    f(x).sum().backward()
    return x.grad


@pytest.mark.parametrize("make", [lambda lib: lib.tensor(2.5), lambda lib: lib.tensor([3]),
                                  lambda lib: lib.tensor([[True]]),
                                  lambda lib: lib.tensor(-4, dtype=lib.int8),
                                  lambda lib: lib.tensor(1 + 2j)],
                         ids=["0d-float", "1-elem-int", "bool", "int8", "complex"])
def test_item_and_scalars(torch, make):
    check_same(lambda lib: (make(lib).item(), type(make(lib).item()).__name__,
                            make(lib).tolist()))


@pytest.mark.parametrize("make", [lambda lib: lib.tensor(2.5), lambda lib: lib.tensor([3]),
                                  lambda lib: lib.tensor([[True]]),
                                  lambda lib: lib.tensor(-4, dtype=lib.int8)],
                         ids=["0d-float", "1-elem-int", "bool", "int8"])
def test_float_int_bool(torch, make):
    check_same(lambda lib: (float(make(lib)), int(make(lib)), bool(make(lib))))


def test_tolist_nested(torch):
    check_same(lambda lib: (_x(lib).tolist(), lib.arange(6).view(2, 3).tolist(),
                            lib.zeros(0, 2).tolist(), lib.tensor([True]).tolist()))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(3).item(),
    lambda lib: lib.ones(0).item(),
    lambda lib: float(lib.ones(2)),
    lambda lib: int(lib.zeros(0)),
    lambda lib: bool(lib.ones(2)),
    lambda lib: bool(lib.ones(0)),
    lambda lib: len(lib.tensor(1.0)),
    lambda lib: iter(lib.tensor(1.0)),
    lambda lib: [0, 1][lib.tensor(1.0)],
    lambda lib: [0, 1][lib.tensor([0, 1])],
    lambda lib: lib.ones(2, requires_grad=True).numpy(),
], ids=["item-many", "item-empty", "float-many", "int-empty", "bool-many", "bool-empty",
        "len-0d", "iter-0d", "index-float", "index-many", "numpy-requires-grad"])
def test_scalar_conversion_errors(torch, fn):
    check_error(fn)


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([0.0]), lambda lib: lib.tensor([[3]]), lambda lib: lib.tensor(-0.0),
    lambda lib: lib.tensor(float("nan")), lambda lib: lib.tensor(True),
    lambda lib: lib.tensor(0j), lambda lib: lib.tensor(1j),
    lambda lib: lib.tensor(2.0, requires_grad=True), lambda lib: lib.tensor([7], dtype=lib.uint8),
], ids=["zero", "int-2d", "neg-zero", "nan", "bool", "complex-zero", "complex", "requires-grad",
        "uint8"])
def test_is_nonzero(torch, make):
    check_same(lambda lib: (make(lib).is_nonzero(), lib.is_nonzero(make(lib))))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.tensor([]).is_nonzero(), lambda lib: lib.tensor([1, 2]).is_nonzero(),
    lambda lib: lib.zeros(2, 0).is_nonzero(), lambda lib: lib.is_nonzero(lib.ones(0)),
    lambda lib: lib.is_nonzero(1),
], ids=["empty", "two", "empty-2d", "function-empty", "function-not-tensor"])
def test_is_nonzero_errors(torch, fn):
    check_error(fn)


def test_is_same_size(torch):
    check_same(lambda lib: (
        lib.ones(2, 3).is_same_size(lib.ones(2, 3, dtype=lib.int64)),
        lib.ones(2, 3).is_same_size(lib.ones(3, 2).t()),
        lib.ones(2, 3).is_same_size(lib.ones(3, 2)),
        lib.tensor(1).is_same_size(lib.ones(1)), lib.tensor(1).is_same_size(lib.tensor(2.0)),
        lib.zeros(0, 2).is_same_size(lib.zeros(0, 2)), lib.ones(2).is_same_size(other=lib.ones(2)),
        lib.is_same_size(lib.ones(2), lib.ones(2)), lib.is_distributed(lib.ones(2))))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2, 3).is_same_size([1]), lambda lib: lib.ones(2).is_same_size(3),
    lambda lib: lib.is_same_size(lib.ones(2), [1]), lambda lib: lib.is_same_size([1], lib.ones(1)),
    lambda lib: lib.is_distributed(1),
], ids=["list", "int", "function-other", "function-input", "is_distributed-int"])
def test_is_same_size_errors(torch, fn):
    check_error(fn)


def test_index_protocol(torch):
    check_same(lambda lib: ([10, 20, 30][lib.tensor(2)], list(range(5))[lib.tensor([1])],
                            [10, 20][lib.tensor(1, dtype=lib.uint8)]))


def test_len_and_iter(torch):
    check_same(lambda lib: (len(_x(lib)), list(_x(lib)), [r.tolist() for r in lib.arange(3)],
                            len(lib.zeros(0, 2))))


def test_iter_rows_are_views(torch):
    for lib in (numtorch, torch):
        x = lib.zeros(2, 2)
        rows = list(x)
        rows[1].fill_(3)
        assert x.tolist() == [[0, 0], [3, 3]]


def test_iter_differentiable(torch):
    check_same(lambda lib: _grad_of(lib, lambda x: sum(r * i for i, r in enumerate(x))))


def test_numpy_shares_memory():
    x = numtorch.zeros(3)
    a = x.numpy()
    a[1] = 5
    assert x.tolist() == [0, 5, 0]
    assert np.asarray(x) is a or np.shares_memory(np.asarray(x), a)
    assert x.detach().numpy() is a or np.shares_memory(x.detach().numpy(), a)


def test_numpy_and_array_protocol(torch):
    check_same(lambda lib: (_x(lib).numpy().dtype.name, np.asarray(_x(lib)).tolist(),
                            np.asarray(_x(lib), dtype=np.int64).tolist(),
                            _x(lib, True).detach().numpy().shape,
                            np.add(_x(lib).numpy(), 1).tolist()))


def test_numpy_allowed_under_no_grad(torch):
    for lib in (numtorch, torch):
        with lib.no_grad():
            assert lib.ones(2, requires_grad=True).numpy().tolist() == [1, 1]
    assert numtorch.ones(2, requires_grad=True).numpy(force=True).tolist() == [1, 1]


def test_format(torch):
    check_same(lambda lib: (f"{lib.tensor(2.5):.2f}", f"{lib.tensor(3)}", f"{_x(lib)}",
                            "{:>6}".format(lib.tensor(7))))


# ---- identity, copying, pickling ------------------------------------------------------------
def test_hash_is_identity():
    a, b = numtorch.ones(2), numtorch.ones(2)
    assert hash(a) == id(a) and hash(a) != hash(b)
    seen = {a: "a", b: "b"}
    assert seen[a] == "a" and len({a, b, a}) == 2


def test_deepcopy_leaf(torch):
    def fn(lib):
        x = _x(lib, True)
        x.grad = lib.ones(2, 3)
        y = copy.deepcopy(x)
        y.data.add_(1)
        return x, y, y.grad, y.requires_grad, y.is_leaf, y.grad is x.grad
    check_same(fn)


def test_deepcopy_memo_and_attributes():
    x = numtorch.ones(2)
    x.tag = {"name": "x"}
    a, b = copy.deepcopy([x, x])
    assert a is b and a is not x and a.tag == {"name": "x"} and a.tag is not x.tag
    assert copy.copy(x) is not x or True  # shallow copy is allowed either way


def test_deepcopy_non_leaf_error(torch):
    check_error(lambda lib: copy.deepcopy(_x(lib, True) * 2))


@pytest.mark.parametrize("make", [lambda lib: _x(lib, True), lambda lib: lib.arange(5),
                                  lambda lib: lib.ones(2, dtype=lib.complex128),
                                  lambda lib: lib.tensor(True), lambda lib: _x(lib).t()],
                         ids=["leaf-grad", "int", "complex", "0d-bool", "view"])
def test_pickle_round_trip(torch, make):
    def fn(lib):
        y = pickle.loads(pickle.dumps(make(lib)))
        return y, y.requires_grad, y.is_leaf, y.is_contiguous(), y.stride()
    check_same(fn)


def test_pickle_keeps_python_attributes_and_no_grad(torch):
    def fn(lib):
        x = _x(lib, True)
        x.grad = lib.ones(2, 3)
        x.tag = "t"
        y = pickle.loads(pickle.dumps(x))
        return y.grad, y.tag
    check_same(fn)


# ---- views and versions --------------------------------------------------------------------
VIEWS = [
    ("slice", lambda x: x[:, 1:]),
    ("int", lambda x: x[1]),
    ("step", lambda x: x[:, ::2]),
    ("none", lambda x: x[None]),
    ("ellipsis", lambda x: x[..., 0]),
    ("view", lambda x: x.view(3, 2)),
    ("view-1", lambda x: x.view(-1)),
    ("reshape", lambda x: x.reshape(6)),
    ("transpose", lambda x: x.transpose(0, 1)),
    ("t", lambda x: x.t()),
    ("T", lambda x: x.T),
    ("permute", lambda x: x.permute(1, 0)),
    ("unsqueeze", lambda x: x.unsqueeze(1)),
    ("squeeze", lambda x: x.unsqueeze(0).squeeze(0)),
    ("expand", lambda x: x[:1].expand(4, 3)),
    ("narrow", lambda x: x.narrow(1, 1, 2)),
    ("select", lambda x: x.select(1, 2)),
    ("unbind", lambda x: x.unbind(1)[1]),
    ("split", lambda x: x.split(2, 1)[1]),
    ("chunk", lambda x: x.chunk(2, 0)[0]),
    ("diagonal", lambda x: x.diagonal()),
    ("detach", lambda x: x.detach()),
    ("flatten", lambda x: x.flatten()),
    ("chain", lambda x: x.t()[1:].unsqueeze(0).transpose(0, 2)),
]


@pytest.mark.parametrize("view", [v[1] for v in VIEWS], ids=[v[0] for v in VIEWS])
def test_views_share_memory_and_version(torch, view):
    def fn(lib):
        x = lib.arange(6.0).view(2, 3).clone()
        v = view(x)
        before = (x._version, v._version)
        x.add_(10)  # a change of the base shows in the view ...
        seen = v.clone()
        (v if v.stride() != (0, 1) else x).mul_(2)  # ... and an in-place op on the view in x
        return (before, x._version, v._version, seen, x, v, v.stride(), v.is_contiguous(),
                v._base is x or v._base is None and v is x)
    check_same(fn)


def test_reshape_copies_when_it_must(torch):
    def fn(lib):
        x = lib.arange(6.0).view(2, 3)
        y = x.t().reshape(6)
        y.add_(1)
        return x, y, y._base is None, x.t().reshape(3, 2)._base is x
    check_same(fn)


def test_view_errors(torch):
    check_error(lambda lib: lib.ones(2, 3).t().view(6))
    check_error(lambda lib: lib.ones(2, 3).view(4))
    check_error(lambda lib: lib.ones(2, 3).view(-1, -1))


def test_base_of_views(torch):
    def fn(lib):
        x = lib.ones(2, 3)
        v = x[0]
        w = v[1:]
        return x._base is None, v._base is x, w._base is x, v.detach()._base is None
    check_same(fn)


def test_version_counter_bumps(torch):
    def fn(lib):
        x = lib.zeros(3)
        versions = [x._version]
        for op in (lambda: x.add_(1), lambda: x.mul_(2), lambda: x.zero_(),
                   lambda: x.fill_(3), lambda: x.copy_(lib.ones(3)),
                   lambda: x.clamp_(0, 1), lambda: x.__setitem__(0, 5.0),
                   lambda: x.__setitem__(lib.tensor([1, 2]), 7.0), lambda: x.sub_(1),
                   lambda: x.div_(2)):
            op()
            versions.append(x._version)
        return versions, x
    check_same(fn)


def test_strides_and_contiguity(torch):
    makers = [lambda lib: lib.ones(2, 3, 4), lambda lib: lib.ones(2, 3).t(),
              lambda lib: lib.ones(2, 1, 3), lambda lib: lib.ones(0, 3),
              lambda lib: lib.ones(5)[::2], lambda lib: lib.ones(1, 3).expand(4, 3),
              lambda lib: lib.ones(2, 3, 4).permute(2, 0, 1),
              lambda lib: lib.ones(2, 3, 4)[:, 1], lambda lib: lib.tensor(1.0),
              lambda lib: lib.ones(3, 1).t(), lambda lib: lib.ones(4, 4)[::2, 1:3],
              lambda lib: lib.ones(1, 1, 2)[:, :, :1],
              lambda lib: lib.ones(2, 3).t().contiguous(), lambda lib: lib.ones(2, 3).t().clone(),
              lambda lib: lib.ones(3, 4)[1:2, 1:2], lambda lib: lib.ones(2, 3)[:, None],
              lambda lib: lib.ones(2, 3).t()[None], lambda lib: lib.ones(4, 3)[::2, None],
              lambda lib: lib.ones(3)[1:2], lambda lib: lib.ones(2, 3).unsqueeze(2),
              lambda lib: lib.ones(3, 4)[:, :0], lambda lib: lib.zeros(2, 0)]
    for make in makers:
        check_same(lambda lib: (make(lib).stride(), make(lib).is_contiguous()))


def test_contiguous_returns_self_or_copy(torch):
    for lib in (numtorch, torch):
        x = lib.ones(2, 3)
        assert x.contiguous() is x
        y = x.t().contiguous()
        assert y.is_contiguous() and y._base is None


# ---- .data, detach, requires_grad -----------------------------------------------------------
def test_data_property(torch):
    def fn(lib):
        x = _x(lib, True)
        d = x.data
        d[0, 0] = 100.0
        return x.detach(), d.requires_grad, d.is_leaf, x._version, d._version
    check_same(fn)


def test_data_setter(torch):
    def fn(lib):
        x = _x(lib, True)
        x.data = lib.zeros(4)
        return x.detach(), x.requires_grad, x.shape
    check_same(fn)


def test_detach_shares_memory_and_version(torch):
    def fn(lib):
        x = _x(lib, True)
        y = (x * 2)
        d = y.detach()
        d.add_(1)
        return d.requires_grad, d.is_leaf, d.grad_fn, y._version, y.detach()
    check_same(fn)


def test_detach_inplace(torch):
    def fn(lib):
        x = _x(lib, True)
        y = x * 2
        r = y.detach_()
        return r is y, y.requires_grad, y.is_leaf, y.grad_fn
    check_same(fn)


def test_detach_inplace_on_view_error(torch):
    check_error(lambda lib: (_x(lib, True) * 2)[0].detach_())


def test_requires_grad_rules(torch):
    def fn(lib):
        x = lib.ones(2)
        r = x.requires_grad_()
        y = x * 2
        y.requires_grad_(True)  # a non-leaf that requires grad already: allowed
        z = lib.ones(2).requires_grad_(False)
        x2 = lib.ones(2)
        x2.requires_grad = True
        return r is x, x.requires_grad, y.requires_grad, z.requires_grad, x2.requires_grad
    check_same(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2, dtype=lib.int64).requires_grad_(),
    lambda lib: lib.ones(2, dtype=lib.bool).requires_grad_(),
    lambda lib: (lib.ones(2, requires_grad=True) * 2).requires_grad_(False),
    lambda lib: setattr(lib.ones(2, requires_grad=True) * 2, "requires_grad", False),
    lambda lib: lib.tensor([1, 2], requires_grad=True),
    lambda lib: lib.ones(2).register_hook(lambda g: g),
    lambda lib: lib.ones(2).retain_grad(),
], ids=["int", "bool", "non-leaf-false", "non-leaf-setattr", "tensor-int", "hook", "retain"])
def test_requires_grad_errors(torch, fn):
    check_error(fn)


def test_grad_setter(torch):
    def fn(lib):
        x = lib.ones(2, requires_grad=True)
        x.grad = lib.full((2,), 3.0)
        g1 = x.grad
        del x.grad
        return g1, x.grad
    check_same(fn)


@pytest.mark.parametrize("bad", [lambda lib: lib.ones(3), lambda lib: lib.ones(2).double(),
                                 lambda lib: 1.0],
                         ids=["shape", "dtype", "not-tensor"])
def test_grad_setter_errors(torch, bad):
    def fn(lib):
        x = lib.ones(2, requires_grad=True)
        x.grad = bad(lib)
    check_error(fn)


def test_non_leaf_grad_access_warns(torch):
    for lib in (numtorch, torch):
        y = lib.ones(2, requires_grad=True) * 2
        with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
            assert y.grad is None


def test_legacy_constructor(torch):
    check_same(lambda lib: (lib.Tensor([1, 2]), lib.Tensor(2, 3).shape, lib.Tensor(),
                            lib.Tensor([[1.5]]).dtype))


def test_is_tensor_and_misc(torch):
    check_same(lambda lib: (lib.is_tensor(lib.ones(1)), lib.is_tensor([1]),
                            lib.numel(lib.ones(2, 3)), lib.is_floating_point(lib.ones(1)),
                            lib.is_nonzero(lib.tensor([1])), lib.typename(lib.ones(1))))


def test_plain_helper_compares_libraries(torch):
    assert plain(numtorch.ones(2)) == plain(torch.ones(2))
    assert plain(numtorch.ones(2)) != plain(torch.ones(2, dtype=torch.float64))


def test_apply_(torch):
    check_same(lambda lib: lib.arange(4).view(2, 2).t().apply_(lambda v: v * 10 + 0.5), exact=True)
    check_error(lambda lib: lib.ones(2, requires_grad=True).apply_(abs))


def test_nonleaf_grad_warning_text():
    import warnings
    def msg(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            (lib.ones(1, requires_grad=True) * 2).grad
        return str(w[0].message)
    check_same(msg)


def test_core_classes_print_as_pytorchs():
    # ``print(type(x))`` is PyTorch's, with or without the ``torch`` alias
    x = numtorch.ones(2)
    assert [str(type(v)) for v in (x, x.shape, x.device, numtorch.nn.Parameter(x), x.dtype)] == [
        "<class 'torch.Tensor'>", "<class 'torch.Size'>", "<class 'torch.device'>",
        "<class 'torch.nn.parameter.Parameter'>", "<class 'torch.dtype'>"]


def test_core_classes_pickle_without_a_torch_module():
    import pickle
    import subprocess
    import sys
    code = ("import pickle, sys, numtorch as t\n"
            "x = t.ones(2, requires_grad=True)\n"
            "objs = [x, x.shape, x.device, t.nn.Parameter(t.ones(1))]\n"
            "back = pickle.loads(pickle.dumps(objs))\n"
            "print([type(o).__name__ for o in back], back[0].requires_grad, "
            "'torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "['Tensor', 'Size', 'device', 'Parameter'] True False", \
        out.stderr
    assert pickle.loads(pickle.dumps(numtorch.Size([2, 3]))) == (2, 3)


def test_size_takes_numpy_names_itself(torch):
    # Tensor.size is hot (x.size(0) in every model): it takes ``axis`` itself instead of
    # going through ops/_numpy_names's wrapper, with PyTorch's errors
    assert not hasattr(numtorch.Tensor.size, "__wrapped__")
    for m in (numtorch, torch):
        y = m.ones(2, 3)
        assert (y.size(axis=1), y.size(dim=0), tuple(y.size())) == (3, 2, (2, 3))
    from helpers import check_error
    check_error(lambda m: m.ones(2, 3).size(dim=1, axis=1))
    check_error(lambda m: m.ones(2, 3).size(foo=1))
