"""``torch.backends``: flags scripts commonly read or set (numtorch has no GPU backends)."""
import types

__all__ = ["cudnn", "mps", "cuda", "mkldnn", "openmp"]


def _flags(**attrs):
    ns = types.SimpleNamespace(**attrs)
    return ns


cudnn = _flags(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
               is_available=lambda: False, version=lambda: None)
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
mkldnn = _flags(enabled=False, is_available=lambda: False)
openmp = _flags(is_available=lambda: False)
