"""Forward AD and vmap over PyTorch's OpInfo samples, compared with PyTorch.

For each op of the OpInfo baseline (ops numtorch passes plainly), on float64 samples:

- ``fwad``: tangents through ``forward_ad`` (random tangents on the inputs that require grad);
- ``vmap``: ``vmap(op)`` over a batch of two versions of the sample's float tensors (the
  original and 0.9 times it); it also records whether numtorch batched the op or fell back to
  its per-sample loop.

Run ``python -m tests.func.transform_coverage [--samples N] [names...]`` for a table;
``test_transforms_opinfo.py`` runs a fast subset in the suite.
"""
import sys
import warnings

import numpy as np
import torch

import numtorch
from numtorch.func import _batch_rules, _vmap
from tests.opinfo import harness, report


def _float_tensor_positions(args):
    return [i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and
            a.dtype == torch.float64]


def check_fwad(op, sample, seed=0):
    """None when numtorch's tangents match PyTorch's, else a message ('skip' when torch fails)."""
    t_args, t_kwargs = harness._torch_args(sample, False)
    pos = [i for i in _float_tensor_positions(t_args) if t_args[i].requires_grad]
    if not pos:
        return "skip"
    rng = np.random.default_rng(seed)
    tans = {i: rng.standard_normal(tuple(t_args[i].shape)) for i in pos}
    try:
        ref = _fwad_run(torch, op.op, t_args, t_kwargs, tans, sample, None)
    except Exception:
        return "skip"
    conv = harness.Converter(requires_grad=False)
    n_fn = harness.twin(op.op, [op.name] + [a.name for a in op.aliases])
    try:
        mine = _fwad_run(numtorch, n_fn, conv(t_args), conv(t_kwargs), tans, sample, op)
    except Exception as e:
        return f"{type(e).__name__}: {e}"[:200]
    return _compare_list(mine, ref)


def _fwad_run(lib, fn, args, kwargs, tans, sample, op):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        args = list(args)
        for i, t in tans.items():
            args[i] = fw.make_dual(args[i].detach(), lib.from_numpy(t.copy()))
        out = harness._flat(fn(*args, **kwargs))
        res = []
        for o in out:
            if isinstance(o, lib.Tensor) and o.dtype.is_floating_point:
                t = fw.unpack_dual(o).tangent
                res.append(t if t is not None else lib.zeros_like(o))
        return res


def _compare_list(mine, ref):
    if len(mine) != len(ref):
        return f"{len(mine)} tangents, expected {len(ref)}"
    for k, (m, r) in enumerate(zip(mine, ref)):
        msg = harness.compare(m, r, f"out[{k}]")
        if msg:
            return msg
    return None


def check_vmap(op, sample):
    """``(message or None, looped op names)`` for vmap over two versions of the sample."""
    t_args, t_kwargs = harness._torch_args(sample, False)
    t_args = [a.detach() if isinstance(a, torch.Tensor) else a for a in t_args]
    pos = _float_tensor_positions(t_args)
    if not pos:
        return "skip", []
    batched = [torch.stack([a, a * 0.9]) if i in pos else a for i, a in enumerate(t_args)]
    in_dims = tuple(0 if i in pos else None for i in range(len(t_args)))

    def call(lib, fn):
        def f(*xs):
            return fn(*xs, **(t_kwargs if lib is torch else conv(t_kwargs)))
        return lib.func.vmap(f, in_dims=in_dims)
    conv = harness.Converter(requires_grad=False)
    try:
        ref = [call(torch, op.op)(*batched)]
    except Exception:
        return "skip", []
    n_fn = harness.twin(op.op, [op.name] + [a.name for a in op.aliases])
    before_ops, before_fn = dict(_batch_rules.STATS), dict(_vmap.STATS)
    try:
        mine = [call(numtorch, n_fn)(*conv(batched))]
    except Exception as e:
        return f"{type(e).__name__}: {e}"[:200], []
    looped = [k for k, v in _batch_rules.STATS.items() if v != before_ops.get(k, 0)]
    looped += [f"<function: {k}>" for k, v in _vmap.STATS.items() if v != before_fn.get(k, 0)]
    return harness.compare(mine, ref), looped


def run(names=None, samples=2):
    """Rows ``(name, fwad ok/total, vmap ok/total, looped ops, first failure)``."""
    db = report.load_op_db()
    wanted = set(names or report.read_baseline())
    rows = []
    for op in db:
        if op.name not in wanted or torch.float64 not in op.supported_dtypes("cpu"):
            continue
        batch, _ = harness.samples(op, torch.float64, samples)
        counts = {"fwad": [0, 0], "vmap": [0, 0]}
        looped, first = set(), None
        for s in batch:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for kind, res in (("fwad", (check_fwad(op, s), [])),
                                  ("vmap", check_vmap(op, s))):
                    msg, loops = res
                    looped.update(loops)
                    if msg == "skip":
                        continue
                    counts[kind][1] += 1
                    if msg is None:
                        counts[kind][0] += 1
                    elif first is None:
                        first = f"{kind}: {msg}"
        rows.append((op.name, op.variant_test_name, counts, sorted(looped), first))
    return rows


def main(argv):
    samples = 2
    if argv[:1] == ["--samples"]:
        samples, argv = int(argv[1]), argv[2:]
    rows = run(argv or None, samples)
    totals = {"fwad": [0, 0], "vmap": [0, 0]}
    for name, variant, counts, looped, first in rows:
        for k in totals:
            totals[k][0] += counts[k][0]
            totals[k][1] += counts[k][1]
        flag = "" if first is None else f"  FAIL {first}"
        loop = f"  loops={','.join(looped)}" if looped else ""
        print(f"{name}[{variant}] fwad {counts['fwad'][0]}/{counts['fwad'][1]} vmap "
              f"{counts['vmap'][0]}/{counts['vmap'][1]}{loop}{flag}")
    print("TOTAL", {k: f"{a}/{b}" for k, (a, b) in totals.items()})


if __name__ == "__main__":
    main(sys.argv[1:])
