"""Run every OpInfo entry through numtorch and write the coverage table.

Usage (from the repository root)::

    python -m tests.opinfo.report                    # all samples -> tests/opinfo/COVERAGE.md
    python -m tests.opinfo.report --update-baseline  # also rewrite tests/opinfo/baseline.txt
    python -m tests.opinfo.report --ops sort,topk -v # a few ops, with their failure messages
    python -m tests.opinfo.report --max-samples 4    # quicker, bounded run (as the CI test)

Entries run in worker processes (``--jobs``, default: the CPU count), each under a time limit.
"""
import argparse
import os
import signal
import sys
import time
import warnings
from multiprocessing import get_context

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.opinfo import harness  # noqa: E402
from tests.opinfo.exclusions import FAMILIES, excluded  # noqa: E402

COVERAGE = os.path.join(HERE, "COVERAGE.md")
BASELINE = os.path.join(HERE, "baseline.txt")
ENTRY_TIMEOUT_S = 120


def load_op_db():
    """PyTorch's OpInfo list (its import needs ``expecttest``); warnings it emits ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def read_baseline(path=BASELINE):
    """The op names recorded as passing fully (one per line, '#' comments)."""
    with open(path) as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]


class _Timeout(BaseException):  # not caught by the harness's per-sample handlers
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _run_one(args):
    """Worker: run entry ``index`` of op_db; a summary dict (picklable)."""
    index, max_samples = args
    op = _OP_DB[index]
    start = time.time()
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(ENTRY_TIMEOUT_S)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = harness.run_entry(op, max_samples)
        out = dict(passes=res.passes, passed=res.passed, failed=res.failed,
                   messages=res.messages, missing=res.missing, applicable=res.applicable)
    except _Timeout:
        out = dict(passes=False, passed={}, failed={}, missing=False,
                   messages=[f"timeout: over {ENTRY_TIMEOUT_S}s"])
    except Exception as e:  # a harness error for this entry is that entry's failure
        out = dict(passes=False, passed={}, failed={}, missing=False,
                   messages=[f"harness: {type(e).__name__}: {e}"[:300]])
    finally:
        signal.alarm(0)
    out.update(name=op.name, variant=op.variant_test_name, seconds=time.time() - start)
    return out


_OP_DB = None


def run_all(op_db, names=None, max_samples=None, jobs=None):
    """Summaries of every in-scope entry (of ``names`` when given), in op_db order."""
    global _OP_DB
    _OP_DB = op_db
    todo = [i for i, op in enumerate(op_db) if not excluded(op.name) and
            (names is None or op.name in names)]
    work = [(i, max_samples) for i in todo]
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(work) == 1:
        return [_run_one(w) for w in work]
    with get_context("fork").Pool(jobs, maxtasksperchild=50) as pool:
        return pool.map(_run_one, work, chunksize=1)


def by_name(results):
    """{op name: [entry summaries]} in first-seen order."""
    out = {}
    for r in results:
        out.setdefault(r["name"], []).append(r)
    return out


def _ratio(entries, kinds):
    passed = sum(e["passed"].get(k, 0) for e in entries for k in kinds)
    failed = sum(e["failed"].get(k, 0) for e in entries for k in kinds)
    return f"{passed}/{passed + failed}" if passed + failed else "–"


def status(entries):
    # NOTE: an entry with no CPU dtypes (a CUDA-only variant) neither passes nor fails a
    # name; a name needs one entry that ran
    if all(e["passes"] for e in entries) and any(e.get("applicable", True) for e in entries):
        return "pass"
    if any(e["missing"] for e in entries) and not any(e["passed"].get("forward", 0)
                                                     for e in entries):
        return "missing"
    return "fail"


def _first_message(entries):
    for e in entries:
        if e["messages"]:
            text = e["messages"][0].replace("|", "\\|").replace("\n", " ")
            return (f"[{e['variant']}] " if e["variant"] else "") + text[:160]
    return ""


def write_coverage(results, op_db, path=COVERAGE, max_samples=None):
    """COVERAGE.md: the counts, the exclusions with reasons, and one row per op name."""
    groups = by_name(results)
    passing = [n for n, es in groups.items() if status(es) == "pass"]
    missing = [n for n, es in groups.items() if status(es) == "missing"]
    excl = sorted({op.name for op in op_db if excluded(op.name)})
    lines = [
        "# OpInfo coverage",
        "",
        "PyTorch's OpInfo database (`torch.testing._internal.common_methods_invocations."
        "op_db`) run through numtorch with PyTorch as the oracle. Regenerate with "
        "`python -m tests.opinfo.report` (see tests/opinfo/report.py).",
        "",
        f"- OpInfo names: {len({op.name for op in op_db})} ({len(op_db)} entries); "
        f"excluded: {len(excl)}; **in scope: {len(groups)}**",
        f"- **passing fully: {len(passing)}** of {len(groups)}; missing in numtorch: "
        f"{len(missing)}; failing some check: {len(groups) - len(passing) - len(missing)}",
        f"- samples per dtype: {'all' if max_samples is None else max_samples}; dtypes: "
        + ", ".join(str(d).replace("torch.", "") for d in harness.DTYPES)
        + " (where the op supports them)",
        "",
        "An op passes fully when every sample's forward values, dtypes and shapes match "
        "(function, method, in-place, operator and alias variants) and gradient and gradgrad "
        "match for every differentiable float64 sample. Columns give passed/checked samples.",
        "",
        "## Excluded families",
        "",
        "| family | reason |",
        "|---|---|",
    ]
    lines += [f"| {fam} | {why} |" for fam, why in FAMILIES]
    lines += ["", "Excluded names: " + ", ".join(f"`{n}`" for n in excl) + "."]
    lines += ["", "## Per op", "",
              "| op | status | forward | variants | grad | gradgrad | first failure |",
              "|---|---|---|---|---|---|---|"]
    for name in sorted(groups):
        es = groups[name]
        lines.append(f"| `{name}` | {status(es)} | {_ratio(es, ['forward'])} | "
                     f"{_ratio(es, ['method', 'inplace', 'operator', 'alias'])} | "
                     f"{_ratio(es, ['grad'])} | {_ratio(es, ['gradgrad'])} | "
                     f"{_first_message(es)} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return passing


def write_baseline(passing, path=BASELINE):
    with open(path, "w") as f:
        f.write("# OpInfo names that pass fully (tests/opinfo/test_opinfo.py keeps them "
                "passing).\n# Regenerate: python -m tests.opinfo.report --update-baseline\n")
        for name in sorted(passing):
            f.write(name + "\n")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ops", help="comma-separated OpInfo names (default: all in scope)")
    p.add_argument("--max-samples", type=int, default=None, help="samples per dtype")
    p.add_argument("--jobs", type=int, default=None)
    p.add_argument("--update-baseline", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true", help="print failure messages")
    a = p.parse_args(argv)
    if a.update_baseline and (a.max_samples is not None or a.ops):
        p.error("--update-baseline needs the full run (no --max-samples, no --ops)")
    op_db = load_op_db()
    names = set(a.ops.split(",")) if a.ops else None
    start = time.time()
    results = run_all(op_db, names, a.max_samples, a.jobs)
    groups = by_name(results)
    for name, es in groups.items():
        if a.verbose or names:
            print(f"{status(es):8s} {name}")
            for e in es:
                for m in e["messages"]:
                    print(f"    [{e['variant']}] {m}")
    passing = [n for n, es in groups.items() if status(es) == "pass"]
    print(f"{len(passing)} of {len(groups)} OpInfo names pass fully "
          f"({time.time() - start:.0f}s)")
    if names is None:
        write_coverage(results, op_db, max_samples=a.max_samples)
        print(f"wrote {COVERAGE}")
        if a.update_baseline:
            old = set(read_baseline()) if os.path.exists(BASELINE) else set()
            write_baseline(passing)
            dropped = sorted(old - set(passing))
            print(f"wrote {BASELINE}" + (f"; dropped: {', '.join(dropped)}" if dropped else ""))
    slow = sorted(results, key=lambda r: -r["seconds"])[:5]
    print("slowest entries: " + ", ".join(f"{r['name']} {r['seconds']:.1f}s" for r in slow))


if __name__ == "__main__":
    main()
