"""LSTM/GRU gate activations above ``rnn_cells.FAST_GATES`` elements use NumPy's float32
exp/tanh: still PyTorch's values to within float32 rounding, forward and backward; below it
the correctly rounded ones (the values a small printed example shows)."""
import numpy as np
import pytest

import numtorch
from numtorch.ops import rnn_cells

torch = pytest.importorskip("torch")


def _run(lib, kind, hidden, batch, seed=0):
    rng = np.random.default_rng(seed)
    layer = getattr(lib.nn, kind)(8, hidden)
    with lib.no_grad():
        for p in layer.parameters():
            p.copy_(lib.from_numpy((rng.standard_normal(tuple(p.shape)) * 0.3)
                                   .astype(np.float32)))
    x = lib.from_numpy(rng.standard_normal((5, batch, 8)).astype(np.float32))
    x.requires_grad_(True)
    out = layer(x)[0]
    out.pow(2).sum().backward()
    return out.detach().numpy(), x.grad.numpy(), layer.weight_hh_l0.grad.numpy()


@pytest.mark.parametrize("kind,gates", [("LSTM", 4), ("GRU", 3)])
@pytest.mark.parametrize("hidden,batch", [(4, 2), (64, 32)])
def test_gates_match_torch(kind, gates, hidden, batch):
    fast = gates * hidden * batch > rnn_cells.FAST_GATES
    assert fast == (hidden == 64)
    ours = _run(numtorch, kind, hidden, batch)
    theirs = _run(torch, kind, hidden, batch)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
