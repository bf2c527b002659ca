"""Lazy modules: layers whose input size is read from the first input they see.

A lazy layer holds ``UninitializedParameter`` / ``UninitializedBuffer`` entries until its
first forward; a forward pre-hook then calls ``initialize_parameters(input)``, which gives
them their shapes and initialises them as the ordinary layer would, and the module becomes
that ordinary layer (``cls_to_become``), as in PyTorch.

>>> import numtorch as torch
>>> m = LazyConv1d(4, 3); m
LazyConv1d(0, 4, kernel_size=(3,), stride=(1,))
>>> _ = m(torch.ones(1, 2, 5)); m
Conv1d(2, 4, kernel_size=(3,), stride=(1,))
"""
from ... import _dtype as D
from ..parameter import UninitializedBuffer, UninitializedParameter
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Linear

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


def _is_lazy(t):
    return isinstance(t, (UninitializedParameter, UninitializedBuffer))


class LazyModuleMixin:
    """Infers the uninitialized entries on the first call, then becomes ``cls_to_become``."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _watch_first_call(self)

    def has_uninitialized_params(self):
        """Whether any parameter or buffer still waits for its shape."""
        return any(_is_lazy(t) for t in (*self._parameters.values(), *self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for "
                                  f"{type(self).__name__}")


class _LazySized(LazyModuleMixin):
    """numtorch's lazy layers: the ordinary layer's ``reset_parameters`` runs once the size
    named by ``_size_attr`` is known (it is 0 until the first input)."""

    _size_attr = None

    def reset_parameters(self):
        if not self.has_uninitialized_params() and getattr(self, self._size_attr) != 0:
            super().reset_parameters()


def _watch_first_call(module):
    module._initialize_hook = module.register_forward_pre_hook(_infer_parameters,
                                                               with_kwargs=True)
    module._load_hook = module._register_load_state_dict_pre_hook(_lazy_load_hook,
                                                                  with_module=True)


def _uninitialized_weight_and_bias(module, bias, dtype):
    module.weight = UninitializedParameter(dtype=dtype)
    if bias:
        module.bias = UninitializedParameter(dtype=dtype)


def _lazy_load_hook(module, state_dict, prefix, *args):
    """Before load_state_dict copies into them, uninitialized entries take the shapes of
    the loaded tensors (the module stays lazy until its first call, as in PyTorch)."""
    from ...autograd.grad_mode import no_grad
    for name, t in (*module._parameters.items(), *module._buffers.items()):
        src = state_dict.get(prefix + name)
        if t is not None and _is_lazy(t) and src is not None and not _is_lazy(src):
            with no_grad():
                t.materialize(src.shape)


def _infer_parameters(module, args, kwargs):
    module.initialize_parameters(*args, **kwargs)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    module._load_hook.remove()
    del module._load_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become
    return None


class LazyLinear(_LazySized, Linear):
    """A Linear whose ``in_features`` is the last dim of its first input.

    >>> import numtorch as torch
    >>> m = LazyLinear(2); _ = m(torch.ones(1, 5)); m
    Linear(in_features=5, out_features=2, bias=True)
    """

    cls_to_become = Linear
    _size_attr = "in_features"

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False, device, dtype)
        self.out_features = out_features
        _uninitialized_weight_and_bias(self, bias, dtype)

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


class _LazyConvMixin(_LazySized):
    """``in_channels`` from dim 1 of the first input (dim 0 when it is unbatched)."""

    _size_attr = "in_channels"

    def _lazy_init(self, out_channels, bias, dtype):
        self.out_channels = out_channels
        _uninitialized_weight_and_bias(self, bias, dtype)

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        unbatched = input.dim() == self._nsp + 1
        if input.dim() not in (self._nsp + 1, self._nsp + 2):
            raise RuntimeError(f"Expected {self._nsp + 1}D (unbatched) or {self._nsp + 2}D "
                               f"(batched) input to {self.cls_to_become.__name__}, but got "
                               f"input of size: {list(input.shape)}")
        self.in_channels = input.shape[0 if unbatched else 1]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups)
        else:
            shape = (self.out_channels, self.in_channels // self.groups)
        self.weight.materialize((*shape, *self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()


def _lazy_conv(base, transposed):
    """The lazy class of convolution ``base`` (same arguments, no in_channels)."""
    if transposed:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                     groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                     dtype=None):
            base.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups,
                          False, dilation, padding_mode, device, dtype)
            self._lazy_init(out_channels, bias, dtype)
    else:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                     groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
            base.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False,
                          padding_mode, device, dtype)
            self._lazy_init(out_channels, bias, dtype)

    def init(self, *args, **kwargs):
        __init__(self, *args, **kwargs)
        _watch_first_call(self)
    name = "Lazy" + base.__name__
    __init__.__qualname__ = name + ".__init__"  # named in a bad argument's TypeError
    return type(name, (_LazyConvMixin, base), {
        "__init__": init, "cls_to_become": base, "__module__": __name__,
        "__doc__": f"A {base.__name__} whose in_channels is read from its first input."})


LazyConv1d = _lazy_conv(Conv1d, False)
LazyConv2d = _lazy_conv(Conv2d, False)
LazyConv3d = _lazy_conv(Conv3d, False)
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d, True)
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d, True)
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d, True)


class _LazyNormMixin(_LazySized):
    """``num_features`` from dim 1 of the first input."""

    _size_attr = "num_features"

    def _lazy_init(self, affine, track_running_stats, dtype):
        from ... import tensor
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=D.int64)

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        if self.affine:
            self.weight.materialize((self.num_features,))
            self.bias.materialize((self.num_features,))
        if self.track_running_stats:
            self.running_mean.materialize((self.num_features,))
            self.running_var.materialize((self.num_features,))
        self.reset_parameters()


def _lazy_norm(base, affine_default, track_default):
    def init(self, eps=1e-5, momentum=0.1, affine=affine_default,
             track_running_stats=track_default, device=None, dtype=None):
        base.__init__(self, 0, eps, momentum, False, False, device, dtype)
        self._lazy_init(affine, track_running_stats, dtype)
        _watch_first_call(self)
    return type("Lazy" + base.__name__, (_LazyNormMixin, base), {
        "__init__": init, "cls_to_become": base, "__module__": __name__,
        "__doc__": f"A {base.__name__} whose num_features is read from its first input."})


LazyBatchNorm1d = _lazy_norm(BatchNorm1d, True, True)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, True, True)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, True, True)
# NOTE: PyTorch's lazy instance norms keep the lazy base's defaults (affine and
# track_running_stats True), unlike InstanceNorm itself
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, True, True)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, True, True)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, True, True)
