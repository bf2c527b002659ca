"""``NAdam``: Adam with Nesterov momentum and a momentum-decay schedule.

>>> import numtorch as torch
>>> NAdam([torch.nn.Parameter(torch.ones(1))]).defaults['momentum_decay']
0.004
"""
import numpy as np

from . import _kernels as K
from ._common import PerParamOptimizer, adam_start, check_adam_args

__all__ = ["NAdam"]


class NAdam(PerParamOptimizer):
    """Adam whose update mixes the current gradient and the momentum by the mu schedule."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay, momentum_decay=momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    _counters = (("step", 0.0), ("mu_product", 1.0))
    _buffers = ("exp_avg", "exp_avg_sq")
    _sparse_error = "NAdam does not support sparse gradients"

    def step(self, closure=None):
        """One NAdam update of every parameter that has a gradient."""
        return self.step_each(closure)

    def _update(self, p, group, state):
        lr, step, grad, m, v = adam_start(p, group, state)
        (beta1, beta2), md, param = group["betas"], group["momentum_decay"], p._data
        bias_correction2 = 1 - beta2 ** step
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * md)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * md)))
        mp = state["mu_product"]._data
        mp[...] = mp * mp.dtype.type(mu)
        denom = np.sqrt(v / v.dtype.type(bias_correction2)) + v.dtype.type(group["eps"])
        mu_product = float(mp)
        mu_product_next = mu_product * mu_next
        K.addcdiv_(param, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
        K.addcdiv_(param, m, denom, (-lr * mu_next) / (1.0 - mu_product_next))
        for k, t in state.items():
            if k != "step":  # (advance counted the step's own change)
                K.bump(t)
        K.bump(p)
        K.bump(p)  # two addcdiv_ on the parameter, as PyTorch's single-tensor step
