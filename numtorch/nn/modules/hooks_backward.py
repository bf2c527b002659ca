"""Module full backward hooks (``register_full_backward_hook`` / ``_pre_hook``).

The module's tensor inputs and outputs pass through an identity Function
(``BackwardHookFunctionBackward``, as in PyTorch). When the gradient reaches the output
identity, pre-hooks see (and may replace) ``grad_output``; when it reaches the input identity,
hooks see ``(module, grad_input, grad_output)`` and may replace ``grad_input``.

>>> import numtorch as torch
>>> lin = torch.nn.Linear(2, 1)
>>> seen = []
>>> _ = lin.register_full_backward_hook(lambda m, gi, go: seen.append(go[0].shape))
>>> lin(torch.ones(3, 2, requires_grad=True)).sum().backward(); seen
[torch.Size([3, 1])]
"""
import os
import sys
import warnings

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import STATE

__all__ = ["BackwardHook"]


class BackwardHookFunction(Function):
    """Identity on tensors; its backward hands the gradients to a callback first."""

    @staticmethod
    def forward(ctx, callback, *tensors):
        ctx.callback = callback
        ctx.set_materialize_grads(False)
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.callback(grads))


_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _user_stacklevel():
    """The ``stacklevel`` (for a warning its caller gives) of the innermost frame outside
    numtorch: as PyTorch's, the warning names the user's ``backward()`` line."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(_ROOT):
        frame, level = frame.f_back, level + 1
    return level


def _pack(indices, values, size):
    out = [None] * size
    for i, v in zip(indices, values):
        out[i] = v
    return tuple(out)


class BackwardHook:
    """Wires one forward call of ``module`` to its backward hooks."""

    def __init__(self, module, hooks):
        from .module import _global_backward_pre_hooks
        self.module = module
        self.hooks = hooks      # the full backward hooks, global ones first
        self.pre_hooks = list(_global_backward_pre_hooks().values()) + \
            list(module._backward_pre_hooks.values())
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = self.output_index = None
        self.input_meta = ()    # (shape, dtype) of each wrapped input tensor

    def _wrap(self, values, callback):
        """Route the tensors among ``values`` through the identity; (new values, indices)."""
        index = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
        tensors = [values[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and STATE.enabled):
            return values, None
        if not tensors:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        new = BackwardHookFunction.apply(callback, *tensors)
        out = list(values)
        for i, t in zip(index, new):
            out[i] = t
        return tuple(out), index

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        args, self.input_index = self._wrap(args, self._on_grad_inputs)
        if self.input_index is not None:
            self.input_meta = [(args[i].shape, args[i].dtype) for i in self.input_index]
        return args

    def setup_output_hook(self, out):
        single = not isinstance(out, tuple)
        values = (out,) if single else out
        self.n_outputs = len(values)
        values, self.output_index = self._wrap(values, self._on_grad_outputs)
        return values[0] if single else values

    def _on_grad_outputs(self, grads):
        self.grad_outputs = _pack(self.output_index, grads, self.n_outputs)
        for hook in self.pre_hooks:
            res = hook(self.module, self.grad_outputs)
            if res is None:
                continue
            if len(res) != len(self.grad_outputs):
                raise RuntimeError(f"Backward pre hook returned an invalid number of "
                                   f"grad_output, got {len(res)}, but expected "
                                   f"{len(self.grad_outputs)}")
            self.grad_outputs = tuple(res)
        current = self.grad_outputs
        if self.input_index is None:
            self._hooks_without_inputs()
        return tuple(current[i] for i in self.output_index)

    def _hooks_without_inputs(self):
        warnings.warn("Full backward hook is firing when gradients are computed with respect to "
                      "module outputs since no inputs require gradients. See https://docs."
                      "pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module."
                      "register_full_backward_hook for more details.",
                      stacklevel=_user_stacklevel())
        grad_inputs = (None,) * self.n_inputs
        for hook in self.hooks:
            res = hook(self.module, grad_inputs, self.grad_outputs)
            if res is not None and not (isinstance(res, tuple) and
                                        all(r is None for r in res)):
                raise RuntimeError("Backward hook for Modules where no input requires gradient "
                                   "should always return None or None for all gradients.")
        self.grad_outputs = None

    def _on_grad_inputs(self, grads):
        # as PyTorch's identity node (which materializes gradients): an input whose wrapped
        # copy got no gradient (unused, or not requiring grad) gets zeros, hooks included
        if any(g is None for g in grads):
            from ..._creation import zeros
            grads = tuple(zeros(shape, dtype=dtype) if g is None else g
                          for g, (shape, dtype) in zip(grads, self.input_meta))
        if self.grad_outputs is None:
            # the gradient reached the inputs without passing the outputs (double backward)
            return grads
        res = _pack(self.input_index, grads, self.n_inputs)
        for hook in self.hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = tuple(out)
        self.grad_outputs = None
        res = tuple(res[i] for i in self.input_index)
        for new, (shape, _) in zip(res, self.input_meta):
            if isinstance(new, Tensor) and new.shape != shape:
                # PyTorch's check on a node hook's result (its hook is named 'hook')
                raise RuntimeError("hook 'hook' has changed the size of value")
        return res
