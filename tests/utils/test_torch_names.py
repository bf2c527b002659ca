"""Class names a script prints (``type(opt)``, ``type(loader)``, ``type(torch.no_grad())``):
PyTorch's where ``torch`` is numtorch, numtorch's own elsewhere (numtorch._naming).

Scripts run in subprocesses: the alias replaces ``torch`` in ``sys.modules``, which must not
happen in the test process (PyTorch is the oracle here). Both ways of aliasing are checked:
``python -m numtorch`` (numtorch imported before the alias exists) and a bare meta-path finder
(numtorch imported while ``import torch`` runs, as the compatibility runner does).
"""
import os
import subprocess
import sys
import textwrap

import numtorch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = """
import pickle
import torch
from torch.utils.data import DataLoader, TensorDataset, RandomSampler, Subset
m = torch.nn.Linear(2, 1)
opt = torch.optim.Adam(m.parameters())
sched = torch.optim.lr_scheduler.StepLR(opt, 2)
ds = TensorDataset(torch.arange(4.), torch.arange(4))
loader = DataLoader(ds, batch_size=2)
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
for obj in (opt, sched, ds, loader, iter(loader), loader.sampler, RandomSampler(ds),
            Subset(ds, [0]), torch.no_grad(), torch.enable_grad(), torch.inference_mode(),
            torch.set_grad_enabled(True), torch.strided, torch.contiguous_format):
    print(type(obj))
print(torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler, torch.optim.SGD.__mro__)
print(torch.autograd.Function, torch.autograd.function.FunctionCtx, Double.__mro__[:2])
print(torch.utils.data.Dataset, torch.no_grad.__mro__)
print(type(pickle.loads(pickle.dumps(opt))), type(pickle.loads(pickle.dumps(ds))))
"""

# the meta-path finder of a bare alias (no numtorch import before the script's `import torch`)
FINDER = """
import importlib, importlib.abc, importlib.util, runpy, sys

class Loader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module
    def create_module(self, spec):
        return self.module
    def exec_module(self, module):
        pass

class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == "torch" or fullname.startswith("torch."):
            module = importlib.import_module("numtorch" + fullname[5:])
            return importlib.util.spec_from_loader(fullname, Loader(module))
        return None

sys.meta_path.insert(0, Finder())
runpy.run_path(sys.argv[1], run_name="__main__")
"""


def _run(args, tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    res = subprocess.run([sys.executable] + args, capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    return res.stdout


def _script(tmp_path):
    path = tmp_path / "names.py"
    path.write_text(textwrap.dedent(SCRIPT))
    return str(path)


def test_numtorch_run_prints_pytorchs_class_names(torch, tmp_path):
    script = _script(tmp_path)
    assert _run(["-m", "numtorch", script], tmp_path) == _run([script], tmp_path)


def test_any_torch_alias_prints_pytorchs_class_names(torch, tmp_path):
    script = _script(tmp_path)
    finder = tmp_path / "finder.py"
    finder.write_text(FINDER)
    assert _run([str(finder), script], tmp_path) == _run([script], tmp_path)


def test_numtorch_imported_as_itself_keeps_its_names():
    # beside a real PyTorch a class named torch.* would make pickle find PyTorch's class
    import numtorch.optim  # noqa: F401
    import numtorch.utils.data  # noqa: F401
    assert numtorch.optim.SGD.__module__ == "numtorch.optim.sgd"
    assert numtorch.optim.lr_scheduler.StepLR.__module__ == "numtorch.optim.lr_scheduler"
    assert numtorch.utils.data.DataLoader.__module__ == "numtorch.utils.data.dataloader"
    assert numtorch.no_grad.__module__ == "numtorch.autograd.grad_mode"
    assert numtorch.autograd.Function.__module__ == "numtorch.autograd.function"
