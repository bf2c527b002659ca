"""Sweep L (tensor basics): argument forms of reshape/permute/view, reductions over
``dim=None`` with ``keepdim`` and dim lists holding a bool, max/min/prod parser errors,
torch.norm's dispatch and matrix-norm checks, non-tensor index/mask arguments, masked_fill
values, complex arange, ``in`` on tensors, device errors.

Every case runs in numtorch and in PyTorch (the oracle; skipped without it) and must give
the same result, or raise the same exception type with the same message."""
import pytest

from helpers import check_same_outcome


def _x(t):
    return t.arange(6.).view(2, 3)


def _setitem(x, key, value):
    x[key] = value
    return x


# (name, fn(lib)): each returns a value to compare or raises
_CASES = [
    # reshape / permute: the function forms take one sequence, the methods also ints
    ("reshape_fn_int", lambda t: t.reshape(_x(t), 6)),
    ("reshape_fn_tuple", lambda t: t.reshape(_x(t), (3, 2))),
    ("reshape_fn_two_ints", lambda t: t.reshape(_x(t), 2, 3)),
    ("reshape_fn_kw", lambda t: t.reshape(_x(t), shape=[3, 2])),
    ("reshape_fn_missing", lambda t: t.reshape(_x(t))),
    ("reshape_fn_tensor", lambda t: t.reshape(_x(t), t.tensor(6))),
    ("reshape_fn_bool_after_first", lambda t: t.reshape(_x(t), [3, True])),
    ("reshape_method_kw", lambda t: _x(t).reshape(shape=(6,))),
    ("reshape_method_none", lambda t: _x(t).reshape()),
    ("reshape_method_float", lambda t: _x(t).reshape(6, 1.0)),
    ("reshape_method_tuple_then_int", lambda t: _x(t).reshape((3,), 2)),
    ("reshape_method_unknown_kw", lambda t: _x(t).reshape(foo=1)),
    ("reshape_method_ints", lambda t: _x(t).reshape(3, -1)),
    ("permute_fn_int", lambda t: t.permute(_x(t), 1)),
    ("permute_fn_two_ints", lambda t: t.permute(_x(t), 1, 0)),
    ("permute_fn_kw", lambda t: t.permute(_x(t), dims=(1, 0))),
    ("permute_method_kw", lambda t: _x(t).permute(dims=(1, 0))),
    ("permute_method_none", lambda t: _x(t).permute()),
    ("permute_method_float", lambda t: _x(t).permute([1., 0])),
    ("permute_method_dup", lambda t: _x(t).permute(0, 0)),
    # view keywords
    ("view_dtype_kw", lambda t: _x(t).view(dtype=t.int32)),
    ("view_dtype_kw_python_type", lambda t: _x(t).view(dtype=float)),
    ("view_size_kw", lambda t: _x(t).view(size=(3, 2))),
    ("view_size_kw_int", lambda t: _x(t).view(size=6)),
    ("view_unknown_kw", lambda t: _x(t).view(foo=1)),
    ("view_no_args", lambda t: _x(t).view()),
    ("view_dtype_and_size", lambda t: _x(t).view(t.int32, 2)),
    # reductions: dim=None with keepdim, bools in dim lists
    ("sum_none_keepdim", lambda t: _x(t).sum(dim=None, keepdim=True)),
    ("mean_none_keepdim", lambda t: _x(t).mean(dim=None, keepdim=True)),
    ("nansum_none_keepdim", lambda t: _x(t).nansum(dim=None, keepdim=True)),
    ("nanmean_none_keepdim", lambda t: _x(t).nanmean(dim=None, keepdim=True)),
    ("all_none_keepdim", lambda t: _x(t).all(dim=None, keepdim=True)),
    ("any_none_keepdim", lambda t: _x(t).any(dim=None, keepdim=True)),
    ("sum_none_keepdim_grad_fn", lambda t: type(
        _x(t).requires_grad_().sum(dim=None, keepdim=True).grad_fn).__name__),
    ("sum_dims_bool_second", lambda t: _x(t).sum((0, True))),
    ("sum_dims_bool_first", lambda t: _x(t).sum((True, 0))),
    ("mean_dims_bool", lambda t: _x(t).mean([0, True])),
    ("amax_dims_bool", lambda t: _x(t).amax((0, True))),
    ("var_dims_bool", lambda t: _x(t).var((0, True))),
    ("logsumexp_dims_bool", lambda t: _x(t).logsumexp((0, True))),
    ("sum_dims_float", lambda t: _x(t).sum((0, 1.0))),
    # max / min / prod argument errors
    ("max_float_dim", lambda t: _x(t).max(1.0)),
    ("max_fn_float_dim", lambda t: t.max(_x(t), 1.0)),
    ("min_tuple_dim", lambda t: _x(t).min((0, 1))),
    ("max_tuple_dim_kw", lambda t: _x(t).max(dim=(0, 1))),
    ("max_none_keepdim", lambda t: _x(t).max(dim=None, keepdim=True)),
    ("prod_none_keepdim", lambda t: _x(t).prod(dim=None, keepdim=True)),
    ("prod_float_dim", lambda t: _x(t).prod(1.0)),
    # torch.norm dispatch and matrix-norm checks
    ("norm_bad_dim", lambda t: _x(t).norm(dim=2)),
    ("norm_float_dim", lambda t: _x(t).norm(dim=1.0)),
    ("norm_unknown_order", lambda t: _x(t).norm(p="abc")),
    ("norm_nuc_1d", lambda t: t.tensor([3., 4.]).norm(p="nuc")),
    ("norm_nuc_one_dim", lambda t: _x(t).norm(p="nuc", dim=1)),
    ("norm_fro_three_dims", lambda t: _x(t).view(1, 2, 3).norm(p="fro", dim=(0, 1, 2))),
    ("norm_fro_dims", lambda t: _x(t).norm(p="fro", dim=(0, 1))),
    ("norm_nuc", lambda t: _x(t).norm(p="nuc")),
    ("matrix_norm_1d", lambda t: t.linalg.matrix_norm(t.tensor([3., 4.]))),
    ("matrix_norm_order", lambda t: t.linalg.matrix_norm(_x(t), 3)),
    ("matrix_norm_order_str", lambda t: t.linalg.matrix_norm(_x(t), "abc", [0])),
    ("matrix_norm_one_dim", lambda t: t.linalg.matrix_norm(_x(t), "nuc", [0])),
    ("matrix_norm_same_dims", lambda t: t.linalg.matrix_norm(_x(t), "nuc", [0, 0])),
    ("matrix_norm_int", lambda t: t.linalg.matrix_norm(_x(t).int())),
    ("inf_norm_empty_dim", lambda t: t.zeros(0, 3).norm(p=float("inf"), dim=0)),
    ("neg_norm_empty_dims", lambda t: t.zeros(0, 3).norm(p=-1, dim=(1, 0))),
    ("ninf_norm_empty_neg_dim", lambda t: t.zeros(0, 3).norm(p=float("-inf"), dim=-2)),
    ("inf_norm_empty_all", lambda t: t.zeros(0, 3).norm(p=float("inf"))),
    ("inf_norm_nonempty_dims", lambda t: t.zeros(3, 0, 2).norm(p=float("inf"), dim=(0, 2))),
    # index / mask arguments that are no tensors
    ("index_select_list", lambda t: _x(t).index_select(0, [0])),
    ("index_select_fn_list", lambda t: t.index_select(_x(t), 0, [0])),
    ("index_select_kw_list", lambda t: _x(t).index_select(0, index=[0])),
    ("gather_list", lambda t: _x(t).gather(0, [[0]])),
    ("gather_fn_list", lambda t: t.gather(_x(t), 0, [[0]])),
    ("take_list", lambda t: _x(t).take([0])),
    ("masked_select_list", lambda t: _x(t).masked_select([True])),
    ("scatter_list", lambda t: _x(t).scatter(0, [[0]], 1.)),
    ("index_add_list", lambda t: _x(t).index_add(0, [0], _x(t))),
    ("index_fill_list", lambda t: _x(t).index_fill(0, [0], 1.)),
    ("take_along_dim_list", lambda t: _x(t).take_along_dim([0])),
    ("masked_scatter_list", lambda t: _x(t).masked_scatter([True], _x(t))),
    ("where_list", lambda t: t.where([True], _x(t), _x(t))),
    # masked_fill values
    ("masked_fill_str", lambda t: _x(t).masked_fill(_x(t) > 2, "a")),
    ("masked_fill_fn_str", lambda t: t.masked_fill(_x(t), _x(t) > 2, "a")),
    ("masked_fill_inplace_str", lambda t: _x(t).masked_fill_(_x(t) > 2, "a")),
    ("masked_fill_none", lambda t: _x(t).masked_fill(_x(t) > 2, None)),
    ("masked_fill_list_mask", lambda t: _x(t).masked_fill([True], 1.)),
    ("masked_fill_complex_real", lambda t: _x(t).masked_fill(_x(t) > 2, 1 + 0j)),
    ("masked_fill_complex", lambda t: _x(t).masked_fill(_x(t) > 2, 1 + 2j)),
    ("masked_fill_long_complex", lambda t: _x(t).long().masked_fill(_x(t) > 2, 1 + 2j)),
    ("full_complex_into_float", lambda t: t.full((2,), 1 + 1j, dtype=t.float32)),
    # indexing: several ellipses, index tensors of small integer dtypes
    ("getitem_two_ellipses", lambda t: t.arange(24).view(2, 3, 4)[..., ...]),
    ("getitem_ellipsis_int_ellipsis", lambda t: t.arange(24).view(2, 3, 4)[..., 0, ...]),
    ("getitem_int_ellipses", lambda t: t.arange(24).view(2, 3, 4)[0, ..., 1, ...]),
    ("getitem_list_between_ellipses", lambda t: t.arange(24).view(2, 3, 4)[..., [0, 1], ...]),
    ("setitem_two_ellipses", lambda t: _setitem(t.zeros(2, 3), (Ellipsis, 0, Ellipsis), 5)),
    ("getitem_int8_index", lambda t: t.arange(6)[t.tensor([0], dtype=t.int8)]),
    ("getitem_int16_index", lambda t: t.arange(6)[t.tensor([0], dtype=t.int16)]),
    ("getitem_int32_index", lambda t: t.arange(6)[t.tensor([0, 5], dtype=t.int32)]),
    # creation
    ("arange_complex64", lambda t: t.arange(3, dtype=t.complex64)),
    ("arange_complex128", lambda t: t.arange(0, 3, 1, dtype=t.complex128)),
    # `in`
    ("contains_row", lambda t: t.tensor([1, 2]) in t.tensor([[1, 2], [3, 4]])),
    ("contains_float", lambda t: 2.0 in t.tensor([1, 2])),
    ("contains_missing", lambda t: 5 in t.tensor([1, 2])),
    ("contains_bad_shape", lambda t: t.tensor([[1, 2]]) in t.tensor([1, 2, 3])),
    ("contains_str", lambda t: "a" in t.tensor([1])),
    ("contains_none", lambda t: None in t.tensor([1])),
    # devices
    ("to_mps", lambda t: _x(t).to("mps")),
    ("to_xpu", lambda t: _x(t).to("xpu")),
    ("to_cuda", lambda t: _x(t).to("cuda")),
    ("to_hip_device", lambda t: _x(t).to(t.device("hip"))),
]


@pytest.mark.parametrize("name,fn", _CASES, ids=[c[0] for c in _CASES])
def test_sweep_l(name, fn):
    check_same_outcome(fn)
