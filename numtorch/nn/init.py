"""``torch.nn.init``: fill parameters in place, drawing PyTorch's random numbers.

Every initializer draws through ``Tensor.uniform_`` / ``normal_`` (PyTorch's MT19937 stream)
with bounds computed in the same Python float order as PyTorch, so after the same seed a
layer's initial weights are bit for bit PyTorch's.

>>> import numtorch as torch
>>> _ = torch.manual_seed(0)
>>> torch.nn.init.uniform_(torch.empty(3), -1, 1)
tensor([-0.0075,  0.5364, -0.8230])
"""
import math
import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_",
           "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_", "uniform",
           "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity.

    Args:
        nonlinearity: a name such as ``'relu'``, ``'tanh'`` or ``'leaky_relu'``.
        param: the negative slope for ``'leaky_relu'`` (default 0.01).

    >>> calculate_gain('tanh')
    1.6666666666666667
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill ``tensor`` with U(a, b) samples.

    >>> _ = torch.manual_seed(0)
    >>> uniform_(torch.empty(2))
    tensor([0.4963, 0.7682])
    """
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill ``tensor`` with N(mean, std**2) samples.

    >>> _ = torch.manual_seed(0)
    >>> normal_(torch.empty(2))
    tensor([ 1.5410, -0.2934])
    """
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _norm_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill ``tensor`` with N(mean, std**2) samples truncated to [a, b], by rejection.

    Wide windows redraw out-of-range normals; narrow ones (mass <= 0.3) draw uniforms on
    [a, b] and accept them against the normal density, both as PyTorch does.

    >>> _ = torch.manual_seed(0)
    >>> trunc_normal_(torch.empty(3), std=0.5, a=-0.5, b=0.5).abs().max() <= 0.5
    tensor(True)
    """
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        p = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if p > 0.3:
            _trunc_by_redraw(tensor, mean, std, a, b, generator)
        else:
            _trunc_by_acceptance(tensor, mean, std, a, b, generator)
    return tensor


def _scalar_of(tensor, value):
    # the bounds compare in the tensor's dtype, as PyTorch's new_tensor(a).item()
    return float(np.asarray(value, dtype=tensor._data.dtype))


def _trunc_by_redraw(tensor, mean, std, a, b, generator):
    lo, hi = _scalar_of(tensor, a), _scalar_of(tensor, b)
    result = tensor.normal_(mean, std, generator=generator)._data.copy()
    while True:
        mask = (result < lo) | (result > hi)
        if not mask.any():
            break
        fresh = np.empty_like(result)
        fresh_t = Tensor._make(fresh, None, False).normal_(mean, std, generator=generator)
        result = np.where(mask, fresh_t._data, result)
    tensor._data[...] = result


def _log_density_excess(x, mean, std, log_peak):
    dt = x.dtype.type
    return (((x - dt(mean)) / dt(std)) ** 2) * dt(-0.5) - dt(log_peak)


def _trunc_by_acceptance(tensor, mean, std, a, b, generator):
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    buf = Tensor._make(np.empty_like(tensor._data), None, False)
    cand = Tensor._make(np.empty_like(tensor._data), None, False)
    tensor.uniform_(a, b, generator=generator)
    excess = _log_density_excess(tensor._data, mean, std, log_peak)
    pending = np.log(buf.uniform_(generator=generator)._data) > excess
    result = tensor._data.copy()
    while pending.any():
        c = cand.uniform_(a, b, generator=generator)._data.copy()
        result = np.where(pending, c, result)
        excess = _log_density_excess(c, mean, std, log_peak)
        pending = np.where(pending, np.log(buf.uniform_(generator=generator)._data) > excess,
                           pending)
    tensor._data[...] = result


def constant_(tensor, val):
    """Fill ``tensor`` with ``val``.

    >>> constant_(torch.empty(2), 0.5)
    tensor([0.5000, 0.5000])
    """
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fill ``tensor`` with ones.

    >>> ones_(torch.empty(2))
    tensor([1., 1.])
    """
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill ``tensor`` with zeros.

    >>> zeros_(torch.empty(2))
    tensor([0., 0.])
    """
    with no_grad():
        return tensor.zero_()


def _write(tensor, array):
    """Overwrite ``tensor``'s values in place (under no_grad), bumping its version."""
    with no_grad():
        tensor.copy_(Tensor._make(np.asarray(array, tensor._data.dtype), None, False))
    return tensor


def eye_(tensor):
    """Fill the 2-D ``tensor`` with the identity matrix.

    >>> eye_(torch.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tensor.shape))


def dirac_(tensor, groups=1):
    """Fill a 3-5-D conv weight with the Dirac delta (identity convolution per group).

    >>> dirac_(torch.empty(2, 2, 3))[:, :, 1]
    tensor([[1., 0.],
            [0., 1.]])
    """
    dims = tensor.ndimension()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    out = np.zeros(tuple(sizes))
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min(per_group, sizes[1])):
            out[(g * per_group + d, d) + centre] = 1
    return _write(tensor, out)


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)).

    >>> xavier_uniform_(torch.empty(3, 5)).abs().max() <= (6 / 8) ** 0.5
    tensor(True)
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out)).

    >>> xavier_normal_(torch.empty(3, 5)).shape
    torch.Size([3, 5])
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-bound, bound) with bound = gain * sqrt(3 / fan).

    >>> _ = torch.manual_seed(0)
    >>> kaiming_uniform_(torch.empty(2, 3), a=5 ** 0.5)
    tensor([[-0.0043,  0.3097, -0.4752],
            [-0.4249, -0.2224,  0.1548]])
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std**2) with std = gain / sqrt(fan).

    >>> kaiming_normal_(torch.empty(4, 3), mode='fan_out', nonlinearity='relu').shape
    torch.Size([4, 3])
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def _qr(a):
    # NOTE: NumPy's qr computes float32 in double; SciPy runs LAPACK in the input's precision,
    # as PyTorch does, so the last bits agree more often.
    try:
        import scipy.linalg
        return scipy.linalg.qr(a, mode="economic")
    except ImportError:
        q, r = np.linalg.qr(a)
        return q.astype(a.dtype), r.astype(a.dtype)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill ``tensor`` (>= 2-D, trailing dims flattened) with a (semi-)orthogonal matrix.

    >>> w = orthogonal_(torch.empty(3, 3))
    >>> torch.allclose(w @ w.T, torch.eye(3), atol=1e-5)
    True
    """
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = Tensor._make(np.empty((rows, cols), tensor._data.dtype), None, False)
    a = flat.normal_(0, 1, generator=generator)._data
    if rows < cols:
        a = a.T
    q, r = _qr(a)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    _write(tensor, q.reshape(tensor._data.shape))
    with no_grad():
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D ``tensor`` with N(0, std**2) samples, zeroing ``sparsity`` of each column.

    >>> (sparse_(torch.empty(4, 3), 0.5) == 0).sum(0)
    tensor([2, 2, 2])
    """
    from .. import _random as R
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            # NOTE: PyTorch draws each column's permutation from the global generator.
            zero_rows = R.randperm(rows)[:num_zeros]
            tensor._data[zero_rows, col] = 0
        tensor._vc[0] += 1
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated alias of :func:`{new_name}`."
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
