"""``Adam`` (and the decoupled-weight-decay variant that ``AdamW`` uses), with AMSGrad.

>>> import numtorch as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = Adam([w], lr=0.1)
>>> (w * w).sum().backward(); opt.step(); w
Parameter containing:
tensor([0.9000], requires_grad=True)
"""
import numpy as np

from . import _kernels as K
from ._common import PerParamOptimizer, adam_start, check_adam_args, hyper_value
from .._tensor import Tensor
from .optimizer import to_scalar

__all__ = ["Adam"]


class Adam(PerParamOptimizer):
    """m = lerp(m, g, 1 - b1); v = b2 v + (1 - b2) g^2;
    p -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        check_adam_args(lr, betas, eps, weight_decay)
        betas = _check_tensor_betas(betas, foreach and not capturable)
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

    _sparse_error = ("Adam does not support sparse gradients, please consider SparseAdam "
                     "instead")

    def _buffer_names(self, group):
        amsgrad = ("max_exp_avg_sq",) if group["amsgrad"] else ()
        return ("exp_avg", "exp_avg_sq") + amsgrad

    def step(self, closure=None):
        """One Adam update of every parameter that has a gradient."""
        return self.step_each(closure)

    def _update(self, p, group, state):
        lr, step, _, m, v = adam_start(p, group, state)
        beta1, beta2 = group["betas"]
        # NOTE: with Tensor betas these are 0-d Tensor ops, rounded as PyTorch's
        # (lr / t is lr * reciprocal(t) there); hyper_value takes their values
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = hyper_value(lr / bias_correction1)
        bc2_sqrt = hyper_value(bias_correction2 ** 0.5)
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]._data
            np.maximum(vmax, v, out=vmax)
            v = vmax
        denom = K.sqrt_div_add(v, bc2_sqrt, group["eps"])
        K.addcdiv_(p._data, m, denom, -step_size)
        for t in (p, state["exp_avg"], state["exp_avg_sq"]):
            K.bump(t)


def _check_tensor_betas(betas, foreach_only):
    """PyTorch's rules for betas: both floats or both (one-element) Tensors, kept as given
    (Tensors squeezed to 0-d); Tensors need the single-tensor or capturable path."""
    if not (all(isinstance(b, float) for b in betas[:2]) or
            all(isinstance(b, Tensor) for b in betas[:2])):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, b in enumerate(betas[:2]):
        if isinstance(b, Tensor):
            if foreach_only:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                 "capturable=False and foreach=True")
            if b.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
    return tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() != 0 else b for b in betas)
