"""W9: 10,000 training steps of the seed's ``MyLinear`` must leave memory flat.

Two things are measured: RSS at step 1,000 and at step 10,000, and the number of objects
the cyclic garbage collector finds per step (automatic collection is off during the loop and
``gc.collect()`` runs every 1,000 steps). A graph that only reference counting frees leaves
nothing for the collector: a non-zero count means something (a node holding its output, a
saved tensor holding its own grad_fn) built a reference cycle that keeps graphs alive until
a collection. A direct check follows: after a step, weak references to the step's output and
its node must be dead as soon as the last strong reference goes, with no collection.
"""
import gc
import weakref

import numpy as np

from ._harness import rss_bytes
from ._registry import Result, Row, workload

LR = 0.01


def make_my_linear(tm):
    """The seed's ``CustomLinear`` and ``MyLinear`` (seeds/examples/4_custom_linear.py)."""
    nn = tm.nn

    class CustomLinear(tm.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight, bias):
            ctx.save_for_backward(input, weight, bias)
            return input @ weight.t() + bias

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_output @ weight
            grad_weight = grad_output.t() @ input
            grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    class MyLinear(nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.weight = nn.Parameter(tm.randn(out_features, in_features))
            self.bias = nn.Parameter(tm.randn(out_features))

        def forward(self, x):
            return CustomLinear.apply(x, self.weight, self.bias)

    return MyLinear


def _trainer(tm):
    """One step of the seed model trained by hand: MSE loss, SGD update under no_grad."""
    tm.manual_seed(0)
    model = make_my_linear(tm)(32, 8)
    rng = np.random.default_rng(0)
    x = tm.from_numpy(rng.standard_normal((16, 32)).astype(np.float32))
    target = tm.from_numpy(rng.standard_normal((16, 8)).astype(np.float32))
    params = list(model.parameters())

    def step():
        y = model(x)
        loss = ((y - target) ** 2).mean()
        loss.backward()
        with tm.no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
        return y, loss
    return step


def _measure(tm, steps, marks, clock):
    """Run ``steps`` steps; RSS at each of ``marks`` and objects collected per step."""
    step = _trainer(tm)
    rss, collected = {}, 0
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    t0 = clock()
    try:
        for i in range(1, steps + 1):
            step()
            if i % 1000 == 0 or i in marks:
                if i in marks:
                    rss[i] = rss_bytes()
                collected += gc.collect()
    finally:
        if enabled:
            gc.enable()
    return rss, collected / steps, (clock() - t0) / steps * 1e6


def _no_cycle_check(tm):
    """The step's output and its node die with their last reference (no collector needed)."""
    step = _trainer(tm)
    enabled = gc.isenabled()
    gc.disable()
    try:
        y, loss = step()
        refs = [weakref.ref(y), weakref.ref(loss), weakref.ref(y.grad_fn),
                weakref.ref(loss.grad_fn)]
        del y, loss
        alive = sum(r() is not None for r in refs)
    finally:
        if enabled:
            gc.enable()
    return alive


@workload("W9", "10,000 training steps of the seed's MyLinear (custom Function), manual SGD "
                "under no_grad: RSS flat, no reference cycles",
          needs=("nn.Module", "nn.Parameter"))
def w9(opts):
    import numtorch
    steps, marks = (300, (100, 300)) if opts.quick else (10_000, (1_000, 10_000))
    first, last = marks
    result = Result()
    res = {"numtorch": _measure(numtorch, steps, marks, opts.clock)}
    if opts.torch is not None:
        res["torch"] = _measure(opts.torch, steps, marks, opts.clock)
    growth = {k: (r[0][last] - r[0][first]) / 2**20 for k, r in res.items()}
    per_step = {k: r[2] for k, r in res.items()}
    cycles = {k: r[1] for k, r in res.items()}
    row = Row(f"RSS growth, step {first:,} to {last:,}", "MB", growth["numtorch"],
              growth.get("torch"), None, target="flat (< 1 MB)")
    row.met = None if opts.quick else growth["numtorch"] < 1
    result.rows.append(row)
    result.rows.append(Row("objects found by gc.collect() per step", "objects",
                           cycles["numtorch"], cycles.get("torch"), None, target="0",
                           met=cycles["numtorch"] == 0))
    result.rows.append(Row("one training step", "µs", per_step["numtorch"],
                           per_step.get("torch"), None))
    result.checks.append(("W9: no reference cycles (gc finds nothing)",
                          cycles["numtorch"] == 0, f"{cycles['numtorch']:.3g} per step"))
    alive = _no_cycle_check(numtorch)
    result.checks.append(("W9: output and nodes freed by reference counting alone", alive == 0,
                          f"{alive} of 4 still alive"))
    return result
