"""Learning-rate schedulers, in PyTorch's chainable (recursive) form.

Each ``step()`` derives the new learning rate from the current one with the same float
operations as PyTorch, so the schedules agree to the last bit.

>>> import numtorch as torch
>>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
>>> sched = StepLR(opt, step_size=2, gamma=0.5)
>>> for _ in range(4):
...     opt.step(); sched.step()
>>> sched.get_last_lr()
[0.25]
"""
import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from functools import wraps
from weakref import ref

from .._naming import torch_named, use_torch_names
from .._tensor import Tensor
from .optimizer import Optimizer, to_scalar

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "PolynomialLR", "LRScheduler"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the new "
    "chainable form, where available. Please open an issue if you are unable to replicate your "
    "use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def _copy(v):
    return v.clone() if isinstance(v, Tensor) else v


def _group_values(optimizer, key):
    return [_copy(g[key]) for g in optimizer.param_groups]


def _set_group_value(group, key, val):
    if isinstance(group[key], Tensor):
        group[key].fill_(to_scalar(val))
    else:
        group[key] = val


def _format_param(name, optimizer, param):
    n = len(optimizer.param_groups)
    if isinstance(param, (list, tuple)):
        if len(param) != n:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has {n}.")
        return [_copy(p) for p in param]
    return [_copy(param)] * n


def _mark_optimizer_steps(optimizer):
    """Wrap ``optimizer.step`` so the scheduler can tell whether it ran before ``step()``."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = ref(optimizer)
    func = optimizer.step.__func__

    @wraps(func)
    def wrapper(*args, **kwargs):
        opt = opt_ref()
        opt._opt_called = True
        return func.__get__(opt, opt.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True
    optimizer.step = wrapper


class LRScheduler:
    """Base class: keeps ``base_lrs`` and ``last_epoch``; subclasses define ``get_lr``."""

    _get_lr_called_within_step = False
    _is_initial = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        torch_named(cls)  # swa_utils.SWALR and the like

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", _copy(group["lr"]))
            elif "initial_lr" not in group:
                raise KeyError(
                    f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                    "scheduler with last_epoch >= 0.\nThis typically happens when:\n1. You're "
                    "trying to resume training from a checkpoint but haven't properly loaded "
                    "the optimizer state\n2. You're using last_epoch >= 0 for a fresh training "
                    "run (not recommended)")
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _mark_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates the last ``step()`` set."""
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def step(self, epoch=None):
        """Advance one epoch (or jump to ``epoch``, deprecated) and update the lrs."""
        if self._step_count == 1:
            self._warn_order()
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _warn_order(self):
        if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
            warnings.warn("Seems like `optimizer.step()` has been overridden after learning "
                          "rate scheduler initialization. Please, make sure to call "
                          "`optimizer.step()` before `lr_scheduler.step()`. See more details at "
                          "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-"
                          "rate", UserWarning, stacklevel=3)
        elif not getattr(self.optimizer, "_opt_called", False):
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                          "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                          "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                          "will result in PyTorch skipping the first value of the learning rate "
                          "schedule. See more details at https://pytorch.org/docs/stable/optim."
                          "html#how-to-adjust-learning-rate", UserWarning, stacklevel=3)

    def _update_lr(self, epoch=None):
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")

    def _warn_get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)

    def _lrs(self):
        return _group_values(self.optimizer, "lr")


class _LRScheduler(LRScheduler):
    """The deprecated name: a subclass for old user schedulers (built-ins do not derive it)."""


def _lambdas(optimizer, lr_lambda):
    n = len(optimizer.param_groups)
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * n
    if len(lr_lambda) != n:
        raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
    return list(lr_lambda)


class _LambdaState:
    """state_dict support for schedulers holding user functions (only callable objects'
    ``__dict__`` is saved)."""

    def state_dict(self):
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        sd["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                            for fn in self.lr_lambdas]
        return sd

    def load_state_dict(self, state_dict):
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas
        for idx, fn in enumerate(lr_lambdas):
            if fn is not None:
                self.lr_lambdas[idx].__dict__.update(fn)


class LambdaLR(_LambdaState, LRScheduler):
    """lr = base_lr * lr_lambda(epoch).

    >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> LambdaLR(opt, lambda e: 0.5 ** e).get_last_lr()
    [1.0]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """lr *= lr_lambda(epoch) at every step after the first."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self._is_initial:
            return self._lrs()
        return [g["lr"] * fn(self.last_epoch)
                for fn, g in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """lr *= gamma every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._lrs()
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr *= gamma at each milestone epoch (repeated milestones multiply)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self.last_epoch not in self.milestones:
            return self._lrs()
        return [g["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        ms = sorted(self.milestones.elements())
        return [base * self.gamma ** bisect_right(ms, self.last_epoch) for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr * factor until ``total_iters``, then lr."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return self._lrs()
        return [g["lr"] * (1.0 / self.factor) for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    """lr factor moving linearly from ``start_factor`` to ``end_factor`` over total_iters."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._lrs()
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor +
                              (self.last_epoch - 1) * span)
        return [g["lr"] * ratio for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        span = self.end_factor - self.start_factor
        return [base * (self.start_factor + span * min(self.total_iters, self.last_epoch) /
                        self.total_iters) for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr *= gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self._is_initial:
            return self._lrs()
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr decays as (1 - epoch / total_iters) ** power."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._lrs()
        t = self.total_iters
        decay = ((1.0 - self.last_epoch / t) / (1.0 - (self.last_epoch - 1) / t)) ** self.power
        return [g["lr"] * decay for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        t = self.total_iters
        return [base * (1.0 - min(t, self.last_epoch) / t) ** self.power
                for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine from base_lr down to ``eta_min`` over ``T_max`` epochs (and back up)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        e, T, lo = self.last_epoch, self.T_max, self.eta_min
        groups = self.optimizer.param_groups
        if self._is_initial:
            return self._lrs()
        if self._step_count == 1 and e > 0:
            return [lo + (base - lo) * (1 + math.cos(e * math.pi / T)) / 2
                    for base in self.base_lrs]
        if (e - 1 - T) % (2 * T) == 0:
            return [g["lr"] + (base - lo) * (1 - math.cos(math.pi / T)) / 2
                    for base, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T)) *
                (g["lr"] - lo) + lo for g in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min) *
                (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


def _check_schedulers(owner, optimizer, schedulers):
    name = type(owner).__name__
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it "
                             "requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {i} in the given schedulers sequence.")
        if optimizer != s.optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {type(s).__name__} at index {i} has "
                             f"{s.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _Composite:
    """state_dict support for schedulers made of schedulers."""

    def state_dict(self):
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        sd["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return sd

    def load_state_dict(self, state_dict):
        scheds = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = scheds
        for s, sd in zip(self._schedulers, scheds):
            s.load_state_dict(sd)


class SequentialLR(_Composite, LRScheduler):
    """Run ``schedulers[i]`` between milestones i - 1 and i."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got "
                             "no scheduler.")
        _check_schedulers(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        idx = bisect_right(milestones, 0)
        schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None):
        """Step back every inner scheduler by one epoch (they each stepped on creation)."""
        target = self if sched is None else sched
        if hasattr(target, "_schedulers"):
            for s in target._schedulers:
                self.recursive_undo(s)
        elif hasattr(target, "last_epoch"):
            target.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            sched._update_lr(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()


class ChainedScheduler(_Composite, LRScheduler):
    """Step every scheduler in turn (their effects compose)."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be "
                             "chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self, optimizer, schedulers)
        self._schedulers, self.optimizer = schedulers, optimizer
        self._last_lr = _group_values(schedulers[-1].optimizer, "lr")

    def step(self):
        for s in self._schedulers:
            s.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


class ReduceLROnPlateau(LRScheduler):
    """lr *= factor when the metric stops improving for ``patience`` epochs."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr, self.min_lrs = min_lr, [min_lr] * n
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Record ``metrics`` for this epoch; reduce the lrs after too many bad epochs."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self, epoch):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` "
                                   f"({len(groups)}) differs from when `ReduceLROnPlateau` "
                                   f"was initialized ({len(self.min_lrs)}), usually due to a "
                                   "new param group being added to the optimizer. Please modify "
                                   "the `min_lrs` field to match the length of the `optimizer` "
                                   "param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old = float(group["lr"])
            new = max(old * self.factor, self.min_lrs[i])
            if old - new > self.eps:
                _set_group_value(group, "lr", new)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min":
            return a < best * (1.0 - self.threshold) if self.threshold_mode == "rel" else \
                a < best - self.threshold
        return a > best * (self.threshold + 1.0) if self.threshold_mode == "rel" else \
            a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


def _set_momentum(optimizer, use_beta1, group, value):
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _momentum_setup(sched, optimizer, base_momentum, max_momentum, last_epoch):
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                         "option enabled")
    sched.use_beta1 = "betas" in optimizer.defaults
    bases = _format_param("base_momentum", optimizer, base_momentum)
    maxes = _format_param("max_momentum", optimizer, max_momentum)
    if last_epoch == -1:
        for m, b, group in zip(maxes, bases, optimizer.param_groups):
            _set_momentum(optimizer, sched.use_beta1, group, m)
            group["max_momentum"], group["base_momentum"] = m, b
    return bases, maxes


class CyclicLR(LRScheduler):
    """lr cycling between base_lr and max_lr (triangular, triangular2, exp_range)."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom, self.scale_mode = scale_fn, scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _momentum_setup(
                self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode in ("triangular", "triangular2"):
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        self._warn_get_lr()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale = x / self.step_ratio if x <= self.step_ratio else \
            (x - 1) / (self.step_ratio - 1)
        arg = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base + (top - base) * scale * self.scale_fn(arg)
               for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, b, m in zip(self.optimizer.param_groups, self.base_momentums,
                                   self.max_momentums):
                _set_momentum(self.optimizer, self.use_beta1, group,
                              m - (m - b) * scale * self.scale_fn(arg))
        return lrs

    def state_dict(self):
        sd = super().state_dict()
        fn = sd.pop("_scale_fn_custom")
        sd["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            sd["_scale_fn_custom"] = fn.__dict__.copy()
        return sd

    def load_state_dict(self, state_dict):
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs (T_i grows by ``T_mult``)."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        return [self.eta_min + (base - self.eta_min) *
                (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2 for base in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            self._jump_to(epoch)
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
                _set_group_value(group, "lr", lr)
        finally:
            self._get_lr_called_within_step = False
        self._last_lr = _group_values(self.optimizer, "lr")

    def _jump_to(self, epoch):
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** n


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm up to max_lr, then anneal far below the initial lr."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True,
                 base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = _phases(pct_start, self.total_steps, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for idx, group in enumerate(optimizer.param_groups):
                group["initial_lr"] = max_lrs[idx] / div_factor
                group["max_lr"] = max_lrs[idx]
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _momentum_setup(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_get_lr()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps "
                             f"is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - start) / (end - start)
                    lrs.append(self._anneal_func(group[phase["start_lr"]],
                                                 group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        mom = self._anneal_func(group[phase["start_momentum"]],
                                                group[phase["end_momentum"]], pct)
                        _set_momentum(self.optimizer, self.use_beta1, group, mom)
                    break
                start = phase["end_step"]
        return lrs


def _total_steps(total_steps, epochs, steps_per_epoch):
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is not None and steps_per_epoch is not None:
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
            raise ValueError(f"Expected positive integer steps_per_epoch, but got "
                             f"{steps_per_epoch}")
        return epochs * steps_per_epoch
    raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")


def _phase(end, lr0, lr1, m0, m1):
    return {"end_step": end, "start_lr": lr0, "end_lr": lr1, "start_momentum": m0,
            "end_momentum": m1}


def _phases(pct_start, total, three_phase):
    if three_phase:
        return [_phase(float(pct_start * total) - 1, "initial_lr", "max_lr", "max_momentum",
                       "base_momentum"),
                _phase(float(2 * pct_start * total) - 2, "max_lr", "initial_lr",
                       "base_momentum", "max_momentum"),
                _phase(total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
    return [_phase(float(pct_start * total) - 1, "initial_lr", "max_lr", "max_momentum",
                   "base_momentum"),
            _phase(total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]


use_torch_names(globals())
