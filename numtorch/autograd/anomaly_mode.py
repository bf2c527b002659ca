"""Anomaly detection for the backward pass (``torch.autograd.detect_anomaly``).

While anomaly mode is on, every graph node records the stack of the forward call that created
it (``node.metadata["traceback_"]``). When a node's backward raises, a warning shows that stack
("Error detected in MulBackward0. Traceback of forward call that caused the error: ...") before
the error propagates; with ``check_nan`` a backward output containing NaN raises PyTorch's
"Function 'XBackward0' returned nan values in its 0th output."

NOTE: the switch costs nothing while off: turning anomaly mode on swaps ``Node._init_node`` for a
recording version (restored when it goes off), and each recorded node's ``_backward`` is
wrapped on the instance, so the engine itself is untouched.

>>> import numtorch as torch
>>> with torch.autograd.set_detect_anomaly(True):
...     torch.is_anomaly_enabled()
True
"""
import os
import traceback
import warnings

import numpy as np

from .graph import ANOMALY, Node

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled"]

_STATE = {"enabled": False, "check_nan": True}
_ORIGINAL_INIT = Node._init_node
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def is_anomaly_enabled():
    """Whether anomaly detection is on."""
    return _STATE["enabled"]


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection also checks backward outputs for NaN."""
    return _STATE["check_nan"]


def set_anomaly_enabled(enabled, check_nan=True):
    """Turn anomaly detection on or off (``torch.set_anomaly_enabled``)."""
    _STATE["enabled"] = bool(enabled)
    _STATE["check_nan"] = bool(check_nan)
    Node._init_node = _recording_init if enabled else _ORIGINAL_INIT
    ANOMALY[0] = bool(enabled)


def _forward_stack():
    """The user's frames of the current stack, formatted as PyTorch stores them."""
    frames = [f for f in traceback.extract_stack()[:-3]
              if not os.path.abspath(f.filename).startswith(_PACKAGE_DIR + os.sep)]
    return traceback.format_list(frames)


def _recording_init(self, next_functions):
    _ORIGINAL_INIT(self, next_functions)
    self.metadata["traceback_"] = _forward_stack()
    if hasattr(self, "__dict__"):
        self._backward = _Checked(self, type(self)._backward)


class _Checked:
    """A node's ``_backward`` that reports the forward stack when it fails or returns NaN."""

    __slots__ = ("node", "fn")

    def __init__(self, node, fn):
        self.node, self.fn = node, fn

    def __call__(self, grads, create_graph):
        node = self.node
        try:
            outs = self.fn(node, grads, create_graph)
            if _STATE["check_nan"]:
                _check_nan(node, outs)
        except Exception:
            _warn_forward_stack(node)
            raise
        return outs


def _check_nan(node, outs):
    for i, g in enumerate(outs):
        data = getattr(g, "_data", None)
        if type(data) is np.ndarray and data.dtype.kind in "fc" and np.isnan(data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")


def _warn_forward_stack(node):
    meta = node.metadata_ or {}
    stack = meta.get("traceback_")
    if stack is None:
        warnings.warn("Error detected in " + node.name() + ". No forward pass information "
                      "available. Enable detect anomaly during forward pass for more "
                      "information.", stacklevel=3)
        return
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused "
                  "the error:\n" + "".join(stack).rstrip("\n"), stacklevel=3)


class detect_anomaly:
    """Context manager enabling anomaly detection (see the module docstring).

    Args:
        check_nan: also raise when a backward output contains NaN (default True).

    >>> import numtorch as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with torch.autograd.detect_anomaly():
    ...         torch.is_anomaly_enabled()
    True
    """

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off at once; as a context manager, restore on exit.

    Args:
        mode: True to enable, False to disable.
        check_nan: also raise when a backward output contains NaN.
    """

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)

from .._naming import use_torch_names  # noqa: E402

use_torch_names(globals())  # set_detect_anomaly's repr names torch.autograd.anomaly_mode
