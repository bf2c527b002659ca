"""PyTorch's OpInfo database as numtorch's conformance suite.

``harness`` runs one OpInfo entry's sample inputs through numtorch and PyTorch and compares
them; ``exclusions`` lists the out-of-scope families with their reasons; ``report`` runs every
entry and writes COVERAGE.md and the baseline; ``test_opinfo`` checks the baseline in CI.
"""
