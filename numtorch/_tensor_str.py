"""Tensor printing that matches PyTorch's ``repr`` character for character.

The layout rules (shared column width, fixed vs. scientific notation, summarisation with
``...``, wrapping at ``linewidth``, the ``dtype=`` / ``grad_fn=`` suffixes) are PyTorch's;
the values come from the tensor's NumPy array.

Module state is a single ``PRINT_OPTS`` record changed through :func:`set_printoptions`
or, temporarily, the :func:`printoptions` context manager.

>>> import numpy as np
>>> from numtorch import _dtype
>>> class T:  # any object with these attributes prints
...     _data, dtype = np.array([1.5, -2.0], dtype=np.float32), _dtype.float32
...     requires_grad, grad_fn, is_leaf = False, None, True
>>> print(tensor_repr(T()))
tensor([ 1.5000, -2.0000])
"""
import contextlib
import dataclasses
import math

import numpy as np

from . import _dtype as _dt

__all__ = ["PRINT_OPTS", "set_printoptions", "get_printoptions", "printoptions",
           "tensor_repr", "parameter_repr"]


@dataclasses.dataclass
class __PrinterOptions:  # PyTorch's name, seen when PRINT_OPTS is printed
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: object = None  # None lets each tensor decide; True/False forces it


PRINT_OPTS = __PrinterOptions()

# profile name -> (precision, threshold, edgeitems, linewidth)
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set the options used when tensors are printed.

    A ``profile`` is applied first, then any explicit option overrides it. As in PyTorch,
    ``sci_mode`` is always assigned, so leaving it out switches back to automatic.

    Args:
        precision: digits after the decimal point for floating values (default 4).
        threshold: element count above which a tensor is summarised (default 1000).
        edgeitems: items kept at each end of a summarised dimension (default 3).
        linewidth: characters per line before a row wraps (default 80).
        profile: ``'default'``, ``'short'`` or ``'full'`` (never summarise).
        sci_mode: True or False to force scientific notation on or off; None to let
            the values decide.

    >>> set_printoptions(precision=2)
    >>> get_printoptions()["precision"]
    2
    >>> set_printoptions(profile="default")
    """
    if profile in _PROFILES:
        (PRINT_OPTS.precision, PRINT_OPTS.threshold,
         PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current print options as a dict that :func:`set_printoptions` accepts.

    >>> get_printoptions()
    {'precision': 4, 'threshold': 1000, 'edgeitems': 3, 'linewidth': 80, 'sci_mode': None}
    """
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager that applies :func:`set_printoptions` and restores the old options.

    >>> with printoptions(precision=1):
    ...     get_printoptions()["precision"]
    1
    >>> get_printoptions()["precision"]
    4
    """
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# ---------------------------------------------------------------------------------------
# element formatting


def _extremes(values):
    """Python floats standing in for ``values`` when measuring the widest string.

    Correctly rounded fixed and scientific formatting give strings whose length never
    shrinks as |x| grows (scientific only past |exponent| 100, which also favours the
    smallest |x|), so the widest string comes from the smallest or largest magnitude of
    each sign. Measuring these four instead of every element keeps printing O(n) in NumPy.
    """
    out = []
    for part in (values[values > 0], values[values < 0]):
        if part.size:
            out += [float(part.min()), float(part.max())]
    return out


class _Formatter:
    """Decides how one set of real values is laid out: width, int mode, sci mode.

    Args:
        values: every value that will be shown (the summarised data when summarising).
        floating: whether the values are floats (real tensors, or complex parts).
    """

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if not floating:
            self.max_width = max([1] + [len(str(v)) for v in _int_extremes(values)])
            return
        shown = values[np.isfinite(values) & (values != 0)]
        if shown.size == 0:  # only zeros, nan and inf: nothing to size the columns by
            return
        # ceil is exact in every float dtype, so the check can stay in the original one
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        self.sci_mode = self._choose_sci(np.abs(shown).astype(np.float64))
        self.max_width = max(len(self._plain(v)) for v in _extremes(shown))

    @staticmethod
    def _choose_sci(magnitudes):
        if PRINT_OPTS.sci_mode is not None:
            return PRINT_OPTS.sci_mode
        lo, hi = float(magnitudes.min()), float(magnitudes.max())
        return hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4

    def _plain(self, value):
        """``value`` as it is formatted, before padding (nonfinite values included)."""
        if self.sci_mode:
            return f"{value:.{PRINT_OPTS.precision}e}"
        if self.int_mode:
            # a trailing '.' marks an integral float; nan and inf need no such mark
            text = f"{value:.0f}"
            return text if math.isinf(value) or math.isnan(value) else text + "."
        return f"{value:.{PRINT_OPTS.precision}f}"

    def format(self, value):
        """``value`` right-aligned to the shared column width."""
        text = self._plain(value) if self.floating else str(value)
        return text.rjust(self.max_width)


def _int_extremes(values):
    """Values whose ``str`` is widest: the most negative and most positive (or bools)."""
    if values.size == 0:
        return []
    if values.dtype == np.bool_:
        return sorted(set(values.ravel().tolist()))
    return [values.min().item(), values.max().item()]


def _format_value(value, formatters):
    """One element as text; complex values join their real and imaginary formatters."""
    if len(formatters) == 1:
        return formatters[0].format(value)
    real = formatters[0].format(value.real)
    imag = (formatters[1].format(value.imag) + "j").lstrip()
    # a negative (or -0.0) imaginary part already carries its sign
    return real + imag if imag[0] in "+-" else real + "+" + imag


# ---------------------------------------------------------------------------------------
# layout of the nested brackets


def _edge_rows(n):
    """Indices kept along a dimension of length ``n`` when summarising."""
    e = PRINT_OPTS.edgeitems
    if n > 2 * e:
        return np.r_[0:e, n - e:n]
    return np.arange(n)


def _summarized_data(arr):
    """The elements a summarised print shows, for sizing the columns."""
    if arr.ndim == 0:
        return arr
    if not PRINT_OPTS.edgeitems:
        # PyTorch keeps a 1-d tensor whole here (its tail slice is [-0:]), and drops
        # everything of higher rank; either way only '...' is printed
        return arr if arr.ndim == 1 else arr[(slice(0, 0),) * arr.ndim]
    return arr[np.ix_(*[_edge_rows(n) for n in arr.shape])]


def _vector_str(vec, indent, summarize, formatters):
    """A 1-d array as ``[a, b, ...]``, wrapped so lines fit the line width."""
    element_len = formatters[0].max_width + 2  # ", " between elements
    if len(formatters) == 2:
        element_len += formatters[1].max_width + 1  # the imaginary part and its 'j'
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_len))

    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and len(vec) > 2 * e:
        data = ([_format_value(v, formatters) for v in vec[:e].tolist()] + [" ..."]
                + [_format_value(v, formatters) for v in vec[-e:].tolist()])
    else:
        data = [_format_value(v, formatters) for v in vec.tolist()]

    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _array_str(arr, indent, summarize, formatters):
    """An array of any rank; sub-arrays are separated by rank-1 blank lines."""
    if arr.ndim == 0:
        return _format_value(arr.item(), formatters)
    if arr.ndim == 1:
        return _vector_str(arr, indent, summarize, formatters)
    e = PRINT_OPTS.edgeitems
    n = arr.shape[0]
    if summarize and n > 2 * e:
        rows = list(range(e)) + [None] + list(range(n - e, n))
    else:
        rows = range(n)
    slices = ["..." if i is None else _array_str(arr[i], indent + 1, summarize, formatters)
              for i in rows]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _contents_str(arr, dtype, indent):
    """The bracketed contents of a tensor whose first line starts ``indent`` columns in."""
    if arr.size == 0:
        return "[]"
    summarize = arr.size > PRINT_OPTS.threshold
    sized = _summarized_data(arr) if summarize else arr
    if dtype.is_complex:
        formatters = (_Formatter(sized.real, True), _Formatter(sized.imag, True))
    else:
        formatters = (_Formatter(sized, dtype.is_floating_point),)
    return _array_str(arr, indent, summarize, formatters)


# ---------------------------------------------------------------------------------------
# suffixes and the public entry points


def _shape_suffixes(t, arr):
    """``size=`` and ``dtype=`` suffixes, shown where the contents leave them ambiguous."""
    out = []
    default = _dt.get_default_dtype()
    if arr.size == 0:
        if arr.ndim != 1:  # NumPy-style: only a shape other than (0,) is spelt out
            out.append(f"size={tuple(arr.shape)}")
        # no elements to show int- or bool-ness, so any non-default dtype is named
        if t.dtype is not default:
            out.append(f"dtype={t.dtype!r}")
        return out
    if not PRINT_OPTS.edgeitems:
        out.append(f"size={tuple(arr.shape)}")
    if t.dtype not in (default, _dt.default_complex_dtype(), _dt.int64, _dt.bool_):
        out.append(f"dtype={t.dtype!r}")
    return out


def _autograd_suffixes(t):
    try:
        grad_fn = getattr(t, "grad_fn", None)
    except RuntimeError:
        # a view whose base changed in place and whose history cannot be regenerated:
        # PyTorch's printer shows it this way instead of raising
        return ["grad_fn=<Invalid>"]
    if grad_fn is not None:
        # PyTorch prints the node's type name (CopySlices), not name() (torch::autograd::...)
        return [f"grad_fn=<{type(grad_fn).__name__}>"]
    if getattr(t, "requires_grad", False):
        return ["requires_grad=True"]
    return []


def _tangent_suffixes(t):
    """``tangent=...`` for a dual tensor (forward AD), as PyTorch prints it."""
    extra = getattr(t, "_extra", None)
    if not extra or not extra.get("fw"):
        return []
    from .autograd.forward_ad import tangent_suffix
    return tangent_suffix(t)


def _add_suffixes(text, suffixes, indent):
    """Append ``, suffix`` items, starting a new line when one would pass the line width."""
    parts = [text]
    # PyTorch's measure, kept as is: two more than the last line's length
    last_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t, *, tensor_contents=None):
    """PyTorch's ``repr`` (and ``str``) of a tensor.

    Args:
        t: an object with ``_data`` (ndarray), ``dtype``, ``requires_grad``, ``grad_fn``.
        tensor_contents: text to print in place of the values (suffixes still apply).

    Returns:
        The text, e.g. ``tensor([1, 2], dtype=torch.int32)``.

    >>> import numpy as np
    >>> from numtorch import _dtype
    >>> class T:
    ...     _data, dtype = np.arange(3, dtype=np.int32), _dtype.int32
    ...     requires_grad, grad_fn, is_leaf = False, None, True
    >>> tensor_repr(T())
    'tensor([0, 1, 2], dtype=torch.int32)'
    """
    from .func import _wrapper_repr
    if _wrapper_repr.active():  # inside grad/vjp/jvp: PyTorch's wrapper repr, if t has any
        text = _wrapper_repr.wrapper_repr(t)
        if text is not None:
            return text
    if type(t._data) is not np.ndarray:
        from .func._batching import BatchedData, batched_repr
        if isinstance(t._data, BatchedData):  # inside vmap: PyTorch's wrapper repr
            return batched_repr(t)
    return plain_tensor_repr(t, tensor_contents=tensor_contents)


def plain_tensor_repr(t, *, tensor_contents=None):
    """:func:`tensor_repr` of a tensor that holds its values (no transform wrapper)."""
    prefix = _prefix(t)
    arr = np.asarray(t._data)
    suffixes = _shape_suffixes(t, arr) + _autograd_suffixes(t) + _tangent_suffixes(t)
    if tensor_contents is None:
        tensor_contents = _contents_str(arr, t.dtype, len(prefix))
    text = _add_suffixes(prefix + tensor_contents, suffixes, len(prefix))
    if prefix != "tensor(" and _is_parameter(t):
        # a subclass of Parameter: PyTorch wraps its subclass-named repr once more
        text = f"Parameter({text})"
    return text


def _is_plain(kind):
    return kind.__module__ == "torch.nn.parameter" and kind.__name__ == "Parameter"


def _prefix(t):
    """``tensor(``, or for a user's Tensor subclass its name (``MyT([1., 2.])``), as PyTorch
    prints anything but a plain Tensor or a Parameter."""
    from ._tensor import Tensor
    kind = type(t)
    if kind is Tensor or not isinstance(t, Tensor) or _is_plain(kind):
        return "tensor("
    return kind.__name__ + "("


def _is_parameter(t):
    from .nn.parameter import Parameter
    return isinstance(t, Parameter)


def parameter_repr(t):
    """``repr`` of an ``nn.Parameter``: a header line above the tensor's own repr.

    >>> import numpy as np
    >>> from numtorch import _dtype
    >>> class P:
    ...     _data, dtype = np.ones(2, dtype=np.float32), _dtype.float32
    ...     requires_grad, grad_fn, is_leaf = True, None, True
    >>> print(parameter_repr(P()))
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """
    return "Parameter containing:\n" + tensor_repr(t)
