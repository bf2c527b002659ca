"""``torch.Size`` and ``torch.device`` built from user input: what PyTorch accepts, and its
errors for the rest; placing data on a device numtorch lacks (CUDA) fails as on PyTorch's CPU
build."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, check_same_outcome


# ---- Size ----------------------------------------------------------------------------------
SIZE_ITEMS = {
    "ints": [2, 3], "bool": [True, 2], "np_int": [np.int32(2)], "int_tensor": "tensor(3)",
    "one_int_tensor": "tensor([3])", "empty": [], "np_array": np.array([2, 3]),
    "range": range(3), "negative": [-5],
}
BAD_SIZE_ITEMS = {
    "float": [1.5], "str": [2, "a"], "np_float": [np.float64(2.0)], "none": [None],
    "nested": [[2]], "float_tensor": "tensor(3.)", "two_element_tensor": "tensor([1, 2])",
    "chars": "12", "not_iterable": 3.0,
}


def _items(lib, items):
    if isinstance(items, str) and items.startswith("tensor("):
        return [lib.tensor(eval(items[len("tensor("):-1]))]
    return items


@pytest.mark.parametrize("items", SIZE_ITEMS.values(), ids=SIZE_ITEMS.keys())
def test_size_from_ints(torch, items):
    check_same(lambda lib: (repr(lib.Size(_items(lib, items))),
                            [type(n).__name__ for n in lib.Size(_items(lib, items))]))


@pytest.mark.parametrize("items", BAD_SIZE_ITEMS.values(), ids=BAD_SIZE_ITEMS.keys())
def test_size_rejects_non_ints(items):
    check_error(lambda lib: lib.Size(_items(lib, items)))


@pytest.mark.parametrize("op", [
    lambda lib, s: s + (1.5,), lambda lib, s: s + [1], lambda lib, s: s * 1.5,
    lambda lib, s: repr(s[1:]), lambda lib, s: type(s[1:]).__name__,
    lambda lib, s: repr(s * 2), lambda lib, s: repr((1,) + s), lambda lib, s: repr(s + (4,)),
    lambda lib, s: lib.Size(), lambda lib, s: lib.Size([1], [2]),
])
def test_size_arithmetic(torch, op):
    check_same_outcome(lambda lib: op(lib, lib.ones(2, 3).shape))


# ---- device --------------------------------------------------------------------------------
DEVICE_ARGS = [("cpu",), ("cuda",), ("cuda:1",), ("cpu", 0), ("cuda", 2), ("meta",),
               ("xla:2",), ("privateuseone",), (b"cpu",), ("cpu", None), ("cpu", np.int64(1))]
BAD_DEVICE_ARGS = [("foo",), ("CPU",), ("c_u",), ("cpu:-1",), ("cpu", -1), ("cuda:x",), ("",),
                   (" cpu",), ("cpu:0:1",), ("cpu1",), ("cpu:",), (":1",), ("cpu:01",),
                   ("cuda:+1",), ("cpu:99999999999",), ("cuda:0", 1), ("cpu", "a"),
                   ("cpu", 1.0), ("cpu", True), (0,), (None,), (1.5,)]


@pytest.mark.parametrize("args", DEVICE_ARGS, ids=repr)
def test_device_parses_as_pytorch(torch, args):
    check_same(lambda lib: (repr(lib.device(*args)), str(lib.device(*args))))


@pytest.mark.parametrize("args", BAD_DEVICE_ARGS, ids=repr)
def test_device_errors(args):
    check_error(lambda lib: lib.device(*args))


def test_device_keywords_and_copies(torch):
    check_same(lambda lib: (repr(lib.device(type="cpu", index=3)), repr(lib.device(device="cpu")),
                            repr(lib.device(lib.device("cuda", 1)))))
    check_error(lambda lib: lib.device(lib.device("cuda", 1), 2))


def test_device_equals_devices_only(torch):
    check_same(lambda lib: (lib.device("cpu") == "cpu", "cpu" == lib.device("cpu"),
                            lib.device("cpu") != "cpu", lib.device("cpu") == lib.device("cpu"),
                            lib.device("cpu", 0) == lib.device("cpu"),
                            {lib.device("cpu"): 1}[lib.device("cpu")]))


@pytest.mark.parametrize("make", [
    lambda lib: lib.ones(2, device="cuda"), lambda lib: lib.tensor([1.0], device="cuda:0"),
    lambda lib: lib.ones(2).to("cuda"), lambda lib: lib.ones(2).cuda(),
    lambda lib: lib.nn.Linear(2, 2).cuda(), lambda lib: lib.nn.Linear(2, 2).to("cuda"),
    lambda lib: lib.ones(2, device=0), lambda lib: lib.ones(2).to(0),
    lambda lib: lib.ones(2, device="foo"),
])
def test_cuda_and_bad_devices_fail_as_on_a_cpu_build(make):
    check_error(make)


def test_module_without_tensors_moves_to_cuda_as_a_no_op(torch):
    check_same(lambda lib: repr(lib.nn.ReLU().cuda()))


def test_cpu_device_strings_place_data(torch):
    check_same(lambda lib: [repr(lib.ones(1, device=d)) for d in ("cpu", "cpu:0")])
    assert numtorch.ones(1, device=numtorch.device("cpu")).device == numtorch.device("cpu")


# ---- sizes given to the factories -------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda lib: lib.zeros((2, 3), 4), lambda lib: lib.ones([2], [3]),
    lambda lib: lib.empty((2,), 3, 4), lambda lib: lib.zeros(lib.Size([2]), 3),
    lambda lib: lib.zeros(2.0, 3), lambda lib: lib.zeros(2, (3,)), lambda lib: lib.ones(2, None),
    lambda lib: lib.rand((2,), 3), lambda lib: lib.randn([2], 3), lambda lib: lib.zeros(None),
])
def test_factory_size_errors(make):
    check_error(make)
