"""``torch.nn.utils.prune`` against PyTorch: masks (random ones from the same seed), the
_orig/_mask registration, containers, global pruning, remove, errors."""
import numpy as np
import pytest

import numtorch
from helpers import check_error


def _prune_story(lib):
    prune = __import__(f"{lib.__name__}.nn.utils.prune", fromlist=["prune"])
    lib.manual_seed(0)
    nn = lib.nn
    out = []
    lin = nn.Linear(4, 3)
    prune.l1_unstructured(lin, "weight", amount=0.5)
    out += [[n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()]]
    prune.random_unstructured(lin, "bias", amount=1)
    prune.l1_unstructured(lin, "weight", amount=2)          # a PruningContainer now
    out += [type(list(lin._forward_pre_hooks.values())[0]).__name__, prune.is_pruned(lin)]
    out += [lin.weight_mask, lin.bias_mask, lin(lib.ones(1, 4)).detach()]
    prune.remove(lin, "weight")
    out += [list(lin.state_dict()), lin.weight.detach()]
    conv = nn.Conv2d(2, 4, 3)
    prune.ln_structured(conv, "weight", amount=0.5, n=2, dim=0)
    prune.random_structured(conv, "weight", amount=1, dim=1)
    out.append(conv.weight_mask)
    net = nn.Sequential(nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 2))
    prune.global_unstructured([(net[0], "weight"), (net[2], "weight")],
                              pruning_method=prune.L1Unstructured, amount=0.4)
    prune.custom_from_mask(net[0], "bias", lib.tensor([1.0, 0, 1, 0]))
    prune.identity(net[2], "bias")
    out += [net[0].weight_mask, net[2].weight_mask, net[0].bias.detach(), net[2].bias_mask]
    out.append(prune.L1Unstructured(amount=0.5).prune(lib.tensor([3.0, -1, 2, 0.5])))
    return [o.numpy().copy() if isinstance(o, lib.Tensor) else o for o in out]


def test_pruning_matches_torch(torch):
    mine, ref = _prune_story(numtorch), _prune_story(torch)
    assert len(mine) == len(ref)
    for m, r in zip(mine, ref):
        if isinstance(r, np.ndarray):
            np.testing.assert_allclose(m, r, rtol=1e-6)
        else:
            assert m == r


def _prune(lib):
    return __import__(f"{lib.__name__}.nn.utils.prune", fromlist=["prune"])


@pytest.mark.parametrize("fn", [
    lambda lib: _prune(lib).l1_unstructured(lib.nn.Linear(2, 2), "weight", amount=1.5),
    lambda lib: _prune(lib).l1_unstructured(lib.nn.Linear(2, 2), "weight", amount=5),
    lambda lib: _prune(lib).l1_unstructured(lib.nn.Linear(2, 2), "weight", amount="a"),
    lambda lib: _prune(lib).ln_structured(lib.nn.Linear(2, 2), "bias", amount=1, n=1, dim=0),
    lambda lib: _prune(lib).random_structured(lib.nn.Linear(2, 2), "weight", amount=1, dim=2),
])
def test_errors(fn):
    check_error(fn)


def test_failed_pruning_restores_the_parameter():
    from numtorch.nn.utils import prune
    lin = numtorch.nn.Linear(2, 2)
    with pytest.raises(ValueError):
        prune.l1_unstructured(lin, "weight", amount=5)
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight"]
