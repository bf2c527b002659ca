"""Keep glibc's malloc from handing large temporaries back to the kernel after every op.

A training step allocates and frees the same megabyte-sized NumPy temporaries over and over.
glibc's default policy serves them with ``mmap`` or trims the heap top as soon as they are
freed, so every step pays the kernel to fault in and zero the same pages again: on W3 of
``benchmarks/`` that was half the step (two 1.6 MB casts cost 1.1 ms instead of 60 µs).
Fixed thresholds keep blocks up to ``MMAP_THRESHOLD`` on the heap and let up to
``TRIM_THRESHOLD`` of free heap stay mapped for reuse. PyTorch keeps large CPU blocks alive
in the same spirit; it is process-wide, so NumPy code in the same process gains too.

Set the environment variable ``NUMTORCH_MALLOC_TUNING=0`` to leave malloc alone. Elsewhere
than glibc (musl, macOS, Windows, Pyodide) nothing is changed.

>>> MMAP_THRESHOLD // 2**20, TRIM_THRESHOLD // 2**20
(32, 64)
"""
import ctypes
import os
import sys

MMAP_THRESHOLD = 32 << 20       # glibc's own ceiling for its dynamic threshold
TRIM_THRESHOLD = 64 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3   # mallopt parameter numbers (malloc.h)


def tune_malloc():
    """Apply the thresholds once; True when glibc accepted them, False when skipped."""
    if os.environ.get("NUMTORCH_MALLOC_TUNING", "1") == "0":
        return False
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version       # glibc only: musl's mallopt ignores these anyway
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    ok = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
    return mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and ok
