"""``NAdam``: Adam with Nesterov momentum and a momentum-decay schedule.

>>> import numtorch as torch
>>> NAdam([torch.nn.Parameter(torch.ones(1))]).defaults['momentum_decay']
0.004
"""
import numpy as np

from .. import _creation
from . import _kernels as K
from .adam import _advance
from .optimizer import Optimizer, check_betas, check_lr, check_nonneg, step_counter, to_scalar
from .sgd import _closure_loss, grad_array

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Adam whose update mixes the current gradient and the momentum by the mu schedule."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_lr(lr)
        check_nonneg(eps=eps)
        check_betas(betas)
        check_nonneg(weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _state_for(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["mu_product"] = step_counter(1.0)
            state["exp_avg"] = _creation.zeros_like(p)
            state["exp_avg_sq"] = _creation.zeros_like(p)
        return state

    def step(self, closure=None):
        """One NAdam update of every parameter that has a gradient."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if p.grad.is_sparse:
                        raise RuntimeError("NAdam does not support sparse gradients")
                    self._update(p, group, self._state_for(p))
        return loss

    def _update(self, p, group, state):
        lr, wd, md = to_scalar(group["lr"]), group["weight_decay"], group["momentum_decay"]
        beta1, beta2 = group["betas"]
        param = p._data
        grad = grad_array(p, group["maximize"])
        step = _advance(state["step"])
        bias_correction2 = 1 - beta2 ** step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                K.mul_(param, 1 - lr * wd)
            else:
                grad = K.add(grad, param, wd)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * md)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * md)))
        mp = state["mu_product"]._data
        mp[...] = mp * mp.dtype.type(mu)
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        K.lerp_(m, grad, 1 - beta1)
        K.addcmul_(K.mul_(v, beta2), grad, grad, 1 - beta2)
        denom = np.sqrt(v / v.dtype.type(bias_correction2)) + v.dtype.type(group["eps"])
        mu_product = float(mp)
        mu_product_next = mu_product * mu_next
        K.addcdiv_(param, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
        K.addcdiv_(param, m, denom, (-lr * mu_next) / (1.0 - mu_product_next))
        for t in state.values():
            K.bump(t)
        K.bump(p)
