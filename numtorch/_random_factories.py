"""The random factories: ``rand``, ``randn``, ``randint``, ``randperm``, their ``_like``
forms, ``normal``, ``bernoulli``, ``multinomial`` and ``poisson``.

The numbers come from :mod:`numtorch._random` (PyTorch's CPU stream); this module only
reads the arguments as PyTorch's argument parser does (the ``size=`` keyword, ``out=``
and its dtype, the ``(high, size)`` / ``(low, high, size)`` forms of ``randint``) and
raises its errors. ``numtorch._creation`` re-exports every public name.

>>> import numtorch as torch
>>> _ = torch.manual_seed(0)
>>> torch.randint(10, (3,))
tensor([4, 9, 3])
"""
import numpy as np

from . import _dtype as D
from . import _random as R
from ._creation import _finish, _like, _np_dtype, _out_dtype, _shape, _size_kw
from ._tensor import Tensor

__all__ = ["rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
           "normal", "bernoulli", "multinomial", "poisson"]


# ---- PyTorch's argument-parser messages ---------------------------------------------------
def _type_name(v):
    """A value's type as PyTorch's parser names it in its messages."""
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, D.dtype):
        return "torch.dtype"
    if isinstance(v, R.Generator):
        return "torch._C.Generator"      # the C type's full name
    from .ops._util import tp_name
    return tp_name(v)


def _invalid_combination(op, args, kwargs, signatures):
    """PyTorch's TypeError for a call that fits none of an op's overloads."""
    # PyTorch's own formatting: with no positional argument the last ', ' stays
    got = "".join(f"{_type_name(a)}, " for a in args)
    # (PyTorch lists the keywords last to first)
    got += "".join(f"{k}={_type_name(v)}, " for k, v in reversed(list(kwargs.items())))
    if args:
        got = got[:-2]
    lines = "".join(f" * ({s})\n" for s in signatures)
    return TypeError(f"{op}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n{lines}")


def _is_int(v):
    """An int argument: Python/NumPy ints and integer tensors of one element, not bools."""
    if isinstance(v, Tensor):
        return not v.dtype.is_floating_point and not v.dtype.is_complex \
            and v.dtype is not D.bool_ and v.numel() == 1
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


_FACTORY_KW = ("Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
               "torch.device device = None, bool pin_memory = False, "
               "bool requires_grad = False")
_RANDINT_SIGNATURES = tuple(
    f"{params}, *, {gen}{_FACTORY_KW}"
    for params in ("int high, tuple of ints size", "int low, int high, tuple of ints size")
    for gen in ("torch.Generator generator, ", ""))


_RAND_SIGNATURES = tuple(f"tuple of ints size, *, {gen}{_FACTORY_KW}"
                         for gen in ("torch.Generator generator, ", ""))
_RANDPERM_SIGNATURES = tuple(f"int n, *, {gen}{_FACTORY_KW}"
                             for gen in ("torch.Generator generator, ", ""))


def _given(generator, out, dtype, layout, device, requires_grad, pin_memory, size=None):
    """The keyword arguments of a factory call that differ from their defaults."""
    return {k: v for k, v in (("size", size), ("generator", generator), ("out", out),
                              ("dtype", dtype), ("layout", layout), ("device", device),
                              ("requires_grad", requires_grad or None),
                              ("pin_memory", pin_memory or None)) if v is not None}


def _parse(op, args, given, signatures, parse):
    """``parse()`` (a factory's argument checks) with PyTorch's parser's choice of error.

    Each factory has a with-generator and a without-generator overload; once two or more
    arguments are given both are plausible, so a wrong argument type (or a generator that
    is no Generator) is reported as an invalid combination, not by name.
    """
    if "generator" in given and not isinstance(given["generator"], R.Generator):
        raise _invalid_combination(op, args, given, signatures)
    try:
        return parse()
    except TypeError as e:
        # (a size element that fails to unpack is reported at once, overloads or not)
        msg = str(e)
        if len(args) + len(given) >= 2 and " must be " in msg and "unpack" not in msg:
            raise _invalid_combination(op, args, given, signatures) from None
        raise


def _bad_element(size):
    from .ops._arg_errors import _bad_element as bad
    return bad(size)


def _randint_bind(args, bounds):
    """{'low', 'high', 'size'} bound to the first overload this call fits, else None.

    ``bounds`` holds the low/high/size keywords given; ``(high, size)`` is tried first, as
    PyTorch's parser does.
    """
    for names in (("high", "size"), ("low", "high", "size")):
        bound = dict(zip(names, args))
        if len(args) > len(names) or set(bound) & set(bounds) or set(bounds) - set(names):
            continue
        bound.update(bounds)
        if len(bound) == len(names) and isinstance(bound["size"], (tuple, list)) and \
                _bad_element(bound["size"]) is None and \
                all(_is_int(bound[k]) for k in names[:-1]):
            return bound
    return None


def _randint_error(args, given, bounds):
    """The TypeError PyTorch raises for a randint call that fits no overload (``given``:
    every keyword argument given, ``bounds``: the low/high/size ones)."""
    if len(args) + len(given) != 2:  # several overloads take this many: list them all
        return _invalid_combination("randint", args, given, _RANDINT_SIGNATURES)
    # only (high, size) takes two arguments: PyTorch names what is wrong with that one
    for pos, name in enumerate(("high", "size"), 1):
        if pos <= len(args):
            v, where = args[pos - 1], f" (position {pos})"
        elif name in bounds:
            v, where = bounds[name], ""
        else:
            return TypeError(f"randint() missing 1 required positional arguments: \"{name}\"")
        if name == "size" and isinstance(v, (tuple, list)) and _bad_element(v) is not None:
            from .ops._arg_errors import _params, _parse_raise
            return _parse_raise("randint", _params("(int high, tuple of ints size)"), args,
                                bounds)
        ok = isinstance(v, (tuple, list)) if name == "size" else _is_int(v)
        if not ok:
            kind = "tuple of ints" if name == "size" else "int"
            return TypeError(f"randint(): argument '{name}'{where} must be {kind}, not "
                             f"{_type_name(v)}")
    return _invalid_combination("randint", args, given, _RANDINT_SIGNATURES)


# ---- factories ----------------------------------------------------------------------------
def rand(*sizes, size=None, generator=None, out=None, dtype=None, layout=None,
         device=None, requires_grad=False, pin_memory=False):
    """Uniform samples on [0, 1), drawn from PyTorch's random stream.

    >>> import numtorch as torch
    >>> torch.rand(2, generator=torch.Generator().manual_seed(0))
    tensor([0.4963, 0.7682])
    """
    given = _given(generator, out, dtype, layout, device, requires_grad, pin_memory, size)
    shape, npdt = _parse("rand", sizes, given, _RAND_SIGNATURES, lambda: (
        _shape(_size_kw(sizes, size, "rand"), "rand"),
        _np_dtype(_out_dtype(out, dtype, "rand", sizes))))
    arr = R.uniform(shape, npdt, 0.0, 1.0, generator)
    return _finish(arr, requires_grad, device, out, "rand")


def randn(*sizes, size=None, generator=None, out=None, dtype=None, layout=None,
          device=None, requires_grad=False, pin_memory=False):
    """Standard normal samples, drawn from PyTorch's random stream.

    >>> import numtorch as torch
    >>> torch.randn(2, generator=torch.Generator().manual_seed(0))
    tensor([ 1.5410, -0.2934])
    """
    given = _given(generator, out, dtype, layout, device, requires_grad, pin_memory, size)
    shape, npdt = _parse("randn", sizes, given, _RAND_SIGNATURES, lambda: (
        _shape(_size_kw(sizes, size, "randn"), "randn"),
        _np_dtype(_out_dtype(out, dtype, "randn", sizes))))
    arr = R.normal(shape, npdt, 0.0, 1.0, generator)
    return _finish(arr, requires_grad, device, out, "randn")


def randint(*args, low=None, high=None, size=None, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad=False, pin_memory=False):
    """Integers uniform on [low, high): ``randint(high, size)`` or ``randint(low, high, size)``.

    >>> import numtorch as torch
    >>> torch.randint(3, 7, (4,), generator=torch.Generator().manual_seed(0))
    tensor([3, 6, 4, 3])
    """
    given = {k: v for k, v in (("low", low), ("high", high), ("size", size),
                               ("generator", generator), ("out", out), ("dtype", dtype),
                               ("layout", layout), ("device", device)) if v is not None}
    bounds = {k: given[k] for k in ("low", "high", "size") if k in given}
    bound = _randint_bind(args, bounds)
    if bound is None:
        raise _randint_error(args, given, bounds)
    lo, hi, size = int(bound.get("low", 0)), int(bound["high"]), bound["size"]
    dt = D.to_dtype(_out_dtype(out, dtype) or D.int64)
    arr = R.randint(lo, hi, _shape((size,), "randint"), dt.np, generator)
    return _finish(arr, requires_grad, device, out, "randint")


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of ``0 .. n-1``.

    >>> import numtorch as torch
    >>> torch.randperm(4, generator=torch.Generator().manual_seed(0))
    tensor([0, 1, 3, 2])
    """
    def parse():
        if not _is_int(n):
            raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not "
                            f"{_type_name(n)}")
        return D.to_dtype(_out_dtype(out, dtype) or D.int64)
    dt = _parse("randperm", (n,), _given(generator, out, dtype, layout, device,
                                         requires_grad, pin_memory),
                _RANDPERM_SIGNATURES, parse)
    return _finish(R.randperm(int(n), dt.np, generator), requires_grad, device, out,
                   "randperm")


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None):
    """Uniform samples on [0, 1) shaped like ``input`` (and of its dtype unless given)."""
    shape, npdt = _like(input, dtype, "rand_like")
    return _finish(R.uniform(shape, npdt, 0.0, 1.0, generator), requires_grad, device)


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None):
    """Standard normal samples shaped like ``input`` (and of its dtype unless given)."""
    shape, npdt = _like(input, dtype, "randn_like")
    return _finish(R.normal(shape, npdt, 0.0, 1.0, generator), requires_grad, device)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None):
    """Integers uniform on [low, high) shaped like ``input``: ``(input, high)`` or
    ``(input, low, high)``."""
    args = (input, low) if high is None else (input, low, high)
    if high is None:
        low, high = 0, low
    if not (_is_int(low) and _is_int(high)):
        given = {k: v for k, v in (("generator", generator), ("dtype", dtype)) if v is not None}
        raise _invalid_combination("randint_like", args, given, _RANDINT_LIKE_SIGNATURES)
    shape, npdt = _like(input, dtype, "randint_like")
    return _finish(R.randint(int(low), int(high), shape, npdt, generator), requires_grad,
                   device)


_RANDINT_LIKE_SIGNATURES = tuple(
    f"Tensor input, {params}, *, {gen}torch.memory_format memory_format = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False"
    for params in ("int low, int high", "Tensor high", "int high")
    for gen in ("torch.Generator generator, ", ""))

_NORMAL_SIGNATURES = (
    "Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None",
    "Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None",
    "float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None",
    "float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
    "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False")


_LIKE_SIGNATURES = tuple(
    f"Tensor input, *, {gen}torch.memory_format memory_format = None, torch.dtype dtype = "
    "None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False" for gen in ("torch.Generator generator, ", ""))

# The overloads PyTorch lists for a random factory given a requires_grad that is no bool
# (see _creation._requires_grad_arg; rand and randn are in _creation._OVERLOADS)
REQUIRES_GRAD_OVERLOADS = {
    "randint": _RANDINT_SIGNATURES,
    "randperm": _RANDPERM_SIGNATURES,
    "rand_like": _LIKE_SIGNATURES,
    "randn_like": _LIKE_SIGNATURES,
    "normal": _NORMAL_SIGNATURES,
}


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False):
    """Normal samples: from scalar mean/std with ``size``, or elementwise from tensors.

    >>> import numtorch as torch
    >>> torch.normal(2.0, 0.5, (2,), generator=torch.Generator().manual_seed(0))
    tensor([2.7705, 1.8533])
    """
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        # NOTE: a Python number stays a number: PyTorch's (tensor, number) overloads round
        # differently from (tensor, tensor)
        from .ops import random_ops as RO
        tm, ts = isinstance(mean, Tensor), isinstance(std, Tensor)
        npdt = (mean if tm else std).dtype.np
        op = RO.Normal if tm and ts else RO.NormalMeanTensor if tm else RO.NormalStdTensor
        res = op.apply(mean if tm else float(mean), std if ts else float(std), npdt,
                       generator)
        return res if out is None else _finish(res._data, False, None, out, "normal")
    if not isinstance(size, (tuple, list)) or _bad_element(size) is not None:
        args = (mean, std) + (() if size is None else (size,))
        given = {k: v for k, v in (("generator", generator), ("out", out), ("dtype", dtype))
                 if v is not None}
        raise _invalid_combination("normal", args, given, _NORMAL_SIGNATURES)
    arr = R.normal(_shape((size,), "normal"), _np_dtype(_out_dtype(out, dtype)), float(mean),
                   float(std), generator)
    return _finish(arr, requires_grad, device, out, "normal")


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probabilities ``input`` (or the scalar ``p``), in input's dtype.

    >>> import numtorch as torch
    >>> torch.bernoulli(torch.tensor([0., 1.]))
    tensor([0., 1.])
    """
    from .ops import random_ops as RO
    if not isinstance(input, Tensor):
        args = (input,) if p is None else (input, p)
        given = {k: v for k, v in (("generator", generator), ("out", out)) if v is not None}
        if len(args) + len(given) == 1:     # only the first overload is plausible then
            raise TypeError(f"bernoulli(): argument 'input' (position 1) must be Tensor, not "
                            f"{_type_name(input)}")
        raise _invalid_combination("bernoulli", args, given, (
            "Tensor input, *, torch.Generator generator = None, Tensor out = None",
            "Tensor input, float p, *, torch.Generator generator = None"))
    if p is not None:
        if type(input._data) is not np.ndarray:   # batched inside vmap
            from .func._batching import check_random_batched
            check_random_batched(input)
        res = RO.bernoulli_scalar(input, float(p), generator)
    else:
        res = RO.Bernoulli.apply(input, generator)
    return res if out is None else _finish(res._data, False, None, out, "bernoulli")


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices sampled from the rows of ``input`` (unnormalised probabilities).

    >>> import numtorch as torch
    >>> torch.multinomial(torch.tensor([0., 1., 0.]), 1)
    tensor([1])
    """
    if isinstance(input, Tensor) and type(input._data) is not np.ndarray:   # inside vmap
        from .func._batching import check_random_batched
        check_random_batched(input)
    arr = R.multinomial(input._data, int(num_samples), replacement, generator)
    return _finish(arr, False, None, out, "multinomial")


def poisson(input, generator=None):
    """One Poisson count per rate in ``input`` (which stays differentiable, with zero
    gradient, as in PyTorch).

    >>> import numtorch as torch
    >>> torch.poisson(torch.tensor([1., 5., 10.]), torch.Generator().manual_seed(0))
    tensor([2., 6., 9.])
    """
    from .ops import random_ops as RO
    if not isinstance(input, Tensor):
        raise TypeError(f"poisson(): argument 'input' (position 1) must be Tensor, not "
                        f"{_type_name(input)}")
    return RO.Poisson.apply(input, generator)


def _standard_gamma(input, generator=None):
    """One Gamma(alpha, 1) draw per concentration in ``input``; differentiable in it
    (implicit reparameterisation).

    >>> import numtorch as torch
    >>> torch._standard_gamma(torch.tensor([1., 5.]), torch.Generator().manual_seed(0))
    tensor([2.8824, 4.0611])
    """
    from .ops import random_ops as RO
    if not isinstance(input, Tensor):
        raise TypeError(f"_standard_gamma(): argument 'input' (position 1) must be Tensor, "
                        f"not {_type_name(input)}")
    return RO.StandardGamma.apply(input, generator)


def _standard_gamma_grad(input, output):
    """d output / d input for ``output = _standard_gamma(input)`` (not differentiable)."""
    from .ops import random_ops as RO
    return Tensor._make(RO.standard_gamma_grad(input._data, output._data), None, False)


def _sample_dirichlet(input, generator=None):
    """One Dirichlet(alpha) draw per row of ``input`` (over its last dim)."""
    from .ops import random_ops as RO
    if not isinstance(input, Tensor):
        raise TypeError(f"_sample_dirichlet(): argument 'input' (position 1) must be "
                        f"Tensor, not {_type_name(input)}")
    return RO.SampleDirichlet.apply(input, generator)


def binomial(count, prob, generator=None):
    """One Binomial(count, prob) draw per element, in count's dtype (not differentiable).

    >>> import numtorch as torch
    >>> torch.binomial(torch.tensor([10., 100.]), torch.tensor([0.5, 0.3]),
    ...                torch.Generator().manual_seed(3))
    tensor([ 3., 34.])
    """
    for name, v, pos in (("count", count, 1), ("prob", prob, 2)):
        if not isinstance(v, Tensor):
            raise TypeError(f"binomial(): argument '{name}' (position {pos}) must be Tensor, "
                            f"not {_type_name(v)}")
    return Tensor._make(R.binomial(count._data, prob._data, generator), None, False)
