"""``ASGD``: stochastic gradient descent with Polyak-Ruppert averaging of the iterates.

>>> import numtorch as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = ASGD([w], lr=0.5); (w * w).sum().backward(); opt.step(); w
Parameter containing:
tensor([-5.0008e-05], requires_grad=True)
"""
from .. import _creation
from . import _kernels as K
from ._common import PerParamOptimizer, advance, decay_grad
from .optimizer import check_lr, check_nonneg, scalar_dtype, step_counter, to_scalar
from .sgd import grad_array

__all__ = ["ASGD"]


class ASGD(PerParamOptimizer):
    """p = p (1 - lambd eta) - eta g;  ax += mu (p - ax) (ax = p while mu is 1);
    eta = lr / (1 + lambd lr t)^alpha;  mu = 1 / max(1, t - t0)."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonneg(weight_decay=weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _sparse_error = "ASGD does not support sparse gradients"

    def _state_for(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            from .. import tensor
            state["step"] = step_counter()
            state["eta"] = tensor(to_scalar(group["lr"]), dtype=scalar_dtype())
            state["mu"] = step_counter(1.0)
            state["ax"] = _creation.zeros_like(p)
        return state

    def step(self, closure=None):
        """One ASGD update of every parameter that has a gradient."""
        return self.step_each(closure)

    def _update(self, p, group, state):
        lr, lambd = to_scalar(group["lr"]), group["lambd"]
        step = advance(state["step"])
        grad = decay_grad(p._data, grad_array(p, group["maximize"]), group["weight_decay"], lr)
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        update = _foreach_update if group["foreach"] else _single_update
        update(p._data, grad, ax._data, lambd, eta._data, mu._data)
        if group["foreach"]:
            # NOTE: PyTorch's multi-tensor step computes eta from the step *tensor*, so in
            # its dtype: lr * reciprocal((1 + lambd lr step) ** alpha)
            base = state["step"] * (lambd * lr) + 1
            eta._data[...] = ((base ** group["alpha"]).reciprocal() * lr)._data
        else:
            # NOTE: the new eta and mu are Python floats stored into the float32 counters
            eta._data[...] = lr / ((1 + lambd * lr * step) ** group["alpha"])
        mu._data[...] = 1 / max(1, step - group["t0"])
        for t in (eta, mu, ax, p, p):  # p twice: PyTorch's mul_ by 1 - lambd eta, then add_
            K.bump(t)


def _single_update(param, grad, ax, lambd, eta, mu):
    """PyTorch's single-tensor update: p = p (1 - lambd eta) - eta g, then ax = p while
    mu is 1, else ax += (p - ax) mu."""
    eta_value = float(eta)
    K.mul_(param, 1 - lambd * eta_value)
    K.add_(param, grad, -eta_value)
    if float(mu) != 1:
        ax += (param - ax) * mu.astype(ax.dtype)
    else:
        ax[...] = param


def _foreach_update(param, grad, ax, lambd, eta, mu):
    """PyTorch's multi-tensor (``foreach=True``) update, which rounds differently from the
    single-tensor one: p -= eta (g + lambd p), then ax += (p - ax) mu (even while mu is 1).
    ``grad`` already holds any weight decay; ``eta`` and ``mu`` are the 0-d state arrays."""
    intermediate = K.add(grad, param, lambd)
    K.addcmul_(param, intermediate, eta.astype(param.dtype), -1)
    K.addcmul_(ax, param - ax, mu.astype(ax.dtype))
