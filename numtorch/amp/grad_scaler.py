"""``torch.amp.GradScaler``: loss scaling with PyTorch's schedule and state.

On the CPU it scales as PyTorch's does (``scale`` multiplies by a float32 scale, ``step``
unscales the gradients, skips the step if any is inf/nan, ``update`` backs the scale off or
grows it every ``growth_interval`` clean steps). For ``"cuda"`` it warns and disables itself,
as PyTorch does without CUDA: ``scale`` returns its input and ``step`` just steps.
"""
from collections import abc, defaultdict
from enum import Enum

__all__ = ["OptState", "GradScaler"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scales a loss, unscales gradients and adapts the scale (see the module docstring)."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            from ..ops._util import warn_user
            warn_user("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                      "Disabling.")
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init(self):
        from .. import _creation as C, _dtype as D
        self._scale = C.full((), self._init_scale, dtype=D.float32)
        self._growth_tracker = C.full((), self._init_growth_tracker, dtype=D.int32)

    def scale(self, outputs):
        """``outputs`` (a tensor, or nested lists/tuples of them) times the scale."""
        if not self._enabled:
            return outputs
        from .._tensor import Tensor
        if self._scale is None:
            self._lazy_init()

        def apply(val):
            if isinstance(val, Tensor):
                return val * self._scale
            if isinstance(val, abc.Iterable):
                mapped = map(apply, val)
                return type(val)(mapped) if isinstance(val, (list, tuple)) else mapped
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply(outputs)

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale, noting any inf/nan among them."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        state["found_inf_per_device"] = {"cpu": self._unscale_grads(optimizer, inv_scale)}
        state["stage"] = OptState.UNSCALED

    @staticmethod
    def _unscale_grads(optimizer, inv_scale):
        from .. import _creation as C, _dtype as D
        from ..autograd.grad_mode import no_grad
        found_inf = C.full((), 0.0, dtype=D.float32)
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    g = param.grad
                    if g is None:
                        continue
                    if g.dtype == D.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if not bool(g.isfinite().all()):
                        found_inf.fill_(1.0)
                    g.mul_(inv_scale)
        return found_inf

    def step(self, optimizer, *args, **kwargs):
        """Unscale (if not yet done), then ``optimizer.step()`` unless a gradient was inf/nan."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Back the scale off after an inf/nan, grow it after ``growth_interval`` clean steps
        (or set it to ``new_scale``)."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                scale.copy_(new_scale)
        else:
            found = [f for s in self._per_optimizer_states.values()
                     for f in s["found_inf_per_device"].values()]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if sum(f.item() for f in found):
                scale.mul_(self._backoff_factor)
                tracker.fill_(0)
            elif tracker.item() + 1 == self._growth_interval:
                grown = scale * self._growth_factor
                if bool(grown.isfinite()):
                    scale.copy_(grown)
                tracker.fill_(0)
            else:
                tracker.add_(1)
        self._per_optimizer_states = defaultdict(_fresh_state)

    def get_scale(self):
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return (self._init_growth_tracker if self._growth_tracker is None
                    else self._growth_tracker.item())
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
