"""The reparameterised gradient of a Dirichlet (and so Beta) draw with respect to its
concentration: ``dirichlet_grad(x, alpha, total)`` is -(d/d alpha CDF) / PDF / (1 - x) of
the Beta(alpha, total - alpha) marginal at ``x``, by ATen's four regimes (Taylor series near
0 and near 1, Rice's saddle point when both shapes are large, else a fitted rational
correction of an analytic approximation), so ``Dirichlet.rsample`` has PyTorch's gradients.

The small-x series run in the input's precision (float32 for float32 inputs) and the rest
in double, as ATen's CPU kernel does, so float32 results agree to the last bits.

>>> import numpy as np
>>> float(dirichlet_grad(np.array(0.3), np.array(2.0), np.array(5.0)))  # doctest: +ELLIPSIS
0.1992...
"""
import math

import numpy as np

__all__ = ["dirichlet_grad"]

_DIGAMMA_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2,
              7.57575757575757575758E-3, -4.16666666666666666667E-3,
              3.96825396825396825397E-3, -8.33333333333333333333E-3,
              8.33333333333333333333E-2)
_PSI_10 = 2.25175258906672110764


def _digamma_one(x, T):
    """Cephes' digamma with ``x`` stepped in type ``T`` and the sum kept in double."""
    x = T(x)
    if x == 0:
        return T(math.inf)
    extra = 0.0
    if x < 0:
        if x == math.floor(x):
            return T(math.inf)
        extra = float(-T(math.pi) / T(math.tan(T(math.pi) * x)))
        x = T(1) - x
    result = 0.0
    while x < 10:
        result -= float(T(1) / x)
        x = x + T(1)
    if x == 10:
        return T(result + _PSI_10 + extra)
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / float(x * x)
        poly = 0.0
        for coef in _DIGAMMA_A:
            poly = poly * z + coef
        y = z * poly
    return T(result + float(T(math.log(x))) - float(T(0.5) / x) - y + extra)


def _nan_to_zero(value, T):
    return T(0) if math.isnan(value) else value


def _beta_grad_alpha_small(x, alpha, beta, T):
    """d x / d alpha for x near 0 (a Taylor series)."""
    factor = _digamma_one(alpha, T) - _digamma_one(alpha + beta, T) - T(math.log(x))
    numer = T(1)
    series = numer / alpha * (factor + T(1) / alpha)
    for i in range(1, 11):
        ci = T(i)
        numer = numer * ((ci - beta) * x / ci)
        denom = alpha + ci
        series = series + numer / denom * (factor + T(1) / denom)
    with np.errstate(all="ignore"):
        result = x * T((T(1) - x) ** -beta) * series
    return _nan_to_zero(result, T)


def _beta_grad_beta_small(x, alpha, beta, T):
    """d x / d beta for x near 0 (a Taylor series)."""
    factor = _digamma_one(alpha + beta, T) - _digamma_one(beta, T)
    numer, betas, dbetas, series = T(1), T(1), T(0), factor / alpha
    for i in range(1, 9):
        ci = T(i)
        numer = numer * (-x / ci)
        dbetas = dbetas * (beta - ci) + betas
        betas = betas * (beta - ci)
        series = series + numer / (alpha + ci) * (dbetas + factor * betas)
    with np.errstate(all="ignore"):
        result = -T((T(1) - x) ** (T(1) - beta)) * series
    return _nan_to_zero(result, T)


def _beta_grad_alpha_mid(x, alpha, beta):
    """d x / d alpha when both shapes are large (Rice's saddle point, in double)."""
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:
        # NOTE: a polynomial form that avoids the singularity at x = mean
        b2 = beta * beta
        poly = 47 * x * b2 * b2 + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * b2 * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * b2 + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                        8 * (1 - x) * (135 * beta - 11)))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (math.sqrt(2 * alpha / beta) * total ** 1.5 * axbx * axbx)
    term2 = 0.5 * math.log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = (beta * math.log(beta / (total * (1 - x)))
                  + alpha * math.log(alpha / (total * x)))
    term4 = term4_base ** -1.5
    return stirling * prefactor * (term1 + term2 * (term3 + (term4 if x < mean else -term4)))


# ATen's fitted coefficients of the rational correction: [p or q][u power][a power][b power]
_C = (((((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
         (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
         (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
        ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
         (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
         (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
        ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
         (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
         (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05)))),
      ((((1, -0.02924021934, -0.04438342661, 0.007285809825),
         (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
         (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
        ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
         (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
         (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
        ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
         (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
         (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06)))))


def _rational(x, alpha, total, T):
    u = math.log(x)
    a = math.log(alpha) - u
    b = math.log(total) - a
    p = q = 0.0
    for i, pu in enumerate((1.0, u, u * u)):
        for j, pa in enumerate((1.0, a, a * a)):
            cp, cq = _C[0][i][j], _C[1][i][j]
            p += pu * pa * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q += pu * pa * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    # NOTE: the digamma difference is taken in the input's precision, as ATen does
    approx = x * float(_digamma_one(total, T) - _digamma_one(alpha, T)) / (total - alpha)
    return p / q * approx


def _dirichlet_grad_one(x, alpha, total, T):
    """One element of ATen's ``dirichlet_grad_one`` (inputs of type ``T``)."""
    beta = total - alpha
    boundary = total * x * (T(1) - x)
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta, T)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(T(1) - x, beta, alpha, T)
    xd, ad, td = float(x), float(alpha), float(total)
    if alpha > 6 and beta > 6:
        return _beta_grad_alpha_mid(xd, ad, td - ad)
    return _rational(xd, ad, td, T)


def dirichlet_grad(x, alpha, total):
    """``torch._dirichlet_grad(x, alpha, total)`` on arrays of one floating dtype."""
    x, alpha, total = np.broadcast_arrays(np.asarray(x), np.asarray(alpha), np.asarray(total))
    T = x.dtype.type if x.dtype in (np.float32, np.float64) else np.float64
    out = [_dirichlet_grad_one(T(a), T(b), T(c), T) for a, b, c in
           zip(x.reshape(-1).tolist(), alpha.reshape(-1).tolist(), total.reshape(-1).tolist())]
    return np.array(out, dtype=np.float64).astype(x.dtype).reshape(x.shape)


def _make_dirichlet_function():
    from ..autograd.function import Function, once_differentiable

    class _Dirichlet(Function):
        """x ~ Dirichlet(concentration) (``torch._sample_dirichlet``); backward through
        ``dirichlet_grad``, computed once (as PyTorch's, not twice differentiable)."""

        @staticmethod
        def forward(ctx, concentration):
            from .. import _sample_dirichlet
            x = _sample_dirichlet(concentration)
            ctx.save_for_backward(x, concentration)
            return x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_output):
            from .._tensor import Tensor
            x, concentration = ctx.saved_tensors
            total = concentration.sum(-1, True).expand_as(concentration)
            grad = Tensor(dirichlet_grad(x.numpy(), concentration.numpy(), total.numpy()))
            return grad * (grad_output - (x * grad_output).sum(-1, True))

    return _Dirichlet


_DIRICHLET = []


def dirichlet_rsample(concentration):
    """A Dirichlet draw with PyTorch's reparameterised gradient w.r.t. ``concentration``
    (its grad_fn prints as ``<_DirichletBackward>``)."""
    if not _DIRICHLET:
        _DIRICHLET.append(_make_dirichlet_function())
    return _DIRICHLET[0].apply(concentration)
