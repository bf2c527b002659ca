"""``SparseAdam``: Adam for sparse gradients.

numtorch has no sparse tensors, so every gradient is dense and ``step`` raises PyTorch's own
error for dense gradients (use ``Adam``). The constructor checks its arguments as PyTorch's.

>>> import numtorch as torch
>>> SparseAdam([torch.nn.Parameter(torch.ones(1))]).defaults['lr']
0.001
"""
from .optimizer import Optimizer
from .sgd import _closure_loss

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Adam restricted to the rows a sparse gradient touches (needs sparse gradients)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def step(self, closure=None):
        """Raises for the dense gradients numtorch has (PyTorch's error)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    raise RuntimeError("SparseAdam does not support dense gradients, please "
                                       "consider Adam instead")
        return loss
