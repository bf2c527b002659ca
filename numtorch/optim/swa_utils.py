"""Stochastic weight averaging: ``AveragedModel``, ``SWALR`` and ``update_bn``.

>>> import numtorch as torch
>>> net = torch.nn.Linear(1, 1, bias=False)
>>> swa = AveragedModel(net)
>>> for v in (1.0, 3.0):
...     _ = net.weight.data.fill_(v); swa.update_parameters(net)
>>> swa.module.weight.item(), swa.n_averaged.item()
(2.0, 2)
"""
import itertools
import math
from copy import deepcopy

from .. import _dtype as D
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _format_param

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_avg_fn", "get_swa_multi_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_avg_fn(decay=0.999):
    """``avg_fn`` for an exponential moving average: decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_ema_multi_avg_fn(decay=0.999):
    """``multi_avg_fn`` for an exponential moving average (lerp towards the current values)."""
    _check_decay(decay)

    def ema_update(ema_params, current_params, num_averaged):
        with no_grad():
            for e, c in zip(ema_params, current_params):
                if e.is_floating_point() or e.is_complex():
                    e.lerp_(c, 1 - decay)
                else:
                    e.mul_(decay).add_(c, alpha=1 - decay)
    return ema_update


def get_swa_avg_fn():
    """``avg_fn`` for the running mean: avg + (current - avg) / (n + 1)."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def get_swa_multi_avg_fn():
    """``multi_avg_fn`` for the running mean (lerp by 1 / (n + 1))."""
    def swa_update(averaged_params, current_params, num_averaged):
        with no_grad():
            for a, c in zip(averaged_params, current_params):
                if a.is_floating_point() or a.is_complex():
                    a.lerp_(c, float(1 / (num_averaged + 1)))
                else:
                    a.add_((c - a) / (num_averaged + 1))
    return swa_update


class AveragedModel(Module):
    """A deep copy of ``model`` whose parameters (and, with ``use_buffers``, buffers) are the
    average of those of the models passed to ``update_parameters``; ``avg_fn`` or
    ``multi_avg_fn`` replaces the default running mean (e.g. ``get_ema_multi_avg_fn()``)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        from .._creation import tensor
        self.register_buffer("n_averaged", tensor(0, dtype=D.int64))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Fold ``model``'s current values into the average (the first call copies them)."""
        mine = itertools.chain(self.module.parameters(), self.module.buffers()) \
            if self.use_buffers else self.parameters()
        theirs = itertools.chain(model.parameters(), model.buffers()) \
            if self.use_buffers else model.parameters()
        pairs = [(a.detach(), c.detach()) for a, c in zip(mine, theirs)]
        with no_grad():
            if int(self.n_averaged) == 0:
                for a, c in pairs:
                    a.copy_(c)
            else:
                self._average(pairs)
            if not self.use_buffers:
                for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                    b_avg.detach().copy_(b_model.detach())
            self.n_averaged += 1

    def _average(self, pairs):
        if self.multi_avg_fn is not None:
            self.multi_avg_fn([a for a, _ in pairs], [c for _, c in pairs], self.n_averaged)
            return
        # NOTE: on the CPU PyTorch averages tensor by tensor (no foreach kernels)
        avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
        for a, c in pairs:
            a.copy_(avg_fn(a, c, self.n_averaged))


def update_bn(loader, model, device=None):
    """Recompute every BatchNorm's running statistics with one pass over ``loader`` (a
    cumulative average: momentum None), as after weight averaging."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for inp in loader:
            if isinstance(inp, (list, tuple)):
                inp = inp[0]
            model(inp)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to ``swa_lr`` over ``anneal_epochs`` steps ('cos' or
    'linear'), then holds it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        for lr, group in zip(_format_param("swa_lr", optimizer, swa_lr),
                             optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else \
            self._linear_anneal

    def get_lr(self):
        self._warn_get_lr()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        # the lr before annealing is recovered from the current one and the previous alpha
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha)
                    for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha)
                for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
