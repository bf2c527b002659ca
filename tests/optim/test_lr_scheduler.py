"""Learning-rate schedulers against PyTorch: the same learning rates (exactly) over 20 steps."""
import math

import pytest

import numtorch
from helpers import check_error

S = "lib.optim.lr_scheduler."
CASES = [
    "StepLR(opt, step_size=3, gamma=0.5)",
    "MultiStepLR(opt, milestones=[2, 5, 5, 9], gamma=0.3)",
    "ExponentialLR(opt, gamma=0.9)",
    "CosineAnnealingLR(opt, T_max=7, eta_min=0.01)",
    "CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=2, eta_min=0.001)",
    "LambdaLR(opt, lambda e: 0.95 ** e)",
    "MultiplicativeLR(opt, lambda e: 0.9)",
    "LinearLR(opt, start_factor=0.25, total_iters=6)",
    "ConstantLR(opt, factor=0.5, total_iters=4)",
    "PolynomialLR(opt, total_iters=8, power=2.0)",
    "OneCycleLR(opt, max_lr=1.0, total_steps=21)",
    "OneCycleLR(opt, max_lr=[1.0, 2.0], total_steps=21, anneal_strategy='linear', "
    "three_phase=True)",
    "CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4)",
    "CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3, mode='triangular2')",
    "CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3, mode='exp_range', gamma=0.9)",
    "SequentialLR(opt, [lib.optim.lr_scheduler.LinearLR(opt, 0.1, total_iters=3), "
    "lib.optim.lr_scheduler.ExponentialLR(opt, 0.8)], milestones=[3])",
    "ChainedScheduler([lib.optim.lr_scheduler.ConstantLR(opt, 0.5, total_iters=2), "
    "lib.optim.lr_scheduler.ExponentialLR(opt, 0.9)])",
]


def _lrs(lib, expr):
    params = [lib.nn.Parameter(lib.ones(1)), lib.nn.Parameter(lib.ones(1))]
    opt = lib.optim.SGD([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.5}], lr=0.1,
                        momentum=0.9)
    sched = eval(S + expr, {"lib": lib, "opt": opt})
    out = [sched.get_last_lr()]
    for _ in range(20):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr() + [g["momentum"] for g in opt.param_groups])
    return out


@pytest.mark.parametrize("expr", CASES, ids=[c.split("(")[0] + str(i) for i, c in
                                             enumerate(CASES)])
def test_schedule_matches_torch(torch, expr):
    assert _lrs(numtorch, expr) == _lrs(torch, expr)


def test_reduce_on_plateau(torch):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.8, 0.8, 0.8, 0.8, 0.8, 0.7, 0.7, 0.7, 0.7]
    out = []
    for lib in (numtorch, torch):
        opt = lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], lr=1.0)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5,
                                                         cooldown=1, min_lr=0.1)
        lrs = []
        for m in metrics:
            sched.step(m)
            lrs.append(sched.get_last_lr())
        out.append(lrs)
    assert out[0] == out[1]


def test_state_dict_and_adam_betas(torch):
    out = []
    for lib in (numtorch, torch):
        opt = lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
        for _ in range(3):
            opt.step()
            sched.step()
        sd = sched.state_dict()
        out.append((sorted(k for k in sd if not k.startswith("_scale")), sd["last_epoch"],
                    opt.param_groups[0]["betas"], sched.get_last_lr()))
    assert out[0] == out[1]


def test_order_warning(torch):
    for lib in (numtorch, torch):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        sched = lib.optim.lr_scheduler.StepLR(opt, 1)
        with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before"):
            sched.step()


@pytest.mark.parametrize("expr", [
    "StepLR(1, 2)", "ConstantLR(opt, factor=2)", "LinearLR(opt, start_factor=0)",
    "CosineAnnealingWarmRestarts(opt, T_0=0)", "OneCycleLR(opt, max_lr=1.0)",
    "ReduceLROnPlateau(opt, factor=1.5)", "ReduceLROnPlateau(opt, mode='avg')",
    "SequentialLR(opt, [], milestones=[])", "StepLR(opt, 2, last_epoch=3)",
])
def test_errors(expr):
    def make(lib):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        return eval(S + expr, {"lib": lib, "opt": opt})
    check_error(make)


def test_cosine_formula_without_torch():
    opt = numtorch.optim.SGD([numtorch.nn.Parameter(numtorch.ones(1))], lr=1.0)
    sched = numtorch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    for _ in range(2):
        opt.step()
        sched.step()
    assert math.isclose(sched.get_last_lr()[0], 0.5)


def test_deprecated_lrscheduler_base_is_a_subclass(torch):
    for lib in (numtorch, torch):
        L = lib.optim.lr_scheduler
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=0.1)
        s = L.StepLR(opt, 2)
        assert isinstance(s, L.LRScheduler) and not isinstance(s, L._LRScheduler)
        assert issubclass(L._LRScheduler, L.LRScheduler)
