"""``RAdam``: Adam with a rectified adaptive learning rate (plain momentum early on).

>>> import numtorch as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = RAdam([w], lr=0.1); (w * w).sum().backward(); opt.step(); w
Parameter containing:
tensor([0.8000], requires_grad=True)
"""
import numpy as np

from .. import _creation
from . import _kernels as K
from .adam import _advance
from .optimizer import Optimizer, check_betas, check_lr, check_nonneg, step_counter, to_scalar
from .sgd import _closure_loss, grad_array

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Adam with the variance rectification term once rho_t > 5."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_lr(lr)
        check_nonneg(eps=eps)
        check_betas(betas)
        check_nonneg(weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _state_for(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["exp_avg"] = _creation.zeros_like(p)
            state["exp_avg_sq"] = _creation.zeros_like(p)
        return state

    def step(self, closure=None):
        """One RAdam update of every parameter that has a gradient."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if p.grad.is_sparse:
                        raise RuntimeError("RAdam does not support sparse gradients")
                    self._update(p, group, self._state_for(p))
        return loss

    def _update(self, p, group, state):
        lr, wd = to_scalar(group["lr"]), group["weight_decay"]
        beta1, beta2 = group["betas"]
        param = p._data
        grad = grad_array(p, group["maximize"])
        step = _advance(state["step"])
        if wd != 0:
            if group["decoupled_weight_decay"]:
                K.mul_(param, 1 - lr * wd)
            else:
                grad = K.add(grad, param, wd)
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        K.lerp_(m, grad, 1 - beta1)
        K.addcmul_(K.mul_(v, beta2), grad, grad, 1 - beta2)
        f = m.dtype.type
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        update = m / f(bias_correction1) * f(lr)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            adaptive = f(bias_correction2 ** 0.5) / (np.sqrt(v) + f(group["eps"]))
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf /
                    ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            update = update * adaptive * f(rect)
        K.add_(param, update, -1.0)
        for t in (state["exp_avg"], state["exp_avg_sq"], p):
            K.bump(t)
