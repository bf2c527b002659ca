"""Regression tests of conformance sweep AW (vmap leftovers), against PyTorch: in-place ops
writing batched values into a tensor not batched at that level give PyTorch's op-specific
errors (its broadcast-shape error, the ``aten::<op>`` fallback error, the bare-name form,
``out=``'s missing batching rule), also where numtorch used to run them per sample; random
ops with batched inputs under randomness='same' / 'error'; rrelu and storage access of a
batched tensor inside vmap."""
import pytest

from helpers import check_error, check_same, check_same_outcome

pytestmark = pytest.mark.filterwarnings("ignore:There is a performance drop",
                                        "ignore:TypedStorage is deprecated")

X = [[1.5, 0.7, 1.2, 0.9], [0.6, 1.1, 1.4, 0.8], [1.3, 0.55, 0.95, 1.25]]

_OPS = {
    "add_": lambda lib, b, a: b.add_(a, alpha=2), "iadd": lambda lib, b, a: b.__iadd__(a),
    "add_0dim": lambda lib, b, a: b.add_(a.sum()), "atan2_": lambda lib, b, a: b.atan2_(a),
    "copysign_": lambda lib, b, a: b.copysign_(a), "sub_": lambda lib, b, a: b.sub_(a),
    "mul_": lambda lib, b, a: b.mul_(a),
    "div_mode": lambda lib, b, a: b.div_(a, rounding_mode="floor"),
    "pow_": lambda lib, b, a: b.pow_(a), "ipow": lambda lib, b, a: b.__ipow__(a),
    "remainder_": lambda lib, b, a: b.remainder_(a), "fmod_": lambda lib, b, a: b.fmod_(a),
    "floor_divide_": lambda lib, b, a: b.floor_divide_(a), "hypot_": lambda lib, b, a: b.hypot_(a),
    "heaviside_": lambda lib, b, a: b.heaviside_(a), "subtract_": lambda lib, b, a: b.subtract_(a),
    "xlogy_": lambda lib, b, a: b.xlogy_(a), "eq_": lambda lib, b, a: b.eq_(a),
    "ge_": lambda lib, b, a: b.ge_(a), "greater_": lambda lib, b, a: b.greater_(a),
    "logical_and_": lambda lib, b, a: b.logical_and_(a),
    "clamp_": lambda lib, b, a: b.clamp_(a, a + 1),
    "clamp_max_kw": lambda lib, b, a: b.clamp_(max=a),
    "clamp_min_": lambda lib, b, a: b.clamp_min_(a), "clip_": lambda lib, b, a: b.clip_(a),
    "lerp_": lambda lib, b, a: b.lerp_(a, 0.5),
    "addcmul_": lambda lib, b, a: b.addcmul_(a, a, value=2),
    "addcdiv_": lambda lib, b, a: b.addcdiv_(a, a), "copy_": lambda lib, b, a: b.copy_(a),
    "fill_": lambda lib, b, a: b.fill_(a.sum()),
    "masked_fill_mask": lambda lib, b, a: b.masked_fill_(a > 1, 0.),
    "masked_fill_value": lambda lib, b, a: b.masked_fill_(b > 1, a.sum()),
    "index_add_": lambda lib, b, a: b.index_add_(0, lib.tensor([0, 1]), a[:2]),
    "index_fill_": lambda lib, b, a: b.index_fill_(0, lib.tensor([0]), a.sum()),
    "scatter_": lambda lib, b, a: b.scatter_(0, lib.tensor([0, 1]), a[:2]),
    "scatter_add_": lambda lib, b, a: b.scatter_add_(0, lib.tensor([0, 1]), a[:2]),
    "index_copy_": lambda lib, b, a: b.index_copy_(0, lib.tensor([0, 1]), a[:2]),
    "addmm_": lambda lib, b, a: b.view(2, 2).addmm_(a.view(2, 2), a.view(2, 2)),
    "maximum_out": lambda lib, b, a: lib.maximum(b, a, out=b),
    "max_out": lambda lib, b, a: lib.max(b, a, out=b),
    "mul_out": lambda lib, b, a: lib.mul(b, a, out=b),
    "exp_out": lambda lib, b, a: lib.exp(a, out=b),
    "where_out": lambda lib, b, a: lib.where(a > 1, a, b, out=b),
    "setitem": lambda lib, b, a: b.__setitem__(slice(None), a),
}


@pytest.mark.parametrize("case", sorted(_OPS))
@pytest.mark.parametrize("grad", [False, True])
def test_inplace_into_unbatched_raises(case, grad):
    def run(lib):
        def f(a):
            b = lib.ones(4, requires_grad=True).clone() if grad else lib.ones(4)
            _OPS[case](lib, b, a)
            return b
        return lib.func.vmap(f)(lib.tensor(X))
    if grad and case.endswith("_out"):
        pytest.skip("out= with requires_grad: a different error, before batching")
    check_error(run)


@pytest.mark.parametrize("case", ["pow_", "add_", "fill_"])
def test_inplace_into_tensor_batched_only_outside(case):
    """Self batched by the outer vmap only, the value by the inner one."""
    def run(lib):
        x, y = lib.tensor(X), lib.tensor([0.5, 2.])
        return lib.func.vmap(lambda r: lib.func.vmap(lambda a: _OPS[case](lib, r, a))(y))(x)
    check_error(run)


@pytest.mark.parametrize("case", ["bitwise_and_", "bitwise_or_", "__ixor__", "gcd_",
                                  "bitwise_left_shift_"])
def test_integer_inplace_into_unbatched_raises(case):
    def run(lib):
        def f(a):
            b = lib.ones(4, dtype=lib.long)
            getattr(b, case)(a)
            return b
        return lib.func.vmap(f)(lib.tensor([[1, 2, 3, 4], [5, 6, 7, 8]]))
    check_error(run)


def test_inplace_into_batched_still_works():
    check_same(lambda lib: lib.func.vmap(
        lambda a: a.clone().hypot_(a).floor_divide_(lib.full((4,), 0.3)).pow_(lib.ones(4)))(
            lib.tensor(X)))


@pytest.mark.parametrize("mode", ["same", "different", "error"])
@pytest.mark.parametrize("case", ["bernoulli_p", "bernoulli_inplace_t", "bernoulli_inplace_p",
                                  "multinomial", "multinomial_replacement"])
def test_random_ops_with_batched_input(case, mode):
    fns = {
        "bernoulli_p": lambda lib, t: lib.bernoulli(t, 0.5),
        "bernoulli_inplace_t": lambda lib, t: lib.zeros(4).bernoulli_(t),
        "bernoulli_inplace_p": lambda lib, t: t.clone().bernoulli_(0.5),
        "multinomial": lambda lib, t: lib.multinomial(t, 2),
        "multinomial_replacement": lambda lib, t: lib.multinomial(t, 2, replacement=True),
    }

    def run(lib):
        lib.manual_seed(0)
        return lib.func.vmap(lambda t: fns[case](lib, t), randomness=mode)(lib.rand(3, 4))
    check_same_outcome(run)


@pytest.mark.parametrize("mode", ["same", "different", "error"])
@pytest.mark.parametrize("case", ["train", "eval", "module", "inplace", "torch_rrelu"])
def test_rrelu_refused(case, mode):
    def run(lib):
        F = lib.nn.functional
        fns = {"train": lambda t: F.rrelu(t - 0.5, training=True),
               "eval": lambda t: F.rrelu(t - 0.5), "module": lib.nn.RReLU(),
               "inplace": lambda t: F.rrelu_(t.clone() - 0.5, training=True),
               "torch_rrelu": lambda t: lib.rrelu(t)}
        return lib.func.vmap(fns[case], randomness=mode)(lib.ones(3, 4))
    check_error(run)


@pytest.mark.parametrize("case", ["untyped", "computed", "typed"])
def test_storage_of_batched_tensor(case):
    fns = {"untyped": lambda t: t.untyped_storage(),
           "computed": lambda t: (t * 2).untyped_storage(), "typed": lambda t: t.storage()}
    check_error(lambda lib: lib.func.vmap(fns[case])(lib.ones(3, 4)))


def test_storage_of_unbatched_tensor_inside_vmap():
    check_same(lambda lib: lib.func.vmap(
        lambda t: t + lib.ones(2).untyped_storage().size())(lib.ones(3, 4)))


@pytest.mark.parametrize("mode", ["same", "different", "error"])
@pytest.mark.parametrize("case", ["exponential_unbatched", "normal_unbatched", "uniform_batched",
                                  "dropout", "randperm"])
def test_inplace_random_and_stream_after(case, mode):
    """'different' randomness into an unbatched tensor is refused; a refused draw under
    'error' consumes nothing, so the stream afterwards is PyTorch's."""
    fns = {"exponential_unbatched": lambda lib, t: lib.zeros(4).exponential_() * t,
           "normal_unbatched": lambda lib, t: lib.zeros(4).normal_() + t,
           "uniform_batched": lambda lib, t: t.clone().uniform_(),
           "dropout": lambda lib, t: lib.nn.functional.dropout(t, 0.5),
           "randperm": lambda lib, t: t[lib.randperm(4)]}

    def run(lib):
        lib.manual_seed(0)
        x = lib.rand(3, 4)
        try:
            out = lib.func.vmap(lambda t: fns[case](lib, t), randomness=mode)(x)
        except RuntimeError as e:
            out = str(e)
        return out, lib.rand(3)
    check_same(run)
