"""``torch.__config__``: what numtorch runs on, in the layout of PyTorch's build reports.

PyTorch reports its C++ build (compiler, MKL, oneDNN, OpenMP); numtorch has none of those:
it computes with NumPy, so these say which NumPy and BLAS, and the thread counts it keeps.

>>> print(show().splitlines()[0])
numtorch built with:
"""
import os
import platform

import numpy as np

__all__ = ["show", "parallel_info"]


def _blas():
    """NumPy's BLAS as its build configuration names it (name and version), or 'unknown'."""
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except Exception:  # (NumPy before 1.25 prints its configuration only)
        return "unknown"
    return " ".join(str(blas[k]) for k in ("name", "version") if blas.get(k))


def show():
    """A human-readable description of what numtorch computes with (PyTorch's lists its
    build configuration)."""
    from .version import __version__
    return ("numtorch built with:\n"
            f"  - Python {platform.python_version()}\n"
            f"  - NumPy {np.__version__}\n"
            f"  - BLAS: {_blas()} (NumPy's)\n"
            "  - No MKL, MKL-DNN (oneDNN), OpenMP, CUDA or other native backends\n"
            f"  - Build settings: BLAS_INFO={_blas().split(' ')[0]}, "
            f"TORCH_VERSION={__version__}, USE_CUDA=0, USE_CUDNN=OFF, USE_MKL=OFF, "
            "USE_MKLDNN=OFF, USE_OPENMP=OFF, \n")


def parallel_info():
    """The thread settings, in the layout of PyTorch's ``parallel_info``."""
    from . import get_num_interop_threads, get_num_threads
    env = "".join(f"\t{name} : {os.environ.get(name, '[not set]')}\n"
                  for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"))
    return ("ATen/Parallel:\n"
            f"\tat::get_num_threads() : {get_num_threads()}\n"
            f"\tat::get_num_interop_threads() : {get_num_interop_threads()}\n"
            f"NumPy {np.__version__} (BLAS: {_blas()})\n"
            f"std::thread::hardware_concurrency() : {os.cpu_count()}\n"
            "Environment variables:\n" + env +
            "ATen parallel backend: none (numtorch computes with NumPy)\n")


def _cxx_flags():
    """PyTorch's C++ compiler flags: numtorch compiles nothing."""
    return ""
