"""The backend under test: the contract every backend keeps (docs/architecture.md), the exceptions it speaks in, and
the built-in reference backend."""
from __future__ import annotations

import functools
from types import MappingProxyType
from typing import Mapping, Protocol, runtime_checkable

import numpy as np

from oracle import Call
from oracle.apis import index_math
from oracle.rules import context, rejection, with_readings
from oracle.spec import Rulebook


class Rejected(Exception):
    """Raised by a backend to refuse a call, as a toolchain or the hardware would.

    Parameters
    ----------
    message : str
        Why, as the backend says it.
    rule : str, optional
        The spec rule it refused the call for (reports show it).
    """

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
    """What the kit asks of a backend under test.

    Attributes
    ----------
    name : str
        How reports name it.

    Methods
    -------
    supports(api, product)
        Whether it implements that API on that product (False: its cells are NOT_SUPPORTED).
    run(call, memory)
        Perform `call` on `memory` (scope -> 1-D uint8 array, the product's UB and L1 whole, GM
        around the operands), writing into those arrays in place; raise `Rejected` for a call it
        refuses. Optional: ``version``, ``readings`` (ambiguity id -> reading id it follows) and
        ``run_batch(calls, memories)``.

    Examples
    --------
    A backend that moves bytes as the reference does, but refuses every call of more than 64 bursts:

    >>> from conformance import Backend, OracleBackend, Rejected
    >>> class Sim(OracleBackend):
    ...     name = "sim"
    ...     def run(self, call, memory):
    ...         if call.args.get("nburst", 0) > 64:
    ...             raise Rejected("at most 64 bursts here")
    ...         super().run(call, memory)
    >>> isinstance(Sim(), Backend)
    True
    """

    name: str

    def supports(self, api: str, product: str) -> bool: ...

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None: ...


class OracleBackend:
    """The reference: refuses what the spec rejects, otherwise applies the oracle's index math in place.

    Parameters
    ----------
    readings : dict of ambiguity id to reading id, optional
        The readings it follows where the pages read two ways (none: it follows none, and the kit
        does not test those regions against it).
    rulebook : Rulebook, optional
        The specs it follows: the kit hands it the run's (load_backend). Without one, the oracle's own
        (``oracle.check`` without a rulebook), as a user's subclass built with no argument has it.

    Examples
    --------
    >>> import numpy as np
    >>> from oracle import Call, Tensor
    >>> from conformance import OracleBackend, Rejected
    >>> call = Call("data_move", "ascend910b", {"dst": Tensor("UB", 0, "int8", 32),
    ...             "src": Tensor("UB", 32, "int8", 32), "sid": 0, "nburst": 1, "burst": 1,
    ...             "src_stride": 0, "dst_stride": 0})
    >>> memory = {"UB": np.arange(64, dtype=np.uint8)}
    >>> OracleBackend().run(call, memory)
    >>> memory["UB"][:4].tolist()
    [32, 33, 34, 35]
    >>> try:
    ...     OracleBackend().run(call.replace(nburst=0), memory)
    ... except Rejected as refused:
    ...     print(refused.rule)
    data_move.nburst.range
    """

    name = "oracle"
    version = "reference"
    readings: Mapping[str, str] = MappingProxyType({})   # ambiguity id -> reading id (subclasses inherit none)
    rulebook: Rulebook | None = None                      # the specs it follows (None: the oracle's own)

    def __init__(self, readings: dict[str, str] | None = None, rulebook: Rulebook | None = None):
        self.readings = dict(readings or {})    # ambiguity id -> reading id: the readings it follows
        self.rulebook = rulebook

    def supports(self, api: str, product: str) -> bool:
        rulebook = with_readings(self.rulebook, None)
        return api in rulebook.apis and product in rulebook.products

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        ctx = context(call, memory, with_readings(self.rulebook, self.readings), still=True)   # read before the move
        refused = rejection(ctx)
        if refused is not None:
            raise Rejected(refused.message, refused.rule)
        index_math(call.api).apply(call, memory, ctx.units)


@functools.lru_cache(maxsize=1)
def kit_version() -> str:
    """The kit's version: told to an exec program in the handshake, written in every results document (read
    from the installed metadata once: a run writes a document at its end, and reading it is not free).
    importlib.metadata is imported here: a backend's host process, which never asks, starts without it."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version
    try:
        return dist_version("ascend-conformance")
    except PackageNotFoundError:
        return "0.1.0+source"
