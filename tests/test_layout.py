"""``Tensor.dim_order()`` (numtorch/_layout.py) against PyTorch: contiguous, permuted,
channels-last, broadcast and sliced layouts, its ambiguity checks and argument errors."""
import doctest

import pytest

import numtorch
from numtorch import _layout
from helpers import check_error, check_same

LAYOUTS = [
    ("0d", lambda L: L.empty(())), ("1d", lambda L: L.empty(3)), ("1", lambda L: L.empty(1)),
    ("contiguous", lambda L: L.empty(2, 3, 5, 7)),
    ("transpose", lambda L: L.empty(2, 3, 5, 7).transpose(1, 2)),
    ("channels-last", lambda L: L.empty(2, 3, 5, 7).permute(0, 2, 3, 1)),
    ("channels-last-view", lambda L: L.empty(2, 5, 7, 3).permute(0, 3, 1, 2)),
    ("size-1", lambda L: L.empty(1, 2, 3, 4)), ("t", lambda L: L.empty(2, 3).t()),
    ("permute-3d", lambda L: L.empty(2, 3, 4).permute(2, 0, 1)),
    ("permute-5d", lambda L: L.empty(2, 3, 4, 5, 6).permute(4, 1, 3, 0, 2)),
    ("expand", lambda L: L.empty(2, 3, 4).expand(5, 2, 3, 4)),
    ("expand-middle", lambda L: L.empty(2, 1, 4).expand(2, 3, 4)),
    ("step", lambda L: L.empty(2, 3, 4)[:, ::2]), ("select", lambda L: L.empty(2, 3, 4)[:, 1]),
    ("strided", lambda L: L.empty(4, 4)[::2, ::2]), ("square", lambda L: L.empty(2, 2)),
    ("empty", lambda L: L.empty(0, 3)),
    ("column", lambda L: L.empty(3, 1)), ("row-t", lambda L: L.empty(1, 3).t()),
    ("equal-strides", lambda L: L.empty(4, 1).expand(4, 4)[:, :1].expand(4, 3)),
    ("unfold", lambda L: L.empty(10).unfold(0, 3, 2)),
    ("diagonal", lambda L: L.empty(3, 3, 4).diagonal(0, 0, 1)),
    ("nchw-1-channel", lambda L: L.empty(2, 1, 5, 7).permute(0, 2, 3, 1)),
]
CHECKS = [False, True, [], "contiguous", "contiguous+channels_last", "channels_last",
          "preserve"]


def _check(lib, name):
    """The ambiguity_check argument ``name`` stands for, in ``lib``."""
    if not isinstance(name, str):
        return name
    fmts = {"contiguous": lib.contiguous_format, "channels_last": lib.channels_last,
            "preserve": lib.preserve_format}
    return [fmts[n] for n in name.split("+")]


@pytest.mark.parametrize("check", CHECKS, ids=[str(c) for c in CHECKS])
@pytest.mark.parametrize("make", [m[1] for m in LAYOUTS], ids=[m[0] for m in LAYOUTS])
def test_dim_order(torch, make, check):
    # raises where PyTorch raises (ambiguous orders), with its message
    from helpers import check_same_outcome
    check_same_outcome(lambda lib: make(lib).dim_order(ambiguity_check=_check(lib, check)))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.empty(2, 3).dim_order(ambiguity_check="ILLEGAL"),
    lambda lib: lib.empty(2, 3).dim_order(ambiguity_check=1),
    lambda lib: lib.empty(2, 3).dim_order(ambiguity_check=(lib.contiguous_format,)),
    lambda lib: lib.empty(2, 3).dim_order(ambiguity_check=[lib.contiguous_format, 1]),
    lambda lib: lib.empty(2, 3).dim_order(ambiguity_check=None),
], ids=["str", "int", "tuple", "list-with-int", "None"])
def test_dim_order_argument_errors(torch, fn):
    check_error(fn)


def test_dim_order_after_contiguous_and_clone(torch):
    check_same(lambda lib: (lib.empty(2, 3, 4).permute(1, 2, 0).contiguous().dim_order(),
                            lib.empty(2, 3, 4).permute(1, 2, 0).clone().dim_order(),
                            lib.empty(2, 3, 4).permute(1, 2, 0).dim_order()))


def test_dim_order_without_torch():
    x = numtorch.empty(2, 3, 5, 7)
    assert x.dim_order() == (0, 1, 2, 3)
    assert x.permute(0, 2, 3, 1).dim_order() == (0, 3, 1, 2)
    assert x.transpose(1, 2).dim_order(ambiguity_check=True) == (0, 2, 1, 3)
    with pytest.raises(RuntimeError, match="does not have unique dim order"):
        numtorch.empty(1, 2).dim_order(ambiguity_check=True)
    with pytest.raises(TypeError, match="must be a bool or a list of memory formats"):
        x.dim_order(ambiguity_check="x")


def test_doctests():
    result = doctest.testmod(_layout, extraglobs={"torch": numtorch})
    assert result.failed == 0 and result.attempted > 0
