"""A minimal pytree: flatten nested tuples, lists, dicts and namedtuples into leaves and back.

>>> leaves, spec = tree_flatten((1, [2, {"a": 3}]))
>>> leaves
[1, 2, 3]
>>> tree_unflatten([4, 5, 6], spec)
(4, [5, {'a': 6}])
"""

__all__ = ["TreeSpec", "tree_flatten", "tree_unflatten", "tree_map", "LEAF"]


class TreeSpec:
    """The structure of a flattened tree: a container type, its context and children."""

    __slots__ = ("kind", "context", "children", "num_leaves")

    def __init__(self, kind, context, children):
        self.kind, self.context, self.children = kind, context, children
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in children)

    def __eq__(self, other):
        return isinstance(other, TreeSpec) and (self.kind, self.context, self.children) == \
            (other.kind, other.context, other.children)

    def __repr__(self):
        return self._repr(0)

    def _repr(self, indent):
        """PyTorch's layout: children on new lines, two more spaces per nesting level."""
        if self.kind is None:
            return "*"
        if self.kind in (tuple, list, dict):
            name, ctx = self.kind.__name__, None if self.context is None else list(self.context)
        else:
            name, ctx = "namedtuple", self.kind
        sep = ",\n" + " " * (indent + 2)
        kids = sep.join(c._repr(indent + 2) for c in self.children)
        return f"TreeSpec({name}, {ctx}, [{kids}])"

    def pprint(self):
        """The compact form PyTorch's ``treespec_pprint`` gives: ``(*, [*, *])``."""
        if self.kind is None:
            return "*"
        kids = [c.pprint() for c in self.children]
        if self.kind is tuple:
            return "(" + kids[0] + ",)" if len(kids) == 1 else "(" + ", ".join(kids) + ")"
        if self.kind is list:
            return "[" + ", ".join(kids) + "]"
        if self.kind is dict:
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.context, kids)) + "}"
        fields = self.kind._fields
        return f"{self.kind.__name__}(" + ", ".join(f"{f}={v}" for f, v in
                                                   zip(fields, kids)) + ")"


LEAF = TreeSpec(None, None, [])


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def tree_flatten(tree):
    """``(leaves, spec)`` for a nested structure (recursion depth = nesting depth)."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if _is_namedtuple(tree):
        return TreeSpec(type(tree), None, [_flatten(v, leaves) for v in tree])
    if type(tree) in (tuple, list):
        return TreeSpec(type(tree), None, [_flatten(v, leaves) for v in tree])
    if isinstance(tree, dict):
        keys = list(tree)
        return TreeSpec(dict, keys, [_flatten(tree[k], leaves) for k in keys])
    leaves.append(tree)
    return LEAF


def tree_unflatten(leaves, spec):
    """Rebuild the structure ``spec`` from ``leaves``."""
    it = iter(leaves)
    return _build(spec, it)


def _build(spec, it):
    if spec.kind is None:
        return next(it)
    kids = [_build(c, it) for c in spec.children]
    if spec.kind is dict:
        return dict(zip(spec.context, kids))
    if spec.kind in (tuple, list):
        return spec.kind(kids)
    return spec.kind(*kids)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, tree_spec, what):
    """Leaves of ``prefix`` repeated to match ``tree_spec`` (a prefix-tree broadcast).

    Raises ValueError(what) when ``prefix`` is not a prefix of the structure."""
    out = []
    _broadcast(prefix, tree_spec, out, what)
    return out


def _broadcast(prefix, spec, out, what):
    if spec.kind is None or not isinstance(prefix, (tuple, list, dict)):
        if isinstance(prefix, (tuple, list, dict)) and spec.kind is None:
            raise ValueError(what)
        out.extend([prefix] * spec.num_leaves)
        return
    p_kind = dict if isinstance(prefix, dict) else (list if type(prefix) is list else tuple)
    s_kind = spec.kind if spec.kind in (dict, list) else tuple
    if p_kind is not s_kind or len(prefix) != len(spec.children):
        raise ValueError(what)
    if p_kind is dict:
        if set(prefix) != set(spec.context):
            raise ValueError(what)
        items = [prefix[k] for k in spec.context]
    else:
        items = list(prefix)
    for p, c in zip(items, spec.children):
        _broadcast(p, c, out, what)
