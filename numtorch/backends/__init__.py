"""``torch.backends``: flags scripts commonly read or set (numtorch has no GPU backends)."""
import types

__all__ = ["cudnn", "mps", "cuda", "mkldnn", "openmp", "mkl", "cpu", "nnpack", "opt_einsum",
           "mha"]


def _flags(**attrs):
    ns = types.SimpleNamespace(**attrs)
    return ns


cudnn = _flags(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
               benchmark_limit=10, fp32_precision="none", is_available=lambda: False,
               version=lambda: None, is_acceptable=lambda tensor: False)
mps = _flags(is_available=lambda: False, is_built=lambda: False)
_MATMUL = {"precision": "highest"}  # torch.get/set_float32_matmul_precision's setting


class _CudaMatmulFlags:
    """``torch.backends.cuda.matmul``: ``allow_tf32`` is the float32 matmul precision seen
    from the other side, as in PyTorch ("highest" is False; setting True makes it "high")."""

    def __init__(self):
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        return _MATMUL["precision"] != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        _MATMUL["precision"] = "high" if value else "highest"


cuda = _flags(is_built=lambda: False, matmul=_CudaMatmulFlags())
# numtorch has no MKL-DNN, MKL, OpenMP or NNPACK (it computes with NumPy): the flags exist for
# scripts that read or set them, and is_available() says so
mkldnn = _flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none",
                is_available=lambda: False)
openmp = _flags(is_available=lambda: False)
mkl = _flags(is_available=lambda: False, VERBOSE_OFF=0, VERBOSE_ON=1)
nnpack = _flags(is_available=lambda: False)
# (ATen's vectorised CPU kernels: numtorch has none of its own)
cpu = _flags(get_cpu_capability=lambda: "DEFAULT")
opt_einsum = _flags(enabled=False, strategy=None, is_available=lambda: False)


_MHA = {"fastpath": True}


def _get_fastpath_enabled():
    """Whether TransformerEncoder may take PyTorch's nested-tensor path (on by default)."""
    return _MHA["fastpath"]


def _set_fastpath_enabled(value):
    """Turn PyTorch's MultiheadAttention/Transformer inference fast path on or off."""
    _MHA["fastpath"] = bool(value)


mha = _flags(get_fastpath_enabled=_get_fastpath_enabled,
             set_fastpath_enabled=_set_fastpath_enabled)
