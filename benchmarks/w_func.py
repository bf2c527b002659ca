"""torch.func workload: W10 per-sample gradients of a small MLP (batch 256) with
``vmap(grad(loss))`` against a Python loop of ``grad(loss)`` over the samples.

The target is numtorch's vmap at least 20x faster than numtorch's loop in the same run; the
per-sample gradients are checked against the loop and against PyTorch's vmap.
"""
import numpy as np

from ._harness import compare, time_interleaved
from ._registry import Result, Row, workload

BATCH, IN, HIDDEN, OUT = 256, 16, 32, 10


def _setup(tm, seed=0):
    rng = np.random.default_rng(seed)
    model = tm.nn.Sequential(tm.nn.Linear(IN, HIDDEN), tm.nn.Tanh(), tm.nn.Linear(HIDDEN, OUT))
    params = {}
    for name, p in model.named_parameters():
        params[name] = tm.from_numpy((rng.standard_normal(tuple(p.shape)) * 0.1)
                                     .astype(np.float32))
    x = tm.from_numpy(rng.standard_normal((BATCH, IN)).astype(np.float32))
    y = tm.from_numpy(rng.standard_normal((BATCH, OUT)).astype(np.float32))

    def loss(p, xi, yi):
        return ((tm.func.functional_call(model, p, (xi,)) - yi) ** 2).mean()
    return params, x, y, loss


def _vmap_runner(tm):
    def prepare():
        params, x, y, loss = _setup(tm)
        fn = tm.func.vmap(tm.func.grad(loss), in_dims=(None, 0, 0))
        return lambda: tuple(g.numpy() for _, g in sorted(fn(params, x, y).items()))
    return prepare


def _loop_runner(tm):
    def prepare():
        params, x, y, loss = _setup(tm)
        g = tm.func.grad(loss)

        def run():
            rows = [g(params, x[i], y[i]) for i in range(BATCH)]
            return tuple(np.stack([r[k].numpy() for r in rows]) for k in sorted(rows[0]))
        return run
    return prepare


@workload("W10", "vmap(grad) per-sample gradients, MLP, batch 256", needs=("func.vmap",
                                                                         "nn.Linear"))
def per_sample_grads(opts):
    import numtorch
    repeats, warmup = (1, 0) if opts.quick else (7, 1)
    runners = {"numtorch": _vmap_runner(numtorch), "numpy": _loop_runner(numtorch)}
    if opts.torch is not None:
        runners["torch"] = _vmap_runner(opts.torch)
    med, grads = time_interleaved(runners, repeats, warmup)
    ms = {k: v * 1e3 for k, v in med.items()}
    speedup = med["numpy"] / med["numtorch"]
    row = Row("vmap(grad) over 256 samples", "ms", ms["numtorch"], ms.get("torch"),
              target="≥ 20× faster than numtorch's per-sample loop", met=speedup >= 20)
    loop_row = Row("numtorch loop of grad (the 'numpy' column)", "ms", None, None,
                   ms["numpy"])
    checks = compare("per-sample gradients", grads, rtol=1e-4, atol=1e-6)
    checks = [(what.replace("NumPy", "numtorch loop"), ok, detail)
              for what, ok, detail in checks]
    return Result([row, loop_row], checks, [f"vmap speedup over the loop: {speedup:.0f}×"])
