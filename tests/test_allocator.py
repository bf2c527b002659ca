"""numtorch/_allocator.py: malloc thresholds applied on glibc, skipped when asked."""
import os
import subprocess
import sys
import textwrap

import pytest

from numtorch import _allocator


def _glibc():
    try:
        import ctypes
        ctypes.CDLL(None).gnu_get_libc_version
        return sys.platform.startswith("linux")
    except (OSError, AttributeError):
        return False


def test_opt_out_by_environment(monkeypatch):
    monkeypatch.setenv("NUMTORCH_MALLOC_TUNING", "0")
    assert _allocator.tune_malloc() is False


@pytest.mark.skipif(not _glibc(), reason="mallopt thresholds are glibc's")
def test_applied_under_glibc(monkeypatch):
    monkeypatch.delenv("NUMTORCH_MALLOC_TUNING", raising=False)
    assert _allocator.tune_malloc() is True


@pytest.mark.skipif(not _glibc(), reason="mallopt thresholds are glibc's")
def test_freed_temporaries_stay_on_the_heap():
    # Under glibc's defaults a 4 MB block is mmapped and unmapped when freed; with the
    # thresholds numtorch sets on import it comes from the heap and stays there, free, for
    # the next op.
    code = textwrap.dedent("""
        import ctypes, numtorch, numpy as np
        class MI(ctypes.Structure):
            _fields_ = [(n, ctypes.c_size_t) for n in
                        "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks "
                        "fordblks keepcost".split()]
        libc = ctypes.CDLL(None)
        libc.mallinfo2.restype = MI
        before = libc.mallinfo2().hblks
        a = np.ones(1 << 19)                 # 4 MB
        mapped = libc.mallinfo2().hblks - before
        del a
        print(mapped, libc.mallinfo2().fordblks >= (4 << 20))
    """)
    env = dict(os.environ)
    env.pop("NUMTORCH_MALLOC_TUNING", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    assert out == ["0", "True"]
