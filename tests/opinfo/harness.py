"""One OpInfo entry through numtorch and PyTorch: convert the samples, call, compare.

``run_entry(op, max_samples)`` returns an ``EntryResult``: for each kind of check, how many
samples passed and failed, and the first failure messages. PyTorch is the oracle: a sample on
which PyTorch itself raises is skipped, not counted.

The checks, per sample:

- ``forward``: the function variant (``torch.<name>``, ``torch.nn.functional.<name>`` ...)
  gives the same values (tolerance by dtype), dtypes and shapes;
- ``method``, ``inplace``, ``operator``, ``alias``: the same for every other variant the OpInfo
  lists (``Tensor.<name>``, ``Tensor.<name>_``, ``operator.add``, ``torch.absolute`` ...);
- ``grad`` and ``gradgrad`` (float64 samples of differentiable ops): the vector-Jacobian
  product for a fixed random upstream gradient, then the derivative of those gradients
  (``create_graph=True``) with respect to the inputs and the upstream gradient.

A lambda that the OpInfo defines (``lambda x: x.mT``) runs on numtorch by re-binding its global
``torch`` to numtorch, as ``numtorch run`` does for a user's script.

Judgement calls, each visible below: outputs are compared after the sample's own
``output_process_fn_grad`` (what PyTorch's tests deem well defined, e.g. U @ V^H of an SVD);
gradients go through the OpInfo's ``gradcheck_wrapper`` (e.g. symmetrising eigh's input);
in-place variants run on copies under no_grad; random ops draw from the same seed (numtorch
reproduces PyTorch's stream); ``UNDEFINED_VALUES`` ops (``empty`` ...) compare dtype and shape
only; ``TIE_BREAKING`` ops may pick another of equal elements; the OpInfo's
``precisionOverride`` loosens the tolerance; what either library warns is not compared.
"""
import functools
import math
import types
import warnings

import numpy as np
import torch

import numtorch

# float32 and float64 for everything; the integer and bool dtypes where the op supports them
DTYPES = (torch.float32, torch.float64, torch.int64, torch.int32, torch.uint8, torch.bool)

COMPLEX_DTYPES = (torch.complex64, torch.complex128)

# (rtol, atol) for values and gradients; integer and bool results must match exactly
TOLERANCES = {
    torch.float16: (1e-2, 1e-2),
    torch.float32: (1e-4, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex64: (1e-4, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}


def tolerances(op):
    """``TOLERANCES`` loosened by the OpInfo's own ``precisionOverride`` (an atol per dtype
    that PyTorch's test suite applies to every test of the op)."""
    from torch.testing._internal.common_device_type import precisionOverride
    tol = dict(TOLERANCES)
    for dec in op.decorators:
        if isinstance(dec, precisionOverride):
            for dtype, atol in dec.d.items():
                if dtype in tol:
                    tol[dtype] = (tol[dtype][0], max(tol[dtype][1], atol))
    return tol


# ops whose values are unspecified (uninitialised memory): only dtype and shape are compared
UNDEFINED_VALUES = {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty",
                    "new_empty_strided", "resize_", "resize_as_"}

# PyTorch's unstable sorting kernels order equal elements arbitrarily, so for these ops an
# index output may pick a different one of equal elements (checked: it selects an equal value).
# name: (position of the dim argument, its default, position of keepdim or None (no reduction),
#        position of the indices in the output or None when the output is the indices)
TIE_BREAKING = {"sort": (1, -1, None, 1), "argsort": (1, -1, None, None),
                "topk": (2, -1, None, 1), "kthvalue": (2, -1, 3, 1), "median": (1, None, 2, 1),
                "nanmedian": (1, None, 2, 1), "mode": (1, -1, 2, 1)}

SEED = 1234
KINDS = ("forward", "method", "inplace", "operator", "alias", "grad", "gradgrad")


class Missing(Exception):
    """numtorch lacks the function, method or dtype that a check needs."""


class EntryResult:
    """Counts of passed and failed samples per check kind, and the first failure messages."""

    def __init__(self, name, variant):
        self.name, self.variant = name, variant
        self.passed = dict.fromkeys(KINDS, 0)
        self.failed = dict.fromkeys(KINDS, 0)
        self.skipped = 0
        self.messages = []
        self.missing = False
        self.applicable = True  # False: the entry has no CPU dtypes (a CUDA-only variant)

    def ok(self, kind):
        self.passed[kind] += 1

    def fail(self, kind, message, missing=False):
        self.failed[kind] += 1
        self.missing = self.missing or missing
        if len(self.messages) < 3 and message not in self.messages:
            self.messages.append(f"{kind}: {message}")

    @property
    def passes(self):
        """Every check of every sample passed (and at least one sample ran), or the entry has
        nothing to run on the CPU."""
        if not self.applicable:
            return True
        return not any(self.failed.values()) and self.passed["forward"] > 0

    def checked(self, kind):
        return self.passed[kind] + self.failed[kind]


# ---- torch objects -> numtorch objects ---------------------------------------------------
class Converter:
    """Maps torch values (nested) to numtorch ones; one torch tensor maps to one numtorch
    tensor, so aliasing between arguments is kept and gradients can be paired up."""

    def __init__(self, requires_grad=True):
        self.requires_grad = requires_grad
        self.pairs = {}

    def __call__(self, x):
        if isinstance(x, torch.Tensor):
            return self.tensor(x)
        if isinstance(x, (list, tuple)):
            items = [self(v) for v in x]
            return items if isinstance(x, list) else tuple(items)
        if isinstance(x, dict):
            return {k: self(v) for k, v in x.items()}
        if isinstance(x, slice):
            return slice(self(x.start), self(x.stop), self(x.step))
        if isinstance(x, torch.nn.Module):
            return self.module(x)
        return convert_scalar(x)

    def module(self, m):
        """A parameter-free torch module (a ``distance_function=PairwiseDistance()`` argument)
        as numtorch's module of the same class, with the same plain attributes."""
        if any(True for _ in m.parameters()) or any(True for _ in m.buffers()):
            raise Missing(f"cannot convert {type(m).__name__}: it holds tensors")
        cls = _numtorch_attr(f"nn.{type(m).__name__}")
        out = cls.__new__(cls)
        numtorch.nn.Module.__init__(out)
        for k, v in vars(m).items():
            if not k.startswith("_"):
                setattr(out, k, self(v))
        out.train(m.training)
        return out

    def tensor(self, t):
        hit = self.pairs.get(id(t))
        if hit is not None:
            return hit[1]
        dtype = convert_scalar(t.dtype)
        n = self._view(t)
        if n is None:
            n = numtorch.from_numpy(t.detach().resolve_conj().resolve_neg().numpy().copy())
        if n.dtype is not dtype:
            raise AssertionError(f"converted {t.dtype} to {n.dtype}")
        if self.requires_grad and t.requires_grad:
            n.requires_grad_(True)
        self.pairs[id(t)] = (t, n)
        return n

    @staticmethod
    def _view(t):
        """A contiguous view into part of a contiguous base (as_strided's ``partial_views``
        samples) as the same view of a numtorch copy of the base, so that the storage
        around it is there too; None for anything else (converted as a plain copy)."""
        base = t._base
        if base is None or t.is_conj() or t.is_neg() or not t.is_contiguous() or \
                not base.is_contiguous() or base.requires_grad:
            return None
        nb = numtorch.from_numpy(base.detach().numpy().copy())
        k = t.storage_offset() - base.storage_offset()
        return nb.reshape(-1)[k:k + t.numel()].view(tuple(t.shape))

    def grad_inputs(self):
        """The (torch, numtorch) tensor pairs whose torch side requires grad."""
        return [(t, n) for t, n in self.pairs.values() if t.requires_grad]


def convert_scalar(x):
    """A torch dtype/Size/device/layout/memory_format/Generator as numtorch's; else ``x``."""
    if isinstance(x, torch.dtype):
        name = str(x).split(".")[-1]
        value = getattr(numtorch, name, None)
        if not isinstance(value, numtorch.dtype):
            raise Missing(f"numtorch has no dtype {x}")
        return value
    if isinstance(x, torch.Size):
        return numtorch.Size(x)
    if isinstance(x, torch.device):
        return numtorch.device(str(x))
    if isinstance(x, (torch.memory_format, torch.layout)):
        return _numtorch_attr(str(x).split(".")[-1])
    if isinstance(x, torch.Generator):
        return numtorch.Generator().manual_seed(x.initial_seed())
    return x


def _numtorch_attr(path):
    obj = numtorch
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except (AttributeError, NotImplementedError, ImportError) as e:
            raise Missing(f"numtorch lacks torch.{path} ({type(e).__name__}: {e})") from None
    return obj


# ---- the numtorch twin of a torch callable -----------------------------------------------
def twin(fn, names):
    """numtorch's counterpart of the torch callable ``fn`` (resolved when called).

    ``names`` are the OpInfo's names for it (the op name, its aliases), tried first.
    """
    if fn is None:
        return None
    if getattr(fn, "__module__", None) in ("_operator", "operator"):
        return fn
    if isinstance(fn, types.FunctionType) and fn.__module__.startswith("torch.testing"):
        return rebind(fn)
    if isinstance(fn, functools.partial):
        conv = Converter()
        return functools.partial(twin(fn.func, ()), *conv(fn.args), **conv(fn.keywords))
    path = torch_path(fn, names)
    return _Lookup(path) if path else _Unknown(fn)


class _Lookup:
    """Calls ``numtorch.<path>``, raising ``Missing`` when numtorch has no such attribute."""

    def __init__(self, path):
        self.path = path

    def __call__(self, *args, **kwargs):
        return _numtorch_attr(self.path)(*args, **kwargs)


class _Unknown:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args, **kwargs):
        raise Missing(f"no numtorch counterpart known for {self.fn!r}")


_NAMESPACES = ("", "Tensor", "nn.functional", "linalg", "fft", "special", "signal.windows",
               "masked")


def torch_path(fn, names):
    """The path ``p`` with ``torch.<p> is fn`` ('linalg.eigh', 'Tensor.add_' ...), or None."""
    base = getattr(fn, "__name__", None)
    names = [n[len("torch."):] if n.startswith("torch.") else n for n in names]
    candidates = list(names)
    if base:
        candidates += [f"{ns}.{base}" if ns else base for ns in _NAMESPACES]
    for name in names:
        candidates += [f"Tensor.{name}", f"Tensor.{name}_"]
    for path in candidates:
        obj = torch
        for part in path.split("."):
            obj = getattr(obj, part, None)
        if obj is fn or _same_method(obj, fn):
            return path
    return None


def _same_method(obj, fn):
    return obj is not None and getattr(obj, "__func__", None) is fn


_REBOUND = {}


def rebind(fn):
    """``fn`` (a Python function from PyTorch's test suite) with global ``torch`` -> numtorch."""
    if fn.__name__ == "wrapper_set_seed":
        return wrapper_set_seed
    g = _REBOUND.get(id(fn.__globals__))
    if g is None:
        g = dict(fn.__globals__)
        g["torch"] = numtorch
        g["wrapper_set_seed"] = wrapper_set_seed
        _REBOUND[id(fn.__globals__)] = g
    new = types.FunctionType(fn.__code__, g, fn.__name__, _convert_defaults(fn.__defaults__),
                             fn.__closure__)
    new.__kwdefaults__ = _convert_defaults(fn.__kwdefaults__)
    return new


def _convert_defaults(values):
    if values is None:
        return None
    conv = Converter()
    if isinstance(values, dict):
        return {k: conv(v) for k, v in values.items()}
    return tuple(conv(v) for v in values)


def wrapper_set_seed(op, *args, **kwargs):
    """numtorch's version of the OpInfo helper: seed 42, then call (PyTorch's stream)."""
    numtorch.manual_seed(42)
    return op(*args, **kwargs)


# ---- comparing outputs -------------------------------------------------------------------
def compare(mine, ref, path="out", values=True, tol=None):
    """None when numtorch's ``mine`` matches torch's ``ref``; else what differs.
    ``tol``: {torch dtype: (rtol, atol)}, ``TOLERANCES`` by default."""
    if isinstance(ref, torch.Tensor):
        return _compare_tensor(mine, ref, path, values, tol or TOLERANCES)
    if isinstance(ref, (tuple, list)):
        if not isinstance(mine, (tuple, list)):
            return f"{path}: expected a sequence, got {type(mine).__name__}"
        if len(mine) != len(ref):
            return f"{path}: {len(mine)} items, expected {len(ref)}"
        for i, (m, r) in enumerate(zip(mine, ref)):
            msg = compare(m, r, f"{path}[{i}]", values, tol)
            if msg:
                return msg
        return None
    if isinstance(ref, torch.dtype):
        return None if str(mine) == str(ref) else f"{path}: {mine} != {ref}"
    if isinstance(ref, (bool, int, float, complex)):
        return _compare_number(mine, ref, path)
    if ref is None:
        return None if mine is None else f"{path}: expected None, got {type(mine).__name__}"
    return None if mine == ref else f"{path}: {mine!r} != {ref!r}"


def _compare_number(mine, ref, path):
    if isinstance(mine, numtorch.Tensor) or not isinstance(mine, (bool, int, float, complex)):
        return f"{path}: expected a Python {type(ref).__name__}, got {type(mine).__name__}"
    if isinstance(ref, bool) != isinstance(mine, bool):
        return f"{path}: {mine!r} != {ref!r}"
    if isinstance(ref, (float, complex)) and (ref != ref) and (mine != mine):
        return None
    if mine == ref or isinstance(ref, (float, complex)) and math.isclose(
            complex(mine).real, complex(ref).real, rel_tol=1e-6, abs_tol=1e-6) and \
            math.isclose(complex(mine).imag, complex(ref).imag, rel_tol=1e-6, abs_tol=1e-6):
        return None
    return f"{path}: {mine!r} != {ref!r}"


def _compare_tensor(mine, ref, path, values, tol):
    if not isinstance(mine, numtorch.Tensor):
        return f"{path}: expected a Tensor, got {type(mine).__name__}"
    if str(mine.dtype) != str(ref.dtype):
        return f"{path}: dtype {mine.dtype} != {ref.dtype}"
    if tuple(mine.shape) != tuple(ref.shape):
        return f"{path}: shape {tuple(mine.shape)} != {tuple(ref.shape)}"
    if not values:
        return None
    got = mine.detach().numpy()
    want = ref.detach().resolve_conj().resolve_neg().numpy(force=True)
    if ref.dtype in tol:
        rtol, atol = tol[ref.dtype]
        close = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = got == want
    if np.all(close):
        return None
    bad = np.argwhere(~np.asarray(close))[0]
    where = tuple(int(i) for i in bad)
    return (f"{path}: values differ at {where}: {got[where]!r} != {want[where]!r} "
            f"({int((~np.asarray(close)).sum())} of {close.size} elements)")


# ---- running the checks ------------------------------------------------------------------
def _seeded_call(fn, args, kwargs, lib):
    """Call with ``lib``'s random stream seeded (numtorch draws PyTorch's numbers)."""
    if lib is torch:  # the CPU generator directly: torch.manual_seed also seeds CUDA (slow)
        torch.default_generator.manual_seed(SEED)
    else:
        lib.manual_seed(SEED)
    return fn(*args, **kwargs)


def _flat(out):
    if isinstance(out, (tuple, list)):
        items = []
        for o in out:
            items += _flat(o)
        return items
    return [out]


class _Checker:
    """The checks of one OpInfo entry; results accumulate in ``self.res``."""

    def __init__(self, op, res):
        self.op, self.res = op, res
        names = [op.name] + [a.name for a in op.aliases]
        self.names = names
        self.fn = twin(op.op, names)
        self.tol = tolerances(op)
        # float32 gradients of a float64 sample (a float32 weight, say) carry the rounding
        # of a chain of float32 products: looser absolute tolerance for them
        self.grad_tol = dict(self.tol)
        self.grad_tol[torch.float32] = (self.tol[torch.float32][0],
                                        max(self.tol[torch.float32][1], 1e-4))
        self.values = op.name not in UNDEFINED_VALUES

    def _process(self, sample, out, nt):
        fn = sample.output_process_fn_grad
        if not nt:
            return fn(out)
        if isinstance(fn, types.FunctionType) and fn.__module__.startswith("torch.testing"):
            fn = rebind(fn)
        return fn(out)

    def variant(self, kind, t_fn, n_fn, sample, inplace=False):
        """Run one variant on one sample in both libraries and record the comparison."""
        if t_fn is None:
            return
        t_args = _torch_args(sample, inplace)
        conv = Converter(requires_grad=not inplace)
        try:  # before the torch call: an in-place variant changes its torch input
            n_args = (conv(t_args[0]), conv(t_args[1]))
        except Missing as e:
            n_args = e
        try:
            with torch.no_grad() if inplace else _null():
                ref = self._process(sample, _seeded_call(t_fn, *t_args, torch), False)
        except Exception:
            self.res.skipped += 1
            return
        try:
            if isinstance(n_args, Missing):
                raise n_args
            with numtorch.no_grad() if inplace else _null():
                mine = self._process(sample, _seeded_call(n_fn, *n_args, numtorch), True)
        except Missing as e:
            self.res.fail(kind, str(e), missing=True)
            return
        except Exception as e:
            self.res.fail(kind, f"{type(e).__name__}: {e}"[:300])
            return
        msg = compare(mine, ref, values=self.values, tol=_mixed(sample, self.tol))
        if msg and self.op.name in TIE_BREAKING and not inplace:
            msg = _tie_break_ok(self.op.name, sample, mine, ref) and msg
        if msg:
            self.res.fail(kind, msg)
        else:
            self.res.ok(kind)

    def gradients(self, sample, index):
        """grad and gradgrad of the function variant for one float64 sample."""
        op = self.op
        t_args, t_kwargs = _torch_args(sample, False)
        conv = Converter()
        wrapper = op.gradcheck_wrapper
        try:
            t_out = _flat(self._process(sample, _seeded_call(
                wrapper, (op.op,) + t_args, t_kwargs, torch), False))
        except Exception:
            return
        diff = [i for i, o in enumerate(t_out) if isinstance(o, torch.Tensor) and
                o.requires_grad and (o.is_floating_point() or o.is_complex())]
        if not diff:
            return
        try:
            n_args, n_kwargs = conv(t_args), conv(t_kwargs)
            n_wrapper = rebind(wrapper) if isinstance(wrapper, types.FunctionType) else wrapper
            n_out = _flat(self._process(sample, _seeded_call(
                n_wrapper, (self.fn,) + n_args, n_kwargs, numtorch), True))
            pairs_in = conv.grad_inputs()
            _grad_pair(self.res, t_out, n_out, diff, pairs_in, index, op.supports_gradgrad,
                       _mixed(sample, self.grad_tol))
        except Missing as e:
            self.res.fail("grad", str(e), missing=True)
        except Exception as e:
            self.res.fail("grad", f"{type(e).__name__}: {e}"[:300])


def _tie_break_ok(name, sample, mine, ref):
    """None when ``mine`` differs from ``ref`` only in which of equal elements its index
    output selects; else a reason."""
    dim_pos, dim_default, keep_pos, out_pos = TIE_BREAKING[name]
    args, kw = sample.args, sample.kwargs
    if kw.get("stable"):
        return "stable sort"
    dim = kw.get("dim", args[dim_pos - 1] if len(args) >= dim_pos else dim_default)
    keep = True if keep_pos is None else kw.get(
        "keepdim", args[keep_pos - 1] if len(args) >= keep_pos else False)
    x = sample.input.detach().numpy()
    if dim is None or x.ndim == 0:
        return "no dim"
    if out_pos is not None:
        if len(mine) != len(ref) or any(compare(m, r) for i, (m, r) in
                                        enumerate(zip(mine, ref)) if i != out_pos):
            return "values differ"
        mine, ref = mine[out_pos], ref[out_pos]
    if compare(mine, ref, values=False):
        return "dtype or shape"
    d = dim % x.ndim
    i_n, i_t = mine.numpy(), ref.numpy()
    if not keep:
        i_n, i_t = np.expand_dims(i_n, d), np.expand_dims(i_t, d)
    if i_n.size and (i_n.min() < 0 or i_n.max() >= x.shape[d]):
        return "index out of range"
    v_n, v_t = np.take_along_axis(x, i_n, d), np.take_along_axis(x, i_t, d)
    same = (v_n == v_t) | ((v_n != v_n) & (v_t != v_t))
    return None if np.all(same) else "selects other values"


def _mixed(sample, tol):
    """``tol``, with float64 compared at float32's tolerance when the sample also has float32
    tensors (their float32 intermediates round differently in the two libraries)."""
    dtypes = set()

    def walk(x):
        if isinstance(x, torch.Tensor):
            dtypes.add(x.dtype)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
    walk((sample.input, sample.args, sample.kwargs))
    if torch.float32 in dtypes and torch.float64 in dtypes:
        tol = dict(tol)
        tol[torch.float64] = tol[torch.float32]
    return tol


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _torch_args(sample, inplace):
    """``((input, *args), kwargs)`` of a sample; for in-place variants, detached copies."""
    args = (sample.input,) + tuple(sample.args)
    if not inplace:
        return args, sample.kwargs
    return _detach(args), _detach(sample.kwargs)


def _detach(x):
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    if isinstance(x, (list, tuple)):
        items = [_detach(v) for v in x]
        return items if isinstance(x, list) else tuple(items)
    if isinstance(x, dict):
        return {k: _detach(v) for k, v in x.items()}
    return x


def _random_like(rng, t, lib, requires_grad):
    shape = tuple(t.shape)
    data = rng.standard_normal(shape)
    if t.is_complex():
        data = data + 1j * rng.standard_normal(shape)
    data = np.asarray(data).astype(str(t.dtype).split(".")[-1])
    out = lib.from_numpy(data.copy())
    return out.requires_grad_(True) if requires_grad else out


def _grad_pair(res, t_out, n_out, diff, pairs, index, gradgrad, tol):
    """Compare first (and second) derivatives; ``diff`` indexes the differentiable outputs."""
    if len(n_out) != len(t_out):
        res.fail("grad", f"{len(n_out)} outputs, expected {len(t_out)}")
        return
    rng = np.random.default_rng(index)
    t_ins = [t for t, _ in pairs]
    n_ins = [n for _, n in pairs]
    t_g = [_random_like(rng, t_out[i], torch, gradgrad) for i in diff]
    n_g = [numtorch.from_numpy(g.detach().numpy().copy()).requires_grad_(gradgrad) for g in t_g]
    try:
        t_grads = torch.autograd.grad([t_out[i] for i in diff], t_ins, t_g, allow_unused=True,
                                      create_graph=gradgrad)
    except Exception:
        return
    outs = [n_out[i] for i in diff]
    bad = [i for i, o in zip(diff, outs) if not (isinstance(o, numtorch.Tensor) and
                                                 o.requires_grad)]
    if bad:
        res.fail("grad", f"output {bad[0]} does not require grad")
        return
    n_grads = numtorch.autograd.grad(outs, n_ins, n_g, allow_unused=True,
                                     create_graph=gradgrad)
    msg = _compare_grads(n_grads, t_grads, "grad", tol)
    if msg:
        res.fail("grad", msg)
        return
    res.ok("grad")
    if gradgrad:
        _gradgrad(res, t_grads, n_grads, t_ins + t_g, n_ins + n_g, rng, tol)


def _compare_grads(mine, ref, what, tol):
    for i, (m, r) in enumerate(zip(mine, ref)):
        if r is None and m is None:
            continue
        if r is None:
            r = torch.zeros(tuple(m.shape), dtype=getattr(torch, str(m.dtype).split(".")[-1]))
        if m is None:
            m = numtorch.zeros(tuple(r.shape), dtype=convert_scalar(r.dtype))
        msg = compare(m, r, f"{what}[{i}]", tol=tol)
        if msg:
            return msg
    return None


def _gradgrad(res, t_grads, n_grads, t_targets, n_targets, rng, tol):
    sel = [i for i, g in enumerate(t_grads) if g is not None and g.requires_grad]
    if not sel:
        return
    t_v = [_random_like(rng, t_grads[i], torch, False) for i in sel]
    try:
        t_gg = torch.autograd.grad([t_grads[i] for i in sel], t_targets, t_v,
                                   allow_unused=True)
    except Exception:
        return
    n_v, n_outs = [], []
    for i, v in zip(sel, t_v):
        g = n_grads[i]
        if g is not None and g.requires_grad:
            n_outs.append(g)
            n_v.append(numtorch.from_numpy(v.numpy().copy()))
    try:
        n_gg = numtorch.autograd.grad(n_outs, n_targets, n_v, allow_unused=True) if n_outs \
            else [None] * len(n_targets)
    except Exception as e:
        res.fail("gradgrad", f"{type(e).__name__}: {e}"[:300])
        return
    msg = _compare_grads(n_gg, t_gg, "gradgrad", tol)
    if msg:
        res.fail("gradgrad", msg)
    else:
        res.ok("gradgrad")


# ---- one entry ---------------------------------------------------------------------------
def entry_dtypes(op):
    """The dtypes of ``DTYPES`` this OpInfo supports on CPU."""
    supported = op.supported_dtypes("cpu")
    chosen = [d for d in DTYPES if d in supported]
    if not chosen:  # complex-only ops (view_as_real, imag ...)
        chosen = [d for d in COMPLEX_DTYPES if d in supported]
    return chosen


def samples(op, dtype, max_samples=None):
    """The OpInfo's CPU samples in ``dtype`` (float64 ones require grad when differentiable),
    generated from a fixed seed; at most ``max_samples``."""
    rg = (dtype == torch.float64 and op.supports_autograd and
          dtype in op.supported_backward_dtypes("cpu"))
    torch.manual_seed(0)
    out = []
    for s in op.sample_inputs("cpu", dtype, requires_grad=rg):
        out.append(s)
        if max_samples is not None and len(out) >= max_samples:
            break
    return out, rg


def run_entry(op, max_samples=None):
    """All checks of one OpInfo entry; ``max_samples`` bounds the samples per dtype."""
    res = EntryResult(op.name, op.variant_test_name)
    ck = _Checker(op, res)
    variants = [("method", op.method_variant, False), ("inplace", op.inplace_variant, True),
                ("operator", op.operator_variant, False),
                ("operator", op.inplace_operator_variant, True)]
    for a in op.aliases:
        variants += [("alias", a.op, False), ("alias", a.method_variant, False),
                     ("alias", a.inplace_variant, True)]
    variants = [(k, v, twin(v, ck.names), ip) for k, v, ip in variants if v is not None]
    dtypes = entry_dtypes(op)
    res.applicable = bool(dtypes)
    for dtype in dtypes:
        batch, rg = samples(op, dtype, max_samples)
        for i, s in enumerate(batch):
            with warnings.catch_warnings():  # what the ops warn is not compared
                warnings.simplefilter("ignore")
                ck.variant("forward", op.op, ck.fn, s)
                for kind, t_fn, n_fn, ip in variants:
                    ck.variant(kind, t_fn, n_fn, s, inplace=ip)
                if rg:
                    ck.gradients(s, i)
    return res
