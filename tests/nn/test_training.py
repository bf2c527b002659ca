"""End to end: the same seeded CNN / LSTM training (DataLoader shuffle, dropout, BatchNorm,
Adam, a scheduler) gives PyTorch's loss curve to 1e-4."""
import numpy as np

import numtorch


def _cnn_run(lib, epochs=3):
    nn = lib.nn
    lib.manual_seed(0)
    x = lib.randn(48, 1, 8, 8)
    y = (x.mean((1, 2, 3)) > 0).long() + (x[:, 0, 0, 0] > 1).long()
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Conv2d(4, 6, 3), nn.ReLU(), nn.Dropout(0.2),
                          nn.Flatten(), nn.Linear(24, 3))
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.7)
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x, y), batch_size=16,
                                       shuffle=True)
    losses = []
    for _ in range(epochs):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        sched.step()
    model.eval()
    with lib.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    return losses, acc


def test_cnn_loss_curve_matches_torch(torch):
    mine, ref = _cnn_run(numtorch), _cnn_run(torch)
    np.testing.assert_allclose(mine[0], ref[0], rtol=1e-4, atol=1e-5)
    assert abs(mine[1] - ref[1]) < 1e-6


def _lstm_run(lib, steps=8):
    lib.manual_seed(1)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = lib.nn.Embedding(10, 4)
            self.lstm = lib.nn.LSTM(4, 6, batch_first=True)
            self.head = lib.nn.Linear(6, 2)

        def forward(self, tokens):
            out, _ = self.lstm(self.emb(tokens))
            return self.head(out[:, -1])

    net = Net()
    tokens, labels = lib.randint(0, 10, (12, 5)), lib.randint(0, 2, (12,))
    opt = lib.optim.RMSprop(net.parameters(), lr=0.01)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(net(tokens), labels)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    return losses


def test_lstm_loss_curve_matches_torch(torch):
    np.testing.assert_allclose(_lstm_run(numtorch), _lstm_run(torch), rtol=1e-4, atol=1e-5)
