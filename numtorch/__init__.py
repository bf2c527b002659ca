"""numtorch: PyTorch's tensors and autograd in plain Python on NumPy.

Import it as ``torch`` (``import numtorch as torch``) or run a PyTorch script unchanged with
``numtorch run script.py``.

>>> import numtorch as torch
>>> x = torch.tensor([3.0], requires_grad=True)
>>> (x * x).backward(); x.grad
tensor([6.])
"""
import builtins as _builtins
import math as _math
import types as _types

import numpy as _np

# NOTE: PyTorch computes 1/0, log(0), overflow ... silently (inf/nan); so does numtorch.
_np.seterr(all="ignore")

from ._allocator import tune_malloc as _tune_malloc  # noqa: E402

_tune_malloc()

from .version import __version__  # noqa: E402  (a TorchVersion, as PyTorch's)

from ._dtype import (dtype, get_default_dtype, set_default_dtype, promote_types,  # noqa: E402
                     uint8, int8, int16, int32, int64, float16, float32, float64, complex64,
                     complex128, finfo, iinfo)
from ._dtype import bool_ as bool  # noqa: E402
from ._size import Size  # noqa: E402
from ._device import (device, layout, strided, sparse_coo, memory_format,  # noqa: E402
                      contiguous_format, preserve_format, channels_last,
                      channels_last_3d)
from ._tensor import Tensor  # noqa: E402
from .storage import TypedStorage, UntypedStorage  # noqa: E402
from . import ops as _ops  # noqa: E402
from .ops import elementwise as _E, reduction as _R, shape as _S, indexing as _I  # noqa: E402
from .ops import linalg as _L, return_types  # noqa: E402
from . import _creation, _random, _threads  # noqa: E402
from ._creation import (tensor, as_tensor, asarray, from_numpy, zeros, ones, empty, full,  # noqa
                        zeros_like, ones_like, empty_like, full_like, arange, linspace,
                        logspace, eye, rand, randn, randint, randperm, rand_like, randn_like,
                        randint_like, normal, bernoulli, multinomial, poisson)
from ._creation import range_ as range  # noqa: E402
from ._random_factories import (_standard_gamma, _standard_gamma_grad,  # noqa: E402
                                _sample_dirichlet, binomial)
from ._random import (Generator, manual_seed, seed, initial_seed, get_rng_state,  # noqa: E402
                      set_rng_state, default_generator)
from ._tensor_str import set_printoptions  # noqa: E402  (printoptions: torch._tensor_str only)
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled,  # noqa: E402
                                 inference_mode, is_grad_enabled, is_inference_mode_enabled)
from . import autograd  # noqa: E402
from .autograd.anomaly_mode import (is_anomaly_enabled, is_anomaly_check_nan_enabled,  # noqa
                                    set_anomaly_enabled)


def _export(module):
    g = globals()
    for name, value in vars(module).items():
        if name.startswith("_") or name in g and name not in ("abs", "all", "any", "max",
                                                              "min", "sum", "pow", "round"):
            continue
        if isinstance(value, _types.FunctionType) and value.__module__ == module.__name__:
            g[name] = value


from .ops import sorting as _SO, misc as _MI, special_ops as _SP, complex_ops as _CX  # noqa
from .ops import scatter_ops as _SC, spectral as _SF, linalg_extra as _LX  # noqa: E402

for _m in (_E, _R, _S, _I, _L, _SO, _MI, _SP, _CX, _SC, _SF, _LX):
    _export(_m)
del _m

double, half, float, long, short, cfloat, cdouble = (float64, float16, float32, int64,
                                                     int16, complex64, complex128)
int = int32
cfloat = complex64
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
from ._legacy_types import (FloatTensor, DoubleTensor, HalfTensor, LongTensor,  # noqa: E402
                            IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor)


def is_tensor(obj):
    """True when ``obj`` is a Tensor."""
    return isinstance(obj, Tensor)


def is_storage(obj):
    """True when ``obj`` is a storage (``Tensor.untyped_storage()``, ``Tensor.storage()``)."""
    return isinstance(obj, (TypedStorage, UntypedStorage))


def numel(input):
    return input.numel()


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def is_nonzero(input):
    """Whether the single element of ``input`` is nonzero (``Tensor.is_nonzero``)."""
    return Tensor.is_nonzero(_tensor_argument(input, "is_nonzero", "input", 1))


def is_same_size(input, other):
    """Whether two tensors have the same shape (``Tensor.is_same_size``)."""
    _tensor_argument(input, "is_same_size", "input", 1)
    return input.is_same_size(_tensor_argument(other, "is_same_size", "other", 2))


def is_signed(input):
    """Whether ``input``'s dtype is signed (``Tensor.is_signed``)."""
    return _tensor_argument(input, "is_signed", "input", 1).is_signed()


def is_distributed(input):
    """Always False (``Tensor.is_distributed``)."""
    return _tensor_argument(input, "is_distributed", "input", 1).is_distributed()


def _tensor_argument(value, op, name, position):
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")
    return value


def result_type(tensor1, tensor2):
    return _dtype.result_type(tensor1, tensor2)


def can_cast(from_, to):
    """Whether PyTorch allows casting ``from_`` to ``to`` in an in-place op."""
    return from_.category <= to.category


def get_default_device():
    return device("cpu")


def set_default_device(dev):
    from ._device import check_device
    check_device(dev)


_DETERMINISTIC = {"mode": False, "warn_only": False, "warned_tensor_type": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Record the flag that scripts set and read back: numtorch's ops are deterministic
    whatever it says (PyTorch's checks and messages on its arguments)."""
    if not isinstance(mode, _builtins.bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must "
                        f"be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, _builtins.bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _DETERMINISTIC["mode"], _DETERMINISTIC["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled():
    """What ``use_deterministic_algorithms`` set last (False at start, as in PyTorch)."""
    return _DETERMINISTIC["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    return _DETERMINISTIC["warn_only"]


def get_deterministic_debug_mode():
    """0 (off), 1 (warn only) or 2 (error), from ``use_deterministic_algorithms``."""
    return 0 if not _DETERMINISTIC["mode"] else 1 if _DETERMINISTIC["warn_only"] else 2


def set_default_tensor_type(t, /):
    """Deprecated spelling of ``set_default_dtype`` taking a legacy type
    (``torch.DoubleTensor``) or its name; warns once, as PyTorch does.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     set_default_tensor_type("torch.DoubleTensor")
    >>> get_default_dtype()
    torch.float64
    >>> set_default_dtype(float32)
    """
    import importlib
    import warnings
    from ._legacy_types import tensortype
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        module = "numtorch" + module[len("torch"):] if module.split(".")[0] == "torch" else module
        t = getattr(importlib.import_module(module), name)
    if not isinstance(t, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if t.is_cuda:
        t()  # raises PyTorch's "type torch.cuda.X not available" TypeError
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    set_default_dtype(t.dtype)
    if not _DETERMINISTIC["warned_tensor_type"]:  # TORCH_WARN_ONCE
        _DETERMINISTIC["warned_tensor_type"] = True
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                      "use torch.set_default_dtype() and torch.set_default_device() as "
                      "alternatives. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/"
                      "tensor/python_tensor.cpp:434.)", UserWarning, stacklevel=2)


def get_float32_matmul_precision():
    """'highest' (the default), 'high' or 'medium': recorded, as numtorch's float32 matmuls
    always run at full precision (as PyTorch's do on CPU)."""
    from .backends import _MATMUL
    return _MATMUL["precision"]


def set_float32_matmul_precision(precision):
    from .backends import _MATMUL
    import warnings
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)", UserWarning,
                      stacklevel=2)
        return
    _MATMUL["precision"] = precision


def get_num_interop_threads():
    """PyTorch's inter-op thread count, kept as a number (numtorch runs no thread pool)."""
    return _threads.get_num_interop_threads()


def set_num_interop_threads(n):
    _threads.set_num_interop_threads(n)


def set_num_threads(n):
    """PyTorch's intra-op thread count, kept as a number: NumPy's BLAS decides its own
    threads, but kernels whose rounding depends on PyTorch's count read it."""
    _threads.set_num_threads(n)


def get_num_threads():
    return _threads.get_num_threads()


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None,
            name=None, disable=False, recompile_limit=None, isolate_recompiles=False,
            shapes_spec=None):
    """numtorch has no compiler: a Module comes back wrapped in an ``OptimizedModule``, as
    PyTorch returns it (see numtorch._dynamo.eval_frame), a function as a function of the
    same name; without a model, a decorator that does the same. Outputs that need a gradient
    come from one ``CompiledFunctionBackward`` node, as PyTorch's."""
    if model is None:
        def decorate(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, mode=mode, options=options, backend=backend)
        return decorate
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    from .nn.modules.module import Module
    from ._dynamo.eval_frame import OptimizedModule, compile_function, uses_compiled_node
    node = uses_compiled_node(backend)
    if isinstance(model, Module):
        return OptimizedModule(model, compiled_node=node)
    return compile_function(model, node)


# ---- torch-level normalisation functions (PyTorch exposes them beside torch.nn.functional) -
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """``torch.nn.functional.layer_norm`` (``cudnn_enable`` is accepted and ignored)."""
    from .nn import functional as F
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``torch.nn.functional.group_norm`` (``cudnn_enabled`` is accepted and ignored)."""
    from .nn import functional as F
    return F.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``torch.nn.functional.rms_norm``."""
    from .nn import functional as F
    return F.rms_norm(input, normalized_shape, weight, eps)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """Layer norm returning (out, mean, rstd).

    >>> native_layer_norm(tensor([[1.0, 3.0]]), [2], None, None, 0.0)[2]
    tensor([[1.]])
    """
    from .nn import functional as F
    return F._native_layer_norm(input, normalized_shape, weight, bias, eps)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Batch norm returning (out, save_mean, save_invstd) (empty statistics when evaluating)."""
    from .nn import functional as F
    return F._native_batch_norm(input, weight, bias, running_mean, running_var, training,
                                momentum, eps)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """Group norm of (N, C, HxW...) returning (out, mean, rstd), statistics (N, group)."""
    from .nn import functional as F
    return F._native_group_norm(input, weight, bias, N, C, HxW, group, eps)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``F.grid_sample`` with ATen's mode numbers (0 bilinear / zeros, 1 nearest / border,
    2 bicubic / reflection), for 4-D or 5-D input."""
    from .nn import functional as F
    return F._grid_sampler("grid_sampler", None, input, grid, interpolation_mode,
                           padding_mode, align_corners)


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """:func:`grid_sampler` of a 4-D (N, C, H, W) input.

    >>> grid_sampler_2d(arange(4.).reshape(1, 1, 2, 2), zeros(1, 1, 1, 2), 0, 0, False)
    tensor([[[[1.5000]]]])
    """
    from .nn import functional as F
    return F._grid_sampler("grid_sampler_2d", 2, input, grid, interpolation_mode,
                           padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """:func:`grid_sampler` of a 5-D (N, C, D, H, W) input (no bicubic mode)."""
    from .nn import functional as F
    return F._grid_sampler("grid_sampler_3d", 3, input, grid, interpolation_mode,
                           padding_mode, align_corners)


# ---- torch-level activations (PyTorch exposes these beside torch.nn.functional) -----------
def relu_(input):
    """``input.relu_()``.

    >>> relu_(tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    return input.relu_()


def sigmoid_(input):
    """``input.sigmoid_()``."""
    return input.sigmoid_()


def tanh_(input):
    """``input.tanh_()``."""
    return input.tanh_()


def selu(input):
    """``torch.nn.functional.selu``."""
    from .nn import functional as F
    return F.selu(input)


def selu_(input):
    """``torch.nn.functional.selu_``."""
    from .nn import functional as F
    return F.selu_(input)


def celu(input, alpha=1.0):
    """``torch.nn.functional.celu``."""
    from .nn import functional as F
    return F.celu(input, alpha)


def celu_(input, alpha=1.0):
    """``torch.nn.functional.celu_``."""
    from .nn import functional as F
    return F.celu_(input, alpha)


def threshold(input, threshold, value):
    """``torch.nn.functional.threshold``.

    >>> threshold(tensor([0.5, 2.0]), 1.0, -1.0)
    tensor([-1.,  2.])
    """
    from .nn import functional as F
    return F.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """``torch.nn.functional.threshold_``."""
    from .nn import functional as F
    return F.threshold_(input, threshold, value)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``torch.nn.functional.rrelu``, drawing the slopes from ``generator``."""
    from .nn import functional as F
    return F._rrelu(input, lower, upper, training, False, generator)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``torch.nn.functional.rrelu_``, drawing the slopes from ``generator``."""
    from .nn import functional as F
    return F._rrelu(input, lower, upper, training, True, generator)


def prelu(input, weight):
    """``torch.nn.functional.prelu``."""
    from .nn import functional as F
    return F.prelu(input, weight)


def hardshrink(input, lambd=0.5):
    """``torch.nn.functional.hardshrink``."""
    from .nn import functional as F
    return F.hardshrink(input, lambd)


# torch.sin_(t), torch.clamp_(t, ...): PyTorch's torch-level spellings of in-place methods
_INPLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_",
    "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_", "deg2rad_",
    "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_",
    "gcd_", "i0_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_",
    "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "round_", "rsqrt_", "sin_",
    "sinc_", "sinh_", "sqrt_", "square_", "tan_", "trunc_", "xlogy_")


def _inplace_function(name):
    method = getattr(Tensor, name)

    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return method(input, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.{name}(input, ...)``: ``input.{name}(...)``, in place."
    return fn


for _name in _INPLACE_FUNCTIONS:
    if _name not in globals() and hasattr(Tensor, _name):
        globals()[_name] = _inplace_function(_name)
del _name


def is_autocast_enabled(device_type=None):
    """Whether autocast is on: never in numtorch (see numtorch.amp)."""
    return False


def typename(obj):
    """A readable name of ``obj``'s kind: a tensor's type string, else the qualified name of
    ``obj`` (a class or function) or of its class, without a ``builtins.`` prefix.

    >>> typename(3), typename(len)
    ('int', 'len')
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if not isinstance(qualname, str):  # an instance: name its class
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


# torch-level spellings of nn ops with ATen's signatures, windows, and smaller functions
from .ops.aten_nn import (dropout, dropout_, alpha_dropout, alpha_dropout_,  # noqa: E402
                          feature_dropout, feature_dropout_, feature_alpha_dropout,
                          feature_alpha_dropout_, native_dropout, batch_norm, instance_norm,
                          embedding, embedding_bag, embedding_renorm_, max_pool1d, max_pool2d,
                          max_pool3d, max_pool1d_with_indices, adaptive_max_pool1d,
                          convolution, kl_div, binary_cross_entropy_with_logits,
                          cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss,
                          triplet_margin_loss, poisson_nll_loss, ctc_loss, lstm_cell,
                          gru_cell, rnn_tanh_cell, rnn_relu_cell, native_channel_shuffle)
from .ops.windows import (hann_window, hamming_window, blackman_window,  # noqa: E402
                          bartlett_window, kaiser_window)
from .ops.torch_misc import (detach, is_inference, is_conj, is_neg, get_device,  # noqa: E402
                             frombuffer, from_dlpack, to_dlpack, set_warn_always,
                             is_warn_always_enabled, set_flush_denormal, sym_not, sym_float,
                             sym_int, sym_max, sym_min, sym_sum, sym_sqrt, sym_ite, solve,
                             lstsq, eig, symeig, matrix_rank, select_copy, slice_copy,
                             split_copy, detach_copy, values_copy, indices_copy,
                             view_as_real_copy, view_as_complex_copy, unsafe_split_with_sizes,
                             frobenius_norm, nuclear_norm, norm_except_dim)
from . import _dtype  # noqa: E402,F401
from . import utils  # noqa: E402,F401
# torch.save / torch.load in PyTorch's file format
from .serialization import save, load  # noqa: E402
from .amp.autocast_mode import autocast  # noqa: E402  (torch.autocast is torch.amp.autocast)
from ._lazy import install as _install_lazy  # noqa: E402
from .ops._numpy_names import install as _install_numpy_names  # noqa: E402

_install_numpy_names(globals(), Tensor)  # axis= / keepdims= as PyTorch accepts them
_install_lazy(globals())
