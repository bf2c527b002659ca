"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov, weight decay.

>>> import numtorch as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = SGD([w], lr=0.1, momentum=0.9)
>>> for _ in range(2):
...     opt.zero_grad(); (w * w).sum().backward(); opt.step()
>>> w
Parameter containing:
tensor([0.4600], requires_grad=True)
"""
import numpy as np

from .. import _creation
from . import _kernels as K
from .optimizer import Optimizer, check_lr, to_scalar

__all__ = ["SGD"]


def grad_array(p, maximize):
    g = p.grad._data
    # NOTE: out= keeps a 0-d gradient an array (plain -g gives a NumPy scalar)
    return np.negative(g, out=np.empty_like(g)) if maximize else g


class SGD(Optimizer):
    """p -= lr * (momentum buffer | gradient), following PyTorch's single-tensor update."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        check_lr(lr, negative_only=True)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("nesterov", False), ("maximize", False), ("foreach", None),
                         ("differentiable", False), ("fused", False)):
                group.setdefault(k, v)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns closure()'s loss."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            if group["weight_decay"] == 0 and group["momentum"] == 0 and not group["maximize"]:
                _plain_steps(group)
                continue
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, group)
        return loss

    def _update(self, p, group):
        lr, wd, momentum = to_scalar(group["lr"]), group["weight_decay"], group["momentum"]
        grad = grad_array(p, group["maximize"])
        if wd != 0:
            grad = K.add(grad, p._data, wd)
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = _creation.tensor(grad.copy())
                state["momentum_buffer"] = buf
            else:
                K.add_(K.mul_(buf._data, momentum), grad, 1 - group["dampening"])
                K.bump(buf)
            grad = K.add(grad, buf._data, momentum) if group["nesterov"] else buf._data
        K.add_(p._data, grad, -lr)
        K.bump(p)


def _plain_steps(group):
    """``p -= lr * grad`` for every parameter of ``group`` that has a gradient (no weight
    decay, momentum or maximize: ``_update``'s plain case, in one loop)."""
    lr = to_scalar(group["lr"])
    for p in group["params"]:
        # (``p.grad``'s warning for a non-leaf, read only where it can apply)
        g = p._grad if p._grad_fn is None else p.grad
        if g is not None:
            K.descend_(p, g._data, lr)


def _closure_loss(closure):
    if closure is None:
        return None
    from ..autograd.grad_mode import enable_grad
    with enable_grad():
        return closure()
