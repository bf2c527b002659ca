"""``full`` / ``full_like`` convert the fill value as PyTorch's checked scalar conversion:
floats truncate into integer dtypes, negative integers wrap into uint8, overflow raises."""
import pytest

from helpers import check_error, check_same


@pytest.mark.parametrize("dtype,value", [
    ("uint8", -9), ("uint8", -255), ("uint8", 2.7), ("int64", -2.7), ("int8", -128),
    ("float16", 1e4), ("float32", float("inf")), ("bool", 3.5), ("int32", True),
])
def test_full_like_fill_conversion(dtype, value):
    check_same(lambda lib: lib.full_like(lib.zeros(2, 3, dtype=getattr(lib, dtype)), value),
               exact=True)
    check_same(lambda lib: lib.full((2,), value, dtype=getattr(lib, dtype)), exact=True)


@pytest.mark.parametrize("dtype,value", [
    ("uint8", -256), ("uint8", 300), ("uint8", -2.7), ("int8", 200), ("int16", 2 ** 40),
    ("int32", 2 ** 40), ("int64", 1e300), ("float16", 1e20), ("float32", 1e300),
])
def test_full_like_fill_overflow(dtype, value):
    check_error(lambda lib: lib.full_like(lib.zeros(2, dtype=getattr(lib, dtype)), value))
    check_error(lambda lib: lib.full((2,), value, dtype=getattr(lib, dtype)))
