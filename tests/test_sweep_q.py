"""Regression tests from the sweep of script idioms around the math (sweep Q): version
comparisons, CUDA queries on a CPU build, thread and determinism settings, the deprecated
default tensor type, torch.compile's output node, torch.jit and torch.hub, against PyTorch."""
import os
import subprocess
import sys
import textwrap
import warnings

import pytest

import numtorch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _outcome(fn):
    """What ``fn()`` gives: its value's repr, or the exception's type name and message."""
    try:
        return repr(fn())
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e)


# ---- torch.__version__ is PyTorch's TorchVersion ------------------------------------------
def test_version_string_and_comparisons(torch):
    from numtorch.version import TorchVersion
    assert str(numtorch.__version__) == str(torch.__version__)
    assert type(numtorch.__version__).__name__ == "TorchVersion"
    others = ["2.0", "2.13", "2.13.0", "2.13.0+cpu", "2.13.1", "2.14.0a0", "3", "10.0",
              "parrot", (2, 0), (2, 13), (2, 13, 0), [2, 14], (1,)]
    for other in others:
        for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
            assert getattr(numtorch.__version__, op)(other) == \
                getattr(torch.__version__, op)(other), (other, op)
    assert hash(numtorch.__version__) == hash("2.13.0+cpu")
    for a, b in [("1.10.0", "1.9"), ("1.0.dev0", "1.0a1"), ("1.0rc1", "1.0"),
                 ("1.0", "1.0+cu118"), ("1.0+cu118", "1.0.post1"), ("2.0.0a0+git1", "2.0")]:
        assert (TorchVersion(a) < b) == (torch.torch_version.TorchVersion(a) < b), (a, b)


def test_version_against_packaging_version_is_a_type_error(torch):
    version = pytest.importorskip("packaging.version")
    for lib in (numtorch, torch):
        with pytest.raises(TypeError, match="'>=' not supported between instances of "
                                            "'TorchVersion' and 'Version'"):
            lib.__version__ >= version.parse("2.0")  # noqa: B015
    assert version.parse(numtorch.__version__) == version.parse(torch.__version__)


# ---- torch.cuda on a CPU build --------------------------------------------------------------
@pytest.mark.parametrize("name", ["memory_allocated", "max_memory_allocated", "memory_reserved",
                                  "max_memory_reserved", "memory_stats", "is_bf16_supported",
                                  "get_arch_list", "seed", "seed_all", "get_rng_state_all",
                                  "initial_seed", "get_rng_state", "get_device_properties",
                                  "get_device_capability", "mem_get_info", "init",
                                  "current_stream", "ipc_collect"])
def test_cuda_queries_without_cuda(torch, name):
    ours = _outcome(getattr(numtorch.cuda, name))
    theirs = _outcome(getattr(torch.cuda, name))
    assert ours == theirs


def test_cuda_legacy_tensor_types(torch):
    x, t = numtorch.ones(2), torch.ones(2)
    for name in ["FloatTensor", "LongTensor", "BoolTensor"]:
        ours, theirs = getattr(numtorch.cuda, name), getattr(torch.cuda, name)
        assert repr(ours) == repr(theirs) and repr(type(ours)) == repr(type(theirs))
        assert ours.is_cuda is True and theirs.is_cuda is True
        assert repr(ours.dtype) == repr(theirs.dtype)
        assert isinstance(x, ours) is isinstance(t, theirs) is False
        assert _outcome(lambda: ours([1])) == _outcome(lambda: theirs([1]))
        assert _outcome(lambda: x.type(ours)) == _outcome(lambda: t.type(theirs))
        assert _outcome(lambda: x.type(f"torch.cuda.{name}")) == \
            _outcome(lambda: t.type(f"torch.cuda.{name}"))


# ---- threads, determinism, matmul precision -------------------------------------------------
def test_interop_threads_contract(torch):
    from numtorch import _threads
    _threads._reset()
    try:
        assert numtorch.get_num_interop_threads() == _threads.default_num_threads()
        for bad in (0, -1, 2.5):
            assert _outcome(lambda: numtorch.set_num_interop_threads(bad)) == \
                ("RuntimeError", "set_num_interop_threads expects "
                 + ("an int, but got float" if bad == 2.5 else "a positive integer"))
        numtorch.set_num_interop_threads(3)
        assert numtorch.get_num_interop_threads() == 3
        assert _outcome(lambda: numtorch.set_num_interop_threads(2)) == (
            "RuntimeError", "Error: cannot set number of interop threads after parallel work "
            "has started or set_num_interop_threads called")
    finally:
        _threads._reset()


def test_deterministic_algorithms_flags(torch):
    def states(lib):
        out = [lib.are_deterministic_algorithms_enabled()]
        try:
            for mode, warn_only in [(True, False), (True, True), (False, True)]:
                lib.use_deterministic_algorithms(mode, warn_only=warn_only)
                out.append((lib.are_deterministic_algorithms_enabled(),
                            lib.is_deterministic_algorithms_warn_only_enabled(),
                            lib.get_deterministic_debug_mode()))
            out.append(_outcome(lambda: lib.use_deterministic_algorithms("x")))
            out.append(_outcome(lambda: lib.use_deterministic_algorithms(True, warn_only=1)))
        finally:
            lib.use_deterministic_algorithms(False)
        return out
    assert states(numtorch) == states(torch)


def test_float32_matmul_precision_and_allow_tf32(torch):
    def states(lib):
        out = [lib.get_float32_matmul_precision(), lib.backends.cuda.matmul.allow_tf32]
        try:
            lib.backends.cuda.matmul.allow_tf32 = True
            out.append(lib.get_float32_matmul_precision())
            lib.set_float32_matmul_precision("medium")
            out.append((lib.get_float32_matmul_precision(), lib.backends.cuda.matmul.allow_tf32))
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                lib.set_float32_matmul_precision("x")
            out.append((lib.get_float32_matmul_precision(), [str(i.message) for i in w]))
        finally:
            lib.set_float32_matmul_precision("highest")
        return out
    assert states(numtorch) == states(torch)


def test_no_get_printoptions_in_namespace(torch):
    assert hasattr(numtorch, "get_printoptions") is hasattr(torch, "get_printoptions")


# ---- the deprecated set_default_tensor_type -------------------------------------------------
def test_set_default_tensor_type(torch):
    def run(lib):
        out = []
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                for t in [lib.IntTensor, lib.float64, lib.cuda.FloatTensor, lib.DoubleTensor,
                          "torch.FloatTensor", "torch.DoubleTensor"]:
                    out.append(_outcome(lambda: lib.set_default_tensor_type(t)))
                    out.append(lib.tensor([1.5]).dtype)
            out.append(sorted({(i.category.__name__, str(i.message)) for i in w}))
        finally:
            lib.set_default_dtype(lib.float32)
        return [str(o) for o in out]
    assert run(numtorch) == run(torch)


# ---- torch.compile: outputs come from one CompiledFunctionBackward node ----------------------
# (PyTorch's own global-hook registry keeps an entry after a with_kwargs hook is removed, so
# after tests/nn/test_modules.py its torch.compile warns of global hooks that are gone)
@pytest.mark.filterwarnings("ignore:Using `torch.compile\\(module\\)` when there are global hooks")
@pytest.mark.parametrize("backend", ["aot_eager", "eager"])
def test_compile_outputs_grad_fn(torch, backend):
    # (aot_eager runs AOTAutograd as the default inductor does, without a C compiler)
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Tanh())
        cm = lib.compile(model, backend=backend)
        x = lib.randn(4, 3)
        y = cm(x)
        y.sum().backward()
        a = lib.ones(2, requires_grad=True)
        fn = lib.compile(lambda p, q: (p * q, p + 1, p[0], p.view(2)), backend=backend)
        outs = fn(a, lib.full((2,), 3.0))
        sum(o.sum() for o in outs).backward()
        with lib.no_grad():
            plain = cm(x)
        return [repr(y), repr(model[0].weight.grad), [repr(o) for o in outs], repr(a.grad),
                repr(plain), fn.__name__]
    assert run(numtorch) == run(torch)


def test_compile_output_changed_in_place_keeps_gradient_right(torch):
    def run(lib):
        w = lib.tensor([2.0, 3.0], requires_grad=True)
        y = lib.compile(lambda t: t * t, backend="aot_eager")(w)
        y.mul_(2)
        y.sum().backward()
        return repr(w.grad)
    assert run(numtorch) == run(torch)


# ---- torch.jit and torch.hub ----------------------------------------------------------------
def test_jit_functions_run_eagerly(torch):
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = body(lib)
        # (PyTorch's trace warns twice on its way in; the warnings themselves are the same)
        return result + [sorted({(w.category.__name__, str(w.message)) for w in caught})]

    def body(lib):
        def f(x, n: int):
            for _ in range(n):
                x = x * 2
            return x
        sf = lib.jit.script(f)
        tf = lib.jit.trace(lambda x: x + 1, lib.ones(2))
        return [repr(sf(lib.ones(2), 3)), repr(tf(lib.zeros(3))), type(sf).__name__,
                lib.jit.is_scripting(), lib.jit.is_tracing(), lib.jit.annotate(int, 3),
                repr(lib.jit.ignore(lambda x: x - 1)(lib.ones(1)))]
    assert run(numtorch) == run(torch)


def test_jit_unsupported_parts_name_themselves():
    with pytest.raises(NotImplementedError, match="torch.jit.script for modules"), \
            pytest.warns(DeprecationWarning):
        numtorch.jit.script(numtorch.nn.Linear(2, 2))
    with pytest.raises(NotImplementedError, match="torch.jit.trace for modules"), \
            pytest.warns(DeprecationWarning):
        numtorch.jit.trace(numtorch.nn.Linear(2, 2), numtorch.ones(1, 2))
    with pytest.raises(NotImplementedError, match="torch.jit.load"):
        numtorch.jit.load("model.pt")
    with pytest.raises(NotImplementedError, match="TorchScript graphs"), \
            pytest.warns(DeprecationWarning):
        numtorch.jit.script(lambda x: x).graph  # noqa: B018


def test_hub(torch, monkeypatch, tmp_path):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    assert numtorch.hub.get_dir() == torch.hub.get_dir() == str(tmp_path / "hub")
    with pytest.raises(RuntimeError, match="torch.hub.load"):
        numtorch.hub.load("pytorch/vision", "resnet18", pretrained=True)
    with pytest.raises(RuntimeError, match="load_state_dict_from_url"):
        numtorch.hub.load_state_dict_from_url("https://example.com/w.pth")


# ---- `numtorch run`: version line and a version check in a script --------------------------
def test_script_printing_and_comparing_version(tmp_path):
    script = tmp_path / "v.py"
    script.write_text(textwrap.dedent("""
        import torch
        print(torch.__version__, torch.__version__ >= "2.0", torch.__version__ > (2, 9))
        print(type(torch.__version__).__name__, torch.version.__version__ is torch.__version__)
    """))
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-m", "numtorch", str(script)], capture_output=True,
                         text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == ["2.13.0+cpu True True", "TorchVersion True"]
    res = subprocess.run([sys.executable, "-m", "numtorch", "--version"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert res.stdout == "numtorch (follows PyTorch 2.13.0+cpu)\n"
