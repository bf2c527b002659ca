"""The nn.Module API as scripts use it, against PyTorch (sweep AA): what full backward hooks
receive for inputs the output does not depend on, a hook's gradient of the wrong size, the
global deprecated backward hook and registration hooks, ``get_buffer``/``set_submodule``
errors, ``RemovableHandle``'s ids and state, ``torch.save``'s pickling errors and hook
warnings."""
import io
import re
import warnings

import pytest

import numtorch
from helpers import check_error, check_same


def _hook_log(lib):
    """What a full backward hook sees on a module with an unused input and an output that
    does not require grad (PyTorch hands zeros for the unused input, None for the output)."""
    class Two(lib.nn.Module):
        def forward(self, x, y, flag=True):
            return x * 2, y.detach() + 1, 3

    seen = []
    m = Two()
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    lib.manual_seed(0)
    x = lib.randn(2, requires_grad=True)
    y = lib.randn(2, requires_grad=True)
    a, _, _ = m(x, y, False)
    a.sum().backward()
    return seen, x.grad, y.grad


def test_full_backward_hook_gets_zeros_for_an_unused_input(torch):
    check_same(_hook_log, exact=True)


def test_full_backward_hook_zeros_for_an_input_not_requiring_grad(torch):
    def run(lib):
        class Multi(lib.nn.Module):
            def forward(self, x, y):
                return x * y, x + y

        seen = []
        m = Multi()
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
        x = lib.ones(2, requires_grad=True)
        _, q = m(x, lib.ones(2))
        q.sum().backward()
        return seen, x.grad

    check_same(run, exact=True)


def test_full_backward_hook_returning_a_wrong_size(torch):
    def run(lib):
        lin = lib.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda m, gi, go: (lib.ones(3),))
        lin(lib.ones(1, 2, requires_grad=True)).sum().backward()

    check_error(run)


def _reset_global_kind(torch):
    # neither library forgets which kind of global backward hook was registered
    numtorch.nn.modules.module._global_is_full_backward_hook = None
    torch.nn.modules.module._global_is_full_backward_hook = None


def test_global_deprecated_backward_hook(torch):
    def run(lib):
        seen = []
        handle = lib.nn.modules.module.register_module_backward_hook(
            lambda m, gi, go: seen.append((type(m).__name__, len(gi), len(go))))
        try:
            lin = lib.nn.Linear(2, 2)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lin(lib.ones(3, 2, requires_grad=True)).sum().backward()
            with pytest.raises(RuntimeError, match="as a global Module hook"):
                lib.nn.modules.module.register_module_full_backward_hook(print)
        finally:
            handle.remove()
        return seen

    try:
        check_same(run, exact=True)
    finally:
        _reset_global_kind(torch)


def test_global_registration_hooks(torch):
    def run(lib):
        mm = lib.nn.modules.module
        seen = []
        handles = [
            mm.register_module_buffer_registration_hook(
                lambda m, n, b: seen.append(("buffer", type(m).__name__, n))),
            mm.register_module_module_registration_hook(
                lambda m, n, c: seen.append(("module", type(m).__name__, n))),
            mm.register_module_parameter_registration_hook(
                lambda m, n, p: seen.append(("param", type(m).__name__, n)))]
        try:
            net = lib.nn.Sequential(lib.nn.Linear(1, 2), lib.nn.BatchNorm1d(2))
            net.extra = lib.nn.ReLU()
            net[1].running_mean = lib.ones(2)
            net.add_module("z", lib.nn.Tanh())
        finally:
            for h in handles:
                h.remove()
        lib.nn.Linear(1, 1)
        return seen

    check_same(run, exact=True)


def test_registration_hook_result_replaces_the_value(torch):
    def run(lib):
        h = lib.nn.modules.module.register_module_parameter_registration_hook(
            lambda m, n, p: lib.nn.Parameter(p.detach() * 0))
        try:
            return lib.nn.Linear(2, 1).weight
        finally:
            h.remove()

    check_same(run, exact=True)


@pytest.mark.parametrize("target", ["zz", "0.weight", "3.b"])
def test_get_buffer_errors(torch, target):
    def run(lib):
        net = lib.nn.Sequential(lib.nn.Linear(2, 2))
        net.register_buffer("b", lib.zeros(1))
        net.get_buffer(target)

    check_error(run)


def test_set_submodule(torch):
    def run(lib):
        net = lib.nn.Sequential(lib.nn.Linear(2, 2),
                                lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Linear(2, 1)))
        net.set_submodule("1.0", lib.nn.Tanh())
        net.set_submodule("new", lib.nn.Sigmoid())
        return repr(net)

    check_same(run, exact=True)


@pytest.mark.parametrize("args", [("", "relu"), ("1.0", 3), ("1.zz", "relu", True),
                                  ("0.weight", "relu"), ("5.x", "relu")])
def test_set_submodule_errors(torch, args):
    def run(lib):
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.ReLU()))
        net.set_submodule(*[lib.nn.ReLU() if a == "relu" else a for a in args])

    check_error(run)


def test_removable_handle_ids_and_state(torch):
    def run(lib):
        start = lib.utils.hooks.RemovableHandle.next_id
        m = lib.nn.Linear(1, 1)
        h = m.register_forward_hook(print)
        state = h.__getstate__()
        h2 = lib.utils.hooks.RemovableHandle.__new__(lib.utils.hooks.RemovableHandle)
        h2.__setstate__(state)
        h2.remove()
        return h.id - start, lib.utils.hooks.RemovableHandle.next_id - start, \
            len(m._forward_hooks), state[1] - start

    check_same(run, exact=True)


def _save_error(lib, obj):
    lib.save(obj, io.BytesIO())


def test_save_of_a_lambda_hook_names_it_as_the_c_pickler(torch):
    # (a local lambda here: an AttributeError naming it; the message holds no address)
    def run(lib):
        lin = lib.nn.Linear(1, 1)
        lin.register_forward_hook(lambda m, i, o: None)
        try:
            _save_error(lib, lin)
        except Exception as e:  # noqa: BLE001  (the type and message are compared)
            return type(e).__name__, re.sub(" at 0x[0-9a-f]+", "", str(e))

    check_same(run, exact=True)


def test_save_of_a_local_class_is_an_attribute_error(torch):
    def run(lib):
        class Local(lib.nn.Module):
            pass

        _save_error(lib, Local())

    check_error(run)


def test_save_warns_for_a_tensor_with_hooks(torch):
    def run(lib):
        def hook(g):
            return g

        x = lib.ones(2, requires_grad=True)
        x.register_hook(hook)
        y = lib.ones(2, requires_grad=True)
        y.register_hook(lib.utils.hooks.unserializable_hook(hook))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.save([x, y], io.BytesIO())
        return [str(m.message).split(" at 0x")[0] for m in w]

    check_same(run, exact=True)


def test_c_pickler_messages_for_globals():
    # numtorch pickles with the pure Python Pickler: its lookup errors are reworded as the C one
    from numtorch.serialization import _c_pickler_error
    import pickle
    import types

    def local():
        pass

    elsewhere = types.FunctionType(local.__code__, {}, "f")
    elsewhere.__module__, elsewhere.__qualname__ = "no_such_module_aa", "f"
    for obj in (local, elsewhere, (lambda: 0)):
        try:
            pickle.Pickler(io.BytesIO()).dump(obj)
        except Exception as e:  # noqa: BLE001  (compared with ours)
            ref = e
        mine = _c_pickler_error(obj, None)
        assert (type(mine), str(mine)) == (type(ref), str(ref))
    assert _c_pickler_error(io.BytesIO, None) is None


def test_zero_grad_keeps_the_gradient_tensor(torch):
    def run(lib):
        lin = lib.nn.Linear(2, 1)
        x = lib.ones(1, 2, requires_grad=True)
        lin(x).sum().backward()
        g = lin.weight.grad
        lin.zero_grad(set_to_none=False)
        same = lin.weight.grad is g
        lin.weight.grad = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # PyTorch's reference-cycle warning
            lin(x).sum().backward(create_graph=True)
        g2 = lin.weight.grad
        lin.zero_grad(set_to_none=False)
        return same, lin.weight.grad is g2, g2.requires_grad, g2.grad_fn is None, g, g2

    check_same(run, exact=True)


@pytest.mark.parametrize("kind", ["dict", "list"])
def test_backward_hook_warns_for_an_output_not_a_tensor_or_tuple(torch, kind):
    def run(lib):
        class Out(lib.nn.Module):
            def forward(self, x):
                return {"a": x * 2} if kind == "dict" else [x * 2]

        m = Out()
        m.register_full_backward_hook(lambda mod, gi, go: None)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m(lib.ones(2, requires_grad=True))
        return [str(a.message) for a in w]

    check_same(run, exact=True)
