"""numtorch's benchmark suite: each workload timed on numtorch, PyTorch and hand-written NumPy.

Run ``python -m benchmarks`` from the repository root to time every workload and rewrite
``benchmarks/RESULTS.md``; ``python -m benchmarks --quick`` runs each workload a few iterations
only and checks that numtorch's gradients agree with PyTorch's (and NumPy's), as CI does.

Workloads live in a registry (``benchmarks._registry.REGISTRY``); adding one is a function
decorated with ``@workload(...)`` in a module that ``benchmarks._registry.load_all`` imports.
A workload that needs numtorch features which do not exist yet names them in ``needs`` and is
reported as skipped until they do.
"""
