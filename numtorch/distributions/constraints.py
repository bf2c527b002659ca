"""Constraints on distribution parameters and values (``torch.distributions.constraints``):
each ``check(value)`` gives a bool tensor; reprs are PyTorch's (they appear in its errors)."""

__all__ = ["Constraint", "boolean", "integer_interval", "interval", "positive", "real",
           "real_vector", "simplex", "unit_interval", "nonnegative", "greater_than", "less_than",
           "is_dependent", "dependent", "dependent_property", "independent",
           "nonnegative_integer", "positive_integer", "integer_greater_than",
           "greater_than_eq", "half_open_interval", "one_hot", "square", "symmetric",
           "positive_definite", "lower_cholesky", "lower_triangular"]


class Constraint:
    """A region of values; ``event_dim`` trailing dims are checked together."""
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """A constraint that depends on other parameters (not checked)."""

    def __init__(self, *, is_discrete=False, event_dim=0):
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


class dependent_property(property):
    """A property whose constraint depends on the instance (as ``support`` of Categorical)."""

    def __init__(self, fn=None, *, is_discrete=False, event_dim=0):
        super().__init__(fn)
        self._is_discrete, self._event_dim = is_discrete, event_dim

    def __call__(self, fn):
        return dependent_property(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _Real(Constraint):
    def check(self, value):
        return value == value  # not nan


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={self.upper_bound})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerInterval(_Interval):
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & super().check(value)

    def __repr__(self):
        return (f"IntegerInterval(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Independent(Constraint):
    """``base`` checked over ``n`` more trailing dims at once."""

    def __init__(self, base, n):
        self.base, self.reinterpreted_batch_ndims = base, n
        self.event_dim = base.event_dim + n

    def check(self, value):
        ok = self.base.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            ok = ok.all(-1)
        return ok

    def __repr__(self):
        return f"IndependentConstraint({self.base!r}, {self.reinterpreted_batch_ndims})"


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self):
        return (f"HalfOpenInterval(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = (value == 0) | (value == 1)
        is_normalized = value.sum(-1).eq(1)
        return is_boolean.all(-1) & is_normalized


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        from .. import full
        return full(value.shape[:-2], value.shape[-2] == value.shape[-1], dtype=_bool())


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not square.all():
            return square
        from .. import isclose
        return isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric, and its Cholesky factorisation succeeds."""

    def check(self, value):
        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        from .. import linalg
        return linalg.cholesky_ex(value).info.eq(0)


class _LowerCholesky(Constraint):
    """Lower triangular with a positive diagonal."""
    event_dim = 2

    def check(self, value):
        lower = (value.tril() == value).view(value.shape[:-2] + (-1,)).min(-1)[0]
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]
        return lower & positive_diagonal


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return (value.tril() == value).view(value.shape[:-2] + (-1,)).min(-1)[0]


def _bool():
    from .. import bool as bool_
    return bool_


dependent = _Dependent()
real = _Real()
boolean = _Boolean()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
real_vector = _Independent(real, 1)
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_greater_than = _IntegerGreaterThan
greater_than_eq = _GreaterThanEq
half_open_interval = _HalfOpenInterval
one_hot = _OneHot()
square = _Square()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()
lower_cholesky = _LowerCholesky()
lower_triangular = _LowerTriangular()
greater_than = _GreaterThan
less_than = _LessThan
interval = _Interval
integer_interval = _IntegerInterval
independent = _Independent
