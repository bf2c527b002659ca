"""Train a small convolutional network and an LSTM on generated data, save a checkpoint,
reload it.

* The CNN classifies 12x12 images of a bar (horizontal or vertical) or a cross, drawn at
  random places under noise.
* The LSTM reads variable-length sequences of numbers, packed with
  ``nn.utils.rnn.pack_padded_sequence``, and says whether their sum is positive.

Both train with Adam over shuffled ``DataLoader`` batches, showing a progress bar (on a
terminal) and one line per epoch; then both models and the optimizers go into one checkpoint
with ``torch.save``, which is loaded back into fresh models that must score the same.

Run it with ``numtorch run examples/train_cnn_lstm.py`` (or ``python -m numtorch ...``); the
same file runs unchanged under real PyTorch, and from the same seed it prints the same losses
up to rounding. ``--quick`` trains less (for tests); ``--workers 2`` loads batches in worker
processes.
"""
import argparse
import sys
import time

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence
from torch.utils.data import DataLoader, TensorDataset


# ---- data -------------------------------------------------------------------------------------
def make_images(n, size=12):
    """n noisy images (n, 1, size, size) of three classes: 0 horizontal bar, 1 vertical bar,
    2 cross; each at a random row and column."""
    labels = torch.randint(0, 3, (n,))
    rows = torch.randint(2, size - 2, (n,))
    cols = torch.randint(2, size - 2, (n,))
    images = 0.3 * torch.rand(n, 1, size, size)
    for i in range(n):
        r, c, k = rows[i].item(), cols[i].item(), labels[i].item()
        if k in (0, 2):
            images[i, 0, r, :] += 1.0
        if k in (1, 2):
            images[i, 0, :, c] += 1.0
    return images, labels


def make_sequences(n, max_len=12):
    """n zero-padded sequences (n, max_len, 1) of 3..max_len steps, their lengths, and the
    label 1 where the sum of the steps is positive."""
    lengths = torch.randint(3, max_len + 1, (n,))
    values = torch.randn(n, max_len, 1)
    mask = (torch.arange(max_len)[None, :] < lengths[:, None]).unsqueeze(-1)
    values = values * mask
    labels = (values.sum(dim=(1, 2)) > 0).long()
    return values, lengths, labels


# ---- models -----------------------------------------------------------------------------------
class SmallCNN(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(16 * 3 * 3, classes))

    def forward(self, x):
        return self.head(self.features(x))


class SequenceClassifier(nn.Module):
    def __init__(self, hidden=16, classes=2):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)
        return self.out(h[-1])


# ---- training ---------------------------------------------------------------------------------
def progress(epoch, epochs, done, total, loss, width=24):
    """Redraw a one-line progress bar (only on a terminal)."""
    if not sys.stdout.isatty():
        return
    filled = width * done // total
    bar = "#" * filled + "." * (width - filled)
    print(f"\r  epoch {epoch}/{epochs} [{bar}] {done}/{total} loss {loss:.4f}", end="",
          flush=True)


def run_epoch(model, loader, optimizer, epoch, epochs):
    """One pass of training; returns the mean loss and the accuracy over the pass."""
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    for i, batch in enumerate(loader, 1):
        *inputs, target = batch
        optimizer.zero_grad()
        logits = model(*inputs)
        loss = nn.functional.cross_entropy(logits, target)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * len(target)
        correct += (logits.argmax(1) == target).sum().item()
        seen += len(target)
        progress(epoch, epochs, i, len(loader), total_loss / seen)
    if sys.stdout.isatty():
        print("\r", end="")
    return total_loss / seen, correct / seen


@torch.no_grad()
def accuracy(model, *inputs_and_target):
    model.eval()
    *inputs, target = inputs_and_target
    return (model(*inputs).argmax(1) == target).float().mean().item()


def train(name, model, train_set, test_set, epochs, workers):
    loader = DataLoader(train_set, batch_size=32, shuffle=True, num_workers=workers)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    history = []
    for epoch in range(1, epochs + 1):
        start = time.perf_counter()
        loss, acc = run_epoch(model, loader, optimizer, epoch, epochs)
        history.append(loss)
        test_acc = accuracy(model, *test_set.tensors)
        print(f"{name} epoch {epoch}/{epochs}: loss {loss:.4f}  train acc {acc:.3f}  "
              f"test acc {test_acc:.3f}  ({time.perf_counter() - start:.1f}s)")
    return optimizer, history


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--samples", type=int, default=512)
    parser.add_argument("--quick", action="store_true", help="2 epochs on 128 samples")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--checkpoint", default="cnn_lstm_checkpoint.pt")
    args = parser.parse_args(argv)
    if args.quick:
        args.epochs, args.samples = 2, 128

    torch.manual_seed(args.seed)
    images = TensorDataset(*make_images(args.samples))
    images_test = TensorDataset(*make_images(256))
    sequences = TensorDataset(*make_sequences(args.samples))
    sequences_test = TensorDataset(*make_sequences(256))

    cnn, rnn = SmallCNN(), SequenceClassifier()
    cnn_opt, cnn_history = train("cnn ", cnn, images, images_test, args.epochs, args.workers)
    rnn_opt, rnn_history = train("lstm", rnn, sequences, sequences_test, args.epochs,
                                 args.workers)

    torch.save({"cnn": cnn.state_dict(), "lstm": rnn.state_dict(),
                "cnn_optimizer": cnn_opt.state_dict(), "lstm_optimizer": rnn_opt.state_dict(),
                "epochs": args.epochs, "cnn_loss": cnn_history, "lstm_loss": rnn_history},
               args.checkpoint)
    print(f"saved checkpoint to {args.checkpoint}")

    checkpoint = torch.load(args.checkpoint)
    cnn2, rnn2 = SmallCNN(), SequenceClassifier()
    cnn2.load_state_dict(checkpoint["cnn"])
    rnn2.load_state_dict(checkpoint["lstm"])
    restored = torch.optim.Adam(cnn2.parameters(), lr=0.01)
    restored.load_state_dict(checkpoint["cnn_optimizer"])
    same = (accuracy(cnn2, *images_test.tensors) == accuracy(cnn, *images_test.tensors) and
            accuracy(rnn2, *sequences_test.tensors) == accuracy(rnn, *sequences_test.tensors))
    print(f"reloaded checkpoint: {checkpoint['epochs']} epochs, same test accuracy: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
