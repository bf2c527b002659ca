"""``python -m numtorch SCRIPT`` and ``numtorch run SCRIPT``: a script runs as it would under
``python SCRIPT``, with ``torch`` (and every ``torch.*`` submodule) resolved to numtorch.

Each case runs in a subprocess: the alias replaces ``torch`` in ``sys.modules``, which must
not happen inside the test process (PyTorch is the oracle here).
"""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = """
import sys
import torch
import torch.nn.functional as F
import torch.autograd.function
from torch import nn
from torch.autograd import Function
print("name:", __name__)
print("argv:", sys.argv[1:])
print("modules:", torch.__name__, F.__name__, torch.autograd.function.__name__)
print("tensor:", torch.ones(2) * 2)
print("same:", sys.modules["torch"] is torch, sys.modules["torch.nn"] is nn)
def fail():
    raise ValueError("boom")
if "raise" in sys.argv:
    fail()
if "exit" in sys.argv:
    sys.exit(3)
if "exit-msg" in sys.argv:
    sys.exit("bye")
"""


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _run(args, cwd):
    return subprocess.run([sys.executable] + args, capture_output=True, text=True,
                          env=_env(), cwd=cwd, timeout=120)


def _console(args, cwd):
    code = ("import sys; from numtorch._cli import console_main; "
            f"sys.argv = ['numtorch'] + {args!r}; console_main()")
    return _run(["-c", code], cwd)


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(SCRIPT))
    return path


def test_python_m_numtorch_runs_script_with_torch_aliased(script):
    res = _run(["-m", "numtorch", str(script), "a", "--flag"], script.parent)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        "name: __main__",
        "argv: ['a', '--flag']",
        "modules: torch torch.nn.functional torch.autograd.function",  # PyTorch's names
        "tensor: tensor([2., 2.])",
        "same: True True",
    ]
    assert res.stderr == ""


def test_numtorch_run_entry_point(script):
    res = _console(["run", str(script), "x"], script.parent)
    assert res.returncode == 0, res.stderr
    assert "argv: ['x']" in res.stdout.splitlines()


@pytest.mark.parametrize("arg, code", [("exit", 3), ("exit-msg", 1), ("raise", 1)])
def test_exit_codes_and_tracebacks_match_python(script, arg, code):
    mine = _run(["-m", "numtorch", str(script), arg], script.parent)
    assert mine.returncode == code
    if arg == "exit-msg":
        assert mine.stderr == "bye\n"
    if arg == "raise":
        # the traceback python prints for the same script without torch in it
        plain = script.parent / "plain.py"
        plain.write_text("def fail():\n    raise ValueError('boom')\nfail()\n")
        ref = _run([str(plain)], script.parent)
        assert mine.stderr.startswith("Traceback (most recent call last):\n")
        assert mine.stderr.splitlines()[-1] == ref.stderr.splitlines()[-1] == "ValueError: boom"
        assert "numtorch" not in mine.stderr and "runpy" not in mine.stderr
        assert f'File "{script}", line 14, in fail' in mine.stderr


def test_traceback_identical_to_python_for_plain_script(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("import sys\nprint('out')\ndef f(x):\n    return {}[x]\nf('k')\n")
    mine = _run(["-m", "numtorch", str(path)], tmp_path)
    ref = _run([str(path)], tmp_path)
    assert (mine.returncode, mine.stdout, mine.stderr) == (ref.returncode, ref.stdout, ref.stderr)


def test_missing_torch_submodule_import_error(tmp_path):
    path = tmp_path / "missing.py"
    path.write_text("import torch.nonexistent_submodule\n")
    res = _run(["-m", "numtorch", str(path)], tmp_path)
    assert res.returncode == 1
    assert res.stderr.splitlines()[-1] == (
        "ModuleNotFoundError: numtorch does not provide torch.nonexistent_submodule (yet)")
    assert "_cli.py" not in res.stderr  # no frames of the import hook


def test_missing_submodule_is_catchable_import_error(tmp_path):
    path = tmp_path / "guard.py"
    path.write_text(textwrap.dedent("""
        try:
            from torch import nonexistent_submodule
        except ImportError as e:
            print("ImportError:", e)
        try:
            import torch.nonexistent_submodule
        except ImportError as e:
            print("ImportError:", type(e).__name__)
        import torch
        print(hasattr(torch, "nonexistent_name"))
    """))
    res = _run(["-m", "numtorch", str(path)], tmp_path)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith("ImportError:") and "nonexistent_submodule" in lines[0]
    assert lines[1:] == ["ImportError: ModuleNotFoundError", "False"]


def test_script_dir_on_path_and_file_set(tmp_path):
    (tmp_path / "helper_mod.py").write_text("VALUE = 42\n")
    path = tmp_path / "main.py"
    path.write_text("import helper_mod, os\nprint(helper_mod.VALUE, os.path.basename(__file__))\n")
    res = _run(["-m", "numtorch", str(path)], ROOT)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "42 main.py\n"


def test_usage_and_missing_file(tmp_path):
    res = _run(["-m", "numtorch"], tmp_path)
    assert res.returncode == 2 and "usage: numtorch run SCRIPT" in res.stdout
    res = _run(["-m", "numtorch", str(tmp_path / "nope.py")], tmp_path)
    assert res.returncode == 2
    assert res.stderr == (f"numtorch: can't open file '{tmp_path / 'nope.py'}': [Errno 2] No "
                          "such file or directory\n")
    res = _console([], tmp_path)
    assert res.returncode == 2 and "usage:" in res.stderr
    res = _console(["run"], tmp_path)
    assert res.returncode == 2


def test_tensor_and_size_type_names(tmp_path):
    path = tmp_path / "types.py"
    path.write_text("import torch, pickle\nx = torch.ones(2)\nprint(type(x), type(x.shape))\n"
                    "print(pickle.loads(pickle.dumps(x.shape)))\n")
    mine = _run(["-m", "numtorch", str(path)], tmp_path)
    assert mine.stdout == _run([str(path)], tmp_path).stdout


def test_relative_script_path_like_python(tmp_path):
    """``__file__`` and traceback paths are absolute, ``sys.argv[0]`` stays as typed."""
    (tmp_path / "rel.py").write_text(
        "import sys\nprint(__file__, sys.argv[0], __name__, __spec__)\nraise KeyError('k')\n")
    mine = _run(["-m", "numtorch", "rel.py"], tmp_path)
    ref = _run(["rel.py"], tmp_path)
    assert (mine.returncode, mine.stdout, mine.stderr) == (ref.returncode, ref.stdout, ref.stderr)
