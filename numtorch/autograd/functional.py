"""``torch.autograd.functional``: Jacobians, Hessians and vector products of whole functions.

Each function takes ``func`` and its ``inputs`` (a tensor or a tuple of tensors) and returns
results shaped as PyTorch's: a tensor where the inputs/outputs were single tensors, tuples
where they were tuples. ``create_graph=True`` keeps the result differentiable; ``strict=True``
raises PyTorch's errors when an output does not depend on an input. ``jvp`` and ``hvp`` use the
double-backward trick as PyTorch does; ``jacobian(strategy="forward-mode")`` uses forward AD.
``vectorize=True`` computes the same rows (one per output or input element).

>>> import numtorch as torch
>>> from numtorch.autograd.functional import jacobian
>>> jacobian(lambda x: x ** 2, torch.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
"""
from .. import _creation
from .._tensor import Tensor
from ._api import grad as _grad
from .grad_mode import enable_grad, set_grad_enabled, is_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ---- argument handling ---------------------------------------------------------------------
def _as_tuple(inp, arg_name, fn_name):
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i} has type" if is_tuple else f"given {arg_name} has type"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the {where} {type(el)}.")
    return is_tuple, items


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh differentiable copies: views of inputs that require grad when building a graph."""
    out = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            out.append(inp.view_as(inp))
        else:
            out.append(inp.detach().requires_grad_(need_graph))
    return tuple(out)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(t.detach() for t in inputs)
    return tuple(_grad_postprocess(t, create_graph) for t in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but "
                               f"got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_o) in enumerate(zip(v, other)):
        if el_v.size() != el_o.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_o.size()} but got "
                               f"{el_v.size()}.")


_INDEPENDENT = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of "
                    "the user-provided function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."),
}


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not inp.requires_grad:
            raise RuntimeError(_INDEPENDENT[input_type].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False,
                   retain_graph=None):
    """``autograd.grad`` over the outputs that require grad (Nones when none does)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([o for o, _ in pairs], inputs, [g for _, g in pairs], allow_unused=True,
                 create_graph=create_graph, retain_graph=retain_graph)


_ZERO_MSGS = {
    "back": ("The output of the user-provided function is independent of input {i}. This is "
             "not allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry "
                          "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MSGS[stage].format(i=i))
            g = _creation.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def _prepare_v(v, others, is_tuple, create_graph, fn_name, none_msg):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, others, is_tuple)
        return v
    if len(others) != 1 or others[0].nelement() != 1:
        raise RuntimeError(none_msg)
    return None


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function "
                 "is a single Tensor with a single element.")


# ---- vector products ----------------------------------------------------------------------
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``.

    >>> import numtorch as torch
    >>> from numtorch.autograd.functional import vjp
    >>> vjp(lambda x: x.exp().sum(), torch.zeros(2))
    (tensor(2.), tensor([1., 1.]))
    """
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                          "function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, is_out_tuple, create_graph, "vjp",
                       "The vector v can only be None if the user-provided function returns "
                       "a single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_out_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_in_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)`` (by the double-backward trick, as PyTorch computes it).

    >>> import numtorch as torch
    >>> from numtorch.autograd.functional import jvp
    >>> jvp(lambda x: x * 3, torch.ones(2), torch.tensor([1., 2.]))
    (tensor([3., 3.]), tensor([3., 6.]))
    """
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_in_tuple, create_graph, "jvp",
                       "The vector v can only be None if the input to the user-provided "
                       "function is a single Tensor with a single element.")
        is_out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                          "function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        grad_outputs = tuple(_creation.zeros_like(o).requires_grad_() for o in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, outputs, strict, create_graph, "back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_out_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_out_tuple))


def _scalar_output(func, inputs, strict, name):
    is_out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                      name)
    _check_requires_grad(outputs, "outputs", strict)
    if is_out_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                           "contain a single element")
    return is_out_tuple, outputs


def _first_derivative(func, inputs, v, create_graph, strict, name):
    """The shared start of ``vhp``/``hvp``: checked inputs and ``v``, the scalar output and
    its gradient (with a graph, to differentiate again). Runs under ``enable_grad``."""
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    v = _prepare_v(v, inputs, is_in_tuple, create_graph, name, _V_NONE_INPUT)
    is_out_tuple, outputs = _scalar_output(func, inputs, strict, name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return is_in_tuple, inputs, v, is_out_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` for scalar ``func``.

    >>> import numtorch as torch
    >>> from numtorch.autograd.functional import vhp
    >>> vhp(lambda x: (x ** 3).sum(), torch.tensor([1., 2.]), torch.ones(2))
    (tensor(9.), tensor([ 6., 12.]))
    """
    with enable_grad():
        is_in_tuple, inputs, v, is_out_tuple, outputs, jac = _first_derivative(
            func, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "double_back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_out_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_in_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for scalar ``func`` (double-backward trick).

    >>> import numtorch as torch
    >>> from numtorch.autograd.functional import hvp
    >>> hvp(lambda x: (x ** 3).sum(), torch.tensor([1., 2.]), torch.ones(2))
    (tensor(9.), tensor([ 6., 12.]))
    """
    with enable_grad():
        is_in_tuple, inputs, v, is_out_tuple, outputs, jac = _first_derivative(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(_creation.zeros_like(inp).requires_grad_() for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "double_back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_out_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_in_tuple))


# ---- Jacobians and Hessians ---------------------------------------------------------------
def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for output i and input j, a tensor of shape
    ``out_i.shape + in_j.shape`` (nested in tuples as the outputs/inputs are).

    Args:
        func: takes tensors, returns a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of tensors.
        create_graph: make the result differentiable.
        strict: raise when an output is independent of an input.
        vectorize: compute all rows at once (numtorch computes the same rows one by one).
        strategy: "reverse-mode" (one backward per output element) or "forward-mode" (one
            forward-AD pass per input element; needs ``vectorize=True`` as in PyTorch).

    >>> import numtorch as torch
    >>> from numtorch.autograd.functional import jacobian
    >>> jacobian(lambda x, y: x * y, (torch.tensor([2.]), torch.tensor([3.])))
    (tensor([[3.]]), tensor([[2.]]))
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.')
        return _jacfwd(func, inputs, strict, vectorize)
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                          "function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either "
                               "set `strict=False` or `vectorize=False`.")
        rows = _rows_onehot if vectorize else _rows_select
        jac = tuple(_jacobian_blocks(rows(out, inputs, create_graph, strict, i), out, inputs)
                    for i, out in enumerate(outputs))
        jac = _grad_postprocess(jac, create_graph)
        return _tuple_postprocess(jac, (is_out_tuple, is_in_tuple))


def _rows_select(out, inputs, create_graph, strict, i):
    """Per input, the gradients of each element of ``out`` (PyTorch's unvectorized loop)."""
    rows = tuple([] for _ in inputs)
    flat = out.reshape(-1)
    for j in range(out.nelement()):
        vj = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
        for k, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
            if g is not None:
                if strict and create_graph and not g.requires_grad:
                    raise RuntimeError("The jacobian of the user-provided function is "
                                       f"independent of input {i}. This is not allowed in "
                                       "strict mode when create_graph=True.")
                row.append(g)
            else:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {k}. This is not allowed in "
                                       "strict mode.")
                row.append(_creation.zeros_like(inp))
    return rows


def _onehot(t, j):
    e = _creation.zeros(t.numel(), dtype=t.dtype)
    e[j] = 1
    return e.reshape(t.shape)


def _rows_onehot(out, inputs, create_graph, strict, i):
    """Per input, the vjps of one-hot cotangents (what PyTorch's vectorized path computes)."""
    rows = tuple([] for _ in inputs)
    for j in range(out.nelement()):
        vj = _autograd_grad((out,), inputs, (_onehot(out, j),), retain_graph=True,
                            create_graph=create_graph)
        for row, g, inp in zip(rows, vj, inputs):
            row.append(g if g is not None else _creation.zeros_like(inp))
    return rows


def _jacobian_blocks(rows, out, inputs):
    from ..ops.shape import stack
    return tuple(stack(r, 0).view(out.size() + inp.size()) if r else
                 _creation.zeros(tuple(out.size()) + tuple(inp.size()), dtype=inp.dtype)
                 for r, inp in zip(rows, inputs))


def _jacfwd(func, inputs, strict, vectorize):
    """Forward-mode Jacobian: one dual pass per input element."""
    from . import forward_ad as fwAD
    from ..ops.shape import stack
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           '`strategy="forward-mode"` are not supported together (yet). Please '
                           'either set `strict=False` or `strategy="reverse-mode"`.')
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    cols = [[] for _ in inputs]   # cols[k][e] = tangents of the outputs for input k element e
    is_out_tuple, primals = False, None
    for k, x in enumerate(inputs):
        for e in range(x.numel()):
            with fwAD.dual_level():
                duals = tuple(fwAD.make_dual(inp, _onehot(inp, e) if m == k else
                                             _creation.zeros_like(inp))
                              for m, inp in enumerate(inputs))
                is_out_tuple, outs = _as_tuple(func(*duals), "outputs", "jacobian")
                pairs = [fwAD.unpack_dual(o) for o in outs]
            primals = [p for p, _ in pairs]
            cols[k].append([t if t is not None else _creation.zeros_like(p) for p, t in pairs])
    # NOTE: lists, not tuples: PyTorch's forward-mode path returns them for tuple inputs.
    # Its layout too (rows stacked, batch dim moved last, reshaped): that sets the grad_fn a
    # forward-over-reverse hessian's result shows (ReshapeAliasBackward0 past 1-d outputs)
    jac = [[_last_to_shape(stack([c[o] for c in cols[k]], 0), tuple(out.shape) + tuple(x.shape))
            for k, x in enumerate(inputs)] for o, out in enumerate(primals)]
    return _tuple_postprocess(jac, (is_out_tuple, is_in_tuple))


def _last_to_shape(rows, shape):
    """Stacked jvp ``rows`` (input elements along dim 0) as a Jacobian block of ``shape``."""
    return rows.permute(*range(1, rows.dim()), 0).reshape(shape)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar ``func``: a tensor for one input, a tuple of tuples for several.

    >>> import numtorch as torch
    >>> from numtorch.autograd.functional import hessian
    >>> hessian(lambda x: (x ** 3).sum(), torch.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        is_out_tuple, t_out = _as_tuple(func(*inp), "outputs of the user-provided function",
                                        "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if is_out_tuple or not isinstance(t_out[0], Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if t_out[0].nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return t_out[0].squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(single_output, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_in_tuple, is_in_tuple))
