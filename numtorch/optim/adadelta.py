"""``Adadelta``: step sizes from running averages of squared gradients and updates.

>>> import numtorch as torch
>>> Adadelta([torch.nn.Parameter(torch.ones(1))]).defaults['rho']
0.9
"""
import numpy as np

from .. import _creation
from . import _kernels as K
from .adam import _advance
from .optimizer import Optimizer, check_lr, step_counter, to_scalar
from .sgd import _closure_loss, grad_array

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """v = rho v + (1 - rho) g^2; d = sqrt(u + eps) / sqrt(v + eps) g; u = rho u + (1 - rho) d^2."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _state_for(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["square_avg"] = _creation.zeros_like(p)
            state["acc_delta"] = _creation.zeros_like(p)
        return state

    def step(self, closure=None):
        """One Adadelta update of every parameter that has a gradient."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if p.grad.is_sparse:
                        raise RuntimeError("Adadelta does not support sparse gradients")
                    self._update(p, group, self._state_for(p))
        return loss

    def _update(self, p, group, state):
        lr, rho = to_scalar(group["lr"]), group["rho"]
        _advance(state["step"])
        grad = grad_array(p, group["maximize"])
        if group["weight_decay"] != 0:
            grad = K.add(grad, p._data, group["weight_decay"])
        sq, acc = state["square_avg"]._data, state["acc_delta"]._data
        eps = sq.dtype.type(group["eps"])
        K.addcmul_(K.mul_(sq, rho), grad, grad, 1 - rho)
        std = np.sqrt(sq + eps)
        delta = np.sqrt(acc + eps) / std * grad
        K.addcmul_(K.mul_(acc, rho), delta, delta, 1 - rho)
        K.add_(p._data, delta, -lr)
        for t in (state["square_avg"], state["acc_delta"], p):
            K.bump(t)
