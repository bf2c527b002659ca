"""``AsStridedView``: a view chain replayed from its base as one op.

When a base changes in place, its views need a grad_fn from the base's new history. PyTorch
makes that grad_fn an ``AsStridedBackward0`` over the base; numtorch replays the view's chain
of view ops (slices, transposes ...) in one node with that name, whose backward runs each
step's backward in reverse, so it differentiates again like the steps themselves.
"""
from ._base import BuiltinFunction

__all__ = ["AsStridedView"]


class _StepCtx:
    """The ctx one replayed view step's forward and backward see (view ops save no tensors)."""

    needs_input_grad = (True,) * 8

    def save_for_backward(self, *tensors):
        raise AssertionError("view ops replayed by AsStridedView must not save tensors")


class AsStridedView(BuiltinFunction):
    """out = x viewed through ``chain``;  dx = g sent back through each step's backward."""
    _backward_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, x, chain):
        steps = []
        for cls, rest in chain:
            step_ctx = _StepCtx()
            x = cls.forward(step_ctx, x, *rest)
            steps.append((cls, step_ctx))
        ctx.steps = steps
        return x

    @staticmethod
    def backward(ctx, g):
        for cls, step_ctx in reversed(ctx.steps):
            res = cls.backward(step_ctx, g)
            g = res[0] if type(res) is tuple else res
        return g, None
