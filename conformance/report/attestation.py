"""The bundle's in-toto Statement (https://in-toto.io/Statement/v1): its subjects are the certified
artefact's digests (conformance/backends/artefact.py), its predicate the verdict, its scope, the kit, the
spec hash, the frozen list, the challenge's digest, the digests of results.json and the evidence, and every
waiver applied with the cells it covered.

The kit holds no key: the Statement is what a signer signs with the tools that exist for it (the bundle's
README shows `cosign attest-blob` and `cosign verify-blob-attestation`), and `verify` checks that the
Statement says what the bundle says.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

NAME = "attestation.intoto.json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://ascend-conformance.dev/certification/v1"
# what the predicate says of each waiver: what it matched on, why, where it is tracked, the cells it covered
WAIVER_FIELDS = ("index", "test", "rule", "product", "reason", "tracker", "expires", "status", "cells")


def statement(folder: Path, results: dict[str, Any]) -> dict[str, Any]:
    from conformance.backends.artefact import subjects
    certified = results.get("certify") or {}
    artefact = certified.get("artefact") or {}
    results_digest = hashlib.sha256((folder / "results.json").read_bytes()).hexdigest()
    named = subjects(artefact) or [{"name": "results.json", "digest": {"sha256": results_digest}}]
    return {
        "_type": STATEMENT_TYPE,
        "subject": named,
        "predicateType": PREDICATE_TYPE,
        "predicate": {
            "verdict": results.get("verdict"),
            "verdict_text": results.get("verdict_text"),
            "scope": results.get("scope"),
            "backend": results.get("backend"),
            "artefact": artefact,
            "kit": results.get("kit"),
            "spec_hash": results.get("spec_hash"),
            "frozen_hash": certified.get("frozen_hash"),
            "challenge_sha256": certified.get("challenge"),
            "results_sha256": results_digest,
            "evidence_sha256": (results.get("evidence") or {}).get("sha256"),
            "waivers": [{k: w.get(k) for k in WAIVER_FIELDS} for w in results.get("waivers") or []],
            "reference_derived": bool(artefact.get("reference_derived")),
        },
    }


def statement_text(folder: Path, results: dict[str, Any]) -> str:
    """The Statement as the bundle holds it (the same text from the same folder)."""
    return json.dumps(statement(folder, results), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
