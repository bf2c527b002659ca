"""Grad mode: whether ops record a graph. Per thread, as in PyTorch.

>>> import numtorch as torch
>>> x = torch.ones(2, requires_grad=True)
>>> with torch.no_grad():
...     (x * 2).requires_grad
False
"""
import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


class _State(threading.local):
    def __init__(self):
        self.enabled = True
        self.inference = False


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
    """True when operations record the graph for backward in this thread."""
    return STATE.enabled


def is_inference_mode_enabled():
    return STATE.inference


class _DecoratorContextManager:
    """A context manager that also works as a function decorator (with or without parens)."""

    def __call__(self, func):
        if isinstance(func, type):
            raise RuntimeError(f"{type(self).__name__} cannot decorate a class")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


class _NoParamDecorator(_DecoratorContextManager):
    """Lets ``@no_grad`` be used without parentheses, as PyTorch allows."""

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if orig_func is None:
            return self
        self.__init__()
        return self(orig_func)


class no_grad(_NoParamDecorator):
    """Disable gradient recording inside the block (or the decorated function)."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = STATE.enabled
        STATE.enabled = False

    def __exit__(self, *exc):
        STATE.enabled = self.prev


class enable_grad(_NoParamDecorator):
    """Enable gradient recording inside the block, even within ``no_grad``."""

    def __init__(self):
        self.prev = True

    def __enter__(self):
        self.prev = STATE.enabled
        STATE.enabled = True

    def __exit__(self, *exc):
        STATE.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode``; takes effect at once, and as a context manager restores it."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be "
                            f"bool, not {type(mode).__name__}")
        self.prev = STATE.enabled
        self.mode = mode
        STATE.enabled = mode

    def __call__(self, func):
        STATE.enabled = self.prev
        return super().__call__(func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        STATE.enabled = self.prev

    def clone(self):
        return type(self)(self.mode)


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
        self.prev = (STATE.enabled, STATE.inference)
        if self.mode:
            _count_inference_block(1)
            STATE.enabled, STATE.inference = False, True
        else:
            STATE.inference = False

    def __exit__(self, *exc):
        STATE.enabled, STATE.inference = self.prev
        if self.mode:
            _count_inference_block(-1)

    def clone(self):
        return type(self)(self.mode)
