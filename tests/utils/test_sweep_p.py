"""utils.data against PyTorch (sweep P): the collate registry (``collate_fn_map`` and the
``torch.utils.data._utils.collate`` module), StackDataset's checks and batched reads."""
import pytest

from helpers import check_error, check_same


class _Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def _collate_point(lib):
    def fn(batch, *, collate_fn_map=None):
        return lib.tensor([[p.x, p.y] for p in batch])
    return fn


def test_collate_uses_a_user_registry(torch):
    def run(lib):
        from importlib import import_module
        C = import_module(f"{lib.__name__}.utils.data._utils.collate")
        registry = {_Point: _collate_point(lib)}
        registry.update(C.default_collate_fn_map)
        batch = [(_Point(1, 2), 1.0, {"k": 3}), (_Point(5, 6), 2.0, {"k": 4})]
        return C.collate(batch, collate_fn_map=registry)
    check_same(run, exact=True)


def test_collate_registry_overrides_a_leaf_type(torch):
    def run(lib):
        from importlib import import_module
        C = import_module(f"{lib.__name__}.utils.data._utils.collate")
        cat = {lib.Tensor: lambda b, *, collate_fn_map=None: lib.cat(b)}
        return C.collate([[lib.ones(2)], [lib.zeros(2)]], collate_fn_map=cat)
    check_same(run, exact=True)


@pytest.mark.parametrize("batch", ["tensors", "point"])
def test_collate_without_a_handler_raises(torch, batch):
    def run(lib):
        from importlib import import_module
        C = import_module(f"{lib.__name__}.utils.data._utils.collate")
        if batch == "tensors":       # no registry: not even tensors have a handler
            return C.collate([lib.ones(2)], collate_fn_map=None)
        return C.collate([_Point(1, 2)], collate_fn_map=C.default_collate_fn_map)
    err = check_error(lambda lib: str(run(lib)).replace(__name__, ""))
    assert "default_collate: batch must contain" in str(err)


def test_default_collate_fn_map_dispatch(torch):
    import numpy as np

    def run(lib):
        from importlib import import_module
        C = import_module(f"{lib.__name__}.utils.data._utils.collate")
        m = C.default_collate_fn_map
        return [C.collate(b, collate_fn_map=m) for b in
                ([np.float32(1), np.float32(2)], [np.array([1, 2]), np.array([3, 4])],
                 [True, False], ["a", "b"], [b"x", b"y"], [1.5, 2.0])]
    check_same(run, exact=True)


def test_stack_dataset_needs_a_dataset(torch):
    check_error(lambda lib: lib.utils.data.StackDataset())


def test_stack_dataset_getitems(torch):
    def run(lib):
        data = lib.utils.data
        s = data.StackDataset(data.TensorDataset(lib.arange(4.0)),
                              data.Subset(list("abcd"), [3, 2, 1, 0]))
        d = data.StackDataset(x=lib.arange(3), y=[10, 20, 30])
        return (s.__getitems__([0, 2]), d.__getitems__([2, 0]),
                list(data.DataLoader(s, batch_size=3)))
    check_same(run, exact=True)
