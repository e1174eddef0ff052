"""`ascend-conformance verify BUNDLE [--backend B]`: a certification bundle checked by whoever received
it, with their own kit. The challenge is read from ASCEND_CONFORMANCE_CHALLENGE or `--challenge-file`
(conformance/commands/hidden.py), never shown to the artefact.

1. Every file of the bundle is `lstat`ed, bounded and read in blocks; the files are the closed list the
   kit writes (results.json names it), else exit 4 naming the file (conformance/commands/verify_files.py).
2. The bundle was made by this kit, its specs and frozen list (exit 2 naming which), and specs/ is this
   kit's rulebook file by file (exit 2 naming the line).
3. Under the challenge the receiver gives, if the bundle says it was made under one (exit 4 if not).
4. Every call of every cell is drawn again and judged again against the answer the evidence recorded for
   it, and every field of results.json a run computes is computed again from those cells
   (conformance/commands/verify_derive.py). On another Hypothesis release than the certification's, the
   frozen cases and the failures are judged again and the property pass is said not to be re-drawn.
5. results.json, the HTML, JUnit, the README, the attestation, environment.json and SHA256SUMS say the same.
6. With `--backend B`, a random sample of the calls (chosen here, now; its size from a detection target,
   conformance/commands/sampling.py) is run on B: its answers must be the recorded ones.

`-n N` draws and judges step 4's tasks on N processes (conformance/commands/verify_parallel.py): the
same cells, kept calls and messages as on one.

Exit 0: it checks out and is CONFORMANT (or its waived failures are all accepted with --accept-waivers);
1: it checks out and is not; 4: it is not what it claims; 2: unreadable, or made by another kit or spec;
5: it checks out as far as this Hypothesis release can draw it (--allow-partial: 0 or 1 then).
"""
from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path
from typing import Any

from conformance.commands.options import Options, EXIT_NONCONFORMING, EXIT_OK, UsageError, worker_count
from conformance.commands.verify_files import NotAsClaimed

EXIT_NOT_AS_CLAIMED = 4
EXIT_PARTIAL = 5


class Verified:
    """What verify derived: the results computed again, and the lines it prints after the verdict."""

    def __init__(self, again: dict[str, Any], checked: int, partial: str | None):
        self.again, self.checked, self.partial = again, checked, partial
        self.lines: list[str] = []
        self.waived_accepted = True


def cmd_verify(args: Options) -> int:
    from conformance.backends.processes import out_of_reach
    from conformance.report.text import printable
    challenge = _given_challenge(args)
    out_of_reach()
    try:
        verified = _verify(args, Path(args.bundle), challenge)
    except NotAsClaimed as exc:
        print(printable(f"NOT AS CLAIMED: {exc}"))
        return EXIT_NOT_AS_CLAIMED
    from conformance.report.ambiguities import verdict_text
    again = verified.again
    sampled = f"; the sample run on {args.backend} answered as recorded" if args.backend else \
        "; the artefact itself not run (--backend B runs a sample of the calls on it)"
    drawn = "frozen cases judged again (and every failure recorded)" if verified.partial else \
        "calls drawn and judged again"
    print(printable(f"VERIFIED: {verdict_text(again)}: {verified.checked} {drawn}"
                    f"{', under the challenge given' if challenge else ', made without a challenge'}{sampled}"))
    for line in verified.lines:
        print(printable(line, 2000))
    return _exit_code(args, verified)


def _exit_code(args: Options, verified: Verified) -> int:
    from conformance.report.overall_verdict import CONFORMANT, WAIVED_PREFIX
    verdict = verified.again["verdict"]
    good = verdict == CONFORMANT or verdict.startswith(WAIVED_PREFIX) and verified.waived_accepted
    if not good:
        return EXIT_NONCONFORMING
    return EXIT_PARTIAL if verified.partial and not args.allow_partial else EXIT_OK


def _given_challenge(args: Options) -> Any:
    """The receiver's challenge, from the environment or --challenge-file (a --challenge on the command
    line, which the artefact run under --backend could read from its parent's, is refused there)."""
    from conformance.commands.hidden import take_challenge
    from conformance.generate.challenge import ENV, ChallengeError
    if args.challenge and args.backend:
        raise UsageError(f"--challenge on the command line can be read by the artefact --backend runs (its parent's "
                         f"/proc/PID/cmdline): give it in {ENV} or with --challenge-file")
    try:
        return take_challenge(args.challenge, args.challenge_file)
    except ChallengeError as exc:
        raise UsageError(str(exc)) from None


def _verify(args: Options, folder: Path, given: Any) -> Verified:
    from oracle.spec import default_rulebook

    from conformance.commands import verify_derive as derive
    from conformance.commands import verify_files as files
    from conformance.report.ambiguities import verdict_text
    rulebook = default_rulebook()
    found, results = files.read_bundle(folder, rulebook)
    environment = files.environment_of(folder)
    release = files.same_kit(folder, results, environment, rulebook)
    files.same_specs(folder, rulebook)
    challenge = _challenge(given, results)
    parts = derive.parse_evidence(files.read_evidence(folder, results), str(folder / "evidence.jsonl.gz"))
    total = sum(len(p["entries"]) for p in parts.values())
    sample = _sample(args, total) if args.backend and release is None else None
    if release is None:
        derived, kept = derive.derive(results, parts, challenge, derive.Picker(sample and sample.picks()), rulebook,
                                      worker_count(args.workers))
        checked = total
    else:           # the frozen cases alone are drawn again: the sample is theirs
        derived, kept = {}, derive.derive_frozen(results, parts, challenge, rulebook)
        checked = len(kept)
        sample = _sample(args, len(kept)) if args.backend else None
        kept = [kept[i] for i in sorted(sample.picks())] if sample else []
    again = derive.rederived(results, derived, _bundle_waivers(folder, found), every_cell=release is None)
    _closed_list(found, again, results, rulebook)
    files.same_outputs(folder, results, rulebook)
    verified = Verified(again, checked, _partial_line(release, results))
    verified.lines.append(files.same_environment(environment, results, verdict_text(again)))
    if args.backend:
        _same_artefact(args.backend, results, rulebook)
        _same_answers(args.backend, kept, results, args.timeout, rulebook)
        verified.lines.insert(0, sample.line(args.backend))
    _waived(args, verified)
    if verified.partial:
        verified.lines.append(verified.partial)
    return verified


def _challenge(challenge: Any, results: dict[str, Any]) -> Any:
    """The receiver's challenge, where the bundle was made under one (exit 4 for another, or for one given
    to a bundle made without)."""
    recorded = (results.get("certify") or {}).get("challenge")
    if challenge is None:
        if recorded:
            from conformance.generate.challenge import ENV
            raise UsageError(f"the bundle was made under a challenge: give it in {ENV} or with --challenge-file")
        return None
    if recorded != challenge.digest:
        raise NotAsClaimed(f"results.json: certify.challenge: the bundle was made "
                           f"{'under another challenge' if recorded else 'without a challenge'}")
    return challenge


def _sample(args: Options, total: int) -> Any:
    from conformance.commands import sampling
    if args.sample is not None:
        return sampling.shared(total, args.sample, args.rate or sampling.RATE)
    return sampling.sized(total, args.confidence or sampling.CONFIDENCE, args.rate or sampling.RATE)


def _partial_line(release: str | None, results: dict[str, Any]) -> str | None:
    """What another Hypothesis release leaves unchecked, and the command that would check it."""
    import hypothesis
    if release is None:
        return None
    searched = sum(c.get("counts") and sum(n for v, n in c["counts"].items() if v != "NOT_SUPPORTED")
                   - (c.get("frozen_calls") or 0) for c in results["cells"]) or 0
    return (f"NOT RE-DRAWN: the property pass ({searched} calls) was drawn with hypothesis {release}, this kit has "
            f"{hypothesis.__version__}: `pip install hypothesis=={release}` and verify again to check it")


def _bundle_waivers(folder: Path, found: dict[str, Any]) -> list[Any] | None:
    """The waivers the bundle holds (waivers.yaml), read as untrusted; None without one."""
    from conformance.commands.verify_files import guarded
    from conformance.report import bundle_files
    from conformance.report.untrusted import FileFormatError, MAX_FILE_BYTES, parse_yaml
    from conformance.report.waivers import WaiverError, parse_waivers
    if "waivers.yaml" not in found:
        return None
    name = str(folder / "waivers.yaml")
    try:
        text = guarded(lambda: bundle_files.read_bytes(folder, "waivers.yaml", MAX_FILE_BYTES)).decode("utf-8")
        return parse_waivers(parse_yaml(text, name, dates=False), name)
    except (UnicodeDecodeError, FileFormatError, WaiverError) as exc:
        raise UsageError(f"{name}: {exc}" if isinstance(exc, UnicodeDecodeError) else str(exc)) from None


def _closed_list(found: dict[str, Any], again: dict[str, Any], results: dict[str, Any], rulebook: Any) -> None:
    """The bundle's files are the closed list this kit derives from its results, and the one it records."""
    from conformance.report import bundle_files
    mine = bundle_files.closed_list(again, rulebook.files)
    if sorted((results.get("certify") or {}).get("files") or []) != mine:
        raise NotAsClaimed("results.json: certify.files: not the files a bundle of these results holds")
    try:
        bundle_files.same_files(found, mine)
    except bundle_files.ForeignFile as exc:
        raise NotAsClaimed(str(exc)) from None


def _waived(args: Options, verified: Verified) -> None:
    """Each waived cell named, and whether the receiver's --accept-waivers file covers it."""
    from conformance.report.waivers import WaiverError, load_waivers
    waived = [c for c in verified.again["cells"] if c.get("waived")]
    if not waived:
        return
    try:
        accepted = load_waivers(args.accept_waivers) if args.accept_waivers else []
    except WaiverError as exc:
        raise UsageError(f"--accept-waivers: {exc}") from None
    today = dt.date.today()
    for cell in waived:
        mark = cell["waived"]
        ok = any(w.matches(cell) and w.expires >= today for w in accepted)
        verified.waived_accepted &= ok
        verified.lines.append(f"WAIVED: {cell['id']}: {cell['failure']['verdict']} (waiver {mark['waiver']}: "
                              f"{mark['reason']}; {mark['tracker']}): "
                              + ("accepted by --accept-waivers" if ok else
                                 "not accepted (--accept-waivers FILE names the waivers you accept)"))


# ---------------------------------------------------------------------------------------------- the artefact

def _same_artefact(spec: str, results: dict[str, Any], rulebook: Any) -> None:
    """The backend named is, by digest, the artefact the bundle certified."""
    from conformance.backends.artefact import artefact
    recorded = ((results.get("certify") or {}).get("artefact") or {}).get("sha256")
    mine = artefact(spec, rulebook).get("sha256")
    if recorded != mine:
        raise NotAsClaimed(f"results.json: certify.artefact.sha256: the bundle certified {recorded}, "
                           f"{spec} is {mine}")


def _same_answers(spec: str, kept: list[tuple[str, int, Any, str]], results: dict[str, Any],
                  timeout: float | None, plain: Any) -> None:
    """The sampled calls run on the artefact: each answer must be the one recorded."""
    from conformance.backends.contract import BackendLoadError
    from conformance.backends.loading import load_backend
    from conformance.commands.verify_derive import readings_of
    from conformance.judge.verdicts import judge
    rulebook = plain.with_readings(readings_of(results))
    try:
        backend = load_backend(spec, timeout, isolate=True, rulebook=plain)
    except BackendLoadError as exc:
        raise UsageError(str(exc)) from None
    try:
        for cell, index, case, recorded in kept:
            answer = judge(case.call, case.memory, backend, rulebook).answer
            if answer != recorded:
                raise NotAsClaimed(f"evidence: {cell}: call {index}: answer: {spec} answers {answer!r} now, "
                                   f"{recorded!r} recorded")
    finally:
        close = getattr(backend, "close", None)
        if callable(close):
            close()


def add_parser(sub: Any) -> None:
    from conformance.commands.options import seconds_arg, workers_arg
    ver = sub.add_parser("verify", help="check a certification bundle with this kit: exit 0 CONFORMANT, 1 not, "
                                        "4 not what it claims, 2 unreadable, 5 checked in part")
    ver.add_argument("bundle", metavar="BUNDLE", help="the bundle's folder")
    ver.add_argument("--backend", help="also run a random sample of the calls on this backend: its answers must "
                                      "be the recorded ones")
    ver.add_argument("--sample", type=_share("--sample"), metavar="F",
                     help="the share of calls run on --backend (1 for all; default: as many as catch a backend "
                          "wrong on --rate of the calls with probability --confidence)")
    ver.add_argument("--confidence", type=_share("--confidence", below_one=True), metavar="P",
                     help="the chance of catching such a backend (default 0.99)")
    ver.add_argument("--rate", type=_share("--rate"), metavar="R",
                     help="the share of calls such a backend answers wrongly (default 0.01)")
    ver.add_argument("--challenge", metavar="HEX", help="the challenge the bundle must have been made under (seen "
                     "by every process while verify runs: prefer ASCEND_CONFORMANCE_CHALLENGE or --challenge-file)")
    ver.add_argument("--challenge-file", metavar="FILE", help="read the challenge from this file")
    ver.add_argument("--accept-waivers", metavar="FILE", help="the waivers you accept (a waiver file): a bundle whose "
                     "waived failures they all cover verifies as exit 0")
    ver.add_argument("--allow-partial", action="store_true", help="exit 0 or 1 by the verdict where the property "
                     "pass could not be drawn again (another Hypothesis release), instead of 5")
    ver.add_argument("--timeout", type=seconds_arg, metavar="SECONDS", help="a call taking longer is a CRASH")
    ver.add_argument("-n", dest="workers", default="1", type=workers_arg,
                     help="processes drawing and judging the calls again: a number, or auto (one per core); "
                          "default 1 (the same result whatever the number)")
    ver.set_defaults(func=cmd_verify)


def _share(option: str, below_one: bool = False) -> Any:
    """An option's type: a share in (0, 1] (in (0, 1) where `below_one`)."""
    def parse(value: str) -> float:
        try:
            share = float(value)
        except ValueError:
            share = -1.0
        if not (0 < share < 1 if below_one else 0 < share <= 1):
            raise argparse.ArgumentTypeError(f"{option} expects a share in (0, {'1)' if below_one else '1]'}, "
                                             f"got {value!r}")
        return share
    return parse
