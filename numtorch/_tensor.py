"""``Tensor``: a NumPy array plus what autograd needs (grad_fn, requires_grad, version).

Arithmetic and math methods are installed by ``numtorch.ops`` (each is a ``Function``); this
module holds the data model: construction, views and their shared version counter, autograd
entry points, conversions and Python protocols.

>>> import numtorch as torch
>>> x = torch.tensor([[1., 2.]], requires_grad=True)
>>> x.shape, x.dtype, x.is_leaf
(torch.Size([1, 2]), torch.float32, True)
"""
import warnings
import weakref

import numpy as np

from . import _dtype as D
from ._layout import dim_order as _dim_order
from ._size import Size
from .storage import (TypedStorage, data_ptr as _data_ptr, root_array as _root_array,
                      storage_of as _storage_of, warn_typed_storage_removal)
from .autograd.grad_mode import INFERENCE_BLOCKS as _INFERENCE_BLOCKS, STATE
from .autograd.graph import AccumulateGrad, MUTATION_HOOKS
from .autograd.engine import OWNED_GRAD, same_layout as _same_layout

__all__ = ["Tensor"]

_ndarray = np.ndarray
_new_size = tuple.__new__  # a Size of a NumPy shape, without Size()'s checks of user input


class _InferenceVC(list):
    """The version counter of an inference tensor (made under ``inference_mode``; shared by
    its views): marks the tensor as an inference tensor."""
    __slots__ = ()

    def __setitem__(self, i, v):
        # PyTorch writes, then raises when bumping the version outside inference mode
        if not STATE.inference:
            raise RuntimeError(_INF_INPLACE_MSG)
        list.__setitem__(self, i, v)


# PyTorch warns once per process (TORCH_WARN_ONCE) when float()/complex() reads a tensor
# that requires grad while grad mode is on
_SCALAR_GRAD_WARNED = [False]
_SCALAR_GRAD_MSG = ("Converting a tensor with requires_grad=True to a scalar may lead to "
                    "unexpected behavior.\nConsider using tensor.detach() first. (Triggered "
                    "internally at /__w/pytorch/pytorch/torch/csrc/autograd/generated/"
                    "python_variable_methods.cpp:822.)")


def _warn_scalar_of_grad_tensor(t):
    """Warn (once per process, as PyTorch) that ``float(t)``/``complex(t)`` reads a tensor
    that requires grad, with grad mode on (under no_grad PyTorch says nothing)."""
    if not _SCALAR_GRAD_WARNED[0] and STATE.enabled and t.requires_grad:
        _SCALAR_GRAD_WARNED[0] = True
        warnings.warn(_SCALAR_GRAD_MSG, UserWarning, stacklevel=3)


_INF_INPLACE_MSG = ("Inplace update to inference tensor outside InferenceMode is not allowed."
                    "You can make a clone to get a normal tensor before doing inplace update."
                    "See https://github.com/pytorch/rfcs/pull/17 for more details.")


def _grad_copy(g, var):
    """A leaf's first gradient: a copy of ``g`` laid out like the leaf (PyTorch's layout
    contract: ``.grad`` of a contiguous parameter is contiguous, however it was computed)."""
    if var.flags.c_contiguous:
        return np.array(g, order="C")
    if var.flags.f_contiguous:
        return np.array(g, order="F")
    out = np.empty_like(var)
    np.copyto(out, g)
    return out


def _check_storage(data):
    """PyTorch's error for reading the memory of a batched tensor inside vmap (it has none
    of its own); other data passes."""
    from .func._batching import BatchedData
    if isinstance(data, BatchedData):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")


def _check_no_batched_storage(data):
    """``untyped_storage()`` / ``storage()`` of a batched tensor inside vmap: PyTorch's error
    (a batched tensor has no storage of its own)."""
    from .func._batching import BatchedData
    if isinstance(data, BatchedData):
        raise NotImplementedError("Cannot access storage of BatchedTensorImpl")


class Tensor:
    """A multi-dimensional array with autograd, following ``torch.Tensor``."""

    # ``type(t)`` prints as PyTorch's ``<class 'torch.Tensor'>``; pickling names the class
    # only for subclasses (see __reduce_ex__), so nothing looks for a ``torch`` module
    __module__ = "torch"

    # _view: for a view, the chain of view ops from _base ((op class, args), ...) and
    # _view_ver: the version its grad_fn was made at (set only where _view is not None)
    __slots__ = ("_data", "_grad_fn", "_rg", "_vcs", "_output_nr", "_grad", "_base", "_view",
                 "_view_ver", "_extra", "__dict__", "__weakref__")
    __array_priority__ = 1000  # NumPy defers to our reflected operators

    # ---- construction ------------------------------------------------------------------
    @staticmethod
    def _make(data, grad_fn, rg):
        """Wrap an ndarray without copying (the hot path: no checks)."""
        t = object.__new__(Tensor)
        t._data = data
        t._grad_fn = grad_fn
        t._rg = rg
        t._vcs = None if not _INFERENCE_BLOCKS[0] or not STATE.inference else _InferenceVC((0,))
        t._output_nr = 0
        t._grad = None
        t._base = None
        t._view = None
        t._extra = None
        return t

    def _init_from(self, data, requires_grad=False):
        self._data = data
        self._grad_fn = None
        self._rg = requires_grad
        self._vcs = None if not STATE.inference else _InferenceVC((0,))
        self._output_nr = 0
        self._grad = self._base = self._view = self._extra = None

    def __new__(cls, *args, **kwargs):
        """``torch.Tensor(data)`` copies data as float32; ``torch.Tensor(2, 3)`` is uninitialised."""
        from ._creation import legacy_tensor
        return legacy_tensor(cls, args, kwargs)  # (torch.Tensor(tensor): an alias of it)

    def __init__(self, *args, **kwargs):
        pass

    # ---- subclasses and the __torch_function__ protocol (numtorch/overrides.py) ----------
    def __init_subclass__(cls, **kwargs):
        # NOTE: a subclass that dispatches gets its own wrappers for the methods it
        # inherits: the plain Tensor class and its hot paths stay as they are
        super().__init_subclass__(**kwargs)
        from .overrides import _subclass_defined
        _subclass_defined(cls)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Run ``func`` and give the tensors it returns the class ``cls`` (PyTorch's
        default for subclasses); NotImplemented when some type in ``types`` is not a
        superclass of ``cls``."""
        from .overrides import default_torch_function
        return default_torch_function(cls, func, types, args, kwargs)

    def as_subclass(self, cls):
        """This tensor's data viewed as an instance of ``cls``, a subclass of Tensor (an
        alias: same memory and version counter; in the graph as AliasBackward0)."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(_NOT_A_SUBCLASS)
        from .ops.indexing import AliasIndex
        return _retype(AliasIndex.apply(self, (Ellipsis,)), cls)

    @staticmethod
    def _make_subclass(cls, data, require_grad=False, *args, **kwargs):
        """A new leaf of class ``cls`` over ``data``'s memory and version counter
        (``data.detach()`` as an instance of ``cls``), requiring grad as asked."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(_NOT_A_SUBCLASS)
        if not isinstance(data, Tensor):
            raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, "
                            f"not {type(data).__name__}")
        if type(require_grad) is not bool:
            from .ops._util import tp_name
            raise TypeError(f"_make_subclass(): argument 'require_grad' (position 3) must be "
                            f"bool, not {tp_name(require_grad)}")
        t = object.__new__(cls)
        t._init_from(data._data, False)
        t._vc = data._vc
        if require_grad:
            t.requires_grad_(True)
        return t

    def _alias(self):
        """A new Tensor object over the same data and version counter (a view of ``self``)."""
        t = Tensor._make(self._data, self._grad_fn, self._rg)
        t._output_nr = self._output_nr
        t._vc = self._vc
        t._base = self._base if self._base is not None else self
        t._view = self._view or ()
        t._view_ver = self._vc[0]
        return t

    # ---- metadata ----------------------------------------------------------------------
    @property
    def shape(self):
        return _new_size(Size, self._data.shape)

    def size(self, dim=None, **numpy_names):
        """The shape as ``torch.Size``, or the length of dimension ``dim`` (also spelled
        ``axis``, as PyTorch's parser allows; handled here, not by ``ops/_numpy_names``'s
        wrapper, which would add a call to this hot method)."""
        if numpy_names:
            from .ops._numpy_names import rename
            if dim is not None:
                numpy_names["dim"] = dim
            rename("size", numpy_names)
            dim = numpy_names.pop("dim", None)
            if numpy_names:
                raise TypeError(f"size() got an unexpected keyword argument "
                                f"'{next(iter(numpy_names))}'")
        if dim is None:
            return _new_size(Size, self._data.shape)
        return self._data.shape[self._wrap_size_dim(dim)]

    @property
    def dtype(self):
        return D._FROM_NP[self._data.dtype]

    @property
    def device(self):
        from ._device import CPU
        return CPU

    @property
    def is_cuda(self):
        return False

    @property
    def is_sparse(self):
        return False

    @property
    def is_quantized(self):
        return False

    @property
    def is_meta(self):
        return False

    @property
    def is_cpu(self):
        return True

    # PyTorch's device and layout flags that never hold here: numtorch tensors are dense
    # strided tensors on the CPU
    is_nested = is_mkldnn = is_sparse_csr = is_xla = is_xpu = is_mps = is_ipu = is_vulkan = \
        is_maia = is_mtia = property(lambda self: False)

    def is_distributed(self):
        """Always False (PyTorch's legacy flag; no tensor is distributed)."""
        return False

    @property
    def layout(self):
        from ._device import strided
        return strided

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    def stride(self, dim=None):
        """Strides in elements, as PyTorch reports them."""
        shape = self._data.shape
        item = self._data.itemsize
        st = [s // item for s in self._data.strides]
        if self._data.size == 0 and not any(st):  # NumPy allocates empty arrays stride-less
            st = list(_contiguous_strides(shape))
        # NOTE: NumPy gives a new axis (x[None]) stride 0; PyTorch gives it the stride of the
        # next dim times that dim's size (1 for a new last dim), as unsqueeze does.
        for d in range(len(st) - 1, -1, -1):
            if shape[d] == 1 and st[d] == 0:
                st[d] = st[d + 1] * shape[d + 1] if d + 1 < len(st) else 1
        st = tuple(st)
        return st if dim is None else st[self._wrap_size_dim(dim)]

    def is_contiguous(self, memory_format=None):
        if memory_format is None or memory_format.name in ("contiguous_format",
                                                           "preserve_format"):
            return self._data.flags.c_contiguous
        from ._layout import _is_contiguous_as  # channels_last: NHWC order in memory
        return _is_contiguous_as(tuple(self._data.shape), self.stride(), memory_format)

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_signed(self):
        return self.dtype.is_signed

    def is_same_size(self, other):
        """Whether ``other`` has this tensor's shape."""
        if not isinstance(other, Tensor):
            raise TypeError("is_same_size(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(other).__name__}")
        return self._data.shape == other._data.shape

    def get_device(self):
        return -1

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    # ---- storage: the buffer this tensor views ---------------------------------------------
    def storage_offset(self):
        """Elements between the start of the buffer this tensor views and its first element.

        The buffer is the NumPy array owning the memory (the end of the ``base`` chain), as
        PyTorch's storage is the memory a view shares with its base.

        >>> torch.arange(6.).view(2, 3)[1:].storage_offset()
        3
        """
        delta = _data_ptr(self._data) - _data_ptr(_root_array(self._data))
        return delta // self._data.itemsize

    def untyped_storage(self):
        """The bytes of the whole buffer this tensor views (a view of them, not a copy).

        >>> x = torch.zeros(2, 3)
        >>> x.untyped_storage().nbytes(), x[1:].untyped_storage().data_ptr() == x.data_ptr()
        (24, True)
        """
        if type(self._data) is not np.ndarray:
            _check_no_batched_storage(self._data)
        return _storage_of(self._data)

    def storage(self):
        """The buffer this tensor views, read as elements of its dtype (``TypedStorage``,
        which PyTorch deprecates: it warns once, as PyTorch does)."""
        warn_typed_storage_removal(stacklevel=2)
        if type(self._data) is not np.ndarray:
            _check_no_batched_storage(self._data)
        return TypedStorage(_storage_of(self._data), self.dtype)

    def is_set_to(self, tensor):
        """Whether both tensors view the same buffer with the same offset, sizes and strides
        (the dtype may differ, as in PyTorch).

        >>> x = torch.zeros(2, 3)
        >>> x.is_set_to(x.detach()), x.is_set_to(x.view(6))
        (True, False)
        """
        if not isinstance(tensor, Tensor):
            raise TypeError("is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                            f"{type(tensor).__name__}")
        a, b = self._data, tensor._data
        return (_root_array(a) is _root_array(b) and a.shape == b.shape
                and self.storage_offset() == tensor.storage_offset()
                and self.stride() == tensor.stride())

    dim_order = _dim_order

    def _wrap_size_dim(self, dim):
        if self._data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._wrap_dim(dim)

    def _wrap_dim(self, dim):
        n = self._data.ndim
        if type(dim) is int and -n <= dim < n:
            # NOTE: the common case (``x.size(0)``, ``x.size(-1)``) without the function-level
            # import below, which costs more than the rest of the call
            return dim + n if dim < 0 else dim
        from .ops._util import wrap_dim
        return wrap_dim(dim, n)

    # ---- autograd ----------------------------------------------------------------------
    @property
    def requires_grad(self):
        if self._view is not None and self._view_ver != self._vc[0]:
            try:
                _refresh_view(self)
            except RuntimeError:
                # a view whose history cannot be regenerated (its grad_fn raises): as in
                # PyTorch, requires_grad itself still answers, through the base
                return self._rg or self._base.requires_grad
        return self._rg

    @requires_grad.setter
    def requires_grad(self, value):
        if type(value) is not bool:  # (PyTorch's setter: no int, no NumPy bool)
            raise RuntimeError("requires_grad must be a bool")
        if value and self._grad_fn is None and not (self.dtype.is_floating_point or
                                                    self.dtype.is_complex):
            # (the setter's wording differs from requires_grad_()'s)
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Set whether autograd records operations on this (leaf) tensor. Returns self.

        ``requires_grad`` must be a Python bool (PyTorch's parser refuses ints, NumPy bools
        and tensors with a TypeError)."""
        if type(requires_grad) is not bool:
            from .ops._util import tp_name
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {tp_name(requires_grad)}")
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return self
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and type(self._vcs) is _InferenceVC and not STATE.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        if self._extra is not None and "ng_view" in self._extra:
            # a view made in no_grad mode requires grad through its base whatever its own
            # flag, which (as in PyTorch) decides whether gradients accumulate in its .grad
            self._extra["ng_view_acc"] = requires_grad
            return self
        self._rg = requires_grad
        return self

    @property
    def grad_fn(self):
        if self._view is not None and self._view_ver != self._vc[0]:
            _refresh_view(self)
        return self._grad_fn

    @property
    def is_leaf(self):
        if self._view is not None and self._view_ver != self._vc[0]:
            _refresh_view(self)  # (PyTorch's is_leaf asks grad_fn, with its errors)
        return self._grad_fn is None

    @property
    def grad(self):
        if self._grad is None and self._grad_fn is not None and not self._retains():
            import warnings
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally "
                "at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)",
                UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{_dims(value._data.shape)}' to "
                    f"a tensor of size '{_dims(self._data.shape)}'. Please ensure that the "
                    "gradient and the tensor are the same size")
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{D.CPP_NAMES[value.dtype]}' "
                    f"to a tensor with grad_dtype '{D.SCALAR_NAMES[self.dtype]}'. The gradient "
                    "must match the tensor's grad_dtype (defaults to the tensor's dtype). You "
                    "can set the tensor's grad_dtype attribute with a specific dtype, or None "
                    "to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
                    "tensor and its gradient may break downstream systems that assume they "
                    "match.")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    # ---- version counter -----------------------------------------------------------------
    # ``_vc``: the version counter, a one-item list (``_InferenceVC`` for an inference
    # tensor) shared by views and detached aliases; in-place writes bump ``_vc[0]``. Most
    # tensors are never written in place nor shared, so the slot ``_vcs`` stays None (version
    # 0) until something asks for the list: a list fewer for every op output. Hot paths read
    # the version without making the list: ``0 if t._vcs is None else t._vcs[0]``.
    @property
    def _vc(self):
        vc = self._vcs
        if vc is None:
            vc = self._vcs = [0]
        return vc

    @_vc.setter
    def _vc(self, vc):
        self._vcs = vc

    @property
    def _version(self):
        vc = self._vcs
        if type(vc) is _InferenceVC:
            raise RuntimeError("Inference tensors do not track version counter.")
        return 0 if vc is None else vc[0]

    def _is_view(self):
        return self._base is not None

    def is_inference(self):
        """Whether this tensor was made under ``torch.inference_mode()``."""
        return type(self._vcs) is _InferenceVC

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def retains_grad(self):
        return self._retains()

    def _retains(self):
        return self._extra is not None and self._extra.get("retains_grad", False)

    def _edge(self):
        """The (node, output_nr) a gradient for this tensor flows into."""
        fn = self._grad_fn
        if fn is not None:
            if self._view is not None and self._view_ver != self._vc[0]:
                _refresh_view(self)
                fn = self._grad_fn
            return (fn, self._output_nr)
        if not self._rg:
            return (None, 0)
        # NOTE: a leaf's AccumulateGrad (weakly) and tensor hooks are kept in _extra, with the
        # other attributes few tensors have: two slots less make every Tensor 16 bytes
        # smaller (~3-4 % of a custom Function call, benchmark W2)
        ex = self._extra
        ref = ex.get("acc") if ex is not None else None
        acc = ref() if ref is not None else None
        if acc is None:
            if ex is not None and "ng_view" in ex and not ex.get("ng_view_acc"):
                return (None, 0)  # a view made in no_grad mode: no accumulator, as PyTorch
            acc = AccumulateGrad(self)
            self._set_extra("acc", weakref.ref(acc))
        return (acc, 0)

    def _leaf_hooks(self):
        """This leaf's tensor hooks (a dict by handle id), or None."""
        ex = self._extra
        return ex.get("hooks") if ex is not None else None

    def _set_extra(self, key, value):
        if self._extra is None or self._extra is OWNED_GRAD:  # (that one is shared)
            self._extra = {}
        self._extra[key] = value

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor into the ``.grad`` of the leaves."""
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return a new one."""
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self._grad_fn is not None:
            return self._grad_fn._add_tensor_hook(self._output_nr, hook)
        from .utils.hooks import RemovableHandle
        hooks = self._leaf_hooks()
        if hooks is None:
            hooks = {}
            self._set_extra("hooks", hooks)
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    @property
    def _backward_hooks(self):
        """The hooks ``register_hook`` gave this tensor, as PyTorch shows them: None before
        the first, then an OrderedDict by handle id (a copy: numtorch keeps them on the
        leaf, or on the grad_fn for its output)."""
        fn = self._grad_fn
        hooks = self._leaf_hooks() if fn is None else \
            (fn._tensor_hooks or {}).get(self._output_nr)
        if hooks is None:
            return None
        from collections import OrderedDict
        return OrderedDict(hooks)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after a gradient was accumulated into this leaf's ``.grad``."""
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        from .utils.hooks import RemovableHandle
        hooks = self._extra.get("post_acc") if self._extra else None
        if hooks is None:
            hooks = {}
            self._set_extra("post_acc", hooks)
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after backward."""
        if not self._rg:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains():
            return
        node = self._grad_fn
        if node._retain is None:
            node._retain = {}
        node._retain[self._output_nr] = weakref.ref(self)
        self._set_extra("retains_grad", True)

    def _retain_grad_update(self, g):
        if self._grad is None:
            self._grad = g.detach().clone() if not STATE.enabled else g.clone()
        else:
            self._grad = self._grad + g

    def _accumulate_grad(self, g, create_graph):
        """AccumulateGrad's work: store or add ``g`` into ``.grad``, then post-accumulate hooks."""
        old = self._grad
        if old is None:
            if create_graph:  # a copy that stays in the graph, as PyTorch makes it
                from .ops.inplace import Copy
                self._grad = Copy.apply(Tensor._make(np.empty_like(self._data), None, False), g)
            elif g._extra is OWNED_GRAD and _same_layout(g._data, self._data):
                # NOTE: as PyTorch's AccumulateGrad, which steals a gradient nothing else
                # references: the array is fresh from a backward formula, no copy needed
                g._extra = None
                self._grad = g
            else:
                self._grad = Tensor._make(_grad_copy(g._data, self._data), None, False)
                # PyTorch copies into a fresh tensor laid out as the leaf (copy_: version 1)
                self._grad._vcs = [1]
        elif create_graph:
            self._grad = old + g
        else:
            np.add(old._data, g._data, out=old._data, casting="unsafe")
            old._vc[0] += 1
        hooks = self._extra.get("post_acc") if self._extra else None
        if hooks:
            for hook in list(hooks.values()):
                if hook(self) is not None:
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")

    def detach(self):
        """A tensor sharing data and version counter, outside the graph."""
        t = Tensor._make(self._data, None, False)
        t._vc = self._vc
        return t

    def detach_(self):
        """Detach this tensor from the graph in place (it becomes a leaf). A view cannot be
        (PyTorch refuses any view, whether or not its base requires grad)."""
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are "
                               "using DistributedDataParallel (DDP) for training, and "
                               "gradient_as_bucket_view is set as True, gradients are views of "
                               "DDP buckets, and hence detach_() cannot be called on these "
                               "gradients. To fix this error, please refer to the "
                               "Optimizer.zero_grad() function in torch/optim/optimizer.py as "
                               "the solution.")
        self._grad_fn = None
        self._rg = False
        self._output_nr = 0
        return self

    @property
    def data(self):
        """The same memory outside the graph, with its own version counter (as in PyTorch,
        in-place changes through ``.data`` go unnoticed by autograd)."""
        return Tensor._make(self._data, None, False)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._rg and not (value.dtype.is_floating_point or value.dtype.is_complex):
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        self._data = value._data

    def _rebase_history(self, node, output_nr, input_nr):
        """Make this tensor the output ``output_nr`` of ``node`` after an in-place change.

        A view routes the change through its base with a CopySlices node, so gradients of the
        base see it (``input_nr`` is the node input that held the view's old value).
        """
        if self._extra is not None and self._extra.get("retains_grad"):
            # as in PyTorch, .grad stays the gradient of the tensor's current value
            old = self._grad_fn
            old._retain.pop(self._output_nr, None)
            self._extra["retains_grad"] = False
            self._rebase_history_to(node, output_nr, input_nr)
            self.retain_grad()
            return
        self._rebase_history_to(node, output_nr, input_nr)

    def _rebase_history_to(self, node, output_nr, input_nr):
        if self._base is None:
            self._grad_fn, self._output_nr, self._rg = node, output_nr, True
            return
        from .autograd._copy_slices import rebase_view
        rebase_view(self, node, output_nr, input_nr)

    def _check_inplace(self):
        """PyTorch's errors for an in-place change of a leaf that requires grad (or its view)."""
        if MUTATION_HOOKS:  # allow_mutation_on_saved_tensors: clone saved values first
            for hook in MUTATION_HOOKS:
                hook(self)
        if not STATE.enabled:
            return
        if self._extra and "cf_view" in self._extra:
            from .autograd._copy_slices import custom_view_error
            raise custom_view_error(self)
        if self._extra is not None and "ng_view" in self._extra:
            from .autograd._copy_slices import no_grad_view_error
            raise no_grad_view_error(self)
        if self._view is not None and self._rg:
            # an unbind/split output: refused before the write, ahead of the leaf errors
            from .autograd._copy_slices import multi_output_view_error
            err = multi_output_view_error(self)
            if err is not None:
                raise err
        if self._grad_fn is None and self._rg:
            if self._base is not None:
                raise RuntimeError("a view of a leaf Variable that requires grad is being used "
                                   "in an in-place operation.")
            raise RuntimeError("a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        base = self._base
        if base is not None and base._grad_fn is None and base._rg:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")

    # ---- conversions -------------------------------------------------------------------
    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, *, force=False):
        """The underlying ndarray (shared memory)."""
        if self._rg and STATE.enabled and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        d = self._data
        if type(d) is not np.ndarray:
            _check_storage(d)
        return d

    def __array__(self, dtype=None, copy=None):
        d = self._data
        if type(d) is not np.ndarray:
            _check_storage(d)
        if dtype is None:
            return d
        return d.astype(dtype, copy=False)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self.dim() == 0:  # (self.dim(): what a subclass's __torch_function__ sees)
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element):
        """``element in t``: whether some entry equals ``element`` (broadcast), as PyTorch."""
        import numbers
        if not isinstance(element, (Tensor, numbers.Number)):
            raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you "
                               f"passed in a {type(element)}.")
        return bool((element == self).any())

    def is_nonzero(self):
        """Whether the single element is nonzero (nan is), with ``bool()``'s errors."""
        return Tensor.__bool__(self)

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with more than one value is ambiguous"
                               if self._data.size > 1 else
                               "Boolean value of Tensor with no values is ambiguous")
        return bool(self._data.reshape(()).item())

    def __float__(self):
        _warn_scalar_of_grad_tensor(self)
        return float(self._scalar_for("float"))

    def __int__(self):
        return int(self._scalar_for("int"))

    def __complex__(self):
        _warn_scalar_of_grad_tensor(self)
        return complex(self._scalar_for("complex"))

    def __index__(self):
        if self.dtype.is_floating_point or self.dtype.is_complex or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self._data.reshape(()).item())

    def _scalar_for(self, what):
        if self._data.size != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars")
        value = self._data.reshape(()).item()
        if what != "complex" and isinstance(value, complex):
            # PyTorch converts a complex value to a real only when its imaginary part is 0
            if value.imag:
                target = "double" if what == "float" else "int64_t"
                raise RuntimeError(f"value cannot be converted to type {target} without "
                                   "overflow")
            return value.real
        return value

    def __hash__(self):
        return id(self)

    def __repr__(self, *, tensor_contents=None):
        from ._tensor_str import tensor_repr
        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0 and type(self) is Tensor:  # (a subclass: object's format)
            return self._data.item().__format__(spec)
        return object.__format__(self, spec)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        if type(self) is not Tensor and type(self.new_empty([])) is not type(self):
            # as PyTorch: a subclass's copy is made by its new_empty, which by default gives
            # a plain Tensor here (dispatch is off inside __deepcopy__)
            raise RuntimeError(_SUBCLASS_DEEPCOPY_MSG)
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        new = object.__new__(type(self))
        new._init_from(_deepcopy_array(self._data, memo), self._rg)
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        if self.__dict__:
            import copy
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    def __reduce_ex__(self, protocol):
        cls = type(self)
        return (_rebuild, (None if cls is Tensor else cls, self._data.copy(order="K"),
                           self._rg, dict(self.__dict__)))

    def __setstate__(self, state):
        pass


_NOT_A_SUBCLASS = ("Creating a Tensor subclass from a class that does not inherit from Tensor "
                   "is not possible. Make sure your class inherits from Tensor.")


_SUBCLASS_DEEPCOPY_MSG = (
    "The default implementation of __deepcopy__() for non-wrapper subclasses only works for "
    "subclass types that implement new_empty() and for which that function returns another "
    "instance of the same subclass. You should either properly implement new_empty() for your "
    "subclass or override __deepcopy__() if it is intended behavior for new_empty() to return "
    "an instance of a different type.")


def _retype(t, cls):
    """``t`` (a fresh tensor) as an instance of ``cls``."""
    if cls is Tensor:
        return t
    try:
        t.__class__ = cls
        return t
    except TypeError:  # a class with its own __slots__: another layout, copy the state
        new = object.__new__(cls)
        for name in Tensor.__slots__[:-2]:
            if hasattr(t, name):
                setattr(new, name, getattr(t, name))
        return new


def _deepcopy_array(arr, memo):
    """A copy of ``arr`` over a copy of its whole storage, made once per deepcopy (``memo``):
    tensors sharing memory (a tensor and its slices) stay sharing it, as in PyTorch."""
    from .storage import data_ptr, root_array
    root = root_array(arr)
    if arr.size == 0 or min(arr.strides, default=0) < 0 or not (
            root.flags.c_contiguous or root.flags.f_contiguous):
        return arr.copy(order="K")  # no single block to copy (rare): the elements alone
    key = ("numtorch storage", id(root))
    if key not in memo:
        memo[key] = (root, root.copy(order="A"))  # the original held: its id stays unique
    offset = data_ptr(arr) - data_ptr(root)
    return np.ndarray(arr.shape, arr.dtype, buffer=memo[key][1], offset=offset,
                      strides=arr.strides)


def _rebuild(cls, data, requires_grad, attrs):
    t = object.__new__(Tensor if cls is None else cls)
    t._init_from(data, requires_grad)
    t.__dict__.update(attrs)
    return t


def _refresh_view(view):
    """A view whose base changed in place since its grad_fn was made gets a new one from the
    base's current history (PyTorch regenerates it the same way, as AsStridedBackward0)."""
    from .autograd._copy_slices import refresh_view
    refresh_view(view)


def _dims(shape):
    return "[" + ", ".join(map(str, shape)) + "]"


def _contiguous_strides(shape):
    strides = []
    acc = 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def _bind_autograd():
    # autograd is imported before Tensor exists; give its modules the class now
    from .autograd import function, graph, _api
    function.Tensor = graph.Tensor = _api.Tensor = Tensor


_bind_autograd()
