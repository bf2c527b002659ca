"""The workload registry: what to run, what it needs, and what a run reports.

A workload is a function ``fn(opts) -> Result`` registered with ``@workload``. ``opts`` is an
``Options`` (quick mode, whether PyTorch is importable). ``needs`` lists dotted names under
``numtorch`` (``"nn.Linear"``) that must exist for the workload to run; while any is missing
the workload is reported as ``skipped: needs ...`` instead of failing.
"""
import importlib
from dataclasses import dataclass, field

REGISTRY = []

# modules that define workloads, in report order
_MODULES = ("benchmarks.w_autograd", "benchmarks.w_memory", "benchmarks.w_training",
            "benchmarks.w_func")


@dataclass
class Options:
    quick: bool = False
    torch: object = None          # the torch module, or None when PyTorch is not importable
    only: tuple = ()              # workload ids to run (empty: all)
    threads: int = None           # --threads: intra-op threads of PyTorch and BLAS

    @property
    def clock(self):
        """The clock for work that may use worker threads: CPU time of this thread once
        everything runs on it (--threads 1), wall-clock time otherwise."""
        from ._harness import CPU, WALL
        return CPU if self.threads == 1 else WALL


@dataclass
class Row:
    """One line of a workload's table: a measure on each engine (None: not run)."""
    measure: str
    unit: str
    numtorch: float = None
    torch: float = None
    numpy: float = None
    target: str = ""              # e.g. "<= 0.8x PyTorch"
    met: bool = None              # None: no target, or not measurable in this run


@dataclass
class Result:
    rows: list = field(default_factory=list)
    checks: list = field(default_factory=list)   # (what, ok, detail)
    notes: list = field(default_factory=list)


@dataclass
class Workload:
    id: str
    title: str
    fn: object
    needs: tuple = ()

    def missing(self):
        """The ``needs`` entries numtorch does not provide (yet)."""
        return ["numtorch." + name for name in self.needs if not _exists(name)]


def _exists(name):
    """Whether ``numtorch.<name>`` resolves (importing submodules on the way)."""
    import numtorch
    obj = numtorch
    parts = name.split(".")
    for i, part in enumerate(parts):
        nxt = getattr(obj, part, None)
        if nxt is None:
            try:
                nxt = importlib.import_module("numtorch." + ".".join(parts[:i + 1]))
            except Exception:  # ImportError, or a submodule that fails while half-built
                return False
        obj = nxt
    return True


def workload(id, title, needs=()):
    """Register ``fn(opts) -> Result`` as workload ``id``."""
    def deco(fn):
        REGISTRY.append(Workload(id, title, fn, tuple(needs)))
        return fn
    return deco


def load_all():
    for mod in _MODULES:
        importlib.import_module(mod)
    return REGISTRY
