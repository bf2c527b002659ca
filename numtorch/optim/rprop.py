"""``Rprop``: resilient backpropagation, a per-coordinate step grown or shrunk by the sign of
successive gradients.

>>> import numtorch as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = Rprop([w], lr=0.5); (w * w).sum().backward(); opt.step(); w
Parameter containing:
tensor([0.5000], requires_grad=True)
"""
import numpy as np

from .. import _creation
from . import _kernels as K
from ._common import PerParamOptimizer, advance
from .optimizer import check_lr, step_counter, to_scalar
from .sgd import grad_array

__all__ = ["Rprop"]


class Rprop(PerParamOptimizer):
    """s = clamp(s * (etaplus | etaminus | 1 by sign(g g_prev)), min, max);
    p -= sign(g) s, where g is zeroed after a sign change."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    _sparse_error = "Rprop does not support sparse gradients"

    def _state_for(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["prev"] = _creation.zeros_like(p)
            state["step_size"] = _creation.full_like(p.grad, to_scalar(group["lr"]))
        return state

    def step(self, closure=None):
        """One Rprop update of every parameter that has a gradient."""
        return self.step_each(closure)

    def _update(self, p, group, state):
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        advance(state["step"])
        grad = grad_array(p, group["maximize"])
        prev, size = state["prev"]._data, state["step_size"]._data
        dt = size.dtype.type
        sign = np.sign(grad * prev)
        factor = np.where(sign > 0, dt(etaplus), np.where(sign < 0, dt(etaminus), dt(1)))
        K.mul_(size, factor)
        np.clip(size, dt(lo), dt(hi), out=size)
        grad = np.where(factor == dt(etaminus), dt(0), grad)
        p._data[...] = p._data - np.sign(grad) * size
        prev[...] = grad
        for t in (state["prev"], state["step_size"], p):
            K.bump(t)
