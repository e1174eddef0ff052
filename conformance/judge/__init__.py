"""Verdicts: one call run on a backend and compared byte for byte with the oracle (and, under --against,
with a second backend), a cell searched and its first failure shrunk, the reproducer it leaves, the
failure database, and the in-flight slot a worker writes before every backend call.

May import: `oracle`, `conformance.generate`, `conformance.backends`.
"""
