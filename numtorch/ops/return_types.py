"""``torch.return_types``: the named tuples returned by ``max``, ``sort``, ``topk`` ...

>>> r = max(values=1, indices=2)
>>> r.values, r[1]
(1, 2)
"""
import collections

__all__ = []


def _make(name, fields):
    base = collections.namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"torch.return_types.{name}(\n{body})"

    cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__str__": __repr__,
                               "__module__": "torch.return_types"})
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
_make("triangular_solve", ("solution", "cloned_coefficient"))
_make("linalg_ldl_factor", ("LD", "pivots"))
_make("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
_make("geqrf", ("a", "tau"))
_make("linalg_inv_ex", ("inverse", "info"))
_make("linalg_cholesky_ex", ("L", "info"))
