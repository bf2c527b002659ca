"""``torch.return_types``: the named tuples returned by ``max``, ``sort``, ``topk`` ...

They behave as PyTorch's C ``structseq`` types rather than ``collections.namedtuple``:
fields by name and index, ``n_fields``, no ``_asdict``/``_replace``, and a constructor
that takes one sequence (numtorch's own ops pass the values one by one instead).

>>> r = max((1, 2))
>>> r.values, r[1], r.n_fields
(1, 2, 2)
>>> max(1, 2).indices
2
"""
import operator

__all__ = []


def _new(cls, *args):
    n = cls.n_fields
    # numtorch's ops build results as cls(v0, v1, ...); a user writes cls(sequence) or
    # cls(sequence, dict) as with PyTorch's structseq (whose dict may name no field)
    if len(args) == n and not (n == 2 and (args[1] is None or isinstance(args[1], dict))):
        return tuple.__new__(cls, args)
    if not args:
        raise TypeError("structseq() missing required argument 'sequence' (pos 1)")
    if len(args) > 2:
        raise TypeError(f"structseq() takes at most 2 arguments ({len(args)} given)")
    if len(args) == 2 and args[1] is not None and not isinstance(args[1], dict):
        raise TypeError(f"torch.return_types.{cls.__name__}() takes a dict as second arg, "
                        "if any")
    values = tuple(args[0])
    if len(values) != n:
        raise TypeError(f"torch.return_types.{cls.__name__}() takes a {n}-sequence "
                        f"({len(values)}-sequence given)")
    return tuple.__new__(cls, values)


def _repr(self):
    body = ",\n".join(f"{f}={v!r}" for f, v in zip(self.__match_args__, self))
    return f"torch.return_types.{type(self).__name__}(\n{body})"


def _reduce(self):
    return (type(self), (tuple(self), {}))


def _getattr(self, name):
    # only reached for a missing attribute; PyTorch's C type names itself in full here
    raise AttributeError(f"'torch.return_types.{type(self).__name__}' object has no "
                         f"attribute '{name}'")


def _make(name, fields):
    attrs = {"__slots__": (), "__module__": "torch.return_types", "__new__": _new,
             "__repr__": _repr, "__str__": _repr, "__reduce__": _reduce,
             "__getattr__": _getattr, "__match_args__": fields, "n_fields": len(fields),
             # not on PyTorch's type: numtorch's pytree, collate and __torch_function__
             # code recognise named tuples (these included) by it
             "_fields": fields,
             "n_sequence_fields": len(fields), "n_unnamed_fields": 0}
    attrs.update({f: property(operator.itemgetter(i)) for i, f in enumerate(fields)})
    cls = type(name, (tuple,), attrs)
    globals()[name] = cls
    __all__.append(name)
    return cls


for _name in ("max", "min", "mode", "median", "nanmedian", "kthvalue", "cummax", "cummin",
              "sort", "topk", "aminmax"):
    _make(_name, ("values", "indices") if _name != "aminmax" else ("min", "max"))
    _make(_name + "_out", ("values", "indices") if _name != "aminmax" else ("min", "max"))
_make("slogdet", ("sign", "logabsdet"))
_make("qr", ("Q", "R"))
_make("svd", ("U", "S", "V"))
_make("linalg_svd", ("U", "S", "Vh"))
_make("linalg_eigh", ("eigenvalues", "eigenvectors"))
_make("linalg_eig", ("eigenvalues", "eigenvectors"))
_make("linalg_slogdet", ("sign", "logabsdet"))
_make("linalg_qr", ("Q", "R"))
_make("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
_make("var_mean", ("var", "mean"))
_make("std_mean", ("std", "mean"))
_make("frexp", ("mantissa", "exponent"))
_make("histogram", ("hist", "bin_edges"))
_make("histogramdd", ("hist", "bin_edges"))
_make("linalg_lu", ("P", "L", "U"))
_make("lu_unpack", ("P", "L", "U"))
_make("linalg_lu_factor", ("LU", "pivots"))
_make("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_make("linalg_solve_ex", ("result", "info"))
_make("_lu_with_info", ("LU", "pivots", "info"))
_make("triangular_solve", ("solution", "cloned_coefficient"))
_make("linalg_ldl_factor", ("LD", "pivots"))
_make("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
_make("geqrf", ("a", "tau"))
_make("linalg_inv_ex", ("inverse", "info"))
_make("linalg_cholesky_ex", ("L", "info"))
