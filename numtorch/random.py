"""``torch.random``: the default CPU generator's seeding and state, and :func:`fork_rng`.

The functions are the ones ``torch`` itself exports (``torch.manual_seed`` is
``torch.random.manual_seed``); numtorch has only the CPU generator, so there is no
other device whose state needs forking.

>>> _ = manual_seed(0)
>>> with fork_rng():
...     a = default_generator.get_state()
...     _ = default_generator._raw32(3)
>>> bool((get_rng_state().numpy() == a.numpy()).all())
True
"""
import contextlib

from ._random import (default_generator, get_rng_state, initial_seed, manual_seed, seed,
                      set_rng_state)

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed",
           "fork_rng", "thread_safe_generator"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Run the body and then put the default generator back in the state it had before.

    Args:
        devices: accelerator devices whose state is forked too; numtorch has none, so
            only an empty selection (or None) has a meaning.
        enabled: with False the generator is not forked (the body runs as is).
        device_type: the accelerator type; ``'meta'`` forks nothing, as in PyTorch.

    >>> _ = manual_seed(1)
    >>> with fork_rng():
    ...     _ = default_generator._raw32(1)
    >>> initial_seed()
    1
    """
    if device_type == "meta" or not enabled:
        yield
        return
    if devices is not None and list(devices):
        raise RuntimeError("numtorch has no accelerator devices: fork_rng can only fork the "
                           "CPU generator (pass devices=[] or leave devices unset)")
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator():
    """The generator a DataLoader thread worker should use; None (the global one) here.

    numtorch's DataLoader has no thread workers, so callers always get None, which every
    random function reads as the default generator.

    >>> thread_safe_generator() is None
    True
    """
    return None
