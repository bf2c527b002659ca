"""``Adadelta``: step sizes from running averages of squared gradients and updates.

>>> import numtorch as torch
>>> Adadelta([torch.nn.Parameter(torch.ones(1))]).defaults['rho']
0.9
"""
import numpy as np

from . import _kernels as K
from ._common import PerParamOptimizer, advance, decay_grad
from .optimizer import check_lr, check_nonneg, to_scalar
from .sgd import grad_array

__all__ = ["Adadelta"]


class Adadelta(PerParamOptimizer):
    """v = rho v + (1 - rho) g^2; d = sqrt(u + eps) / sqrt(v + eps) g; u = rho u + (1 - rho) d^2."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonneg(eps=eps, weight_decay=weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    _buffers = ("square_avg", "acc_delta")
    _sparse_error = "Adadelta does not support sparse gradients"

    def step(self, closure=None):
        """One Adadelta update of every parameter that has a gradient."""
        return self.step_each(closure)

    def _update(self, p, group, state):
        lr, rho = to_scalar(group["lr"]), group["rho"]
        advance(state["step"])
        grad = decay_grad(p._data, grad_array(p, group["maximize"]), group["weight_decay"], lr)
        sq, acc = state["square_avg"]._data, state["acc_delta"]._data
        eps = sq.dtype.type(group["eps"])
        K.addcmul_(K.mul_(sq, rho), grad, grad, 1 - rho)
        std = np.sqrt(sq + eps)
        delta = np.sqrt(acc + eps) / std * grad
        K.addcmul_(K.mul_(acc, rho), delta, delta, 1 - rho)
        K.add_(p._data, delta, -lr)
        for t in (state["square_avg"], state["acc_delta"], p):
            K.bump(t)
