"""``numtorch run`` with processes and introspection: "spawn" and "forkserver" children of a
script resolve ``torch`` to numtorch as the script does (Process, Pool, DataLoader workers,
``torch.multiprocessing.spawn``), and modules, classes and functions show PyTorch's names.

Each script runs in a subprocess (the alias must not replace ``torch`` in the test process).
Expected outputs are PyTorch 2.13's; where PyTorch is installed, the same scripts run on it
too and must print the same.
"""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAS_TORCH = importlib.util.find_spec("torch") is not None


def _run(args, cwd):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable] + args, capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=240)


def _check(tmp_path, source, expected):
    """Run ``source`` with numtorch (and with PyTorch, where present): both print
    ``expected``."""
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(source))
    mine = _run(["-m", "numtorch", str(path)], tmp_path)
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == textwrap.dedent(expected).lstrip("\n")
    if HAS_TORCH:
        ref = _run([str(path)], tmp_path)
        assert ref.returncode == 0, ref.stderr
        assert ref.stdout == mine.stdout


LOADER = """
import torch
from torch.utils.data import Dataset, DataLoader, get_worker_info

class DS(Dataset):
    def __len__(self): return 4
    def __getitem__(self, i):
        w = get_worker_info()
        return torch.tensor([i, w.id]), type(w).__module__

def collate(batch):
    return torch.stack([b[0] for b in batch]), batch[0][1]

if __name__ == "__main__":
    dl = DataLoader(DS(), batch_size=2, num_workers=2, collate_fn=collate,
                    multiprocessing_context="{ctx}")
    for x, mod in dl:
        print(x.tolist(), mod)
"""


@pytest.mark.parametrize("ctx", ["spawn", "forkserver"])
def test_dataloader_workers_of_fresh_interpreters_use_numtorch(tmp_path, ctx):
    _check(tmp_path, LOADER.replace("{ctx}", ctx), """
        [[0, 0], [1, 0]] torch.utils.data._utils.worker
        [[2, 1], [3, 1]] torch.utils.data._utils.worker
    """)


def test_process_pool_and_nested_spawn(tmp_path):
    _check(tmp_path, """
        import multiprocessing
        import torch

        def square(x):
            return torch.tensor(x) ** 2

        def nested(q):
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(1) as pool:      # a grandchild
                q.put((__name__, pool.map(square, [4])))

        if __name__ == "__main__":
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(2) as pool:
                print(pool.map(square, [1, 2, 3]))
            q = ctx.Queue()
            p = ctx.Process(target=nested, args=(q,))
            p.start()
            print(q.get())
            p.join()
            print(p.exitcode)
    """, """
        [tensor(1), tensor(4), tensor(9)]
        ('__mp_main__', [tensor(16)])
        0
    """)


def test_torch_multiprocessing_spawn(tmp_path):
    _check(tmp_path, """
        import warnings
        import torch
        import torch.multiprocessing as mp

        def run(rank, fail):
            torch.manual_seed(rank)
            x = torch.rand(2)
            if rank == fail:
                raise ValueError(f"bad rank {rank}")

        if __name__ == "__main__":
            print(mp.spawn(run, args=(-1,), nprocs=2))
            ctx = mp.spawn(run, args=(-1,), nprocs=2, join=False)
            print(type(ctx), len(ctx.pids()))
            while not ctx.join():
                pass
            print([p.exitcode for p in ctx.processes], ctx.join())
            try:
                mp.spawn(run, args=(1,), nprocs=2)
            except mp.ProcessRaisedException as e:
                print(type(e), e.error_index)
                print(str(e).splitlines()[2], str(e).strip().splitlines()[-1])
            import sys, torch.multiprocessing.spawn
            sp = sys.modules["torch.multiprocessing.spawn"]  # (the attribute is the function)
            print(sp.__name__, sp.spawn is mp.spawn, mp.start_processes is sp.start_processes)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                mp.spawn(run, args=(-1,), nprocs=1, start_method="fork")
            print(w[0].category.__name__, str(w[0].message).splitlines()[0])
            e = mp.ProcessExitedException("m", 1, 2, 3)
            print(e.error_index, e.error_pid, e.exit_code, e.signal_name)
    """, """
        None
        <class 'torch.multiprocessing.spawn.ProcessContext'> 2
        [0, 0] True
        <class 'torch.multiprocessing.spawn.ProcessRaisedException'> 1
        -- Process 1 terminated with the following error: ValueError: bad rank 1
        torch.multiprocessing.spawn True True
        FutureWarning This method only supports start_method=spawn (got: fork).
        1 2 3 None
    """)


def test_module_and_class_names_are_pytorchs(tmp_path):
    _check(tmp_path, """
        import inspect, pickle
        import torch
        import torch.nn.functional as F
        import torch.utils.data as tud
        print(torch.__name__, torch.nn.__name__, F.__name__, tud.__name__)
        print(torch.distributions.__name__, torch.optim.lr_scheduler.__name__)
        print(inspect.getmodule(torch.nn.Linear).__name__, type(torch.nn.Linear(1, 1)).__module__)
        print(inspect.getmodule(torch.optim.SGD).__name__)
        print(tud.default_collate.__module__, tud.default_convert.__module__)
        print(tud.get_worker_info.__module__, tud._utils.worker.WorkerInfo)
        print(tud._DatasetKind, tud._DatasetKind.Map, tud._DatasetKind.Iterable)
        print(tud.DataLoader(range(3))._dataset_kind)
        for f in (tud.default_collate, tud.get_worker_info, tud._DatasetKind, torch.nn.Linear):
            print(pickle.loads(pickle.dumps(f)) is f)
    """, """
        torch torch.nn torch.nn.functional torch.utils.data
        torch.distributions torch.optim.lr_scheduler
        torch.nn.modules.linear torch.nn.modules.linear
        torch.optim.sgd
        torch.utils.data._utils.collate torch.utils.data._utils.collate
        torch.utils.data._utils.worker <class 'torch.utils.data._utils.worker.WorkerInfo'>
        <class 'torch.utils.data.dataloader._DatasetKind'> 0 1
        0
        True
        True
        True
        True
    """)


def test_plain_import_keeps_numtorch_names():
    """A program importing numtorch as itself: no renaming, children unchanged."""
    import multiprocessing.spawn as mp_spawn
    import numtorch.utils.data as tud
    assert tud.default_collate.__module__ == "numtorch.utils.data._collate"
    assert numtorch_name() == "numtorch"
    assert not getattr(mp_spawn.get_preparation_data, "_numtorch_alias", False)


def numtorch_name():
    import numtorch
    return numtorch.__name__
