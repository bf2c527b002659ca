"""In-place changes through a view: the base's history gets a ``CopySlices`` node.

When ``v = base[...]`` is changed in place by a node ``fn``, gradients of ``base`` must see the
change. ``CopySlices`` takes the gradient of the new base, hands ``fn`` the part that the view
covers, and writes ``fn``'s gradient for the view's old value back into that part.
"""
from .graph import _CallableNode, _BACKWARD_SUFFIX, n_outputs as _n_out
from .grad_mode import STATE

__all__ = ["rebase_view", "replay_view", "refresh_view", "mark_no_grad_view",
           "no_grad_view_error", "custom_view_error", "multi_output_view_error"]


def replay_view(t, chain):
    """Re-apply a view chain ((op class, extra args), ...) to tensor ``t``."""
    for cls, rest in chain:
        t = cls.apply(t, *rest)
    return t


class CopySlices(_CallableNode):
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


def multi_output_view_error(view, indirect=False):
    """PyTorch's RuntimeError for an in-place change of (``indirect``: the base or another
    view of the base of) an output of unbind/split/chunk, or None when ``view`` is not one.

    Tensor._check_inplace asks before the write (PyTorch checks before the kernel runs, so
    a refused change leaves the memory as it was); the grad_fn of such a view whose base
    changed since cannot be regenerated, in grad mode or not."""
    if view._view is None or not any(
            getattr(cls, "_multi_output_name", None) for cls, _ in view._view):
        return None
    view_fn = view._grad_fn  # the grad_fn the view was made with
    name = _BACKWARD_SUFFIX.sub("", view_fn.name()) if view_fn is not None else "?"
    change = "its base or another view of its base has been" if indirect else "is being"
    return RuntimeError(
        f"Output {view._output_nr} of {name} is a view and {change} modified inplace. This "
        "view is the output of a function that returns multiple views. Such functions do not "
        "allow the output views to be modified inplace. You should replace the inplace "
        "operation by an out-of-place one.")


def rebase_view(view, fn, output_nr, input_nr):
    """Route an in-place change of ``view`` (now output ``output_nr`` of ``fn``) via its base."""
    err = multi_output_view_error(view)
    if err is not None:  # (a custom Function's mark_dirty reaches here after its write)
        raise err
    base = view._base
    node = CopySlices(base._edge(), fn, output_nr, input_nr, view._view,
                      (base._data.shape, base.dtype))
    retains = base._retains()
    if retains:  # as in PyTorch, the base's .grad stays that of its current value
        base._grad_fn._retain.pop(base._output_nr, None)
        base._extra["retains_grad"] = False
    base._grad_fn, base._output_nr, base._rg = node, 0, True
    if retains:
        base.retain_grad()
    _regenerate(view)


def refresh_view(view):
    """Give ``view`` a grad_fn from its base's current history (the base changed in place
    since the view's grad_fn was made)."""
    if view._extra is not None and "cf_view" in view._extra:
        # a custom Function's output view: regenerating its history would bypass the
        # Function's backward (PyTorch's CreationMeta IN_CUSTOM_FUNCTION / MULTI_OUTPUT_NODE)
        if STATE.enabled:
            raise custom_view_error(view, indirect=True)
        return
    if view._extra is not None and "ng_view" in view._extra:
        # no history to regenerate from: PyTorch forbids it (checked again while grad mode
        # is off, so the version stays the one the view was made at)
        if STATE.enabled:
            raise no_grad_view_error(view, indirect=True)
        return
    if view._grad_fn is not None:
        err = multi_output_view_error(view, indirect=True)
        if err is not None:
            raise err
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


def custom_view_error(view, indirect=False):
    """PyTorch's RuntimeError for an in-place change of (``indirect``: the base of) a view
    that a custom Function returned (``view._extra["cf_view"]``: its output index, the
    Function's name and, when the Function returned several views, a third item)."""
    cf = view._extra["cf_view"]
    change = "its base or another view of its base has been" if indirect else "is being"
    head = f"Output {cf[0]} of {cf[1]} is a view and {change} modified inplace. This view "
    if len(cf) > 2:
        return RuntimeError(
            head + "is the output of a function that returns multiple views. Such functions "
            "do not allow the output views to be modified inplace. You should replace the "
            "inplace operation by an out-of-place one.")
    return RuntimeError(
        head + "was created inside a custom Function (or because an input was returned "
        "as-is) and the autograd logic to handle view+inplace would override the custom "
        "backward associated with the custom Function, leading to incorrect gradients. This "
        "behavior is forbidden. You can fix this by cloning the output of the custom "
        "Function.")


# ---- views made while grad mode was off (PyTorch's CreationMeta NO_GRAD_MODE) ------------
def mark_no_grad_view(view, base):
    """Mark ``view`` of ``base`` (which requires grad) as made in no_grad or inference mode, or
    as a view of such a view. As in PyTorch it requires grad (through its base) but has no
    grad_fn: it is a leaf without an accumulator (gradients reaching it are dropped), and
    changing it in place with grad mode on is an error (``no_grad_view_error``)."""
    made = base._extra.get("ng_view") if base._extra is not None else None
    if made is None:
        made = "inference" if STATE.inference else "no_grad"
    view._rg = True
    view._set_extra("ng_view", made)


def no_grad_view_error(view, indirect=False):
    """PyTorch's RuntimeError for an in-place change of (``indirect``: the base of) a view
    marked by ``mark_no_grad_view``, with grad mode on."""
    ex = view._extra
    inference = (ex["ng_view"] if "ng_view" in ex else ex["ng_plain"]) == "inference"
    mode, block = ("inference mode", "inference_mode") if inference else ("no_grad mode", "no_grad")
    change = "its base or another view of its base has been" if indirect else "is being"
    where = "in normal mode" if inference else "with grad mode enabled"
    fn = view._grad_fn
    if fn is not None:
        head = (f"Output {view._output_nr} of {_BACKWARD_SUFFIX.sub('', fn.name())} is a view "
                f"of a view which was created in {mode}")
    else:
        head = f"A view was created in {mode}"
    return RuntimeError(
        f"{head} and {change} modified inplace {where}. Given that this use case is "
        "ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
        f"the view and the inplace either both inside the {block} block (if you don't want the "
        "inplace to be tracked) or both outside (if you want the inplace to be tracked).")
