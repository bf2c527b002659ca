"""``RAdam``: Adam with a rectified adaptive learning rate (plain momentum early on).

>>> import numtorch as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = RAdam([w], lr=0.1); (w * w).sum().backward(); opt.step(); w
Parameter containing:
tensor([0.8000], requires_grad=True)
"""
import numpy as np

from . import _kernels as K
from ._common import PerParamOptimizer, adam_start, check_adam_args

__all__ = ["RAdam"]


class RAdam(PerParamOptimizer):
    """Adam with the variance rectification term once rho_t > 5."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    _buffers = ("exp_avg", "exp_avg_sq")
    _sparse_error = "RAdam does not support sparse gradients"

    def step(self, closure=None):
        """One RAdam update of every parameter that has a gradient."""
        return self.step_each(closure)

    def _update(self, p, group, state):
        lr, step, _, m, v = adam_start(p, group, state)
        beta1, beta2 = group["betas"]
        f = m.dtype.type
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        rect = (((rho_t - 4) * (rho_t - 2) * rho_inf /
                 ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5 if rho_t > 5.0 else 0)
        if group["foreach"]:
            _foreach_update(p._data, m, v, lr, rect, bias_correction1, bias_correction2,
                            group["eps"])
        else:
            update = m / f(bias_correction1) * f(lr)
            if rect:
                adaptive = f(bias_correction2 ** 0.5) / (np.sqrt(v) + f(group["eps"]))
                update = update * adaptive * f(rect)
            K.add_(p._data, update, -1.0)
        for t in (state["exp_avg"], state["exp_avg_sq"], p):
            K.bump(t)


def _foreach_update(param, m, v, lr, rect, bias_correction1, bias_correction2, eps):
    """PyTorch's multi-tensor (``foreach=True``) update, which rounds differently from the
    single-tensor one: p += m * (1 / ((sqrt(v) + eps) / c2) + c1), with the Python floats
    c2 = -sqrt(bc2) lr rect / bc1 and c1 = -lr / bc1 while unrectified (else 0).

    NOTE: unrectified, c2 is -0.0, so the reciprocal term is -0.0 and only c1 remains.
    """
    f = v.dtype.type
    c1 = (lr * (0 if rect > 0 else 1.0) / bias_correction1) * -1
    c2 = (bias_correction2 ** 0.5) * (lr * rect / bias_correction1) * -1
    with np.errstate(divide="ignore"):
        buffer = np.reciprocal((np.sqrt(v) + f(eps)) / f(c2))
    buffer += f(c1)
    K.addcmul_(param, m, buffer)
