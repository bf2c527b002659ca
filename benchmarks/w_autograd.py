"""Framework-overhead workloads: W1 elementwise chain, W2 custom Function chain, W4 long chain.

The numtorch and PyTorch sides run the same code with the library passed in as ``tm``; the
NumPy side is the hand-written forward and backward a user would write without autograd.
"""
import numpy as np

from ._harness import CPU, compare, time_interleaved
from ._registry import Result, Row, workload

X0 = np.array([-1.9, -1.8, -1.6, -1.5], dtype=np.float32)
# One cycle of the chain: y*1.66, sin, tanh, exp, y+(-2.4). The map y -> exp(tanh(sin(1.66y)))
# - 2.4 has a stable fixed point y* = -1.68 with derivative -0.998, and X0 starts near it: the
# values stay O(1) (no cancellation, so NumPy's and PyTorch's float32 rounding do not drift
# apart) and the gradient shrinks by 0.998 a cycle: 0.005-0.1 after W1's 1,000 ops, ~1e-19
# after W4's 100,000 (still a normal float32 number to compare), 0 after 1,000,000 in every
# library.
CYCLE = 5
MUL, ADD = 1.66, -2.4


def _chain(tm, y, n):
    sin, tanh, exp = tm.sin, tm.tanh, tm.exp
    for _ in range(n // CYCLE):
        y = y * MUL
        y = sin(y)
        y = tanh(y)
        y = exp(y)
        y = y + ADD
    return y


def _np_forward(n):
    y = X0.copy()
    saved = []
    for _ in range(n // CYCLE):
        m = y * MUL
        s = np.sin(m)
        t = np.tanh(s)
        e = np.exp(t)
        y = e + ADD
        saved.append((m, t, e))
    return y, saved


def _np_backward(saved):
    g = np.ones_like(X0)
    for m, t, e in reversed(saved):
        g = g * e                 # exp (add passes g through)
        g = g * (1 - t * t)       # tanh
        g = g * np.cos(m)         # sin
        g = g * MUL               # mul
    return g


def _tensor_runner(tm, n, backward_only=False):
    """prepare() for a torch-like library: forward+backward timed, or backward alone."""
    def prepare():
        x = tm.tensor(X0, requires_grad=True)
        seed = tm.ones(4)
        if backward_only:
            y = _chain(tm, x, n)

            def run():
                y.backward(seed)
                return x.grad
            return run

        def run():
            _chain(tm, x, n).backward(seed)
            return x.grad
        return run
    return prepare


def _numpy_runner(n, backward_only=False):
    def prepare():
        if backward_only:
            _, saved = _np_forward(n)
            return lambda: _np_backward(saved)
        return lambda: _np_backward(_np_forward(n)[1])
    return prepare


def _runners(opts, make_tensor, make_numpy):
    import numtorch
    runners = {"numtorch": make_tensor(numtorch)}
    if opts.torch is not None:
        runners["torch"] = make_tensor(opts.torch)
    runners["numpy"] = make_numpy()
    return runners


def _target(row, limit):
    if row.torch is not None:
        row.met = row.numtorch <= limit * row.torch
    return row


@workload("W1", "chain of 1,000 elementwise ops (mul, sin, tanh, exp, add) on a shape-(4,) "
                "float32 tensor, forward + backward")
def w1(opts):
    n = 1000
    repeats, warmup = (1, 0) if opts.quick else (31, 3)
    med, grads = time_interleaved(
        _runners(opts, lambda tm: _tensor_runner(tm, n), lambda: _numpy_runner(n)),
        repeats, warmup, CPU)
    per = {k: v / n * 1e6 for k, v in med.items()}
    row = Row("forward + backward, per op", "µs", per["numtorch"], per.get("torch"),
              per["numpy"], target="≤ 0.8× PyTorch")
    return Result([_target(row, 0.8)], compare("W1", grads, rtol=1e-3, atol=1e-7))


def make_multiply_by_two(tm):
    """The seed's ``MultiplyByTwo`` (seeds/examples/1_multiply_by_two.py), for library ``tm``."""
    class MultiplyByTwo(tm.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input * 2

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 2
    return MultiplyByTwo


def _mbt_runner(tm, n):
    # float64: 3 * 2**1000 and 2**1000 are finite (in float32 both would be inf)
    fn = make_multiply_by_two(tm).apply

    def prepare():
        x = tm.tensor([3.0], dtype=tm.float64, requires_grad=True)
        seed = tm.ones(1, dtype=tm.float64)

        def run():
            y = x
            for _ in range(n):
                y = fn(y)
            y.backward(seed)
            return x.grad
        return run
    return prepare


def _mbt_numpy(n):
    def run():
        y = np.array([3.0])
        saved = []
        for _ in range(n):
            saved.append(y)
            y = y * 2
        g = np.ones(1)
        for _ in reversed(saved):
            g = g * 2
        return g
    return lambda: run


@workload("W2", "1,000 chained calls of the seed's MultiplyByTwo custom Function "
                "(save_for_backward, input * 2; backward grad * 2), forward + backward")
def w2(opts):
    n = 1000
    repeats, warmup = (1, 0) if opts.quick else (31, 3)
    med, grads = time_interleaved(
        _runners(opts, lambda tm: _mbt_runner(tm, n), lambda: _mbt_numpy(n)), repeats, warmup,
        CPU)
    per = {k: v / n * 1e6 for k, v in med.items()}
    row = Row("forward + backward, per call", "µs", per["numtorch"], per.get("torch"),
              per["numpy"], target="≤ 0.3× PyTorch (core issue: ≤ 0.5×)")
    return Result([_target(row, 0.3)], compare("W2", grads, rtol=1e-12, atol=0))


@workload("W4", "a chain of 100,000 tiny ops (W1's cycle), backward only; then 1,000,000 "
                "ops for linear scaling")
def w4(opts):
    result = Result()
    sizes = (10_000,) if opts.quick else (100_000, 1_000_000)
    secs = {}
    for n in sizes:
        big = n >= 1_000_000
        repeats, warmup = (1, 0) if (opts.quick or big) else (5, 1)
        try:
            med, grads = time_interleaved(
                _runners(opts, lambda tm: _tensor_runner(tm, n, True),
                         lambda: _numpy_runner(n, True)), repeats, warmup, CPU)
        except RecursionError as e:
            result.checks.append((f"W4 {n:,} ops: no recursion error", False, str(e)))
            return result
        result.checks.append((f"W4 {n:,} ops: no recursion error", True, "none raised"))
        result.checks += compare(f"W4 {n:,} ops", grads, rtol=1e-2, atol=0)
        secs[n] = med
        row = Row(f"backward, {n:,} ops", "s", med["numtorch"], med.get("torch"),
                  med["numpy"], target="" if big else "≤ 1.0× PyTorch")
        result.rows.append(row if big else _target(row, 1.0))
    if len(secs) == 2:
        small, large = (secs[n] for n in sizes)
        scale = {k: large[k] / small[k] for k in small}
        row = Row("time at 1,000,000 / time at 100,000", "×", scale["numtorch"],
                  scale.get("torch"), scale["numpy"], target="~10 (linear): 8–12.5")
        row.met = 8 <= scale["numtorch"] <= 12.5
        result.rows.append(row)
    return result
