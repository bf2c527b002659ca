"""Storages of tensors: ``storage_offset``, ``untyped_storage``, ``storage``, ``is_set_to`` and
the UntypedStorage / TypedStorage objects, against PyTorch; saving a storage round trip."""
import io
import warnings

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same


@pytest.fixture(autouse=True)
def _quiet_typed_storage():
    """``Tensor.storage()`` warns once per process in both libraries; the warning has its own
    test, the others call it freely."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "TypedStorage is deprecated", UserWarning)
        yield


# views of a buffer, and tensors that own theirs (PyTorch's storage offset and size for each)
TENSORS = [
    ("fresh", lambda L: L.arange(6.).view(2, 3)),
    ("rows", lambda L: L.arange(6.).view(2, 3)[1:]),
    ("columns", lambda L: L.arange(6.).view(2, 3)[:, 1:]),
    ("t", lambda L: L.arange(6.).view(2, 3).t()),
    ("t-slice", lambda L: L.arange(12.).view(3, 4).t()[1:]),
    ("narrow", lambda L: L.arange(12.).view(3, 4).narrow(1, 2, 2)),
    ("select", lambda L: L.arange(12.).view(3, 4).select(0, 2)),
    ("select-column", lambda L: L.arange(12.).view(3, 4).select(1, 3)),
    ("unfold", lambda L: L.arange(10.).unfold(0, 3, 2)[1:]),
    ("diagonal", lambda L: L.arange(16.).view(4, 4).diagonal(1)),
    ("diagonal-below", lambda L: L.arange(16.).view(4, 4).diagonal(-2)),
    ("expand", lambda L: L.arange(3.)[1:].expand(4, 2)),
    ("view", lambda L: L.arange(12.)[2:].view(2, 5)),
    ("reshape", lambda L: L.arange(12.)[2:].reshape(5, 2)),
    ("step", lambda L: L.arange(12.)[1::3]),
    ("unsqueeze", lambda L: L.arange(12.)[3:].unsqueeze(0)),
    ("chunk", lambda L: L.arange(12.).chunk(3)[2]),
    ("split", lambda L: L.arange(12.).view(3, 4).split(1, 1)[2]),
    ("unbind", lambda L: L.arange(12.).view(3, 4).unbind(0)[1]),
    ("permute", lambda L: L.arange(24.).view(2, 3, 4).permute(2, 0, 1)[1]),
    ("movedim", lambda L: L.arange(24.).view(2, 3, 4).movedim(0, 2)[1:]),
    ("squeeze", lambda L: L.arange(6.).view(1, 6)[:, 2:].squeeze(0)),
    ("view-dtype", lambda L: L.arange(6.)[2:].view(L.int32)),
    ("int", lambda L: L.arange(10)[4:]),
    ("bool", lambda L: L.tensor([True, False, True])[1:]),
    ("complex", lambda L: L.ones(4, dtype=L.complex128)[1:]),
    ("view-as-real", lambda L: L.view_as_real(L.arange(6.).to(L.complex64)[1:])),
    ("0d", lambda L: L.tensor(5.)),
    ("0d-element", lambda L: L.arange(5.)[3]),
    ("empty", lambda L: L.zeros(0)),
    ("detach", lambda L: L.arange(6.)[2:].detach()),
    ("data", lambda L: L.arange(6.)[2:].data),
    ("clone", lambda L: L.arange(6.)[2:].clone()),
    ("contiguous", lambda L: L.arange(6.).view(2, 3).t().contiguous()),
    ("flip", lambda L: L.arange(6.).flip(0)),
    ("index", lambda L: L.arange(6.)[L.tensor([1, 2])]),
    ("ones", lambda L: L.ones(2, 3)),
    ("zeros-like", lambda L: L.zeros_like(L.ones(2, 3).t())),
    ("full", lambda L: L.full((2, 3), 2.0)),
    ("eye", lambda L: L.eye(3)),
    ("sum", lambda L: L.ones(3, 4).sum(0)),
    ("add", lambda L: L.ones(3, 4) + 1),
    ("matmul", lambda L: L.ones(3, 4) @ L.ones(4, 2)),
    ("cat", lambda L: L.cat([L.ones(2), L.zeros(3)])),
    ("tensor", lambda L: L.tensor([[1, 2], [3, 4]])),
]


@pytest.mark.parametrize("make", [t[1] for t in TENSORS], ids=[t[0] for t in TENSORS])
def test_storage_offset_and_size(torch, make):
    def fn(lib):
        x = make(lib)
        s, ts = x.untyped_storage(), x.storage()
        return (x.storage_offset(), s.nbytes(), s.size(), len(s), s.element_size(),
                ts.size(), len(ts), ts.nbytes(), ts.element_size(), ts.dtype, ts.device)
    check_same(fn)


@pytest.mark.parametrize("make", [t[1] for t in TENSORS if t[0] != "empty"],
                         ids=[t[0] for t in TENSORS if t[0] != "empty"])
def test_storage_is_the_buffer_not_a_copy(torch, make):
    def fn(lib):
        x = make(lib)
        s, ts = x.untyped_storage(), x.storage()
        start = x.data_ptr() - x.storage_offset() * x.element_size()
        return (s.data_ptr() == start, ts.data_ptr() == start, ts.untyped().data_ptr() == start,
                ts.tolist() == list(ts), ts[x.storage_offset()] == x.reshape(-1)[0].item())
    check_same(fn)


def test_views_share_one_storage(torch):
    def fn(lib):
        x = lib.arange(6.).view(2, 3)
        views = [x[1:], x.t(), x[:, 2], x.view(6)[::2], x.detach(), x.unsqueeze(0)]
        ptr = x.untyped_storage().data_ptr()
        return ([v.untyped_storage().data_ptr() == ptr for v in views],
                x.clone().untyped_storage().data_ptr() == ptr,
                x.untyped_storage().data_ptr() == x[1:].untyped_storage().data_ptr())
    check_same(fn)


def test_typed_storage_reads_and_writes_the_tensor(torch):
    def fn(lib):
        x = lib.arange(6.).view(2, 3)
        ts = x[1:].storage()
        ts[0] = 9.5
        ts[-1] = 7
        ts[1:3] = -1.0
        ts[4:5] = lib.tensor([8.0])
        return ts.tolist(), ts[1], ts[-2], x, ts.size()
    check_same(fn)
    check_same(lambda lib: (lambda x: (x.storage().__setitem__(True, 2.0), x))(lib.arange(3.)))


@pytest.mark.parametrize("key,value", [(0, "a"), (1, None), (10, 1.0), (-7, 1.0), ("a", 1.0),
                                       (np.int64(1), 1.0), (1.0, 1.0)],
                         ids=["str-value", "None-value", "past-end", "before-start", "str-key",
                              "numpy-key", "float-key"])
def test_typed_storage_write_errors(torch, key, value):
    check_error(lambda lib: lib.arange(6.).storage().__setitem__(key, value))


def test_untyped_storage_bytes(torch):
    def fn(lib):
        s = lib.tensor([1.0, -2.0]).untyped_storage()
        part = s[2:6]
        return (s.tolist(), s[3], s[-1], s[np.int64(2)], part.nbytes(),
                part.data_ptr() - s.data_ptr(), part.tolist(), s[30:40].nbytes(), list(s)[:4])
    check_same(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.arange(6.).storage()[6], lambda lib: lib.arange(6.).storage()[-7],
    lambda lib: lib.arange(6.).storage()["a"], lambda lib: lib.arange(6.).storage()[1:3],
    lambda lib: lib.arange(6.).storage()[1.0], lambda lib: lib.arange(6.).storage()[True],
    lambda lib: lib.arange(6.).storage()[np.int64(1)],
    lambda lib: lib.arange(6.).storage()[lib.tensor(1)],
    lambda lib: lib.arange(6.).untyped_storage()[24],
    lambda lib: lib.arange(6.).untyped_storage()[-25],
    lambda lib: lib.arange(6.).untyped_storage()[True],
    lambda lib: lib.arange(6.).untyped_storage()["a"],
    lambda lib: lib.arange(6.).untyped_storage()[1.0],
    lambda lib: lib.arange(6.).untyped_storage()[::2],
    lambda lib: lib.arange(6.).untyped_storage()[lib.tensor(1)],
], ids=["typed-past-end", "typed-before-start", "typed-str", "typed-slice", "typed-float",
        "typed-bool", "typed-numpy-int", "typed-tensor", "untyped-past-end",
        "untyped-before-start", "untyped-bool", "untyped-str", "untyped-float", "untyped-step",
        "untyped-tensor"])
def test_storage_index_errors(torch, fn):
    check_error(fn)


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([0.1, 2.5]), lambda lib: lib.tensor([True, False]),
    lambda lib: lib.tensor([1 + 2j]), lambda lib: lib.tensor([1.0], dtype=lib.float16),
    lambda lib: lib.arange(3)[1:], lambda lib: lib.zeros(0),
], ids=["float", "bool", "complex", "half", "int-view", "empty"])
def test_storage_repr(torch, make):
    check_same(lambda lib: (repr(make(lib).storage()), str(make(lib).storage()),
                            repr(make(lib).untyped_storage())))


def test_typed_storage_warns_once_as_pytorch(torch, monkeypatch):
    from numtorch import storage
    monkeypatch.setattr(storage, "_WARNED", [False])
    monkeypatch.setitem(torch.storage._warn_typed_storage_removal.__dict__, "has_warned", False)

    def fn(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.ones(2).storage()
            lib.ones(2).storage()  # the second call is silent
        assert caught[0].filename == __file__  # it names the caller
        return [(w.category.__name__, str(w.message)) for w in caught]
    check_same(fn)
    assert numtorch.ones(1).untyped_storage().nbytes() == 4  # untyped_storage never warns


@pytest.mark.parametrize("other", [
    lambda x: x, lambda x: x.detach(), lambda x: x.data, lambda x: x.view(2, 3),
    lambda x: x.view(6), lambda x: x[:], lambda x: x.clone(), lambda x: x.view(6)[::1],
    lambda x: x.t().t(), lambda x: x[1:], lambda x: x.view(torch_int32(x)),
], ids=["self", "detach", "data", "view-same", "view-other", "slice-all", "clone",
        "flat-slice", "t-t", "rows", "view-dtype"])
def test_is_set_to(torch, other):
    check_same(lambda lib: (lambda x: (x.is_set_to(other(x)), other(x).is_set_to(x)))(
        lib.arange(6.).view(2, 3)))


def torch_int32(x):
    """The int32 dtype of the library ``x`` belongs to (numtorch or torch)."""
    return numtorch.int32 if isinstance(x, numtorch.Tensor) else __import__("torch").int32


def test_is_set_to_more(torch):
    def fn(lib):
        y = lib.ones(2, 2)
        e = lib.empty(0)
        return (y[0].is_set_to(y[1]), y.t().is_set_to(y.t()), e.is_set_to(e),
                lib.empty(0).is_set_to(lib.empty(0)), y[:, :1].is_set_to(y[:, :1]),
                lib.ones(1, 3).expand(2, 3).is_set_to(lib.ones(1, 3).expand(2, 3)))
    check_same(fn)
    check_error(lambda lib: lib.ones(2).is_set_to(1))
    check_error(lambda lib: lib.ones(2).is_set_to([1.0, 1.0]))


def test_is_storage(torch):
    check_same(lambda lib: (lib.is_storage(lib.ones(2).untyped_storage()),
                            lib.is_storage(lib.ones(2).storage()), lib.is_storage(lib.ones(2)),
                            isinstance(lib.ones(2).storage(), lib.TypedStorage),
                            isinstance(lib.ones(2).untyped_storage(), lib.UntypedStorage)))


def test_saving_a_tensors_storage_round_trip():
    x = numtorch.arange(6.).view(2, 3)
    buf = io.BytesIO()
    numtorch.save({"s": x.storage(), "x": x[1:]}, buf)
    got = numtorch.load(io.BytesIO(buf.getvalue()), weights_only=False)
    assert type(got["s"]) is numtorch.TypedStorage and got["s"].tolist() == list(range(6))
    assert got["x"].storage_offset() == 3 and got["x"].tolist() == [[3.0, 4.0, 5.0]]
    assert got["x"].untyped_storage().data_ptr() == got["s"].data_ptr()


def test_saving_storages_as_pytorch(torch):
    def saved(lib, obj):
        buf = io.BytesIO()
        lib.save(obj, buf)
        got = lib.load(io.BytesIO(buf.getvalue()), weights_only=False)
        return type(got).__name__, got.dtype, got.tolist()
    check_same(lambda lib: (saved(lib, lib.arange(6.)[1:].storage()),
                            saved(lib, lib.arange(3.)[1:].untyped_storage())))
    # a tensor's bytes saved both untyped and as float32 are refused
    check_error(lambda lib: (lambda x: lib.save({"s": x.untyped_storage(), "x": x[1:]},
                                                io.BytesIO()))(lib.arange(6.)))


def test_storage_offset_without_torch():
    x = numtorch.arange(12.).view(3, 4)
    assert x.storage_offset() == 0
    assert x[1:].storage_offset() == 4 and x[:, 2].storage_offset() == 2
    assert x.t()[1:].storage_offset() == 1 and x[2, 3].storage_offset() == 11
    assert x.untyped_storage().nbytes() == 48 == x[1:].untyped_storage().nbytes()
    assert x[2:].storage().tolist() == list(range(12))


def test_doctests():
    import doctest
    from numtorch import _tensor
    result = doctest.testmod(_tensor, extraglobs={"torch": numtorch})
    assert result.failed == 0 and result.attempted > 0
