"""The challenge kept from the backend: no process of the artefact under test may learn it, neither from
its own environment nor from any ancestor's command line or environment (/proc/PID/cmdline and
/proc/PID/environ of the kit's processes, which a backend of the same user, or root, can read).

`take_challenge(given, file)` reads it (a file, `ASCEND_CONFORMANCE_CHALLENGE`, or the command line),
removes the variable from this process's environment (so no child inherits it) and overwrites every copy
of its text in the memory the kernel shows as this process's command line and environment, before any
worker or backend process is started (workers are forked from this process: they show the same).
"""
from __future__ import annotations

import os
import sys

from conformance.generate.challenge import ENV, Challenge, ChallengeError

MAX_CHALLENGE_FILE = 4096       # bytes of a challenge file read, at most (a challenge is 128 hex digits)


def take_challenge(given: str | None, path: str | None, warn: bool = True) -> Challenge | None:
    """The run's challenge, from `path` (--challenge-file), `given` (--challenge, which any process can
    read on the command line while the kit starts: said on stderr where `warn`) or the environment;
    ChallengeError naming the option otherwise."""
    from_env = os.environ.pop(ENV, None) or None
    sources = [(w, t) for w, t in (("--challenge-file", _read(path) if path is not None else None),
                                   ("--challenge", given), (ENV, from_env)) if t]
    if not sources:
        return None
    scrub([t for _, t in sources], [path] if path else [])
    where, text = sources[0]
    try:
        challenge = Challenge.parse(text)
    except ChallengeError as exc:
        raise ChallengeError(f"{where}: {exc}") from None
    if given and warn:
        print("ascend-conformance: warning: --challenge on the command line can be read by any process while "
              f"the kit starts: give it in {ENV} or with --challenge-file", file=sys.stderr)
    return challenge


def _read(path: str) -> str:
    from conformance.report.untrusted import FileFormatError, read_text
    try:
        return read_text(path, MAX_CHALLENGE_FILE, "challenge").strip()
    except FileFormatError as exc:
        raise ChallengeError(f"--challenge-file: {exc}") from None


def scrub(texts: list[str], arguments: list[str] = ()) -> bool:
    """Overwrite every copy of `texts` in this process's command line and environment as the kernel shows
    them (/proc/self/cmdline, /proc/self/environ), and every argument of the command line that is one of
    `arguments` (the challenge file's name, which would lead a backend to it); False where that cannot be
    done (not Linux)."""
    words = [t.encode() for t in texts if len(t) >= 8]
    named = {os.fsencode(a) for a in arguments} | {b"--challenge-file=" + os.fsencode(a) for a in arguments}
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        # fields 48 to 51 of proc(5): arg_start, arg_end, env_start, env_end (the list after ')' starts at 3)
        arg_start, arg_end, env_start, env_end = (int(fields[n - 3]) for n in (48, 49, 50, 51))
        with open("/proc/self/mem", "r+b", buffering=0) as mem:
            for start, end in ((arg_start, arg_end), (env_start, env_end)):
                mem.seek(start)
                shown = mem.read(end - start)
                hidden = shown
                if start == arg_start:
                    hidden = b"\0".join(b"x" * len(w) if w in named else w for w in hidden.split(b"\0"))
                for word in words:
                    hidden = hidden.replace(word, b"x" * len(word))
                if hidden != shown:
                    mem.seek(start)
                    mem.write(hidden)
    except (OSError, ValueError, IndexError):
        return False
    return True
