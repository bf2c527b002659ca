"""``torch.nn.grad``: a convolution's input and weight gradients as functions of their own.

``conv{1,2,3}d_input(input_size, weight, grad_output)`` is the gradient of
``conv{n}d(input, weight)`` with respect to ``input`` for a given ``grad_output``: a transposed
convolution whose output size is named explicitly (a strided convolution maps several input
sizes to one output size). ``conv{n}d_weight(input, weight_size, grad_output)`` is the gradient
with respect to ``weight``. Both are differentiable (their nodes are PyTorch's
``ConvolutionBackwardBackward0``), so a custom Function's backward built on them (the
"Fusing Convolution and Batch Norm" tutorial's) double-differentiates.

Checks and messages follow PyTorch's ``convolution_backward`` and its CPU kernels: the
forward convolution's parameter checks first, then the grad_output's rank, then its shape.

>>> import numtorch as torch
>>> x, w = torch.ones(1, 1, 3), torch.ones(1, 1, 2)
>>> conv1d_input(x.shape, w, torch.ones(1, 1, 2))
tensor([[[1., 2., 1.]]])
>>> conv1d_weight(torch.arange(3.).view(1, 1, 3), w.shape, torch.ones(1, 1, 2))
tensor([[[1., 3.]]])
"""
from .. import _dtype as D
from .._tensor import Tensor
from ..ops.conv import ConvGeom, ConvTranspose, ConvWeight
from .functional import _check_conv, _check_conv_weight, _expand_param
from .modules.utils import _pair, _single, _triple

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight",
           "conv3d_input", "conv3d_weight"]


class ConvInputGrad(ConvTranspose):
    """grad_input = conv_transpose(grad_output, w) at a given input size; PyTorch names its
    node after ``convolution_backward``'s own backward."""
    _backward_name = "ConvolutionBackwardBackward0"


class _Shape:
    """Stands for the input (or weight) tensor PyTorch expands from a size: only the shape and
    the dtype are ever read."""

    def __init__(self, size, dtype):
        self.shape, self.dtype = tuple(size), dtype

    def dim(self):
        return len(self.shape)


def _check_forward_params(x, w, stride, padding, dilation, groups):
    """PyTorch's check_shape_forward as convolution_backward runs it: the parameters, the
    ranks, the channels and the kernel against the padded input."""
    if w.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    dim = w.dim() - 2
    stride = _expand_param(stride, "stride", dim)
    padding = _expand_param(padding, "padding", dim)
    dilation = _expand_param(dilation, "dilation", dim)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError(f"expected groups to be greater than 0, but got groups={groups}")
    _check_conv_weight(x, w, groups)
    _check_conv(x, w, None, groups, dim, "convolution_backward")
    padded = [s + 2 * p for s, p in zip(x.shape[2:], padding)]
    eff = [d * (k - 1) + 1 for k, d in zip(w.shape[2:], dilation)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, eff))}). Kernel size can't be greater than "
                           "actual input size")
    return stride, padding, dilation


def _check_grad_output(x, w, gy, stride, padding, dilation):
    """The CPU kernels' checks of grad_output against the output size the input implies
    (a 1-d convolution runs as a 2-d one of height 1, and its messages say so)."""
    nsp = w.dim() - 2
    if any(d == 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got "
                           f"{[1] * (2 - nsp) + list(dilation)}")
    out = [(s + 2 * p - d * (k - 1) - 1) // st + 1 for s, k, st, p, d in
           zip(x.shape[2:], w.shape[2:], stride, padding, dilation)]
    lift = [1] * (2 - nsp)  # the height a 1-d convolution gets
    if any(d != 1 for d in dilation):  # slow_conv_dilated's checks
        if gy.shape[0] != x.shape[0]:
            raise RuntimeError(f"grad_output.size(0)={gy.shape[0]} must be "
                               f"input.size(0)={x.shape[0]}")
        if gy.shape[1] != w.shape[0]:
            raise RuntimeError(f"grad_output.size(1)={gy.shape[1]} must be "
                               f"weight.size(0)={w.shape[0]}")
        if list(gy.shape[2:]) != out:
            raise RuntimeError(f"grad_output[2:] shape{lift + list(gy.shape[2:])} must be equal "
                               f"to output size {' '.join(map(str, lift + out))}")
        return
    ndim, shift = gy.dim() + len(lift), len(lift)
    for i, want in [(1, w.shape[0])] + [(2 + j, n) for j, n in enumerate(out)]:
        if gy.shape[i] != want:
            at = i if i == 1 else i + shift
            raise RuntimeError(f"Expected a tensor of dimension {ndim} and tensor.size[{at}] == "
                               f"{want} but got: dimension {ndim} and tensor.size[{at}] = "
                               f"{gy.shape[i]}")
    if gy.shape[0] != x.shape[0]:
        raise RuntimeError("could not create a primitive descriptor for the convolution forward "
                           "propagation primitive. Run workload with environment variable "
                           "ONEDNN_VERBOSE=all to get additional diagnostic information.")


def _check_dtypes(x, w, gy, which, nsp, dilated):
    """The kernel's dtype checks: a floating input dtype, shared by the other two."""
    if not x.dtype.is_floating_point and not (dilated and x.dtype is not D.bool_):
        kernel = "slow_conv3d_cpu" if nsp == 3 else "slow_conv2d_cpu"
        if not (which == "weight" and x.dtype is D.bool_):
            kernel += "_grad_" + which
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{D.SCALAR_NAMES[x.dtype]}'")
    for other in (w, gy):
        if other.dtype is not x.dtype:
            raise RuntimeError(f"expected scalar type {D.SCALAR_NAMES[x.dtype]} but found "
                               f"{D.SCALAR_NAMES[other.dtype]}")


def _conv_backward(which, x, w, gy, stride, padding, dilation, groups):
    """Check as PyTorch does, then build the geometry of the forward convolution."""
    _check_args(x, w, gy, stride, padding, dilation, groups)
    stride, padding, dilation = _check_forward_params(x, w, stride, padding, dilation, groups)
    if x.dim() != gy.dim():
        raise RuntimeError(f"Expected input and grad_output to have the same number of "
                           f"dimensions, but got: {x.dim()} and {gy.dim()}")
    _check_grad_output(x, w, gy, stride, padding, dilation)
    nsp = w.dim() - 2
    _check_dtypes(x, w, gy, which, nsp, any(d != 1 for d in dilation))
    return ConvGeom(x.shape[2:], w.shape[2:], stride, tuple((p, p) for p in padding),
                    dilation, groups, out=gy.shape[2:])


_DECL = ("(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, SymInt[] "
         "stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] "
         "output_padding, SymInt groups, bool[3] output_mask")
_OUTS = ", *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2"


def _schema_error(name, pos, value, expected, detail):
    """PyTorch's error for an argument ``aten::convolution_backward`` cannot take (its two
    overloads each say why)."""
    text = "Overloaded torch operator invoked from Python failed to match any schema:\n"
    for overload, extra, result in (("", "", "(Tensor, Tensor, Tensor)"),
                                    (".out", _OUTS, "(Tensor(a!), Tensor(b!), Tensor(c!))")):
        text += (f"aten::convolution_backward() Expected a value of type '{expected}' for "
                 f"argument '{name}' but instead found type '{type(value).__name__}'.\n"
                 f"Position: {pos}\nValue: {value!r}\nDeclaration: "
                 f"aten::convolution_backward{overload}{_DECL}{extra}) -> {result}\n"
                 f"Cast error details: {detail}\n\n")
    return RuntimeError(text)


def _cast_detail(value):
    return (f"Unable to cast Python instance of type {type(value)} to C++ type '?' (#define "
            "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)")


def _check_args(x, w, gy, stride, padding, dilation, groups):
    """The argument types ``aten::convolution_backward`` accepts, in its order."""
    for name, pos, value in (("input", 1, x), ("weight", 2, w)):
        if not isinstance(value, (Tensor, _Shape)):
            raise _schema_error(name, pos, value, "Tensor", f"Unable to cast {value!r} to Tensor")
    for name, pos, value in (("stride", 4, stride), ("padding", 5, padding),
                             ("dilation", 6, dilation)):
        bad = [v for v in value if not isinstance(v, int) or isinstance(v, bool)]
        if bad:
            raise _schema_error(name, pos, value, "List[int]", _cast_detail(bad[0]))
    if not isinstance(groups, int) or isinstance(groups, bool):
        raise _schema_error("groups", 9, groups, "int", _cast_detail(groups))


def _params(ntuple, stride, padding, dilation):
    """The parameters as PyTorch's ``_ntuple`` makes them (which splits a string too)."""
    return tuple(tuple(v) if isinstance(v, str) else ntuple(v)
                 for v in (stride, padding, dilation))


def _size(size, name, fname, pos):
    if isinstance(size, int):
        size = (size,)
    try:
        return tuple(int(s) for s in size)
    except TypeError:
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be a tuple of "
                        f"ints, not {type(size).__name__}") from None


def _conv_input(input_size, weight, grad_output, stride, padding, dilation, groups, ntuple,
                fname):
    if not isinstance(grad_output, Tensor):
        raise AttributeError(f"'{type(grad_output).__name__}' object has no attribute "
                             "'new_empty'")
    x = _Shape(_size(input_size, "input_size", fname, 1), grad_output.dtype)
    geom = _conv_backward("input", x, weight, grad_output,
                          *_params(ntuple, stride, padding, dilation), groups)
    return ConvInputGrad.apply(grad_output, weight, None, geom)


def _conv_weight(input, weight_size, grad_output, stride, padding, dilation, groups, ntuple,
                 fname):
    if not isinstance(grad_output, Tensor):
        raise AttributeError(f"'{type(grad_output).__name__}' object has no attribute "
                             "'new_empty'")
    w = _Shape(_size(weight_size, "weight_size", fname, 2), grad_output.dtype)
    geom = _conv_backward("weight", input, w, grad_output,
                          *_params(ntuple, stride, padding, dilation), groups)
    return ConvWeight.apply(input, grad_output, geom, w.shape)


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv1d`` with respect to its input (of shape ``input_size``).

    >>> conv1d_input((1, 1, 3), torch.ones(1, 1, 2), torch.ones(1, 1, 2))
    tensor([[[1., 2., 1.]]])
    """
    return _conv_input(input_size, weight, grad_output, stride, padding, dilation, groups,
                       _single, "conv1d_input")


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv1d`` with respect to its weight (of shape ``weight_size``).

    >>> conv1d_weight(torch.arange(3.).view(1, 1, 3), (1, 1, 2), torch.ones(1, 1, 2))
    tensor([[[1., 3.]]])
    """
    return _conv_weight(input, weight_size, grad_output, stride, padding, dilation, groups,
                        _single, "conv1d_weight")


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv2d`` with respect to its input (of shape ``input_size``).

    >>> conv2d_input((1, 1, 3, 3), torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2))
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    return _conv_input(input_size, weight, grad_output, stride, padding, dilation, groups,
                       _pair, "conv2d_input")


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv2d`` with respect to its weight (of shape ``weight_size``).

    >>> conv2d_weight(torch.ones(1, 1, 3, 3), (1, 1, 2, 2), torch.ones(1, 1, 2, 2))
    tensor([[[[4., 4.],
              [4., 4.]]]])
    """
    return _conv_weight(input, weight_size, grad_output, stride, padding, dilation, groups,
                        _pair, "conv2d_weight")


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv3d`` with respect to its input (of shape ``input_size``).

    >>> conv3d_input((1, 1, 2, 2, 2), torch.ones(1, 1, 1, 1, 1), torch.ones(1, 1, 2, 2, 2)).sum()
    tensor(8.)
    """
    return _conv_input(input_size, weight, grad_output, stride, padding, dilation, groups,
                       _triple, "conv3d_input")


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv3d`` with respect to its weight (of shape ``weight_size``).

    >>> conv3d_weight(torch.ones(1, 1, 2, 2, 2), (1, 1, 1, 1, 1), torch.ones(1, 1, 2, 2, 2))
    tensor([[[[[8.]]]]])
    """
    return _conv_weight(input, weight_size, grad_output, stride, padding, dilation, groups,
                        _triple, "conv3d_weight")
