"""``autograd.backward`` and ``autograd.grad``: argument checking around the engine."""
from .engine import run_backward

Tensor = None  # bound by numtorch._tensor after the class exists (import cycle)

__all__ = ["backward", "grad", "Variable"]


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _root_grads(outputs, grad_outputs, create_graph):
    """Check outputs and make their initial gradients (ones for scalars)."""
    from .. import _creation
    grads = []
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(grad_outputs)} tensors and {len(outputs)} gradients"
                           if grad_outputs else "")
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._rg:
                if out._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
            g = _creation.ones_like(out)
        elif not isinstance(g, Tensor):
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        elif g._data.shape != out._data.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} "
                               f"and output[{i}] has a shape of {out.shape}.")
        grads.append(g)
    return grads


def _roots(outputs):
    roots = []
    for i, out in enumerate(outputs):
        if not out._rg:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        roots.append(out._edge())
    return roots


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
    grads = list(_as_tuple(grad_tensors)) or [None] * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs) if inputs is not None else None
    if inputs is not None and not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _root_grads(tensors, grads, create_graph)
    roots = _roots(tensors)
    edges = None
    if inputs is not None:
        edges = [_input_edge(t, i) for i, t in enumerate(inputs)]
    captured = run_backward(roots, grads, retain_graph, create_graph, edges, accumulate=True)
    if inputs is not None:
        for t, g in zip(inputs, captured):
            if t._grad_fn is not None and g is not None:
                t._grad = g if t._grad is None else t._grad + g


def _input_edge(t, i):
    if not isinstance(t, Tensor):
        raise TypeError(f"inputs must be Tensors, got {type(t).__name__}")
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
    if is_grads_batched:
        raise NotImplementedError("numtorch does not support autograd.grad(is_grads_batched="
                                  "True) yet")
    if allow_unused is None:
        allow_unused = materialize_grads
    elif materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    outputs = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    grads = list(_as_tuple(grad_outputs)) or [None] * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _root_grads(outputs, grads, create_graph)
    roots = _roots(outputs)
    edges = [_input_edge(t, i) for i, t in enumerate(inputs_t)]
    captured = run_backward(roots, grads, retain_graph, create_graph, edges, accumulate=False)
    result = []
    for t, g in zip(inputs_t, captured):
        if g is None:
            if materialize_grads:
                from .. import _creation
                g = _creation.zeros_like(t)
            elif not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been "
                                   "used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
        elif g.dtype is not t.dtype:
            g = g.to(t.dtype)
        result.append(g)
    return tuple(result)


def Variable(data, requires_grad=False, volatile=False):
    """Deprecated alias: returns ``data`` (a Tensor) with ``requires_grad`` set."""
    if requires_grad:
        data.requires_grad_(True)
    return data
