"""Module machinery against PyTorch: train/eval through children's own ``train``, ``to``
dtype checks, deepcopy of parameters and of tensors sharing memory, ``load_state_dict``'s
per-module walk (overridable ``_load_from_state_dict``, key order, lazy layers, hooks),
``always_call`` forward hooks, legacy backward-hook warnings, ``skip_init``/``to_empty``."""
import copy
import os
import subprocess
import sys
import warnings

import pytest

import numtorch
from helpers import check_error


def _frozen_bn_net(nn):
    class FrozenBN(nn.Module):
        """Keeps its BatchNorm in eval mode whatever train() is asked (a common override)."""

        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(2)

        def train(self, mode=True):
            super().train(mode)
            self.bn.eval()
            return self

    return nn.Sequential(nn.Linear(2, 2), FrozenBN())


def test_train_runs_each_childs_own_train(torch):
    for lib in (numtorch, torch):
        net = _frozen_bn_net(lib.nn)
        net.train()
        assert [m.training for m in net.modules()] == [True, True, True, False]
        net.eval()
        assert not any(m.training for m in net.modules())


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_to_refuses_non_floating_dtypes(dtype):
    check_error(lambda lib: lib.nn.Linear(2, 2).to(getattr(lib, dtype)))


def test_to_converts_grads_and_keeps_parameter_objects():
    lin = numtorch.nn.Linear(2, 2)
    weight = lin.weight
    lin.weight.grad = numtorch.ones(2, 2)
    lin.double()
    assert lin.weight is weight and lin.weight.dtype is numtorch.float64
    assert lin.weight.grad.dtype is numtorch.float64


def test_assigning_a_tensor_to_a_parameter_names_its_type(torch):
    def assign(lib):
        lib.nn.Linear(2, 2).weight = lib.zeros(2, 2)
    check_error(assign)


def test_unflatten_checks_its_size_argument():
    check_error(lambda lib: lib.nn.Unflatten(1, 3))
    check_error(lambda lib: lib.nn.Unflatten(1, [3, "a"]))
    check_error(lambda lib: lib.nn.Unflatten("features", (("C", 2), ("H", 2))))


def test_deepcopy_of_a_parameter_drops_its_grad(torch):
    for lib in (numtorch, torch):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.ones(2)
        c = copy.deepcopy(p)
        assert type(c) is type(p) and c.requires_grad and c.grad is None
        t = lib.ones(2, requires_grad=True)
        t.grad = lib.ones(2)
        assert copy.deepcopy(t).grad is not None  # a plain tensor keeps it


def test_deepcopy_keeps_views_sharing_one_copy(torch):
    for lib in (numtorch, torch):
        x = lib.arange(6.0)
        xx, yy, zz = copy.deepcopy((x, x[2:], x.view(2, 3)))
        yy[0] = 100
        assert xx.tolist() == [0.0, 1.0, 100.0, 3.0, 4.0, 5.0]
        assert zz[0, 2].item() == 100 and x[2].item() == 2  # the original is untouched


def _load_errors(lib):
    net = lib.nn.Sequential(lib.nn.Linear(2, 2),
                            lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2)))
    sd = {"0.foo": lib.zeros(1), "extra": lib.zeros(1), "1.1.bar": lib.zeros(1),
          "1.zzz.q": 1, "9.weight": lib.zeros(1)}
    sd.update(net.state_dict())
    return net, sd


def test_unexpected_keys_are_listed_module_by_module(torch):
    check_error(lambda lib: _load_errors(lib)[0].load_state_dict(_load_errors(lib)[1]))
    mine = repr(_load_errors(numtorch)[0].load_state_dict(_load_errors(numtorch)[1],
                                                          strict=False))
    ref = repr(_load_errors(torch)[0].load_state_dict(_load_errors(torch)[1], strict=False))
    assert mine == ref


def test_overridden_load_from_state_dict_runs_for_each_module(torch):
    def run(lib):
        seen = []

        class Scaled(lib.nn.Linear):
            def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
                seen.append((prefix, sorted(state_dict), local_metadata))
                state_dict[prefix + "weight"] = state_dict[prefix + "weight"] * 2
                super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

        net = lib.nn.Sequential(lib.nn.ReLU(), Scaled(2, 2))
        sd = net.state_dict()
        result = repr(net.load_state_dict(sd))
        return seen, result, (net[1].weight == sd["1.weight"] * 2).all().item()
    assert run(numtorch) == run(torch)


def test_load_pre_hooks_see_the_entries_under_their_prefix(torch):
    def run(lib):
        seen = []
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 1))
        net[1].register_load_state_dict_pre_hook(
            lambda module, sd, prefix, *rest: seen.append((prefix, sorted(sd))))
        net.load_state_dict(net.state_dict())
        return seen
    assert run(numtorch) == run(torch)


def test_post_hook_returning_a_value_is_an_assertion_error():
    def load(lib):
        lin = lib.nn.Linear(2, 2)
        lin.register_load_state_dict_post_hook(lambda module, keys: 1)
        lin.load_state_dict(lin.state_dict())
    check_error(load)


def test_lazy_layers_take_the_loaded_shapes(torch):
    def run(lib):
        lazy = lib.nn.Sequential(lib.nn.LazyLinear(3), lib.nn.ReLU())
        keys = repr(lazy.load_state_dict(lib.nn.Sequential(lib.nn.Linear(4, 3)).state_dict()))
        return keys, repr(lazy), tuple(lazy[0].weight.shape), tuple(lazy(lib.ones(1, 4)).shape)
    assert run(numtorch) == run(torch)


def test_batchnorm_without_num_batches_tracked_loads():
    def load(lib, version):
        bn = lib.nn.BatchNorm1d(3)
        sd = bn.state_dict()
        del sd["num_batches_tracked"]
        sd._metadata[""] = {"version": version}
        return repr(bn.load_state_dict(sd, strict=False))
    torch = pytest.importorskip("torch")
    for version in (1, 2):
        assert load(numtorch, version) == load(torch, version)


def test_instance_norm_reports_untracked_running_stats():
    def load(lib):
        lib.nn.InstanceNorm1d(2).load_state_dict(
            {"running_mean": lib.zeros(2), "running_var": lib.ones(2)})
    check_error(load)


def test_always_call_forward_hooks_run_when_forward_raises(torch):
    def run(lib):
        seen = []

        class Boom(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        m = Boom()
        m.register_forward_hook(lambda mod, args, out: seen.append(("always", out)),
                                always_call=True)
        m.register_forward_hook(lambda mod, args, out: seen.append("plain"))
        with pytest.raises(ValueError, match="boom"):
            m(lib.ones(1))
        ok = lib.nn.Identity()
        ok.register_forward_hook(lambda mod, args, out: seen.append("once"), always_call=True)
        ok(lib.ones(1))
        return seen
    assert run(numtorch) == run(torch) == [("always", None), "once"]


def test_kwargs_pre_hook_must_return_a_pair():
    def call(lib):
        lin = lib.nn.Linear(2, 2)
        lin.register_forward_pre_hook(lambda m, args, kwargs: 5, with_kwargs=True)
        lin(lib.ones(1, 2))
    check_error(call)


def test_legacy_backward_hook_warns_as_torch(torch):
    def messages(lib):
        lin = lib.nn.Linear(2, 2)
        lin.register_backward_hook(lambda m, gi, go: None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lin(lib.ones(3, 2, requires_grad=True)).sum().backward()
        return [(w.category.__name__, str(w.message)) for w in caught]
    assert messages(numtorch) == messages(torch)
    assert messages(numtorch)


def test_skip_init_draws_no_random_numbers(torch):
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.utils.skip_init(lib.nn.Linear, 3, 2, bias=False, dtype=lib.float64)
        return repr(m), m.weight.dtype, m.weight.requires_grad, lib.rand(2).tolist()
    mine, ref = run(numtorch), run(torch)
    assert mine[0] == ref[0] and str(mine[1]) == str(ref[1]) and mine[2:] == ref[2:]
    check_error(lambda lib: lib.nn.utils.skip_init(int))
    check_error(lambda lib: lib.nn.utils.skip_init(lib.nn.Module))


TYPES_SCRIPT = """
import io, pickle
import torch
import torch.nn as nn
mods = [nn.Linear(1, 1), nn.LazyLinear(2), nn.LazyConv2d(2, 3), nn.MultiheadAttention(4, 2),
        nn.CosineSimilarity(), nn.Upsample(scale_factor=2), nn.PixelShuffle(2), nn.Fold(2, 2),
        nn.ChannelShuffle(2), nn.ZeroPad2d(1), nn.Sequential(), nn.Module()]
for m in mods:
    print(type(m), type(m).__module__)
print(type(nn.MultiheadAttention(4, 2).out_proj))
net = nn.Sequential(nn.Linear(2, 2), nn.CosineSimilarity())
print(pickle.loads(pickle.dumps(net)))
buf = io.BytesIO()
torch.save(net, buf)
print(torch.load(io.BytesIO(buf.getvalue()), weights_only=False))
"""


def test_layers_carry_torchs_class_names_under_the_alias(torch, tmp_path):
    """Where ``torch`` is numtorch, type(layer) prints PyTorch's class path and whole models
    still pickle; elsewhere (this process) classes keep numtorch's module names."""
    path = tmp_path / "types.py"
    path.write_text(TYPES_SCRIPT)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": root}
    mine = subprocess.run([sys.executable, "-m", "numtorch", str(path)], capture_output=True,
                          text=True, env=env, timeout=120)
    ref = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         timeout=120)
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == ref.stdout
    assert numtorch.nn.Linear.__module__ == "numtorch.nn.modules.linear"
    assert numtorch.nn.LazyLinear.__module__ == "numtorch.nn.modules.linear"
    assert numtorch.nn.modules.linear.LazyLinear is numtorch.nn.LazyLinear


def _compiled_grad_fns(lib):
    """grad_fn names after ``Module.compile()`` (aot_eager: PyTorch's compiled node without
    its C++ code generation) for a user model, a container of one, built-in layers."""
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(2, 2)

        def forward(self, x):
            return self.lin(x).relu()

    models = [Net(), lib.nn.Sequential(Net()), lib.nn.Linear(2, 2),
              lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())]
    out = []
    for m in models:
        m.compile(backend="aot_eager")
        y = m(lib.ones(1, 2))
        y.sum().backward()
        out.append((y.grad_fn.name(), type(m).__name__, list(m.state_dict())))
    return out


def test_module_compile_marks_user_forwards_as_pytorch(torch):
    # NOTE: PyTorch's compiler turns off distributions' argument validation process-wide
    # (torch._dynamo's export setup); put it back for the tests that compare those errors
    validate = torch.distributions.Distribution._validate_args
    try:
        assert _compiled_grad_fns(numtorch) == _compiled_grad_fns(torch)
    finally:
        torch.distributions.Distribution.set_default_validate_args(validate)
