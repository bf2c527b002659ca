"""``Adamax``: Adam with the infinity norm of past gradients.

>>> import numtorch as torch
>>> Adamax([torch.nn.Parameter(torch.ones(1))]).defaults['lr']
0.002
"""
import numpy as np

from . import _kernels as K
from ._common import PerParamOptimizer, advance, check_adam_args, decay_grad
from .optimizer import to_scalar
from .sgd import grad_array

__all__ = ["Adamax"]


class Adamax(PerParamOptimizer):
    """m = lerp(m, g, 1 - b1); u = max(b2 u, |g| + eps); p -= lr / (1 - b1^t) * m / u."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _buffers = ("exp_avg", "exp_inf")
    _sparse_error = "Adamax does not support sparse gradients"

    def step(self, closure=None):
        """One Adamax update of every parameter that has a gradient."""
        return self.step_each(closure)

    def _update(self, p, group, state):
        lr = to_scalar(group["lr"])
        beta1, beta2 = group["betas"]
        step = advance(state["step"])
        grad = decay_grad(p._data, grad_array(p, group["maximize"]), group["weight_decay"], lr)
        m, u = state["exp_avg"]._data, state["exp_inf"]._data
        K.lerp_(m, grad, 1 - beta1)
        np.maximum(K.mul_(u, beta2), np.abs(grad) + u.dtype.type(group["eps"]), out=u)
        clr = lr / (1 - beta1 ** step)
        K.addcdiv_(p._data, m, u, -clr)
        for t in (state["exp_avg"], state["exp_inf"], p):
            K.bump(t)
