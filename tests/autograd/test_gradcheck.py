"""gradcheck / gradgradcheck: passing checks, and failure reports worded as PyTorch's."""
import warnings

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")


def _x(lib, values=((0.5, -1.0), (2.0, 3.0)), dtype=None):
    return lib.tensor(values, dtype=dtype or lib.float64, requires_grad=True)


def _square(lib, factor=2):
    """x**2 with a backward of ``factor * x * g`` (factor 3 is a wrong gradient)."""
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * factor * x
    return Square


def _two_outputs(lib, right=True):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y, x + y

        @staticmethod
        def backward(ctx, g, h):
            x, y = ctx.saved_tensors
            return (g * y + h, g * x + h) if right else (g + h, g * 0 + h)
    return F


# ---- passing checks -------------------------------------------------------------------------
@pytest.mark.parametrize("fn,inputs", [
    (lambda t, x: x.sin() * x, 1),
    (lambda t, x, y: (x @ y).tanh(), 2),
    (lambda t, x: (x.softmax(1), x.sum()), 1),
    (lambda t, x: t.nn.functional.gelu(x).logsumexp(0), 1),
], ids=["unary", "matmul", "two_outputs", "gelu_logsumexp"])
@pytest.mark.parametrize("mode", ["slow", "fast", "forward", "batched"])
def test_builtin_ops_pass(fn, inputs, mode):
    rng = np.random.default_rng(0)
    xs = [numtorch.tensor(rng.standard_normal((2, 2)), requires_grad=True)
          for _ in range(inputs)]
    kw = {"fast": dict(fast_mode=True), "forward": dict(check_forward_ad=True),
          "batched": dict(check_batched_grad=True, check_forward_ad=True,
                          check_batched_forward_grad=True)}.get(mode, {})
    assert numtorch.autograd.gradcheck(lambda *a: fn(numtorch, *a), tuple(xs), **kw)
    assert numtorch.autograd.gradgradcheck(lambda *a: fn(numtorch, *a), tuple(xs),
                                           fast_mode=(mode == "fast"))


def test_custom_functions_pass(torch):
    def run(lib):
        x = _x(lib)
        y = _x(lib, ((1.0, 2.0), (3.0, 4.0)))
        ga = lib.autograd
        return (ga.gradcheck(_square(lib).apply, x), ga.gradgradcheck(_square(lib).apply, x),
                ga.gradcheck(_two_outputs(lib).apply, (x, y)),
                ga.gradcheck(_square(lib).apply, (x,), fast_mode=True),
                ga.gradgradcheck(_square(lib).apply, (x,), (lib.ones(2, 2, dtype=lib.float64),)))
    check_same(run, exact=True)


def test_non_tensor_and_no_grad_inputs(torch):
    def run(lib):
        x = _x(lib)
        return lib.autograd.gradcheck(lambda a, k, b: a * k + b, (x, 3.0, lib.ones(2, 2)))
    check_same(run, exact=True)


# ---- failure reports --------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"fast_mode": True}], ids=["slow", "fast"])
def test_wrong_gradient_report(torch, kwargs):
    check_error(lambda lib: lib.autograd.gradcheck(_square(lib, 3).apply, _x(lib), **kwargs))


def test_wrong_gradient_two_inputs_report(torch):
    check_error(lambda lib: lib.autograd.gradcheck(
        _two_outputs(lib, right=False).apply,
        (_x(lib, (1.0, 2.0)), _x(lib, (3.0, 4.0)))))


def test_wrong_gradient_report_layout():
    with pytest.raises(numtorch.autograd.gradcheck.GradcheckError) as info:
        numtorch.autograd.gradcheck(_square(numtorch, 3).apply, _x(numtorch))
    msg = str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert msg.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "analytical:tensor([[ 1.5000,  0.0000,  0.0000,  0.0000]," in msg


def test_forward_ad_report(torch):
    def run(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

            @staticmethod
            def jvp(ctx, t):
                return t * 3
        return lib.autograd.gradcheck(Bad.apply, (_x(lib),), check_forward_ad=True,
                                      check_backward_ad=False)
    check_error(run)


def test_raise_exception_false(torch):
    check_same(lambda lib: lib.autograd.gradcheck(_square(lib, 3).apply, _x(lib),
                                                  raise_exception=False), exact=True)
    check_same(lambda lib: lib.autograd.gradgradcheck(_square(lib, 3).apply, _x(lib),
                                                      raise_exception=False), exact=True)


def test_gradgradcheck_catches_wrong_double_backward(torch):
    def run(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 2 * x.detach()   # correct values, not differentiable in x
        x = _x(lib)
        gos = (lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True),)
        return lib.autograd.gradgradcheck(Square.apply, (x,), gos)
    check_error(run)


@pytest.mark.parametrize("case", [
    lambda lib: lib.autograd.gradcheck(lambda x: x * 2, (lib.ones(2, dtype=lib.float64),)),
    lambda lib: lib.autograd.gradcheck(
        lambda x: x * 2, (lib.ones(1, dtype=lib.float64).expand(3).requires_grad_(),)),
    lambda lib: lib.autograd.gradcheck(lambda x: x, (_x(lib),), check_forward_ad=False,
                                       check_backward_ad=False),
    lambda lib: lib.autograd.gradcheck(lambda x: x, (_x(lib),), check_batched_grad=True,
                                       check_backward_ad=False, check_forward_ad=True),
], ids=["no_grad_input", "stride0", "no_mode", "batched_needs_backward"])
def test_argument_errors(torch, case):
    check_error(case)


def test_backward_not_multiplied_by_grad_output(torch):
    def run(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 0 + 2
        return lib.autograd.gradcheck(F.apply, (_x(lib),))
    check_error(run)


def test_nondeterministic_backward(torch):
    def run(lib):
        calls = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                calls.append(1)
                return g * 2 + (1e-3 if len(calls) % 2 else 0)
        return lib.autograd.gradcheck(F.apply, (_x(lib),), atol=1e-2, check_undefined_grad=False)
    check_error(run)


def test_undefined_grad_check(torch):
    def run(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g, h):
                return g * 2 + h * 3 + (g == 0).all().to(g.dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.autograd.gradcheck(F.apply, (_x(lib),))
    check_error(run)


def test_float32_input_warns():
    x = numtorch.tensor([0.5, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double "
                                         "precision floating point or complex"):
        ok = numtorch.autograd.gradcheck(numtorch.sin, x, eps=1e-3, atol=1e-2)
    assert ok


def test_module_is_callable_and_has_names():
    ga = numtorch.autograd
    import numtorch.autograd.gradcheck as gc
    assert gc.GradcheckError.__mro__[1] is RuntimeError
    assert ga.gradcheck(lambda x: x * 3, (_x(numtorch),))
    assert ga.gradcheck.gradcheck is gc.gradcheck


# ---- complex inputs and outputs (slow mode, backward) ------------------------------------
def _c(lib):
    return lib.tensor([1 + 1j, 2 - 1j], dtype=lib.complex128, requires_grad=True)


@pytest.mark.parametrize("fn", [
    lambda t, z: z * z.conj(),
    lambda t, z: (z * 2).abs(),
    lambda t, z: z.exp(),
    lambda t, z: (z.real, z.imag * 3),
])
def test_complex_passes(torch, fn):
    check_same(lambda lib: lib.autograd.gradcheck(lambda z: fn(lib, z), (_c(lib),)),
               exact=True)
    check_same(lambda lib: lib.autograd.gradgradcheck(lambda z: fn(lib, z) if not
                                                       isinstance(fn(lib, z), tuple) else
                                                       fn(lib, z)[0], (_c(lib),)), exact=True)


def test_complex_real_mixed_inputs(torch):
    def run(lib):
        r = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        return (lib.autograd.gradcheck(lambda z, x: z * x, (_c(lib), r)),
                lib.autograd.gradcheck(lambda x: lib.complex(x, x * 2), (r,)))
    check_same(run, exact=True)


def _wrong_complex(lib, out_abs):
    class Wrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return (z * z).abs() if out_abs else z * z

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return g * z if out_abs else g * 2 * z   # both wrong (no conjugate)
    return Wrong


@pytest.mark.parametrize("out_abs", [False, True])
def test_complex_wrong_gradient_report(torch, out_abs):
    """A complex output is checked by imaginary part first; the message says so."""
    check_error(lambda lib: lib.autograd.gradcheck(_wrong_complex(lib, out_abs).apply,
                                                   (_c(lib),)))
    check_same(lambda lib: lib.autograd.gradcheck(_wrong_complex(lib, out_abs).apply,
                                                  (_c(lib),), raise_exception=False),
               exact=True)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_fast_mode_report_rounds_as_pytorch_dot(torch, n):
    """The analytical v^T J u of fast mode is a dot product: PyTorch's rounding, to the
    last digit of the report."""
    def run(lib):
        x = lib.tensor([0.3 * k - 1.1 for k in range(n)], dtype=lib.float64,
                       requires_grad=True)
        return lib.autograd.gradcheck(_square(lib, factor=2.2).apply, (x,), fast_mode=True)
    check_error(run)
