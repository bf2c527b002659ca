"""All built-in ops, and their installation as ``Tensor`` methods and operators.

``FUNCTIONS`` lists every differentiable op class so tests can enumerate them.
"""
import numpy as np

from .._tensor import Tensor, _INFERENCE_BLOCKS, _InferenceVC
from . import elementwise as E, reduction as R, shape as S, indexing as I, linalg as L
from . import inplace as IP
from . import _base as B
from ._base import BuiltinFunction
from ._util import scalar_array, _SCALARS
from ..autograd.grad_mode import STATE

__all__ = ["FUNCTIONS"]


def _all_functions():
    seen = []
    for mod in (E, R, S, I, L, IP):
        for v in vars(mod).values():
            if isinstance(v, type) and issubclass(v, BuiltinFunction) and \
                    v is not BuiltinFunction and v not in seen:
                seen.append(v)
    return seen


FUNCTIONS = _all_functions()


def _method(fn):
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    m.__name__ = m.__qualname__ = getattr(fn, "__name__", "method")
    m.__doc__ = fn.__doc__
    m.__wrapped__ = fn  # _numpy_names.install looks through to the op's signature
    return m


_METHODS = {
    E: ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
        "floor_divide", "remainder", "fmod", "pow", "float_power", "atan2", "arctan2",
        "maximum", "minimum", "fmax", "fmin", "exp", "exp2", "expm1", "log", "log2", "log10",
        "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan",
        "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
        "arcsinh", "arccosh", "arctanh", "sigmoid", "relu", "abs", "absolute", "square",
        "floor", "ceil", "trunc", "fix", "frac", "sign", "sgn", "neg", "negative", "round",
        "clamp", "clip", "clamp_min", "clamp_max", "where", "lerp", "addcmul", "addcdiv",
        "hypot", "xlogy", "logaddexp", "logit", "deg2rad", "rad2deg", "copysign",
        "nan_to_num", "eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt",
        "greater", "ge", "greater_equal", "logical_and", "logical_or", "logical_xor",
        "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isnan",
        "isinf", "isfinite", "isposinf", "isneginf", "signbit", "isclose", "allclose",
        "equal"],
    R: ["sum", "mean", "nansum", "nanmean", "prod", "max", "min", "amax", "amin", "aminmax",
        "argmax", "argmin", "var", "std", "cumsum", "cumprod", "cummax", "cummin",
        "logsumexp", "softmax", "log_softmax", "norm", "all", "any", "count_nonzero"],
    S: ["view", "view_as", "reshape_as", "flatten", "unflatten", "ravel",
        "transpose", "swapaxes", "swapdims", "t", "movedim", "moveaxis", "expand",
        "expand_as", "broadcast_to", "squeeze", "unsqueeze", "select", "narrow", "diagonal",
        "clone", "contiguous", "split", "tensor_split", "chunk", "unbind", "fliplr",
        "flipud", "roll", "repeat", "tile", "repeat_interleave", "tril", "triu", "diag",
        "diag_embed", "unfold"],
    I: ["gather", "take_along_dim", "scatter", "scatter_add", "index_select", "masked_fill",
        "masked_select", "take", "nonzero", "argwhere", "index_put", "index_put_"],
    L: ["matmul", "mm", "bmm", "mv", "dot", "vdot", "outer", "ger", "addmm", "addmv", "addr",
        "baddbmm", "addbmm", "kron", "cross", "trace", "inner_1d"],
}


def _install():
    for mod, names in _METHODS.items():
        for name in names:
            fn = getattr(mod, name)
            # NOTE: a unary elementwise function serves as the method itself (one call less
            # on a hot path: ``x.cos()`` inside backward formulas)
            setattr(Tensor, name, fn if getattr(fn, "_unary_op", False) else _method(fn))
    for name in IP.BINARY:
        setattr(Tensor, name + "_", IP._binary_inplace(name))
    for name in IP.UNARY:
        setattr(Tensor, name + "_", IP._unary_inplace(name))
    Tensor.zero_ = IP.zero_
    Tensor.fill_ = IP.fill_
    Tensor.fill_diagonal_ = IP.fill_diagonal_
    Tensor.apply_ = IP.apply_
    Tensor.copy_ = IP.copy_
    Tensor.masked_fill_ = I.masked_fill_
    Tensor.scatter_ = lambda self, dim, index, src=None, **kw: IP.inplace(
        self, lambda t: I.scatter(t, dim, index, src, **kw), src)
    Tensor.scatter_add_ = lambda self, dim, index, src: IP.inplace(
        self, lambda t: I.scatter_add(t, dim, index, src), src)
    Tensor.where = lambda self, condition, other: E.where(condition, self, other)
    Tensor.flip = S.flip_method
    Tensor.tile = S.tile_method
    Tensor.reshape = S.reshape_method  # (the function forms take one sequence, no ints)
    Tensor.permute = S.permute_method
    Tensor.T = property(S.T_property)
    Tensor.mT = property(S.mT)
    Tensor.H = property(S.T_property)
    _install_operators()


def _install_operators():
    def binary(fn, reflected=False):
        def op(self, other):
            try:
                other = E.operand(other)
            except TypeError:
                return NotImplemented
            return fn(other, self) if reflected else fn(self, other)
        return op

    def fast(cls, fn, ufunc, recordable=False):
        # NOTE: the hot path of `x * y` / `x + 1.0`, in models and inside every backward
        # formula. A Tensor or Python-number operand goes straight to the op class (what
        # ``fn`` does for it). When both are float data of one dtype, the op's forward is
        # just ``ufunc``: call it here, and record the node here too for a ``recordable`` op
        # (``B.record_binary`` knows its ctx). Anything unusual, such as a broadcasting
        # error, takes the full path.
        apply, slow = cls.apply, binary(fn)
        make, scalars, ndarray = Tensor._make, _SCALARS, np.ndarray
        f32, f64, s32, s64 = _F32, _F64, _BY_DTYPE[_F32], _BY_DTYPE[_F64]
        record = B.record_binary
        new, blocks, state = object.__new__, _INFERENCE_BLOCKS, STATE

        def op(self, other):
            t = type(other)
            if B._interpose is not None:
                return apply(self, other) if t is Tensor or t is float or t is int else \
                    slow(self, other)
            if t is Tensor:
                rec = (self._rg or other._rg) and STATE.enabled
                if rec and not recordable:
                    return apply(self, other)
                a, b = self._data, other._data
                dt = a.dtype
                if not (dt is b.dtype and (dt is f32 or dt is f64 or dt.kind in "fc")):
                    return apply(self, other)
                try:
                    out = ufunc(a, b)
                except ValueError:
                    return apply(self, other)
            elif t is float or t is int:
                rec = self._rg and STATE.enabled
                if rec and not recordable:
                    return apply(self, other)
                a = self._data
                dt = a.dtype
                # NOTE: float16 takes the op's own path: PyTorch's half mul reads the
                # number as float32 (elementwise._half_scalar)
                if not (dt is f32 or dt is f64 or dt.kind in "fc" and dt is not _F16):
                    return apply(self, other)
                # NOTE: the common dtypes' caches are keyed by the number alone (hashing a
                # NumPy dtype costs as much as the rest of the lookup)
                z = s32.get(other) if dt is f32 else \
                    s64.get(other) if dt is f64 else scalars.get((other, dt))
                out = ufunc(a, z if z is not None else _scalar(other, dt))
            else:
                return slow(self, other)
            if rec:
                return record(cls, self, other, out)
            # NOTE: Tensor._make inlined (one call less on the hottest path there is)
            r = new(Tensor)
            r._data = out if type(out) is ndarray else np.asarray(out)
            r._grad_fn = r._base = r._view = r._extra = r._grad = None
            r._rg = False
            r._vcs = None if not blocks[0] or not state.inference else _InferenceVC((0,))
            r._output_nr = 0
            return r
        op.__name__ = op.__qualname__ = fn.__name__
        return op

    T = Tensor
    T.__add__ = fast(E.Add, E.add, np.add, True)
    T.__radd__ = fast(E.Add, E.add, np.add, True)
    T.__sub__ = fast(E.Sub, E.sub, np.subtract)
    T.__rsub__ = _fast_rsub
    T.__mul__ = fast(E.Mul, E.mul, np.multiply, True)
    T.__rmul__ = fast(E.Mul, E.mul, np.multiply, True)
    T.__truediv__ = binary(E.div)
    T.__rtruediv__ = binary(E.div, True)
    T.__floordiv__ = binary(E.floor_divide)
    T.__rfloordiv__ = binary(E.floor_divide, True)
    T.__mod__ = binary(E.remainder)
    T.__rmod__ = binary(E.remainder, True)
    T.__pow__ = binary(E.pow)
    T.__rpow__ = binary(E.pow, True)
    T.__matmul__ = lambda self, other: (L.matmul(self, other) if isinstance(other, Tensor)
                                        else NotImplemented)
    T.__rmatmul__ = lambda self, other: (L.matmul(other, self) if isinstance(other, Tensor)
                                         else NotImplemented)
    T.__neg__ = E.neg
    T.__pos__ = lambda self: self
    T.__abs__ = E.abs
    T.__invert__ = _invert
    T.__and__ = binary(E.bitwise_and)
    T.__rand__ = binary(E.bitwise_and)
    T.__or__ = binary(E.bitwise_or)
    T.__ror__ = binary(E.bitwise_or)
    T.__xor__ = binary(E.bitwise_xor)
    T.__rxor__ = binary(E.bitwise_xor)
    T.__lshift__ = binary(E.bitwise_left_shift)
    T.__rshift__ = binary(E.bitwise_right_shift)
    T.__rlshift__ = binary(E.bitwise_left_shift, True)
    T.__rrshift__ = binary(E.bitwise_right_shift, True)
    T.__eq__ = binary(E.eq)
    T.__ne__ = binary(E.ne)
    T.__lt__ = binary(E.lt)
    T.__le__ = binary(E.le)
    T.__gt__ = binary(E.gt)
    T.__ge__ = binary(E.ge)
    T.__getitem__ = I.getitem
    T.__setitem__ = I.setitem
    for name, fn in (("__iadd__", "add_"), ("__isub__", "sub_"), ("__imul__", "mul_"),
                     ("__itruediv__", "div_"), ("__ifloordiv__", "floor_divide_"),
                     ("__imod__", "remainder_"), ("__ipow__", "pow_"),
                     ("__iand__", "bitwise_and_"), ("__ior__", "bitwise_or_"),
                     ("__ixor__", "bitwise_xor_")):
        setattr(T, name, getattr(T, fn))
    # (the in-place shifts are installed later than this: looked up per call)
    T.__ilshift__ = lambda self, other: self.bitwise_left_shift_(other)
    T.__irshift__ = lambda self, other: self.bitwise_right_shift_(other)


_F32, _F64, _F16 = E._F32, E._F64, E._F16
_BY_DTYPE = E._BY_DTYPE  # float32/64: number -> scalar_array(number, dtype)
_scalar = E.number_array


def _fast_rsub(self, other):
    """``number - tensor``: as ``E.rsub``, with the no-recording float case inlined."""
    t = type(other)
    if (t is float or t is int) and not (self._rg and STATE.enabled) and B._interpose is None:
        a = self._data
        dt = a.dtype
        if dt.kind in "fc":
            z = _SCALARS.get((other, dt))
            out = np.subtract(z if z is not None else scalar_array(other, dt), a)
            return Tensor._make(out if type(out) is np.ndarray else np.asarray(out), None, False)
    return E.rsub(self, other)


def _invert(self):
    if self._data.dtype == np.bool_:
        return E.logical_not(self)
    if self._data.dtype.kind in "fc":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return E.bitwise_not(self)


_install()

from . import conversion  # noqa: E402  (installs .to/.float/.new_* ...)
from ._extra_methods import install_all as _install_extra  # noqa: E402
_install_extra()  # Tensor methods of sorting, misc, special_ops ...
