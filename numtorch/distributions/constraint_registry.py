"""``biject_to`` and ``transform_to``: registries from a constraint (its class) to a factory
of the transform that maps unconstrained reals into it. ``biject_to`` gives bijections (for
HMC-style reparameterisation), ``transform_to`` any onto map (for optimisation).

>>> import numtorch as torch
>>> from numtorch.distributions import constraints
>>> biject_to(constraints.positive)(torch.tensor(0.0))
tensor(1.)
"""
import numbers

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A table Constraint subclass -> ``factory(constraint) -> Transform``."""

    def __init__(self):
        self._registry = {}
        super().__init__()

    def register(self, constraint, factory=None):
        """Register ``factory`` for ``constraint`` (a Constraint subclass, or an instance
        standing for its class); without ``factory``, a decorator."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint,
                                                              constraints.Constraint):
            raise TypeError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        """The transform into ``constraint``; NotImplementedError for an unregistered kind."""
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _register(registries, kinds):
    def decorator(factory):
        for registry in registries:
            for kind in kinds:
                registry.register(kind, factory)
        return factory
    return decorator


_BOTH = (biject_to, transform_to)


@_register(_BOTH, [constraints.real])
def _transform_to_real(constraint):
    return transforms.identity_transform


@_register([biject_to], [constraints.independent])
def _biject_to_independent(constraint):
    return transforms.IndependentTransform(biject_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@_register([transform_to], [constraints.independent])
def _transform_to_independent(constraint):
    return transforms.IndependentTransform(transform_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@_register(_BOTH, [constraints.positive, constraints.nonnegative])
def _transform_to_positive(constraint):
    return transforms.ExpTransform()


@_register(_BOTH, [constraints.greater_than, constraints.greater_than_eq])
def _transform_to_greater_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_register(_BOTH, [constraints.less_than])
def _transform_to_less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@_register(_BOTH, [constraints.interval, constraints.half_open_interval])
def _transform_to_interval(constraint):
    lower, upper = constraint.lower_bound, constraint.upper_bound
    if (isinstance(lower, numbers.Number) and lower == 0
            and isinstance(upper, numbers.Number) and upper == 1):
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(lower, upper - lower)])


@_register([biject_to], [constraints.simplex])
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@_register([transform_to], [constraints.simplex])
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@_register([transform_to], [constraints.lower_cholesky])
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@_register([transform_to], [constraints.positive_definite, constraints.positive_semidefinite])
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()


@_register(_BOTH, [constraints.corr_cholesky])
def _transform_to_corr_cholesky(constraint):
    return transforms.CorrCholeskyTransform()


@_register([biject_to], [constraints.cat])
def _biject_to_cat(constraint):
    return transforms.CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@_register([transform_to], [constraints.cat])
def _transform_to_cat(constraint):
    return transforms.CatTransform([transform_to(c) for c in constraint.cseq],
                                   constraint.dim, constraint.lengths)


@_register([biject_to], [constraints.stack])
def _biject_to_stack(constraint):
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@_register([transform_to], [constraints.stack])
def _transform_to_stack(constraint):
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq],
                                     constraint.dim)
