"""The end-to-end example trains, saves and reloads its checkpoint under numtorch, and prints
what PyTorch prints for the same seed (the losses of every epoch)."""
import os
import re
import subprocess
import sys

import pytest

import numtorch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "train_cnn_lstm.py")


def _run(args, tmp_path, env_extra=None):
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1", **(env_extra or {}))
    proc = subprocess.run([sys.executable] + args, cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _epoch_lines(out):
    """The per-epoch lines without their timings."""
    return [re.sub(r"\s+\(\d+\.\d+s\)$", "", line) for line in out.splitlines()
            if " epoch " in line]


def test_train_cnn_lstm_quick(tmp_path):
    ckpt = str(tmp_path / "ck.pt")
    out = _run(["-m", "numtorch", EXAMPLE, "--quick", "--workers", "2", "--checkpoint", ckpt],
               tmp_path)
    assert len(_epoch_lines(out)) == 4
    assert "same test accuracy: True" in out
    state = numtorch.load(ckpt)
    assert state["epochs"] == 2 and len(state["cnn_loss"]) == 2
    model = numtorch.nn.LSTM(1, 16, batch_first=True)
    model.load_state_dict({k[len("lstm."):]: v for k, v in state["lstm"].items()
                           if k.startswith("lstm.")})


def test_same_run_under_pytorch(tmp_path, torch):
    mine_ckpt, ref_ckpt = str(tmp_path / "mine.pt"), str(tmp_path / "ref.pt")
    mine = _run(["-m", "numtorch", EXAMPLE, "--quick", "--checkpoint", mine_ckpt], tmp_path)
    ref = _run([EXAMPLE, "--quick", "--checkpoint", ref_ckpt], tmp_path)
    assert _epoch_lines(mine) == _epoch_lines(ref)
    # each library reads the other's checkpoint
    theirs, ours = torch.load(mine_ckpt), numtorch.load(ref_ckpt)
    for key, value in ours["cnn"].items():
        assert abs(theirs["cnn"][key] - torch.from_numpy(value.numpy())).max() < 1e-4, key
