"""``torch.overrides``: the ``__torch_function__`` protocol (Tensor subclasses, Tensor-likes).

PyTorch checks every call of a public function or Tensor method for arguments whose type
overrides ``__torch_function__`` and hands such calls to them. Checking on every call would
cost the plain-Tensor path (a wrapper frame per call), so numtorch installs the checks only
once something can use them:

- a ``Tensor`` subclass whose ``__torch_function__`` is not disabled (``nn.Parameter``'s is)
  gets, on its own class, a dispatching wrapper for every public Tensor method, property and
  operator it inherits from ``Tensor`` (``Tensor.__init_subclass__``);
- the public functions of ``torch``, ``torch.nn.functional``, ``torch.linalg``,
  ``torch.special`` and ``torch.fft`` are replaced by dispatching wrappers the first time such
  a subclass is defined, a ``TorchFunctionMode`` is entered, ``numtorch run`` runs a script
  that mentions ``__torch_function__`` (a Tensor-like class), or ``enable_dispatch()`` is
  called. A wrapper hashes and compares equal to the function it wraps, so a dictionary keyed
  by ``torch.mean`` before the switch still finds the call's ``func``.

(A subclass example would switch dispatch on for the whole process: see
docs/subclassing.md and tests/test_overrides.py.)

>>> import numtorch as torch
>>> torch.overrides.has_torch_function((torch.ones(2), 1.0))
False
"""
import functools

from ._tensor import Tensor

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "is_tensor_like", "is_tensor_method_or_property",
           "get_overridable_functions", "get_ignored_functions", "TorchFunctionMode",
           "enable_reentrant_dispatch", "wrap_torch_function"]


class _State:
    """Dispatch switches: ``subclass_off`` counts DisableTorchFunctionSubclass blocks (and
    DisableTorchFunction ones), ``all_off`` DisableTorchFunction blocks; ``modes`` is the
    stack of entered TorchFunctionModes."""
    subclass_off = 0
    all_off = 0
    modes = []


STATE = _State()


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """``torch._C._disabled_torch_function_impl``: as a class's ``__torch_function__``, it
    makes instances plain tensors to dispatch (``nn.Parameter``); called, it runs ``func``."""
    if kwargs is None:
        kwargs = {}
    with DisableTorchFunctionSubclass():
        return func(*args, **kwargs)


class DisableTorchFunctionSubclass:
    """``torch._C.DisableTorchFunctionSubclass()``: inside the block, calls reach the plain
    implementations whatever the subclass of their arguments (modes still apply)."""

    def __enter__(self):
        STATE.subclass_off += 1
        return self

    def __exit__(self, *exc):
        STATE.subclass_off -= 1
        return False


class DisableTorchFunction:
    """``torch._C.DisableTorchFunction()``: inside the block neither subclasses nor modes see
    any call."""

    def __enter__(self):
        STATE.subclass_off += 1
        STATE.all_off += 1
        return self

    def __exit__(self, *exc):
        STATE.subclass_off -= 1
        STATE.all_off -= 1
        return False


def _is_torch_function_enabled():
    return STATE.subclass_off == 0


def _is_torch_function_mode_enabled():
    return bool(STATE.modes) and STATE.all_off == 0


# ---- finding and calling overrides -----------------------------------------------------------
def _overrides(tp):
    """Whether instances of ``tp`` take part in dispatch (a plain Tensor or a class whose
    ``__torch_function__`` is disabled does not)."""
    if tp is Tensor:
        return False
    method = getattr(tp, "__torch_function__", None)
    return method is not None and method is not _disabled_torch_function_impl


def _get_overloaded_args(relevant_args):
    """The arguments whose type overrides ``__torch_function__``, one per type, subclasses
    before their superclasses, otherwise in order."""
    found = []
    types = set()
    for arg in relevant_args:
        tp = type(arg)
        if tp in types or not _overrides(tp):
            continue
        types.add(tp)
        index = len(found)
        for i, old in enumerate(found):
            if issubclass(tp, type(old)):
                index = i
                break
        found.insert(index, arg)
    return found


def _relevant(args, kwargs):
    """Arguments and keyword values, a list or tuple argument's items too (``torch.cat``)."""
    out = []
    for a in args:
        if type(a) is list or type(a) is tuple:
            out.extend(a)
        else:
            out.append(a)
    if kwargs:
        out.extend(kwargs.values())
    return out


def has_torch_function(relevant_args):
    """Whether dispatch is on and some of ``relevant_args`` overrides ``__torch_function__``
    (or a mode is active).

    >>> torch.overrides.has_torch_function((torch.ones(1), 2))
    False
    """
    if _is_torch_function_mode_enabled():
        return True
    return STATE.subclass_off == 0 and any(_overrides(type(a)) for a in relevant_args)


def has_torch_function_unary(obj):
    """``has_torch_function((obj,))``."""
    return has_torch_function((obj,))


def has_torch_function_variadic(*args):
    """``has_torch_function(args)``."""
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the active mode's, then each overloaded argument's ``__torch_function__`` with
    ``(public_api, types, args, kwargs)`` until one returns something else than
    NotImplemented; TypeError when none does."""
    return _handle(public_api, relevant_args, args, kwargs, None)


def _handle(public_api, relevant_args, args, kwargs, c_name):
    """handle_torch_function's work; ``c_name``, where given, is the name PyTorch's C++
    dispatcher gives the function in its error (``torch.add``, ``torch.Tensor.add``)."""
    overloaded = _get_overloaded_args(relevant_args) if STATE.subclass_off == 0 else []
    types = tuple(map(type, overloaded))
    if _is_torch_function_mode_enabled():
        mode = STATE.modes.pop()
        try:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            STATE.modes.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if c_name is not None and not _is_torch_function_mode_enabled():
        listed = "".join(f"  - tensor subclass {type(arg)}\n" for arg in overloaded)
        raise TypeError(f"Multiple dispatch failed for '{c_name}'; all __torch_function__ "
                        f"handlers returned NotImplemented:\n\n{listed}\nFor more "
                        "information, try re-running with TORCH_LOGS=not_implemented")
    name = f"{public_api.__module__}.{public_api.__name__}"
    msg = (f"no implementation found for '{name}' on types that implement "
           f"__torch_function__: {[type(arg) for arg in overloaded]}")
    if _is_torch_function_mode_enabled():
        msg += f" nor in mode {STATE.modes[-1]}"
    raise TypeError(msg)


def _dispatch(func, args, kwargs):
    """Run ``func(*args, **kwargs)``, through ``__torch_function__`` where an argument or a
    mode asks for it (the slow path of every installed wrapper)."""
    if STATE.subclass_off and not _is_torch_function_mode_enabled():
        return func.__wrapped__(*args, **kwargs) if type(func) is _TorchFunction else \
            func(*args, **kwargs)
    relevant = _relevant(args, kwargs)
    if _is_torch_function_mode_enabled() or any(_overrides(type(a)) for a in relevant):
        if type(func) is _TorchFunction:
            c_name = f"torch.{func.__name__}" if func.__module__ == "torch" else None
        else:
            c_name = f"torch.Tensor.{func.__name__}"
        return _handle(func, relevant, args, kwargs, c_name)
    return func.__wrapped__(*args, **kwargs) if type(func) is _TorchFunction else \
        func(*args, **kwargs)


# ---- Tensor's default __torch_function__ -----------------------------------------------------
# results returned as they come, not converted to the subclass (PyTorch's
# get_default_nowrap_functions)
_NOWRAP = frozenset((Tensor.grad.__get__,))


def default_torch_function(cls, func, types, args=(), kwargs=None):
    """``Tensor.__torch_function__``: run ``func`` with dispatch off for subclasses, then give
    each Tensor in the result (and in tuples and lists of it) the class ``cls``."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if func in _NOWRAP:
            return ret
        return _convert(ret, cls)


def _convert(ret, cls):
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return Tensor.as_subclass(ret, cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        if hasattr(ret, "_fields"):  # torch.return_types (named tuples)
            return type(ret)(*items)
        return type(ret)(items)
    return ret


# ---- wrappers on Tensor subclasses -------------------------------------------------------------
# the Tensor method PyTorch names as ``func`` for an operator (``t + 1`` calls add)
_OPERATOR_FUNC = {"__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
                  "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_",
                  "__truediv__": "div", "__itruediv__": "div_", "__mod__": "remainder",
                  "__pow__": "pow", "__neg__": "neg", "__abs__": "abs",
                  "__matmul__": "matmul", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
                  "__ge__": "ge", "__and__": "bitwise_and", "__or__": "bitwise_or",
                  "__xor__": "bitwise_xor", "__invert__": "bitwise_not", "__str__": "__repr__"}
# the name PyTorch's own function for an operator has where it differs from the operator's
_OPERATOR_NAME = {"__rtruediv__": "__rdiv__"}
# dunders that dispatch (others, such as __hash__ or __iter__, do not, or call methods that do)
_DUNDERS = ("__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__",
            "__rmul__", "__imul__", "__truediv__", "__rtruediv__", "__itruediv__",
            "__floordiv__", "__rfloordiv__", "__ifloordiv__", "__mod__", "__rmod__", "__pow__",
            "__rpow__", "__ipow__", "__matmul__", "__rmatmul__", "__neg__", "__pos__",
            "__abs__", "__invert__", "__and__", "__rand__", "__or__", "__ror__", "__xor__",
            "__rxor__", "__lshift__", "__rshift__", "__eq__", "__ne__", "__lt__", "__le__",
            "__gt__", "__ge__", "__getitem__", "__setitem__", "__len__", "__repr__", "__str__",
            "__format__", "__bool__", "__float__", "__int__", "__index__", "__complex__",
            "__contains__", "__array__", "__deepcopy__", "__reduce_ex__", "__reversed__")
_SKIP = frozenset(("as_subclass",))  # (reached through its own dispatch below)
_WRAPPER = "_numtorch_dispatch"  # marks the attributes installed here


def _named(fn, name):
    """``fn`` under PyTorch's name for it (what a logging ``__torch_function__`` prints)."""
    if getattr(fn, "__name__", None) == name:
        return fn

    @functools.wraps(fn)
    def named(*args, **kwargs):
        return fn(*args, **kwargs)
    named.__name__ = named.__qualname__ = name
    return named


# binary operators: a dispatch that fails (TypeError) returns NotImplemented, so that Python
# tries the other operand and then says "unsupported operand type(s)", as PyTorch does
_BINARY = frozenset(n for n in _DUNDERS if n[2:-2].lstrip("ri") in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
    "lshift", "rshift", "lt", "le", "gt", "ge"))


def _method_wrapper(func, name=None):
    if name in _BINARY:
        def method(self, other):
            try:
                return _dispatch(func, (self, other), {})
            except TypeError:
                return NotImplemented
    else:
        def method(self, *args, **kwargs):
            return _dispatch(func, (self,) + args, kwargs)
    method.__name__ = method.__qualname__ = func.__name__
    method.__doc__ = getattr(func, "__doc__", None)
    setattr(method, _WRAPPER, func)
    return method


def _property_wrapper(prop):
    get, put = prop.__get__, prop.__set__

    def getter(self):
        return _dispatch(get, (self,), {})

    def setter(self, value):
        return _dispatch(put, (self, value), {})
    wrapper = property(getter, setter if prop.fset is not None else None, doc=prop.__doc__)
    getter.__dict__[_WRAPPER] = prop
    return wrapper


_API = None


def _tensor_api():
    """name -> wrapper factory input for every dispatching attribute of Tensor (once)."""
    global _API
    if _API is None:
        api = {}
        for name, attr in vars(Tensor).items():
            if name.startswith("_") and name not in _DUNDERS or name in _SKIP:
                continue
            if isinstance(attr, property):
                api[name] = attr
            elif callable(attr) and not isinstance(attr, (type, staticmethod, classmethod)):
                target = _OPERATOR_FUNC.get(name)
                func = getattr(Tensor, target) if target else attr
                api[name] = _named(func, target or _OPERATOR_NAME.get(name, name))
        _API = api
    return _API


def _is_installed(attr):
    if isinstance(attr, property):
        return attr.fget is not None and _WRAPPER in getattr(attr.fget, "__dict__", {})
    return _WRAPPER in getattr(attr, "__dict__", {})


def _subclass_defined(cls):
    """``Tensor.__init_subclass__``: give a subclass that dispatches its wrappers, and switch
    the public functions to dispatching ones."""
    if not _overrides(cls):
        return
    for name, func in _tensor_api().items():
        owner = next(k for k in cls.__mro__ if name in vars(k))
        if owner is not Tensor:
            continue  # the user's own, or a wrapper a base class already has
        if isinstance(func, property):
            setattr(cls, name, _property_wrapper(func))
        else:
            setattr(cls, name, _method_wrapper(func, name))
    enable_dispatch()


# ---- wrappers of the public functions ----------------------------------------------------------
class _TorchFunction:
    """A public function that dispatches: equal to (and hashing as) the function it wraps."""

    def __init__(self, fn):
        self.__dict__.update(getattr(fn, "__dict__", {}))
        self.__wrapped__ = fn
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = getattr(fn, "__module__", None)

    def __call__(self, *args, **kwargs):
        return _dispatch(self, args, kwargs)

    def __eq__(self, other):
        return other is self or other is self.__wrapped__

    def __hash__(self):
        return hash(self.__wrapped__)

    def __repr__(self):
        return f"<function {self.__qualname__} at {id(self):#x}>"

    def __get__(self, obj, owner=None):  # stored on a class, it binds as the function would
        return self if obj is None else functools.partial(self, obj)


_NAMESPACES = ("numtorch", "numtorch.nn.functional", "numtorch.linalg", "numtorch.special",
               "numtorch.fft")
_ENABLED = []


def enable_dispatch():
    """Replace the public functions of torch's namespaces with dispatching wrappers (once).
    The plain path of each then pays one call more; numtorch does it only when something may
    override ``__torch_function__`` (see the module docstring)."""
    if _ENABLED:
        return
    _ENABLED.append(True)
    import importlib
    import types
    for modname in _NAMESPACES:
        module = importlib.import_module(modname)
        public = getattr(module, "__all__", None) or \
            [n for n in vars(module) if not n.startswith("_")]
        for name in public:
            fn = vars(module).get(name)
            if isinstance(fn, types.FunctionType) and fn.__module__.startswith("numtorch") \
                    and not _is_creation(name):
                wrapper = _TorchFunction(fn)
                wrapper.__module__ = "torch" + modname[len("numtorch"):]
                setattr(module, name, wrapper)


# functions without a tensor argument to dispatch on (factories, state, predicates on types)
_NO_DISPATCH = frozenset((
    "tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full", "arange",
    "linspace", "logspace", "eye", "rand", "randn", "randint", "randperm", "normal",
    "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "is_tensor",
    "is_storage", "set_printoptions", "printoptions", "set_default_dtype", "get_default_dtype",
    "is_grad_enabled", "set_grad_enabled", "no_grad", "enable_grad", "inference_mode",
    "is_inference_mode_enabled", "promote_types", "result_type", "can_cast", "set_default_device",
    "get_default_device", "save", "load", "compile", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "set_num_threads", "get_num_threads"))


def _is_creation(name):
    return name in _NO_DISPATCH


# ---- modes -------------------------------------------------------------------------------------
class TorchFunctionMode:
    """A context manager whose ``__torch_function__(func, types, args=(), kwargs=None)`` sees
    every dispatching call made inside its block (its own calls excepted).

    Numtorch installs dispatching wrappers on the public functions and on ``Tensor`` itself
    while a mode is active, and restores the plain methods when the last one exits.
    """

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError()

    def __enter__(self):
        enable_dispatch()
        if not STATE.modes:
            _wrap_tensor_methods()
        STATE.modes.append(self)
        return self

    def __exit__(self, *exc):
        STATE.modes.pop()
        if not STATE.modes:
            _unwrap_tensor_methods()
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs).__enter__()


_SAVED_METHODS = {}


def _wrap_tensor_methods():
    for name, func in _tensor_api().items():
        if name in vars(Tensor):
            _SAVED_METHODS[name] = vars(Tensor)[name]
            setattr(Tensor, name, _property_wrapper(func) if isinstance(func, property)
                    else _method_wrapper(func, name))


def _unwrap_tensor_methods():
    for name, attr in _SAVED_METHODS.items():
        setattr(Tensor, name, attr)
    _SAVED_METHODS.clear()


def _get_current_function_mode():
    return STATE.modes[-1] if STATE.modes else None


def _get_current_function_mode_stack():
    return list(STATE.modes)


class enable_reentrant_dispatch:
    """PyTorch's context manager for re-entering dispatch from ``__torch_dispatch__`` (which
    numtorch does not have): a block that changes nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# ---- introspection -----------------------------------------------------------------------------
def is_tensor_like(inp):
    """Whether ``inp`` is a Tensor or an object whose type defines ``__torch_function__``.

    >>> torch.overrides.is_tensor_like(torch.ones(1)), torch.overrides.is_tensor_like(1)
    (True, False)
    """
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def is_tensor_method_or_property(func):
    """Whether ``func`` is a method or property of ``torch.Tensor``."""
    return any(func is v or isinstance(v, property) and func is v.__get__
               for v in vars(Tensor).values())


def get_ignored_functions():
    """Public functions of torch that take no tensor to dispatch on (factories, state)."""
    import numtorch
    return {getattr(numtorch, n) for n in sorted(_NO_DISPATCH) if hasattr(numtorch, n)}


def get_overridable_functions():
    """``{namespace: [functions]}`` for the functions a ``__torch_function__`` may see: those
    of ``torch``, ``torch.nn.functional``, ``torch.linalg``, ``torch.special``, ``torch.fft``,
    and ``torch.Tensor``'s methods."""
    import importlib
    import types
    out = {}
    for modname in _NAMESPACES:
        module = importlib.import_module(modname)
        fns = []
        for name in sorted(vars(module)):
            fn = vars(module)[name]
            if name.startswith("_") or _is_creation(name):
                continue
            if isinstance(fn, (types.FunctionType, _TorchFunction)):
                fns.append(fn)
        out[module] = fns
    out[Tensor] = [getattr(Tensor, n) for n in sorted(_tensor_api())
                   if not isinstance(vars(Tensor).get(n), property)]
    return out


def wrap_torch_function(dispatcher):
    """Decorator making a Python function dispatch on the arguments ``dispatcher(*args,
    **kwargs)`` returns, as PyTorch's ``torch.overrides.wrap_torch_function``."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner
