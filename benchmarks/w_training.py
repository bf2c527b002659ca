"""Training-step workloads: W3 MLP, W5 small CNN, W6 memory over W3 steps, W7 LSTM, W8
transformer layer.

Each model is built from the library passed in as ``tm`` (numtorch or torch) with the same
code, and its parameters are set from one NumPy stream, so both start from identical weights
and their first-step gradients can be compared. The NumPy side is the hand-written forward
and backward of the same network.
"""
import numpy as np

from ._harness import compare, rss_bytes, time_interleaved
from ._registry import Result, Row, workload

LR = 0.01


def _set_params(tm, model, seed=0, scale=0.05):
    """Overwrite every parameter (in registration order) from a seeded NumPy stream."""
    rng = np.random.default_rng(seed)
    arrays = []
    with tm.no_grad():
        for _, p in model.named_parameters():
            a = (rng.standard_normal(tuple(p.shape)) * scale).astype(np.float32)
            p.copy_(tm.from_numpy(a.copy()))
            arrays.append(a)
    return arrays


def _batch(shape, classes, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, classes, shape[0]).astype(np.int64)
    return x, y


def _step_runner(tm, build, x, y):
    """prepare() for one SGD training step of ``build(tm)``; run() returns the first
    parameter's gradient tensor (after the step: what the step used). It is returned as it
    is, not copied inside the timed step (the NumPy side copies nothing either): the next
    step's ``zero_grad()`` sets ``.grad`` to None, so nothing writes to it again."""
    model = build(tm)
    _set_params(tm, model)
    opt = tm.optim.SGD(model.parameters(), lr=LR)
    xt, yt = tm.from_numpy(x), tm.from_numpy(y)
    first = next(iter(model.parameters()))
    F = tm.nn.functional

    def run():
        opt.zero_grad()
        loss = F.cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()
        return first.grad
    return lambda: run


def _runners(opts, build, x, y, numpy_prepare):
    import numtorch
    runners = {"numtorch": _step_runner(numtorch, build, x, y)}
    if opts.torch is not None:
        runners["torch"] = _step_runner(opts.torch, build, x, y)
    if numpy_prepare is not None:
        runners["numpy"] = numpy_prepare
    return runners


def _step_result(opts, name, runners, target_torch, target_numpy=None):
    repeats, warmup = (1, 0) if opts.quick else (15, 3)
    med, grads = time_interleaved(runners, repeats, warmup, opts.clock)
    ms = {k: v * 1e3 for k, v in med.items()}
    target = f"≤ {target_torch}× PyTorch" + (f", ≤ {target_numpy}× NumPy" if target_numpy else "")
    row = Row("one training step", "ms", ms["numtorch"], ms.get("torch"), ms.get("numpy"),
              target=target)
    met = []
    if row.torch is not None:
        met.append(row.numtorch <= target_torch * row.torch)
    if target_numpy and row.numpy is not None:
        met.append(row.numtorch <= target_numpy * row.numpy)
    row.met = all(met) if met else None
    # the same SGD steps from identical weights: the first layer's gradients must agree
    return Result([row], compare(name, grads, rtol=1e-3, atol=1e-5))


# ---- W3: MLP -----------------------------------------------------------------------------
def _mlp(tm):
    nn = tm.nn
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def _mlp_numpy(x, y):
    """Hand-written forward, cross-entropy, backward and SGD for the W3 MLP."""
    w1, b1, w2, b2, w3, b3 = [a.copy() for a in _set_params_numpy(
        [(256, 784), (256,), (256, 256), (256,), (10, 256), (10,)])]
    n = x.shape[0]
    rows = np.arange(n)

    def run():
        h1 = x @ w1.T + b1
        a1 = np.maximum(h1, 0)
        h2 = a1 @ w2.T + b2
        a2 = np.maximum(h2, 0)
        z = a2 @ w3.T + b3
        e = np.exp(z - z.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        dz = p
        dz[rows, y] -= 1
        dz /= n
        gw3, gb3 = dz.T @ a2, dz.sum(0)
        d2 = (dz @ w3) * (h2 > 0)
        gw2, gb2 = d2.T @ a1, d2.sum(0)
        d1 = (d2 @ w2) * (h1 > 0)
        gw1, gb1 = d1.T @ x, d1.sum(0)
        for w, g in ((w1, gw1), (b1, gb1), (w2, gw2), (b2, gb2), (w3, gw3), (b3, gb3)):
            w -= LR * g
        return gw1
    return lambda: run


def _set_params_numpy(shapes, seed=0, scale=0.05):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) * scale).astype(np.float32) for s in shapes]


@workload("W3", "one SGD training step of a 784-256-256-10 MLP (ReLU, cross-entropy), "
                "batch 128, float32",
          needs=("nn.Linear", "nn.ReLU", "nn.Sequential", "nn.functional.cross_entropy",
                 "optim.SGD"))
def w3(opts):
    x, y = _batch((128, 784), 10)
    return _step_result(opts, "W3", _runners(opts, _mlp, x, y, _mlp_numpy(x, y)), 1.0, 1.1)


# ---- W5: small CNN -----------------------------------------------------------------------
def _cnn(tm):
    nn = tm.nn
    return nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(8 * 13 * 13, 10))


def _cnn_numpy(x, y):
    """Hand-written im2col convolution, ReLU, 2x2 max-pool, linear, cross-entropy, SGD."""
    wc, bc, wl, bl = [a.copy() for a in _set_params_numpy(
        [(8, 1, 3, 3), (8,), (10, 8 * 13 * 13), (10,)])]
    n = x.shape[0]
    rows = np.arange(n)
    cols = np.lib.stride_tricks.sliding_window_view(x[:, 0], (3, 3), axis=(1, 2))
    cols = np.ascontiguousarray(cols.reshape(n, 26 * 26, 9))       # (n, 676, 9)

    def run():
        h = cols @ wc.reshape(8, 9).T + bc                              # (n, 676, 8)
        a = np.maximum(h, 0).reshape(n, 13, 2, 13, 2, 8)
        win = a.transpose(0, 1, 3, 5, 2, 4).reshape(n, 13, 13, 8, 4)
        arg = win.argmax(-1)
        pooled = np.take_along_axis(win, arg[..., None], -1)[..., 0]    # (n, 13, 13, 8)
        flat = pooled.transpose(0, 3, 1, 2).reshape(n, -1)             # NCHW flatten
        z = flat @ wl.T + bl
        e = np.exp(z - z.max(1, keepdims=True))
        dz = e / e.sum(1, keepdims=True)
        dz[rows, y] -= 1
        dz /= n
        gwl, gbl = dz.T @ flat, dz.sum(0)
        dpool = (dz @ wl).reshape(n, 8, 13, 13).transpose(0, 2, 3, 1)  # (n, 13, 13, 8)
        dwin = np.zeros_like(win)
        np.put_along_axis(dwin, arg[..., None], dpool[..., None], -1)
        da = dwin.reshape(n, 13, 13, 8, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(n, 676, 8)
        dh = da * (h > 0)
        gwc = np.einsum("npk,npc->kc", dh, cols).reshape(8, 1, 3, 3)
        gbc = dh.sum((0, 1))
        for w, g in ((wc, gwc), (bc, gbc), (wl, gwl), (bl, gbl)):
            w -= LR * g
        return gwc
    return lambda: run


@workload("W5", "one SGD training step of a small CNN (conv 3x3 1->8 on 28x28, ReLU, "
                "max-pool 2, linear to 10), batch 64",
          needs=("nn.Conv2d", "nn.MaxPool2d", "nn.Flatten", "nn.Linear", "nn.ReLU",
                 "nn.Sequential", "nn.functional.cross_entropy", "optim.SGD"))
def w5(opts):
    x, y = _batch((64, 1, 28, 28), 10)
    return _step_result(opts, "W5", _runners(opts, _cnn, x, y, _cnn_numpy(x, y)), 1.5)


# ---- W6: memory over W3 steps ------------------------------------------------------------
@workload("W6", "RSS over 200 W3 training steps (flat: < 5% growth from step 20 to 200)",
          needs=("nn.Linear", "nn.ReLU", "nn.Sequential", "nn.functional.cross_entropy",
                 "optim.SGD"))
def w6(opts):
    import numtorch
    steps, first = (30, 10) if opts.quick else (200, 20)
    x, y = _batch((128, 784), 10)
    result = Result()
    growth = {}
    libs = [("numtorch", numtorch)] + ([("torch", opts.torch)] if opts.torch else [])
    for name, tm in libs:
        run = _step_runner(tm, _mlp, x, y)()
        base = peak = None
        for step in range(1, steps + 1):
            run()
            rss = rss_bytes()
            if step == first:
                base = peak = rss
            elif step > first:
                peak = max(peak, rss)
        growth[name] = (peak - base) / base * 100
        result.notes.append(f"{name}: RSS {base / 2**20:.0f} MB at step {first}, peak "
                            f"{peak / 2**20:.0f} MB up to step {steps} (process total)")
    row = Row(f"RSS growth, step {first} to peak of steps {first}–{steps}", "%",
              growth["numtorch"], growth.get("torch"), None, target="< 5%")
    row.met = growth["numtorch"] < 5
    result.rows.append(row)
    return result


# ---- W7, W8: recurrent and attention layers (no hand-written NumPy baseline) -----------------
def _seq_step(opts, build, make_batch, loss_fn):
    """Runners for one SGD step of ``build(tm)`` on both libraries (no NumPy baseline)."""
    import numtorch
    x = make_batch()

    def runner(tm):
        model = build(tm)
        _set_params(tm, model)
        opt = tm.optim.SGD(model.parameters(), lr=LR)
        xt = tm.from_numpy(x)
        first = next(iter(model.parameters()))

        def run():
            opt.zero_grad()
            loss_fn(tm, model, xt).backward()
            opt.step()
            return first.grad
        return lambda: run
    runners = {"numtorch": runner(numtorch)}
    if opts.torch is not None:
        runners["torch"] = runner(opts.torch)
    return runners


@workload("W7", "one SGD step of an LSTM (hidden 128, sequence 32, batch 32)",
          needs=("nn.LSTM", "optim.SGD"))
def w7(opts):
    runners = _seq_step(
        opts, lambda tm: tm.nn.LSTM(64, 128),
        lambda: np.random.default_rng(1).standard_normal((32, 32, 64)).astype(np.float32),
        lambda tm, m, x: m(x)[0].pow(2).mean())
    return _step_result(opts, "W7", runners, 1.5)


@workload("W8", "one SGD step of a transformer encoder layer (d_model 128, 4 heads, "
                "sequence 64, batch 16)",
          needs=("nn.TransformerEncoderLayer", "optim.SGD"))
def w8(opts):
    runners = _seq_step(
        opts, lambda tm: tm.nn.TransformerEncoderLayer(128, 4, dropout=0.0, batch_first=True),
        lambda: np.random.default_rng(1).standard_normal((16, 64, 128)).astype(np.float32),
        lambda tm, m, x: m(x).pow(2).mean())
    return _step_result(opts, "W8", runners, 1.5)
