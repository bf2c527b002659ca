"""DataLoader attributes against PyTorch (sweep K): a custom batch_sampler leaves the loader's
batch_size None and drop_last False."""
from helpers import check_same


def _loader_attrs(lib):
    data = lib.utils.data
    ds = data.TensorDataset(lib.arange(10.0))
    out = []
    for kwargs in ({"batch_sampler": data.BatchSampler(data.SequentialSampler(ds), 4, True)},
                   {"batch_size": 3, "drop_last": True}, {"batch_size": None}):
        dl = data.DataLoader(ds, **kwargs)
        out.append((dl.batch_size, dl.drop_last, type(dl.sampler).__name__,
                    type(dl.batch_sampler).__name__, len(dl)))
    return out


def test_batch_sampler_clears_batch_size_and_drop_last(torch):
    check_same(_loader_attrs, exact=True)
