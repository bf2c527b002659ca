"""Lazy submodules of ``numtorch`` and the error for names numtorch does not provide."""
import importlib

_SUBMODULES = ("nn", "optim", "func", "linalg", "fft", "special", "testing", "cuda", "backends",
               "distributions", "jit", "hub", "onnx", "mps", "amp", "overrides", "types",
               "library", "serialization", "storage", "multiprocessing", "distributed",
               "profiler", "export", "sparse", "masked", "signal", "random", "version",
               "accelerator", "_C", "__config__")


class NotProvidedError(AttributeError, NotImplementedError):
    """A torch name numtorch lacks: an AttributeError (so ``hasattr`` works) that is also a
    NotImplementedError."""


# torch.X that PyTorch binds to the very function torch.nn.functional.X is (loaded with
# nn.functional on first use, so that ``import numtorch`` does not load nn)
_FUNCTIONAL_ALIASES = frozenset((
    "adaptive_avg_pool1d", "avg_pool1d", "bilinear", "channel_shuffle", "conv1d", "conv2d",
    "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_similarity",
    "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle"))


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
        if name == "vmap":  # torch.vmap is torch.func.vmap; loaded with func, on first use
            return importlib.import_module(f"{pkg}.func").vmap
        if name in _FUNCTIONAL_ALIASES:  # the same object as in nn.functional, as in PyTorch
            value = getattr(importlib.import_module(f"{pkg}.nn.functional"), name)
            namespace[name] = value
            return value
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


# PyTorch 2.13's public Tensor attributes that numtorch does not provide (yet). Each becomes a
# class attribute that raises NotProvidedError when read, so that the Tensor class needs no
# ``__getattr__``: with one, CPython (3.11-3.13) cannot specialise any attribute load on a
# Tensor (``t._data`` on every hot path). Other unknown names raise PyTorch's own
# AttributeError. tests/test_op_library.py checks this list against the installed PyTorch.
TENSOR_NOT_PROVIDED = (
    "bfloat16", "ccol_indices", "chalf", "coalesce", "col_indices",
    "const_data_ptr", "crow_indices", "dense_dim", "dequantize", "eig", "grad_dtype",
    "hash_tensor", "index", "indices", "int_repr", "ipu", "is_coalesced", "lstsq", "map2_",
    "map_", "module_load", "mtia", "name", "q_per_channel_axis", "q_per_channel_scales",
    "q_per_channel_zero_points", "q_scale", "q_zero_point", "qscheme", "record_stream",
    "reinforce", "resize", "resize_as", "resize_as_sparse_", "row_indices",
    "slice_inverse", "smm", "solve", "sparse_dim", "sparse_mask", "sparse_resize_",
    "sparse_resize_and_clear_", "sspaddmm", "storage_type", "symeig", "to_dense", "to_mkldnn",
    "to_padded_tensor", "to_sparse", "to_sparse_bsc", "to_sparse_bsr", "to_sparse_coo",
    "to_sparse_csc", "to_sparse_csr", "values", "volatile", "xpu")


class _NotProvided:
    """A Tensor class attribute for a PyTorch name numtorch lacks: reading it (on a tensor or
    on the class) raises NotProvidedError naming the nearest name numtorch has. A value a
    user sets on a tensor under that name shadows it, as any attribute would."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        owner = owner if owner is not None else type(obj)
        names = [n for n in dir(owner) if not isinstance(_static(owner, n), _NotProvided)]
        raise NotProvidedError(f"numtorch does not provide Tensor.{self.name} (yet)"
                               + _nearest(self.name, names, "Tensor."))


def _static(cls, name):
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


def install_tensor_stubs(tensor_cls):
    """Give ``tensor_cls`` a raising attribute for every name of TENSOR_NOT_PROVIDED that it
    does not define (call once every method is installed)."""
    for name in TENSOR_NOT_PROVIDED:
        if _static(tensor_cls, name) is None:
            setattr(tensor_cls, name, _NotProvided(name))
