"""``autograd.backward`` and ``autograd.grad``: argument checking around the engine."""
import warnings

import numpy as np

from .engine import run_backward
from .graph import GradientEdge

Tensor = None  # bound by numtorch._tensor after the class exists (import cycle)

__all__ = ["backward", "grad", "Variable"]


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (Tensor, GradientEdge)):  # a GradientEdge is a tuple: one item
        return (x,)
    return tuple(x)


def _out_meta(out):
    """(shape, dtype, requires grad) of an output: a Tensor or a GradientEdge."""
    if type(out) is GradientEdge:
        meta = out.node._input_metadata[out.output_nr]
        return meta._shape, meta.dtype, True
    if not isinstance(out, Tensor):
        raise AssertionError("Expected output to be a torch.Tensor")  # (PyTorch's check)
    return out._data.shape, out.dtype, out._rg


def _grads_arg(grads, n):
    """``grad_tensors``/``grad_outputs`` as a list: None means one None per output."""
    return [None] * n if grads is None else list(_as_tuple(grads))


def _root_grads(outputs, grad_outputs, create_graph):
    """Check outputs and make their initial gradients (ones for scalars), as PyTorch's
    ``_make_grads`` does (pairs beyond the shorter list are dropped, then counted)."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        shape, dtype, rg = _out_meta(out)
        if isinstance(g, Tensor):
            if g._data.shape != shape:
                from .._size import Size
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{g.shape} and output[{i}] has a shape of {Size(shape)}.")
            if dtype.is_complex != g.dtype.is_complex:
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have "
                    f"the same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                    f"{g.dtype} and output[{i}] has a dtype of {dtype}.")
        elif g is None:
            if rg:
                if any(n != 1 for n in shape):
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not dtype.is_floating_point:
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {dtype}")
                g = Tensor._make(np.ones(shape, dtype.np), None, False)
        else:
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        grads.append(g)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return grads


_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)")
_warned = []  # PyTorch warns about the cycle once per process


def _roots(outputs):
    roots = []
    for i, out in enumerate(outputs):
        if type(out) is GradientEdge:
            roots.append((out.node, out.output_nr))
            continue
        if not out._rg:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        roots.append(out._edge())
    return roots


def _check_batched_shapes(outputs, grads):
    """PyTorch's message when a batched cotangent (batch dim first) mismatches its output."""
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if isinstance(out, Tensor) and isinstance(g, Tensor) and g.dim() and \
                tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {g.shape[1:]} and output[{i}] has "
                f"a shape of {out.shape}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap.")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the graph's leaves.

    >>> import numtorch as torch
    >>> x = torch.tensor([1., 2.], requires_grad=True)
    >>> torch.autograd.backward((x * x).sum()); x.grad
    tensor([2., 4.])
    """
    tensors = _as_tuple(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    grads = _grads_arg(grad_tensors, len(tensors))
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs) if inputs is not None else None
    if inputs is not None and not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _root_grads(tensors, grads, create_graph)
    roots = _roots(tensors)
    edges = None
    if inputs is not None:
        # as in PyTorch, each input retains its grad (a no-op for a leaf; a non-leaf's
        # .grad gets this backward's gradient, and later ones', through that retain hook)
        for t in inputs:
            if isinstance(t, Tensor):
                t.retain_grad()
        edges = [_input_edge(t, i) for i, t in enumerate(inputs)]
    if create_graph and not _warned:
        import warnings
        _warned.append(True)
        warnings.warn(_CYCLE_WARNING, UserWarning, stacklevel=3)
    run_backward(roots, grads, retain_graph, create_graph, edges, accumulate=True)


def _input_edge(t, i):
    if type(t) is GradientEdge:
        return (t.node, t.output_nr)
    if not isinstance(t, Tensor):
        raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                           f"{type(t).__name__}")
    if not t._rg:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return t._edge()


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, without touching ``.grad``.

    >>> import numtorch as torch
    >>> x = torch.tensor(3., requires_grad=True)
    >>> torch.autograd.grad(x ** 2, x)
    (tensor(6.),)
    """
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning, stacklevel=2)
    if is_grads_batched:  # vmap over dim 0 of the cotangents (numtorch.func._vmap)
        _check_batched_shapes(_as_tuple(outputs), _as_tuple(grad_outputs))
        from ..func._vmap import batched_grad
        return batched_grad(grad, outputs, inputs, grad_outputs, retain_graph, create_graph,
                            allow_unused, materialize_grads)
    if allow_unused is None:
        allow_unused = materialize_grads
    elif materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    outputs = _as_tuple(outputs)
    inputs_t = tuple(inputs.values()) if type(inputs) is dict else _as_tuple(inputs)
    if not inputs_t:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _grads_arg(grad_outputs, len(outputs))
    if retain_graph is None:
        retain_graph = create_graph
    grads = _root_grads(outputs, grads, create_graph)
    roots = _roots(outputs)
    edges = [_input_edge(t, i) for i, t in enumerate(inputs_t)]
    captured = run_backward(roots, grads, retain_graph, create_graph, edges, accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs_t, captured)):
        if g is None:
            if materialize_grads and type(t) is GradientEdge:
                raise RuntimeError("materialize_grads cannot be used when the given input is "
                                   "a GradientEdge")
            if materialize_grads:
                from .. import _creation
                g = _creation.zeros_like(t, requires_grad=create_graph)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is "
                                   "the desired behavior.")
        elif type(t) is not GradientEdge and g.dtype is not t.dtype:
            g = g.to(t.dtype)
        result.append(g)
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return tuple(result)


class _VariableMeta(type):
    """Makes every Tensor an instance of ``Variable`` (PyTorch's ``VariableMeta``)."""

    def __instancecheck__(cls, other):
        from .._tensor import Tensor
        return isinstance(other, Tensor)

    def __call__(cls, data=None, requires_grad=False, volatile=False):
        from .._tensor import Tensor
        from .. import _creation
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", stacklevel=2)
        if data is None:
            data = _creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()   # a new tensor on the same data, as PyTorch's legacy constructor
        return out.requires_grad_(True) if requires_grad else out


class Variable(metaclass=_VariableMeta):
    """Deprecated: ``Variable(t, requires_grad)`` is a tensor sharing ``t``'s data, cut from
    its graph; every Tensor is an instance of ``Variable``.

    >>> import numtorch as torch
    >>> torch.autograd.Variable(torch.ones(2), requires_grad=True)
    tensor([1., 1.], requires_grad=True)
    """


Variable.__module__ = _VariableMeta.__module__ = "torch.autograd.variable"
