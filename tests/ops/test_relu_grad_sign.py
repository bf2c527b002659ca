"""ReLU's gradient selects (PyTorch's threshold_backward): masked positions are +0 even for
a negative incoming gradient (printed ``0.``, not ``-0.``), a NaN output passes it through,
and an infinite gradient at a masked position gives 0, not NaN."""
import numpy as np
import pytest

import numtorch


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("how", ["relu", "functional", "module", "method_inplace"])
def test_relu_gradient_bits_match_torch(how, create_graph, torch):
    x0 = [-1.0, 2.0, 0.0, float("nan"), -5.0, 3.0]
    g0 = [-3.0, -3.0, -3.0, -3.0, float("inf"), 2.0]

    def run(lib):
        x = lib.tensor(x0, requires_grad=True)
        if how == "relu":
            y = lib.relu(x)
        elif how == "functional":
            y = lib.nn.functional.relu(x)
        elif how == "module":
            y = lib.nn.ReLU()(x)
        else:
            y = (x * 1).relu_()
        gx, = lib.autograd.grad(y, x, lib.tensor(g0), create_graph=create_graph)
        return gx.detach().numpy(), str(gx.detach())

    (a, sa), (b, sb) = run(numtorch), run(torch)
    assert np.array_equal(a.view(np.int32), b.view(np.int32))
    assert sa == sb
