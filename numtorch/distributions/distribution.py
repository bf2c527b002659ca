"""The ``Distribution`` base class: shapes, argument validation with PyTorch's messages,
``sample`` as ``rsample`` without gradients, and the repr PyTorch prints."""
import warnings

from .. import _size as _S
from .._tensor import Tensor

__all__ = ["Distribution"]


def _all_true(valid):
    return bool(valid.all())


class Distribution:
    """Base of the distributions: ``batch_shape`` (independent draws) and ``event_shape``
    (one draw's shape); subclasses give ``arg_constraints``, ``support`` and the math."""
    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=_S.Size(), event_shape=_S.Size(), validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_args()

    def _check_args(self):
        from .constraints import is_dependent
        from .utils import lazy_property
        for param, constraint in self.arg_constraints.items():
            if is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param, None),
                                                         lazy_property):
                continue  # (given in the other form; computed only when read)
            value = getattr(self, param)
            if not _all_true(constraint.check(value)):
                raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                 f"{tuple(value.shape)}) of distribution {self!r} to satisfy "
                                 f"the constraint {constraint!r}, but found invalid values:\n"
                                 f"{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def expand(self, batch_shape, _instance=None):
        """A view of this distribution over a larger ``batch_shape``: every parameter
        (with its own trailing event dims) expanded, nothing copied, never validated."""
        batch_shape = _S.Size(batch_shape)
        new = self._get_checked_instance(type(self), _instance)
        new.__dict__.update(self.__dict__)
        n = len(self._batch_shape)
        for name, value in self.__dict__.items():
            if isinstance(value, Tensor) and not name.startswith("_unbroadcasted"):
                if value.dim() >= n and value.shape[:n] == self._batch_shape:
                    new.__dict__[name] = value.expand(batch_shape + value.shape[n:])
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} "
                                      "that defines a custom __init__ method must also "
                                      "define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(_S.Size((n,)))

    def sample(self, sample_shape=_S.Size()):
        from ..autograd.grad_mode import no_grad
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=_S.Size()):
        raise NotImplementedError

    def log_prob(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=_S.Size()):
        if not isinstance(sample_shape, _S.Size):
            sample_shape = _S.Size(sample_shape)
        return _S.Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = len(value.size()) - len(self._event_shape)
        if value.size()[start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        if not _all_true(support.check(value)):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) to be within the support "
                             f"({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for p in names:
            v = self.__dict__[p]
            parts.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return self.__class__.__name__ + "(" + ", ".join(parts) + ")"
