"""``torch.utils.checkpoint``: activation checkpointing (trade compute for memory).

``checkpoint(function, *args)`` runs ``function`` without keeping the activations it would
save for backward, and recomputes them when backward needs them. Two implementations, as in
PyTorch:

- **reentrant** (``use_reentrant=True``, still PyTorch's default, with a warning when not
  chosen explicitly): :class:`CheckpointFunction`, a custom Function whose forward runs
  ``function`` under ``no_grad`` and whose backward reruns it with grad enabled and calls
  ``autograd.backward`` on the recomputed outputs (a backward inside the backward). It only
  supports ``.backward()`` without ``inputs`` and needs an input that requires grad.
- **non-reentrant** (``use_reentrant=False``): ``function`` runs normally under saved-tensor
  hooks that replace every tensor saved for backward by a small holder. The first unpack of a
  holder in a backward reruns ``function`` (under hooks that collect the recomputed saved
  tensors, stopping as soon as all are there), checks that the same number of tensors with the
  same shapes/dtypes/devices were saved (``determinism_check``), and hands each recomputed
  tensor out once. Works with ``autograd.grad``, ``inputs=``, nesting and double backward.

Both restore the CPU random state of the forward for the recomputation
(``preserve_rng_state``), so dropout draws the same mask again.

>>> import numtorch as torch
>>> from numtorch.utils.checkpoint import checkpoint
>>> x = torch.ones(3, requires_grad=True)
>>> y = checkpoint(lambda t: (t * 2).exp(), x, use_reentrant=False)
>>> y.sum().backward(); x.grad
tensor([14.7781, 14.7781, 14.7781])
"""
import collections
import contextlib
import traceback
import uuid
import warnings
import weakref

from .. import _random
from ..autograd import graph as _graph
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "get_device_states",
           "set_device_states", "noop_context_fn", "set_checkpoint_early_stop",
           "DefaultDeviceType", "set_checkpoint_debug_enabled", "GraphExecGroup"]

_DEFAULT_DETERMINISM_MODE = "default"
_checkpoint_debug_enabled = None   # set_checkpoint_debug_enabled: overrides debug= when set
_enable_checkpoint_early_stop = None  # set_checkpoint_early_stop: overrides early_stop=


class CheckpointError(RuntimeError):
    """Raised when the recomputation does not reproduce what the forward saved."""


# ---- helpers PyTorch exposes ---------------------------------------------------------------
@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Within this block, ``debug`` of every non-reentrant checkpoint is ``enabled`` (None:
    each call's own ``debug``)."""
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Whether non-reentrant checkpoints run in this block stop recomputing as soon as every
    saved tensor is back (the default) or rerun the whole function."""
    global _enable_checkpoint_early_stop
    prev = _enable_checkpoint_early_stop
    _enable_checkpoint_early_stop = enable
    try:
        yield
    finally:
        _enable_checkpoint_early_stop = prev


def detach_variable(inputs):
    """``inputs`` (a tuple) with each tensor detached, keeping its ``requires_grad``."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if _is_tensor(inp):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs):
    """Warn when no tensor among ``inputs`` requires grad (a reentrant checkpoint then has no
    gradients to give)."""
    if not any(inp.requires_grad for inp in inputs if _is_tensor(inp)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


class DefaultDeviceType:
    """The device type whose random state checkpoints save (numtorch: always the CPU's,
    which every checkpoint saves anyway)."""

    _default_device_type = None

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        if not DefaultDeviceType._default_device_type:
            DefaultDeviceType._default_device_type = "cpu"  # no accelerator in numtorch
        return DefaultDeviceType._default_device_type


def get_device_states(*args):
    """Random states of the accelerators ``args`` live on: none in numtorch."""
    return [], []


def set_device_states(devices, states, *, device_type=None):
    """Restore accelerator random states (nothing to do in numtorch)."""


def noop_context_fn():
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def _is_tensor(x):
    return isinstance(x, _graph.Tensor)


@contextlib.contextmanager
def _forward_rng(state):
    """Run with the CPU random state ``state`` (None: as it is), then put back the state
    from before, so recomputing does not disturb the random stream of the backward."""
    if state is None:
        yield
        return
    outer = _random.get_rng_state()
    _random.set_rng_state(state)
    try:
        yield
    finally:
        _random.set_rng_state(outer)


# ---- the entry points ----------------------------------------------------------------------
_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
    "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
    "exception. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
    "the differences between the two variants.")


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True,
               **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its activations for backward;
    backward recomputes them.

    Args:
        function: what to run (a module or any callable).
        *args: its arguments; tensors among them are kept for the recomputation.
        use_reentrant: which implementation (see the module docstring). Pass it: without it
            PyTorch warns and uses the reentrant one.
        context_fn: non-reentrant only; returns two context managers, for the forward and
            for the recomputation.
        determinism_check: non-reentrant only; ``"default"`` compares the shapes, dtypes and
            devices of the recomputed saved tensors with the forward's, ``"none"`` does not.
        debug: non-reentrant only; a mismatch error then lists what the forward and the
            recomputation saved, with where in your code.
        early_stop: non-reentrant only; stop recomputing once every saved tensor is back.
        preserve_rng_state: (keyword) restore the forward's random state for the
            recomputation. Default ``True``.
        **kwargs: more keyword arguments for ``function`` (non-reentrant only).

    Returns:
        What ``function`` returns.

    >>> import numtorch as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> checkpoint(torch.sin, x, use_reentrant=True).grad_fn.name()
    'CheckpointFunctionBackward'
    """
    if use_reentrant is None:
        # NOTE: stacklevel 1: PyTorch's warning points into its own code (the dynamo
        # wrapper), so it shows once per process, not once per calling line
        warnings.warn(_REENTRANT_WARNING, stacklevel=1)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, args, kwargs, preserve, context_fn,
                                         determinism_check, debug, early_stop)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a Sequential or a list of callables) in order on ``input``,
    checkpointing all but the last of ``segments`` equal chunks.

    >>> import numtorch as torch
    >>> model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
    >>> x = torch.ones(1, 2, requires_grad=True)
    >>> checkpoint_sequential(model, 2, x, use_reentrant=False).shape
    torch.Size([1, 1])
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(_run_range(functions, start, end), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return _run_range(functions, end + 1, len(functions) - 1)(input)


def _run_range(functions, start, end):
    def forward(input):
        for j in range(start, end + 1):
            input = functions[j](input)
        return input
    return forward


# ---- reentrant -----------------------------------------------------------------------------
class CheckpointFunction(Function):
    """The reentrant checkpoint: forward without a graph, backward by recomputing."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.device_type = "cpu"
        if preserve_rng_state:
            ctx.fwd_cpu_state = _random.get_rng_state()
            ctx.had_device_in_fwd = False
        # tensors are saved (checked for in-place changes); the rest kept as they are
        ctx.inputs = [None if _is_tensor(a) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if _is_tensor(a)]
        ctx.save_for_backward(*[a for a in args if _is_tensor(a)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _graph._is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        state = ctx.fwd_cpu_state if ctx.preserve_rng_state else None
        with _forward_rng(state):
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if _is_tensor(outputs):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if _is_tensor(o) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        from ..autograd import backward
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(inp.grad if _is_tensor(inp) else None
                                    for inp in detached)


# ---- non-reentrant -------------------------------------------------------------------------
_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""


def _default_meta_extractor(x):
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_allowed_determinism_checks_to_fns = {
    _DEFAULT_DETERMINISM_MODE: _default_meta_extractor,
    "none": lambda _: None,
}


class _StopRecomputationError(Exception):
    """Raised by the recomputation's pack hook once every saved tensor is back."""


class _Handle:
    """The key of one recomputed tensor (dies when that tensor is handed out)."""

    __slots__ = ("__weakref__",)


class _Holder:
    """What the graph keeps in place of a saved tensor: per backward (graph task id), the
    handle of its recomputed value, None once handed out."""

    __slots__ = ("handles", "__weakref__")

    def __init__(self):
        self.handles = {}


def _internal_assert(cond):
    if not cond:
        raise AssertionError("Something went unexpectedly wrong in activation checkpoint. "
                             "Please report this bug by filing an issue to PyTorch.")


class _CheckpointFrame:
    """One non-reentrant checkpoint call: its inputs, the holders its forward saved and,
    per backward (graph task id), what the recomputation produced."""

    def __init__(self, recompute_fn, early_stop, unpack_error_cb, metadata_fn):
        self.recompute_fn = recompute_fn
        self.saved_args = []
        self.weak_holders = []
        # handle -> tensor, weakly keyed: an entry dies when its holder hands it out
        self.recomputed = collections.defaultdict(weakref.WeakKeyDictionary)
        self.recomp_counter = collections.defaultdict(int)
        self.is_recomputed = collections.defaultdict(bool)
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.unpack_error_cb = unpack_error_cb
        self.x_metadatas = []
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def save_inputs(self, *args):
        # saved like a node saves them: through an outer checkpoint's hooks when nested
        self.saved_args = [_graph._SavedTensor(a) if _is_tensor(a) else a for a in args]

    def get_inputs(self):
        return [a.unpack() if isinstance(a, _graph._SavedTensor) else a
                for a in self.saved_args]

    def check_recomputed_tensors_match(self, gid):
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recomp_counter[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                "Number of tensors saved during recomputation: "
                f"{self.recomp_counter[gid]}.\n{_DEBUG_TIP}")
        mismatched = ""
        for idx, ref in enumerate(self.weak_holders):
            holder = ref()
            if holder is None:  # freed by an earlier backward
                continue
            handle = holder.handles.get(gid)
            _internal_assert(handle is not None and handle in self.recomputed[gid])
            saved = self.x_metadatas[idx]
            again = self.metadata_fn(self.recomputed[gid][handle])
            if saved != again:
                mismatched += (f"tensor at position {idx}:\nsaved metadata: {saved}\n"
                               f"recomputed metadata: {again}\n")
        if mismatched:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{mismatched}.\n"
                f"{_DEBUG_TIP}")


class _recomputation_hook(_graph.saved_tensors_hooks):
    """Saved-tensor hooks of a recomputation: each saved tensor fills the holder at the same
    position of the forward, then recomputing stops once all are filled (early stop)."""

    def __init__(self, target_frame_ref, gid):
        def pack_hook(x):
            x = x.detach() if x.requires_grad else x
            frame = target_frame_ref()
            _internal_assert(frame is not None)
            idx = frame.recomp_counter[gid]
            frame.recomp_counter[gid] += 1
            if idx >= len(frame.weak_holders):
                _internal_assert(not frame.early_stop)
                if not frame.forward_completed:
                    # a backward inside the checkpointed function, without early stop
                    frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during "
                    f"recomputation than during the original forward pass.\n{_DEBUG_TIP}")
            holder = frame.weak_holders[idx]()
            if holder is not None:  # else freed: a backward already used it
                _internal_assert(holder.handles.get(gid) is None)
                handle = holder.handles[gid] = _Handle()
                frame.recomputed[gid][handle] = x
            if frame.early_stop and frame.recomp_counter[gid] == len(frame.weak_holders):
                raise _StopRecomputationError
            return x  # the recomputed graph keeps it too (backward within the function)

        super().__init__(pack_hook, lambda x: x)


class _checkpoint_hook(_graph.saved_tensors_hooks):
    """Saved-tensor hooks of the checkpointed forward: save a holder instead of the tensor;
    the first unpack in a backward recomputes, each unpack hands its tensor out once."""

    def __init__(self, frame):
        def pack_hook(x):
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            with no_grad():
                frame.x_metadatas.append(frame.metadata_fn(x))
            return holder

        def unpack_hook(holder):
            gid = _graph_task_key()
            if not frame.is_recomputed[gid]:
                _recompute(frame, gid)
            _internal_assert(gid in holder.handles)
            handle = holder.handles[gid]
            if handle is None:
                extra = ""
                if GraphExecGroup._get_current_group() is not None:
                    extra = ("Performing two backward calls that overlap (i.e. require the "
                             "same saved activation in order to compute gradients) is not "
                             "allowed while under the torch.utils.checkpoint.GraphExecGroup "
                             "context. ")
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    f"already unpacked once. {extra}If you are calling ctx.saved_tensors in "
                    "backward, make sure to do so only once. Otherwise please open an issue "
                    "with details on your use case.")
            _internal_assert(handle in frame.recomputed[gid])
            holder.handles[gid] = None
            return frame.recomputed[gid][handle]

        if frame.unpack_error_cb is not None:
            plain_unpack = unpack_hook

            def unpack_hook(holder):  # noqa: F811 - the same, with the debug report
                try:
                    return plain_unpack(holder)
                except CheckpointError as e:
                    frame.unpack_error_cb(e)
        super().__init__(pack_hook, unpack_hook)


def _graph_task_key():
    """Which backward an unpack belongs to: the GraphExecGroup, else the running backward,
    else (outside any backward) a fresh key, so that each such unpack recomputes."""
    group = GraphExecGroup._get_current_group()
    if group is not None:
        return group
    gid = _graph._current_graph_task_id()
    return gid if gid != -1 else int(uuid.uuid4())


def _recompute(frame, gid):
    inputs = frame.get_inputs()
    try:
        with _recomputation_hook(weakref.ref(frame), gid), enable_grad():
            frame.recompute_fn(*inputs)
    except _StopRecomputationError:
        pass
    frame.is_recomputed[gid] = True
    frame.check_recomputed_tensors_match(gid)


_SUPPRESSED_MSG = (
    "torch.utils.checkpoint: the forward context provided by context_fn suppressed an "
    "exception raised during the checkpointed forward. This is not supported because "
    "checkpoint cannot return a value for a failed forward.")


def _checkpoint_without_reentrant(fn, args, kwargs, preserve_rng_state, context_fn,
                                  determinism_check, debug, early_stop):
    """The non-reentrant checkpoint: run ``fn`` under :class:`_checkpoint_hook`."""
    unpack_error_cb = None
    if _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        context_fn, unpack_error_cb = _debug_context_and_cb()
    metadata_fn = _allowed_determinism_checks_to_fns.get(determinism_check)
    if metadata_fn is None:
        raise ValueError("determinism_check should be one of "
                         f"{list(_allowed_determinism_checks_to_fns)}, but got "
                         f"{determinism_check}")
    forward_context, recompute_context = context_fn()
    rng_state = _random.get_rng_state() if preserve_rng_state else None

    def recompute_fn(*inputs):
        with _forward_rng(rng_state), recompute_context:
            fn(*inputs, **kwargs)

    if _enable_checkpoint_early_stop is not None:
        early_stop = _enable_checkpoint_early_stop
    frame = _CheckpointFrame(recompute_fn, early_stop, unpack_error_cb, metadata_fn)
    if not is_grad_enabled():  # nothing will be saved
        return fn(*args, **kwargs)
    frame.save_inputs(*args)
    error = None
    with _checkpoint_hook(frame), forward_context:
        try:
            out = fn(*args, **kwargs)
        except BaseException as e:
            error = e
            raise
    if error is not None:  # the forward context swallowed the exception
        exc = RuntimeError(_SUPPRESSED_MSG)
        exc.__context__ = error
        raise exc
    frame.forward_completed = True
    return out


class GraphExecGroup:
    """Backward calls made inside one instance of this context recompute each checkpointed
    region at most once (they must not need the same saved activation)."""

    _current = None

    @classmethod
    def _get_current_group(cls):
        return GraphExecGroup._current

    def __enter__(self):
        if GraphExecGroup._current is not None:
            raise RuntimeError("GraphExecGroup contexts cannot be nested. Already inside "
                               f"group {GraphExecGroup._current}")
        GraphExecGroup._current = self
        return self

    def __exit__(self, *args):
        GraphExecGroup._current = None


# ---- debug=True ----------------------------------------------------------------------------
_DEBUG_TEMPLATE = """ \
An error happened while unpacking tensors; dumping logs of latest computation
because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.
Scroll all the way down for guidance on how to navigate these logs.

+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        1. Stack traces of the operators that ran in the original forward     |
+------------------------------------------------------------------------------+

{forward_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        2. Stack traces of the operators that ran during recomputation        |
+------------------------------------------------------------------------------+

{recompute_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|       3. Log of operators in the original forward and recomputation          |
+------------------------------------------------------------------------------+
(Scroll up to correlate stack traces with each operation listed below. This
 helps identify their source in the code.)

IMPORTANT: Differences in "detach" calls between the original forward and the
           recomputation are expected. They are introduced by the checkpointing
           mechanism and can be ignored.

Operations executed during the original forward:

{forward_ops}

Operations executed during recomputation:

{recompute_ops}

+------------------------------------------------------------------------------+
 ERROR: Detected non-determinism while running activation checkpointing

 You are seeing this error because you passed `debug=True` to checkpoint and
 tensors to be saved during the original forward and differ between those saved
 during recomputation. This can happen if different operators were ran in the
 original forward and in the recomputation.

 To identify where the mismatch may be coming from, you can do the following:

 1) Compare the operators ran during original forward and recomputation to
    see where they differ. These operators are printed above in the order they
    were executed.

 2) Review the stack trace for each operator to locate its invocation source.
    Each operator's stack trace is printed in their execution order.

 Note that the logs can be quite long. Here's how they are structured:
 (Tip: you can Ctrl-f for these headers)

 1. Stack traces of the operators that ran in the original forward
 2. Stack traces of the operators that ran during recomputation
 3. Log of operators in the original forward and recomputation
 4. Error message                                             <--- You are here
--------------------------------------------------------------------------------
"""


class _SaveLog:
    """debug=True's log of one run: numtorch has no dispatcher to log every op (PyTorch
    logs aten ops), so it logs each tensor saved for backward, naming the op that saved it,
    with the stack of the user's code (frames outside numtorch). A context manager: entered
    inside the checkpoint's own saved-tensor hooks, it wraps them."""

    def __init__(self):
        self.logs, self.tbs = [], []
        self._hooks = None

    def __enter__(self):
        self.logs, self.tbs = [], []
        outer_pack, outer_unpack = _graph._hook_stack[-1]

        def pack(x):
            self.logs.append(f"{_abbrev(x)} saved by {_saving_op()}")
            self.tbs.append(_user_frames())
            return outer_pack(x)
        self._hooks = _graph.saved_tensors_hooks(pack, outer_unpack)
        self._hooks.__enter__()

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)

    def render(self, label):
        out = ""
        total = len(self.logs)
        for i, (log, tb) in enumerate(zip(self.logs, self.tbs)):
            out += f"{log}   ({i + 1} of {total} in {label})\n\n"
            out += "".join(f"{f.filename}:{f.lineno}:{f.name}\n" for f in tb) + "\n\n"
        return out


def _abbrev(x):
    names = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
             "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8",
             "bool": "b8", "complex64": "c64", "complex128": "c128"}
    dt = str(x.dtype).replace("torch.", "")
    return f"{names.get(dt, dt)}[{', '.join(map(str, x.shape))}]"


def _saving_op():
    """The Function whose apply is saving a tensor: the innermost frame with a ``cls``."""
    for frame, _ in traceback.walk_stack(None):
        cls = frame.f_locals.get("cls")
        if isinstance(cls, type) and issubclass(cls, Function):
            return cls._backward_cls.__name__
    return "an op"


def _user_frames():
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    stack = traceback.extract_stack()
    return [f for f in reversed(stack) if not os.path.abspath(f.filename).startswith(root)]


def _debug_context_and_cb():
    """debug=True's ``context_fn`` (logging what each run saves) and the unpack error
    callback that raises the report."""
    forward_log, recompute_log = _SaveLog(), _SaveLog()

    def unpack_error_cb(e):
        raise CheckpointError(_DEBUG_TEMPLATE.format(
            forward_traces=forward_log.render("original"),
            recompute_traces=recompute_log.render("recompute"),
            forward_ops="\n".join(forward_log.logs),
            recompute_ops="\n".join(recompute_log.logs))) from e

    def context_fn():
        return forward_log, recompute_log
    return context_fn, unpack_error_cb

from .._naming import use_torch_names  # noqa: E402

use_torch_names(globals())  # CheckpointError shows as torch.utils.checkpoint.CheckpointError
