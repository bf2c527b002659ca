"""Sampling ops with tensor parameters (numtorch/ops/random_ops.py) against PyTorch: the same
draws, PyTorch's graph nodes and zero gradients, and bernoulli(input, p)'s NotImplemented."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same


def _draws(lib):
    lib.manual_seed(0)
    p = lib.full((4,), 0.3, dtype=lib.float64, requires_grad=True)
    m = lib.zeros(4, requires_grad=True)
    s = lib.full((4,), 2.0, requires_grad=True)
    outs = [lib.bernoulli(p), p.bernoulli(), lib.normal(m, s), lib.normal(m, 0.5),
            lib.normal(1.5, s)]
    sum(o.sum() for o in outs).backward()
    return outs, [p.grad, m.grad, s.grad]


def test_draws_nodes_and_zero_gradients(torch):
    def run(lib):
        outs, grads = _draws(lib)
        return ([o.detach() for o in outs], [o.grad_fn.name() for o in outs],
                [len(o.grad_fn.next_functions) for o in outs], grads)
    check_same(run, exact=True)


def test_no_graph_without_grad(torch):
    def run(lib):
        p = lib.full((3,), 0.5, requires_grad=True)
        with lib.no_grad():
            a = lib.bernoulli(p)
        return a.requires_grad, lib.normal(lib.zeros(2), lib.ones(2)).requires_grad
    check_same(run)


def test_bernoulli_scalar_p_is_not_differentiable(torch):
    def run(lib):
        p = lib.full((3,), 0.5, requires_grad=True)
        out = lib.bernoulli(p, 0.25)
        assert out.grad_fn.name() == "torch::autograd::NotImplemented"
        out.sum().backward()
    check_error(run)
