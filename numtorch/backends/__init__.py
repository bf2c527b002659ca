"""``torch.backends``: flags scripts commonly read or set (numtorch has no GPU backends)."""
import types

__all__ = ["cudnn", "mps", "cuda", "mkldnn", "openmp"]


def _flags(**attrs):
    ns = types.SimpleNamespace(**attrs)
    return ns


cudnn = _flags(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
               is_available=lambda: False, version=lambda: None)
mps = _flags(is_available=lambda: False, is_built=lambda: False)
cuda = _flags(is_built=lambda: False,
              matmul=_flags(allow_tf32=False, allow_fp16_reduced_precision_reduction=True))
mkldnn = _flags(enabled=False, is_available=lambda: False)
openmp = _flags(is_available=lambda: False)
