"""functional_call and stack_module_state."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


def test_substitutes_parameters_and_restores(torch):
    def run(lib):
        m = _model(lib)
        x = lib.ones(2, 3)
        params = {k: v.detach() * 2 for k, v in m.named_parameters()}
        out = lib.func.functional_call(m, params, (x,))
        partial = lib.func.functional_call(m, {"0.bias": lib.zeros(4)}, x)
        again = m(x)
        return out, partial, again, [n for n, _ in m.named_parameters()]
    check_same(run)


def test_grad_and_per_sample_grads_through_functional_call(torch):
    def run(lib):
        m = _model(lib)
        params = {k: v.detach() for k, v in m.named_parameters()}
        x = lib.tensor(np.linspace(-1, 1, 12).reshape(4, 3), dtype=lib.float32)

        def loss(p, xi):
            return lib.func.functional_call(m, p, (xi,)).pow(2).sum()
        g = lib.func.grad(loss)(params, x[0])
        per = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(params, x)
        return [g[k] for k in sorted(g)], [per[k] for k in sorted(per)]
    check_same(run)


def test_buffers_tied_weights_and_kwargs(torch):
    def run(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = lib.nn.Linear(2, 2, bias=False)
                self.b = self.a
                self.register_buffer("scale", lib.ones(2))

            def forward(self, x, k=1.0):
                return self.b(x) * self.scale * k
        lib.manual_seed(0)
        m = M()
        w = lib.eye(2) * 3
        x = lib.tensor([[1.0, 2.0]])
        tied = lib.func.functional_call(m, {"a.weight": w}, (x,), {"k": 2.0})
        untied = lib.func.functional_call(m, {"a.weight": w}, (x,), tie_weights=False)
        two = lib.func.functional_call(m, ({"a.weight": w}, {"scale": lib.tensor([1.0, 0.5])}),
                                       (x,))
        return tied, untied, two
    check_same(run)


def test_strict_and_duplicate_keys(torch):
    check_error(lambda lib: lib.func.functional_call(
        _model(lib), {"0.weight": lib.ones(4, 3)}, (lib.ones(1, 3),), strict=True))
    check_error(lambda lib: lib.func.functional_call(
        _model(lib), ({"0.bias": lib.ones(4)}, {"0.bias": lib.ones(4)}), (lib.ones(1, 3),)))


def test_stack_module_state(torch):
    def run(lib):
        lib.manual_seed(0)
        models = [lib.nn.Linear(2, 3) for _ in range(4)]
        params, buffers = lib.func.stack_module_state(models)
        x = lib.ones(4, 5, 2)

        def call(p, xi):
            return lib.func.functional_call(models[0], p, (xi,))
        out = lib.func.vmap(call)(params, x)
        return params["weight"].shape, params["bias"].requires_grad, buffers, out
    check_same(run)


def _tied(lib):
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(2, 2, bias=False)
            self.b = lib.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight
            self.register_buffer("buf", lib.ones(2))

        def forward(self, x):
            return self.b(self.a(x)) + self.buf
    return Tied()


@pytest.mark.parametrize("case", [
    lambda lib, m, F: F(m, {"a.weight": lib.eye(2), "b.weight": lib.eye(2) * 2}, lib.ones(1, 2)),
    lambda lib, m, F: F(m, {"a.weight": lib.eye(2)}, lib.ones(1, 2), strict=True),
], ids=["tied_given_twice", "strict_counts_tied_names"])
def test_tied_weights_errors(torch, case):
    check_error(lambda lib: case(lib, _tied(lib), lib.func.functional_call))


def test_tied_weights_same_value_and_untied(torch):
    def run(lib):
        m, F, e = _tied(lib), lib.func.functional_call, lib.eye(2)
        x = lib.ones(1, 2)
        return (F(m, {"a.weight": e, "b.weight": e}, x),
                F(m, {"a.weight": e, "b.weight": e * 2}, x, tie_weights=False),
                F(m, {"a.weight": e, "buf": lib.zeros(2)}, x, strict=True))
    check_same(run)
