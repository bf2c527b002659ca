"""``torch.version``: the PyTorch version numtorch follows, and no GPU toolkit.

``__version__`` is the version string of the PyTorch build numtorch reproduces (its CPU wheel),
so that scripts printing or comparing ``torch.__version__`` behave as under that build. Like
PyTorch's, it is a ``TorchVersion``: a ``str`` that compares by version order with strings
(``torch.__version__ >= "2.0"``) and tuples (``> (1, 12)``).

>>> import numtorch as torch
>>> torch.version.cuda is None, torch.version.__version__ == torch.__version__
(True, True)
>>> torch.__version__ >= "2.0", torch.__version__ > (2, 9), TorchVersion("1.10.0") > "1.9"
(True, True, True)
"""
import re
from collections.abc import Iterable

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

# PEP 440 public version with an optional local segment (``2.13.0+cpu``, ``2.1.0rc1``,
# ``1.13.0.dev20220101``); what does not parse compares as a plain string (as PyTorch does).
_PEP440 = re.compile(
    r"^\s*v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>\d+)?)?"
    r"(?:-(?P<post_n1>\d+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>\d+)?)?"
    r"(?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>\d+)?)?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$", re.IGNORECASE)
_PRE = {"a": "a", "alpha": "a", "b": "b", "beta": "b", "c": "rc", "rc": "rc", "pre": "rc",
        "preview": "rc"}
_INF, _NEG_INF = (1, ()), (-1, ())  # sort above / below every real segment


def _sort_key(text):
    """PEP 440's ordering key of ``text`` (None where it is not a version): release with
    trailing zeros dropped, then pre-, post-, dev-release and local segment, each placed as
    the specification orders them (``1.0.dev0 < 1.0a1 < 1.0 < 1.0+cpu < 1.0.post1``)."""
    m = _PEP440.match(text)
    if m is None:
        return None
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    post = m["post_n1"] or m["post_n2"] or (0 if m["post_l"] else None)
    dev = m["dev_n"] or (0 if m["dev_l"] else None)
    if m["pre_l"] is not None:
        pre_key = (0, (_PRE[m["pre_l"].lower()], int(m["pre_n"] or 0)))
    else:  # 1.0.dev0 sorts before 1.0a0, a final release after every pre-release
        pre_key = _NEG_INF if post is None and dev is not None else _INF
    local = () if m["local"] is None else tuple(
        (1, int(p), "") if p.isdigit() else (0, 0, p.lower())
        for p in re.split(r"[-_.]", m["local"]))
    return (int(m["epoch"] or 0), tuple(release), pre_key,
            _NEG_INF if post is None else (0, int(post)),
            _INF if dev is None else (0, int(dev)),
            _NEG_INF if m["local"] is None else (0, local))


class TorchVersion(str):
    """A version string whose ``==``, ``<``, ``<=``, ``>``, ``>=`` compare by version order
    with strings and tuples of numbers (``(2, 1)`` is ``"2.1"``); ``!=`` stays ``str``'s.

    What is not a version on either side compares as ``str``; an operand of another kind
    (a ``packaging.version.Version`` included, as in PyTorch) gives Python's ``TypeError``.
    """

    __slots__ = ()

    def _other_key(self, other):
        if isinstance(other, str):
            return _sort_key(other)
        if isinstance(other, Iterable):
            return _sort_key(".".join(str(item) for item in other))
        return None

    def _compare(self, other, op):
        mine, theirs = _sort_key(self), self._other_key(other)
        if mine is None or theirs is None:
            return getattr(str, op)(self, other)
        return getattr(mine, op)(theirs)

    def __eq__(self, other):
        return self._compare(other, "__eq__")

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")

    __hash__ = str.__hash__


__version__ = TorchVersion("2.13.0+cpu")
cuda = None     # built without CUDA (as PyTorch's CPU wheels)
hip = None
rocm = None
xpu = None
debug = False
git_version = "Unknown"  # numtorch is not built from PyTorch's repository
