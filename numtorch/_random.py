"""PyTorch's CPU random number generator, reproduced on NumPy arrays.

After the same seed, every function here draws the numbers PyTorch's CPU kernels draw, in
the same order, so a numtorch program and a PyTorch program stay in step call for call.

How it works: PyTorch's CPU generator is a Mersenne Twister (MT19937) seeded like the
reference ``init_genrand``. NumPy's ``np.random.MT19937`` is the same bit generator, so we
compute the seeded key ourselves, load it as NumPy's state and draw raw 32-bit words in bulk
with ``random_raw``. On top of that stream sit PyTorch's transforms (24/53-bit uniforms,
Box-Muller normals, modulo integers, Fisher-Yates permutations, ...), each written as
vectorised NumPy code that rounds exactly where the C++ kernel rounds.

This module works on arrays only; the Tensor layer wraps it. Every sampler takes a
``generator`` (``None`` = :data:`default_generator`) and a dtype (NumPy dtype or numtorch
dtype) and returns a fresh C-contiguous ``np.ndarray``.

>>> g = Generator().manual_seed(0)
>>> uniform((3,), 'float32', generator=g)
array([0.4962566 , 0.7682218 , 0.08847743], dtype=float32)
"""
import math
import operator
import os
import struct
import warnings

import numpy as np

from numtorch import _dtype
from numtorch._device import CPU

__all__ = ["Generator", "default_generator", "DEFAULT_SEED", "STATE_SIZE", "manual_seed",
           "seed", "initial_seed", "get_rng_state", "set_rng_state", "uniform", "normal",
           "normal_tensor", "randint", "random_", "randperm", "bernoulli_scalar",
           "bernoulli_tensor", "exponential", "multinomial"]

DEFAULT_SEED = 67280421310721          # c10's default_rng_seed_val
STATE_SIZE = 5056                      # sizeof(CPUGeneratorImplState) on x86-64
_MT_N = 624
_U64 = (1 << 64) - 1
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
# randperm switches from 32-bit Fisher-Yates to the 64-bit inside-out shuffle here
_RANDPERM_SMALL = 0xFFFFFFFF // 20

_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_I64, _U64DT = np.dtype(np.int64), np.dtype(np.uint64)

# PyTorch's ScalarType names, used by its "not implemented for 'Long'" style messages
_TORCH_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                "int32": "Int", "int64": "Long", "float16": "Half", "float32": "Float",
                "float64": "Double", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble"}
# the C++ type names that caffe2::TypeMeta prints in the random_ bounds messages
_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int",
              "float16": "c10::Half", "float32": "float", "float64": "double",
              "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
# the names c10's checked conversion prints (randperm's "n too large" check)
_CONVERT_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
                  "int64": "int64_t"}


# ----------------------------------------------------------------------------------------
# small helpers

def _g(x):
    """Format a double the way a C++ ostream does by default (6 significant digits)."""
    return "%g" % x


def _np_dtype(d):
    """A NumPy dtype from a numtorch dtype, a NumPy dtype or anything np.dtype accepts."""
    return d.np if isinstance(d, _dtype.dtype) else np.dtype(d)


def _tname(dt):
    return _TORCH_NAMES.get(dt.name, dt.name)


def _shape(shape):
    """Normalise a size argument to a tuple, rejecting negative sizes like at::empty."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = tuple(operator.index(s) for s in shape)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"[{', '.join(map(str, shape))}]")
    return shape


def _numel(shape):
    return math.prod(shape)


def _gen(generator):
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a numtorch Generator, got {type(generator).__name__}")
    return generator


def _real_dtype(dt):
    return _F32 if dt == np.complex64 else _F64


def _from_double(x, dt):
    """static_cast<scalar_t>(double): Half goes through float first, as c10::Half does."""
    if dt == _F16:
        return x.astype(_F32).astype(_F16)
    return x.astype(dt, copy=False)


def _from_int64(x, dt):
    """static_cast<scalar_t>(int64_t) for an int64 array."""
    if dt == np.bool_:
        return x != 0
    if dt == _F16:          # int64 -> float -> Half, two roundings like c10::Half
        return x.astype(_F32).astype(_F16)
    return x.astype(dt)


def _as_int64(v, name):
    """Unpack a Python integer argument the way PyTorch's arg parser does (int64)."""
    try:
        v = operator.index(v)
    except TypeError:
        raise TypeError(f"{name} must be int, not {type(v).__name__}") from None
    if not _I64_MIN <= v <= _I64_MAX:
        raise ValueError("Overflow when unpacking long long")
    return v


# ---------------------------------------------------------------- exact floating point

def _fma32(a, b, c, out=None):
    """Correctly rounded float32 fused multiply-add, as the AVX2 ``vfmadd`` computes it.

    The float32 product is exact in float64, so only the float64 sum rounds. Rounding that
    sum again to float32 is exact unless it landed precisely on a float32 midpoint; there
    the sign of the sum's rounding error decides (found with Knuth's TwoSum). ``out``, a
    float32 array of the result's shape, receives the result (it may be ``c`` itself).

    >>> one = np.float32(1 + 2.0 ** -12)
    >>> float(_fma32(one, one, np.float32(-(1 + 2.0 ** -11)))) == 2.0 ** -24
    True
    """
    s = _mul64(a, b)
    c64 = np.asarray(c, _F64)
    if c64.shape == s.shape or c64.ndim == 0:
        np.add(s, c64, out=s)
    else:
        s = s + c64
    # NOTE: a float32 midpoint has its 29 dropped bits = 100...0: shifted to the top of an
    # int64 that is exactly INT64_MIN, so one min() finds whether any sum is a tie
    top = np.left_shift(s.view(np.int64), 35)
    if s.size and top.min() == _I64_MIN:
        _round_ties(s, np.flatnonzero(top == _I64_MIN), a, b, c64)
    if out is None:
        return s.astype(_F32)
    np.copyto(out, s, casting="same_kind")
    return out


def _round_ties(s, idx, a, b, c):
    """Move the float64 sums ``s.flat[idx]`` (float32 midpoints) one float64 step in the
    direction of their rounding error, so the cast to float32 rounds as the exact sum would.

    Only the few tied elements of ``a``, ``b`` and ``c`` are gathered and recomputed.
    """
    def pick(x):
        return np.asarray(np.broadcast_to(x, s.shape).flat[idx], _F64)
    st, err = _two_sum(pick(a) * pick(b), pick(c))
    s.flat[idx] = np.where(err != 0, np.nextafter(st, np.where(err > 0, np.inf, -np.inf)), st)


def _mul64(a, b):
    """a * b in a fresh float64 array (exact for float32 factors).

    Each factor is converted on its own first: NumPy's mixed float32/float64 loops cast
    through small buffers and cost more than a separate conversion.
    """
    s = np.array(a, _F64)
    b = np.asarray(b, _F64)
    if b.shape == s.shape or b.ndim == 0:
        np.multiply(s, b, out=s)
        return s
    return np.asarray(s * b)


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round_odd_sum(a, b):
    """a + b rounded to odd: inexact results get their last mantissa bit forced to 1."""
    s, e = _two_sum(a, b)
    s = np.asarray(s)
    fix = (e != 0) & ((s.view(np.int64) & 1) == 0) & np.isfinite(s)
    if fix.any():
        s[fix] = np.nextafter(s[fix], np.where(e[fix] > 0, np.inf, -np.inf))
    return s


def _fma64(a, b, c):
    """Correctly rounded float64 fused multiply-add (Boldo-Melquiond emulation).

    The product is split exactly (Dekker), the low parts are added with rounding to odd,
    and one final rounding gives fma(a, b, c) bit for bit (barring overflow/underflow).
    """
    if np.ndim(b) == 0 and np.ndim(c) == 0 and (b == 1 or c == 0):
        return np.asarray(a, _F64) * float(b) + float(c)     # a single rounding suffices
    a, b, c = np.broadcast_arrays(np.asarray(a, _F64), np.asarray(b, _F64),
                                  np.asarray(c, _F64))
    with np.errstate(over="ignore", invalid="ignore"):
        uh = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        ul = ((ah * bh - uh) + ah * bl + al * bh) + al * bl
        th, tl = _two_sum(c, uh)
        v = _round_odd_sum(tl, ul)
        res = th + v
    bad = ~np.isfinite(res) | ~np.isfinite(uh)
    if bad.any():                         # inf/nan inputs: the plain formula is exact enough
        res = np.where(bad, a * b + c, res)
    return res


def _split(x):
    t = x * 134217729.0                   # 2**27 + 1: Veltkamp's splitter for doubles
    hi = t - (t - x)
    return hi, x - hi


_LIBM_OK = {}


def _overlap_apply(ufunc, x):
    # Overlapping input/output memory makes NumPy skip its SIMD kernels and call the C
    # library routine per element, so the result is glibc's, bit for bit, as in PyTorch.
    buf = np.empty(x.size + 1, _F64)
    buf[1:] = x.ravel()
    ufunc(buf[1:], out=buf[:-1])
    return buf[:-1].reshape(x.shape)


def _libm(name, x):
    """``math.<name>`` (the C library's double routine) applied to a float64 array.

    PyTorch's double kernels call glibc's log/log1p/sin/cos; NumPy's own SIMD versions
    differ in the last bit now and then. A one-time probe checks the overlap trick still
    reaches libm; if not we fall back to an exact but slow element loop.
    """
    ufunc, ref = getattr(np, name), getattr(math, name)
    ok = _LIBM_OK.get(name)
    if ok is None:
        probe = -np.linspace(1e-6, 0.999999, 4001) if name == "log1p" else \
            np.linspace(1e-6, 6.283185307179586, 4001)
        ok = _LIBM_OK[name] = np.array_equal(_overlap_apply(ufunc, probe),
                                             np.array([ref(v) for v in probe]))
    x = np.asarray(x, _F64)
    if ok:
        return _overlap_apply(ufunc, x)
    return np.frompyfunc(ref, 1, 1)(x).astype(_F64)


# ----------------------------------------------------------------------------------------
# Generator

def _init_genrand(seed32):
    """The MT19937 key for a 32-bit seed (reference init_genrand; sequential by nature)."""
    key = [seed32]
    x = seed32
    for j in range(1, _MT_N):
        x = (1812433253 * (x ^ (x >> 30)) + j) & 0xFFFFFFFF
        key.append(x)
    return np.array(key, np.uint32)


def _seed_to_uint64(s):
    """PyTorch's manual_seed unpacking: uint64, or a negative int64 taken modulo 2**64."""
    if isinstance(s, (float, str, bytes, complex)) or not hasattr(s, "__index__"):
        raise RuntimeError(f"manual_seed expected a long, but got {type(s).__name__}")
    s = operator.index(s)
    if 0 <= s <= _U64:
        return s
    if _I64_MIN <= s < 0:
        return s + (1 << 64)
    raise ValueError("Overflow when unpacking long long")


class Generator:
    """A CPU random generator that draws exactly PyTorch's ``torch.Generator`` numbers.

    The engine is NumPy's MT19937 holding the same 624-word state as PyTorch's
    ``at::mt19937``; the cached second Box-Muller sample lives beside it.

    Args:
        device: only ``'cpu'`` is supported.

    >>> g = Generator().manual_seed(42)
    >>> g.initial_seed()
    42
    >>> g.get_state().shape
    torch.Size([5056])
    """

    def __init__(self, device="cpu"):
        name = str(getattr(device, "type", device))
        if name.split(":")[0] != "cpu":
            raise RuntimeError(f"numtorch only has CPU generators, got device '{device}'")
        self.device = CPU
        self._bitgen = np.random.MT19937(0)      # its state is replaced just below
        self.manual_seed(DEFAULT_SEED)

    __module__ = "torch._C"  # prints as <class 'torch._C.Generator'>; pickled by _rebuild

    def __reduce__(self):
        return (_rebuild_generator, (self.get_state()._data.tobytes(),))

    def __repr__(self):
        # PyTorch's class is torch._C.Generator, which prints as the default object repr
        return f"<torch._C.Generator object at 0x{id(self):x}>"

    def __getattr__(self, name):
        # only reached when normal lookup fails: PyTorch's C type names itself in full
        raise AttributeError(f"'torch._C.Generator' object has no attribute '{name}'")

    # ---- seeding and state

    def manual_seed(self, seed):
        """Seed like ``torch.Generator.manual_seed`` and return ``self``.

        Negative seeds count modulo 2**64 (``-1`` -> 2**64 - 1); only the low 32 bits
        reach the twister, as in PyTorch. Floats raise RuntimeError, values outside
        [-2**63, 2**64) raise ValueError.

        >>> Generator().manual_seed(-1).initial_seed()
        18446744073709551615
        """
        seed = _seed_to_uint64(seed)
        self._seed = seed
        # pos=624: the first draw twists the state, like PyTorch's left_=1
        self._set_mt(_init_genrand(seed & 0xFFFFFFFF), _MT_N)
        self._next_at_end = 0            # PyTorch's next_ right after seeding
        self._normal_double = None       # next_double_normal_sample_
        self._normal_float = None        # next_float_normal_sample_ (kept for get_state)
        return self

    def seed(self):
        """Reseed from /dev/urandom (64 bits, as PyTorch does) and return the seed.

        >>> g = Generator(); s = g.seed(); s == g.initial_seed()
        True
        """
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed last given to :meth:`manual_seed` / :meth:`seed`, as an unsigned int.

        >>> Generator().initial_seed()
        67280421310721
        """
        return self._seed

    def _set_mt(self, key, pos):
        self._bitgen.state = {"bit_generator": "MT19937",
                              "state": {"key": key, "pos": int(pos)}}

    def get_state(self):
        """The state as 5056 bytes laid out like ``torch.get_rng_state()``.

        The bytes can go to ``torch.set_rng_state(torch.from_numpy(...))`` and back.

        >>> g = Generator().manual_seed(1)
        >>> Generator().set_state(g.get_state()).initial_seed()
        1
        """
        st = self._bitgen.state["state"]
        pos = int(st["pos"])
        # NumPy's pos counts words used since the last twist; PyTorch keeps left_ (words
        # until the next twist, plus one) and next_ (the index to read)
        if pos >= _MT_N:
            left, nxt = 1, self._next_at_end
        else:
            left, nxt = _MT_N + 1 - pos, pos
        buf = bytearray(STATE_SIZE)
        struct.pack_into("<QiiQ", buf, 0, self._seed, left, 1, nxt)
        buf[24:24 + 8 * _MT_N] = np.asarray(st["key"], "<u8").tobytes()
        if self._normal_double is not None:
            struct.pack_into("<d", buf, 5024, self._normal_double)
            struct.pack_into("<i", buf, 5040, 1)
        if self._normal_float is not None:
            struct.pack_into("<f?", buf, 5048, self._normal_float, True)
        return _as_byte_tensor(np.frombuffer(bytes(buf), np.uint8).copy())

    def set_state(self, state):
        """Load a state made by :meth:`get_state` or ``torch.get_rng_state()``; returns self.

        Raises the errors PyTorch raises: TypeError for a non-uint8 array, RuntimeError for
        a wrong size or an invalid twister state.
        """
        if not hasattr(state, "__array__"):     # a Tensor, or an array at the array level
            raise TypeError(f"expected a torch.ByteTensor, but got {type(state).__name__}")
        arr = np.asarray(state)
        if arr.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if arr.size != STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but "
                               f"found the input RNG state size to be {arr.size}")
        raw = arr.reshape(-1).tobytes()
        seed, left, seeded, nxt = struct.unpack_from("<QiiQ", raw, 0)
        nxt &= 0xFFFFFFFF                # PyTorch stores next_ as uint32
        if not (seeded and 0 < left <= _MT_N and nxt <= _MT_N):
            raise RuntimeError("Invalid mt19937 state")
        if left == 1:
            pos = _MT_N
        elif nxt + left == _MT_N + 1:
            pos = nxt
        else:   # PyTorch itself never writes such a state; NumPy's engine cannot hold it
            raise RuntimeError(f"numtorch cannot load an mt19937 state with left={left} "
                               f"and next={nxt}")
        # the legacy layout keeps 64-bit words; PyTorch copies them into uint32 (truncates)
        key = np.frombuffer(raw, "<u8", _MT_N, 24).astype(np.uint32)
        self._set_mt(key, pos)
        self._seed = seed
        self._next_at_end = nxt
        valid_d = struct.unpack_from("<i", raw, 5040)[0]
        self._normal_double = struct.unpack_from("<d", raw, 5024)[0] if valid_d else None
        val_f, valid_f = struct.unpack_from("<f?", raw, 5048)
        self._normal_float = val_f if valid_f else None
        return self

    def clone_state(self):
        """A new Generator in this one's state (seed and cached normal sample included).

        >>> g = Generator().manual_seed(4)
        >>> c = g.clone_state()
        >>> bool((c._uniform32(3) == g._uniform32(3)).all()), c.initial_seed()
        (True, 4)
        """
        return Generator().set_state(self.get_state())

    def graphsafe_get_state(self):
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state):
        if not isinstance(state, Generator):
            raise TypeError(f"expected a Generator, but got {type(state).__name__}")
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

    def get_offset(self):
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset):
        raise RuntimeError("CPU Generator does not use offset")

    # ---- raw streams (PyTorch's random() / random64() and the two uniform widths)

    def _raw32(self, n):
        """n outputs of ``random()`` (32-bit words), as uint64."""
        if n <= 0:
            return np.empty(0, _U64DT)
        self._next_at_end = _MT_N
        return self._bitgen.random_raw(n)

    def _raw64(self, n):
        """n outputs of ``random64()``: the first word of each pair is the high half."""
        r = self._raw32(2 * n).reshape(n, 2)
        return (r[:, 0] << np.uint64(32)) | r[:, 1]

    def _uniform32(self, n):
        """uniform_real_distribution<float>(0, 1): 24 random bits times 2**-24."""
        return (self._raw32(n) & np.uint64(0xFFFFFF)).astype(_F32) * np.float32(2.0 ** -24)

    def _uniform64(self, n):
        """uniform_real_distribution<double>(0, 1): 53 random bits times 2**-53."""
        bits = self._raw64(n) & np.uint64((1 << 53) - 1)
        return bits.astype(_F64) * (2.0 ** -53)


def _rebuild_generator(state):
    """Unpickle a Generator (by this module's name, which needs no ``torch`` module)."""
    return Generator().set_state(np.frombuffer(state, np.uint8))


def _as_byte_tensor(arr):
    """The state as a uint8 Tensor, as PyTorch returns it (array-level callers use .numpy())."""
    from ._tensor import Tensor
    return Tensor._make(arr, None, False)


default_generator = Generator()
# PyTorch seeds its default generator non-deterministically at startup
default_generator.seed()


def manual_seed(s):
    """Seed :data:`default_generator` like ``torch.manual_seed`` (which calls ``int(s)``).

    >>> manual_seed(3).initial_seed()
    3
    """
    return default_generator.manual_seed(int(s))


def seed():
    """Reseed :data:`default_generator` non-deterministically and return the seed."""
    return default_generator.seed()


def initial_seed():
    """The initial seed of :data:`default_generator`.

    >>> _ = manual_seed(5)
    >>> initial_seed()
    5
    """
    return default_generator.initial_seed()


def get_rng_state():
    """``torch.get_rng_state()`` for :data:`default_generator` (uint8 tensor of 5056)."""
    return default_generator.get_state()


def set_rng_state(state):
    """``torch.set_rng_state(state)`` for :data:`default_generator`."""
    default_generator.set_state(state)


# ----------------------------------------------------------------------------------------
# uniform

def uniform(shape, np_dtype, low=0.0, high=1.0, generator=None):
    """Samples of U[low, high) as ``torch.rand`` / ``Tensor.uniform_`` draw them.

    float32 and float16 use 24 random bits per element, float64 uses 53; complex dtypes
    fill real and imaginary parts in turn.

    Args:
        shape: output shape.
        np_dtype: a floating or complex dtype.
        low, high: the range; ``low <= high``.
        generator: a :class:`Generator`, or ``None`` for the default one.

    >>> g = Generator().manual_seed(0)
    >>> uniform((2,), 'float64', -1.0, 1.0, generator=g)
    array([0.940106  , 0.41563973])
    """
    dt, shape, gen = _np_dtype(np_dtype), _shape(shape), _gen(generator)
    if dt.kind == "c":
        if _numel(shape) == 0:
            return np.empty(shape, dt)
        real = uniform(shape + (2,), _real_dtype(dt), low, high, gen)
        return real.view(dt).reshape(shape)
    low, high = float(low), float(high)
    _check_uniform_bounds(dt, low, high)
    n = _numel(shape)
    if n == 0:
        return np.empty(shape, dt)
    if dt == _F64:
        # the kernel's x * (to - from) + from is contracted to one fma by the compiler
        val = _fma64(gen._uniform64(n), high - low, low)
        to_s, from_s = high, low
    else:   # float and Half both compute in float (Half's opmath type)
        f, t = np.float32(low), np.float32(high)
        val = _fma32(gen._uniform32(n), t - f, f)
        if dt == _F16:
            val = val.astype(_F16)
        to_s, from_s = _from_double(np.array(high), dt), _from_double(np.array(low), dt)
    # rounding can land on `to`; PyTorch maps it back to `from` to keep [from, to)
    val[val == to_s] = from_s
    return val.reshape(shape)


def _check_uniform_bounds(dt, low, high):
    """PyTorch's uniform_ argument checks, in its order and with its messages."""
    if dt.kind != "f":
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{_tname(dt)}'")
    fmax = float(np.finfo(dt).max)
    for val, name in ((low, "from"), (high, "to")):
        if not -fmax <= val <= fmax:
            raise RuntimeError(f"{name} is out of bounds for {_CPP_NAMES[dt.name]}")
    if not low <= high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_g(low)} > to={_g(high)}")
    if not high - low <= fmax:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{_tname(dt)}>::"
                           f"max(), but found to={_g(high)} and from={_g(low)} which result "
                           f"in to-from to exceed the limit")


# ----------------------------------------------------------------------------------------
# normal

# Constants of the Cephes single-precision log/sincos that PyTorch's AVX2 kernel uses.
_LOG_POLY = tuple(np.float32(c) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
    1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
    3.3333331174e-1))
_LOG_Q1, _LOG_Q2 = np.float32(-2.12194440e-4), np.float32(0.693359375)
_SQRT_HALF = np.float32(0.707106781186547524)
_FOUR_OVER_PI = np.float32(1.27323954473516)
_DP = (np.float32(-0.78515625), np.float32(-2.4187564849853515625e-4),
       np.float32(-3.77489497744594108e-8))
_SIN_POLY = (np.float32(-1.9515295891e-4), np.float32(8.3321608736e-3),
             np.float32(-1.6666654611e-1))
_COS_POLY = (np.float32(2.443315711809948e-5), np.float32(-1.388731625493765e-3),
             np.float32(4.166664568298827e-2))
_TWO_PI32 = np.float32(2.0 * math.pi)


def _log_ps(x):
    """float32 log, step for step as PyTorch's AVX2 ``log256_ps`` computes it for x > 0.

    GCC contracts some multiply-adds into FMAs when it builds that kernel; the
    contractions below are the ones it makes, which the tests confirm bit for bit.
    """
    x = np.maximum(x, np.array(0x00800000, np.int32).view(_F32))   # no denormals
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F32) + np.float32(1)
    # mantissa in [0.5, 1)
    x = ((bits & ~0x7F800000) | np.array(0.5, _F32).view(np.int32)).view(_F32)
    small = x < _SQRT_HALF
    tmp = np.where(small, x, np.float32(0))
    x = x - np.float32(1)
    e = e - np.where(small, np.float32(1), np.float32(0))
    x = x + tmp
    z = x * x
    y = np.full_like(x, _LOG_POLY[0])
    for c in _LOG_POLY[1:]:
        y = _fma32(y, x, c)
    y = y * x
    y = _fma32(y, z, e * _LOG_Q1)
    y = _fma32(z, np.float32(-0.5), y)
    x = x + y
    return _fma32(e, _LOG_Q2, x)


def _sincos_ps(x):
    """float32 (sin, cos), step for step as PyTorch's AVX2 ``sincos256_ps`` (with FMAs)."""
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (x * _FOUR_OVER_PI).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_F32)
    sign_sin = sign_sin ^ ((j & 4) != 0)
    sign_cos = (~(j - 2) & 4) != 0
    use_sin_poly = (j & 2) == 0
    for dp in _DP:                           # extended-precision x - j * pi/4
        x = _fma32(y, dp, x)
    z = x * x
    yc = _fma32(np.full_like(z, _COS_POLY[0]), z, _COS_POLY[1])
    yc = _fma32(yc, z, _COS_POLY[2])
    yc = yc * z
    yc = _fma32(yc, z, -(z * np.float32(0.5))) + np.float32(1)
    ys = _fma32(np.full_like(z, _SIN_POLY[0]), z, _SIN_POLY[1])
    ys = _fma32(ys, z, _SIN_POLY[2])
    ys = _fma32(ys * z, x, x)
    s = np.where(use_sin_poly, ys, yc)
    c = np.where(use_sin_poly, yc, ys)
    return np.where(sign_sin, -s, s), np.where(sign_cos, -c, c)


def _box_muller32(u, mean, std):
    """PyTorch's ``NormalFill16<float>`` (AVX2) on rows of 16 uniforms."""
    u1 = np.float32(1) - u[:, :8]                  # [0, 1) -> (0, 1] for the log
    radius = np.sqrt(np.float32(-2) * _log_ps(u1))
    s, c = _sincos_ps(_TWO_PI32 * u[:, 8:])
    out = np.empty_like(u)
    out[:, :8] = radius * c
    out[:, 8:] = radius * s
    return _fma32(out, np.float32(std), np.float32(mean))


def _box_muller64(u, mean, std):
    """PyTorch's ``NormalFill16<double>`` on rows of 16 uniforms (glibc log/cos/sin)."""
    radius = np.sqrt(-2.0 * _libm("log", 1.0 - u[:, :8]))
    theta = (2.0 * math.pi) * u[:, 8:]
    out = np.empty_like(u)
    out[:, :8] = radius * _libm("cos", theta)
    out[:, 8:] = radius * _libm("sin", theta)
    return _fma64(out, std, mean)


def _normal_fill(gen, n, dt, mean, std):
    """PyTorch's vectorised path (numel >= 16): Box-Muller on blocks of 16 uniforms.

    A ragged tail is handled by drawing 16 fresh uniforms and redoing the last 16 outputs.
    float and double draw all n uniforms first, Half (computed in float) only whole blocks.
    """
    blocks = n // 16
    if dt == _F64:
        draw, fill = gen._uniform64, _box_muller64
    else:
        draw, fill = gen._uniform32, _box_muller32
    u = draw(n if dt != _F16 else blocks * 16)
    out = np.empty(n, _F64 if dt == _F64 else _F32)
    out[:blocks * 16] = fill(u[:blocks * 16].reshape(blocks, 16), mean, std).ravel()
    if n % 16:
        out[n - 16:] = fill(draw(16).reshape(1, 16), mean, std).ravel()
    return out.astype(dt, copy=False)


def _normal_scalar(gen, n, mean, std):
    """PyTorch's scalar path (numel < 16): at::normal_distribution<double>, in double.

    Each Box-Muller pair returns r*cos and caches r*sin in the generator for the next
    sample (across calls too). Sequential by nature, and n < 16.
    """
    vals = np.empty(n, _F64)
    for i in range(n):
        if gen._normal_double is not None:
            vals[i], gen._normal_double = gen._normal_double, None
            continue
        u1, u2 = gen._uniform64(2)
        r = math.sqrt(-2.0 * math.log1p(-float(u2)))
        theta = 2.0 * math.pi * float(u1)
        gen._normal_double = r * math.sin(theta)
        vals[i] = r * math.cos(theta)
    return _fma64(vals, std, mean)           # val * std + mean, contracted to an fma


def normal(shape, np_dtype, mean=0.0, std=1.0, generator=None):
    """Samples of N(mean, std**2) as ``torch.randn`` / ``torch.normal`` / ``normal_`` draw.

    Sizes >= 16 take PyTorch's vectorised Box-Muller path, smaller ones the scalar path
    with its cached second sample. Complex dtypes use std / sqrt(2) per component.

    Args:
        shape: output shape.
        np_dtype: a floating or complex dtype.
        mean, std: Python numbers; ``std >= 0``.
        generator: a :class:`Generator`, or ``None`` for the default one.

    >>> g = Generator().manual_seed(0)
    >>> normal((3,), 'float32', generator=g)
    array([ 1.5409961, -0.2934289, -2.1787894], dtype=float32)
    """
    dt, shape, gen = _np_dtype(np_dtype), _shape(shape), _gen(generator)
    mean, std = float(mean), float(std)
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    n = _numel(shape)
    if n == 0:
        return np.empty(shape, dt)
    if dt.kind == "c":
        real = normal(shape + (2,), _real_dtype(dt), mean, std / math.sqrt(2.0), gen)
        return real.view(dt).reshape(shape)
    if dt.kind != "f":
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_tname(dt)}'")
    if n >= 16:
        out = _normal_fill(gen, n, dt, mean, std)
    else:
        out = _from_double(_normal_scalar(gen, n, mean, std), dt)
    return out.reshape(shape)


def _binary_into(out, other, op, dt):
    """``out.op_(other)`` for an in-place Tensor op: compute in the promoted type, cast back."""
    other = np.asarray(other)
    if other.dtype.kind in "biu":             # an integer operand never widens a float
        other = other.astype(dt)
    common = np.promote_types(dt, other.dtype)
    if common == _F16 or dt == _F16 and common == _F32:
        common = _F32                         # Half arithmetic runs in float on CPU
    return _from_double(op(out.astype(common), other.astype(common)), dt)


def normal_tensor(mean, std, np_dtype, generator=None):
    """``torch.normal(mean, std)`` where mean and/or std are arrays (broadcast together).

    Follows PyTorch's three overloads exactly: (array, array) and (number, array) draw
    N(0, 1) then multiply by std and add mean; (array, number) draws N(0, std) and adds
    mean. The overloads round differently, so pass a Python number (not a 0-d array) where
    the PyTorch call had a number; a 0-d array stands for a 0-d tensor.

    Args:
        mean, std: ``np.ndarray`` (a tensor's data) or Python number; at least one array.
        np_dtype: the output dtype (PyTorch uses mean's dtype, or std's if mean is a number).
        generator: a :class:`Generator`, or ``None`` for the default one.

    >>> g = Generator().manual_seed(0)
    >>> normal_tensor(np.zeros(2, np.float32), np.ones(2, np.float32), 'float32', generator=g)
    array([ 1.5409961, -0.2934289], dtype=float32)
    """
    dt, gen = _np_dtype(np_dtype), _gen(generator)
    mean_is_arr, std_is_arr = isinstance(mean, np.ndarray), isinstance(std, np.ndarray)
    if not (mean_is_arr or std_is_arr):
        raise TypeError("normal_tensor needs mean or std as an array; use normal() otherwise")
    if std_is_arr:
        if std.dtype.kind == "c":
            raise RuntimeError("normal expects standard deviation to be non-complex")
        if std.size and not (std >= 0).all():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    if mean_is_arr and not std_is_arr:
        std = float(std)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
        out = normal(mean.shape, dt, 0.0, std, gen)
        return _binary_into(out, mean, np.add, dt)
    shape = np.broadcast_shapes(np.shape(mean), std.shape)
    out = normal(shape, dt, 0.0, 1.0, gen)
    out = _binary_into(out, std, np.multiply, dt)
    return _binary_into(out, mean if mean_is_arr else np.array(mean, dt), np.add, dt)


# ----------------------------------------------------------------------------------------
# integers: random_ / randint

def _round_int(v, bits):
    """Round the integer v to `bits` significant bits, ties to even (int -> float cast)."""
    a = abs(v)
    extra = a.bit_length() - bits
    if extra <= 0:
        return v
    q, r = divmod(a, 1 << extra)
    half = 1 << (extra - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return -(q << extra) if v < 0 else q << extra


def _int_through(v, dt):
    """static_cast<int64_t>(static_cast<scalar_t>(v)) for a floating dtype."""
    if dt == _F64:
        return _round_int(v, 53)
    r = _round_int(v, 24)
    if dt == _F16:                        # int64 -> float -> Half: two roundings
        r = _round_int(r, 11)
        if abs(r) > 65504:                # Half overflows to inf; x86 gives INT64_MIN
            return _I64_MIN
    return r


def _update_from(frm, dt):
    """PyTorch's update_from: the smallest int >= from that the dtype holds exactly."""
    plus1 = _int_through(frm + 1, dt)
    if plus1 < frm:
        k = max(abs(frm + 1).bit_length() - 1, 0)
        frm = plus1 + (1 << (k - np.finfo(dt).nmant))
    return frm


def _update_to(to, dt):
    """PyTorch's update_to: the largest int < to that the dtype holds exactly, plus one."""
    minus1 = _int_through(to - 1, dt)
    if minus1 >= to:
        k = max(abs(to - 1).bit_length() - 1, 0)
        to = minus1 - (1 << (k - np.finfo(dt).nmant))
    return to


def _check_from_to_in_range(frm, to_inc, dt):
    """PyTorch's check_from_to_in_range: error outside the dtype, warn past exact floats."""
    if dt.kind == "f":
        fmax = float(np.finfo(dt).max)
        for val, name in ((frm, "from"), (to_inc, "to - 1")):
            if not -fmax <= float(val) <= fmax:
                raise RuntimeError(f"{name} is out of bounds for {_CPP_NAMES[dt.name]}")
        digits = np.finfo(dt).nmant + 1
        for val, name in ((frm, "from"), (to_inc, "to - 1")):
            if not -(1 << digits) <= val <= (1 << digits):
                warnings.warn(
                    f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {_CPP_NAMES[dt.name]} can support discrete uniform "
                    "distribution only within this range. This warning will become an error "
                    "in version 1.7 release, please fix the code in advance",
                    UserWarning, stacklevel=4)
    elif dt.kind in "biu":
        lo, hi = (0, 1) if dt.kind == "b" else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
        for val, name in ((frm, "from"), (to_inc, "to - 1")):
            if not lo <= val <= hi:
                raise RuntimeError(f"{name} is out of bounds for {_CPP_NAMES[dt.name]}")
    else:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")


def _from_to_draw(gen, n, rng, base):
    """uniform_int_from_to_distribution: (word % range) + base, wrapping like C++ uint64.

    Ranges >= 2**28 take a 64-bit draw per element, smaller ones a 32-bit draw.
    """
    words = gen._raw64(n) if rng >= 1 << 28 else gen._raw32(n)
    return ((words % np.uint64(rng)) + np.uint64(base & _U64)).view(np.int64)


def _default_range_draw(gen, n, dt):
    """uniform_int_distribution: random_() with no bounds, per dtype."""
    wide = dt in (_F64, _I64)
    words = gen._raw64(n) if wide else gen._raw32(n)
    if dt == np.bool_:
        return (words & np.uint64(1)).astype(np.bool_)
    if dt.kind == "f":                         # [0, 2**digits] holds exactly
        mod = (1 << (np.finfo(dt).nmant + 1)) + 1
    else:
        mod = int(np.iinfo(dt).max) + 1
    return (words % np.uint64(mod)).astype(dt)


def random_(shape, np_dtype, low=None, high=None, generator=None):
    """``Tensor.random_`` on a fresh array: integers drawn PyTorch's way for each dtype.

    * ``low=None, high=None``: ``random_()`` — [0, 2**mantissa] for floats,
      [0, max] for integers, {0, 1} for bool.
    * ``high`` only: ``random_(to)`` — [0, high).
    * ``low`` only: ``random_(from, None)`` — [low, max]; ``low = -2**63`` gives the full
      64-bit range (int64, float, double only).
    * both: ``random_(from, to)`` — [low, high).

    >>> g = Generator().manual_seed(0)
    >>> random_((4,), 'int64', 0, 10, generator=g)
    array([4, 9, 3, 0])
    """
    dt, shape, gen = _np_dtype(np_dtype), _shape(shape), _gen(generator)
    n = _numel(shape)
    if low is None and high is None:
        if n == 0:
            return np.empty(shape, dt)
        if dt.kind == "c":
            raise NotImplementedError(
                f"\"random_kernel_cpu\" not implemented for '{_tname(dt)}'")
        return _default_range_draw(gen, n, dt).reshape(shape)
    frm = 0 if low is None else _as_int64(low, "from")
    if high is not None:
        to = _as_int64(high, "to")
        if not frm < to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={frm} >= to={to}")
        if dt.kind == "f":
            frm, to = _update_from(frm, dt), _update_to(to, dt)
            if not frm < to:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than "
                                   f"'to' casted to dtype, but got from={frm} >= to={to}")
        _check_from_to_in_range(frm, to - 1, dt)
        rng = (to - frm) & _U64
    elif frm != _I64_MIN:
        to_inc = _default_to_inc(frm, dt)
        if dt.kind == "f":
            frm = _update_from(frm, dt)
            if not frm < to_inc:
                raise RuntimeError(
                    f"random_ expects 'from' casted to dtype to be less than or equal to "
                    f"'to_inc' casted to dtype, but got from={frm} > to_inc={to_inc}")
        _check_from_to_in_range(frm, to_inc, dt)
        rng = (to_inc - frm + 1) & _U64
    else:
        return _full_64_bits(gen, shape, dt)
    if n == 0:
        return np.empty(shape, dt)
    return _from_int64(_from_to_draw(gen, n, rng, frm), dt).reshape(shape)


def _default_to_inc(frm, dt):
    """The inclusive upper bound of ``random_(from, None)`` for each dtype."""
    if dt.kind == "f":
        return min(1 << (np.finfo(dt).nmant + 1), _I64_MAX)
    if dt.kind == "b":
        return 1
    if dt.kind in "iu":
        return int(np.iinfo(dt).max)
    raise RuntimeError("random_from_to_impl handles only integral, floating-point and "
                       "boolean types")


def _full_64_bits(gen, shape, dt):
    """``random_(-2**63, None)``: a raw 64-bit word reinterpreted as int64."""
    n = _numel(shape)
    if n == 0:
        return np.empty(shape, dt)
    if dt.kind in "bc" or dt == _F16:
        raise NotImplementedError(f"\"random_full_64_bits_range_kernel_cpu\" not "
                                  f"implemented for '{_tname(dt)}'")
    if dt not in (_I64, _F32, _F64):
        raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, "
                           "float and bfloat16")
    return _from_int64(gen._raw64(n).view(np.int64), dt).reshape(shape)


def randint(low, high, shape, np_dtype="int64", generator=None):
    """``torch.randint(low, high, shape)``: integers in [low, high).

    >>> g = Generator().manual_seed(0)
    >>> randint(0, 100, (5,), 'int64', generator=g)
    array([44, 39, 33, 60, 63])
    """
    return random_(shape, np_dtype, low, high, generator)


# ----------------------------------------------------------------------------------------
# randperm

def _forward_swaps(j):
    """The result of ``for i: swap(a[i], a[j[i]])`` on ``a = arange(n)`` with j[i] >= i.

    Vectorised: before step i, a position p >= i holds p unless an earlier step k sent
    something there (j[k] == p); then it holds a_k, the value position k had at step k.
    a_k itself is the value the latest earlier step aimed at k delivered, so the a's form
    chains resolved by pointer jumping. O(n log n) with NumPy sorts and searches.
    """
    n = j.size
    idx = np.arange(n, dtype=np.int64)
    order = np.argsort(j, kind="stable")           # grouped by target, then by step
    js = j[order]
    # previous step aiming at the same position as step i
    prev_same = np.full(n, -1, np.int64)
    same = js[1:] == js[:-1]
    prev_same[order[1:][same]] = order[:-1][same]
    # latest step k < i aiming at position i
    keys = js * n + order
    pos = np.searchsorted(keys, idx * n + idx, side="left") - 1
    cand = order[np.maximum(pos, 0)]
    parent = np.where((pos >= 0) & (j[cand] == idx), cand, idx)
    while True:                                   # pointer jumping to the chain roots
        grand = parent[parent]
        if np.array_equal(grand, parent):
            break
        parent = grand
    return np.where(prev_same >= 0, parent[np.maximum(prev_same, 0)], j)


def _inside_out(z):
    """The result of PyTorch's inside-out shuffle ``r[i] = r[z[i]]; r[z[i]] = i``.

    Vectorised like :func:`_forward_swaps`: position p ends with the last step aiming at
    it (if after p), else with what step p copied, which resolves through chains.
    """
    n = z.size
    idx = np.arange(n, dtype=np.int64)
    order = np.argsort(z, kind="stable")
    zs = z[order]
    prev_same = np.full(n, -1, np.int64)
    same = zs[1:] == zs[:-1]
    prev_same[order[1:][same]] = order[:-1][same]
    # what step p copies into r[p]: p itself, the previous step aiming at z[p] (if after
    # z[p]) or, recursively, what step z[p] copied
    direct = (z == idx) | (prev_same > z)
    value = np.where(z == idx, idx, prev_same)
    parent = np.where(direct, idx, z)
    while True:
        grand = parent[parent]
        if np.array_equal(grand, parent):
            break
        parent = grand
    copied = value[parent]
    # the last step aiming at p overwrites r[p] if it comes after p
    last = np.full(n, -1, np.int64)
    ends = np.r_[zs[1:] != zs[:-1], True]
    last[zs[ends]] = order[ends]
    return np.where(last > idx, last, copied)


def randperm(n, np_dtype="int64", generator=None):
    """``torch.randperm(n)``: PyTorch's CPU shuffle, vectorised.

    For n < 2**32 / 20 PyTorch swaps a[i] with a[i + random() % (n - i)] in turn; larger n
    use the inside-out shuffle with 64-bit draws. Both are replayed exactly.

    >>> g = Generator().manual_seed(0)
    >>> randperm(6, generator=g)
    array([2, 5, 3, 0, 1, 4])
    """
    n = operator.index(n)
    dt, gen = _np_dtype(np_dtype), _gen(generator)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dt.kind in "iu" and max(n - 1, 0) > np.iinfo(dt).max:
        raise RuntimeError(f"value cannot be converted to type {_CONVERT_NAMES[dt.name]} "
                           "without overflow")
    limits = {"float16": (11, "2049"), "float32": (24, "2^24+1"), "float64": (53, "2^53+1")}
    if dt.name in limits:
        bits, text = limits[dt.name]
        if n > (1 << bits) + 1:
            raise RuntimeError(f"n cannot be greater than {text} for {_tname(dt)} type.")
    if dt.kind in "bc":
        raise NotImplementedError(f"\"randperm\" not implemented for '{_tname(dt)}'")
    if n <= 1:
        return np.zeros(n, dt)
    if n < _RANDPERM_SMALL:
        i = np.arange(n - 1, dtype=np.uint64)
        j = np.empty(n, np.int64)
        j[:-1] = (i + gen._raw32(n - 1) % (np.uint64(n) - i)).astype(np.int64)
        j[-1] = n - 1
        perm = _forward_swaps(j)
    else:
        i1 = np.arange(1, n + 1, dtype=np.uint64)
        perm = _inside_out((gen._raw64(n) % i1).astype(np.int64))
    return perm.astype(dt)


# ----------------------------------------------------------------------------------------
# bernoulli, exponential, multinomial

def bernoulli_scalar(shape, p, np_dtype, generator=None):
    """``Tensor.bernoulli_(p)`` with a number p (dropout's mask): 1 where U[0,1) < p.

    Each element takes a 53-bit double uniform, whatever the output dtype.

    >>> g = Generator().manual_seed(0)
    >>> bernoulli_scalar((6,), 0.5, 'float32', generator=g)
    array([0., 0., 1., 0., 0., 0.], dtype=float32)
    """
    dt, shape, gen = _np_dtype(np_dtype), _shape(shape), _gen(generator)
    p = float(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    n = _numel(shape)
    if n == 0:
        return np.empty(shape, dt)
    if dt.kind == "c":
        raise NotImplementedError(
            f"\"bernoulli_scalar_cpu_\" not implemented for '{_tname(dt)}'")
    return (gen._uniform64(n) < p).astype(dt).reshape(shape)


def bernoulli_tensor(p, np_dtype, generator=None, shape=None):
    """``torch.bernoulli(p)`` / ``Tensor.bernoulli_(p_tensor)``: 1 where U[0,1) < p[i].

    float64 p draws 53-bit double uniforms; float32/float16 p draw 24-bit float uniforms.

    Args:
        p: probabilities (float16/32/64 array), broadcast to ``shape``.
        np_dtype: output dtype.
        generator: a :class:`Generator`, or ``None`` for the default one.
        shape: output shape (``Tensor.bernoulli_``); defaults to ``p.shape``.

    >>> g = Generator().manual_seed(0)
    >>> bernoulli_tensor(np.full(5, 0.3, np.float32), 'float32', generator=g)
    array([0., 0., 1., 1., 0.], dtype=float32)
    """
    p = np.asarray(p)
    dt, gen = _np_dtype(np_dtype), _gen(generator)
    shape = p.shape if shape is None else _shape(shape)
    n = _numel(shape)
    if n == 0:
        return np.empty(shape, dt)
    if dt.kind == "c":
        raise NotImplementedError(
            f"\"bernoulli_tensor_cpu_self_\" not implemented for '{_tname(dt)}'")
    if p.dtype == _F64:
        probs, draw = np.broadcast_to(p, shape).ravel(), gen._uniform64
    elif p.dtype in (_F32, _F16):
        probs, draw = np.broadcast_to(p, shape).ravel().astype(_F32), gen._uniform32
    else:
        raise NotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{_tname(p.dtype)}'")
    bad = ~((probs >= 0) & (probs <= 1))
    if bad.any():
        draw(int(np.argmax(bad)))        # PyTorch fails mid-loop, after earlier draws
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report "
                           "an enhancement request to PyTorch.)")
    return (draw(n) < probs).astype(dt).reshape(shape)


def exponential(shape, np_dtype, lambd=1.0, generator=None):
    """``Tensor.exponential_(lambd)``: -log(1 - U) / lambd, computed in double.

    >>> g = Generator().manual_seed(0)
    >>> exponential((3,), 'float64', generator=g)
    array([3.50832619, 1.23038476, 0.61504409])
    """
    dt, shape, gen = _np_dtype(np_dtype), _shape(shape), _gen(generator)
    lambd = float(lambd)
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    n = _numel(shape)
    if n == 0:
        return np.empty(shape, dt)
    if dt.kind != "f":
        raise RuntimeError("Exponential distribution is a continuous probability "
                           f"distribution. dtype must be a floating point but you specified "
                           f"{_tname(dt)}")
    vals = (-1.0 / lambd) * _libm("log1p", -gen._uniform64(n))
    return _from_double(vals, dt).reshape(shape)


def _check_multinomial(p, n_sample, replacement):
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if p.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, "
                           f"got: {_tname(p.dtype)}")
    if n_sample <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and n_sample > p.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if p.shape[-1] > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")


def multinomial(probs, num_samples, replacement=False, generator=None):
    """``torch.multinomial(probs, num_samples, replacement)`` as int64 indices.

    Without replacement PyTorch takes the top-k of p / Exp(1) (the Gumbel trick); with
    replacement it binary-searches a double uniform in the normalised cumulative sum.

    >>> g = Generator().manual_seed(0)
    >>> multinomial(np.array([0.1, 0.2, 0.7]), 2, generator=g)
    array([2, 1])
    """
    p, gen = np.asarray(probs), _gen(generator)
    n_sample = operator.index(num_samples)
    _check_multinomial(p, n_sample, replacement)
    rows = p.reshape(-1, p.shape[-1]) if p.ndim == 2 else p.reshape(1, -1)
    out_shape = (n_sample,) if p.ndim == 1 else (p.shape[0], n_sample)
    if _numel(out_shape) == 0:
        return np.empty(out_shape, np.int64)
    if replacement and n_sample > 1:
        return _multinomial_replacement(gen, rows, n_sample).reshape(out_shape)
    # without replacement (or for one sample, where it makes no difference) PyTorch checks
    # up front and takes the top-k of p / q with q ~ Exp(1)
    if p.size and not ((p.max() < np.inf) & (p.min() >= 0)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (rows.sum(axis=1, dtype=_F64) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    q = exponential(p.shape, p.dtype, 1.0, gen)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if p.dtype == _F16:                   # Half division runs in float, then rounds
            q = (p.astype(_F32) / q.astype(_F32)).astype(_F16)
        else:
            q = p / q
    if n_sample == 1:
        return np.argmax(q, axis=-1, keepdims=True).astype(np.int64)
    return _topk_indices(q.reshape(-1, q.shape[-1]), n_sample).reshape(out_shape)


def _multinomial_replacement(gen, rows, n_sample):
    """PyTorch's with-replacement kernel: sequential cumsum, normalise, lower-bound search.

    The kernel validates row by row while sampling, so rows before a bad one still
    consume their draws before the error.
    """
    acc = _F64 if rows.dtype == _F64 else _F32     # Half accumulates in float
    vals = rows.astype(acc)
    cum = np.cumsum(vals, axis=1, dtype=acc)       # sequential, like the C loop
    with np.errstate(invalid="ignore"):
        bad_neg = ~(vals >= 0)                     # NaN fails this test first
        bad_inf = ~np.isfinite(vals) & ~bad_neg
        bad_sum = ~(cum[:, -1] > 0)
    bad_row = bad_neg.any(axis=1) | bad_inf.any(axis=1) | bad_sum
    if bad_row.any():
        r = int(np.argmax(bad_row))
        gen._uniform64(r * n_sample)
        first_neg = np.argmax(bad_neg[r]) if bad_neg[r].any() else vals.shape[1]
        first_inf = np.argmax(bad_inf[r]) if bad_inf[r].any() else vals.shape[1]
        if first_neg < first_inf:
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        if first_inf < vals.shape[1]:
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry = infinity or NaN)")
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    with np.errstate(over="ignore"):
        cum = cum / cum[:, -1:]
    cum[:, -1] = 1
    u = gen._uniform64(rows.shape[0] * n_sample).reshape(rows.shape[0], n_sample)
    # vectorised copy of the kernel's binary search (first slot with cum >= u)
    lo = np.zeros(u.shape, np.int64)
    hi = np.full(u.shape, rows.shape[1], np.int64)
    row = np.arange(rows.shape[0])[:, None]
    while True:
        active = lo < hi
        if not active.any():
            break
        mid = lo + (hi - lo) // 2
        below = cum[row, np.minimum(mid, rows.shape[1] - 1)].astype(_F64) < u
        lo = np.where(active & below, mid + 1, lo)
        hi = np.where(active & ~below, mid, hi)
    return lo


def _topk_indices(q, k):
    """Indices of ``torch.topk(q, k).indices`` row by row, ties placed as PyTorch places them.

    Without ties any sort gives PyTorch's answer. Rows whose top k hold exact ties (say,
    zero-probability categories) replay libstdc++'s selection on (value, index) pairs,
    since the order PyTorch returns for equal values is whatever that algorithm leaves.
    """
    nan_first = np.where(np.isnan(q), np.inf, q)
    order = np.argsort(-nan_first, axis=1, kind="stable")
    out = order[:, :k].astype(np.int64)
    top = np.take_along_axis(q, order[:, :min(k + 1, q.shape[1])], axis=1)
    same = (top[:, 1:] == top[:, :-1]) | (np.isnan(top[:, 1:]) & np.isnan(top[:, :-1]))
    if same.any():
        from .ops._select_order import topk_order  # (numtorch.ops imports this module)
        for r in np.flatnonzero(same.any(axis=1)):
            out[r] = topk_order(q[r], k, largest=True)
    return out



# ----------------------------------------------------------------------------------------
# poisson

def _glibc_lgamma():
    """The C library's lgamma (PyTorch calls it); CPython's math.lgamma is its own code."""
    try:
        import ctypes
        fn = ctypes.CDLL(None).lgamma
        fn.restype, fn.argtypes = ctypes.c_double, (ctypes.c_double,)
        return fn
    except (OSError, AttributeError):
        return math.lgamma


_lgamma = None


def _poisson_one(lam, gen):
    """One Poisson(lam) count, drawing double uniforms one at a time as PyTorch does.

    Rates of 10 and more use Hörmann's transformed rejection (PTRS, 1993) with the
    constants PyTorch (and NumPy's legacy sampler) use; smaller ones multiply uniforms
    until the product drops to exp(-lam) or below.
    """
    global _lgamma
    if lam >= 10:
        if _lgamma is None:
            _lgamma = _glibc_lgamma()
        loglam = math.log(lam)
        b = 0.931 + 2.53 * math.sqrt(lam)
        a = -0.059 + 0.02483 * b
        log_inv_alpha = math.log(1.1239 + 1.1328 / (b - 3.4))
        v_r = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = float(gen._uniform64(1)[0]) - 0.5
            v = float(gen._uniform64(1)[0])
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= v_r:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            # NOTE: the same sums in the same order as PyTorch, so ties break alike
            if (math.log(v) + log_inv_alpha - math.log(a / (us * us) + b)
                    <= -lam + k * loglam - _lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    limit, prod, count = math.exp(-lam), 1.0, 0
    while True:
        prod *= float(gen._uniform64(1)[0])
        if not prod > limit:
            return count
        count += 1


def poisson(rates, generator=None):
    """``torch.poisson(rates)``: one Poisson count per rate, in the rates' (float) dtype.

    Elements are drawn in order, each taking as many uniforms as its sampler needs, so
    the stream stays PyTorch's.

    >>> g = Generator().manual_seed(0)
    >>> poisson(np.array([1., 5., 10.]), generator=g)
    array([2., 6., 9.])
    """
    rates, gen = np.asarray(rates), _gen(generator)
    if rates.dtype.kind != "f":
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{_tname(rates.dtype)}'")
    out = np.empty(rates.shape, rates.dtype)
    flat = out.reshape(-1)
    for i, lam in enumerate(rates.reshape(-1).tolist()):
        if not lam >= 0:
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        flat[i] = _poisson_one(lam, gen)
    return out


# ----------------------------------------------------------------------------------------
# gamma, dirichlet, binomial: ATen's samplers, one element at a time on double draws

def _std_normal_one(gen):
    """One at::normal_distribution<double>(0, 1) draw, sharing the generator's cached
    second Box-Muller value (as ``_normal_scalar``)."""
    if gen._normal_double is not None:
        v, gen._normal_double = gen._normal_double, None
        return v
    u1, u2 = gen._uniform64(2).tolist()
    r = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    gen._normal_double = r * math.sin(theta)
    return r * math.cos(theta)


_THIRD_F32 = float(np.float32(1.0) / np.float32(3.0))


def _gamma_one(alpha, gen, f32):
    """One Gamma(alpha, 1) draw: Marsaglia and Tsang (2000), boosting alpha < 1 by a
    uniform power, with ATen's order of draws. ``f32``: alpha is a float (scalar_t), so
    its own arithmetic is single precision while the rest runs in double."""
    rnd = (lambda v: float(np.float32(v))) if f32 else (lambda v: v)
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        scale *= (1.0 - float(gen._uniform64(1)[0])) ** rnd(1.0 / alpha)
        alpha = rnd(alpha + 1.0)
    # NOTE: 1.0f / 3.0f is a float constant, also when alpha is a double
    d = rnd(alpha - _THIRD_F32)
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = _std_normal_one(gen)
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - float(gen._uniform64(1)[0])
        xx = x * x
        # NOTE: 0.0331f is a float literal promoted to double
        if u < 1.0 - float(np.float32(0.0331)) * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma(alpha, generator=None):
    """``torch._standard_gamma(alpha)``: one Gamma(alpha, 1) draw per element, in order.

    >>> standard_gamma(np.array([0.5, 2.0]), generator=Generator().manual_seed(0)).shape
    (2,)
    """
    alpha, gen = np.asarray(alpha), _gen(generator)
    if alpha.dtype.kind != "f":
        raise NotImplementedError(f"\"gamma_cpu\" not implemented for '{_tname(alpha.dtype)}'")
    f32 = alpha.dtype != _F64
    tiny = float(np.finfo(alpha.dtype).tiny)
    vals = [max(tiny, _gamma_one(a, gen, f32)) for a in alpha.reshape(-1).tolist()]
    return np.array(vals, _F64).astype(alpha.dtype).reshape(alpha.shape)


def dirichlet(alpha, generator=None):
    """``torch._sample_dirichlet(alpha)``: Gamma draws in double (so small ones do not
    underflow), normalised over the last dim, kept inside (0, 1)."""
    alpha, gen = np.asarray(alpha), _gen(generator)
    if alpha.dtype.kind != "f":
        raise NotImplementedError(f"\"dirichlet\" not implemented for '{_tname(alpha.dtype)}'")
    tiny = float(np.finfo(_F64).tiny)
    g = np.array([max(tiny, _gamma_one(a, gen, False)) for a in alpha.reshape(-1).tolist()],
                 _F64).reshape(alpha.shape)
    from .ops._cascade import torch_sum     # (numtorch.ops imports this module)
    total = torch_sum(g, (g.ndim - 1,), _F64, True) if g.ndim else g
    out = (g / total).astype(alpha.dtype)
    top = np.nextafter(np.ones((), alpha.dtype), np.zeros((), alpha.dtype))
    return np.clip(out, np.finfo(alpha.dtype).tiny, top)


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_tail(k):
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(count, prob, gen):
    geom_sum, num = 0.0, 0
    logprob = math.log1p(-prob)
    while True:
        geom = math.ceil(math.log(float(gen._uniform64(1)[0])) / logprob)
        geom_sum += geom
        if geom_sum > count:
            return num
        num += 1


def _btrs(count, prob, gen):
    """Hörmann's BTRS (transformed rejection with squeeze), with ATen's constants."""
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1) * prob)
    while True:
        u = float(gen._uniform64(1)[0]) - 0.5
        v = float(gen._uniform64(1)[0])
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                 + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m)
                 - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= bound:
            return k


def _binomial_one(count, prob, gen, rnd):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        sampler = _btrs if rnd(count * prob) >= 10.0 else _binomial_inversion
        return sampler(count, prob, gen)
    if prob > 0.5:
        q = rnd(1.0 - prob)
        sampler = _btrs if rnd(count * q) >= 10.0 else _binomial_inversion
        return count - sampler(count, q, gen)
    return math.nan


def binomial(count, prob, generator=None):
    """``torch.binomial(count, prob)``: one count per element (BTRS when the mean is 10 or
    more, else inversion by geometric waiting times), in the inputs' dtype."""
    count, prob, gen = np.asarray(count), np.asarray(prob), _gen(generator)
    if count.dtype.kind != "f":
        raise NotImplementedError(f"\"binomial_cpu\" not implemented for "
                                  f"'{_tname(count.dtype)}'")
    count, prob = np.broadcast_arrays(count, prob)
    rnd = (lambda v: float(np.float32(v))) if count.dtype != _F64 else (lambda v: v)
    vals = [_binomial_one(n, p, gen, rnd)
            for n, p in zip(count.reshape(-1).tolist(), prob.reshape(-1).tolist())]
    return np.array(vals, _F64).astype(count.dtype).reshape(count.shape)
