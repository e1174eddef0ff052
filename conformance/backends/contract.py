"""The backend under test: the contract every backend keeps (docs/architecture.md), the exceptions it speaks in, and
the built-in reference backend."""
from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as dist_version
from types import MappingProxyType
from typing import Mapping, Protocol, runtime_checkable

import numpy as np

from oracle import Call
from oracle.apis import index_math
from oracle.rules import context, violations, with_readings
from oracle.spec import default_rulebook


class Rejected(Exception):
    """Raised by a backend to refuse a call, as a toolchain or the hardware would.

    `rule` optionally names the spec rule the backend refused it for (reports show it)."""

    def __init__(self, message: str = "", rule: str | None = None):
        super().__init__(message)
        self.rule = rule


class BackendLoadError(Exception):
    """`load_backend` could not produce a backend; the message says which part of the name failed."""


class BackendCrash(Exception):
    """The backend failed in a way that is not a verdict on the call: an out-of-process program that
    died, hung or broke the protocol, or an in-process backend past its time limit. Judged CRASH, with
    this message alone."""


@runtime_checkable
class Backend(Protocol):
    name: str

    def supports(self, api: str, product: str) -> bool: ...

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None: ...


class OracleBackend:
    """The reference: refuses what the spec rejects, otherwise applies the oracle's index math in place."""

    name = "oracle"
    version = "reference"
    readings: Mapping[str, str] = MappingProxyType({})   # ambiguity id -> reading id (subclasses inherit none)

    def __init__(self, readings: dict[str, str] | None = None):
        self.readings = dict(readings or {})    # ambiguity id -> reading id: the readings it follows

    def supports(self, api: str, product: str) -> bool:
        rulebook = default_rulebook()
        return api in rulebook.apis and product in rulebook.products

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        ctx = context(call, memory, with_readings(None, self.readings))
        for v in violations(ctx):
            if v.severity == "reject":
                raise Rejected(v.message, v.rule)
        index_math(call.api).apply(call, memory, ctx.units)


@functools.lru_cache(maxsize=1)
def kit_version() -> str:
    """The kit's version: told to an exec program in the handshake, written in every results document (read
    from the installed metadata once: a run writes a document at its end, and reading it is not free)."""
    try:
        return dist_version("ascend-conformance")
    except PackageNotFoundError:
        return "0.1.0+source"
