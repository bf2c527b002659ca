"""``torch.func.replace_all_batch_norm_modules_``: batch norm without running statistics, so
that a model can run under ``vmap`` (running statistics would be updated in place with
batched values, which vmap refuses)."""

__all__ = ["replace_all_batch_norm_modules_"]


def _without_running_stats(module):
    from ..nn.modules.batchnorm import _BatchNorm
    if isinstance(module, _BatchNorm) and module.track_running_stats:
        # NOTE: the buffers stay registered with the value None (so they leave state_dict),
        # exactly what assigning None to a registered buffer does
        module.running_mean = None
        module.running_var = None
        module.num_batches_tracked = None
        module.track_running_stats = False


def replace_all_batch_norm_modules_(root):
    """Make every batch norm module in ``root`` (``root`` included) stop tracking running
    statistics, in place: ``running_mean``, ``running_var`` and ``num_batches_tracked``
    become None and ``track_running_stats`` False. Returns ``root``.

    >>> import numtorch as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
    >>> torch.func.replace_all_batch_norm_modules_(net)[1]
    BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=False)
    """
    _without_running_stats(root)
    for m in root.modules():
        _without_running_stats(m)
    return root


def debug_unwrap(tensor, *, recurse=True):
    """The physical tensor under a tensor batched by ``vmap`` (every level when ``recurse``);
    any other tensor is returned as it is. For debugging only, as in PyTorch.

    >>> import numtorch as torch
    >>> out = []
    >>> _ = torch.func.vmap(lambda t: out.append(torch.func.debug_unwrap(t)) or t)(torch.ones(2))
    >>> out[0]
    tensor([1., 1.])
    """
    from ._batching import BatchedData
    while type(tensor._data) is BatchedData:
        tensor = tensor._data.tensor
        if not recurse:
            break
    return tensor
