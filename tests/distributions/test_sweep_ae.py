"""torch.distributions as RL / VAE / Bayesian scripts use it (sweep AE): the families
beyond Normal/Categorical/Bernoulli/Uniform, their draws on PyTorch's stream (Gamma, Beta,
Dirichlet, Poisson, Binomial samplers), formulas, transforms, validation messages, reprs
and kl_divergence pairs, each compared with PyTorch."""
import math

import numpy as np
import pytest

import numtorch
from helpers import check_error, check_same, torch_or_skip


def _seeded(fn, seed=0):
    def run(lib):
        lib.manual_seed(seed)
        return fn(lib, lib.distributions)
    return run


# ---- draws that must be PyTorch's numbers, bit for bit -------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_dirichlet_binomial_draws_match(dtype):
    rng = np.random.RandomState(0)
    alpha = rng.gamma(1.0, 2.0, size=30).tolist()
    counts, probs = rng.randint(0, 300, 30).astype(float).tolist(), rng.rand(30).tolist()

    def draws(lib):
        dt = getattr(lib, dtype)
        lib.manual_seed(3)
        return (lib._standard_gamma(lib.tensor(alpha, dtype=dt)),
                lib._sample_dirichlet(lib.tensor(alpha, dtype=dt).view(6, 5)),
                lib.binomial(lib.tensor(counts, dtype=dt), lib.tensor(probs, dtype=dt)),
                lib.rand(2, dtype=dt))      # the stream is left where PyTorch leaves it
    check_same(draws, exact=True)


def test_standard_gamma_grad_matches():
    check_same(lambda lib: lib._standard_gamma_grad(
        lib.tensor([0.1, 0.5, 2., 9., 20., 50., 3., 12.], dtype=lib.float64),
        lib.tensor([0.05, 1.5, 9.5, 18., 21., 48., 0.9, 11.], dtype=lib.float64)))


@pytest.mark.parametrize("case", [
    lambda lib, D: D.Gamma(lib.tensor([2.0, 0.5]), lib.tensor([1.0, 3.0])).sample((3,)),
    lambda lib, D: D.Beta(lib.tensor([2.0, 0.5]), lib.tensor([3.0, 0.5])).sample((2,)),
    lambda lib, D: D.Beta(2., 5.).sample((4,)),
    lambda lib, D: D.Dirichlet(lib.tensor([1.0, 2.0, 3.0])).sample((2,)),
    lambda lib, D: D.Exponential(lib.tensor([1.0, 2.0])).rsample((2,)),
    lambda lib, D: D.Chi2(lib.tensor([3.0])).sample(),
    lambda lib, D: D.Poisson(lib.tensor([1.0, 4.0, 15.0])).sample((2,)),
    lambda lib, D: D.Binomial(10, lib.tensor([0.2, 0.8])).sample((3,)),
    lambda lib, D: D.Geometric(lib.tensor([0.3, 0.7])).sample((3,)),
    lambda lib, D: D.OneHotCategorical(lib.tensor([0.1, 0.6, 0.3])).sample((4,)),
    lambda lib, D: D.Laplace(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0])).rsample((2,)),
    lambda lib, D: D.LogNormal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 0.5])).rsample((2,)),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), lib.tensor([[2.0, 0.5], [0.5, 1.0]]))
    .sample((3,)),
    lambda lib, D: D.RelaxedBernoulli(lib.tensor([2.2]), probs=lib.tensor([0.1, 0.99]))
    .rsample((2,)),
    lambda lib, D: D.RelaxedOneHotCategorical(lib.tensor([2.2]), logits=lib.zeros(4))
    .rsample((2,)),
    lambda lib, D: D.MixtureSameFamily(D.Categorical(lib.ones(5)),
                                       D.Normal(lib.arange(5.), lib.ones(5))).sample((4,)),
])
def test_samples_are_pytorchs(case):
    check_same(_seeded(case))


# ---- formulas, gradients, shapes -----------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda lib, D: [f(D.Gamma(lib.tensor([2.0, 0.5]), lib.tensor([1.0, 3.0])))
                    for f in (lambda d: d.log_prob(lib.tensor([1.0, 0.2])),
                              lambda d: d.entropy(), lambda d: d.mode, lambda d: d.variance)],
    lambda lib, D: [D.Dirichlet(lib.tensor([1., 2., 3.])).log_prob(lib.tensor([.2, .3, .5])),
                    D.Dirichlet(lib.tensor([1., 2., 3.])).entropy(),
                    D.Dirichlet(lib.tensor([0.5, 0.3, 3.])).mode],
    lambda lib, D: [D.Beta(lib.tensor([2.0]), lib.tensor([3.0])).log_prob(lib.tensor([0.3])),
                    D.Beta(lib.tensor([2.0]), lib.tensor([3.0])).entropy()],
    lambda lib, D: [D.Binomial(lib.tensor([5., 50.]), logits=lib.tensor([0.3, -1.0]))
                    .log_prob(lib.tensor([1., 10.])),
                    D.Binomial(10, lib.tensor([0.2, 0.8])).entropy()],
    lambda lib, D: [D.Poisson(lib.tensor([1.0, 4.0])).log_prob(lib.tensor([0., 3.]))],
    lambda lib, D: [D.MultivariateNormal(lib.ones(3, 2), scale_tril=lib.tensor(
        [[1.0, 0.0], [0.3, 0.5]])).log_prob(lib.zeros(3, 2)),
        D.MultivariateNormal(lib.zeros(2), precision_matrix=lib.tensor(
            [[2.0, 0.5], [0.5, 1.0]])).covariance_matrix],
    lambda lib, D: [D.Independent(D.Normal(lib.zeros(3, 4), lib.ones(3, 4)), 1).entropy()],
    lambda lib, D: [D.LogNormal(lib.tensor([0.0]), lib.tensor([1.0])).cdf(lib.tensor([2.0])),
                    D.LogNormal(lib.tensor([0.0]), lib.tensor([1.0])).icdf(lib.tensor([.1])),
                    D.Uniform(-1., 1.).icdf(lib.tensor(0.25)),
                    D.Laplace(0., 2.).icdf(lib.tensor(0.7))],
    lambda lib, D: [D.TransformedDistribution(
        D.Uniform(lib.zeros(3), lib.ones(3)),
        [D.transforms.SigmoidTransform().inv, D.transforms.AffineTransform(1.0, 2.0)])
        .log_prob(lib.tensor([0.0, 1.0, 2.0]))],
])
def test_formulas_match(case):
    check_same(_seeded(case))


def test_gradients_through_rsample_and_log_prob():
    def run(lib):
        lib.manual_seed(0)
        D = lib.distributions
        c = lib.tensor([3.0, 0.4], requires_grad=True)
        x = D.Gamma(c, 2.0).rsample((3,))
        mu = lib.zeros(2, requires_grad=True)
        pol = D.TransformedDistribution(D.Normal(mu, lib.ones(2)),
                                        [D.transforms.TanhTransform(cache_size=1)])
        a = pol.rsample()
        L = lib.eye(2, requires_grad=True)
        mvn = D.MultivariateNormal(mu, scale_tril=L)
        (x.sum() + pol.log_prob(a).sum() + mvn.log_prob(mvn.rsample())).backward()
        return [x, a, c.grad, mu.grad, L.grad]
    check_same(run)


def test_expand_and_shapes():
    def run(lib):
        D = lib.distributions
        n = D.Normal(lib.zeros(3), lib.ones(3)).expand((4, 3))
        ln = D.LogNormal(lib.zeros(2), lib.ones(2)).expand((3, 2))
        m = D.MultivariateNormal(lib.zeros(2), lib.eye(2)).expand((5,))
        return [tuple(d.batch_shape) + tuple(d.event_shape) + tuple(d.sample().shape)
                for d in (n, ln, m)] + [repr(n), repr(m)]
    check_same(run, exact=True)


# ---- reprs, constraints, validation messages -----------------------------------------------
def test_reprs_and_supports():
    def run(lib):
        D, T = lib.distributions, lib.distributions.transforms
        return [repr(x) for x in (
            D.Independent(D.Normal(lib.zeros(3, 4), lib.ones(3, 4)), 1),
            D.MixtureSameFamily(D.Categorical(lib.ones(2)), D.Normal(lib.zeros(2), lib.ones(2))),
            D.LogNormal(0., 1.), D.Beta(1., 2.), D.Gamma(1., 2.),
            T.ComposeTransform([T.AffineTransform(0., 2.), T.ExpTransform()]),
            T.SigmoidTransform().inv, T.TanhTransform().codomain,
            D.Binomial(10, lib.tensor([0.5])).support, D.Poisson(1.).support,
            D.OneHotCategorical(lib.ones(3)).support, D.Dirichlet(lib.ones(3)).support,
            D.MultivariateNormal(lib.zeros(2), lib.eye(2)).arg_constraints)]
    check_same(run, exact=True)


@pytest.mark.parametrize("bad", [
    lambda lib, D: D.Gamma(lib.tensor([-1.0]), lib.tensor([1.0])),
    lambda lib, D: D.Dirichlet(lib.tensor([1.0, -2.0])),
    lambda lib, D: D.Dirichlet(lib.tensor(1.0)),
    lambda lib, D: D.Poisson(lib.tensor([-1.])),
    lambda lib, D: D.Binomial(lib.tensor([2.5]), lib.tensor([0.5])),
    lambda lib, D: D.Geometric(lib.tensor([0., 0.5])),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), scale_tril=lib.tensor(
        [[1.0, 1.0], [0.0, 1.0]])),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2)),
    lambda lib, D: D.Independent(D.Normal(0., 1.), 1),
    lambda lib, D: D.MixtureSameFamily(D.Categorical(lib.ones(5)),
                                       D.Normal(lib.zeros(4), lib.ones(4))),
    lambda lib, D: D.Dirichlet(lib.ones(3)).log_prob(lib.tensor([0.5, 0.6, 0.1])),
    lambda lib, D: D.LogNormal(lib.tensor([0.]), lib.tensor([1.])).log_prob(lib.tensor([-1.])),
    lambda lib, D: D.Binomial(lib.tensor([5., 6.]), lib.tensor([.5, .5])).entropy(),
    lambda lib, D: D.kl_divergence(D.Poisson(1.), D.Normal(0., 1.)),
])
def test_errors_match(bad):
    check_error(lambda lib: bad(lib, lib.distributions))


# ---- kl_divergence -------------------------------------------------------------------------
def test_kl_pairs_match():
    def run(lib):
        D, t = lib.distributions, lib.tensor
        pairs = [
            (D.Gamma(t([2.0, 0.5]), t([1.0, 3.0])), D.Gamma(t([1.0, 1.0]), t([1.0, 1.0]))),
            (D.Beta(t([2.0]), t([3.0])), D.Beta(t([1.0]), t([1.0]))),
            (D.Dirichlet(t([1., 2., 3.])), D.Dirichlet(lib.ones(3))),
            (D.Exponential(t([1.0])), D.Exponential(t([3.0]))),
            (D.Laplace(t([0.0]), t([2.0])), D.Laplace(t([1.0]), t([1.0]))),
            (D.Poisson(t([1.0])), D.Poisson(t([2.0]))),
            (D.Binomial(10, t([0.2])), D.Binomial(10, t([0.5]))),
            (D.OneHotCategorical(t([0.2, 0.8])), D.OneHotCategorical(t([0.5, 0.5]))),
            (D.MultivariateNormal(lib.zeros(2), t([[2.0, 0.5], [0.5, 1.0]])),
             D.MultivariateNormal(lib.ones(3, 2), scale_tril=t([[1.0, 0.0], [0.3, 0.5]]))),
            (D.Independent(D.Normal(lib.zeros(3), lib.ones(3)), 1),
             D.Independent(D.Normal(lib.ones(3), lib.ones(3)), 1)),
            (D.LogNormal(t([0.0]), t([1.0])), D.LogNormal(t([1.0]), t([2.0]))),
            (D.Uniform(0., 1.), D.Uniform(-1., 2.)), (D.Normal(0., 1.), D.Laplace(0., 1.)),
            (D.Normal(t([0.]), t([1.])), D.Uniform(t([0.]), t([1.]))),
            (D.Gamma(t([2.]), t([1.])), D.Normal(t([0.]), t([1.]))),
        ]
        return [D.kl_divergence(p, q) for p, q in pairs]
    check_same(run)


def test_register_kl_dispatches_to_subclasses():
    D = numtorch.distributions

    class MyNormal(D.Normal):
        pass
    kl = D.kl_divergence(MyNormal(0., 1.), D.Normal(1., 1.))
    assert math.isclose(float(kl), 0.5)


def test_dirichlet_rsample_is_differentiable():
    """(Was a named limitation; Dirichlet.rsample now has PyTorch's gradient, compared with
    torch in test_multivariate_discrete.py.) Draws on the simplex sum to 1, so the gradient
    of their sum is 0."""
    D = numtorch.distributions
    c = numtorch.tensor([0.5, 2.0, 3.0], requires_grad=True)
    D.Dirichlet(c).rsample((5,)).sum().backward()
    assert np.allclose(c.grad.numpy(), 0.0, atol=1e-5)
    assert D.Dirichlet(c).sample().shape == (3,)


def test_standard_gamma_draws_without_torch():
    """Marsaglia-Tsang draws have the right mean (a check that runs without torch)."""
    g = numtorch.Generator().manual_seed(0)
    x = numtorch._standard_gamma(numtorch.full((4000,), 2.5), g)
    assert abs(float(x.mean()) - 2.5) < 0.1
    assert torch_or_skip is not None
