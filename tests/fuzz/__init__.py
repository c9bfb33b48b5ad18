"""Seeded, bounded fuzzing of every decoder (JSON lines, dump-log text, server.properties, binary segments) and of
``decode_files``' row conversion, with oracles: no exception escapes, every input line or byte is accounted for,
no good record is lost, no planted secret reaches any produced row.

``tests/transforms/test_fuzz_bounded.py`` runs a few thousand inputs in the suite; ``python -m tests.fuzz`` (``make
fuzz``) runs the full campaign with a configurable count and seed.
"""
