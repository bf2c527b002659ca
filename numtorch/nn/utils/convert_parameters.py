"""``parameters_to_vector`` / ``vector_to_parameters``.

>>> import numtorch as torch
>>> ps = [torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.zeros(1))]
>>> v = parameters_to_vector(ps); v
tensor([1., 1., 0.], grad_fn=<CatBackward0>)
>>> vector_to_parameters(torch.arange(3.), ps); ps[0]
Parameter containing:
tensor([0., 1.], requires_grad=True)
"""
from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one vector."""
    from ... import cat
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of ``vec`` into the parameters' data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
