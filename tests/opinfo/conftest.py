"""Prints how many baseline OpInfo ops still pass at the end of a pytest run."""


def pytest_terminal_summary(terminalreporter):
    counts = {}
    for outcome in ("passed", "failed"):
        for rep in terminalreporter.stats.get(outcome, []):
            if "test_opinfo.py::test_baseline_op[" in getattr(rep, "nodeid", "") and \
                    rep.when == "call":
                counts[outcome] = counts.get(outcome, 0) + 1
    if counts:
        total = sum(counts.values())
        terminalreporter.write_line(f"OpInfo baseline: {counts.get('passed', 0)} of {total} "
                                    "recorded op names still pass")
