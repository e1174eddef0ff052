"""`ascend-conformance certify`: the frozen case list, then a property-based pass from a fixed seed (or
the challenge's), written as a certification bundle (conformance/report/bundle.py).

What certify refuses, so that a bundle cannot say more than the run showed: `--in-process` (the backend
in the judge's process), `--no-oracle` (`--against B` adds a comparison with B, never replaces the
oracle's), and a waiver that covers every cell of an api or a product. The bundle is made in a private
folder and moved into place once every backend process has ended (conformance/report/placing.py).
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from oracle.spec import default_rulebook

from conformance.backends.contract import kit_version
from conformance.commands.options import Options, UsageError, challenge_of, products_and_apis, waivers_of
from conformance.commands.running import entered_ambiguities, open_session, readings_line, settle
from conformance.generate.cells import cells


def cmd_certify(args: Options) -> int:
    from conformance.report.placing import PlacingError, move_into_place, private_folder
    _refused(args)
    products, apis = products_and_apis(args)
    waivers = waivers_of(args)
    _named_waivers(waivers, products, apis)
    challenge = challenge_of(args, warn=True)
    bundle = Path(args.bundle)
    try:
        private = private_folder(bundle)
    except PlacingError as exc:
        raise UsageError(str(exc)) from None
    try:
        results = _certify(args, products, apis, waivers, challenge, private, bundle)
    finally:
        if (private / "results.json").exists():
            try:
                move_into_place(private, bundle)
            except PlacingError as exc:
                raise UsageError(str(exc)) from None
        else:
            import shutil
            shutil.rmtree(private, ignore_errors=True)
    return results.terminal_end()


def _refused(args: Options) -> None:
    if args.in_process:
        raise UsageError("certify runs the backend out of the judge's reach: --in-process is for debugging "
                         "a backend with `run`")
    if args.no_oracle:
        raise UsageError("certify judges the backend against the oracle: --no-oracle is for `run` (--against B "
                         "adds a comparison with B to the oracle's)")


class _Ended:
    """A finished certification: its terminal's end, printed once the bundle is in place."""

    def __init__(self, session: Any, results: dict[str, Any], bundle: Path, backend: str):
        self.session, self.results, self.bundle, self.backend = session, results, bundle, backend

    def terminal_end(self) -> int:
        return self.session.terminal.end(self.results, self.bundle, self.backend)


def _certify(args: Options, products: list[str], apis: list[str], waivers: Any, challenge: Any, private: Path,
             bundle: Path) -> _Ended:
    from conformance.generate.challenge import redacted
    from conformance.generate.frozen import FrozenDataError, frozen_hash, load_frozen
    from conformance.generate.profiles import profile
    from conformance.report.bundle import CERTIFY_SEED, bundle_files, write_bundle
    from conformance.supervise.plan import plan
    try:
        frozen = load_frozen()
        digest = frozen_hash()
    except FrozenDataError as exc:
        raise UsageError(str(exc)) from None
    seed = challenge.seed if challenge is not None else CERTIFY_SEED
    artefact = described_artefact(args.backend)
    session = open_session(args, private, shown=bundle)
    with session:
        # the frozen list holds the cases of every reading: the readings declared pick their cells from it
        chosen = cells(products, apis, rulebook=session.rulebook,
                       ambiguities=entered_ambiguities(session, args, apis))
        cases = sum(frozen.count(c.id) for c in chosen)

        def certified(results: dict[str, Any]) -> None:
            results["certify"] = {"frozen_hash": digest, "frozen_cases": cases, "artefact": artefact,
                                  "challenge": challenge.digest if challenge is not None else None,
                                  "command": redacted(sys.argv), "folder": str(bundle)}
            settle(results, waivers)
            results["certify"]["files"] = bundle_files(results, session.rulebook)

        print(f"ascend-conformance {kit_version()} certify: backend {session.backend['name']!r} on "
              f"{', '.join(products)}, {len(chosen)} cells: {cases} frozen cases (list {digest}), then profile "
              f"{args.profile} " + (f"under a challenge (sha256 {challenge.digest[:16]}...)" if challenge else
                                    f"with seed {CERTIFY_SEED}, without a challenge")
              + readings_line(session), flush=True)
        tasks = plan(chosen, profile(args.profile), seed, session.rulebook, frozen=True,
                     pool=challenge.pool if challenge else 0)
        results = session.run(chosen, tasks, certified, profile=args.profile, seed=seed, workers=args.workers,
                              select=[], timeout=args.timeout, shard=None)
    try:        # every backend process has ended (the session closed): nothing of theirs writes now
        write_bundle(private, results, waivers_file=args.waivers, argv=redacted(sys.argv),
                     rulebook=session.rulebook)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return _Ended(session, results, bundle, args.backend)


def _named_waivers(waivers: Any, products: list[str], apis: list[str]) -> None:
    """A certification's waivers name what they waive: one covering every cell of an api or a product is
    refused before anything runs."""
    from conformance.report.waivers import too_broad
    if waivers:
        why = too_broad(waivers, cells(products, apis, rulebook=default_rulebook(), ambiguities=[]))
        if why:
            raise UsageError(f"--waivers: {why}")


def described_artefact(backend: str) -> dict[str, Any]:
    """What is certified, by digest (conformance/backends/artefact.py); an artefact that cannot be read is
    named with why, and the bundle says so."""
    from conformance.backends.artefact import artefact
    try:
        return artefact(backend, default_rulebook())
    except (OSError, ValueError, ImportError) as exc:
        return {"backend": backend, "kind": "unknown", "error": f"{type(exc).__name__}: {exc}"}
