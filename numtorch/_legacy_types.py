"""The legacy typed tensor constructors: ``torch.FloatTensor``, ``torch.LongTensor`` ...

Each is a class of PyTorch's metaclass ``torch.tensortype``, not a Tensor subclass: calling
it builds an ordinary Tensor of its dtype (from data, or uninitialised from sizes), and
``isinstance(t, torch.LongTensor)`` asks whether ``t`` is an int64 tensor.

>>> from numtorch import _dtype
>>> LongTensor([1.5, -2.7])
tensor([ 1, -2])
>>> isinstance(LongTensor(2), LongTensor), isinstance(FloatTensor(2), LongTensor)
(True, False)
>>> FloatTensor
<class 'torch.FloatTensor'>
"""
from . import _dtype as D
from ._tensor import Tensor

__all__ = ["tensortype", "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor",
           "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


class tensortype(type):
    """The metaclass of the legacy tensor types (``<class 'torch.tensortype'>``)."""

    __module__ = "torch"

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __subclasscheck__(cls, sub):
        return sub is cls

    def __call__(cls, *args, **kwargs):
        """``torch.LongTensor(data)`` / ``torch.LongTensor(*sizes)``, as ``torch.Tensor`` but
        of this type's dtype."""
        from ._creation import legacy_tensor
        return legacy_tensor(Tensor, args, kwargs, cls.dtype)


def legacy_type(dtype, kind=tensortype, module="torch"):
    """The legacy type ``module.<Name>Tensor`` of ``dtype`` made by metaclass ``kind``
    (``torch.cuda``'s are a subclass of ``tensortype``)."""
    cuda = module == "torch.cuda"
    return kind(D.LEGACY_NAMES[dtype], (), {
        "__module__": module, "__slots__": (), "dtype": dtype, "is_cuda": cuda,
        "is_sparse": False,
        "__doc__": f"Legacy {'CUDA ' if cuda else ''}constructor of {dtype!r} tensors."})


FloatTensor = legacy_type(D.float32)
DoubleTensor = legacy_type(D.float64)
HalfTensor = legacy_type(D.float16)
LongTensor = legacy_type(D.int64)
IntTensor = legacy_type(D.int32)
ShortTensor = legacy_type(D.int16)
CharTensor = legacy_type(D.int8)
ByteTensor = legacy_type(D.uint8)
BoolTensor = legacy_type(D.bool_)
