"""In-process emulation of DataLoader workers: ``get_worker_info`` and RNG isolation.

numtorch runs ``num_workers > 0`` loaders in the main process. Each emulated worker keeps
its own torch, ``random`` and NumPy random states, seeded as PyTorch seeds its worker
processes (base_seed + worker_id, and NumPy's SeedSequence of the same), and batches go to
workers round-robin as in PyTorch; so sample order and any randomness inside datasets match
a PyTorch run with real worker processes, while the main process's random streams are left
untouched.

>>> get_worker_info() is None
True
"""
import random

import numpy as np

__all__ = ["WorkerInfo", "get_worker_info"]

_worker_info = None


class WorkerInfo:
    """Information about the current DataLoader worker (id, num_workers, seed, dataset)."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_keys", tuple(kwargs))

    def __setattr__(self, key, val):
        raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self._keys)
        return f"{self.__class__.__name__}({items})"


def get_worker_info():
    """The current worker's WorkerInfo inside a DataLoader worker, else None."""
    return _worker_info


class EmulatedWorker:
    """One worker's identity and private random states."""

    def __init__(self, dataset, worker_id, num_workers, base_seed, init_fn):
        from ... import Generator
        seed = base_seed + worker_id
        self.info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                               dataset=dataset)
        self.torch_state = Generator().manual_seed(seed).get_state()
        py = random.Random(seed)
        self.py_state = py.getstate()
        np_seed = np.random.SeedSequence([worker_id, base_seed & 0xFFFFFFFF,
                                          base_seed >> 32, 0]).generate_state(4)
        rs = np.random.RandomState(np_seed)
        self.np_state = rs.get_state()
        if init_fn is not None:
            self.run(init_fn, worker_id)

    def run(self, fn, *args):
        """Call ``fn`` as this worker: its WorkerInfo and random states swapped in."""
        global _worker_info
        from ... import get_rng_state, set_rng_state
        saved = (_worker_info, get_rng_state(), random.getstate(), np.random.get_state())
        _worker_info = self.info
        set_rng_state(self.torch_state)
        random.setstate(self.py_state)
        np.random.set_state(self.np_state)
        try:
            return fn(*args)
        finally:
            self.torch_state = get_rng_state()
            self.py_state = random.getstate()
            self.np_state = np.random.get_state()
            _worker_info = saved[0]
            set_rng_state(saved[1])
            random.setstate(saved[2])
            np.random.set_state(saved[3])
