"""Gradient clipping: ``clip_grad_norm_`` (global norm) and ``clip_grad_value_``.

>>> import numtorch as torch
>>> w = torch.nn.Parameter(torch.tensor([3.0, -4.0]))
>>> w.grad = torch.tensor([3.0, -4.0])
>>> clip_grad_value_([w], 1.0); w.grad
tensor([ 1., -1.])
"""
import warnings

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _tensors(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of all ``tensors`` together (norm of their norms).

    >>> get_total_norm([torch.tensor([3.0]), torch.tensor([4.0])])
    tensor(5.)
    """
    from ... import stack, tensor
    from ...ops.reduction import vector_norm
    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    with no_grad():
        norms = [vector_norm(t, norm_type) for t in tensors]
        total = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and (bool(total.isnan()) or bool(total.isinf())):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by min(1, max_norm / (total_norm + 1e-6)), in place."""
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    max_norm = float(max_norm)  # PyTorch's TypeError for a max_norm of None
    if not grads:
        return
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Clip the global gradient norm of ``parameters`` to ``max_norm``; return the norm
    before clipping."""
    params = _tensors(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_`."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _tensors(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
