"""A backend that answers as a run's evidence recorded (conformance/judge/evidence.py), for `verify`: the
receiver's kit draws every call of a cell again and hands each to this backend, which answers the next
recorded answer, so that the cell's verdicts, counts, shrinking and edges are worked out again by the
receiver's own judge.

- `=`: the reference's image (every defined byte the oracle's);
- `refused[:rule]`: a refusal naming that rule;
- `crash`: a crash;
- `sha256:<hex>`: an image that is not the oracle's anywhere (the reference's, every byte inverted): the
  bytes the backend left cannot be rebuilt from their digest, only shown to differ; `verify --backend`
  checks the digest itself against the artefact.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from oracle import Call

from conformance.backends.contract import BackendCrash, OracleBackend, Rejected
from conformance.judge import evidence


class Recorded:
    """The answers of one part of one cell, in the order they were recorded."""

    name = "recorded evidence"

    def __init__(self, entries: Sequence[str], supported: bool = True, readings: Mapping[str, str] | None = None):
        self.answers = [evidence.parse(e)[1] for e in entries]
        self.at = 0
        self.supported = supported
        self.reference = OracleBackend(dict(readings or {}))

    def supports(self, api: str, product: str) -> bool:
        return self.supported

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        if self.at >= len(self.answers):
            raise BackendCrash("the evidence holds no answer for this call (it records fewer calls)")
        answer = self.answers[self.at]
        self.at += 1
        if answer == evidence.EQUAL:
            self.reference.run(call, memory)
        elif answer.startswith(evidence.REFUSED):
            rule = answer.partition(":")[2] or None
            raise Rejected("refused (as recorded)", rule)
        elif answer == evidence.CRASHED:
            raise BackendCrash("crashed (as recorded)")
        else:
            try:
                self.reference.run(call, memory)
            except Rejected:
                pass
            for image in memory.values():
                np.invert(image, out=image)
