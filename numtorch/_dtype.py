"""dtypes, their NumPy mapping and PyTorch's type-promotion rules.

This module is the seam between numtorch and the array library: every other module asks it
for NumPy dtypes instead of naming them, so another backend can slot in here.

>>> from numtorch import _dtype as D
>>> D.promote_types(D.int32, D.float16)
torch.float16
"""
import numpy as np

__all__ = ["dtype", "get_default_dtype", "set_default_dtype", "promote_types", "result_type"]

# category ranks used by promotion: bool < integer < floating < complex
_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type, printed as PyTorch prints it (``torch.float32``)."""

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_complex", "is_signed",
                 "category", "_abbr", "__weakref__")
    __module__ = "torch"  # prints as <class 'torch.dtype'>; pickled by name (__reduce__)

    def __init__(self, name, np_dtype, category, abbr):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.category = category
        self.is_floating_point = category == _FLOAT
        self.is_complex = category == _COMPLEX
        self.is_signed = name not in ("uint8", "bool")
        self._abbr = abbr

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    @property
    def abbr(self):
        return self._abbr

    def to_complex(self):
        # NOTE: PyTorch maps float16 to complex32, which NumPy lacks; complex64 stands in.
        return {"float16": complex64, "float32": complex64,
                "float64": complex128}.get(self.name, self)

    def to_real(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)


bool_ = dtype("bool", np.bool_, _BOOL, "b8")
uint8 = dtype("uint8", np.uint8, _INT, "u8")
int8 = dtype("int8", np.int8, _INT, "i8")
int16 = dtype("int16", np.int16, _INT, "i16")
int32 = dtype("int32", np.int32, _INT, "i32")
int64 = dtype("int64", np.int64, _INT, "i64")
float16 = dtype("float16", np.float16, _FLOAT, "f16")
float32 = dtype("float32", np.float32, _FLOAT, "f32")
float64 = dtype("float64", np.float64, _FLOAT, "f64")
complex64 = dtype("complex64", np.complex64, _COMPLEX, "c64")
complex128 = dtype("complex128", np.complex128, _COMPLEX, "c128")

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
_NAMES = {d.name: d for d in ALL}
# NumPy dtype -> numtorch dtype; NumPy types PyTorch lacks map to their nearest torch type
_FROM_NP = {d.np: d for d in ALL}
_FROM_NP.update({np.dtype(np.uint16): int32, np.dtype(np.uint32): int64,
                 np.dtype(np.uint64): int64, np.dtype(np.longdouble): float64,
                 np.dtype(np.clongdouble): complex128})

# the legacy tensor type names used in error messages (torch.FloatTensor ...)
LEGACY_NAMES = {bool_: "BoolTensor", uint8: "ByteTensor", int8: "CharTensor",
                int16: "ShortTensor", int32: "IntTensor", int64: "LongTensor",
                float16: "HalfTensor", float32: "FloatTensor", float64: "DoubleTensor",
                complex64: "ComplexFloatTensor", complex128: "ComplexDoubleTensor"}


# names in PyTorch's messages: the C++ type ('float') and the ScalarType ('Float')
CPP_NAMES = {bool_: "bool", uint8: "unsigned char", int8: "signed char", int16: "short int",
             int32: "int", int64: "long int", float16: "c10::Half", float32: "float",
             float64: "double", complex64: "c10::complex<float>",
             complex128: "c10::complex<double>"}
SCALAR_NAMES = {bool_: "Bool", uint8: "Byte", int8: "Char", int16: "Short", int32: "Int",
                int64: "Long", float16: "Half", float32: "Float", float64: "Double",
                complex64: "ComplexFloat", complex128: "ComplexDouble"}


def _by_name(name):
    return _NAMES[name]


def from_numpy_dtype(np_dtype):
    """The numtorch dtype for a NumPy dtype; TypeError for ones PyTorch cannot hold."""
    try:
        return _FROM_NP[np_dtype]
    except KeyError:
        pass
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}. The "
            "only supported types are: float64, float32, float16, complex64, complex128, "
            "int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.") from None


_state = {"default": float32}


def get_default_dtype():
    """The dtype of floating tensors made from Python floats (float32 unless changed).

    >>> get_default_dtype()
    torch.float32
    """
    return _state["default"]


def set_default_dtype(d):
    """Set the default floating dtype; only float32 and float64 are allowed (float16 too)."""
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _state["default"] = d


def default_complex_dtype():
    return complex128 if _state["default"] is float64 else complex64


def promote_types(a, b):
    """PyTorch's ``promote_types``: the smallest dtype both ``a`` and ``b`` convert to.

    >>> promote_types(uint8, int8)
    torch.int16
    """
    if a is b:
        return a
    ca, cb = a.category, b.category
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if hi.category == _COMPLEX and lo.category == _FLOAT:
            return complex128 if lo is float64 or hi is complex128 else hi
        return hi
    return _FROM_NP[np.promote_types(a.np, b.np)]


def _scalar_dtype(value):
    """The dtype PyTorch gives a Python scalar taking part in an operation."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return _state["default"]
    if isinstance(value, complex):
        return default_complex_dtype()
    from .func._batching import BatchedData
    if isinstance(value, BatchedData):   # a batched tensor's data inside vmap
        from .autograd._interpose import Unbatchable
        raise Unbatchable("dtype of a batched operand")
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def _combine(higher, lower):
    """Merge the result of a higher-priority group with a lower-priority one (c10 rules)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == _COMPLEX:
        return higher
    if lower.category == _COMPLEX:
        if higher.category == _FLOAT:
            return higher.to_complex()
        return lower
    if higher.category == _FLOAT:
        return higher
    if higher is bool_ or lower.category == _FLOAT:
        return promote_types(higher, lower)
    return higher


def result_type(*operands):
    """The dtype of an op on ``operands`` (Tensors and Python scalars), PyTorch's way.

    Dimensioned tensors outrank 0-dim tensors, which outrank Python scalars; a lower group
    only matters when it is of a higher category (bool < int < float < complex).
    """
    dim_res = zero_res = scalar_res = None
    for op in operands:
        d = getattr(op, "dtype", None)
        if isinstance(d, dtype):
            if op.ndim:
                dim_res = d if dim_res is None else promote_types(dim_res, d)
            else:
                zero_res = d if zero_res is None else promote_types(zero_res, d)
        else:
            if isinstance(op, np.generic):
                op = op.item()
            d = _scalar_dtype(op)
            scalar_res = d if scalar_res is None else promote_types(scalar_res, d)
    return _combine(dim_res, _combine(zero_res, scalar_res))


def to_dtype(d):
    """Accept a numtorch dtype, a NumPy dtype or a Python type (float, int, bool, complex)."""
    if isinstance(d, dtype):
        return d
    if d is float:
        return float64
    if d is int:
        return int64
    if d is bool:
        return bool_
    if d is complex:
        return complex128
    return from_numpy_dtype(d)


_DEFAULT = object()  # finfo() without an argument: the default dtype's
_PYTHON_TYPES = (float, int, bool, complex)  # PyTorch's parser takes these as dtypes


def _info_arg(value, op):
    """The dtype argument of finfo/iinfo: a dtype or Python's float, int, bool, complex."""
    if isinstance(value, dtype) or isinstance(value, type) and value in _PYTHON_TYPES:
        return to_dtype(value)
    from .ops._util import tp_name
    raise TypeError(f"{op}(): argument 'type' (position 1) must be torch.dtype, not "
                    f"{tp_name(value)}")


class finfo:
    """``torch.finfo``: the limits of a floating dtype (complex ones give their real part's).

    >>> finfo(float16).max
    65504.0
    """

    __module__ = "torch"

    def __init__(self, type=_DEFAULT):
        d = get_default_dtype() if type is _DEFAULT else _info_arg(type, "finfo")
        if d.category < _FLOAT:
            raise TypeError("torch.finfo() requires a floating point input type. "
                            "Use torch.iinfo to handle 'torch.finfo'")
        d = d.to_real()
        f = np.finfo(d.np)
        self.bits, self.dtype = f.bits, d.name
        self.eps, self.max, self.min = float(f.eps), float(f.max), float(f.min)
        self.tiny = self.smallest_normal = float(f.smallest_normal)
        self.resolution = 10.0 ** -f.precision

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """``torch.iinfo``: the limits of an integer dtype.

    >>> iinfo(int8)
    iinfo(min=-128, max=127, dtype=int8)
    """

    __module__ = "torch"

    def __init__(self, type):
        d = _info_arg(type, "iinfo")
        if d is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.category != _INT:
            raise TypeError("torch.iinfo() requires an integer input type. "
                            "Use torch.finfo to handle 'torch.iinfo'")
        i = np.iinfo(d.np)
        self.bits, self.dtype, self.min, self.max = i.bits, d.name, int(i.min), int(i.max)

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
