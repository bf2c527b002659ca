"""PyTorch's argument-parser errors for an int (or list of ints) argument of the wrong type.

PyTorch's C++ parser checks every call against the op's signatures before the op runs, so
``x.transpose(0, 1.0)`` raises ``transpose(): argument 'dim1' (position 2) must be int, not
float`` and ``x.sum(1.0)`` lists ``sum``'s overloads. numtorch's ops check their int arguments
only where they use them (a fast ``type(d) is int`` test), and on failure call
:func:`bad_argument`, which rebuilds the call (method or function, positional or keyword) from
the interpreter's frames and replays the parser's rules on the signatures in ``SIGNATURES``.
Nothing here runs unless a call is already failing.

>>> import numtorch as torch
>>> try:
...     torch.zeros(2, 3).transpose(0, 1.0)
... except TypeError as e:
...     print(e)
transpose(): argument 'dim1' (position 2) must be int, not float
"""
import dis
import sys

import numpy as np

_PACKAGE_DIR = __file__.rsplit("/", 2)[0]
_DISPATCH_FILE = _PACKAGE_DIR + "/overrides.py"  # __torch_function__ wrappers

# The overloads PyTorch prints for the method form (the function form adds ``Tensor input``
# first; ``FUNCTION_SIGNATURES`` holds those that differ further). Hidden (named-dim)
# overloads are left out, as PyTorch's messages leave them out.
_DIMS_SUM = "(tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)"
SIGNATURES = {
    "transpose": ["(int dim0, int dim1)"],
    "swapaxes": ["(int axis0, int axis1)"],
    "swapdims": ["(int dim0, int dim1)"],
    "unsqueeze": ["(int dim)"],
    "squeeze": ["()", "(int dim)", "(tuple of ints dim)"],
    "flatten": ["(int start_dim = 0, int end_dim = -1)"],
    "unflatten": ["(int dim, tuple of ints sizes)"],
    "movedim": ["(int source, int destination)",
                "(tuple of ints source, tuple of ints destination)"],
    "moveaxis": ["(int source, int destination)",
                 "(tuple of ints source, tuple of ints destination)"],
    "select": ["(int dim, int index)"],
    "narrow": ["(int dim, Tensor start, int length)", "(int dim, int start, int length)"],
    "view": ["(torch.dtype dtype)", "(tuple of ints size)"],
    "reshape": ["(tuple of ints shape)"],
    "expand": ["(tuple of ints size, *, bool implicit = False)"],
    "repeat": ["(tuple of ints repeats)"],
    "rot90": ["(int k = 1, tuple of ints dims = [0,1])"],
    "repeat_interleave": ["(Tensor repeats, int dim = None, *, int output_size = None)",
                          "(int repeats, int dim = None, *, int output_size = None)"],
    "permute": ["(tuple of ints dims)"],
    "tile": ["(tuple of ints dims)"],
    "flip": ["(tuple of ints dims)"],
    "roll": ["(tuple of ints shifts, tuple of ints dims = None)"],
    "diagonal": ["(int offset = 0, int dim1 = 0, int dim2 = 1)"],
    "tril": ["(int diagonal = 0)"],
    "triu": ["(int diagonal = 0)"],
    "chunk": ["(int chunks, int dim = 0)"],
    "unbind": ["(int dim = 0)"],
    "unfold": ["(int dimension, int size, int step)"],
    "index_select": ["(int dim, Tensor index)"],
    "gather": ["(int dim, Tensor index, *, bool sparse_grad = False)"],
    "sum": ["(*, torch.dtype dtype = None)", _DIMS_SUM],
    "nansum": ["(tuple of ints dim = None, bool keepdim = False, *, torch.dtype dtype = None)"],
    "mean": ["(*, torch.dtype dtype = None)", _DIMS_SUM],
    "prod": ["(*, torch.dtype dtype = None)",
             "(int dim, bool keepdim = False, *, torch.dtype dtype = None)"],
    "amax": ["(tuple of ints dim = (), bool keepdim = False)"],
    "amin": ["(tuple of ints dim = (), bool keepdim = False)"],
    "logsumexp": ["(tuple of ints dim, bool keepdim = False)"],
    "argmax": ["(int dim = None, bool keepdim = False)"],
    "argmin": ["(int dim = None, bool keepdim = False)"],
    "softmax": ["(int dim, torch.dtype dtype = None)"],
    "log_softmax": ["(int dim, torch.dtype dtype = None)"],
    "cumsum": ["(int dim, *, torch.dtype dtype = None)"],
    "cumprod": ["(int dim, *, torch.dtype dtype = None)"],
    "cummax": ["(int dim)"],
    "cummin": ["(int dim)"],
    "median": ["()", "(int dim, bool keepdim = False)"],
    "nanmedian": ["()", "(int dim, bool keepdim = False)"],
    "mode": ["(int dim = -1, bool keepdim = False)"],
    "topk": ["(int k, int dim = -1, bool largest = True, bool sorted = True)"],
    "kthvalue": ["(int k, int dim = -1, bool keepdim = False)"],
    "argsort": ["(*, bool stable, int dim = -1, bool descending = False)",
                "(int dim = -1, bool descending = False)"],
    "sort": ["(*, bool stable, int dim = -1, bool descending = False)",
             "(int dim = -1, bool descending = False)"],
    "tensor_split": ["(tuple of ints indices, int dim = 0)",
                     "(Tensor tensor_indices_or_sections, int dim = 0)",
                     "(int sections, int dim = 0)"],
    "index_add": ["(int dim, Tensor index, Tensor source, *, Number alpha = 1)"],
    "index_copy": ["(int dim, Tensor index, Tensor source)"],
    "index_fill": ["(int dim, Tensor index, Tensor value)",
                   "(int dim, Tensor index, Number value)"],
    "scatter": ["(int dim, Tensor index, Tensor src)",
                "(int dim, Tensor index, Tensor src, *, str reduce)",
                "(int dim, Tensor index, Number value)",
                "(int dim, Tensor index, Number value, *, str reduce)"],
    "scatter_add": ["(int dim, Tensor index, Tensor src)"],
    "take_along_dim": ["(Tensor indices, int dim = None)"],
    "logcumsumexp": ["(int dim)"],
    "diag": ["(int diagonal = 0)"],
    "diag_embed": ["(int offset = 0, int dim1 = -2, int dim2 = -1)"],
    "masked_fill": ["(Tensor mask, Tensor value)", "(Tensor mask, Number value)"],
    "masked_fill_": ["(Tensor mask, Tensor value)", "(Tensor mask, Number value)"],
    "take": ["(Tensor index)"],
    "max": ["()", "(Tensor other)", "(int dim, bool keepdim = False)"],
    "min": ["()", "(Tensor other)", "(int dim, bool keepdim = False)"],
    "masked_select": ["(Tensor mask)"],
    "masked_scatter": ["(Tensor mask, Tensor source)"],
}
_OUT = ", *, Tensor out = None)"
FUNCTION_SIGNATURES = {
    "sum": ["(Tensor input, *, torch.dtype dtype = None)",
            "(Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = "
            "None, Tensor out = None)"],
    "mean": ["(Tensor input, *, torch.dtype dtype = None, Tensor out = None)",
             "(Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = "
             "None, Tensor out = None)"],
    "softmax": ["(Tensor input, int dim, torch.dtype dtype = None, *, Tensor out = None)"],
    "log_softmax": ["(Tensor input, int dim, torch.dtype dtype = None, *, Tensor out = None)"],
    "cumsum": ["(Tensor input, int dim, *, torch.dtype dtype = None, Tensor out = None)"],
    "cumprod": ["(Tensor input, int dim, *, torch.dtype dtype = None, Tensor out = None)"],
    "select": ["(Tensor input, int dim, int index)"],
    "amax": ["(Tensor input, tuple of ints dim = (), bool keepdim = False" + _OUT],
    "amin": ["(Tensor input, tuple of ints dim = (), bool keepdim = False" + _OUT],
    "argmax": ["(Tensor input, int dim = None, bool keepdim = False" + _OUT],
    "argmin": ["(Tensor input, int dim = None, bool keepdim = False" + _OUT],
    "topk": ["(Tensor input, int k, int dim = -1, bool largest = True, bool sorted = True"
             + _OUT],
    "kthvalue": ["(Tensor input, int k, int dim = -1, bool keepdim = False" + _OUT],
    "narrow": ["(Tensor input, int dim, Tensor start, int length)",
               "(Tensor input, int dim, int start, int length)"],
    "index_select": ["(Tensor input, int dim, Tensor index" + _OUT],
    "gather": ["(Tensor input, int dim, Tensor index, *, bool sparse_grad = False, Tensor out "
               "= None)"],
    "cat": ["(tuple of Tensors tensors, int dim = 0" + _OUT],
    "stack": ["(tuple of Tensors tensors, int dim = 0" + _OUT],
    "logsumexp": ["(Tensor input, tuple of ints dim, bool keepdim = False" + _OUT],
    "nansum": ["(Tensor input, tuple of ints dim = None, bool keepdim = False, *, torch.dtype "
               "dtype = None, Tensor out = None)"],
    "prod": ["(Tensor input, *, torch.dtype dtype = None)",
             "(Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, "
             "Tensor out = None)"],
    "cummax": ["(Tensor input, int dim" + _OUT],
    "cummin": ["(Tensor input, int dim" + _OUT],
    "reshape": ["(Tensor input, tuple of ints shape)"],
    "repeat_interleave": ["(Tensor input, Tensor repeats, int dim = None, *, int output_size "
                          "= None)", "(Tensor repeats, *, int output_size = None)",
                          "(Tensor input, int repeats, int dim = None, *, int output_size = "
                          "None)"],
    "permute": ["(Tensor input, tuple of ints dims)"],
    "tile": ["(Tensor input, tuple of ints dims)"],
    "flip": ["(Tensor input, tuple of ints dims)"],
    "roll": ["(Tensor input, tuple of ints shifts, tuple of ints dims = None)"],
    "tril": ["(Tensor input, int diagonal = 0" + _OUT],
    "triu": ["(Tensor input, int diagonal = 0" + _OUT],
    "index_add": ["(Tensor input, int dim, Tensor index, Tensor source, *, Number alpha = 1, "
                  "Tensor out = None)"],
    "index_copy": ["(Tensor input, int dim, Tensor index, Tensor source" + _OUT],
    "scatter": ["(Tensor input, int dim, Tensor index, Tensor src" + _OUT,
                "(Tensor input, int dim, Tensor index, Tensor src, *, str reduce, Tensor out "
                "= None)",
                "(Tensor input, int dim, Tensor index, Number value" + _OUT,
                "(Tensor input, int dim, Tensor index, Number value, *, str reduce, Tensor out "
                "= None)"],
    "scatter_add": ["(Tensor input, int dim, Tensor index, Tensor src" + _OUT],
    "take_along_dim": ["(Tensor input, Tensor indices, int dim = None" + _OUT],
    "logcumsumexp": ["(Tensor input, int dim" + _OUT],
    "diag": ["(Tensor input, int diagonal = 0" + _OUT],
    "tril_indices": ["(int row, int col, int offset = 0, *, torch.dtype dtype = None, "
                     "torch.layout layout = None, torch.device device = None, bool pin_memory "
                     "= False)"],
}
for _op in ("max", "min"):
    FUNCTION_SIGNATURES[_op] = [
        "(Tensor input, *, Tensor out = None)", "(Tensor input, Tensor other" + _OUT,
        "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)"]
del _op
FUNCTION_SIGNATURES["triu_indices"] = FUNCTION_SIGNATURES["tril_indices"]


# The ops whose ``tuple of ints`` parameter has no size (``int[]``, not ``int[1]``): a bare
# int is no list there, except as the first of a method's unpacked ints (``x.flip(1)``)
_UNSIZED = {"flip", "tile", "permute", "reshape", "view", "expand", "repeat",
            "split_with_sizes", "unflatten", "rot90"}


# The parameters whose ``None`` the parser takes though it prints no ``= None`` default
# (``int[1]? dim`` of sum and mean: ``x.sum(None, keepdim=True)`` is every dim)
_NULLABLE = {("sum", "dim"), ("mean", "dim")}


# Functions whose ``tuple of ints`` takes no bare int, not even as the only argument
_NO_BARE_INT = {"linalg_matrix_norm"}


def _signatures(op, method):
    if not method and op in FUNCTION_SIGNATURES:
        return FUNCTION_SIGNATURES[op]
    sigs = SIGNATURES.get(op)
    if sigs is None or method:
        return sigs
    return ["(Tensor input" + (", " + s[1:] if s != "()" else ")") for s in sigs]


class _Param:
    __slots__ = ("kind", "name", "optional", "none_ok", "kw_only", "text")

    def __init__(self, text, kw_only):
        self.text, self.kw_only = text, kw_only
        head, _, default = text.partition(" = ")
        self.optional = bool(default)
        self.none_ok = default == "None"
        self.kind, _, self.name = head.rpartition(" ")


def _params(sig):
    out, kw_only = [], False
    for part in sig[1:-1].split(", ") if sig != "()" else ():
        if part == "*":
            kw_only = True
        else:
            out.append(_Param(part, kw_only))
    return out


def parser_int(v, allow_tensor=True):
    """Whether PyTorch's parser reads ``v`` as an int (no bool; a 0-dim integer tensor)."""
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    from .._tensor import Tensor
    return allow_tensor and isinstance(v, Tensor) and v.ndim == 0 and \
        v._data.dtype.kind in "iu" and not v.requires_grad


def _bad_element(v):
    """The position of the first entry of list/tuple ``v`` that is no int, else None.
    NOTE: PyTorch's parser takes a Python bool as an int after the first entry
    (``x.reshape(6, True)`` is ``(6, 1)``), never as the first."""
    for i, e in enumerate(v):
        if not (parser_int(e) or i and type(e) is bool):
            return i
    return None


def _fits(kind, v):
    """Whether the parser accepts ``v`` for a parameter of type ``kind``."""
    from .._tensor import Tensor
    from .. import _dtype as D
    if kind == "int":
        return parser_int(v)
    if kind == "tuple of ints":
        if type(v) in (list, tuple) or type(v).__name__ == "Size":
            return _bad_element(v) is None
        return parser_int(v)  # a single int (int[N] parameters, varargs)
    if kind == "Tensor":
        return isinstance(v, Tensor)
    if kind == "bool":
        return isinstance(v, (bool, np.bool_))
    if kind == "torch.dtype":
        return isinstance(v, D.dtype)
    if kind == "Number":
        return isinstance(v, (int, float, complex, np.number, np.bool_)) or \
            isinstance(v, Tensor) and v.ndim == 0 and not v.requires_grad
    if kind == "str":
        return isinstance(v, str)
    if kind == "float":  # (a double: Python ints too, bools among them)
        return isinstance(v, (int, float, np.integer, np.floating))
    if kind == "tuple of Tensors":
        return type(v) in (list, tuple) and all(isinstance(e, Tensor) for e in v)
    return False


def _tp(v):
    from ._util import tp_name
    return tp_name(v)


def _parse_raise(op, params, args, kwargs):
    """The error of PyTorch's parser for the one signature a call could mean (None when the
    call fits it)."""
    positional = [p for p in params if not p.kw_only]
    varargs = len(positional) == 1 and positional[0].kind == "tuple of ints"
    if len(args) > len(positional) and not (varargs and parser_int(args[0])):
        n = len(positional)
        return TypeError(f"{op}() takes {n} positional argument{'s' if n != 1 else ''} but "
                         f"{len(args)} {'was' if len(args) == 1 else 'were'} given")
    if varargs and len(args) > 1:
        for i, e in enumerate(args[1:], 2):
            if not (parser_int(e) or type(e) is bool):
                return TypeError(f"{op}(): argument '{positional[0].name}' failed to unpack the "
                                 f"object at pos {i} with error \"type must be tuple of ints,"
                                 f"but got {_tp(e)}\"")
        return None
    for i, p in enumerate(params):
        if i < len(args) and not p.kw_only:
            v, where = args[i], f" (position {i + 1})"
        elif p.name in kwargs:
            v, where = kwargs[p.name], ""
        else:
            continue
        none_ok = p.none_ok or (op, p.name) in _NULLABLE
        if v is None and none_ok or _fits(p.kind, v) and not (
                op in _UNSIZED and p.kind == "tuple of ints" and parser_int(v) and
                not (varargs and i == 0 and args)):
            continue
        bad = _bad_element(v) if type(v) in (list, tuple) else None
        if p.kind == "tuple of ints" and bad:  # NOTE: a bad first entry is worded as below
            return TypeError(f"{op}(): argument '{p.name}' failed to unpack the object at pos "
                             f"{bad + 1} with error \"type must be tuple of ints,but got "
                             f"{_tp(v[bad])}\"")
        if p.kind == "tuple of ints" and type(v) in (list, tuple) and where:
            return TypeError(f"{op}(): argument '{p.name}'{where} must be {p.kind}, but found "
                             f"element of type {_tp(v[_bad_element(v)])} at pos "
                             f"{_bad_element(v)}")
        return TypeError(f"{op}(): argument '{p.name}'{where} must be {p.kind}, not {_tp(v)}")
    return None


def _plausible(params, args, kwargs):
    n = len(args) + len(kwargs)
    least = sum(1 for p in params if not p.optional)
    positional = [p for p in params if not p.kw_only]
    if len(positional) == 1 and positional[0].kind == "tuple of ints" and args and \
            parser_int(args[0]):
        return least <= n  # ``view(2, 3)``: the ints are the list
    return least <= n <= len(params)


def _bind(params, args, kwargs):
    """``[(param, value)]`` of a call to the signature ``params``, or None where the count
    or the keywords do not fit it (a method's unpacked ints bind to its one list)."""
    positional = [p for p in params if not p.kw_only]
    if len(positional) == 1 and positional[0].kind == "tuple of ints" and len(args) > 1:
        if not parser_int(args[0]):
            return None
        args = (tuple(args),)
    if len(args) > len(positional) or any(k not in {p.name for p in params} for k in kwargs):
        return None
    bound = list(zip(positional, args))
    for p in params:
        given = any(q is p for q, _ in bound)
        if p.name in kwargs:
            if given:
                return None
            bound.append((p, kwargs[p.name]))
        elif not p.optional and not given:
            return None
    return bound


def _unpack_error(op, params, args, kwargs):
    """The error PyTorch raises while unpacking a list argument of the first overload the
    call fits, judging a list by its first entry as its parser does (``view(2, 3.0)``:
    ``failed to unpack the object at pos 2``); False where no overload fits so."""
    bound = _bind(params, args, kwargs)
    if bound is None:
        return False
    for p, v in bound:
        seq = type(v) in (list, tuple) or type(v).__name__ == "Size"
        if p.kind == "tuple of ints" and seq and len(v) and parser_int(v[0]):
            bad = _bad_element(v)
            if bad:
                return TypeError(f"{op}(): argument '{p.name}' failed to unpack the object at "
                                 f"pos {bad + 1} with error \"type must be tuple of ints,but "
                                 f"got {_tp(v[bad])}\"")
        elif not (v is None and (p.none_ok or (op, p.name) in _NULLABLE) or _fits(p.kind, v)) \
                or op in _NO_BARE_INT and p.kind == "tuple of ints" and parser_int(v):
            return False
    return None


def parse_error(op, sigs, args, kwargs):
    """PyTorch's TypeError for ``op(*args, **kwargs)`` that fits none of ``sigs``, or None
    where the parser would accept the call's types."""
    from ._util import invalid_arguments
    parsed = [_params(s) for s in sigs]
    if len(parsed) > 1:
        for params in parsed:
            err = _unpack_error(op, params, args, kwargs)
            if err is not False:
                return err
    plausible = [p for p in parsed if _plausible(p, args, kwargs)]
    if len(plausible) == 1:
        err = _parse_raise(op, plausible[0], args, kwargs)
        if err is not None or len(sigs) == 1:
            return err
    elif len(sigs) == 1:
        return _parse_raise(op, parsed[0], args, kwargs)
    return invalid_arguments(op, args, kwargs, sigs)


def _call_instruction(caller):
    """The number of arguments and the keyword names of the CALL ``caller`` is running
    (None when it is no plain CALL, such as ``f(*args)``)."""
    try:
        # NOTE: f_lasti may point into the CALL's inline cache: take the last instruction
        # at or before it
        ins = [i for i in dis.get_instructions(caller.f_code) if i.offset <= caller.f_lasti]
        if not ins or ins[-1].opname != "CALL":
            return None
        kw = ()
        for i in ins[-4:-1]:
            if i.opname == "KW_NAMES":
                kw = caller.f_code.co_consts[i.arg]
        return ins[-1].arg, kw
    except Exception:  # an unusual frame: the caller guesses from the values instead
        return None


def _wrapper_call(entry, caller):
    """``(op, args, kwargs, method)`` for a call entering numtorch through a ``*args,
    **kwargs`` wrapper: a method made by ``_method`` (which holds the op as ``fn``) or a
    ``torch.*`` function or method given NumPy's keyword names (which holds its ``name``)."""
    code, loc = entry.f_code, entry.f_locals
    if code.co_varnames[:3] == ("self", "args", "kwargs") and "fn" in code.co_freevars:
        return loc["fn"].__name__, tuple(loc["args"]), dict(loc["kwargs"]), True
    if code.co_varnames[:2] != ("args", "kwargs") or "name" not in code.co_freevars:
        return None
    args, kwargs = tuple(loc["args"]), dict(loc["kwargs"])
    call = _call_instruction(caller)
    # NOTE: ``x.op(a)`` binds ``x`` before the CALL, so the CALL counts one argument fewer
    # than the wrapper received; ``torch.op(x, a)`` counts them all
    method = call is not None and call[0] == len(args) + len(kwargs) - 1
    return loc["name"], (args[1:] if method else args), kwargs, method


def _call_of(entry, caller, method=False):
    """The positional and keyword arguments ``caller`` passed to the function running in
    ``entry``, read from the caller's CALL instruction (None when that is not plain). For a
    ``method`` (``self`` first), a bound call ``x.op(a)`` counts no ``self``: it is added."""
    code, loc = entry.f_code, entry.f_locals
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    star = code.co_varnames[len(names)] if code.co_flags & 0x04 else None
    call = _call_instruction(caller)
    if call is None:
        return None
    argc, kw = call
    npos = argc - len(kw)
    pos = [loc[n] for n in names[:code.co_argcount]]
    if method:  # NOTE: read as bound (``Tensor.op(x, a)`` is rare): the count lacks self
        npos += 1
    if star is not None:
        pos += list(loc[star])
    if npos > len(pos) or any(k not in loc for k in kw):
        return None
    return pos[:npos], {k: loc[k] for k in kw}


def _guess_call(entry):
    """Arguments of ``entry``'s call when its CALL cannot be read: all its parameters,
    positionally."""
    code, loc = entry.f_code, entry.f_locals
    pos = [loc[n] for n in code.co_varnames[:code.co_argcount]]
    if code.co_flags & 0x04:
        pos += list(loc[code.co_varnames[code.co_argcount + code.co_kwonlyargcount]])
    return pos, {}


def _entry_and_caller():
    """``(entry, caller, found)``: the frame where the user's call entered numtorch, the
    user's frame that made it (the caller of this module's caller), and where the call went
    through ``__torch_function__`` dispatch (numtorch/overrides.py, once a Tensor subclass
    exists), the call as dispatch saw it, ``(op, args, kwargs, method)``; else None. The
    entry is never a dispatch wrapper's frame: it is the function the wrappers called."""
    frame, entry, found = sys._getframe(2), None, None
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        if frame.f_code.co_filename != _DISPATCH_FILE:
            entry = frame
        elif found is None:
            found = _dispatched_call(frame.f_locals)
        frame = frame.f_back
    return entry, frame, found


def _dispatched_call(loc):
    """``(op, args, kwargs, method)`` from the locals of a dispatch frame that holds the
    call (``func``, ``args``, ``kwargs``: the innermost one has them as the user gave them);
    None for other dispatch frames. A public function is wrapped as ``_TorchFunction``, a
    Tensor method is not; ``args`` leave out ``self`` (as ``_wrapper_call``'s)."""
    func = loc.get("func")
    if func is None or "args" not in loc or "kwargs" not in loc:
        return None
    from ..overrides import _TorchFunction
    method = type(func) is not _TorchFunction
    return func.__name__, tuple(loc["args"])[method:], dict(loc["kwargs"] or {}), method


def bad_call(op, sigs, fallback):
    """PyTorch's parser error for the user's call now failing inside numtorch, checked
    against the overloads ``sigs`` of the parser's ``op`` (for ops whose Python name is not
    the parser's: ``linalg.vector_norm`` is ``linalg_vector_norm``); ``fallback`` where the
    call cannot be rebuilt or fits."""
    entry, frame, found = _entry_and_caller()
    if entry is None or frame is None:
        return fallback
    try:
        found = found or _wrapper_call(entry, frame)
        args, kwargs = found[1:3] if found is not None else \
            _call_of(entry, frame) or _guess_call(entry)
        err = parse_error(op, sigs, tuple(args), kwargs)
    except Exception:  # never hide the user's error behind one of ours
        return fallback
    return fallback if err is None else err


def bad_argument(fallback):
    """The TypeError PyTorch raises for the user's call now failing inside numtorch on an
    argument of the wrong type; ``fallback`` where the call cannot be rebuilt."""
    entry, frame, found = _entry_and_caller()
    if entry is None or frame is None:
        return fallback
    try:
        found = found or _wrapper_call(entry, frame)
        if found is not None:
            op, args, kwargs, method = found
        else:
            code = entry.f_code
            method = code.co_varnames[:1] == ("self",)
            args, kwargs = _call_of(entry, frame, method) or _guess_call(entry)
            op = code.co_name
            if method:
                args = args[1:]
        sigs = _signatures(op, method)
        err = parse_error(op, sigs, tuple(args), kwargs) if sigs else None
    except Exception:  # never hide the user's error behind one of ours
        return fallback
    return fallback if err is None else err
