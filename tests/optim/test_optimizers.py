"""Optimizers against PyTorch: the same model, data and seed give the same parameters after
20 steps (1e-6), plus state_dict, param groups, hooks and errors."""
import copy

import numpy as np
import pytest

import numtorch
from helpers import check_error


def _train(lib, name, kwargs, steps=20, closure=False):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3))
    x, y = lib.randn(16, 4), lib.randint(0, 3, (16,))
    opt = getattr(lib.optim, name)(model.parameters(), **kwargs)

    def loss_fn():
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        return loss

    for _ in range(steps):
        if closure:
            opt.step(loss_fn)
        else:
            loss_fn()
            opt.step()
    return [p.detach().numpy().copy() for p in model.parameters()], opt


CASES = [
    ("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
    ("Adam", {"lr": 0.01}), ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.9), "maximize": True}),
    ("AdamW", {"lr": 0.01}), ("AdamW", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.9, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}),
    ("Adadelta", {}), ("Adadelta", {"lr": 0.5, "weight_decay": 0.1, "rho": 0.8}),
    ("Adamax", {"lr": 0.01}), ("Adamax", {"lr": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01}), ("RAdam", {"lr": 0.01, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("ASGD", {"lr": 0.01}), ("ASGD", {"lr": 0.05, "t0": 5, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 3, "maximize": True}),
    ("Rprop", {"lr": 0.01}), ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.1)}),
    ("Rprop", {"lr": 0.01, "maximize": True}),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in
                                                    enumerate(CASES)])
def test_twenty_steps_match_torch(torch, name, kwargs):
    mine, opt_m = _train(numtorch, name, kwargs)
    ref, opt_r = _train(torch, name, kwargs)
    for m, r in zip(mine, ref):
        np.testing.assert_allclose(m, r, rtol=0, atol=1e-6)
    assert repr(opt_m) == repr(opt_r)
    sd_m, sd_r = opt_m.state_dict(), opt_r.state_dict()
    assert sd_m["param_groups"] == sd_r["param_groups"]
    assert sd_m["state"].keys() == sd_r["state"].keys()
    for k in sd_r["state"]:
        assert sd_m["state"][k].keys() == sd_r["state"][k].keys()
        for key, v in sd_r["state"][k].items():
            assert str(sd_m["state"][k][key].dtype) == str(v.dtype), key
            np.testing.assert_allclose(sd_m["state"][k][key].numpy(), v.numpy(), rtol=1e-4,
                                       atol=1e-5, err_msg=key)


def test_sgd_update_is_bit_exact(torch):
    rng = np.random.default_rng(0)
    p0 = rng.standard_normal((5, 7)).astype(np.float32)
    grads = [rng.standard_normal((5, 7)).astype(np.float32) for _ in range(20)]
    out = []
    for lib in (numtorch, torch):
        p = lib.nn.Parameter(lib.tensor(p0))
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True)
        for g in grads:
            p.grad = lib.tensor(g)
            opt.step()
        out.append(p.detach().numpy())
    np.testing.assert_array_equal(out[0], out[1])


def test_closure_and_param_groups(torch):
    results = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        opt = lib.optim.SGD([{"params": [m.weight]}, {"params": [m.bias], "lr": 0.5}],
                            lr=0.1, momentum=0.9)
        x = lib.randn(4, 3)

        def closure():
            opt.zero_grad()
            loss = m(x).pow(2).sum()
            loss.backward()
            return loss
        losses = [opt.step(closure).item() for _ in range(5)]
        results.append((losses, m.weight.detach().numpy().copy(),
                        m.bias.detach().numpy().copy(), repr(opt)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-6, atol=1e-6)
    assert results[0][3] == results[1][3]


def test_state_dict_round_trip():
    mine, opt = _train(numtorch, "Adam", {"lr": 0.01}, steps=5)
    sd = copy.deepcopy(opt.state_dict())
    model = numtorch.nn.Linear(1, 1)
    params = [numtorch.nn.Parameter(numtorch.tensor(p)) for p in mine]
    opt2 = numtorch.optim.Adam(params, lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.01
    assert opt2.state[params[0]]["step"].item() == 5.0
    np.testing.assert_array_equal(opt2.state[params[0]]["exp_avg"].numpy(),
                                  opt.state_dict()["state"][0]["exp_avg"].numpy())
    assert model is not None


def test_zero_grad_and_add_param_group():
    w, b = numtorch.nn.Parameter(numtorch.ones(2)), numtorch.nn.Parameter(numtorch.ones(1))
    opt = numtorch.optim.SGD([w], lr=0.1)
    opt.add_param_group({"params": b, "lr": 0.01})
    (w.sum() + b.sum()).backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0] and b.grad.tolist() == [0.0]
    opt.zero_grad()
    assert w.grad is None and opt.param_groups[1]["lr"] == 0.01
    assert opt.param_groups[1]["momentum"] == 0


def test_step_hooks():
    w = numtorch.nn.Parameter(numtorch.ones(1))
    opt = numtorch.optim.SGD([w], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, args, kw: calls.append("pre"))
    opt.register_step_post_hook(lambda o, args, kw: calls.append("post"))
    from numtorch.optim.optimizer import register_optimizer_step_post_hook
    h3 = register_optimizer_step_post_hook(lambda o, args, kw: calls.append("global"))
    opt.step()
    h1.remove()
    h3.remove()
    opt.step()
    assert calls == ["pre", "post", "global", "post"]


ERRORS = [
    lambda lib: lib.optim.SGD([], lr=0.1),
    lambda lib: lib.optim.SGD(lib.ones(2), lr=0.1),
    lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=-1),
    lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1, momentum=-0.5),
    lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1, nesterov=True),
    lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True) * 2], lr=0.1),
    lambda lib: lib.optim.SGD([1.0], lr=0.1),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], betas=(1.0, 0.9)),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], eps=-1),
    lambda lib: lib.optim.RMSprop([lib.nn.Parameter(lib.ones(1))], alpha=-1),
    lambda lib: lib.optim.Adadelta([lib.nn.Parameter(lib.ones(1))], rho=2),
    lambda lib: lib.optim.Adagrad([lib.nn.Parameter(lib.ones(1))], lr_decay=-1),
    lambda lib: lib.optim.NAdam([lib.nn.Parameter(lib.ones(1))], momentum_decay=-1),
    lambda lib: lib.optim.Rprop([lib.nn.Parameter(lib.ones(1))], etas=(1.5, 1.2)),
    lambda lib: lib.optim.Rprop([lib.nn.Parameter(lib.ones(1))], lr=-1),
    lambda lib: lib.optim.ASGD([lib.nn.Parameter(lib.ones(1))], weight_decay=-1),
    lambda lib: lib.optim.SGD([{"params": [lib.nn.Parameter(lib.ones(1))]}]).add_param_group(
        [1]),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(fn):
    check_error(fn)


def test_shared_parameter_in_two_groups():
    w = numtorch.nn.Parameter(numtorch.ones(1))
    with pytest.raises(ValueError, match="some parameters appear in more than one"):
        numtorch.optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)


@pytest.mark.parametrize("kwargs", [{}, {"line_search_fn": "strong_wolfe"},
                                    {"lr": 0.5, "history_size": 3, "max_iter": 7}],
                         ids=["plain", "strong_wolfe", "short-history"])
def test_lbfgs_matches_torch_in_float64(torch, kwargs):
    # L-BFGS amplifies last-bit differences over its inner iterations: compare in float64
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 1)).double()
        x, y = lib.randn(20, 3, dtype=lib.float64), lib.randn(20, 1, dtype=lib.float64)
        opt = lib.optim.LBFGS(m.parameters(), **kwargs)

        def closure():
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(m(x), y)
            loss.backward()
            return loss
        losses = [opt.step(closure).item() for _ in range(3)]
        return losses, [p.detach().numpy().copy() for p in m.parameters()], \
            opt.state[m[0].weight]["func_evals"]
    mine, ref = run(numtorch), run(torch)
    np.testing.assert_allclose(mine[0], ref[0], rtol=1e-9)
    for m, r in zip(mine[1], ref[1]):
        np.testing.assert_allclose(m, r, atol=1e-6)
    assert mine[2] == ref[2]


@pytest.mark.parametrize("kwargs", [{}, {"max_iter": 1}, {"line_search_fn": "strong_wolfe"}],
                         ids=["plain", "one-iteration", "strong_wolfe"])
def test_lbfgs_state_dict_key_order_matches_torch(torch, kwargs):
    # print(optimizer.state_dict()) shows the state in insertion order: PyTorch stores most of
    # it after the iteration loop (``al`` inside it, from the second iteration on)
    def keys(lib):
        w = lib.nn.Parameter(lib.tensor([0.5, -1.5, 2.0]))
        opt = lib.optim.LBFGS([w], **kwargs)

        def closure():
            opt.zero_grad()
            loss = ((w - 1) ** 4).sum()
            loss.backward()
            return loss
        order = []
        for _ in range(3):
            opt.step(closure)
            order.append(list(opt.state_dict()["state"][0]))
        return order
    assert keys(numtorch) == keys(torch)


# ---- bit-exact updates with fixed gradients ------------------------------------------------
def _exact_sqrt(monkeypatch, torch):
    """Give torch a correctly rounded sqrt. NOTE: PyTorch's CPU sqrt goes through MKL's vector
    math (not correctly rounded, ~15 % of float32 results one ulp off) while numtorch's is
    NumPy's; with this, the rest of an update can be compared bit for bit."""
    def sqrt(t):
        return torch.from_numpy(np.asarray(np.sqrt(t.detach().numpy())))
    monkeypatch.setattr(torch.Tensor, "sqrt", sqrt)
    monkeypatch.setattr(torch, "_foreach_sqrt", lambda ts: [sqrt(t) for t in ts])


def _fixed_grad_run(lib, name, kwargs, steps=12, dtype="float32"):
    lib.manual_seed(0)
    dt = getattr(lib, dtype)
    params = [lib.randn(5, 3, dtype=dt, requires_grad=True),
              lib.randn(4, dtype=dt, requires_grad=True)]
    opt = getattr(lib.optim, name)(params, **kwargs)
    for i in range(steps):
        for p in params:
            p.grad = lib.randn_like(p) * (0.5 if i % 2 else 2.0)
        opt.step()
    return [p.detach().numpy().copy() for p in params], opt


FOREACH_CASES = [
    # PyTorch's multi-tensor RAdam and ASGD round differently from their single-tensor paths
    ("RAdam", {"lr": 0.05, "foreach": True}),
    ("RAdam", {"lr": 0.05, "foreach": True, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.05, "foreach": True, "weight_decay": 0.1,
               "decoupled_weight_decay": True, "maximize": True}),
    ("ASGD", {"lr": 0.05, "foreach": True}),
    ("ASGD", {"lr": 0.05, "foreach": True, "t0": 2, "lambd": 0.01, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "foreach": True, "t0": 3, "maximize": True}),
    ("RAdam", {"lr": 0.05}), ("ASGD", {"lr": 0.05, "t0": 2, "lambd": 0.01}),
    # a Tensor lr makes PyTorch compute lr / bias_correction1 in float32
    ("Adam", {"lr": "tensor"}), ("AdamW", {"lr": "tensor", "amsgrad": True}),
    ("Adam", {"lr": "tensor", "weight_decay": 0.1, "decoupled_weight_decay": True}),
]


@pytest.mark.parametrize("name,kwargs", FOREACH_CASES,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(FOREACH_CASES)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fixed_gradient_updates_are_bit_exact(torch, monkeypatch, name, kwargs, dtype):
    _exact_sqrt(monkeypatch, torch)
    runs = []
    for lib in (numtorch, torch):
        kw = dict(kwargs, lr=lib.tensor(0.01)) if kwargs.get("lr") == "tensor" else kwargs
        runs.append(_fixed_grad_run(lib, name, kw, dtype=dtype)[0])
    for mine, ref in zip(*runs):
        np.testing.assert_array_equal(mine, ref)


def test_asgd_foreach_state_matches_torch(torch):
    # eta comes from the step *tensor* on the multi-tensor path; ax always takes the addcmul
    states = []
    for lib in (numtorch, torch):
        _, opt = _fixed_grad_run(lib, "ASGD", {"lr": 0.05, "foreach": True, "t0": 4})
        states.append(opt.state_dict()["state"])
    for k, st in states[1].items():
        for key, v in st.items():
            np.testing.assert_array_equal(states[0][k][key].numpy(), v.numpy(), err_msg=key)


def test_tensor_betas_stay_tensors(torch):
    reprs = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        w = lib.nn.Parameter(lib.randn(3))
        opt = lib.optim.Adam([w], lr=lib.tensor(0.01),
                             betas=(lib.tensor([0.8]), lib.tensor(0.99)))
        for _ in range(4):
            w.grad = lib.randn(3)
            opt.step()
        reprs.append((str(opt.param_groups[0]["betas"]), str(opt.param_groups[0]["lr"]),
                      repr(opt)))
        reprs[-1] += (w.detach().numpy().copy(),)
    assert reprs[0][:3] == reprs[1][:3]
    np.testing.assert_allclose(reprs[0][3], reprs[1][3], rtol=0, atol=1e-7)


BETA_ERRORS = [
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], betas=(0, 0.99)),
    lambda lib: lib.optim.AdamW([lib.nn.Parameter(lib.ones(1))], betas=(lib.tensor(0.9), 0.99)),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))],
                               betas=(lib.tensor([0.9, 0.8]), lib.tensor(0.99))),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))],
                               betas=(lib.tensor(0.9), lib.tensor(0.99)), foreach=True),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], lr=lib.tensor(0.1),
                               foreach=True),
]


@pytest.mark.parametrize("fn", BETA_ERRORS, ids=[str(i) for i in range(len(BETA_ERRORS))])
def test_tensor_hyper_parameter_errors(fn):
    check_error(fn)


def test_step_hooks_see_the_optimizer_in_args(torch):
    seen = []
    for lib in (numtorch, torch):
        w = lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.SGD([w], lr=0.1)
        log = []
        opt.register_step_pre_hook(
            lambda o, args, kw: log.append(("pre", len(args), args[0] is o, dict(kw))))
        opt.register_step_post_hook(
            lambda o, args, kw: log.append(("post", len(args), args[0] is o, sorted(kw))))

        def swap(o, args, kw):      # a pre hook may replace the arguments (self included)
            return args, {"closure": lambda: 3.5}
        opt.register_step_pre_hook(swap)
        log.append(opt.step())
        seen.append(log)
    assert seen[0] == seen[1]
