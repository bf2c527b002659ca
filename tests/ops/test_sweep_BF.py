"""Sweep BF: views, shapes and manipulation against PyTorch.

Pieces of tensor_split and chunk at odd indices and empty dims, select/index_select on a 0-d
tensor, repeat and repeat_interleave argument checks, unique on a dim, the strides unsqueeze
and clone give, the order of ties after an unstable sort, hstack-like and cat/stack argument
errors, view_as_real/view_as_complex as views, the values ``x[k] = v`` takes, mT/mH/H and
adjoint on tensors that are no matrix, and the warnings (x.T, out= resized, complex to real).

PyTorch is the oracle (each test is skipped without it)."""
import warnings

import numpy as np
import pytest

import numtorch
from numtorch.ops import _util, shape as shape_ops
from helpers import check_error, check_same, check_same_outcome


def _a(t):
    return t.arange(10)


# ---- split family ---------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda t: _a(t).tensor_split([7, 2]),
    lambda t: _a(t).tensor_split([-2, 3]),
    lambda t: _a(t).tensor_split((12, 3)),
    lambda t: _a(t).tensor_split([3, -20]),
    lambda t: _a(t).tensor_split(t.tensor([7, 2])),
    lambda t: t.arange(0).chunk(3),
    lambda t: t.zeros(2, 0).chunk(2, 1),
    lambda t: t.zeros(0, requires_grad=True).chunk(3)[2].grad_fn.name(),
], ids=["unsorted", "negative", "past_end", "below_start", "tensor_indices", "chunk_empty",
        "chunk_empty_dim1", "chunk_empty_grad_fn"])
def test_split_pieces(torch, fn):
    check_same(fn, exact=True)


# ---- select, index_select and repeat errors --------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda t: t.tensor(1).select(0, 0),
    lambda t: t.tensor(1).select(-1, 0),
    lambda t: t.tensor(5).index_select(0, t.tensor([0, 0])),
    lambda t: t.tensor(5).index_select(0, t.tensor([], dtype=t.long)),
    lambda t: t.tensor(5).index_select(0, t.tensor([1.0, 2.0])),
    lambda t: t.tensor(5).index_select(0, t.tensor([1.0])),
    lambda t: t.arange(3).index_select(0, t.tensor([[1.0]])),
    lambda t: t.tensor(3).repeat(),
    lambda t: t.arange(3).repeat(),
    lambda t: t.arange(3).repeat(2, sizes=3),
    lambda t: t.arange(3).repeat_interleave(t.tensor([[1, 2, 3]])),
    lambda t: t.arange(3).repeat_interleave(t.tensor([1.0, 2, 3])),
    lambda t: t.arange(3).repeat_interleave(t.tensor([True, False, True])),
    lambda t: t.arange(3).repeat_interleave(t.tensor(1.0)),
    lambda t: t.arange(3).repeat_interleave(t.tensor(-1)),
    lambda t: t.arange(3).repeat_interleave(2.0),
    lambda t: t.repeat_interleave(t.arange(3), 2, 0.5),
    lambda t: t.repeat_interleave(t.tensor(2)),
    lambda t: t.repeat_interleave(t.tensor([1.0, 2])),
    lambda t: t.repeat_interleave(t.tensor([1, 2]), output_size=4),
    lambda t: t.arange(3).repeat_interleave(3, output_size=5),
    lambda t: t.arange(3).repeat_interleave(t.tensor([1, 2, 3]), output_size=5),
    lambda t: t.repeat_interleave(t.tensor(1.0), t.tensor([2]), dim=0),
])
def test_select_repeat_errors(torch, fn):
    check_error(fn)


@pytest.mark.parametrize("fn", [
    lambda t: t.arange(3).repeat(repeats=(2, 2)),
    lambda t: t.tensor(3).repeat([]),
    lambda t: t.arange(3).repeat(2, t.tensor(2)),
    lambda t: t.repeat_interleave(t.tensor([1, 2], dtype=t.int32)),
    lambda t: t.arange(3).repeat_interleave(t.tensor([1, 2, 3], dtype=t.int32)),
    lambda t: t.arange(3).repeat_interleave(t.tensor([2]), output_size=6),
    lambda t: t.arange(6.0).view(2, 3).repeat_interleave(t.tensor([3]), dim=-1),
    lambda t: t.repeat_interleave(t.tensor(1.0), t.tensor([2])),
])
def test_repeat_values(torch, fn):
    check_same(fn, exact=True)


# ---- unique on a dim --------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda t: t.tensor(3).unique(dim=0),
    lambda t: t.tensor(3).unique(dim=-1),
    lambda t: t.tensor(3).unique_consecutive(dim=0),
    lambda t: t.zeros(2, 0).unique(dim=0),
    lambda t: t.zeros(0, 3).unique(dim=1),
    lambda t: t.zeros(0, 0).unique(dim=0),
    lambda t: t.zeros(2, 0).unique_consecutive(dim=0, return_counts=True),
])
def test_unique_dim_errors(torch, fn):
    check_error(fn)


def test_unique_dim_of_empty_selected_dim(torch):
    check_same(lambda t: t.zeros(0, 3).unique(dim=0, return_counts=True,
                                               return_inverse=True), exact=True)


# ---- strides ----------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda t: t.zeros(4)[::2].unsqueeze(1),
    lambda t: t.zeros(4)[::2].unsqueeze(0),
    lambda t: t.zeros(4, 1)[::2].unsqueeze(2),
    lambda t: t.zeros(4, 3)[:, ::2].unsqueeze(1),
    lambda t: t.zeros(2, 3, 4).expand(2, 2, 3, 4).clone(),
    lambda t: t.zeros(1, 4).expand(3, 4).t().clone(),
    lambda t: t.zeros(3, 1, 5).expand(3, 4, 5).transpose(0, 2).clone(),
    lambda t: t.zeros(6, 1, 4, 1, 2).expand(6, 5, 4, 3, 2).permute(2, 0, 4, 1, 3).clone(),
    lambda t: t.zeros(3)[:, None, None].expand(3, 2, 2).permute(1, 0, 2).clone(),
])
def test_strides(torch, fn):
    check_same(lambda t: (fn(t).stride(), fn(t).is_contiguous()), exact=True)


def test_unsqueeze_of_strided_view_shares_memory():
    base = numtorch.zeros(4)
    view = base[::2].unsqueeze(1)
    view[1, 0] = 5
    assert base.tolist() == [0, 0, 5, 0] and view._base is base


# ---- sort: ties of the unstable sort ----------------------------------------------------------
def _ties(t, n, hi, seed=0):
    return t.from_numpy(np.random.default_rng(seed).integers(0, hi, n))


@pytest.mark.parametrize("fn", [
    lambda t: _ties(t, 20, 4).sort().indices,
    lambda t: _ties(t, 20, 4).sort(descending=True).indices,
    lambda t: _ties(t, 20, 4).sort(stable=False).indices,
    lambda t: _ties(t, 20, 4).sort(stable=True).indices,
    lambda t: _ties(t, 20, 4).argsort(),
    lambda t: _ties(t, 20, 4).argsort(descending=True),
    lambda t: _ties(t, 1200, 5).view(30, 40).sort(0).indices,
    lambda t: _ties(t, 1200, 5).view(30, 40).sort(1, descending=True).indices,
    lambda t: _ties(t, 1200, 5).view(30, 40).msort(),
    lambda t: _ties(t, 100, 6).double().sort().indices,
    lambda t: _ties(t, 100, 2).bool().sort().indices,
    lambda t: _ties(t, 40000, 50).sort().indices,  # PyTorch's radix sort: stable
    lambda t: _ties(t, 40000, 50).sort(descending=True).indices,
    lambda t: _ties(t, 40000, 50).int().argsort(),
    lambda t: _ties(t, 18, 3).expand(2, 18).sort().indices,
    lambda t: t.zeros(1).expand(20).sort().indices,
])
def test_sort_ties(torch, fn):
    check_same(fn, exact=True)


def test_sort_ties_gradient(torch):
    def grad(t):
        x = _ties(t, 17, 3).double().requires_grad_()
        (x.sort().values * t.arange(17.0, dtype=t.float64)).sum().backward()
        return x.grad
    check_same(grad, exact=True)


def test_sort_with_nan_ties(torch):
    def f(t):
        x = _ties(t, 100, 6).float()
        x[::7] = float("nan")
        return x.sort().indices, x.sort(descending=True).indices, x.argsort()
    check_same(f, exact=True)


# ---- expand, cat/stack/hstack arguments -------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda t: t.zeros(2, 1).expand(2, -2),
    lambda t: t.zeros(2, 1).expand(3, 2, -2),
    lambda t: t.zeros(1).expand(-2, -3),
    lambda t: t.cat(x for x in [t.zeros(2)]),
    lambda t: t.stack(x for x in [t.zeros(2)]),
    lambda t: t.cat(range(3)),
    lambda t: t.cat(np.array([1, 2])),
    lambda t: t.stack({t.zeros(2)}),
] + [
    (lambda op, bad: (lambda t: getattr(t, op)(bad(t))))(op, bad)
    for op in ("hstack", "vstack", "dstack", "column_stack", "row_stack")
    for bad in (lambda t: [], lambda t: t.zeros(2, 3), lambda t: [t.zeros(2), 1],
                lambda t: (x for x in [t.zeros(2)]))
])
def test_join_argument_errors(torch, fn):
    check_error(fn)


@pytest.mark.parametrize("op", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
def test_stacks_take_out(torch, op):
    def f(t):
        out = t.zeros(0)
        res = getattr(t, op)([t.ones(2, 3), t.zeros(2, 3)], out=out)
        return res is out, out
    check_same(f, exact=True)


def test_out_resized_warns(torch):
    def warned(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t.cat([t.zeros(2, 3), t.zeros(2, 3)], out=t.zeros(1))
            t.add(t.zeros(2), 1, out=t.zeros(0))  # (no elements: no warning)
        return [str(w.message) for w in caught], [w.filename for w in caught]
    check_same(warned, exact=True)
    assert warned(numtorch)[1] == [__file__]


# ---- views of complex and real ----------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda t: t.view_as_complex(t.zeros(2, 4)[:, ::2]),
    lambda t: t.view_as_complex(t.zeros(3, 4)[:, 1:3]),
    lambda t: t.view_as_complex(t.zeros(3, 3)[:, :2]),
    lambda t: t.view_as_complex(t.zeros(2, 2).int()),
    lambda t: t.view_as_complex(t.tensor(2.0)),
    lambda t: t.view_as_complex(t.zeros(2, 2).t()),
    lambda t: t.view_as_real(t.zeros(2)),
])
def test_view_as_complex_errors(torch, fn):
    check_error(fn)


def test_view_as_real_and_complex_share_memory(torch):
    def f(t):
        z = t.tensor([1 + 2j, 3 + 4j])
        r = t.view_as_real(z)
        r[0, 0] = 9
        c = t.view_as_complex(r)
        c[1] = 7j
        zt = t.tensor([[1 + 2j, 3 + 4j], [5j, 6]]).t()
        w = t.zeros(3, 4)
        return (z, z._version, r._base is z, c._base is z, t.view_as_real(zt).stride(),
                t.view_as_real(zt), t.view_as_complex(w[:, 2:]).storage_offset(),
                t.view_as_complex(t.zeros(2).expand(3, 2)).stride())
    check_same(f, exact=True)


def test_view_as_complex_gradient(torch):
    def grad(t):
        a = t.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        c = t.view_as_complex((a * 1).view(2, 2))
        c.abs().sum().backward()
        return c.grad_fn.name(), a.grad
    check_same(grad)


# ---- x[key] = value ----------------------------------------------------------------------------
@pytest.mark.parametrize("value", [
    np.float64(2.5), np.int64(3), np.int32(3), np.uint8(4), np.complex128(1), 2.5, 3, True,
    np.bool_(True), np.float16(1), np.float32(2), np.array(1.0), np.array([1.0, 2, 3]),
    [1, 2, 3], (1, 2, 3), range(3), None, "a",
], ids=repr)
def test_setitem_values(torch, value):
    def f(t):
        x = t.zeros(3)
        x[:] = value
        return x
    check_same_outcome(f)


def test_setitem_size_refused(torch):
    def f(t):
        t.zeros(3)[:] = t.Size([1, 2, 3])
    check_error(f)


def test_complex_to_real_copy_warns_once(torch, monkeypatch):
    monkeypatch.setattr(_util, "_complex_warned", [])

    def f(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x = t.zeros(3)
            x[:] = t.tensor([1 + 1j, 2, 3])
            x.copy_(t.tensor([2 + 1j, 2, 3]))
            b = t.zeros(3, dtype=t.bool).copy_(t.tensor([1j, 0, 3]))
        return x, b, [str(w.message) for w in caught]
    mine = f(numtorch)
    ref = f(torch)  # (torch may have warned already in this process: then it says nothing)
    assert (mine[0].tolist(), mine[1].tolist()) == (ref[0].tolist(), ref[1].tolist())
    assert len(mine[2]) == 1 and "discards the imaginary part" in mine[2][0]


# ---- matrix transposes on tensors that are no matrix ------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda t: t.arange(3).mT,
    lambda t: t.arange(3).mH,
    lambda t: t.arange(3).H,
    lambda t: t.arange(3).adjoint(),
    lambda t: t.zeros(2, 3, 4).H,
])
def test_matrix_transpose_errors(torch, fn):
    check_error(fn)


@pytest.mark.parametrize("kind, fn", [
    ("mT", lambda t: t.tensor(3j).mT),
    ("mH", lambda t: t.tensor(3j).mH),
    ("H", lambda t: t.tensor(3j).H),
    ("adjoint", lambda t: t.tensor(3j).adjoint()),
])
def test_matrix_transpose_of_0d_warns(torch, monkeypatch, kind, fn):
    monkeypatch.setattr(shape_ops, "_t_warned", set())
    with pytest.warns(UserWarning, match="deprecated on 0-D tensors") as caught:
        mine = fn(numtorch)
    assert caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch's own warning, once per process)
        ref = fn(torch)
    assert mine.item() == ref.item()


def test_H_is_a_transpose(torch):
    check_same(lambda t: t.ones(2, 2, requires_grad=True).H.grad_fn.name(), exact=True)


def test_T_warns_at_the_users_line(monkeypatch):
    monkeypatch.setattr(shape_ops, "_t_warned", set())
    with pytest.warns(UserWarning, match="x.T") as caught:
        numtorch.zeros(2, 3, 4).T
    assert caught[0].filename == __file__


# ---- other argument checks --------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda t: t.zeros(3).unfold(0, -2, 1),
    lambda t: t.diag_embed(t.tensor(1.0)),
    lambda t: t.rot90(t.zeros(2, 2), 1.5),
    lambda t: t.zeros(2, 2).rot90(1, 0),
    lambda t: t.zeros(2, 2).rot90(1, (0, 1.0)),
    lambda t: t.zeros(2, 2).rot90(True),
])
def test_argument_errors(torch, fn):
    check_error(fn)


def test_rot90_takes_integer_like(torch):
    check_same(lambda t: t.arange(4.0).view(2, 2).rot90(np.int64(1), [1, np.int64(0)]),
               exact=True)


@pytest.mark.parametrize("fn", [
    lambda t: t.arange(6.0).view(2, 3)[None],
    lambda t: t.arange(3.0)[:, None].expand(3, 4),
    lambda t: t.arange(3.0)[None, :, None].expand(2, 3, 1),
])
def test_clone_is_a_copy(torch, fn):
    def f(t):
        x = fn(t)
        c = x.clone()
        c.mul_(2)
        return x, c, c.stride()
    check_same(f, exact=True)
