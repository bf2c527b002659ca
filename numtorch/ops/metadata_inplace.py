"""In-place view ops: ``transpose_``, ``t_``, ``swapdims_``, ``squeeze_``, ``unsqueeze_``,
``resize_``, ``resize_as_``.

They change the tensor's shape and strides, not its values. As in PyTorch they count as
in-place ops: the shared version counter goes up (a tensor saved for backward before the change
is caught), and the tensor's history gets the view op's node under its in-place name
(``TransposeBackward1``, ``UnsqueezeBackward1`` ...). A view stays a view of its base.

>>> import numtorch as torch
>>> x = torch.arange(6.).reshape(2, 3)
>>> x.t_().shape, x.stride(), x._version
(torch.Size([3, 2]), (1, 3), 1)
"""
import numpy as np

from .._tensor import Tensor
from . import shape as S
from .pooling import named
from ._util import wrap_dim, wrap_dims

__all__ = ["transpose_", "t_", "squeeze_", "unsqueeze_", "resize_", "resize_as_", "set_"]


def _apply(self, op, *args):
    """Make ``self`` the view ``op.apply(self, *args)``, as an in-place op."""
    self._check_inplace()
    res = op.apply(self, *args)
    self._data = res._data
    if res._grad_fn is not None:
        self._grad_fn, self._output_nr = res._grad_fn, res._output_nr
    self._vc[0] += 1
    if self._base is not None:  # still a view of the same base, one step further along
        self._view = res._view
        self._view_ver = self._vc[0]
    return self


def transpose_(self, dim0, dim1):
    """Swap two dims in place."""
    n = self.ndim
    return _apply(self, named(S.Transpose, "TransposeBackward1"), wrap_dim(dim0, n),
                  wrap_dim(dim1, n))


def t_(self):
    """Transpose a matrix in place (0-d and 1-d tensors stay as they are)."""
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.ndim}D")
    return _apply(self, named(S.T, "TBackward1"), 0, 1 if self.ndim == 2 else 0)


def squeeze_(self, dim=None):
    """Remove size-1 dims in place (all of them, or those in ``dim``)."""
    n = self.ndim
    if dim is None:
        dims = tuple(i for i, s in enumerate(self._data.shape) if s == 1)
        return _apply(self, named(S.SqueezeAll, "SqueezeBackward3"), dims)
    dims = wrap_dims(dim, n)  # a 0-d tensor takes dim 0 or -1 (PyTorch's range error else)
    if not n:
        dims = ()
    if isinstance(dim, (tuple, list)):
        return _apply(self, named(S.SqueezeDims, "SqueezeBackward5"), dims)
    return _apply(self, named(S.Squeeze, "SqueezeBackward4"), dims)


def unsqueeze_(self, dim):
    """Insert a size-1 dim in place."""
    return _apply(self, named(S.Unsqueeze, "UnsqueezeBackward1"), wrap_dim(dim, self.ndim + 1))


def resize_(self, *sizes, memory_format=None):
    """Give the tensor the shape ``sizes``: the first elements keep their values (in
    row-major order), new ones are uninitialised (zeros here).

    >>> torch.arange(6.).resize_(2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    sizes = tuple(int(s) for s in sizes)
    if self._rg:
        raise RuntimeError("cannot resize variables that require grad")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(sizes)}: [{', '.join(map(str, sizes))}]")
    flat = np.ascontiguousarray(self._data).reshape(-1)
    n = int(np.prod(sizes, dtype=np.int64))
    if n <= flat.size and self._data.flags.c_contiguous:
        data = flat[:n].reshape(sizes)  # the same memory, as PyTorch's storage is kept
    else:
        data = np.zeros(n, self._data.dtype)
        data[:min(n, flat.size)] = flat[:n]
        data = data.reshape(sizes)
    self._data = data
    self._vc[0] += 1
    return self


def resize_as_(self, the_template, memory_format=None):
    """``resize_`` to the shape of ``the_template``."""
    return resize_(self, tuple(the_template.shape))


_NO_SOURCE = object()


def set_(self, source=_NO_SOURCE, storage_offset=None, size=None, stride=None):
    """Make this tensor use ``source``'s memory (a tensor's, with its shape and strides, or a
    storage's, as ``storage_offset``/``size``/``stride`` lay it out); no source: empty.

    >>> a, b = torch.zeros(3), torch.ones(2, 2)
    >>> a.set_(b).shape, a.data_ptr() == b.data_ptr()
    (torch.Size([2, 2]), True)
    """
    from .. import storage as S
    from ..autograd.grad_mode import STATE
    self._check_inplace()
    dt = self._data.dtype
    if isinstance(source, Tensor) and source._data.dtype != dt:
        from .linalg import _NAMES
        raise RuntimeError(f"Could not set tensor of type {_NAMES[source.dtype.name]} to a "
                           f"tensor of type {_NAMES[self.dtype.name]}")
    if STATE.enabled and (self._rg or getattr(source, "_rg", False)):
        raise NotImplementedError("numtorch does not support autograd through set_ (PyTorch "
                                  "records a NotImplemented node): call it under no_grad")
    if source is _NO_SOURCE:
        data = np.empty(0, dt)
    elif isinstance(source, Tensor) and storage_offset is None:
        data = source._data.view()  # (the same memory, shape and strides)
    else:
        if isinstance(source, Tensor):
            memory = S.storage_of(source._data)._array
        elif isinstance(source, (S.UntypedStorage, S.TypedStorage)):
            memory = source.untyped()._array
        else:
            from ._arg_errors import bad_argument
            raise bad_argument(TypeError(f"set_(): argument 'source' (position 1) must be "
                                         f"Tensor, not {type(source).__name__}"))
        data = _storage_view(memory.view(dt) if memory.size % dt.itemsize == 0 else
                             memory[:memory.size - memory.size % dt.itemsize].view(dt),
                             storage_offset or 0, size, stride)
    self._data = data
    self._vc[0] += 1
    return self


def _storage_view(elements, offset, size, stride):
    """The array of ``size`` and ``stride`` (in elements; contiguous by default) at
    ``offset`` of the 1-d array ``elements``, after PyTorch's bounds check."""
    from .scatter_ops import _check_storage
    size = (elements.size - offset,) if size is None else tuple(int(n) for n in size)
    if stride is None:
        stride, step = [], 1
        for n in reversed(size):
            stride.insert(0, step)
            step *= max(n, 1)
    stride = tuple(int(st) for st in stride)
    if len(stride) != len(size):
        raise RuntimeError("mismatch in length of strides and shape")
    need = offset + sum((n - 1) * st for n, st in zip(size, stride)) + 1
    if all(size) and need > elements.size:
        raise NotImplementedError(f"set_: numtorch cannot grow a storage of {elements.size} "
                                  f"elements to the {need} that size {list(size)}, stride "
                                  f"{list(stride)} and offset {offset} need (PyTorch resizes "
                                  f"it)")
    _check_storage(size, stride, offset, elements.size, elements.itemsize)
    return np.lib.stride_tricks.as_strided(elements[offset:], size,
                                           tuple(st * elements.itemsize for st in stride))


def install():
    """Bind the methods on Tensor (``swapdims_`` and ``swapaxes_`` are ``transpose_``)."""
    for name in __all__:
        setattr(Tensor, name, globals()[name])
    Tensor.swapdims_ = Tensor.swapaxes_ = transpose_
