"""The benchmark harness behind ``make bench`` / ``make bench-all`` (``python -m benchmarks.run --sizes S``).

Not part of the product: it measures the product (ingest, audit, evaluation) against floors and peers on fleets
synthesised at fixed sizes, and writes ``benchmarks/results/<size>.json`` and ``benchmarks/results/RESULTS.md``.
"""
