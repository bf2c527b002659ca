"""The OpInfo conformance baseline: every op in baseline.txt must keep passing.

Each test runs one baseline op name's OpInfo entries through numtorch against PyTorch (see
harness.py) with the first ``SAMPLES`` samples per dtype, so the whole file stays fast. The
full run, the table and the baseline come from ``python -m tests.opinfo.report``.
"""
import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # PyTorch's OpInfo module needs it

from tests.opinfo import harness, report  # noqa: E402

SAMPLES = 3

# sample generators of a few OpInfos call deprecated torch functions themselves
pytestmark = pytest.mark.filterwarnings(
    "ignore:torch.qr is deprecated in favor of torch.linalg.qr:UserWarning")

with warnings.catch_warnings():  # importing op_db warns about unrelated CUDA/TF32 settings
    warnings.simplefilter("ignore")
    OP_DB = report.load_op_db()
BASELINE = report.read_baseline()
ENTRIES = {}
for _op in OP_DB:
    ENTRIES.setdefault(_op.name, []).append(_op)


def test_baseline_names_exist():
    unknown = [n for n in BASELINE if n not in ENTRIES]
    assert not unknown, f"baseline names not in op_db: {unknown}"


@pytest.mark.parametrize("name", BASELINE)
def test_baseline_op(name):
    failures = []
    for op in ENTRIES.get(name, []):
        res = harness.run_entry(op, SAMPLES)
        if not res.passes:
            failures.append(f"[{op.variant_test_name}] " + "; ".join(res.messages))
    assert not failures, f"{name} regressed: " + " | ".join(failures)
