"""Sweep AC (printing, second pass): Parameter subclasses, torch.return_types as PyTorch's
structseq, legacy slogdet/qr result types, complex -> real scalar conversion."""
import copy
import pickle
import sys

import pytest

import numtorch
from helpers import check_error

torch = pytest.importorskip("torch")


def _param_subclass(lib):
    class MyP(lib.nn.Parameter):
        pass
    return MyP


@pytest.mark.parametrize("requires_grad", [True, False])
def test_parameter_subclass_repr_wraps_in_parameter(requires_grad):
    mine = _param_subclass(numtorch)(numtorch.ones(2), requires_grad=requires_grad)
    ref = _param_subclass(torch)(torch.ones(2), requires_grad=requires_grad)
    assert repr(mine) == repr(ref)
    assert str(mine) == str(ref)


def test_plain_parameter_and_tensor_subclass_reprs_unchanged():
    class MyT(numtorch.Tensor):
        pass

    class RefT(torch.Tensor):
        pass
    RefT.__name__ = "MyT"
    assert repr(numtorch.nn.Parameter(numtorch.ones(2))) == \
        repr(torch.nn.Parameter(torch.ones(2)))
    assert repr(numtorch.ones(2).as_subclass(MyT)) == repr(torch.ones(2).as_subclass(RefT))


@pytest.mark.filterwarnings("ignore:torch.qr is deprecated")
@pytest.mark.parametrize("op", ["slogdet", "qr"])
def test_legacy_linalg_return_type_names(op):
    mine = getattr(numtorch, op)(numtorch.eye(2) * 2)
    ref = getattr(torch, op)(torch.eye(2) * 2)
    assert type(mine).__name__ == type(ref).__name__
    assert repr(mine) == repr(ref)


STRUCTSEQ = [
    ("from-sequence", lambda lib: repr(lib.return_types.max((1, 2)))),
    ("with-dict", lambda lib: repr(lib.return_types.max([1, 2], {}))),
    ("fields", lambda lib: (lib.return_types.topk((3, 4)).indices,
                            lib.return_types.topk((3, 4)).n_fields,
                            lib.return_types.topk((3, 4)).n_sequence_fields,
                            lib.return_types.topk((3, 4)).n_unnamed_fields)),
    ("slice-is-tuple", lambda lib: type(lib.tensor([1., 3.]).max(0)[0:1]).__name__),
    ("concat-is-tuple", lambda lib: type(lib.tensor([1., 3.]).max(0) + (1,)).__name__),
    ("mro", lambda lib: [c.__name__ for c in type(lib.tensor([1.]).max(0)).__mro__]),
    ("match-args", lambda lib: type(lib.tensor([1.]).sort()).__match_args__),
    ("deepcopy", lambda lib: repr(copy.deepcopy(lib.tensor([2., 1.]).sort()))),
    # (pickling itself resolves torch.return_types by name, so it is checked in one library)
    ("reduce", lambda lib: repr(lib.tensor([2., 1.]).sort().__reduce__()[1])),
]


@pytest.mark.parametrize("fn", [c[1] for c in STRUCTSEQ], ids=[c[0] for c in STRUCTSEQ])
def test_return_types_behave_as_structseq(fn):
    assert fn(numtorch) == fn(torch)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.return_types.max(),
    lambda lib: lib.return_types.max([1, 2], {}, 3),
    lambda lib: lib.return_types.max([1, 2, 3]),
    lambda lib: lib.return_types.max([1]),
    lambda lib: lib.tensor([1.]).max(0)._asdict(),
], ids=["no-args", "three-args", "long-seq", "short-seq", "asdict"])
def test_return_types_errors(fn):
    # NOTE: max(seq, 5) is not among them: numtorch's ops build two-field results as
    # max(values, indices), so a non-dict second argument is taken as the second value
    check_error(fn)


def test_return_types_pickle_round_trip():
    r = numtorch.tensor([2., 1.]).sort()
    module = type(r).__module__
    # pickle finds the class under its printed module, as `numtorch run` aliases it
    saved = sys.modules.get(module)
    sys.modules[module] = numtorch.return_types
    try:
        back = pickle.loads(pickle.dumps(r))
    finally:
        if saved is None:
            del sys.modules[module]
        else:
            sys.modules[module] = saved
    assert type(back) is type(r) and repr(back) == repr(r)


@pytest.mark.parametrize("convert", [float, int, complex, bool])
@pytest.mark.parametrize("value", [1 + 0j, 1 + 2j, 2.7 - 0j, -3j])
def test_complex_scalar_conversion(convert, value):
    def run(lib):
        return convert(lib.tensor(value))
    if value.imag and convert in (float, int):
        check_error(run)
    else:
        assert run(numtorch) == run(torch)


def test_printoptions_lives_in_tensor_str_only():
    # torch has no top-level printoptions; the context manager is torch._tensor_str's
    assert hasattr(numtorch, "printoptions") == hasattr(torch, "printoptions")
    with numtorch._tensor_str.printoptions(precision=1):
        assert repr(numtorch.tensor([1.25])) == "tensor([1.2])"
    assert repr(numtorch.tensor([1.25])) == "tensor([1.2500])"


def test_factory_error_names_factory_once_dispatch_is_enabled():
    # defining a Tensor subclass installs the __torch_function__ wrappers; a factory's
    # argument error must still name the factory, not the wrapper's frames
    class Sub(numtorch.Tensor):
        pass
    assert numtorch.overrides._ENABLED
    check_error(lambda lib: lib.empty_like(lib.ones(2), requires_grad=1))
    check_error(lambda lib: lib.zeros_like(lib.ones(2), requires_grad="x"))
