"""Lazy modules against PyTorch: reprs before and after the first call, the inferred shapes,
the same initial values from the same seed, and the class they become."""
import numpy as np

import numtorch


def _story(lib):
    nn = lib.nn
    lib.manual_seed(0)
    net = nn.Sequential(nn.LazyConv2d(4, 3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(),
                        nn.LazyConvTranspose2d(2, 2, stride=2), nn.Flatten(), nn.LazyLinear(5))
    norms = nn.Sequential(nn.LazyConv1d(2, 2), nn.LazyInstanceNorm1d(),
                          nn.LazyBatchNorm1d(affine=False), nn.LazyInstanceNorm1d(affine=False))
    out = [repr(net), repr(norms), [repr(p) for p in net[5].parameters()],
           net[0].has_uninitialized_params()]
    y = net(lib.randn(2, 3, 4, 4))
    z = norms(lib.randn(3, 4, 5))
    out += [repr(net), repr(norms), type(net[5]).__name__, type(net[5].weight).__name__,
            list(net.state_dict()), sum(p.numel() for p in net.parameters()),
            y.detach().numpy(), z.detach().numpy()]
    out += [v.numpy() for v in net.state_dict().values()]
    return out


def test_lazy_modules_match_torch(torch):
    mine, ref = _story(numtorch), _story(torch)
    assert len(mine) == len(ref)
    for m, r in zip(mine, ref):
        if isinstance(r, np.ndarray):
            np.testing.assert_allclose(m, r, rtol=1e-5, atol=1e-6)
        else:
            assert m == r


def test_uninitialized_parameter_materializes():
    p = numtorch.nn.UninitializedParameter()
    assert repr(p) == "<UninitializedParameter>" and p.requires_grad
    p.materialize((2, 3))
    assert type(p) is numtorch.nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad
