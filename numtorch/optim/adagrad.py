"""``Adagrad``: per-coordinate learning rates from the sum of squared gradients.

>>> import numtorch as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = Adagrad([w], lr=0.5); (w * w).sum().backward(); opt.step(); w
Parameter containing:
tensor([0.5000], requires_grad=True)
"""
import numpy as np

from .. import _creation
from . import _kernels as K
from ._common import PerParamOptimizer, advance, decay_grad
from .optimizer import check_lr, step_counter, to_scalar
from .sgd import grad_array

__all__ = ["Adagrad"]


class Adagrad(PerParamOptimizer):
    """s += g^2;  p -= lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + eps)."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: "
                             f"{initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:    # PyTorch creates Adagrad's state up front
            for p in group["params"]:
                self._state_for(p, group)

    def _state_for(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["sum"] = _creation.full_like(p, self.defaults["initial_accumulator_value"])
        return state

    def step(self, closure=None):
        """One Adagrad update of every parameter that has a gradient."""
        return self.step_each(closure)

    def _update(self, p, group, state):
        lr = to_scalar(group["lr"])
        step = advance(state["step"])
        grad = decay_grad(p._data, grad_array(p, group["maximize"]), group["weight_decay"], lr)
        clr = lr / (1 + (step - 1) * group["lr_decay"])
        s = K.addcmul_(state["sum"]._data, grad, grad, 1)
        std = np.sqrt(s) + s.dtype.type(group["eps"])
        K.addcdiv_(p._data, grad, std, -clr)
        K.bump(state["sum"])
        K.bump(p)
