"""``torch.nn.utils``: gradient clipping and parameter/vector conversion.

>>> import numtorch as torch
>>> w = torch.nn.Parameter(torch.ones(4))
>>> (w * 3).sum().backward()
>>> clip_grad_norm_([w], max_norm=1.0)
tensor(6.)
>>> w.grad
tensor([0.5000, 0.5000, 0.5000, 0.5000])
"""
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, get_total_norm, \
    clip_grads_with_norm_
from .convert_parameters import parameters_to_vector, vector_to_parameters
from . import memory_format, parametrizations, parametrize, prune, rnn, stateless
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, \
    fuse_linear_bn_weights
from .weight_norm import remove_weight_norm, weight_norm
from .spectral_norm import remove_spectral_norm, spectral_norm
from .init import skip_init
from .memory_format import convert_conv2d_weight_memory_format, \
    convert_conv3d_weight_memory_format

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_", "parameters_to_vector", "vector_to_parameters",
           "weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "skip_init", "convert_conv2d_weight_memory_format",
           "convert_conv3d_weight_memory_format"]
