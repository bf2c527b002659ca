"""Grad mode: whether ops record a graph. Per thread, as in PyTorch.

>>> import numtorch as torch
>>> x = torch.ones(2, requires_grad=True)
>>> with torch.no_grad():
...     (x * 2).requires_grad
False
"""
import functools
import inspect
import sys
import threading
import warnings

from .._naming import use_torch_names

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "set_multithreading_enabled",
           "is_multithreading_enabled"]


class _State(threading.local):
    def __init__(self):
        self.enabled = True  # whether ops record (what the hot paths read)
        self.inference = False
        # grad mode as set, shown by is_grad_enabled: inside inference_mode, enable_grad
        # turns it on without recording (inference mode wins, as in PyTorch)
        self.requested = True
        self.multithreading = True


STATE = _State()
# How many inference_mode(True) blocks are open, in all threads. While none is,
# ``Tensor._make`` knows that no thread is in inference mode without reading the
# thread-local STATE (a slower lookup than a module global, on every tensor made).
INFERENCE_BLOCKS = [0]
_blocks_lock = threading.Lock()


def _count_inference_block(n):
    with _blocks_lock:
        INFERENCE_BLOCKS[0] += n


def is_grad_enabled():
    """True when grad mode is on in this thread (ops then record the graph for backward,
    except inside ``inference_mode``)."""
    return STATE.requested if STATE.inference else STATE.enabled


def _set_grad(mode):
    """Set grad mode; inside inference mode ops still record nothing."""
    STATE.requested = mode
    STATE.enabled = mode and not STATE.inference


def is_inference_mode_enabled():
    return STATE.inference


class _DecoratorContextManager:
    """A context manager that also works as a function decorator (with or without parens).

    A decorated generator function runs each of its steps inside the context, as PyTorch's
    does (the caller's code between steps runs outside it)."""

    def __call__(self, func):
        if isinstance(func, type):
            warnings.warn("Decorating classes is deprecated and will be disabled in future "
                          "versions. You should only decorate functions or methods. To "
                          "preserve the current behavior of class decoration, you can "
                          "directly decorate the `__init__` method and nothing else.",
                          FutureWarning, stacklevel=2)
            cls = func
            func = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731
        if inspect.isgeneratorfunction(func):
            return _wrap_generator(self.clone, func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


def _wrap_generator(make_ctx, func):
    """``func``'s generators with every resumption (send, throw, close) inside a fresh
    context from ``make_ctx``."""
    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with make_ctx():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_ctx():
                        gen.close()
                    raise
                except BaseException:
                    with make_ctx():
                        response = gen.throw(*sys.exc_info())
                else:
                    with make_ctx():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value
    return generator_context


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Lets ``@no_grad`` be used without parentheses, as PyTorch allows."""

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if orig_func is None:
            return self
        self.__init__()
        return self(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disable gradient recording inside the block (or the decorated function)."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = STATE.enabled, STATE.requested
        STATE.enabled = STATE.requested = False

    def __exit__(self, *exc):
        STATE.enabled, STATE.requested = self.prev


class enable_grad(_NoParamDecoratorContextManager):
    """Enable gradient recording inside the block, even within ``no_grad``."""

    def __init__(self):
        self.prev = True

    def __enter__(self):
        self.prev = STATE.enabled, STATE.requested
        _set_grad(True)

    def __exit__(self, *exc):
        STATE.enabled, STATE.requested = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode``; takes effect at once, and as a context manager restores it."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be "
                            f"bool, not {type(mode).__name__}")
        self.prev = STATE.enabled, STATE.requested
        self.mode = mode
        _set_grad(mode)

    def __call__(self, func):
        STATE.enabled, STATE.requested = self.prev
        return super().__call__(func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        STATE.enabled, STATE.requested = self.prev

    def clone(self):
        return type(self)(self.mode)

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad`` (numtorch has no separate inference tensors)."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            self = super().__new__(cls)
            self.__init__(True)
            return self(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = mode
        self.prev = (True, False)

    def __enter__(self):
        self.prev = (STATE.enabled, STATE.inference, STATE.requested)
        if self.mode:
            _count_inference_block(1)
            STATE.enabled, STATE.inference, STATE.requested = False, True, False
        else:
            # NOTE: PyTorch's InferenceMode(false) also turns grad mode on (even in no_grad)
            STATE.enabled, STATE.inference, STATE.requested = True, False, True

    def __exit__(self, *exc):
        STATE.enabled, STATE.inference, STATE.requested = self.prev
        if self.mode:
            _count_inference_block(-1)

    def clone(self):
        return type(self)(self.mode)


def is_multithreading_enabled():
    """Whether backward may run on device worker threads (numtorch always runs it on the
    calling thread; the flag is kept for scripts that set and read it)."""
    return STATE.multithreading


class set_multithreading_enabled(_DecoratorContextManager):
    """Set whether backward may use worker threads; takes effect at once, and as a context
    manager restores the previous setting (numtorch's backward is single-threaded anyway)."""

    def __init__(self, mode):
        self.prev = STATE.multithreading
        STATE.multithreading = mode
        self.mode = mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        STATE.multithreading = self.prev

    def clone(self):
        return type(self)(self.mode)


# PyTorch keeps the decorator bases in torch.utils._contextlib (names only shown by __mro__)
use_torch_names(globals(), {_DecoratorContextManager: "numtorch.utils._contextlib",
                            _NoParamDecoratorContextManager: "numtorch.utils._contextlib"})
