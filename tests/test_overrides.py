"""Tensor subclasses and the ``__torch_function__`` protocol (numtorch/overrides.py).

Defining a dispatching subclass switches the public functions to dispatching wrappers for the
rest of the process, so each case runs as a script in a subprocess: under numtorch
(``python -m numtorch``) and under PyTorch, whose stdout must be the same.
"""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SUBCLASS = """
import torch
class T(torch.Tensor):
    pass
a = torch.ones(2).as_subclass(T)
print(type(a).__name__, a, repr(a + 1), type(torch.add(a, 1)).__name__)
print(type(a[0]).__name__, a.max(0), type(torch.cat([a, torch.ones(2)])).__name__)
print([type(q).__name__ for q in a.split(1)], type(a.view(2, 1)).__name__, a.shape)
print(type(torch.ones(2) + a).__name__, type(a.add_(1)).__name__, a, a.tolist())
x = torch.ones(2, requires_grad=True)
s = x.as_subclass(T)
print(s.requires_grad, s.is_leaf, s._base is x, s.grad_fn.name())
y = (s * 2).sum()
print(y)
y.backward()
print(x.grad)
g = torch.arange(2.).as_subclass(T).requires_grad_()
(g * g).sum().backward()
print(g.grad, type(g.grad).__name__)  # (.grad is not converted)
t2 = torch.Tensor._make_subclass(T, torch.ones(3), True)
print(t2, t2.is_leaf, type(T([1., 2.])).__name__)
p = torch.nn.Parameter(torch.ones(2))
print(type(p * 2).__name__, type(p.as_subclass(T) * 2).__name__)
class V(torch.Tensor):
    pass
v = torch.ones(2).as_subclass(V)
for f in (lambda: a - v, lambda: a < v, lambda: torch.add(v, a),
          lambda: torch.ones(2).as_subclass(int), lambda: f"{a[0]:.2f}",
          lambda: __import__("copy").deepcopy(a)):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
"""

LOGGING = """
import torch
class LoggingTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is not torch.Tensor.__repr__:
            print("func:", func.__name__, [t.__name__ for t in types])
        return super().__torch_function__(func, types, args, kwargs or {})
x = torch.arange(6.).reshape(2, 3).as_subclass(LoggingTensor)
y = x * 2 + 1
z = torch.relu(1 - y).sum(dim=1)
print(z, x.shape, x.dtype, len(x), list(x[0]))
w = torch.nn.functional.softmax(x, dim=-1)
m = x.max(dim=1)
print(type(w).__name__, type(m.values).__name__, m.indices.tolist(), x / 2, 2 / x)
x[0, 0] = 5.
print(x.sum().item(), float(x[0, 0]))
with torch._C.DisableTorchFunctionSubclass():
    q = x + 1
print(type(q).__name__)
"""

TENSOR_LIKE = """
import functools
import torch
HANDLED_FUNCTIONS = {}
class ScalarTensor(object):
    def __init__(self, N, value):
        self._N, self._value = N, value
    def __repr__(self):
        return "ScalarTensor(N={}, value={})".format(self._N, self._value)
    def tensor(self):
        return self._value * torch.eye(self._N)
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func not in HANDLED_FUNCTIONS or not all(
                issubclass(t, (torch.Tensor, ScalarTensor)) for t in types):
            return NotImplemented
        return HANDLED_FUNCTIONS[func](*args, **(kwargs or {}))
def implements(torch_function):
    def decorator(func):
        functools.update_wrapper(func, torch_function)
        HANDLED_FUNCTIONS[torch_function] = func
        return func
    return decorator
@implements(torch.mean)
def mean(input):
    return float(input._value) / input._N
@implements(torch.add)
def add(input, other):
    if isinstance(other, ScalarTensor):
        return ScalarTensor(input._N, input._value + other._value)
    return torch.add(input.tensor(), other)
d = ScalarTensor(2, 2)
print(torch.mean(d), torch.add(d, d), torch.add(d, torch.ones(2, 2)))
try:
    torch.mul(d, 3)
except TypeError as e:
    print(e)
o = torch.overrides
print(o.is_tensor_like(d), o.is_tensor_like(torch.ones(1)), o.is_tensor_like(3))
print(o.has_torch_function((d,)), o.has_torch_function((torch.ones(1),)), mean.__name__)
"""

MODE = """
import torch
from torch.overrides import TorchFunctionMode
class M(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        print("mode:", func.__name__)
        return func(*args, **(kwargs or {}))
x = torch.ones(2)
with M():
    y = torch.add(x, 1)
    z = x.mul(3)
    w = x + y
print(y, z, w, type(x + 1).__name__)
"""

# the parser's errors for a bad call, whether it goes through dispatch or not (the wrappers'
# frames must not stand in for the user's call)
PARSER_ERRORS = """
import torch
class T(torch.Tensor):
    pass
class Logging(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)
a, b = torch.ones(2, 2).as_subclass(T), torch.ones(2, 2).as_subclass(Logging)
for f in (lambda: torch.sum(torch.ones(2), keepdim=True), lambda: a.sum(keepdim=True),
          lambda: torch.sum(a, keepdim=True), lambda: b.sum(keepdim=True),
          lambda: torch.ones(2, 2).transpose(0, 1.5), lambda: a.transpose(0, 1.5),
          lambda: torch.transpose(b, 0, 1.5)):
    try:
        print(f())
    except TypeError as e:
        print(e)
"""


def _run(args, path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    res = subprocess.run([sys.executable] + args + [str(path)], capture_output=True, text=True,
                         env=env, cwd=str(path.parent), timeout=120)
    return res.stdout + (f"\n[exit {res.returncode}] {res.stderr[-600:]}" if res.returncode
                         else "")


@pytest.mark.parametrize("source", [SUBCLASS, LOGGING, TENSOR_LIKE, MODE, PARSER_ERRORS],
                         ids=["subclass", "logging", "tensor_like", "mode", "parser_errors"])
def test_script_prints_as_pytorch(source, tmp_path):
    pytest.importorskip("torch")
    path = tmp_path / "case.py"
    path.write_text(textwrap.dedent(source))
    assert _run(["-m", "numtorch"], path) == _run([], path)


def test_plain_tensor_class_keeps_its_methods():
    # defining a dispatching subclass must not put wrappers on Tensor itself
    import numtorch
    before = dict(vars(numtorch.Tensor))
    code = ("import numtorch as torch\nclass T(torch.Tensor): pass\n"
            "assert torch.Tensor.__add__.__name__ == 'add'\n"
            "assert 'add' in vars(T) and not isinstance(torch.nn.Parameter(torch.ones(1)) * 2,"
            " T)\nprint(type(torch.ones(1).as_subclass(T) * 2).__name__)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    assert res.stdout.strip() == "T", res.stderr
    assert dict(vars(numtorch.Tensor)) == before
