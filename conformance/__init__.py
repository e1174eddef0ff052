"""The machinery around a backend under test: strategies from the specs, verdicts, runner, reports.

Public contract (docs/architecture.md): Backend, Rejected, load_backend.
"""
from conformance.backends.contract import Backend, BackendCrash, BackendLoadError, OracleBackend, Rejected
from conformance.backends.loading import load_backend

__all__ = ["Backend", "BackendCrash", "BackendLoadError", "OracleBackend", "Rejected", "load_backend"]
