"""``torch.hub``: where PyTorch keeps downloaded models, and a clear error for downloading.

numtorch runs no model code from the network: ``torch.hub.load``, ``list``, ``help``,
``load_state_dict_from_url`` and ``download_url_to_file`` raise a RuntimeError (the type
PyTorch raises when the hub cannot be reached). The cache directory functions behave as
PyTorch's.

>>> import numtorch as torch
>>> torch.hub.get_dir().endswith("hub")
True
"""
import os

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load",
           "load_state_dict_from_url", "set_dir"]

_state = {"dir": None}


def _torch_home():
    cache = os.getenv("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(cache, "torch")))


def get_dir():
    """The hub cache directory: ``set_dir``'s, else ``$TORCH_HOME/hub`` (default
    ``~/.cache/torch/hub``)."""
    if _state["dir"] is not None:
        return _state["dir"]
    return os.path.join(_torch_home(), "hub")


def set_dir(d):
    """Use ``d`` (a path) as the hub cache directory."""
    _state["dir"] = os.path.expanduser(d)


def _unsupported(name):
    raise RuntimeError(f"numtorch does not provide torch.hub.{name}: it cannot download or run "
                       "model code from the hub; build the model yourself and load its "
                       "weights from a local file with torch.load")


def load(repo_or_dir, model, *args, **kwargs):
    _unsupported("load")


def list(github, force_reload=False, skip_validation=False, trust_repo=None, verbose=True):
    _unsupported("list")


def help(github, model, force_reload=False, skip_validation=False, trust_repo=None):
    _unsupported("help")


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    _unsupported("load_state_dict_from_url")


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    _unsupported("download_url_to_file")
