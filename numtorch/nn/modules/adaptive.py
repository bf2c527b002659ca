"""Adaptive softmax (Grave et al., "Efficient softmax approximation for GPUs").

>>> import numtorch as torch
>>> torch.manual_seed(0)  # doctest: +ELLIPSIS
<...>
>>> asm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4])
>>> out = asm(torch.randn(3, 8), torch.tensor([0, 5, 9]))
>>> out.output.shape, out.loss.shape
(torch.Size([3]), torch.Size([]))
"""
from collections import namedtuple

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _check_cutoffs(cutoffs, n_classes):
    if len(cutoffs) == 0:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
        raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in "
                         "an increasing order, where each value is between 1 and n_classes-1")


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-softmax over ``n_classes`` split at ``cutoffs``: a head scores the frequent
    classes (the shortlist, below ``cutoffs[0]``) and one entry per tail cluster; each cluster
    ``i`` projects the input to ``in_features // div_value ** (i + 1)`` features first.

    ``forward(input, target)`` returns ``_ASMoutput(output, loss)``: the log-probability of
    each target and the mean negative log-likelihood. ``log_prob`` gives the full (N,
    n_classes) log-distribution and ``predict`` its argmax.

    >>> torch.manual_seed(0)  # doctest: +ELLIPSIS
    <...>
    >>> asm = AdaptiveLogSoftmaxWithLoss(4, 6, cutoffs=[2, 4], div_value=2.0)
    >>> asm.tail[0]
    Sequential(
      (0): Linear(in_features=4, out_features=2, bias=False)
      (1): Linear(in_features=2, out_features=2, bias=False)
    )
    >>> asm.log_prob(torch.randn(2, 4)).exp().sum(1)
    tensor([1.0000, 1.0000], grad_fn=<SumBackward1>)
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        _check_cutoffs(cutoffs, n_classes)
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        # NOTE: created head first, then each cluster's two projections, so that the same
        # seed initialises the same weights as PyTorch
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory),
                                        Linear(hidden, size, bias=False, **factory)))

    def reset_parameters(self):
        """Re-initialise the head, then each cluster's projections, in PyTorch's order."""
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        batched = _check_forward_shapes(input_, target_)
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)
        used_rows = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            mask = (target >= bounds[i]) & (target < bounds[i + 1])
            rows = mask.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, rows, target[mask])
            else:
                cluster_logprob = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)),
                                                dim=1)
                gather_inds.index_fill_(0, rows, self.shortlist_size + i - 1)
                relative = (target[mask] - bounds[i]).unsqueeze(1)
                output.index_copy_(0, rows, cluster_logprob.gather(1, relative).squeeze(1))
            used_rows += rows.numel()
        if used_rows != batch_size:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _get_full_log_prob(self, input, head_output):
        """Every class's log-probability given the input and the head's output."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i, (start, stop) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = (cluster_logprob
                                  + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return out

    def log_prob(self, input):
        """Log-probabilities of all ``n_classes`` for each row of ``input`` (N, in_features)."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each row: ``log_prob(input).argmax(1)``, computing the
        tail clusters only for rows whose head argmax falls outside the shortlist."""
        from ... import argmax
        head_output = self.head(input)
        output = argmax(head_output, dim=1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return argmax(self._get_full_log_prob(input, head_output), dim=1)
        log_prob = self._get_full_log_prob(input[outside], head_output[outside])
        output[outside] = argmax(log_prob, dim=1)
        return output


def _check_forward_shapes(input, target):
    """PyTorch's checks of (input, target); True when batched (1-d target)."""
    if target.dim() == 1:
        if input.size(0) != target.size(0):
            raise RuntimeError("Input and target should have the same size in the batch "
                               "dimension.")
        if input.dim() != 2:
            raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs "
                               f"with size {input.size()}")
        return True
    if target.dim() == 0:
        if input.dim() != 1:
            raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs "
                               f"with size {input.size()}")
        return False
    raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
