"""``RMSprop``: divide the gradient by a running RMS (optionally centered, with momentum).

>>> import numtorch as torch
>>> RMSprop([torch.nn.Parameter(torch.ones(1))])
RMSprop (
Parameter Group 0
    alpha: 0.99
    capturable: False
    centered: False
    differentiable: False
    eps: 1e-08
    foreach: None
    lr: 0.01
    maximize: False
    momentum: 0
    weight_decay: 0
)
"""
from . import _kernels as K
from ._common import PerParamOptimizer, advance, decay_grad
from .optimizer import check_lr, check_nonneg, to_scalar
from .sgd import grad_array

__all__ = ["RMSprop"]


class RMSprop(PerParamOptimizer):
    """v = alpha v + (1 - alpha) g^2;  p -= lr * g / (sqrt(v [- mean(g)^2]) + eps)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_lr(lr)
        check_nonneg(eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    _sparse_error = "RMSprop does not support sparse gradients"

    def _buffer_names(self, group):
        return (("square_avg",) + (("momentum_buffer",) if group["momentum"] > 0 else ())
                + (("grad_avg",) if group["centered"] else ()))

    def step(self, closure=None):
        """One RMSprop update of every parameter that has a gradient."""
        return self.step_each(closure)

    def _update(self, p, group, state):
        lr, alpha, eps = to_scalar(group["lr"]), group["alpha"], group["eps"]
        grad = grad_array(p, group["maximize"])
        advance(state["step"])
        grad = decay_grad(p._data, grad, group["weight_decay"], lr)
        sq = state["square_avg"]._data
        K.addcmul_(K.mul_(sq, alpha), grad, grad, 1 - alpha)
        if group["centered"]:
            ga = K.lerp_(state["grad_avg"]._data, grad, 1 - alpha)
            avg = K.sqrt_div_add(K.addcmul_(sq.copy(), ga, ga, -1), 1, eps)
        else:
            avg = K.sqrt_div_add(sq, 1, eps)
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]._data
            K.addcdiv_(K.mul_(buf, group["momentum"]), grad, avg)
            K.add_(p._data, buf, -lr)
        else:
            K.addcdiv_(p._data, grad, avg, -lr)
        for t in state.values():
            K.bump(t)
        K.bump(p)
