"""Regression tests from the tutorial-script sweep: behaviour that PyTorch tutorials (the
60-minute blitz, "What is torch.nn really?", data normalisation) print, against PyTorch."""
import itertools
import warnings

import numpy as np
import pytest

import numtorch


def _pair(torch, x):
    return numtorch.from_numpy(x.copy()), torch.from_numpy(x.copy())


# ---- broadcast_tensors hands back an input already of the common shape -----------------------
def test_broadcast_tensors_returns_same_shape_input_itself(torch):
    for lib in (numtorch, torch):
        a = lib.ones(2, 3, requires_grad=True) * 2
        b = lib.zeros(1, 3, requires_grad=True) * 2
        x, y = lib.broadcast_tensors(a, b)
        assert x is a and y is not b
        assert type(y.grad_fn).__name__ == "ExpandBackward0"


@pytest.mark.parametrize("loss", ["mse_loss", "smooth_l1_loss", "huber_loss", "l1_loss"])
def test_loss_grad_fn_chain_names_the_producing_op(torch, loss):
    # the blitz prints loss.grad_fn.next_functions[0][0]: the Linear's AddmmBackward0, with
    # no ExpandBackward0 between when input and target have the same shape
    def chain(lib):
        lib.manual_seed(0)
        out = lib.nn.Linear(3, 2)(lib.randn(4, 3))
        node = getattr(lib.nn.functional, loss)(out, lib.zeros(4, 2)).grad_fn
        names = []
        while node is not None:
            names.append(type(node).__name__)
            node = node.next_functions[0][0] if node.next_functions else None
        return names
    assert chain(numtorch) == chain(torch)


# ---- indexing with a range (the nll of "What is torch.nn really?") ----------------------------
def test_range_index_gets_sets_and_differentiates(torch):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    results = []
    for lib in (numtorch, torch):
        t = lib.from_numpy(x.copy()).requires_grad_()
        picked = t[range(3), lib.tensor([0, 3, 1])]
        (-picked.mean()).backward()
        u = lib.from_numpy(x.copy())
        u[range(1, 3)] = 0
        results.append((picked.tolist(), t.grad.tolist(), u.tolist(), t[range(0)].shape,
                        t[range(1, 3), 1:].tolist(), type(picked.grad_fn).__name__))
    assert results[0] == results[1]


# ---- float bits as PyTorch's kernels give them ---------------------------------------------------
def _randn(shape, seed, dtype=np.float32, scale=3.0, shift=1.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale + shift).astype(dtype)


@pytest.mark.parametrize("shape,dim", [((5,), 0), ((4, 7), 1), ((4, 7), 0), ((3, 4, 5), (0, 2)),
                                       ((8, 10), -1), ((2, 300), 1), ((1000,), 0)])
def test_logsumexp_bits(torch, shape, dim):
    # PyTorch's own steps: amax, exp, sum (its order), log, + amax; so numtorch's logsumexp is
    # bit for bit its exp/sum/log composition, which follows PyTorch's kernels (up to the rare
    # last-bit exp/log miss of ops/_libm.py)
    x = _randn(shape, sum(shape), scale=4.0, shift=0.0)
    for dtype in (np.float32, np.float64):
        mine, ref = _pair(torch, x.astype(dtype))
        m = mine.amax(dim, keepdim=True)
        composed = (mine - m).exp().sum(dim, keepdim=True).log() + m
        got = mine.logsumexp(dim, keepdim=True).numpy()
        assert np.array_equal(got, composed.numpy())
        want = ref.logsumexp(dim, keepdim=True).numpy()
        assert np.allclose(got, want, rtol=2.5e-7 if dtype is np.float32 else 1e-15, atol=0)


@pytest.mark.parametrize("shape", [(2, 3, 4, 4), (8, 3, 16, 16), (5, 3, 7, 9), (64, 3, 8, 8),
                                   (3, 1, 5, 2, 7), (40, 2, 33), (1, 3, 1, 4), (2, 3, 100)],
                         ids=str)
def test_sum_over_separate_dims_bits(torch, shape):
    # a per-channel x.mean(dim=(0, 2, 3)): reduced dims that are not adjacent
    x = _randn(shape, len(shape), scale=1.0, shift=0.3)
    for dtype in (np.float32, np.float64):
        mine, ref = _pair(torch, x.astype(dtype))
        for k in range(2, len(shape) + 1):
            for dims in itertools.combinations(range(len(shape)), k):
                for fn in ("sum", "mean"):
                    got = getattr(mine, fn)(dims).numpy()
                    want = getattr(ref, fn)(dims).numpy()
                    assert np.array_equal(got, want), (dtype, fn, dims)


SPREAD_CASES = [((10,), None), ((1000,), None), ((5000,), None), ((3, 40000), None),
                ((4, 7), 1), ((4, 7), 0), ((30, 50), 0), ((30, 50), 1), ((8, 3, 5, 5), (0, 2, 3)),
                ((64, 20), 0), ((5, 6), (0, 1))]


@pytest.mark.parametrize("shape,dim", SPREAD_CASES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_var_std_bits(torch, shape, dim, dtype):
    x = _randn(shape, sum(shape), dtype)
    mine, ref = _pair(torch, x)
    for correction in (0, 1, 2):
        for keepdim in (False, True):
            kw = dict(correction=correction, keepdim=keepdim)
            for fn in ("var", "std"):
                got = getattr(mine, fn)(dim, **kw).numpy()
                want = getattr(ref, fn)(dim, **kw).numpy()
                assert got.shape == want.shape and np.array_equal(got, want), (fn, kw)


@pytest.mark.parametrize("shape,dim", [c for c in SPREAD_CASES if np.prod(c[0]) <= 4096],
                         ids=str)
def test_var_mean_std_mean_bits(torch, shape, dim):
    # PyTorch's var_mean/std_mean take Welford's mean, not mean()'s
    x = _randn(shape, sum(shape) + 1)
    mine, ref = _pair(torch, x)
    for fn in ("var_mean", "std_mean"):
        got = getattr(numtorch, fn)(mine, dim)
        want = getattr(torch, fn)(ref, dim)
        for g, w in zip(got, want):
            assert np.array_equal(g.numpy(), w.numpy()), fn


def test_transposed_input_var_and_grad(torch):
    x = _randn((6, 9), 3)
    results = []
    for lib in (numtorch, torch):
        t = lib.from_numpy(x.copy()).requires_grad_()
        v = t.t().var(1)
        s, m = lib.std_mean(t, 0)
        (v.sum() + s.sum() + m.sum()).backward()
        results.append((v.detach().numpy(), s.detach().numpy(), m.detach().numpy(),
                        t.grad.numpy()))
    for got, want in zip(results[0], results[1]):  # gradients: within float32 rounding
        assert np.allclose(got, want, rtol=1e-5, atol=1e-6)
    assert all(np.array_equal(g, w) for g, w in zip(results[0][:3], results[1][:3]))


# ---- the quickstart's device line, torch.version, torch.compile, torch.amp ---------------------
def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the exception is what we compare
        return (type(e).__name__, str(e))


def test_accelerator_answers_as_cpu_only_pytorch(torch):
    calls = [lambda a: a.is_available(), lambda a: a.current_accelerator(),
             lambda a: a.current_accelerator(check_available=True), lambda a: a.device_count(),
             lambda a: a.current_device_index(), lambda a: a.set_device_index(0),
             lambda a: a.synchronize(), lambda a: a.empty_cache(),
             lambda a: a.memory_allocated(), lambda a: a.device_index(None).__enter__(),
             lambda a: a.device_index(0).__enter__()]
    for call in calls:
        assert _outcome(lambda: call(numtorch.accelerator)) == \
            _outcome(lambda: call(torch.accelerator))
    device = (numtorch.accelerator.current_accelerator().type
              if numtorch.accelerator.is_available() else "cpu")
    assert device == "cpu"


def test_version_module(torch):
    assert numtorch.version.cuda is torch.version.cuda is None
    assert numtorch.version.hip == torch.version.hip and numtorch.version.debug is False
    assert numtorch.version.__version__ == numtorch.__version__


def _compile_case(lib):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU())
    cm = lib.compile(m, backend="eager")  # (no C compiler needed by PyTorch)
    x = lib.randn(2, 3)
    cm.eval()
    flags = (cm.training, m.training, m[0].training)
    cm.train()
    cm.tag = 5
    return (repr(cm), type(cm).__name__, list(cm.state_dict()), len(cm), flags, m.tag,
            cm._orig_mod is m, lib.equal(cm(x), m(x)), cm(x).tolist(),
            [n for n, _ in cm.named_parameters()], _outcome(lambda: cm.missing))


def test_compile_wraps_a_module_as_pytorch(torch):
    def run(lib):
        # (PyTorch's dynamo import warns of torch.jit; a global hook left by another test
        # would make it warn on the call)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _compile_case(lib)
    assert run(numtorch) == run(torch)
    f = numtorch.compile(lambda t: t * 2)
    assert f(numtorch.ones(1)).tolist() == [2.0]
    with pytest.raises(RuntimeError, match="Either mode or options"):
        numtorch.compile(numtorch.nn.Linear(1, 1), mode="default", options={})


def test_autocast_and_grad_scaler(torch):
    def run(lib):
        out = [lib.autocast is lib.amp.autocast, lib.is_autocast_enabled()]
        with pytest.warns(UserWarning, match="Disabling autocast"):
            with lib.autocast(device_type="cuda", dtype=lib.float16):
                out.append(lib.is_autocast_enabled())
        with lib.autocast("cpu", enabled=False):
            out.append("in")
        with pytest.warns(UserWarning, match="CUDA is not available"):
            disabled = lib.amp.GradScaler("cuda")
        out += [disabled.is_enabled(), disabled.get_scale(), disabled.state_dict()]
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 1)
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu", growth_interval=2)
        x = lib.ones(4, 3)
        for i in range(5):
            opt.zero_grad()
            loss = m(x).sum()
            if i == 2:
                loss = loss * float("inf")
            scaled = scaler.scale(loss)
            scaled.backward()
            scaler.step(opt)
            scaler.update()
            out.append((scaled.item(), scaler.get_scale(), scaler.state_dict(), m.bias.tolist()))
        out.append(_outcome(lambda: (scaler.step(opt), scaler.step(opt))))
        return out
    assert run(numtorch) == run(torch)
    with pytest.raises(NotImplementedError, match="CPU autocast"):
        with numtorch.autocast("cpu"):
            pass


# ---- torch.distributions (REINFORCE-style policy sampling, VAEs) --------------------------------
def _distribution_case(lib):
    from_ = lib.distributions
    lib.manual_seed(0)
    out = []
    c = from_.Categorical(probs=lib.tensor([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]))
    out += [repr(c), c.batch_shape, c.logits.tolist(), c.sample().tolist(),
            c.sample((2, 3)).tolist(), c.log_prob(lib.tensor([2, 0])).tolist(),
            c.entropy().tolist(), c.mode.tolist()]
    c2 = from_.Categorical(logits=lib.tensor([1.0, 2.0, 0.5]))
    out += [repr(c2), c2.probs.tolist(), c2.sample((3,)).tolist()]
    n = from_.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0]))
    out += [repr(n), n.sample().tolist(), n.sample((2,)).tolist(),
            n.log_prob(lib.tensor([0.5, 0.5])).tolist(), n.entropy().tolist(),
            n.cdf(lib.tensor([0.0, 1.0])).tolist()]
    mu = lib.tensor([0.5], requires_grad=True)
    z = from_.Normal(mu, 1.5).rsample((3,))
    z.sum().backward()
    out += [z.tolist(), mu.grad.tolist(), from_.Normal(mu, 1.0).sample().requires_grad]
    b = from_.Bernoulli(lib.tensor([0.3, 0.9]))
    out += [repr(b), b.sample((2,)).tolist(), b.log_prob(lib.tensor([1.0, 0.0])).tolist(),
            b.entropy().tolist(), repr(from_.Bernoulli(logits=lib.tensor([0.0, 2.0])))]
    u = from_.Uniform(lib.tensor([0.0]), lib.tensor([2.0]))
    out += [repr(u), u.sample((3,)).tolist(), u.log_prob(lib.tensor([1.0])).tolist()]
    out += [from_.kl_divergence(n, from_.Normal(lib.ones(2), lib.ones(2))).tolist(),
            from_.kl_divergence(c, from_.Categorical(lib.ones(3) / 3)).tolist()]
    bad = [lambda: from_.Categorical(lib.tensor([0.5, -0.1, 0.6])),
           lambda: from_.Normal(lib.tensor([0.0]), lib.tensor([-1.0])),
           lambda: from_.Uniform(lib.tensor([1.0]), lib.tensor([0.0])),
           lambda: c2.log_prob(lib.tensor(5)), lambda: b.log_prob(lib.tensor([0.5, 1.0])),
           lambda: from_.Categorical(lib.ones(2), logits=lib.ones(2))]
    return out + [_outcome(f) for f in bad]


def test_distributions_sample_score_and_validate(torch):
    # (running a torch.compile'd module turns PyTorch's default validation off: set it here)
    saved = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(True)
    try:
        assert _distribution_case(numtorch) == _distribution_case(torch)
    finally:
        torch.distributions.Distribution.set_default_validate_args(saved)


# ---- torch.sin_(t) and the other torch-level in-place spellings ----------------------------------
@pytest.mark.parametrize("call", [
    lambda lib: lib.sin_(lib.tensor([0.0, 1.0, 2.0])),
    lambda lib: lib.clamp_(lib.tensor([1.0, 5.0]), max=2),
    lambda lib: lib.fill_(lib.zeros(2), 3),
    lambda lib: lib.round_(lib.tensor([1.26]), decimals=1),
    lambda lib: lib.exp_(lib.zeros(2)),
    lambda lib: lib.sin_(lib.tensor([1, 2])),
    lambda lib: lib.sin_(1.0),
])
def test_torch_level_inplace_functions(torch, call):
    def outcome(lib):
        res = _outcome(lambda: call(lib))
        return (res[0], res[1].tolist()) if res[0] == "ok" else res
    assert outcome(numtorch) == outcome(torch)
