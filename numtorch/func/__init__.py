"""``torch.func``: composable transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap,
functional_call, functionalize).

>>> import numtorch as torch
>>> torch.func.grad(lambda x: (x ** 2).sum())(torch.tensor([1., 2.]))
tensor([2., 4.])
"""
from ._transforms import (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
                          linearize)
from ._vmap import vmap
from ._functional_call import functional_call, stack_module_state
from ._functionalize import functionalize
from ._batch_norm import replace_all_batch_norm_modules_, debug_unwrap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize",
           "vmap", "functional_call", "stack_module_state", "replace_all_batch_norm_modules_",
           "debug_unwrap", "functionalize"]
