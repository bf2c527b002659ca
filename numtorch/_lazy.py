"""Lazy submodules of ``numtorch`` and the error for names numtorch does not provide."""
import importlib

_SUBMODULES = ("nn", "optim", "func", "linalg", "fft", "special", "testing", "cuda", "backends",
               "distributions", "jit", "hub", "onnx", "mps", "amp", "overrides", "types",
               "library", "serialization", "storage", "multiprocessing", "distributed",
               "profiler", "export", "sparse", "masked", "signal", "random", "version")


class NotProvidedError(AttributeError, NotImplementedError):
    """A torch name numtorch lacks: an AttributeError (so ``hasattr`` works) that is also a
    NotImplementedError."""


def install(namespace):
    """Give the package a module ``__getattr__`` loading submodules on first use."""
    pkg = namespace["__name__"]

    def __getattr__(name):
        if name in _SUBMODULES:
            try:
                return importlib.import_module(f"{pkg}.{name}")
            except ModuleNotFoundError as e:
                if e.name != f"{pkg}.{name}":
                    raise
                raise NotProvidedError(f"numtorch does not provide torch.{name} (yet)") from None
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotProvidedError(f"numtorch does not provide torch.{name} (yet)"
                               + _nearest(name, namespace, "torch."))

    namespace["__getattr__"] = __getattr__


def _nearest(name, names, prefix):
    """'; the nearest supported: torch.x' for the public name most like ``name``, or ''."""
    import difflib
    public = [n for n in names if not n.startswith("_")]
    close = difflib.get_close_matches(name, public, n=1, cutoff=0.6)
    return f"; the nearest supported: {prefix}{close[0]}" if close else ""


def tensor_getattr(self, name):
    """``Tensor.__getattr__``: a missing public method is a NotProvidedError (an AttributeError
    and a NotImplementedError) naming the nearest method numtorch has."""
    if name.startswith("_"):
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")
    raise NotProvidedError(f"numtorch does not provide Tensor.{name} (yet)"
                           + _nearest(name, dir(type(self)), "Tensor."))
