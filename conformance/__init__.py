"""The machinery around a backend under test: strategies from the specs, verdicts, runner, reports.

Public contract (DESIGN.md): Backend, Rejected, load_backend.
"""
from .backends import Backend, BackendCrash, BackendLoadError, OracleBackend, Rejected, load_backend

__all__ = ["Backend", "BackendCrash", "BackendLoadError", "OracleBackend", "Rejected", "load_backend"]
