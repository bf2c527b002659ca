"""``numtorch run SCRIPT [ARGS]`` and ``python -m numtorch SCRIPT [ARGS]``.

The script runs as ``__main__`` with ``torch`` and every ``torch.*`` submodule resolved to
numtorch's, even where PyTorch is installed.

Processes the script starts see the same ``torch``. A forked child inherits the alias. A
"spawn" or "forkserver" child is a fresh interpreter: multiprocessing sends it a pickled dict
of preparation data (``sys.path``, ``sys.argv``, the working directory, the script's path),
which the child applies, re-running the script as ``__mp_main__``, before it unpickles the
Process and its target. While a script runs here, that dict carries one more entry, whose
unpickling installs the alias in the child first (see :func:`_alias_children`); the child's
``import torch`` then gives numtorch, and so do its own spawned children. A program that
imports numtorch as itself starts its children unchanged.
"""
import builtins
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import traceback
import types

ALIAS, TARGET = "torch", "numtorch"

USAGE = """usage: numtorch run SCRIPT [ARGS ...]
       python -m numtorch SCRIPT [ARGS ...]

Run a PyTorch script with `import torch` resolved to numtorch."""


class _AliasLoader(importlib.abc.Loader):
    """Hands out the already-imported numtorch module for a ``torch`` name."""

    def __init__(self, module):
        self.module = module
        self.real_spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # module_from_spec() replaced __spec__ with the alias spec: restore the real one
        if self.real_spec is not None:
            module.__spec__ = self.real_spec


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``torch`` and ``torch.x.y`` to ``numtorch`` and ``numtorch.x.y``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        real = TARGET + fullname[len(ALIAS):]
        module = _import_real(real, fullname)
        # importing numtorch.x just published it as torch.x; were the entry left, the import
        # system would load torch.x again from numtorch.x's spec: the alias loader sets it
        if sys.modules.get(fullname) is module:
            del sys.modules[fullname]
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))


def _import_real(real, fullname):
    try:
        return importlib.import_module(real)
    except ModuleNotFoundError as e:
        if e.name != real and not real.startswith(str(e.name) + "."):
            raise
    parent, _, child = real.rpartition(".")
    obj = getattr(importlib.import_module(parent), child, None) if parent else None
    if obj is not None and type(obj).__name__ == "module":
        return obj
    raise ModuleNotFoundError(f"numtorch does not provide {fullname} (yet)", name=fullname)


def _publish(module):
    """Show numtorch module ``numtorch.x`` as PyTorch's ``torch.x``: its ``__name__`` (what
    ``torch.nn.__name__`` prints) and a ``sys.modules`` entry, where ``inspect.getmodule``
    finds the module of a class whose ``__module__`` reads ``torch.x``.

    Only ``__name__`` changes: ``__spec__`` and ``__package__`` keep numtorch's names, so
    relative imports and ``importlib.reload`` work as before; the functions and classes
    the module defined keep the ``__module__`` they were made with (see numtorch/_naming.py).
    """
    name = getattr(module, "__name__", None)
    if isinstance(name, str) and (name == TARGET or name.startswith(TARGET + ".")):
        public = ALIAS + name[len(TARGET):]
        module.__name__ = public
        sys.modules.setdefault(public, module)


class _PublishingLoader(importlib.machinery.SourceFileLoader):
    """Loads a numtorch module as usual, then shows it as PyTorch's (:func:`_publish`)."""

    def exec_module(self, module):
        super().exec_module(module)
        _publish(module)


class _PublishingFinder(importlib.abc.MetaPathFinder):
    """Finds ``numtorch.*`` modules imported after the alias was installed (lazy submodules,
    imports inside functions) as the path finder does, with a :class:`_PublishingLoader`."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(TARGET + "."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and type(spec.loader) is importlib.machinery.SourceFileLoader:
            spec.loader = _PublishingLoader(spec.loader.name, spec.loader.path)
        return spec


def install_alias():
    """Make ``import torch`` give numtorch in this interpreter (idempotent)."""
    for name in [m for m in sys.modules if m == ALIAS or m.startswith(ALIAS + ".")]:
        del sys.modules[name]
    if not any(isinstance(f, TorchAliasFinder) for f in sys.meta_path):
        sys.meta_path[:0] = [_PublishingFinder(), TorchAliasFinder()]
    import numtorch  # noqa: F401  (Tensor, Size, device ... print as torch's everywhere)
    from numtorch._naming import use_torch_names_everywhere
    use_torch_names_everywhere()  # optimizers, DataLoader, no_grad ... too
    for module in [m for n, m in list(sys.modules.items()) if n.startswith(TARGET)]:
        _publish(module)


def _install_alias_in_child(dispatch):
    """Run in a spawned child as its preparation data is unpickled: ``torch`` is numtorch
    there before the script is re-run, with ``__torch_function__`` dispatch as the parent
    had it; returns the (ignored) value of the entry."""
    install_alias()
    _alias_children()
    if dispatch:
        from numtorch.overrides import enable_dispatch
        enable_dispatch()


class _AliasInChild:
    """The entry :func:`_alias_children` adds to multiprocessing's preparation data; it
    pickles as a call of :func:`_install_alias_in_child` (multiprocessing ignores the keys it
    does not know, and unpickles the whole dict before applying any of it)."""

    def __reduce__(self):
        from numtorch.overrides import _ENABLED
        return _install_alias_in_child, (bool(_ENABLED),)


def _alias_children():
    """Make children started by "spawn" or "forkserver" resolve ``torch`` to numtorch too
    (idempotent): every context's Popen builds their preparation data with
    ``multiprocessing.spawn.get_preparation_data``, which gets the alias entry here.

    NOTE: the child must find numtorch on its initial ``sys.path`` (installed, on
    PYTHONPATH, or in its working directory) as it must find the script's own modules.
    """
    from multiprocessing import spawn
    plain = spawn.get_preparation_data
    if getattr(plain, "_numtorch_alias", False):
        return

    def get_preparation_data(name):
        data = plain(name)
        data["numtorch_torch_alias"] = _AliasInChild()
        return data

    get_preparation_data.__doc__ = plain.__doc__
    get_preparation_data._numtorch_alias = True
    spawn.get_preparation_data = get_preparation_data


def run_script(path, args):
    """Run ``path`` as ``__main__`` like ``python path args`` would; return the exit code."""
    if not os.path.exists(path):
        print(f"numtorch: can't open file '{path}': [Errno 2] No such file or directory",
              file=sys.stderr)
        return 2
    install_alias()
    _alias_children()
    sys.argv = [path] + list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        _run_main(path)
    except SystemExit:
        raise
    except BaseException as e:  # print like the interpreter, without our own frames
        tb = e.__traceback__
        while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != \
                os.path.abspath(path):
            tb = tb.tb_next
        report = traceback.TracebackException(type(e), e, tb or e.__traceback__)
        _drop_own_frames(report)
        print("".join(report.format()), end="", file=sys.stderr)
        return 1
    return 0


def _run_main(path):
    """Execute ``path`` as the ``__main__`` module, as the interpreter does: ``__file__`` and
    code filenames are absolute while ``sys.argv[0]`` stays as typed."""
    full = os.path.abspath(path)
    with open(full, "rb") as f:
        source = f.read()
    code = compile(source, full, "exec")
    if b"__torch_function__" in source:  # a Tensor-like class may reach torch functions
        from numtorch.overrides import enable_dispatch
        enable_dispatch()
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=full, __cached__=None, __spec__=None,
                         __loader__=None, __package__=None, __builtins__=builtins)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _drop_own_frames(report):
    """Remove this module's frames (the torch import hook) from a traceback and its causes,
    as Python hides its own import machinery."""
    me = os.path.abspath(__file__)
    seen = set()
    while report is not None and id(report) not in seen:
        seen.add(id(report))
        report.stack = traceback.StackSummary.from_list(
            [f for f in report.stack if os.path.abspath(f.filename) != me])
        report = report.__cause__ or report.__context__


def main(argv=None):
    """Entry point of ``python -m numtorch`` (argv: SCRIPT [ARGS])."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    if argv[0] == "--version":
        from . import __version__  # PyTorch's version string, which numtorch follows
        print(f"numtorch (follows PyTorch {__version__})")
        return 0
    return run_script(argv[0], argv[1:])


def console_main():
    """Entry point of the ``numtorch`` command: ``numtorch run SCRIPT [ARGS]``."""
    argv = sys.argv[1:]
    if argv and argv[0] == "run":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            sys.exit(2)
        sys.exit(run_script(argv[1], argv[2:]))
    if argv and argv[0] in ("--version", "-h", "--help"):
        sys.exit(main(argv))
    print(USAGE, file=sys.stderr)
    sys.exit(2)
