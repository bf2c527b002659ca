"""Multinomial, NegativeBinomial, OneHotCategoricalStraightThrough, LowRankMultivariateNormal,
VonMises, Wishart, LKJCholesky; the structural / matrix transforms; the constraint registry
(biject_to, transform_to); the added constraints; and Dirichlet / Beta rsample gradients:
seeded draws, formulas, gradients and messages, each compared with PyTorch."""
import warnings

import numpy as np
import pytest

from helpers import check_error, check_same, torch_or_skip


def _seeded(fn):
    def run(lib):
        lib.manual_seed(0)
        return fn(lib)
    return run


def test_multinomial_draws_log_prob_entropy():
    def f(lib):
        D = lib.distributions
        m = D.Multinomial(10, lib.tensor([1., 2., 3., 4.]))
        x = m.sample((3,))
        mb = D.Multinomial(5, logits=lib.tensor([[0.1, -0.4, 0.3], [1.0, 0.0, -1.0]]))
        return (x, m.log_prob(x), m.entropy(), m.mean, m.variance, repr(m.support),
                mb.sample((2,)), mb.entropy(), mb.expand((4, 2)).batch_shape)
    check_same(_seeded(f))
    check_error(lambda lib: lib.distributions.Multinomial(lib.tensor(3), lib.tensor([.5, .5])))


def test_negative_binomial():
    def f(lib):
        D = lib.distributions
        tc = lib.tensor([3., 0.], requires_grad=True)
        p = lib.tensor([0.4, 0.7], requires_grad=True)
        d = D.NegativeBinomial(tc, p)
        lp = d.log_prob(lib.tensor([2., 0.]))
        lp.sum().backward()
        return d.sample((3,)), d.mean, d.variance, d.mode, lp, tc.grad, p.grad, repr(d)
    check_same(_seeded(f))
    check_error(lambda lib: lib.distributions.NegativeBinomial(2., lib.tensor(1.0)))


def test_one_hot_straight_through_gradient():
    def f(lib):
        logits = lib.tensor([[0.1, 0.5, -0.3], [1.0, -1.0, 0.0]], requires_grad=True)
        d = lib.distributions.OneHotCategoricalStraightThrough(logits=logits)
        s = d.rsample()
        (s * lib.arange(3.)).sum().backward()
        return s, logits.grad, d.has_rsample
    check_same(_seeded(f))


def test_lowrank_mvn_and_its_kl_pairs():
    def f(lib):
        D = lib.distributions
        W = lib.tensor([[1.0, 0.2], [-0.5, 0.3], [0.1, 0.9]], requires_grad=True)
        d = lib.tensor([0.5, 1.0, 1.5])
        m = D.LowRankMultivariateNormal(lib.zeros(3), W, d)
        x = lib.tensor([0.3, -1.0, 2.0])
        lp = m.log_prob(x)
        lp.backward()
        mvn = D.MultivariateNormal(lib.ones(3), scale_tril=lib.eye(3) * 2)
        m2 = D.LowRankMultivariateNormal(lib.ones(3), W * 0.5, d * 2)
        return (m.rsample((2,)), lp, W.grad, m.entropy(), m.covariance_matrix,
                m.precision_matrix, m.scale_tril, D.kl_divergence(m, mvn),
                D.kl_divergence(mvn, m), D.kl_divergence(m, m2))
    check_same(_seeded(f))
    check_error(lambda lib: lib.distributions.LowRankMultivariateNormal(
        lib.zeros(3), lib.zeros(2, 2), lib.ones(3)))


def test_von_mises_rejection_sampler():
    def f(lib):
        D = lib.distributions
        d = D.VonMises(lib.tensor([0., 1.]), lib.tensor([0.001, 5.]))
        return d.sample((4,)), d.log_prob(lib.tensor([0.5, 1.2])), d.variance
    check_same(_seeded(f))


def test_wishart_draws_and_formulas():
    def f(lib):
        S = lib.tensor([[2., 0.5], [0.5, 1.]])
        w = lib.distributions.Wishart(lib.tensor([4., 6.]), covariance_matrix=S)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = w.rsample((2,))
        return x, w.log_prob(x), w.entropy(), w.mean, w.variance
    check_same(_seeded(f))


def test_lkj_cholesky():
    def f(lib):
        d = lib.distributions.LKJCholesky(3, lib.tensor([0.5, 2.0]))
        L = d.sample()
        return L, d.log_prob(L)
    check_same(_seeded(f))
    check_error(lambda lib: lib.distributions.LKJCholesky(1))


@pytest.mark.parametrize("name", ["positive", "unit_interval", "simplex", "real_vector",
                                  "corr_cholesky", "greater_than", "interval"])
def test_biject_to_round_trip(name):
    def f(lib):
        C = lib.distributions.constraints
        c = {"greater_than": C.greater_than(1.5), "interval": C.interval(-2., 3.)}.get(
            name, getattr(C, name, None))
        x = lib.tensor([0.3, -1.2, 0.7])
        t = lib.distributions.biject_to(c)
        y = t(x)
        return repr(t), y, t.inv(y), t.log_abs_det_jacobian(x, y)
    check_same(f)


def test_transform_to_and_registry_errors():
    def f(lib):
        D = lib.distributions
        m = lib.tensor([[0.3, 0.1], [-0.4, 0.2]])
        return (D.transform_to(D.constraints.positive_definite)(m),
                D.transform_to(D.constraints.lower_cholesky)(m),
                repr(D.transform_to(D.constraints.simplex)))
    check_same(f)
    check_error(lambda lib: lib.distributions.biject_to(lib.distributions.constraints.boolean))


def test_structural_transforms():
    def f(lib):
        T = lib.distributions.transforms
        x = lib.tensor([[0.1, -0.5, 0.3], [1.0, 0.2, -0.7]])
        cat = T.CatTransform([T.ExpTransform(), T.identity_transform, T.SigmoidTransform()],
                             dim=1)
        stack = T.StackTransform([T.ExpTransform(), T.AffineTransform(1., 2.)], dim=0)
        reshape = T.ReshapeTransform((2, 3), (6,))
        indep = T.IndependentTransform(T.ExpTransform(), 1)
        out = []
        for t in (cat, stack, reshape, indep):
            y = t(x)
            out += [y, t.inv(y), t.log_abs_det_jacobian(x, y), repr(t.domain)]
        return out
    check_same(f)
    check_error(lambda lib: lib.distributions.transforms.ReshapeTransform((2, 3), (5,)))


def test_corr_cholesky_and_stick_breaking_transforms():
    def f(lib):
        T = lib.distributions.transforms
        v = lib.tensor([0.3, -1.0, 0.5, 2.0, -0.2, 0.1])
        t = T.CorrCholeskyTransform()
        L = t(v)
        s = T.StickBreakingTransform()
        y = s(v)
        return L, t.inv(L), t.log_abs_det_jacobian(v, L), y, s.inv(y), s.log_abs_det_jacobian(v, y)
    check_same(f)


def test_added_constraints():
    def f(lib):
        C = lib.distributions.constraints
        return (sorted(C.__all__), C.corr_cholesky.check(lib.tensor([[1., 0.], [.6, .8]])),
                C.positive_semidefinite.check(lib.ones(2, 2)), repr(C.multinomial(5)),
                C.cat([C.positive, C.real], lengths=[2, 1]).check(lib.tensor([1., -1., -3.])),
                C.stack([C.positive, C.unit_interval], dim=-1).check(
                    lib.tensor([[1., .5], [-1., 2.]])))
    check_same(f)


def test_dirichlet_and_beta_rsample_gradients():
    def f(lib):
        c = lib.tensor([0.5, 2.0, 7.0], requires_grad=True)
        x = lib.distributions.Dirichlet(c).rsample((4,))
        x.pow(2).sum().backward()
        a = lib.tensor([2.0, 0.3], requires_grad=True)
        b = lib.tensor([3.0, 12.0], requires_grad=True)
        s = lib.distributions.Beta(a, b).rsample((3,))
        s.sum().backward()
        return x, c.grad, s, a.grad, b.grad, x.grad_fn.name()
    check_same(_seeded(f))


def test_dirichlet_grad_kernel_matches_aten():
    torch = torch_or_skip()
    from numtorch.distributions._dirichlet_grad import dirichlet_grad
    g = torch.Generator().manual_seed(0)
    for dtype in (torch.float32, torch.float64):
        a = torch.rand(500, generator=g, dtype=dtype) * 15 + 0.05
        b = torch.rand(500, generator=g, dtype=dtype) * 15 + 0.05
        x = torch._sample_dirichlet(torch.stack([a, b], -1), generator=g)[:, 0]
        ref = torch._dirichlet_grad(x, a, a + b).numpy()
        mine = dirichlet_grad(x.numpy(), a.numpy(), (a + b).numpy())
        np.testing.assert_allclose(mine, ref, rtol=1e-4 if dtype == torch.float32 else 1e-12)
