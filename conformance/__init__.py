"""The machinery around a backend under test: strategies from the specs, verdicts, runner, reports.

Public contract (docs/architecture.md): Backend, Rejected, load_backend.

The names are imported when first asked for (`from conformance import Rejected` imports it then): a
command's process can then start its backend's hosts before the kit's imports (conformance/backends/prestart.py).
"""
from typing import Any

__all__ = ["Backend", "BackendCrash", "BackendLoadError", "OracleBackend", "Rejected", "load_backend"]


def __getattr__(name: str) -> Any:
    if name == "load_backend":
        from conformance.backends.loading import load_backend
        return load_backend
    if name in __all__:
        from conformance.backends import contract
        return getattr(contract, name)
    raise AttributeError(f"module 'conformance' has no attribute {name!r}")
