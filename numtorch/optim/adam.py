"""``Adam`` (and the decoupled-weight-decay variant that ``AdamW`` uses), with AMSGrad.

>>> import numtorch as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = Adam([w], lr=0.1)
>>> (w * w).sum().backward(); opt.step(); w
Parameter containing:
tensor([0.9000], requires_grad=True)
"""
import numpy as np

from .. import _creation
from . import _kernels as K
from .optimizer import Optimizer, check_betas, check_lr, check_nonneg, step_counter, to_scalar
from .sgd import _closure_loss, grad_array

__all__ = ["Adam"]


class Adam(Optimizer):
    """m = lerp(m, g, 1 - b1); v = b2 v + (1 - b2) g^2;
    p -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_lr(lr)
        check_nonneg(eps=eps)
        check_betas(betas)
        check_nonneg(weight_decay=weight_decay)
        betas = tuple(to_scalar(b) for b in betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("amsgrad", False), ("maximize", False), ("foreach", None),
                         ("capturable", False), ("differentiable", False),
                         ("decoupled_weight_decay", False), ("fused", None)):
                group.setdefault(k, v)

    def _state_for(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["exp_avg"] = _creation.zeros_like(p)
            state["exp_avg_sq"] = _creation.zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _creation.zeros_like(p)
        return state

    def step(self, closure=None):
        """One Adam update of every parameter that has a gradient."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if p.grad.is_sparse:
                        raise RuntimeError("Adam does not support sparse gradients, please "
                                           "consider SparseAdam instead")
                    self._update(p, group, self._state_for(p, group))
        return loss

    def _update(self, p, group, state):
        lr, wd, eps = to_scalar(group["lr"]), group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        param = p._data
        grad = grad_array(p, group["maximize"])
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        step = _advance(state["step"])
        if wd != 0:
            if group["decoupled_weight_decay"]:
                K.mul_(param, 1 - lr * wd)
            else:
                grad = K.add(grad, param, wd)
        K.lerp_(m, grad, 1 - beta1)
        K.addcmul_(K.mul_(v, beta2), grad, grad, 1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bc2_sqrt = bias_correction2 ** 0.5
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]._data
            np.maximum(vmax, v, out=vmax)
            v = vmax
        denom = np.sqrt(v) / v.dtype.type(bc2_sqrt) + v.dtype.type(eps)
        K.addcdiv_(param, m, denom, -step_size)
        for t in (p, state["exp_avg"], state["exp_avg_sq"]):
            K.bump(t)


def _advance(step_t):
    """step += 1 on the step-counter tensor; the new count as a Python float."""
    step_t._data[...] = step_t._data + 1
    K.bump(step_t)
    return float(step_t._data)
