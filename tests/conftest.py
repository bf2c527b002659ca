"""Test setup: import numtorch from this checkout; torch (the oracle) is optional."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.dirname(os.path.abspath(__file__))
for _path in (ROOT, TESTS):  # numtorch from this checkout; `import helpers` from any test dir
    if _path not in sys.path:
        sys.path.insert(0, _path)
pytest.register_assert_rewrite("helpers")  # detailed failure messages from helpers' asserts


@pytest.fixture
def torch():
    """PyTorch, the oracle; the test is skipped where it is not installed."""
    return pytest.importorskip("torch")
