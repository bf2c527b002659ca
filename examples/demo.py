"""numtorch demo: a custom autograd Function, checked and trained.

Defines ``SquarePlus`` (a smooth ReLU, ``(x + sqrt(x*x + b)) / 2``) as a custom
``torch.autograd.Function`` with a hand-written backward, verifies that backward against
finite differences, then trains a two-layer network that uses it to fit ``y = sin(3x)``.

Run it with ``numtorch run examples/demo.py`` (or ``python -m numtorch examples/demo.py``);
the same file runs unchanged under real PyTorch.
"""
import torch


class SquarePlus(torch.autograd.Function):
    """y = (x + sqrt(x^2 + b)) / 2;  dy/dx = (1 + x / sqrt(x^2 + b)) / 2."""

    @staticmethod
    def forward(ctx, x, b):
        root = torch.sqrt(x * x + b)
        ctx.save_for_backward(x, root)
        return 0.5 * (x + root)

    @staticmethod
    def backward(ctx, grad_output):
        x, root = ctx.saved_tensors
        return grad_output * 0.5 * (1 + x / root), None


class Net(torch.nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.randn(1, hidden))
        self.b1 = torch.nn.Parameter(torch.zeros(hidden))
        self.w2 = torch.nn.Parameter(torch.randn(hidden, 1) / hidden ** 0.5)
        self.b2 = torch.nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return SquarePlus.apply(x @ self.w1 + self.b1, 1.0) @ self.w2 + self.b2


def check_backward():
    """Compare the hand-written backward with central differences in float64."""
    x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
    SquarePlus.apply(x, 1.0).sum().backward()
    eps = 1e-6
    with torch.no_grad():
        numeric = (SquarePlus.apply(x + eps, 1.0) - SquarePlus.apply(x - eps, 1.0)) / (2 * eps)
    err = (x.grad - numeric).abs().max().item()
    print(f"backward vs finite differences: max error {err:.2e}")


def train(steps=300, lr=0.05):
    torch.manual_seed(0)
    x = torch.linspace(-1, 1, 64).unsqueeze(1)
    y = torch.sin(3 * x)
    model = Net()
    print(model)
    for step in range(steps + 1):
        loss = ((model(x) - y) ** 2).mean()
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
        if step % 50 == 0:
            print(f"step {step:3d}  loss {loss.item():.5f}")
    print("last layer grad_fn:", model(x).grad_fn.name())


if __name__ == "__main__":
    check_backward()
    train()
