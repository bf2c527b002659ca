"""Pieces the per-parameter optimizers share: argument checks, lazy state, the step loop.

``PerParamOptimizer.step_each`` runs the closure, then ``_update(p, group, state)`` for every
parameter with a (dense) gradient; state is created on a parameter's first step from the
class's ``_counters`` and ``_buffers``.

>>> check_adam_args(1e-3, (0.9, 1.0), 1e-8, 0)
Traceback (most recent call last):
...
ValueError: Invalid beta parameter at index 1: 1.0
"""
from .. import _creation
from .._tensor import Tensor
from . import _kernels as K
from .optimizer import Optimizer, check_betas, check_lr, check_nonneg, step_counter, to_scalar
from .sgd import _closure_loss, grad_array

__all__ = ["PerParamOptimizer", "advance", "check_adam_args", "decay_grad", "adam_start",
           "hyper_value"]


def advance(step_t):
    """step += 1 on the step-counter tensor; the new count as a Python float."""
    step_t._data[...] = step_t._data + 1
    K.bump(step_t)
    return float(step_t._data)


def check_adam_args(lr, betas, eps, weight_decay, **more):
    """PyTorch's checks, in its order, for lr, eps, betas, weight_decay and ``more``."""
    check_lr(lr)
    check_nonneg(eps=eps)
    check_betas(betas)
    check_nonneg(weight_decay=weight_decay, **more)


def decay_grad(param, grad, weight_decay, lr, decoupled=False):
    """Weight decay: ``param *= 1 - lr wd`` if decoupled, else the gradient plus ``wd param``."""
    if weight_decay != 0:
        if decoupled:
            K.mul_(param, 1 - lr * weight_decay)
        else:
            grad = K.add(grad, param, weight_decay)
    return grad


def hyper_value(x):
    """A hyper-parameter as a number for the update arithmetic: a Python number as is, a
    Tensor (lr or betas given as Tensors) as a NumPy scalar of its dtype, since PyTorch then
    computes the expressions that use it as Tensor ops in that dtype."""
    return x._data.reshape(())[()] if isinstance(x, Tensor) else x


def adam_start(p, group, state):
    """The Adam family's opening: count the step, decay the gradient, then update the moments
    m = lerp(m, g, 1 - b1) and v = b2 v + (1 - b2) g^2 in place.

    Returns (lr, step, grad, m, v) with ``grad``, ``m`` and ``v`` as arrays.
    """
    lr, (beta1, beta2) = hyper_value(group["lr"]), map(hyper_value, group["betas"])
    grad = grad_array(p, group["maximize"])
    step = advance(state["step"])
    grad = decay_grad(p._data, grad, group["weight_decay"], lr, group["decoupled_weight_decay"])
    if group["decoupled_weight_decay"] and group["weight_decay"] != 0:
        K.bump(p)  # PyTorch's param.mul_(1 - lr * wd): an in-place change of its own
    m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
    K.lerp_(m, grad, 1 - beta1)
    K.addcmul_(K.mul_(v, beta2), grad, grad, 1 - beta2)
    return lr, step, grad, m, v


class PerParamOptimizer(Optimizer):
    """An optimizer updating each parameter on its own from lazily created state.

    Subclasses set ``_buffers`` (zeroed like the parameter; or override ``_buffer_names``),
    ``_counters`` (name, start) scalar counters created first, ``_sparse_error`` (None: no
    check) and implement ``_update(p, group, state)``.
    """

    _counters = (("step", 0.0),)
    _buffers = ()
    _sparse_error = None

    def _buffer_names(self, group):
        return self._buffers

    def _state_for(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            for name, start in self._counters:
                state[name] = step_counter(start)
            for name in self._buffer_names(group):
                state[name] = _creation.zeros_like(p)
        return state

    def step_each(self, closure):
        """Run ``closure`` (under grad), then update every parameter that has a gradient."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if self._sparse_error is not None and p.grad.is_sparse:
                        raise RuntimeError(self._sparse_error)
                    self._update(p, group, self._state_for(p, group))
        return loss

    def _update(self, p, group, state):
        raise NotImplementedError
