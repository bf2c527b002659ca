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

__all__ = ["transpose_", "t_", "squeeze_", "unsqueeze_", "resize_", "resize_as_"]


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


def install():
    """Bind the methods on Tensor (``swapdims_`` and ``swapaxes_`` are ``transpose_``)."""
    for name in __all__:
        setattr(Tensor, name, globals()[name])
    Tensor.swapdims_ = Tensor.swapaxes_ = transpose_
