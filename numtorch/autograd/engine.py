"""The backward pass: a recursion-free walk over the graph in dependency order.

Nodes become ready when every edge into them has delivered its gradient; ready nodes run
newest first (by creation order), as in PyTorch, so hooks and prints happen in its order.
Gradients are freed as soon as a node has consumed them.
"""
import heapq
import itertools
import sys

import numpy as np

from .grad_mode import STATE
from . import function as _function
from .function import _check_grads, _FREED
from .graph import (AccumulateGrad, DelayedError, GraphTask, _tasks, freed_error,
                    node_hook_result, n_outputs as _n_out, tensor_hook_result)


__all__ = ["run_backward"]



_acc_pushes = itertools.count()
_ACC_FIRST = -(2 ** 63)


_OPS_BASE = []  # numtorch.ops._base, bound on the first backward (it imports this module)


def _bind_ops_base():
    """numtorch.ops._base, imported once: a function-level import costs ~1 µs each time."""
    from ..ops import _base
    _OPS_BASE.append(_base)
    return _base


def _prio(node):
    """Heap entry of a ready node: newest first, but AccumulateGrad before everything (PyTorch
    gives it sequence_nr UINT64_MAX), accumulators among themselves in the order they became
    ready."""
    if type(node) is AccumulateGrad:
        return (_ACC_FIRST + next(_acc_pushes), node)
    return (-node._seq, node)

def _discover(roots):
    """The number of edges into every node reachable from ``roots`` (iterative DFS)."""
    deps = {}
    stack = [n for n in roots if n is not None]
    if len(stack) > 1:  # a root given twice (grad([z, z], x)) is walked once
        stack = list(dict.fromkeys(stack))
    seen = set(stack)  # the roots; every other node seen is a key of deps
    get = deps.get
    push = stack.append
    while stack:
        nf = stack.pop().next_functions
        # NOTE: a chain of one-input nodes (a second edge may be a wrapped number's, to no
        # node: ``x * 2``), each reached for the first time, is followed without the stack;
        # where it ends, the loop below takes the last node's edges
        while len(nf) == 1 or len(nf) == 2 and nf[1][0] is None:
            child = nf[0][0]
            if child is None or child in deps or child in seen:
                break
            deps[child] = 1
            nf = child.next_functions
        for child, _ in nf:
            if child is None:
                continue
            n = get(child)
            if n is None:
                deps[child] = 1
                if child not in seen:
                    push(child)
            else:
                deps[child] = n + 1
    return deps


def _topo(deps, roots):
    """Nodes in topological order (every node before the nodes it feeds gradients to)."""
    remaining = dict(deps)
    ready = [n for n in dict.fromkeys(roots) if n is not None and remaining.get(n, 0) == 0]
    out = []
    while ready:
        node = ready.pop()
        out.append(node)
        for child, _ in node.next_functions:
            if child is None:
                continue
            remaining[child] -= 1
            if remaining[child] == 0:
                ready.append(child)
    return out


def _needed(deps, roots, targets):
    """Nodes on some path from a root to a target, and the edge counts among just those."""
    needed = set(targets)
    for node in reversed(_topo(deps, roots)):
        if node in needed:
            continue
        for child, _ in node.next_functions:
            if child in needed:
                needed.add(node)
                break
    counts = {}
    for node in needed:
        for child, _ in node.next_functions:
            if child in needed:
                counts[child] = counts.get(child, 0) + 1
    return needed, counts


def run_backward(roots, grads, retain_graph, create_graph, inputs=None, accumulate=True):
    """Propagate ``grads`` (Tensors) from root edges ``roots`` [(node, output_nr)].

    With ``inputs`` (a list of edges), only the paths to them run; with ``accumulate=False``
    their gradients are returned instead of accumulated (``autograd.grad``).
    """
    root_nodes = [n for n, _ in roots]
    deps = _discover(root_nodes)
    captures = {}
    needed = None
    if inputs is not None:
        for idx, (node, nr) in enumerate(inputs):
            if node is not None:
                captures.setdefault(node, []).append((nr, idx))
        needed, deps = _needed(deps, root_nodes, captures)
    buffers = {}
    for (node, nr), g in zip(roots, grads):
        if node is not None:
            _add(buffers, node, nr, g)
    heap = []
    for node in dict.fromkeys(root_nodes):
        if node is not None and deps.get(node, 0) == 0 and (needed is None or node in needed):
            heap.append(_prio(node))
    heapq.heapify(heap)
    captured = [None] * (len(inputs) if inputs is not None else 0)
    # what hooks may ask about this backward (graph.register_multi_grad_hook, checkpoint)
    _tasks.append(GraphTask(root_nodes, deps, needed, captures, accumulate))
    prev = STATE.enabled
    STATE.enabled = create_graph
    try:
        _loop(heap, buffers, deps, needed, captures, captured, accumulate, retain_graph,
              create_graph)
    finally:
        STATE.enabled = prev
        _tasks.pop()
    return captured


def _loop(heap, buffers, deps, needed, captures, captured, accumulate, retain_graph,
          create_graph):
    """Run ready nodes newest first until none is left.

    The per-node work is inlined (this loop is the backward pass's hot path): hooks, captures
    and all-None gradients take the slow branches only when present. When a node makes
    exactly one node ready and nothing else waits (a chain), that node runs next without
    going through the heap: it would have been popped next anyway; a one-output node that
    gets its only gradient so is handed it directly (``g``), without a buffer.
    """
    heappop, heappush, pop, get = heapq.heappop, heapq.heappush, buffers.pop, buffers.get
    check, freed, Tensor = _check_grads, _FREED, _function.Tensor
    ndarray, make, true1 = np.ndarray, Tensor._make, _function._TRUE1
    # first order with nothing interposed: built-in ops may run their array backward, and
    # gradients then pass between them as bare ndarrays (made Tensors where anything else
    # sees them: hooks, captures, other nodes, the leaves' .grad)
    base = _OPS_BASE[0] if _OPS_BASE else _bind_ops_base()
    arrays = not create_graph and base._interpose is None
    node = heappop(heap)[1] if heap else None
    g = None  # the carried gradient of ``node`` (then it has one output and no buffer)
    while node is not None:
        if type(node) is AccumulateGrad and arrays and node._x is None and not captures:
            # NOTE: the usual leaf, its gradient an array in its buffer (an accumulator is
            # never carried) and no hooks: AccumulateGrad's work done directly, no more
            grads = pop(node, None)
            if grads is not None and type(grads[0]) is ndarray:
                ex = node.variable._extra
                if ex is None or ("hooks" not in ex and "post_acc" not in ex):
                    outs = gi = d = None  # the loop's other references to it
                    _accumulate_array(node.variable, grads)
                    node = heappop(heap)[1] if heap else None
                    continue
            if grads is not None:
                buffers[node] = grads  # (the general path below takes it)
        if g is None or captures or node._x is not None:
            grads = pop(node, None) if g is None else [g]
            if grads is None:
                grads = [None] * _n_out(node)
            elif arrays:
                if type(node) is AccumulateGrad and type(grads[0]) is ndarray and \
                        node._x is None and not captures:
                    outs = gi = d = None  # the loop's other references to it (_leaf_grad)
                    grads[0] = _leaf_grad(node, grads[0])
                elif not (len(grads) == 1 and node._np_fast is not None and node._x is None
                          and node._plain_call and not captures):
                    _as_tensors(grads)  # (a node that runs its array backward takes arrays)
            if captures and node in captures:
                grads = _capture(node, grads, captures[node], captured, needed, accumulate)
                if grads is None:  # captured, not run
                    node = heappop(heap)[1] if heap else None
                    g = None
                    continue
            elif node._x is not None or (type(node) is AccumulateGrad and
                                         node.variable._leaf_hooks()):
                # (a node without _x has no hooks of its own: only a leaf's tensor hooks)
                grads = _pre_hooks(node, grads)
            g = grads[0] if len(grads) == 1 else None
        else:
            grads = None
        if g is not None and node._x is None and node._plain_call:
            # NOTE: BackwardCFunction._backward and _release inlined for one output with a
            # gradient (nothing to materialise) and no hooks or metadata: the common case
            # (``_plain_call``: a Function's node, not boxed). A node with metadata may carry
            # an instance-level _backward (anomaly mode wraps it so), which must run
            # instead. _check_grads's first check is inlined too.
            npb = node._np_fast if arrays else None
            exact = False  # (an array backward's tuple the op declares exact: no check)
            if npb is None:
                outs = node._forward_cls._backward_fn(
                    node, g if type(g) is Tensor else make(g, None, False))
            else:
                outs = npb(node, g if type(g) is ndarray else g._data)
                if outs is NotImplemented:
                    outs = node._forward_cls._backward_fn(
                        node, g if type(g) is Tensor else make(g, None, False))
                else:
                    exact = node._np_exact and type(outs) is tuple
            gi = None  # the first input's gradient, once known to need no check
            # (ndarrays only from a built-in op, whose npb is set: a user's backward must
            # return Tensors, and the general check raises PyTorch's error otherwise)
            if type(outs) is Tensor or (type(outs) is ndarray and npb is not None):
                d = outs if type(outs) is ndarray else outs._data
                # (``true1``: the one input of this node needs a gradient; its meta is set)
                m = node._in_meta[0] if node.needs_input_grad is true1 else None
                if m is not None and d.shape == m[0] and d.dtype is m[1].np:
                    gi = outs
                    outs = None  # (gi,), built below unless the chain shortcut takes gi
                else:
                    outs = check(node, outs)
            elif exact:
                pass  # (entry i is edge i's; zip below stops at the last edge)
            elif type(outs) is tuple and len(outs) == 2 and outs[1] is None and \
                    (type(outs[0]) is Tensor or (type(outs[0]) is ndarray and npb is not None)):
                # ``tensor (op) number``: a fine first gradient needs no check either
                meta = node._in_meta
                gi = outs[0]
                d = gi if type(gi) is ndarray else gi._data
                if not (len(meta) == 2 and meta[1] is not None and
                        node.needs_input_grad[0] and meta[0] is not None and
                        d.shape == meta[0][0] and d.dtype is meta[0][1].np):
                    gi = None
                    outs = check(node, outs)
            else:
                outs = check(node, outs)
            if not retain_graph:
                saved = node._saved
                if type(saved) is not tuple or saved:  # (the compact form: a Tensor)
                    node._saved = freed
            if gi is not None:
                nf = node.next_functions
                if (len(nf) == 1 or nf[1][0] is None) and not heap and needed is None:
                    # NOTE: a link of a chain (one edge to follow, nothing else waiting):
                    # when it makes its child ready with that child's only gradient, run
                    # the child next with it directly (the loop below, less its bookkeeping)
                    child = nf[0][0]
                    if child is not None and deps[child] == 1:
                        meta = child._out_meta
                        if meta is not None and len(meta) == 1 and child not in buffers:
                            deps[child] = 0
                            node, g = child, gi
                            continue
                if outs is None:
                    outs = (gi,)
        else:
            if grads is None:
                if type(g) is ndarray:
                    if type(node) is AccumulateGrad:
                        outs = gi = d = None  # the loop's other references to g (_leaf_grad)
                        g = _leaf_grad(node, g)
                    else:
                        g = make(g, None, False)
                grads = [g]
            if type(node) is AccumulateGrad and node._x is None and grads[0] is not None:
                # NOTE: AccumulateGrad._backward inlined for a leaf's node without hooks (no
                # post hooks, nothing to release): the usual leaf
                node.variable._accumulate_grad(grads[0], create_graph)
                outs = ()
            else:
                for g in grads:
                    if g is not None:
                        outs = node._backward(grads, create_graph)
                        break
                else:
                    outs = node._backward(grads, create_graph) \
                        if type(node) is AccumulateGrad else _without_grads(node, grads,
                                                                           create_graph)
                if node._post_hooks:
                    outs = _post_hooks(node, outs, grads)
                if not retain_graph:
                    node._release()
        ready = None
        g = None
        for (child, nr), gi in zip(node.next_functions, outs):
            if child is None or (needed is not None and child not in needed):
                continue
            left = deps[child] - 1
            deps[child] = left
            if gi is not None:
                buf = get(child)
                if buf is None:
                    meta = child._out_meta
                    if meta is not None and len(meta) == 1:  # one output: nr is 0
                        if left == 0:  # ready with its only gradient: carry it
                            if ready is not None:
                                if g is not None:
                                    buffers[ready] = [g]
                                heappush(heap, _prio(ready))
                            ready, g = child, gi
                            continue
                        buffers[child] = [gi]
                    elif type(child) is AccumulateGrad:  # (one input, no out meta)
                        buffers[child] = [gi]
                    else:
                        buf = buffers[child] = [None] * _n_out(child)
                        buf[nr] = gi
                else:
                    old = buf[nr]
                    buf[nr] = gi if old is None else _sum(old, gi)
            if left == 0:
                if ready is not None:
                    if g is not None:
                        buffers[ready] = [g]
                        g = None
                    heappush(heap, _prio(ready))
                ready = child
        if ready is not None and heap:
            if g is not None:
                buffers[ready] = [g]
                g = None
            heappush(heap, _prio(ready))
            ready = None
        node = ready if ready is not None else (heappop(heap)[1] if heap else None)


def _without_grads(node, grads, create_graph):
    """The gradients of a node reached with none at all: it still runs in PyTorch. A custom
    Function's backward sees zeros (or Nones without materialising); a built-in op unpacks
    its saved tensors (raising once they are freed) and gives no gradient."""
    cls = getattr(node, "_forward_cls", None)
    if cls is not None and not cls._builtin or type(node) is DelayedError:  # (that raises)
        return node._backward(grads, create_graph)
    if getattr(node, "_saved", None) is _FREED:
        raise freed_error()
    return [None] * len(node.next_functions)


def _as_tensors(grads):
    """Make the ndarray gradients in the list ``grads`` Tensors, in place."""
    for i, g in enumerate(grads):
        if type(g) is np.ndarray:
            grads[i] = _function.Tensor._make(g, None, False)


# Marks (in ``_extra``) a gradient Tensor whose array only the engine holds: a leaf's first
# ``.grad`` may then be that Tensor itself (Tensor._accumulate_grad)
OWNED_GRAD = {"owned_by_engine": True}
# The reference counts _leaf_grad expects hold on CPython up to 3.13 (3.14 may borrow
# references, and other interpreters have no counts): elsewhere the gradient is copied.
_COUNTS_REFS = sys.implementation.name == "cpython" and sys.version_info < (3, 14)


def _leaf_grad(node, a):
    """A leaf's incoming gradient array as a Tensor, marked ``OWNED_GRAD`` when nothing but
    the engine references the array (``_sole``) and no hook sees it: the leaf's first
    ``.grad`` may then be it, uncopied. The caller holds one reference (its g, or its grads
    list), no other."""
    t = _function.Tensor._make(a, None, False)
    # references: the caller's, this a, t._data, _sole's a, getrefcount's argument
    if _sole(a, 5) and not node.variable._leaf_hooks():
        t._extra = OWNED_GRAD
    return t


def _accumulate_array(var, grads):
    """AccumulateGrad's work for leaf ``var`` without hooks, its gradient the array
    ``grads[0]`` (the caller's only reference): the first ``.grad`` is that array itself
    when nothing else references it and it is laid out as ``var`` (as ``_leaf_grad`` then
    ``Tensor._accumulate_grad`` would make it, in one step), else copied or added."""
    a = grads[0]
    # references: grads[0], this a, _sole's a, getrefcount's argument
    if var._grad is None and _sole(a, 4) and same_layout(a, var._data):
        var._grad = _function.Tensor._make(a, None, False)
    else:
        var._accumulate_grad(_function.Tensor._make(a, None, False), False)


def same_layout(g, var):
    """Whether array ``g`` is laid out as ``.grad`` of a leaf with data ``var`` must be."""
    if var.flags.c_contiguous:
        return g.flags.c_contiguous
    return var.flags.f_contiguous and g.flags.f_contiguous


def _sole(a, held):
    """Whether array ``a`` has only the ``held`` references its caller counted (getrefcount's
    argument included) and can be written; for a view, whether only it holds its base and
    spans all of it (nothing else can see that memory)."""
    if not (_COUNTS_REFS and sys.getrefcount(a) == held and a.flags.writeable):
        return False
    base = a.base
    # a view's base: referenced by the view only (and here: base, getrefcount's argument)
    return base is None or (type(base) is np.ndarray and sys.getrefcount(base) == 3 and
                            base.size == a.size)


def _sum(a, b):
    """Two gradients for one output, added (as Tensors unless both are ndarrays)."""
    if type(a) is np.ndarray:
        if type(b) is np.ndarray:
            r = np.add(a, b)
            return r if type(r) is np.ndarray else np.asarray(r)
        a = _function.Tensor._make(a, None, False)
    elif type(b) is np.ndarray:
        b = _function.Tensor._make(b, None, False)
    return a + b


def _runs(node, needed, accumulate):
    """Whether a capture target also executes: a leaf's accumulator when accumulating, any
    other node only when other targets lie beyond it."""
    if type(node) is AccumulateGrad:
        return accumulate
    return any(child in needed for child, _ in node.next_functions)


def _add(buffers, node, nr, g):
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * _n_out(node)
    old = buf[nr]
    buf[nr] = g if old is None else old + g


def _capture(node, grads, targets, captured, needed, accumulate):
    """Record a capture target's gradients; return those to run it with, or None when it
    only is captured. As in PyTorch, ``autograd.grad`` captures a node that also runs before
    its hooks, any other target after its tensor hooks (not its node pre-hooks)."""
    runs = _runs(node, needed, accumulate)
    if runs and not accumulate:
        for nr, idx in targets:
            captured[idx] = grads[nr]
        return _pre_hooks(node, grads)
    grads = _tensor_pre_hooks(node, grads)
    for nr, idx in targets:
        captured[idx] = grads[nr]
    return _node_pre_hooks(node, grads) if runs else None


def _pre_hooks(node, grads):
    """Tensor hooks, retain_grad, then node pre-hooks: each may replace the gradients."""
    return _node_pre_hooks(node, _tensor_pre_hooks(node, grads))


def _tensor_pre_hooks(node, grads):
    # NOTE: tensor hooks run for a missing gradient too (with None), as in PyTorch
    if type(node) is AccumulateGrad:
        hooks = node.variable._leaf_hooks()
        if hooks:
            grads[0] = _run_tensor_hooks(hooks, grads[0])
    elif node._tensor_hooks:
        for nr, hooks in node._tensor_hooks.items():
            if hooks:
                grads[nr] = _run_tensor_hooks(hooks, grads[nr])
    if node._retain:
        for nr, ref in node._retain.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                t._retain_grad_update(grads[nr])
    return grads


def _node_pre_hooks(node, grads):
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            grads = node_hook_result(hook, grads, hook(tuple(grads)))
    return grads


def _run_tensor_hooks(hooks, g):
    for hook in list(hooks.values()):
        g = tensor_hook_result(hook, g, hook(g))
    return g


def _post_hooks(node, outs, grads):
    for hook in list(node._post_hooks.values()):
        outs = node_hook_result(hook, outs, hook(tuple(outs), tuple(grads)))
    return outs
