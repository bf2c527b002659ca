"""``Adamax``: Adam with the infinity norm of past gradients.

>>> import numtorch as torch
>>> Adamax([torch.nn.Parameter(torch.ones(1))]).defaults['lr']
0.002
"""
import numpy as np

from .. import _creation
from . import _kernels as K
from .adam import _advance
from .optimizer import Optimizer, check_betas, check_lr, check_nonneg, step_counter, to_scalar
from .sgd import _closure_loss, grad_array

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """m = lerp(m, g, 1 - b1); u = max(b2 u, |g| + eps); p -= lr / (1 - b1^t) * m / u."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonneg(eps=eps)
        check_betas(betas)
        check_nonneg(weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _state_for(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["exp_avg"] = _creation.zeros_like(p)
            state["exp_inf"] = _creation.zeros_like(p)
        return state

    def step(self, closure=None):
        """One Adamax update of every parameter that has a gradient."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if p.grad.is_sparse:
                        raise RuntimeError("Adamax does not support sparse gradients")
                    self._update(p, group, self._state_for(p))
        return loss

    def _update(self, p, group, state):
        lr = to_scalar(group["lr"])
        beta1, beta2 = group["betas"]
        step = _advance(state["step"])
        grad = grad_array(p, group["maximize"])
        if group["weight_decay"] != 0:
            grad = K.add(grad, p._data, group["weight_decay"])
        m, u = state["exp_avg"]._data, state["exp_inf"]._data
        K.lerp_(m, grad, 1 - beta1)
        np.maximum(K.mul_(u, beta2), np.abs(grad) + u.dtype.type(group["eps"]), out=u)
        clr = lr / (1 - beta1 ** step)
        K.addcdiv_(p._data, m, u, -clr)
        for t in (state["exp_avg"], state["exp_inf"], p):
            K.bump(t)
