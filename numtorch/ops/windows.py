"""Window functions: ``torch.hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window`` and ``kaiser_window``.

Each is built from the same tensor ops, in the same order, as ATen builds it (an ``arange``
in the requested dtype, scaled, put through ``cos`` ...), so the values round exactly as
PyTorch's do in float16, float32 and float64. A periodic window of length N is the first N
points of the symmetric window of length N + 1 (the form ``torch.stft`` wants).

>>> import numtorch as torch
>>> torch.hann_window(4)
tensor([0.0000, 0.5000, 1.0000, 0.5000])
>>> torch.bartlett_window(5, periodic=False)
tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
"""
import math

from .. import _dtype as D

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]

def _check(name, window_length, dtype):
    """The dtype to build in, after PyTorch's checks on the length and the dtype."""
    if type(window_length) is not int:
        from ._util import tp_name
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{tp_name(window_length)}")
    dtype = D.get_default_dtype() if dtype is None else dtype
    if dtype.category != D._FLOAT and dtype.category != D._COMPLEX:
        cpp = D.CPP_NAMES.get(dtype, dtype.name)
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{cpp}, device=cpu, layout=Strided (default), requires_grad=false "
                           "(default), pinned_memory=false, memory_format=(nullopt))")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    return dtype


_UNSET = object()  # an argument not given (PyTorch's overloads need the earlier ones)
_FACTORY = ("*, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
            "None, bool pin_memory = False, bool requires_grad = False")


def _params(name, window_length, extras, factory):
    """``extras`` ((name, value, type) triples after ``periodic``, in order) checked against
    PyTorch's overloads, which take each only with all before it: their values, periodic
    defaulting to True, or the parser's TypeError listing the overloads."""
    values = [v for _, v, _ in extras]
    given = [v is not _UNSET for v in values]
    if any(later and not earlier for earlier, later in zip(given, given[1:])):
        from .._random_factories import _invalid_combination
        n = given.index(False)
        args = (window_length,) + tuple(values[:n])
        kwargs = {k: v for k, v, _ in extras[n:] if v is not _UNSET}
        kwargs.update((k, v) for k, v in factory.items() if v is not None and v is not False)
        sigs, params = [], ["int window_length"]
        for _, _, tp in [(None, None, None)] + list(extras):
            if tp is not None:
                params.append(tp)
            sigs.append(", ".join(params + [_FACTORY]))
        raise _invalid_combination(name, args, kwargs, sigs)
    return [True if v is _UNSET and i == 0 else v for i, v in enumerate(values)]


def _window(name, window_length, periodic, dtype, requires_grad, device, build):
    """Run the shared steps: checks, the trivial lengths 0 and 1, the periodic extension;
    ``build(n, dtype)`` makes the symmetric window of length n >= 2."""
    from .._creation import _finish, arange, empty, ones
    from .._device import check_device
    check_device(device)
    dtype = _check(name, window_length, dtype)
    if window_length == 0:
        out = empty(0, dtype=dtype)
    elif window_length == 1:
        out = ones(1, dtype=dtype)
    else:
        n = window_length + 1 if periodic else window_length
        if dtype.category == D._COMPLEX:  # PyTorch lets it through to arange, which refuses
            arange(n, dtype=dtype)
        out = build(n, dtype)
        out = out[:window_length] if periodic else out
    return _finish(out._data if out._data.flags.owndata else out._data.copy(), requires_grad)


def hamming_window(window_length, periodic=_UNSET, alpha=_UNSET, beta=_UNSET, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """alpha - beta cos(2 pi n / (N - 1)), n = 0 .. N - 1.

    >>> hamming_window(3, False)
    tensor([0.0800, 1.0000, 0.0800])
    """
    periodic, alpha, beta = _params(
        "hamming_window", window_length, (("periodic", periodic, "bool periodic"),
                                          ("alpha", alpha, "float alpha"),
                                          ("beta", beta, "float beta")),
        {"dtype": dtype, "requires_grad": requires_grad})
    alpha = 0.54 if alpha is _UNSET else alpha
    beta = 0.46 if beta is _UNSET else beta

    def build(n, dt):
        from .._creation import arange
        return (arange(n, dtype=dt) * (2 * math.pi / (n - 1))).cos() * (-beta) + alpha
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, device,
                   build)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """0.5 - 0.5 cos(2 pi n / (N - 1)): ``hamming_window`` with alpha = beta = 0.5.

    >>> hann_window(3, periodic=False)
    tensor([0., 1., 0.])
    """
    def build(n, dt):
        from .._creation import arange
        return (arange(n, dtype=dt) * (2 * math.pi / (n - 1))).cos() * (-0.5) + 0.5
    return _window("hann_window", window_length, periodic, dtype, requires_grad, device, build)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1)).

    >>> blackman_window(3, False)
    tensor([-2.9802e-08,  1.0000e+00, -2.9802e-08])
    """
    def build(n, dt):
        from .._creation import arange
        w = arange(n, dtype=dt) * (math.pi / (n - 1))
        return (w * 4).cos() * 0.08 - (w * 2).cos() * 0.5 + 0.42
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, device,
                   build)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangle 2n / (N - 1) rising to 1 and falling back (its second half as
    2 - 2n / (N - 1), as ATen computes it).

    >>> bartlett_window(5, False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    def build(n, dt):
        from .._creation import arange
        w = arange(n, dtype=dt) * (2.0 / (n - 1))
        half = ((n - 1) >> 1) + 1
        w[half:] = w[half:] * -1 + 2
        return w
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, device,
                   build)


def kaiser_window(window_length, periodic=_UNSET, beta=_UNSET, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2, computed in float32
    for float16 (ATen's opmath type) and in the dtype otherwise.

    >>> kaiser_window(3, False, 0.0)
    tensor([1., 1., 1.])
    """
    periodic, beta = _params("kaiser_window", window_length,
                             (("periodic", periodic, "bool periodic"),
                              ("beta", beta, "float beta")),
                             {"dtype": dtype, "requires_grad": requires_grad})
    beta = 12.0 if beta is _UNSET else beta

    def build(n, dt):
        from .._creation import arange, tensor
        work = D.float32 if dt == D.float16 else dt
        alpha = (n - 1) / 2.0
        a = arange(n, dtype=dt).to(work)
        ratio = (a - alpha) / alpha
        arg = (1 - ratio * ratio).abs().sqrt() * beta
        return (arg.i0() / tensor(beta, dtype=work).i0()).to(dt)
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, device,
                   build)
