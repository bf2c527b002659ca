"""``torch.func`` gradient transforms: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
linearize.

Reverse mode uses the ordinary autograd engine: each transform differentiates with respect to
fresh copies of its inputs (so nested transforms never confuse their variables) and keeps the
graph of the result only when something outside the transform needs it (an input or a
captured tensor that requires grad, or an enclosing transform). Forward mode uses a private
dual level per call, so ``jvp`` calls nest.
"""
import functools

from .._tensor import Tensor
from ..autograd import _interpose
from ..autograd.grad_mode import STATE, enable_grad
from . import _pytree, _wrapper_repr
from ._batching import grad_any, differentiable_copy, to_layout, unwrap_all, wrap_all

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "linearize"]


class _FuncLevel:
    """Marks a torch.func transform as active (custom Functions then need setup_context);
    ``diff`` for the transforms that differentiate what runs inside (grad, vjp, jvp)."""

    def __init__(self, diff=True):
        self.diff = diff

    def __enter__(self):
        _interpose.enter_func(self.diff)

    def __exit__(self, *exc):
        if self.diff:
            _wrapper_repr.forget(_interpose.STATE.diff_levels[-1])
        _interpose.exit_func(self.diff)


def _zeros_like(t):
    from .. import _creation
    return _creation.zeros_like(t)


def detach_any(t):
    """``t.detach()`` that also cuts a batched tensor's physical tensor from the graph."""
    p, levels = unwrap_all(t)
    return wrap_all(p.detach(), levels) if levels else t.detach()


def _prepare(x):
    """A differentiable copy of input ``x``, batched at every active vmap level (so that
    gradients inside vmap are per sample)."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if not (x.is_floating_point() or x.is_complex()):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    levels = [v[0] for v in _interpose.STATE.vmap_levels]
    if levels:
        x = to_layout(x, sorted(set(levels)))
    return differentiable_copy(x)


def _register_copies(originals, copies, others=()):
    """Tell printing which tensors are this grad/vjp level's own inputs (``_wrapper_repr``):
    the differentiable ``copies`` of ``originals``, and the tensors among ``others`` (the
    arguments not differentiated, which PyTorch wraps at the level too)."""
    own = {}
    for x, c in zip(originals, copies):
        p, _ = unwrap_all(c)
        own[p._grad_fn if p._grad_fn is not None else p._edge()[0]] = x
    members = {id(a) for a in _pytree.tree_flatten(others)[0] if isinstance(a, Tensor)}
    _wrapper_repr.register("grad", (own, members))


def _reaches_outside(outputs, own):
    """Whether the graph of ``outputs`` reaches a leaf other than the transform's own inputs."""
    own_nodes = {_wrapper_repr._node(unwrap_all(x)[0]) for x in own}
    starts = [_wrapper_repr._node(p) for p in (unwrap_all(o)[0] for o in outputs) if p._rg]
    return _wrapper_repr.reaches_leaf(starts, own_nodes.__contains__)


def _unwrap_aux(aux, keep_graph):
    """The auxiliary output of a transformed function: tensors only (PyTorch unwraps each one
    and refuses anything else), cut from the transform's graph unless it is kept."""
    leaves, spec = _pytree.tree_flatten(aux)
    for a in leaves:
        if not isinstance(a, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(a)}")
    if keep_graph:
        return aux
    return _pytree.tree_unflatten([detach_any(a) for a in leaves], spec)


def _check_outputs(flat_out, what):
    """PyTorch's checks of a vjp/jvp function's flattened outputs."""
    if not flat_out or (len(flat_out) == 1 and flat_out[0] is None):
        raise RuntimeError(f"{what}: Expected f to be a function that has non-empty output "
                           f"(got output = {flat_out})")
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{what}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")


def _needs_graph(originals, copies, outputs, grad_on):
    if not grad_on:
        return False
    if any(isinstance(x, Tensor) and x._rg for x in originals):
        return True
    return _reaches_outside(outputs, copies)


# ---- argnums --------------------------------------------------------------------------------
def _check_argnums(argnums, n):
    def one(a):
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(a)}")
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
        return a % n if n else a
    if isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        return tuple(one(a) for a in argnums)
    if not isinstance(argnums, int) or isinstance(argnums, bool):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    return one(argnums)


def _select(args, argnums):
    return tuple(args[i] for i in argnums) if isinstance(argnums, tuple) else args[argnums]


def _replace(args, argnums, new):
    args = list(args)
    if isinstance(argnums, tuple):
        for i, v in zip(argnums, new):
            args[i] = v
    else:
        args[argnums] = new
    return tuple(args)


# ---- grad -----------------------------------------------------------------------------------
def grad_and_value(func, argnums=0, has_aux=False):
    """Like :func:`grad`, returning ``(gradient, value)`` (``(gradient, (value, aux))`` with
    ``has_aux``).

    >>> import numtorch as torch
    >>> torch.func.grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1., 2.]))
    (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _FuncLevel():
            return _grad_and_value(func, argnums, has_aux, args, kwargs)
    return wrapper


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    what = "grad_and_value(f)(*args)"
    grad_on = STATE.enabled
    argnums = _check_argnums(argnums, len(args))
    diff = _select(args, argnums)
    flat, spec = _pytree.tree_flatten(diff)
    copies = [_prepare(x) for x in flat]
    chosen = argnums if isinstance(argnums, tuple) else (argnums,)
    _register_copies(flat, copies, ([a for i, a in enumerate(args) if i not in chosen],
                                    kwargs))
    with enable_grad():
        out = func(*_replace(args, argnums, _pytree.tree_unflatten(copies, spec)), **kwargs)
    aux = None
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise RuntimeError(f"{what}: output of function f should be a tuple: (output, aux) "
                               "if has_aux is True")
        out, aux = out
    if not isinstance(out, Tensor):
        raise RuntimeError(f"{what}: Expected f(*args) to return a Tensor, got {type(out)}")
    if out.dim() != 0:
        raise RuntimeError(f"{what}: Expected f(*args) to return a scalar Tensor, got tensor "
                           f"with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                           "APIs instead?")
    create = _needs_graph(flat, copies, [out], grad_on)
    if out._rg:
        grads = grad_any([out], copies, None, create_graph=create, allow_unused=True)
    else:
        grads = [None] * len(copies)
    grads = [g if g is not None else _zeros_like(c) for g, c in zip(grads, copies)]
    if not create:
        out = detach_any(out)
        grads = [detach_any(g) if g._rg else g for g in grads]
    g = _pytree.tree_unflatten(grads, spec)
    if has_aux:
        return g, (out, _unwrap_aux(aux, create))
    return g, out


def grad(func, argnums=0, has_aux=False):
    """The gradient of scalar-valued ``func`` with respect to argument(s) ``argnums``.

    Args:
        func: returns a scalar tensor (and an auxiliary value when ``has_aux``).
        argnums: which positional argument(s) to differentiate (an int or a tuple).
        has_aux: ``func`` returns ``(output, aux)``; the gradient function then returns
            ``(gradient, aux)``.

    Returns:
        A function computing the gradient, with the structure of the chosen arguments.

    >>> import numtorch as torch
    >>> torch.func.grad(lambda x: x.sin().sum())(torch.tensor([0.0]))
    tensor([1.])
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _FuncLevel():
            res = _grad_and_value(func, argnums, has_aux, args, kwargs)
        if has_aux:
            g, (_, aux) = res
            return g, aux
        return res[0]
    return wrapper


# ---- vjp ------------------------------------------------------------------------------------
def vjp(func, *primals, has_aux=False):
    """``func(*primals)`` and a function mapping output cotangents to input cotangents.

    >>> import numtorch as torch
    >>> out, fn = torch.func.vjp(torch.sin, torch.tensor([0.0]))
    >>> fn(torch.tensor([2.0]))
    (tensor([2.]),)
    """
    with _FuncLevel():
        return _vjp_with_argnums(func, primals, has_aux)


def _vjp_with_argnums(func, primals, has_aux):
    # NOTE: named as PyTorch's, so that printing the returned function looks the same
    what = "vjp(f, *primals)"
    grad_on = STATE.enabled
    flat, spec = _pytree.tree_flatten(primals)
    copies = [_prepare(x) for x in flat]
    _register_copies(flat, copies)
    with enable_grad():
        out = func(*_pytree.tree_unflatten(copies, spec))
    aux = None
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: "
                               "(output, aux) if has_aux is True")
        out, aux = out
    flat_out, out_spec = _pytree.tree_flatten(out)
    _check_outputs(flat_out, what)
    for o in flat_out:
        if not (o.is_floating_point() or o.is_complex()):
            raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                               f"complex Tensors, got Tensor with dtype {o.dtype}")
    create = _needs_graph(flat, copies, flat_out, grad_on)

    def wrapper(cotangents, retain_graph=True, create_graph=None):
        flat_ct, ct_spec = _pytree.tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{ct_spec.pprint()}, primal output: {out_spec.pprint()}")
        with _FuncLevel(diff=False):  # a backward: nothing here runs forward in the level
            cg = create or (create_graph is True) or any(
                isinstance(c, Tensor) and c._rg for c in flat_ct)
            pairs = [(o, c) for o, c in zip(flat_out, flat_ct) if o._rg]
            grads = [None] * len(copies)
            if pairs:
                grads = grad_any([o for o, _ in pairs], copies, [c for _, c in pairs],
                                 create_graph=cg, retain_graph=retain_graph,
                                 allow_unused=True)
            grads = [g if g is not None else _zeros_like(c) for g, c in zip(grads, copies)]
            return _pytree.tree_unflatten(grads, spec)

    shown = out if create else _pytree.tree_map(
        lambda o: detach_any(o) if isinstance(o, Tensor) else o, out)
    if has_aux:
        return shown, wrapper, _unwrap_aux(aux, create)
    return shown, wrapper


# ---- jvp ------------------------------------------------------------------------------------
def jvp(func, primals, tangents, *, strict=False, has_aux=False, _diff=True):
    """``(func(*primals), J @ tangents)`` by forward-mode AD.

    >>> import numtorch as torch
    >>> torch.func.jvp(torch.sin, (torch.tensor([0.0]),), (torch.tensor([3.0]),))
    (tensor([0.]), tensor([3.]))
    """
    what = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{what}: Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    flat_p, p_spec = _pytree.tree_flatten(primals)
    flat_t, t_spec = _pytree.tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{what}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be. Got primals with structure "
                           f"{p_spec} and tangents with structure {t_spec}")
    for flat, name in ((flat_p, "primals"), (flat_t, "tangents")):
        if not flat:
            raise RuntimeError(f"{what}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{what}: Expected {name} to only contain Tensors, got "
                                   f"{type(x)}")
    with _FuncLevel(_diff):
        return _jvp(func, flat_p, flat_t, p_spec, has_aux, _diff)


def _jvp(func, flat_p, flat_t, p_spec, has_aux, own_level=True):
    from ..autograd.forward_ad import make_dual_at, unpack_at
    lvl = _interpose.push_fw()
    try:
        duals = [make_dual_at(p, t, lvl) for p, t in zip(flat_p, flat_t)]
        if own_level:   # (linearize's jvp runs in no level of its own)
            _wrapper_repr.register("jvp", lvl)
        out = func(*_pytree.tree_unflatten(duals, p_spec))
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError("jvp(f, primals, tangents): output of function f should be "
                                   "a tuple: (output, aux) if has_aux is True")
            out, aux = out
            _unwrap_aux(aux, True)
        flat_o, o_spec = _pytree.tree_flatten(out)
        _check_outputs(flat_o, "jvp(f, primals, tangents)")
        prim, tans = [], []
        for o in flat_o:
            p, t = unpack_at(o, lvl, "AliasBackward0")
            prim.append(p)
            tans.append(t if t is not None else _zeros_like(p))
    finally:
        _interpose.pop_fw(lvl)
    res = (_pytree.tree_unflatten(prim, o_spec), _pytree.tree_unflatten(tans, o_spec))
    return res + (aux,) if has_aux else res


# ---- jacobians ------------------------------------------------------------------------------
def _assemble(per_out, out_spec, in_spec):
    """Jacobian blocks ``per_out[o][i]`` in the structure PyTorch returns."""
    return _pytree.tree_unflatten([_pytree.tree_unflatten(row, in_spec) for row in per_out],
                                  out_spec)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` by reverse mode: vjps of the one-hot cotangents, batched with
    vmap (``chunk_size`` at a time) and looped where vmap cannot batch them.

    >>> import numtorch as torch
    >>> torch.func.jacrev(lambda x: x * 2)(torch.ones(2))
    tensor([[2., 0.],
            [0., 2.]])
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    # NOTE: as PyTorch's, the returned function takes positional arguments only (a keyword
    # argument raises Python's TypeError naming ``func``)
    @functools.wraps(func)
    def wrapper_fn(*args):
        _error_if_complex("jacrev", args, True)
        n = _check_argnums(argnums, len(args))
        diff = _select(args, n)

        def f(*d):
            return func(*_replace(args, n, d if isinstance(n, tuple) else d[0]))
        res = vjp(f, *(diff if isinstance(n, tuple) else (diff,)), has_aux=has_aux)
        out, fn = res[0], res[1]
        flat_in, in_spec = _pytree.tree_flatten(diff)
        flat_out, out_spec = _pytree.tree_flatten(out)
        _error_if_complex("jacrev", flat_out, False)
        per_out = []
        for k, o in enumerate(flat_out):
            def row(e, k=k):
                cts = [e if j == k else _zeros_like(q) for j, q in enumerate(flat_out)]
                return tuple(_pytree.tree_flatten(fn(_pytree.tree_unflatten(cts, out_spec)))[0])
            rows = _one_hot_map(row, o, chunk_size)
            per_out.append([r.reshape(tuple(o.shape) + tuple(x.shape))
                            for r, x in zip(rows, flat_in)])
        jac = _assemble(per_out, out_spec, in_spec)
        return (jac, res[2]) if has_aux else jac
    return wrapper_fn


def _error_if_complex(name, tree, is_input):
    """PyTorch's refusal of complex inputs or outputs in jacrev and jacfwd."""
    for idx, a in enumerate(_pytree.tree_flatten(tree)[0]):
        if isinstance(a, Tensor) and a.is_complex():
            what = "inputs" if is_input else "outputs"
            raise RuntimeError(f"{name}: Expected all {what} to be real but received complex "
                               f"tensor at flattened input idx: {idx}")


def _one_hot_map(fn, t, chunk_size=None):
    """``fn`` (returning a tuple of tensors) applied to each one-hot tensor shaped like ``t``,
    results stacked along a new dim 0: one vmap call, or a loop where vmap fails."""
    from .. import _creation
    basis = _creation.eye(t.numel(), dtype=t.dtype).reshape((t.numel(),) + tuple(t.shape))
    if t.numel() == 0:
        return tuple(r.new_zeros((0,) + tuple(r.shape)) for r in fn(_zeros_like(t)))
    return _rows_map(fn, (basis,), t.numel(), chunk_size)


def _rows_map(fn, basis, n, chunk_size=None, randomness="error"):
    """``fn(*rows)`` (a tuple of tensors) for each row of the ``basis`` tensors (``n`` rows),
    stacked along a new dim 0: one vmap call, or a loop where vmap fails."""
    from ..ops.shape import stack
    from ._vmap import vmap
    # NOTE: PyTorch batches even a single one-hot (its zeros' signs then come out of a
    # batched backward's reductions) but loops for chunk_size=1
    if chunk_size != 1:
        try:
            return vmap(fn, chunk_size=chunk_size, randomness=randomness)(*basis)
        except Exception as e:  # noqa: BLE001 - the loop below raises any genuine error again
            if getattr(e, "user_vmap_error", False):  # as PyTorch: a custom Function
                raise                                # without a vmap rule fails here
    results = [fn(*[b[i] for b in basis]) for i in range(n)]
    return tuple(stack([r[m] for r in results]) for m in range(len(results[0])))


def _standard_basis(flat_in, numels):
    """PyTorch's basis for jacfwd: one tensor per input, shaped ``(sum(numels),) + shape``,
    holding the rows of the identity that belong to that input (zeros elsewhere)."""
    from .. import _creation
    total = sum(numels)
    basis = []
    start = 0
    for x, k in zip(flat_in, numels):
        b = _creation.zeros((total, k), dtype=x.dtype)
        if k:
            b[start:start + k] = _creation.eye(k, dtype=x.dtype)
        basis.append(b.reshape((total,) + tuple(x.shape)))
        start += k
    return basis


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` by forward mode: jvps of the one-hot tangents of all inputs,
    batched with one vmap (looped where vmap cannot batch them), so ``func`` runs once, as in
    PyTorch.

    >>> import numtorch as torch
    >>> torch.func.jacfwd(lambda x: x ** 2)(torch.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    @functools.wraps(func)
    def wrapper_fn(*args):   # positional arguments only, as PyTorch's (see jacrev)
        _error_if_complex("jacfwd", args, True)
        n = _check_argnums(argnums, len(args))
        diff = _select(args, n)
        flat_in, in_spec = _pytree.tree_flatten(diff)
        numels = [x.numel() for x in flat_in]  # PyTorch sizes its basis first: a non-tensor
        basis = _standard_basis(flat_in, numels)  # fails here, as there
        specs = {}

        def f(*flat):
            return func(*_replace(args, n, _pytree.tree_unflatten(list(flat), in_spec)))

        def push_jvp(*tans):
            res = jvp(f, tuple(flat_in), tans, has_aux=has_aux)
            _error_if_complex("jacfwd", res[0], False)
            flat_t, specs["out"] = _pytree.tree_flatten(res[1])
            flat_aux = []
            if has_aux:
                flat_aux, specs["aux"] = _pytree.tree_flatten(res[2])
            specs["n"] = len(flat_t)
            return tuple(flat_t) + tuple(flat_aux)
        if sum(numels) == 0:
            rows = tuple(r.new_zeros((0,) + tuple(r.shape))  # (aux included: PyTorch's
                         for r in push_jvp(*[_zeros_like(x) for x in flat_in]))  # aux[0] fails)
        else:
            rows = _rows_map(push_jvp, basis, sum(numels), randomness=randomness)
        k = specs["n"]
        per_out = []
        for jac in rows[:k]:
            cols = jac.movedim(0, -1).split(numels, dim=-1)
            out_shape = tuple(jac.shape[1:])
            per_out.append([c.reshape(out_shape + tuple(x.shape))
                            for c, x in zip(cols, flat_in)])
        jac = _assemble(per_out, specs["out"], in_spec)
        if has_aux:
            aux = _pytree.tree_unflatten([a.select(0, 0) for a in rows[k:]], specs["aux"])
            return jac, aux
        return jac
    return wrapper_fn


def hessian(func, argnums=0):
    """The Hessian of scalar ``func``: ``jacfwd(jacrev(func))``.

    >>> import numtorch as torch
    >>> torch.func.hessian(lambda x: (x ** 3).sum())(torch.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)`` where ``jvp_fn(*tangents)`` is the JVP at ``primals``.

    >>> import numtorch as torch
    >>> out, fn = torch.func.linearize(torch.sin, torch.tensor([0.0]))
    >>> fn(torch.tensor([2.0]))
    tensor([2.])
    """
    # NOTE: PyTorch traces one jvp here and replays the trace in jvp_fn: a custom Function's
    # setup_context runs once per call (no extra call for a jvp level, see extra_setups)
    with _FuncLevel(diff=False):
        out = func(*primals)
    out = _pytree.tree_map(lambda o: detach_any(o) if isinstance(o, Tensor) else o, out)
    flat_primals, primals_spec = _pytree.tree_flatten(primals)

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = _pytree.tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec} to have the same "
                               f"argspec as the primals {primals_spec}")
        _check_linearize_tangents(flat_primals, flat_tangents)
        return jvp(func, primals, tangents, _diff=False)[1]
    return out, jvp_fn


def _check_linearize_tangents(flat_primals, flat_tangents):
    """PyTorch's checks on the tangents given to linearize's ``jvp_fn`` (its traced graph
    would otherwise run on them unchecked)."""
    for i, (p, t) in enumerate(zip(flat_primals, flat_tangents)):
        for what in ("shape", "dtype"):
            if getattr(t, what) != getattr(p, what):
                raise RuntimeError(f"tangent:{i} with {what} {getattr(t, what)} in flattened "
                                   f"pytree doesn't match the {what} {getattr(p, what)} of "
                                   "the corresponding primal.")
