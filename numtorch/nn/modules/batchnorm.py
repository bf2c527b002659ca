"""Batch normalisation layers: ``BatchNorm1d/2d/3d`` (running stats, momentum, eval mode).

>>> import numtorch as torch
>>> bn = torch.nn.BatchNorm1d(2)
>>> _ = bn(torch.tensor([[1.0, 2.0], [3.0, 6.0]]))
>>> bn.running_mean, bn.num_batches_tracked
(tensor([0.2000, 0.4000]), tensor(1))
"""
from ... import _dtype as D
from .. import functional as F
from .. import init
from ._factory import new_param
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _NormBase(Module):
    """Parameters and running-stat buffers shared by batch and instance norm."""

    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        from ... import zeros, ones, tensor
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = new_param(num_features, device=device, dtype=dtype)
            if bias:
                self.bias = new_param(num_features, device=device, dtype=dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=D.int64))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Running mean 0, running variance 1, batch count 0."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # state dicts before version 2 (or plain dicts, without metadata) may lack
        # num_batches_tracked: as PyTorch, the module's own count (or 0) stands in
        version = local_metadata.get("version")
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and \
                key not in state_dict:
            from ... import tensor
            state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                               else tensor(0, dtype=D.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def extra_repr(self):
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
                "bias={use_bias}, track_running_stats={track_running_stats}".format(
                    **self.__dict__, use_bias=self.bias is not None))


class _BatchNorm(_NormBase):
    _dims = (2, 3)

    def _check_input_dim(self, input):
        if input.dim() not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:   # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_buffers = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_buffers else None,
                            self.running_var if use_buffers else None, self.weight, self.bias,
                            bn_training, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) input.

    >>> BatchNorm1d(3)
    BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) input.

    >>> BatchNorm2d(3, momentum=None, affine=False)
    BatchNorm2d(3, eps=1e-05, momentum=None, affine=False, bias=False, track_running_stats=True)
    """
    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W) input."""
    _dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch norm over (N, C, *) input whose batch statistics would be shared across processes.

    numtorch has no process groups (``torch.distributed`` is never initialised), so, as
    PyTorch does in a single process, the forward is plain batch norm; ``process_group`` is
    only kept.

    >>> import numtorch as torch
    >>> torch.nn.SyncBatchNorm(3)(torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]))
    tensor([[-1.0000,  0.0000,  1.0000],
            [ 1.0000,  0.0000, -1.0000]], grad_fn=<NativeBatchNormBackward0>)
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every ``BatchNorm*D`` layer replaced by a SyncBatchNorm sharing its
        parameters and running statistics (a BatchNorm ``module`` itself gives a new layer)."""
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group,
                                bias=module.bias is not None)
            if module.affine:
                out.weight, out.bias = module.weight, module.bias
            out.running_mean, out.running_var = module.running_mean, module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
