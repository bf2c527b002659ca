"""In-place changes through a view: the base's history gets a ``CopySlices`` node.

When ``v = base[...]`` is changed in place by a node ``fn``, gradients of ``base`` must see the
change. ``CopySlices`` takes the gradient of the new base, hands ``fn`` the part that the view
covers, and writes ``fn``'s gradient for the view's old value back into that part.
"""
from .graph import Node, _BACKWARD_SUFFIX, n_outputs as _n_out
from .grad_mode import STATE

__all__ = ["rebase_view", "replay_view", "refresh_view"]


def replay_view(t, chain):
    """Re-apply a view chain ((op class, extra args), ...) to tensor ``t``."""
    for cls, rest in chain:
        t = cls.apply(t, *rest)
    return t


class CopySlices(Node):
    """Backward of an in-place op applied to a view; its only output is the base."""

    __module__ = "builtins"   # a C++ class in PyTorch
    __slots__ = ("fn", "fn_output_nr", "fn_input_nr", "chain", "base_meta")
    _n_outputs = 1

    def __init__(self, base_edge, fn, output_nr, input_nr, chain, base_meta):
        others = tuple(e for k, e in enumerate(fn.next_functions) if k != input_nr)
        self._init_node((base_edge,) + others)
        self.fn, self.fn_output_nr, self.fn_input_nr = fn, output_nr, input_nr
        self.chain, self.base_meta = chain, base_meta

    def name(self):
        return "torch::autograd::CopySlices"

    def _backward(self, grads, create_graph):
        from .. import _creation
        g = grads[0]
        result = g.clone()
        region = replay_view(result, self.chain)
        fn_grads = [None] * _n_out(self.fn)
        fn_grads[self.fn_output_nr] = region.clone()
        res = self.fn._backward(fn_grads, create_graph)
        old = res[self.fn_input_nr]
        if old is None:
            region.zero_() if not STATE.enabled else region.copy_(_creation.zeros_like(region))
        else:
            region.copy_(old)
        return [result] + [r for k, r in enumerate(res) if k != self.fn_input_nr]

    def _release(self):
        self.fn._release()


def rebase_view(view, fn, output_nr, input_nr):
    """Route an in-place change of ``view`` (now output ``output_nr`` of ``fn``) via its base."""
    if any(getattr(cls, "_multi_output_name", None) for cls, _ in view._view):
        view_fn = view._grad_fn  # as it was before this change (the write bumped the version)
        name = _BACKWARD_SUFFIX.sub("", view_fn.name()) if view_fn is not None else "?"
        raise RuntimeError(
            f"Output {view._output_nr} of {name} is a view and is being modified inplace. "
            "This view is the output of a function that returns multiple views. Such "
            "functions do not allow the output views to be modified inplace. You should "
            "replace the inplace operation by an out-of-place one.")
    base = view._base
    node = CopySlices(base._edge(), fn, output_nr, input_nr, view._view,
                      (base._data.shape, base.dtype))
    base._grad_fn, base._output_nr, base._rg = node, 0, True
    _regenerate(view)


def refresh_view(view):
    """Give ``view`` a grad_fn from its base's current history (the base changed in place
    since the view's grad_fn was made)."""
    if view._base._rg:
        _regenerate(view)
    view._view_ver = view._vc[0]


def _regenerate(view):
    from ..ops.view_replay import AsStridedView
    prev = STATE.enabled
    STATE.enabled = True
    try:
        fresh = AsStridedView.apply(view._base, view._view)
    finally:
        STATE.enabled = prev
    view._grad_fn, view._output_nr, view._rg = fresh._grad_fn, 0, True
    view._view_ver = view._vc[0]
