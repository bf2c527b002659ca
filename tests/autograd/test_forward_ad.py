"""Forward-mode AD (``torch.autograd.forward_ad``): tangents of every op family against PyTorch
and against central differences, custom Function ``jvp``, and PyTorch's errors."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same

RNG = np.random.default_rng(0)

# PyTorch's forward AD loads its jvp decompositions through torch.jit.script, which warns
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")


def _arr(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape)


POS = dict(low=0.5, high=2.0)

# (name, function of (lib, *tensors), input arrays); every input gets a tangent
CASES = [
    ("exp", lambda t, x: t.exp(x), [_arr(3)]),
    ("log", lambda t, x: t.log(x), [_arr(3, **POS)]),
    ("sin_cos", lambda t, x: x.sin() * x.cos(), [_arr(2, 3)]),
    ("tanh_sigmoid", lambda t, x: x.tanh() + x.sigmoid(), [_arr(4)]),
    ("sqrt_rsqrt", lambda t, x: x.sqrt() - x.rsqrt(), [_arr(3, **POS)]),
    ("reciprocal", lambda t, x: x.reciprocal(), [_arr(3, **POS)]),
    ("relu_abs", lambda t, x: t.relu(x) + x.abs(), [_arr(5)]),
    ("asin_atan", lambda t, x: x.asin() + x.atan() + x.acos(), [_arr(3, low=-0.5, high=0.5)]),
    ("sinh_asinh", lambda t, x: x.sinh() + x.asinh() + x.cosh(), [_arr(3)]),
    ("expm1_log1p", lambda t, x: x.expm1() + x.log1p() + x.log2() + x.log10(),
     [_arr(3, **POS)]),
    ("square_pow", lambda t, x: x.square() + x ** 3 + x ** 0.5, [_arr(3, **POS)]),
    ("add_sub_bcast", lambda t, x, y: t.add(x, y, alpha=2) - y * 3 + 1, [_arr(2, 3), _arr(3)]),
    ("mul_div", lambda t, x, y: x * y / (y + 3), [_arr(2, 3), _arr(2, 3, **POS)]),
    ("rsub_scalar", lambda t, x: 2 - x + 1 / x, [_arr(3, **POS)]),
    ("pow_tensor", lambda t, x, y: x ** y, [_arr(3, **POS), _arr(3)]),
    ("scalar_pow", lambda t, x: 2.0 ** x, [_arr(3)]),
    ("atan2", lambda t, x, y: t.atan2(x, y), [_arr(3), _arr(3, **POS)]),
    ("max_min", lambda t, x, y: t.maximum(x, y) + t.minimum(x, y) * 2, [_arr(4), _arr(4)]),
    ("where", lambda t, x, y: t.where(x > 0, x, y), [_arr(4), _arr(4)]),
    ("clamp", lambda t, x: x.clamp(-0.5, 0.5), [_arr(5)]),
    ("clamp_tensor", lambda t, x, lo: t.clamp(x, min=lo), [_arr(5), _arr(5)]),
    ("sum_mean", lambda t, x: x.sum(0) + x.mean(1, keepdim=True).sum() + x.sum(),
     [_arr(2, 3)]),
    ("prod", lambda t, x: x.prod(1), [_arr(2, 3)]),
    ("amax_max", lambda t, x: x.amax(1) + x.max(0).values.sum() + x.max(), [_arr(3, 4)]),
    ("var_std", lambda t, x: x.var(1) + x.std(0).sum(), [_arr(3, 4)]),
    ("softmax", lambda t, x: t.softmax(x, 1), [_arr(2, 4)]),
    ("log_softmax", lambda t, x: t.log_softmax(x, 0), [_arr(3, 2)]),
    ("logsumexp", lambda t, x: t.logsumexp(x, 1), [_arr(2, 4)]),
    ("cumsum_cumprod", lambda t, x: x.cumsum(1) + x.cumprod(1), [_arr(2, 3)]),
    ("norm", lambda t, x: x.norm() + t.linalg.vector_norm(x, dim=1).sum(), [_arr(2, 3)]),
    ("view_reshape", lambda t, x: x.view(6).reshape(3, 2).t().flatten(), [_arr(2, 3)]),
    ("permute_transpose", lambda t, x: x.permute(2, 0, 1).transpose(0, 2), [_arr(2, 3, 4)]),
    ("expand_squeeze", lambda t, x: x.unsqueeze(0).expand(2, 3, 1).squeeze(-1), [_arr(3, 1)]),
    ("select_narrow", lambda t, x: x[1] * 2 + x.narrow(0, 0, 1).squeeze(0), [_arr(2, 3)]),
    ("index", lambda t, x: x[[0, 2]] + x[1:3], [_arr(4, 2)]),
    ("gather", lambda t, x: x.gather(1, t.tensor([[0, 2], [1, 1]])), [_arr(2, 3)]),
    ("index_select", lambda t, x: x.index_select(0, t.tensor([2, 0])), [_arr(3, 2)]),
    ("cat_stack", lambda t, x, y: t.cat([x, y]).sum(0) + t.stack([x, y], 1).sum(1).sum(0),
     [_arr(2, 3), _arr(2, 3)]),
    ("flip_roll_repeat", lambda t, x: x.flip(0) + x.roll(1, 1) + x.repeat(1, 2)[:, :3],
     [_arr(2, 3)]),
    ("diagonal_tril", lambda t, x: x.diagonal() + x.tril().sum(0) + x.triu(1).sum(1),
     [_arr(3, 3)]),
    ("matmul", lambda t, x, y: x @ y, [_arr(2, 3), _arr(3, 4)]),
    ("bmm_batched", lambda t, x, y: t.matmul(x, y), [_arr(2, 2, 3), _arr(3, 2)]),
    ("mv_dot", lambda t, x, v: t.mv(x, v) + t.dot(v, v), [_arr(3, 3), _arr(3)]),
    ("einsum_outer", lambda t, x, y: t.einsum("ij,jk->ik", x, y).sum(1) + t.outer(x[0], y[0])
     .sum(0)[:2], [_arr(2, 3), _arr(3, 2)]),
    ("addmm", lambda t, c, x, y: t.addmm(c, x, y, beta=0.5, alpha=2), [_arr(2), _arr(2, 3),
                                                                      _arr(3, 2)]),
    ("to_dtype", lambda t, x: x.to(t.float32).double() * 2, [_arr(3)]),
    ("linear_gelu", lambda t, x, w: t.nn.functional.gelu(t.nn.functional.linear(x, w)),
     [_arr(2, 3), _arr(4, 3)]),
    ("mse_loss", lambda t, x, y: t.nn.functional.mse_loss(x, y), [_arr(3), _arr(3)]),
]


def _jvp(lib, fn, arrays, tangents):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        duals = [fw.make_dual(lib.tensor(a), lib.tensor(t)) for a, t in zip(arrays, tangents)]
        out = fn(lib, *duals)
        primal, tangent = fw.unpack_dual(out)
        return primal, tangent


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_tangents_match_torch(torch, name, fn, arrays):
    tangents = [RNG.standard_normal(a.shape) for a in arrays]
    check_same(lambda lib: _jvp(lib, fn, arrays, tangents))


@pytest.mark.parametrize("name,fn,arrays", CASES[:30], ids=[c[0] for c in CASES[:30]])
def test_tangents_match_central_differences(name, fn, arrays):
    tangents = [np.random.default_rng(1).standard_normal(a.shape) for a in arrays]
    _, tangent = _jvp(numtorch, fn, arrays, tangents)
    h = 1e-6

    def f(step):
        xs = [numtorch.tensor(a + step * t) for a, t in zip(arrays, tangents)]
        return fn(numtorch, *xs).numpy()
    numeric = (f(h) - f(-h)) / (2 * h)
    np.testing.assert_allclose(tangent.numpy(), numeric, rtol=1e-5, atol=1e-6)


def test_second_order_forward_over_forward():
    """jvp of jvp (nested levels through torch.func) gives second derivatives."""
    f = numtorch.func
    x = numtorch.tensor([0.3, 1.2], dtype=numtorch.float64)
    one = numtorch.ones(2, dtype=numtorch.float64)

    def d(x):
        return f.jvp(lambda t: t.sin() * t ** 2, (x,), (one,))[1]
    _, dd = f.jvp(d, (x,), (one,))
    xs = x.numpy()
    expected = -np.sin(xs) * xs ** 2 + 4 * xs * np.cos(xs) + 2 * np.sin(xs)
    np.testing.assert_allclose(dd.numpy(), expected, rtol=1e-12)


# ---- the API -------------------------------------------------------------------------------
def test_dual_level_api(torch):
    def run(lib):
        fw = lib.autograd.forward_ad
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with fw.dual_level() as level:
            d = fw.make_dual(x, lib.tensor([1.0, 0.5]))
            y = d * d
            p, t = fw.unpack_dual(y)
            info = (level, repr(d), repr(y), p, t, d._base is x, fw.unpack_dual(x).tangent,
                    fw.unpack_dual(d.detach()).tangent, fw.unpack_dual(d.clone()).tangent,
                    type(fw.unpack_dual(d)).__name__, fw.unpack_dual(d).primal._base is x)
        return info + (fw.unpack_dual(y).tangent, repr(y))
    check_same(run, exact=False)


def test_scalar_tangent_printing(torch):
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 1.0]))
            return repr(d.sum()), repr(d.argmax()), repr(d > 1)
    check_same(run, exact=True)


def test_tangent_dtype_and_in_place_tangent_edit(torch):
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1.0, 2.0]), lib.ones(2, dtype=lib.float64))
            t = fw.unpack_dual(d).tangent
            t[0] = 3.0   # the stored tangent is the given tensor itself
            return fw.unpack_dual(d * 2).tangent, t.dtype, fw.unpack_dual(d).tangent
    check_same(run)


@pytest.mark.parametrize("case", [
    lambda lib: lib.autograd.forward_ad.make_dual(lib.ones(2), lib.ones(2)),
    lambda lib: _in_level(lib, lambda fw: fw.make_dual(lib.ones(2), lib.ones(3))),
    lambda lib: _in_level(lib, lambda fw: fw.make_dual(lib.ones(2), lib.ones(2, dtype=lib.long))),
    lambda lib: _in_level(lib, lambda fw: fw.make_dual(lib.tensor([1, 2]), lib.ones(2))),
    lambda lib: _in_level(lib, lambda fw: fw.make_dual(fw.make_dual(lib.ones(2), lib.ones(2)),
                                                       lib.ones(2))),
    lambda lib: _in_level(lib, lambda fw: fw.enter_dual_level()),
    lambda lib: lib.autograd.forward_ad.exit_dual_level(),
    lambda lib: lib.autograd.forward_ad.make_dual(lib.ones(2), lib.ones(2), level=0),
    lambda lib: lib.autograd.forward_ad.make_dual(lib.ones(2), lib.ones(2), level=2),
    lambda lib: _in_level(lib, lambda fw: fw.make_dual(lib.ones(2), lib.ones(2), level=1)),
    lambda lib: _in_level(lib, lambda fw: fw.make_dual(lib.ones(2), lib.ones(2), level=-1)),
], ids=["no_level", "size", "int_tangent", "int_primal", "twice", "nested", "exit_none",
        "level_0_closed", "level_2_closed", "level_1_open", "level_negative"])
def test_errors(torch, case):
    check_error(case)


def _in_level(lib, fn):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        return fn(fw)


def test_level_is_dropped_on_exit():
    fw = numtorch.autograd.forward_ad
    with fw.dual_level():
        y = fw.make_dual(numtorch.ones(2), numtorch.ones(2)) * 3
    assert fw.unpack_dual(y).tangent is None
    with fw.dual_level():  # a new level does not see the old tangents
        assert fw.unpack_dual(y).tangent is None


# ---- custom Functions ---------------------------------------------------------------------
def _exp_fn(lib, style):
    if style == "classic":
        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x.exp()
                ctx.save_for_forward(out)
                ctx.save_for_backward(out)
                return out

            @staticmethod
            def backward(ctx, g):
                (out,) = ctx.saved_tensors
                return g * out

            @staticmethod
            def jvp(ctx, t):
                (out,) = ctx.saved_tensors
                return t * out
        return Exp

    class Exp2(lib.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x.exp() * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(output)
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError("unused")

        @staticmethod
        def jvp(ctx, t, t_k):
            (out,) = ctx.saved_tensors
            return t * out
    return Exp2


@pytest.mark.parametrize("style", ["classic", "setup_context"])
def test_custom_function_jvp(torch, style):
    def run(lib):
        fw = lib.autograd.forward_ad
        fn = _exp_fn(lib, style)
        args = () if style == "classic" else (2.0,)
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0]))
            return fw.unpack_dual(fn.apply(d, *args)), fw.unpack_dual(fn.apply(d * d, *args))
    check_same(run)


def _fn_with(lib, jvp_result, n_out=1):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return (x * 2, y * 2) if n_out == 2 else x * y

        @staticmethod
        def backward(ctx, *g):
            return g[0], g[0]
    if jvp_result is not None:
        F.jvp = staticmethod(lambda ctx, tx, ty: jvp_result(lib, tx, ty))
    return F


@pytest.mark.parametrize("jvp_result,n_out", [
    (None, 1),
    (lambda lib, tx, ty: (tx, ty), 1),
    (lambda lib, tx, ty: lib.ones(3), 1),
    (lambda lib, tx, ty: tx, 2),
], ids=["no_jvp", "too_many", "bad_size", "too_few"])
def test_custom_function_jvp_errors(torch, jvp_result, n_out):
    def run(lib):
        fw = lib.autograd.forward_ad
        F = _fn_with(lib, jvp_result, n_out)
        with fw.dual_level():
            d = fw.make_dual(lib.ones(2), lib.ones(2))
            return F.apply(d, lib.ones(2))
    check_error(run)


def test_missing_tangents_are_zeros_in_jvp(torch):
    def run(lib):
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g, g

            @staticmethod
            def jvp(ctx, tx, ty):
                seen.append((tx, ty))
                return tx + ty
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(lib.ones(2), lib.tensor([1.0, 2.0]))
            out = fw.unpack_dual(F.apply(d, lib.ones(2))).tangent
        return seen[0], out
    check_same(run)


def test_forward_over_reverse_and_reverse_over_forward(torch):
    def run(lib):
        fw = lib.autograd.forward_ad
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(x, lib.tensor([1.0, 2.0], dtype=lib.float64))
            y = (d.exp() * d.sin()).sum()
            (g,) = lib.autograd.grad(y, x, create_graph=True)
            g_tangent = fw.unpack_dual(g).tangent     # forward over reverse: H t
            t_out = fw.unpack_dual(y).tangent
        (rg,) = lib.autograd.grad(t_out, x)           # reverse over forward
        return g, g_tangent, rg
    check_same(run)


def test_no_dual_path_has_no_hook():
    from numtorch.ops import _base
    from numtorch.autograd import function
    assert _base._interpose is None and function._interpose is None
    fw = numtorch.autograd.forward_ad
    with fw.dual_level():
        assert _base._interpose is not None
    assert _base._interpose is None


def test_clamp_with_crossing_tensor_bounds(torch):
    """Regression: where min > max, clamp gives max, so only max gets gradient/tangent."""
    def run(lib):
        f64 = lib.float64
        x, lo, hi = (lib.tensor(v, dtype=f64, requires_grad=True) for v in
                     ([0.2, 0.5, 0.9, 0.5], [0.3, 0.6, 0.3, 0.1], [0.1, 0.4, 0.8, 0.1]))
        lib.clamp(x, lo, hi).sum().backward()
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            duals = [fw.make_dual(t.detach(), lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=f64) * k)
                     for t, k in ((x, 1), (lo, 10), (hi, 100))]
            tangent = fw.unpack_dual(lib.clamp(*duals)).tangent
        return x.grad, lo.grad, hi.grad, tangent
    check_same(run)


def test_rsub_with_tensor_other(torch):
    """Regression: torch.rsub(x, y) gives y its gradient (and tangent)."""
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0], requires_grad=True)
        lib.rsub(x, y, alpha=2).sum().backward()
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            out = lib.rsub(fw.make_dual(x.detach(), lib.ones(2)),
                           fw.make_dual(y.detach(), lib.tensor([5.0, 7.0])), alpha=2)
            return x.grad, y.grad, fw.unpack_dual(out).tangent
    check_same(run)


def test_unpacked_primal_is_an_identity_view(torch):
    def run(lib):
        fwAD = lib.autograd.forward_ad
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with fwAD.dual_level():
            d = fwAD.make_dual(x, lib.ones(2))
            p = fwAD.unpack_dual(d * 2).primal
            return repr(d), repr(p), repr(fwAD.unpack_dual(x).primal), p._base is not None
    check_same(run, exact=True)


def test_product_tangents_keep_zero_terms_of_missing_tangents(torch):
    """PyTorch's product formulas keep ``zero tangent * primal`` terms: with primals that
    require grad the tangent is differentiable (AddBackward0) and backward through it gives
    those primals zero gradients; values are unchanged."""
    def run(lib):
        fwAD = lib.autograd.forward_ad
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        lin = lib.nn.Linear(2, 2)
        with lib.no_grad():
            lin.weight.copy_(lib.tensor([[1.0, -2.0], [0.5, 3.0]]))
            lin.bias.fill_(0.25)
        out = []
        with fwAD.dual_level():
            d = fwAD.make_dual(x, lib.ones(2))
            t = fwAD.unpack_dual(d * w).tangent
            out.append(repr(t))
            t.sum().backward()
            out.append((repr(w.grad), repr(x.grad)))
            out.append(repr(fwAD.unpack_dual(d * 3).tangent))
            out.append(repr(fwAD.unpack_dual(lin(fwAD.make_dual(lib.ones(2), x.detach()))
                                            ).tangent))
            out.append(repr(fwAD.unpack_dual(d.exp()).tangent))
            out.append(repr(fwAD.unpack_dual(d.view(2, 1)).tangent))
        with lib.no_grad(), fwAD.dual_level():
            out.append(repr(fwAD.unpack_dual(fwAD.make_dual(x, lib.ones(2)) * w).tangent))
        return out
    check_same(run, exact=True)
