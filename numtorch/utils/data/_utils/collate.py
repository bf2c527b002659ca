"""``torch.utils.data._utils.collate``: the collate functions and their type registry.

>>> default_collate([(1, 2.0), (3, 4.0)])
[tensor([1, 3]), tensor([2., 4.], dtype=torch.float64)]
"""
from .._collate import (collate, collate_float_fn, collate_int_fn, collate_numpy_array_fn,
                        collate_numpy_scalar_fn, collate_str_fn, collate_tensor_fn,
                        default_collate, default_collate_fn_map, default_convert)
from .._collate import _ERR as default_collate_err_msg_format
from .._collate import _NP_STR as np_str_obj_array_pattern

__all__ = ["collate", "collate_float_fn", "collate_int_fn", "collate_numpy_array_fn",
           "collate_numpy_scalar_fn", "collate_str_fn", "collate_tensor_fn", "default_collate",
           "default_collate_fn_map", "default_convert", "default_collate_err_msg_format",
           "np_str_obj_array_pattern"]
