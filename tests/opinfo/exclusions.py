"""OpInfo entries outside numtorch's scope, each family with the reason (reviewed list).

Everything in ``op_db`` not matched here is in scope and counted in COVERAGE.md.
"""

# (predicate description, reason); ``excluded(name)`` checks them in order
FAMILIES = (
    ("private `_`-prefixed names",
     "internal ATen kernels (e.g. _softmax_backward_data, _native_batch_norm_legit), not "
     "public torch API"),
    ("`jiterator_*`",
     "CUDA-only kernels compiled at run time by torch.cuda.jiterator"),
    ("`torch.ops.aten.*` and ATen-only ops (`slice`, `native_dropout_backward`, "
     "`max_pool2d_with_indices_backward`)",
     "raw ATen operator overloads with no public torch.* function (the attention ones are "
     "CUDA kernels)"),
    ("`torch._scaled_mm*`",
     "private FP8 matmul, CUDA-only"),
    ("`sparse.*`, `to_sparse`",
     "sparse layouts (COO/CSR); numtorch tensors are dense (strided) only"),
    ("`masked.*`",
     "torch.masked is a prototype namespace built around MaskedTensor and sparse masks"),
    ("`bfloat16`, `chalf`",
     "dtypes NumPy cannot represent (bfloat16, complex32)"),
    ("`hash_tensor`",
     "returns torch.uint64, one of PyTorch's 'limited support' unsigned dtypes (no arithmetic "
     "or promotion on CPU) that numtorch does not model; the hash itself (xor of the 64-bit "
     "patterns of the values upcast to float64/int64) would be plain NumPy"),
)

_ATEN_ONLY = {"slice", "native_dropout_backward", "max_pool2d_with_indices_backward"}
_NUMPY_LACKS = {"bfloat16", "chalf"}


def excluded(name):
    """The reason ``name`` (an OpInfo name) is out of scope, or None when it is in scope."""
    if name.startswith("_") and not name.startswith("__"):
        return FAMILIES[0][1]
    if name.startswith("jiterator_"):
        return FAMILIES[1][1]
    if name.startswith("torch.ops.aten.") or name in _ATEN_ONLY:
        return FAMILIES[2][1]
    if name.startswith("torch._scaled_mm"):
        return FAMILIES[3][1]
    if name.startswith("sparse.") or name == "to_sparse":
        return FAMILIES[4][1]
    if name.startswith("masked."):
        return FAMILIES[5][1]
    if name in _NUMPY_LACKS:
        return FAMILIES[6][1]
    if name == "hash_tensor":
        return FAMILIES[7][1]
    return None
