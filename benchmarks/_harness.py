"""Timing, gradient checks, machine facts and the RESULTS.md report.

Timing protocol: every engine's runner is prepared (untimed: building leaves, a forward pass
for backward-only workloads), then timed once, engines interleaved round by round so drift
of a noisy machine hits them alike; the first ``warmup`` rounds are dropped and the median of
the rest is reported.

Settling: right before its timed call, each engine runs the same work once untimed. Without
it every engine was timed just after *another* engine's run, and that costs the next run
whatever it is: measured on W2, a run right after PyTorch's took 35 % longer for numtorch
and 55 % longer for NumPy than a run after itself (a cache flush or a sleep in between did
not remove it; PyTorch's leftover allocator and predictor state did not decay). A program
uses one library, so each engine is timed in its own steady state. Single-round runs (quick
mode, W4's million-op chain) skip it.

Clocks: single-threaded workloads (W1, W2, W4: tiny tensors, where PyTorch runs forward and
backward on the calling thread too) are timed in CPU time of the calling thread
(``time.thread_time``), which a loaded machine does not inflate; workloads where BLAS or
PyTorch may use worker threads are timed in wall-clock time (``time.perf_counter``).
"""
import gc
import os
import platform
import statistics
import sys
import time

import numpy as np

ENGINES = ("numtorch", "torch", "numpy")
LABELS = {"numtorch": "numtorch", "torch": "PyTorch", "numpy": "NumPy"}


CPU = time.thread_time      # single-threaded work: immune to other processes' load
WALL = time.perf_counter    # work that may use worker threads (BLAS, PyTorch's intra-op pool)


def time_interleaved(runners, repeats, warmup=1, clock=WALL):
    """Median seconds of one timed call per engine, measured with ``clock``.

    ``runners`` maps an engine name to ``prepare() -> run``; ``run()`` is what gets timed
    and returns the gradient(s) the engine computed (kept from the first timed call for
    checks). With more than one round, each timed call follows an untimed one of the same
    engine (settling, see the module docstring). Returns ``(medians, grads)``: dicts by
    engine name.
    """
    times = {name: [] for name in runners}
    grads = {}
    settle = warmup + repeats > 1
    for r in range(warmup + repeats):
        for name, prepare in _rotated(runners, r):
            if settle:
                prepare()()
            run = prepare()
            gc.collect()
            t0 = clock()
            out = run()
            t1 = clock()
            if name not in grads:
                grads[name] = out
            if r >= warmup:
                times[name].append(t1 - t0)
            del run, out
    return {n: statistics.median(t) for n, t in times.items()}, grads


def _rotated(runners, r):
    items = list(runners.items())
    k = r % len(items)
    return items[k:] + items[:k]


def as_numpy(x):
    """A gradient (tensor of either library, ndarray, or tuple of those) as ndarrays."""
    if isinstance(x, (tuple, list)):
        return tuple(as_numpy(v) for v in x)
    if x is None:
        return None
    if isinstance(x, np.ndarray):
        return x
    detach = getattr(x, "detach", None)
    if detach is not None:
        x = detach()
    return np.array(x.numpy() if hasattr(x, "numpy") else x)


def compare(what, grads, rtol=1e-4, atol=1e-6):
    """Checks that numtorch's gradients agree with every other engine's: [(what, ok, detail)]."""
    checks = []
    if "numtorch" not in grads:
        return checks
    ref = as_numpy(grads["numtorch"])
    for other in ("torch", "numpy"):
        if other not in grads:
            continue
        ok, detail = _close(ref, as_numpy(grads[other]), rtol, atol)
        checks.append((f"{what}: numtorch vs {LABELS[other]} gradients", ok, detail))
    return checks


def _close(a, b, rtol, atol):
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    if len(a) != len(b):
        return False, f"{len(a)} vs {len(b)} gradients"
    worst = 0.0
    for x, y in zip(a, b):
        if (x is None) != (y is None):
            return False, "None vs a gradient"
        if x is None:
            continue
        if x.shape != y.shape:
            return False, f"shape {x.shape} vs {y.shape}"
        if not np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True):
            err = np.max(np.abs(x.astype(np.float64) - y) / (atol + rtol * np.abs(y)))
            return False, f"max error {err:.3g} x tolerance"
        if x.size:
            worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y))))
    return True, f"max abs diff {worst:.3g}"


# ---- memory ------------------------------------------------------------------------------
def rss_bytes():
    """This process's resident set size now (Linux /proc; peak RSS elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


# ---- machine facts -----------------------------------------------------------------------
_THREADS = []  # keeps threadpoolctl's limiter alive


def set_threads(n, torch):
    """Limit PyTorch's intra-op threads and (through threadpoolctl, if installed) BLAS's."""
    if torch is not None:
        torch.set_num_threads(n)
    try:
        import threadpoolctl
    except ImportError:  # the environment variables set before NumPy loaded did it
        return
    _THREADS.append(threadpoolctl.threadpool_limits(n))


def machine_facts(torch):
    """Lines describing the machine and the libraries the numbers depend on."""
    facts = [
        ("CPU", _cpu_model()),
        ("cores", f"{os.cpu_count()} logical"
                  + (f", {len(os.sched_getaffinity(0))} usable"
                     if hasattr(os, "sched_getaffinity") else "")),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("OS", platform.platform()),
        ("NumPy", np.__version__),
        ("NumPy BLAS", _numpy_blas()),
    ]
    pools = _threadpools()
    if pools:
        facts.append(("BLAS threads (threadpoolctl)", pools))
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OMP_NUM_THREADS",
                "OPENBLAS_NUM_THREADS"):
        if os.environ.get(var):
            facts.append((var, os.environ[var]))
    if torch is not None:
        facts.append(("PyTorch", f"{torch.__version__} ({torch.get_num_threads()} threads)"))
    else:
        facts.append(("PyTorch", "not importable: its columns are empty"))
    return facts


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _numpy_blas():
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg["Build Dependencies"]["blas"]
        text = f"{blas.get('name')} {blas.get('version', '')}".strip()
        extra = blas.get("openblas configuration")
        return f"{text} ({extra})" if extra else text
    except Exception:  # older NumPy: no mode="dicts"
        return "unknown (numpy.show_config has no dict mode)"


def _threadpools():
    try:
        import threadpoolctl
    except ImportError:
        return None
    parts = []
    for p in threadpoolctl.threadpool_info():
        parts.append(f"{p.get('internal_api')} {p.get('version')} "
                     f"{p.get('architecture', '')} x{p.get('num_threads')}".strip())
    return "; ".join(parts) or None


# ---- report ------------------------------------------------------------------------------
def fmt(v):
    if v is None:
        return "—"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 0.1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def table(result):
    """A workload's rows as a Markdown table (values, then numtorch's ratios)."""
    lines = ["| measure | numtorch | PyTorch | NumPy | numtorch / PyTorch | numtorch / NumPy "
             "| target | met |",
             "|---|---:|---:|---:|---:|---:|---|---|"]
    for row in result.rows:
        met = "" if row.met is None else ("yes" if row.met else "**no**")
        rt, rn = ratio(row.numtorch, row.torch), ratio(row.numtorch, row.numpy)
        lines.append(
            f"| {row.measure} ({row.unit}) | {fmt(row.numtorch)} | {fmt(row.torch)} | "
            f"{fmt(row.numpy)} | {fmt(rt) + '×' if rt is not None else '—'} | "
            f"{fmt(rn) + '×' if rn is not None else '—'} | {row.target} | {met} |")
    return "\n".join(lines)


def check_lines(result):
    return [f"- {'ok' if ok else 'FAILED'}: {what} ({detail})"
            for what, ok, detail in result.checks]
