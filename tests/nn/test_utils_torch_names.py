"""Under ``numtorch run`` the ``nn.utils`` helper classes print PyTorch's names
(``<class 'torch.nn.utils.rnn.PackedSequence'>``, the pruning methods, the old-style
weight-norm and spectral-norm hooks), as the pruning tutorial prints them.

The script runs in a subprocess under each library: the alias must not replace ``torch`` in
the test process.
"""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = """
import warnings
warnings.simplefilter("ignore")
import torch
import torch.nn.utils.prune as prune
p = torch.nn.utils.rnn.pack_sequence([torch.ones(2), torch.ones(1)])
print(type(p))
lin = torch.nn.Linear(2, 2)
prune.l1_unstructured(lin, "weight", 0.5)
prune.random_unstructured(lin, "weight", 0.5)
hook = next(iter(lin._forward_pre_hooks.values()))
print(type(hook), [type(m) for m in hook])
print(type(next(iter(torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))
                      ._forward_pre_hooks.values()))))
print(type(next(iter(torch.nn.utils.spectral_norm(torch.nn.Linear(2, 2))
                      ._forward_pre_hooks.values()))))
"""


def _run(args, cwd):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable] + args, capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)


def test_class_names_as_pytorch_prints_them(tmp_path):
    pytest.importorskip("torch")
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    ref = _run([str(path)], tmp_path)
    mine = _run(["-m", "numtorch", str(path)], tmp_path)
    assert ref.returncode == 0, ref.stderr
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == ref.stdout
