"""``torch.nn.utils.rnn``: packed and padded batches of variable-length sequences.

A ``PackedSequence`` stores a batch time step by time step: ``data`` holds, for each step
``t``, the rows of the ``batch_sizes[t]`` sequences still running (sorted longest first), so
``nn.RNN``/``LSTM``/``GRU`` skip the padding. Packing and padding are each other's gradient,
so they differentiate to any order.

>>> import numtorch as torch
>>> a, b = torch.tensor([1., 2., 3.]), torch.tensor([4., 5.])
>>> packed = pack_sequence([a, b])
>>> packed.data, packed.batch_sizes
(tensor([1., 4., 2., 5., 3.]), tensor([2, 2, 1]))
>>> padded, lengths = pad_packed_sequence(packed, batch_first=True)
>>> padded, lengths
(tensor([[1., 2., 3.],
        [4., 5., 0.]]), tensor([3, 2]))
"""
from collections import namedtuple

import numpy as np

from ... import _dtype as D
from ..._naming import torch_named
from ..._tensor import Tensor
from ...ops._base import BuiltinFunction

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]

_Fields = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices",
                                         "unsorted_indices"])


@torch_named  # prints as torch.nn.utils.rnn.PackedSequence where torch is numtorch
class PackedSequence(_Fields):
    """A packed batch: ``data`` (sum of lengths, *), ``batch_sizes`` (int64 per time step),
    and the permutations ``sorted_indices`` / ``unsorted_indices`` between the caller's batch
    order and the longest-first order (``None`` when the batch was already sorted).

    Build one with :func:`pack_padded_sequence` or :func:`pack_sequence`.

    >>> p = PackedSequence(torch.zeros(3, 2), torch.tensor([2, 1]), torch.tensor([1, 0]))
    >>> p.unsorted_indices
    tensor([1, 0])
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes))
            if not isinstance(data, (list, tuple)) or len(data) != 2:
                raise TypeError("Expected data to be a list or tuple of two tensors "
                                "(data, batch_sizes) when batch_sizes is None")
            data, batch_sizes = data
        if not isinstance(batch_sizes, Tensor):
            raise AttributeError(f"'{type(batch_sizes).__name__}' object has no attribute "
                                 "'device'")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """``data.to(...)``; the same PackedSequence when nothing changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args, **kwargs):
        return self.to("cpu", *args, **kwargs)

    def cuda(self, *args, **kwargs):
        return type(self)(self.data.cuda(*args, **kwargs), self.batch_sizes,
                          self.sorted_indices, self.unsorted_indices)

    def pin_memory(self):
        return self

    def double(self):
        return self.to(dtype=D.float64)

    def float(self):
        return self.to(dtype=D.float32)

    def half(self):
        return self.to(dtype=D.float16)

    def long(self):
        return self.to(dtype=D.int64)

    def int(self):
        return self.to(dtype=D.int32)

    def short(self):
        return self.to(dtype=D.int16)

    def char(self):
        return self.to(dtype=D.int8)

    def byte(self):
        return self.to(dtype=D.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The permutation undoing ``permutation`` (``None`` stays ``None``).

    >>> invert_permutation(torch.tensor([2, 0, 1]))
    tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    from ... import arange, empty_like
    return empty_like(permutation).scatter_(0, permutation, arange(permutation.numel()))


# ---- the two primitives: each is the other's gradient ---------------------------------------
def _batch_sizes_of(lengths):
    """batch_sizes[t] = how many of the (decreasing) lengths exceed t."""
    lengths = np.asarray(lengths)
    return [int((lengths > t).sum()) for t in range(int(lengths[0]))]


class PackPadded(BuiltinFunction):
    """data = rows of each time step's running sequences;  dx = g padded back with zeros."""
    _backward_name = "PackPaddedSequenceBackward0"

    @staticmethod
    def forward(ctx, x, batch_sizes, batch_first):
        ctx.batch_sizes, ctx.batch_first, ctx.shape = batch_sizes, batch_first, x.shape
        steps = x.swapaxes(0, 1) if batch_first else x
        return np.concatenate([steps[t, :b] for t, b in enumerate(batch_sizes)], 0)

    @staticmethod
    def backward(ctx, g):
        steps, batch = (ctx.shape[1], ctx.shape[0]) if ctx.batch_first else ctx.shape[:2]
        out = PadPacked.apply(g, ctx.batch_sizes, batch, steps, 0.0)
        return (out.transpose(0, 1) if ctx.batch_first else out), None, None


class PadPacked(BuiltinFunction):
    """out (steps, batch, *) = padding, with each step's running rows from data;
    ddata = those rows of g."""
    _backward_name = "CopySlices"
    _node_name = "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, data, batch_sizes, batch, steps, padding_value):
        ctx.batch_sizes = batch_sizes
        out = np.full((steps, batch) + data.shape[1:], padding_value, data.dtype)
        offset = 0
        for t, b in enumerate(batch_sizes):
            out[t, :b] = data[offset:offset + b]
            offset += b
        return out

    @staticmethod
    def backward(ctx, g):
        return PackPadded.apply(g, ctx.batch_sizes, False), None, None, None, None


class PadSequence(BuiltinFunction):
    """out = the sequences side by side, padded;  each sequence gets its block of g."""
    _backward_name = "CopySlices"
    _node_name = "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, batch_first, padding_value, left, *seqs):
        longest = max(s.shape[0] for s in seqs)
        out = np.full((len(seqs), longest) + seqs[0].shape[1:], padding_value, seqs[0].dtype)
        ctx.spans = [(longest - len(s) if left else 0, len(s)) for s in seqs]
        for i, (s, (start, n)) in enumerate(zip(seqs, ctx.spans)):
            out[i, start:start + n] = s
        ctx.batch_first = batch_first
        return out if batch_first else np.ascontiguousarray(out.swapaxes(0, 1))

    @staticmethod
    def backward(ctx, g):
        if not ctx.batch_first:
            g = g.transpose(0, 1)
        return (None, None, None) + tuple(g[i, start:start + n]
                                          for i, (start, n) in enumerate(ctx.spans))


# ---- public functions -------------------------------------------------------------------------
def _lengths_tensor(lengths):
    from ... import as_tensor
    if not isinstance(lengths, Tensor):
        return as_tensor(lengths, dtype=D.int64, device="cpu")
    return lengths.to(dtype=D.int64)


def _check_lengths(lengths, batch, enforce_sorted):
    if lengths.dim() != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D cpu Long tensor")
    if lengths.size(0) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lengths.size(0)} (batch_size={batch})")
    values = lengths.tolist()
    if values[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if enforce_sorted and any(a < b for a, b in zip(values, values[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    return values


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) of sequences with
    the given ``lengths``.

    Args:
        input: the padded batch.
        lengths: each sequence's length (a list or a 1-D tensor).
        batch_first: whether ``input`` is (B, T, *).
        enforce_sorted: require ``lengths`` in decreasing order; if False the batch is sorted
            here and the permutation kept in the result.

    >>> x = torch.tensor([[1, 0], [2, 3]])
    >>> pack_padded_sequence(x, [1, 2], batch_first=True, enforce_sorted=False).data
    tensor([2, 1, 3])
    """
    lengths = _lengths_tensor(lengths)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = lengths.sort(descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch = input.size(0 if batch_first else 1)
    values = _check_lengths(lengths, batch, enforce_sorted)
    steps = input.size(1 if batch_first else 0)
    if values[0] > steps:
        raise RuntimeError(f"pack_padded_sequence: a length of {values[0]} exceeds the "
                           f"{steps} time steps of the input")
    batch_sizes = _batch_sizes_of(values)
    data = PackPadded.apply(input, batch_sizes, batch_first)
    from ... import tensor
    return PackedSequence(data, tensor(batch_sizes, dtype=D.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Pad a PackedSequence back into (T, B, *) (or (B, T, *)); returns (padded, lengths).

    Args:
        sequence: the PackedSequence.
        batch_first: return (B, T, *).
        padding_value: the value of the padding.
        total_length: pad to this many steps (at least the longest sequence's length).
    """
    batch_sizes = sequence.batch_sizes.tolist()
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and "
                             f"max sequence length being {steps}")
        steps = total_length
    out = PadPacked.apply(sequence.data, batch_sizes, batch_sizes[0], steps, padding_value)
    if batch_first:
        out = out.transpose(0, 1)
    from ... import tensor
    lengths = tensor([sum(b > i for b in batch_sizes) for i in range(batch_sizes[0])],
                     dtype=D.int64)
    if sequence.unsorted_indices is not None:
        out = out.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return out, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shape (L_i, *) into (L_max, B, *) (or (B, L_max, *)), padded.

    >>> pad_sequence([torch.ones(2), torch.ones(3)], batch_first=True)
    tensor([[1., 1., 0.],
            [1., 1., 1.]])
    """
    if isinstance(sequences, Tensor) or not hasattr(sequences, "__iter__"):
        if not isinstance(sequences, Tensor):
            raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got "
                               f"arg of type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    return PadSequence.apply(batch_first, padding_value, padding_side == "left", *sequences)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences :func:`pad_sequence` padded, cut back to ``lengths``.

    As in PyTorch, a sequence-first ``padded_sequences`` is transposed in place.

    >>> x = torch.tensor([[1, 2], [3, 0]])
    >>> unpad_sequence(x, torch.tensor([2, 1]), batch_first=True)
    [tensor([1, 2]), tensor([3])]
    """
    from ... import arange
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    steps = arange(padded_sequences.shape[1])
    return [seq[steps < n] for seq, n in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of tensors of shape (L_i, *) (longest first unless ``enforce_sorted`` is
    False).

    >>> pack_sequence([torch.tensor([1]), torch.tensor([2, 3])], enforce_sorted=False)
    PackedSequence(data=tensor([2, 1, 3]), batch_sizes=tensor([2, 1]), sorted_indices=tensor([1, 0]), unsorted_indices=tensor([1, 0]))
    """
    lengths = _lengths_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of tensors :func:`pack_sequence` packed.

    >>> unpack_sequence(pack_sequence([torch.tensor([1, 2]), torch.tensor([3])]))
    [tensor([1, 2]), tensor([3])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
