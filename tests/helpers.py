"""Test helpers: numtorch checked against PyTorch (the oracle), and numerically without it.

The pieces, each short enough to read at a glance:

- ``torch_or_skip()``: PyTorch, or a clean skip where it is not installed (the ``torch``
  fixture in conftest.py wraps it).
- ``to_torch`` / ``from_torch``: copy a tensor across the two libraries.
- ``check_op(op, *inputs)``: run one op in both libraries on the same data and compare
  values, dtype, shape, ``grad_fn`` name, gradients and second derivatives.
- ``check_same(fn)``: ``fn(numtorch)`` and ``fn(torch)`` give the same plain result.
- ``check_error(fn)``: both libraries raise the same exception type with the same message.
- ``numerical_grad_check(f, inputs, order=2)``: first and second derivatives against central
  differences in float64; needs no PyTorch.

Inputs given as NumPy arrays become tensors in each library (floating ones require grad);
anything else (scalars, dims, lists of arrays) is passed through, arrays inside converted.
"""
import numpy as np
import pytest

import numtorch

# rtol, atol for comparing values of each dtype (gradients use the same)
TOLERANCES = {
    "float16": (1e-3, 1e-3),
    "float32": (1e-5, 1e-5),
    "float64": (1e-9, 1e-12),
    "complex64": (1e-5, 1e-5),
    "complex128": (1e-9, 1e-12),
}


def torch_or_skip():
    """The real PyTorch module, or skip the calling test when it is not installed."""
    return pytest.importorskip("torch")


def dtype_name(dtype):
    """'float32' for ``torch.float32`` or ``numtorch.float32`` (comparable across libraries)."""
    return str(dtype).replace("torch.", "")


# ---- conversions ---------------------------------------------------------------------------
def to_torch(t, requires_grad=None):
    """A torch tensor with the values, dtype and (unless given) requires_grad of ``t``."""
    torch = torch_or_skip()
    out = torch.from_numpy(np.array(t.detach().numpy(), copy=True))
    rg = t.requires_grad if requires_grad is None else requires_grad
    return out.requires_grad_(rg) if rg else out


def from_torch(t, requires_grad=None):
    """A numtorch tensor with the values, dtype and (unless given) requires_grad of ``t``."""
    out = numtorch.from_numpy(np.array(t.detach().numpy(), copy=True))
    rg = t.requires_grad if requires_grad is None else requires_grad
    return out.requires_grad_(rg) if rg else out


def _make_inputs(lib, inputs, requires_grad):
    """Inputs for ``lib``: each ndarray (also inside lists) becomes a fresh tensor."""
    def convert(x):
        if isinstance(x, np.ndarray):
            t = lib.from_numpy(np.array(x, copy=True))
            return t.requires_grad_(True) if requires_grad and x.dtype.kind in "fc" else t
        if isinstance(x, (list, tuple)) and any(isinstance(v, np.ndarray) for v in x):
            return type(x)(convert(v) for v in x)
        return x
    return [convert(x) for x in inputs]


def _leaves(values):
    """The tensors requiring grad among ``values`` (walking into lists), in order."""
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out += _leaves(v)
        elif hasattr(v, "requires_grad") and v.requires_grad:
            out.append(v)
    return out


def _call(lib, op, args, kwargs):
    fn = getattr(lib, op) if isinstance(op, str) else op
    return fn(*args, **kwargs)


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


# ---- comparisons ---------------------------------------------------------------------------
def assert_close(mine, ref, rtol=None, atol=None, what="value"):
    """``mine`` (numtorch) equals ``ref`` (torch) in dtype, shape and values (nan == nan)."""
    assert dtype_name(mine.dtype) == dtype_name(ref.dtype), \
        f"{what}: dtype {mine.dtype} != {ref.dtype}"
    assert tuple(mine.shape) == tuple(ref.shape), f"{what}: shape {mine.shape} != {ref.shape}"
    default_rtol, default_atol = TOLERANCES.get(dtype_name(ref.dtype), (0, 0))
    got = mine.detach().numpy()
    want = _numpy_of(ref)
    np.testing.assert_allclose(got, want, rtol=default_rtol if rtol is None else rtol,
                               atol=default_atol if atol is None else atol, equal_nan=True,
                               err_msg=what)


def _numpy_of(ref):
    """A torch tensor's values (its ZeroTensors, which refuse numpy(), as zeros)."""
    ref = ref.detach()
    if ref._is_zerotensor():
        return np.zeros(tuple(ref.shape), dtype_name(ref.dtype))
    return ref.resolve_conj().numpy()


def _assert_grads_close(mine, ref, rtol, atol, what):
    assert len(mine) == len(ref), what
    for i, (g, r) in enumerate(zip(mine, ref)):
        assert (g is None) == (r is None), f"{what} {i}: {g} vs {r}"
        if r is not None:
            assert_close(g, r, rtol, atol, f"{what} {i}")


def _grad_name(t):
    fn = t.grad_fn
    return None if fn is None else fn.name()


def check_op(op, *inputs, kwargs=None, grad=True, gradgrad=True, grad_fn=True, rtol=None,
             atol=None, seed=0):
    """Compare ``op`` on ``inputs`` between numtorch and torch, returning numtorch's output.

    Args:
        op: an op name ('add' calls ``lib.add``) or a function of the tensors that works on
            both libraries (``lambda x, y: x @ y``).
        inputs: ndarrays (become tensors; floating ones require grad when ``grad``) and
            other arguments passed as they are.
        kwargs: keyword arguments for ``op``.
        grad: also compare first derivatives (vector-Jacobian product with a random
            upstream gradient) for every floating output.
        gradgrad: also compare second derivatives (the derivative of those gradients,
            taken with ``create_graph=True``, with respect to inputs and upstream grads).
        grad_fn: also compare ``grad_fn.name()`` of the outputs.
    """
    torch = torch_or_skip()
    kwargs = kwargs or {}
    rng = np.random.default_rng(seed)
    mine_in = _make_inputs(numtorch, inputs, grad)
    ref_in = _make_inputs(torch, inputs, grad)
    mine_out = _as_tuple(_call(numtorch, op, mine_in, kwargs))
    ref_out = _as_tuple(_call(torch, op, ref_in, kwargs))
    assert len(mine_out) == len(ref_out)
    for m, r in zip(mine_out, ref_out):
        assert_close(m, r, rtol, atol, "output")
        assert m.requires_grad == r.requires_grad, "output requires_grad"
        if grad_fn:
            assert _grad_name(m) == _grad_name(r), \
                f"grad_fn name {_grad_name(m)} != {_grad_name(r)}"
    if grad and _leaves(ref_in):
        _check_grads(numtorch, torch, mine_in, ref_in, mine_out, ref_out, rng, gradgrad,
                     rtol, atol)
    return mine_out[0] if len(mine_out) == 1 else mine_out


def check_op_or_error(op, *inputs, **kwargs):
    """``check_op`` where torch computes the op, ``check_error`` where it raises."""
    torch = torch_or_skip()
    try:
        _call(torch, op, _make_inputs(torch, inputs, False), kwargs.get("kwargs") or {})
    except Exception:  # noqa: BLE001 - numtorch must then raise the same
        return check_error(lambda lib: _call(lib, op, _make_inputs(lib, inputs, False),
                                             kwargs.get("kwargs") or {}))
    return check_op(op, *inputs, **kwargs)


def _random_like(lib, t, rng):
    data = rng.standard_normal(tuple(t.shape))
    if t.dtype.is_complex:
        data = data + 1j * rng.standard_normal(tuple(t.shape))
    data = np.asarray(data.astype(dtype_name(t.dtype)))  # a 0-d complex sum is a NumPy scalar
    return lib.from_numpy(data).requires_grad_(True)


def _check_grads(nt, torch, mine_in, ref_in, mine_out, ref_out, rng, gradgrad, rtol, atol):
    """First derivatives, then (optionally) second derivatives, in both libraries."""
    pairs = [(m, r) for m, r in zip(mine_out, ref_out) if r.requires_grad]
    if not pairs:
        return
    state = rng.bit_generator.state
    ups_m = [_random_like(nt, m, rng) for m, _ in pairs]
    rng.bit_generator.state = state
    ups_r = [_random_like(torch, r, rng) for _, r in pairs]
    leaves_m, leaves_r = _leaves(mine_in), _leaves(ref_in)
    g_m = nt.autograd.grad([m for m, _ in pairs], leaves_m, ups_m, create_graph=True,
                           allow_unused=True)
    g_r = torch.autograd.grad([r for _, r in pairs], leaves_r, ups_r, create_graph=True,
                              allow_unused=True)
    _assert_grads_close(g_m, g_r, rtol, atol, "gradient")
    if not gradgrad:
        return
    diff = [i for i, g in enumerate(g_r) if g is not None and g.requires_grad]
    if not diff:
        return
    state = rng.bit_generator.state
    vs_m = [_random_like(nt, g_m[i], rng).detach() for i in diff]
    rng.bit_generator.state = state
    vs_r = [_random_like(torch, g_r[i], rng).detach() for i in diff]
    gg_m = nt.autograd.grad([g_m[i] for i in diff], leaves_m + ups_m, vs_m,
                            materialize_grads=True)
    gg_r = torch.autograd.grad([g_r[i] for i in diff], leaves_r + ups_r, vs_r,
                               materialize_grads=True)
    _assert_grads_close(gg_m, gg_r, rtol, atol, "second derivative")


def plain(x):
    """A library-neutral form of a result, for ``==``: tensors become
    ('tensor', dtype, shape, values); dtypes and devices their str; sizes tuples."""
    if hasattr(x, "detach") and hasattr(x, "dtype"):
        values = x.detach().resolve_conj().numpy() if hasattr(x, "resolve_conj") \
            else x.detach().numpy()
        return ("tensor", dtype_name(x.dtype), tuple(x.shape), values.tolist())
    if isinstance(x, (list, tuple)):
        return tuple(plain(v) for v in x)
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    name = type(x).__name__
    if name in ("dtype", "device", "layout", "memory_format"):
        return f"{name}:{x}"
    return x


def check_same(fn, exact=False):
    """``fn(numtorch)`` and ``fn(torch)`` give the same result: equal after ``plain``, except
    that floating tensors may differ within their dtype's tolerance unless ``exact``."""
    torch = torch_or_skip()
    mine, ref = fn(numtorch), fn(torch)
    if exact:
        assert plain(mine) == plain(ref)
    else:
        _assert_same(mine, ref, "result")
    return mine


def _assert_same(mine, ref, where):
    if hasattr(ref, "detach") and hasattr(ref, "dtype") and \
            dtype_name(ref.dtype) in TOLERANCES:
        assert hasattr(mine, "detach"), f"{where}: {mine!r} is not a tensor"
        assert_close(mine, ref, what=where)
    elif isinstance(ref, (list, tuple)) and isinstance(mine, (list, tuple)):
        assert len(mine) == len(ref), f"{where}: length {len(mine)} != {len(ref)}"
        for i, (m, r) in enumerate(zip(mine, ref)):
            _assert_same(m, r, f"{where}[{i}]")
    else:
        assert plain(mine) == plain(ref), where


def check_same_outcome(fn):
    """Like ``check_same`` where torch returns, like ``check_error`` where it raises."""
    torch = torch_or_skip()
    if _raised(fn, torch) is not None:
        return check_error(fn)
    return check_same(fn)


def _raised(fn, lib):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001 - the exception is what we compare
        return e
    return None


def check_error(fn, torch_fn=None):
    """numtorch and torch raise the same exception type with the same message.

    Either ``fn(lib)`` is called once with each library, or ``fn()`` runs numtorch and
    ``torch_fn()`` runs torch.
    """
    torch = torch_or_skip()
    if torch_fn is None:
        mine, ref = _raised(fn, numtorch), _raised(fn, torch)
    else:
        mine, ref = _raised(lambda _: fn(), None), _raised(lambda _: torch_fn(), None)
    assert ref is not None, "torch raised nothing"
    assert mine is not None, f"numtorch raised nothing; torch raised {ref!r}"
    assert type(mine).__name__ == type(ref).__name__ or isinstance(mine, type(ref)), \
        f"{type(mine).__name__} != {type(ref).__name__}: {mine} / {ref}"
    assert str(mine) == str(ref)
    return mine


# ---- numerical checks (no torch) -----------------------------------------------------------
def _vjp_check(f, xs, eps, rtol, atol, rng):
    """Analytic vector-Jacobian product of ``f`` at ``xs`` against central differences."""
    ts = [numtorch.tensor(x, requires_grad=True) for x in xs]
    out = f(*ts)
    v = rng.standard_normal(tuple(out.shape))
    if out.requires_grad:
        analytic = numtorch.autograd.grad(out, ts, numtorch.tensor(v), allow_unused=True)
    else:  # f does not depend on its inputs (a first derivative that is constant)
        analytic = [None] * len(ts)
    for i, x in enumerate(xs):
        numeric = np.zeros_like(x)
        for j in np.ndindex(x.shape):
            numeric[j] = (_dot(f, xs, i, j, eps, v) - _dot(f, xs, i, j, -eps, v)) / (2 * eps)
        got = np.zeros_like(x) if analytic[i] is None else analytic[i].detach().numpy()
        np.testing.assert_allclose(got, numeric, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {i}")


def _dot(f, xs, i, j, step, v):
    """<v, f(xs)> with element ``j`` of input ``i`` moved by ``step``."""
    moved = [x.copy() for x in xs]
    moved[i][j] += step
    out = f(*[numtorch.tensor(x, requires_grad=True) for x in moved])
    return float(np.sum(out.detach().numpy() * v))


def numerical_grad_check(f, inputs, order=2, eps=1e-6, rtol=1e-5, atol=1e-6, seed=0):
    """Check derivatives of ``f`` (numtorch tensors -> tensor) up to ``order`` numerically.

    Order 1 compares the vector-Jacobian product with central differences in float64;
    order 2 does the same for the function ``x -> d<v, f(x)>/dx`` (built with
    ``create_graph=True``), which checks every second derivative along ``v``.
    """
    rng = np.random.default_rng(seed)
    xs = [np.array(x, dtype=np.float64) for x in inputs]
    _vjp_check(f, xs, eps, rtol, atol, rng)
    if order < 2:
        return
    v = numtorch.tensor(rng.standard_normal(tuple(f(*[numtorch.tensor(x) for x in xs]).shape)))

    def first_derivative(*ts):
        grads = numtorch.autograd.grad(f(*ts), ts, v, create_graph=True,
                                       materialize_grads=True)
        return numtorch.cat([g.reshape(-1) for g in grads])

    _vjp_check(first_derivative, xs, eps, rtol * 10, atol * 10, rng)


def saved_value(v):
    """A node's saved attribute in a form both engines print alike: a tensor as (shape,
    dtype, rounded sum), anything else as its repr."""
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        out = (tuple(v.shape), str(v.dtype).replace("torch.", ""))
        if v.numel() and v.dtype.is_floating_point:
            return out + (round(float(v.detach().double().sum()), 4),)
        if v.numel():
            return out + (int(v.detach().long().sum()),)
        return out
    return repr(v)


def graph_table(out, skip=()):
    """[(name, edges, {saved name: value})] breadth first from ``out.grad_fn``, for comparing
    the graph one engine builds with the other's (``skip``: saved names left out)."""
    seen, order, queue = set(), [], [out.grad_fn]
    while queue:
        n = queue.pop(0)
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        order.append(n)
        queue.extend(m for m, _ in n.next_functions)
    return [(n.name(), [(None if m is None else m.name(), k) for m, k in n.next_functions],
             {a: saved_value(getattr(n, a)) for a in sorted(dir(n))
              if a.startswith("_saved_") and a not in skip}) for n in order]
