"""``kl_divergence(p, q)`` for two distributions of one kind."""
import math

__all__ = ["kl_divergence"]


def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


def _kl_bernoulli_bernoulli(p, q):
    from ..nn.functional import softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


_KL = {("Normal", "Normal"): _kl_normal_normal,
       ("Categorical", "Categorical"): _kl_categorical_categorical,
       ("Bernoulli", "Bernoulli"): _kl_bernoulli_bernoulli}


def kl_divergence(p, q):
    """KL(p || q); NotImplementedError for a pair without a formula here."""
    fn = _KL.get((type(p).__name__, type(q).__name__))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return fn(p, q)
