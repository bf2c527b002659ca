"""``torch.optim.swa_utils`` against PyTorch: averaged parameters and buffers, SWALR's lrs,
update_bn's running statistics."""
import numpy as np
import pytest

import numtorch
from helpers import check_error


def _run(lib, kind):
    lib.manual_seed(0)
    nn = lib.nn
    su = lib.optim.swa_utils
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
    avg = {"swa": lambda: su.AveragedModel(model),
           "ema_multi": lambda: su.AveragedModel(model,
                                                 multi_avg_fn=su.get_ema_multi_avg_fn(0.9)),
           "ema_buffers": lambda: su.AveragedModel(model, avg_fn=su.get_ema_avg_fn(0.8),
                                                   use_buffers=True)}[kind]()
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    sched = su.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear")
    x, y = lib.randn(20, 3), lib.randn(20, 1)
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x, y), batch_size=5)
    lrs = []
    for _ in range(4):
        for xb, yb in loader:
            opt.zero_grad()
            nn.functional.mse_loss(model(xb), yb).backward()
            opt.step()
        avg.update_parameters(model)
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    su.update_bn(loader, avg)
    state = {k: v.numpy().copy() for k, v in avg.state_dict().items()}
    return lrs, state, repr(avg)


@pytest.mark.parametrize("kind", ["swa", "ema_multi", "ema_buffers"])
def test_averaged_model_matches_torch(torch, kind):
    (lr_m, st_m, rep_m), (lr_r, st_r, rep_r) = _run(numtorch, kind), _run(torch, kind)
    assert lr_m == pytest.approx(lr_r, rel=1e-12) and rep_m == rep_r
    assert list(st_m) == list(st_r)
    for k in st_r:
        np.testing.assert_allclose(st_m[k], st_r[k], rtol=1e-5, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("strategy,epochs", [("cos", 4), ("linear", 0), ("cos", 1)])
def test_swalr_schedule(torch, strategy, epochs):
    def run(lib):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=1.0)
        s = lib.optim.swa_utils.SWALR(opt, swa_lr=[0.1], anneal_epochs=epochs,
                                      anneal_strategy=strategy)
        out = []
        for _ in range(8):
            opt.step()
            s.step()
            out.append(s.get_last_lr()[0])
        return out
    assert run(numtorch) == pytest.approx(run(torch), rel=1e-12)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))]), 0.1,
                                          anneal_strategy="exp"),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))]), 0.1,
                                          anneal_epochs=-1),
    lambda lib: lib.optim.swa_utils.get_ema_avg_fn(1.5),
])
def test_errors(fn):
    check_error(fn)
