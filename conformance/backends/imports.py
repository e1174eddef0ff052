"""What a Python backend's process is made of, beyond its package: every module it has imported once it is
loaded, from outside the standard library and the kit (each file's SHA-256 and its distribution's
version), and whether its `run` is the kit's own reference (`OracleBackend.run`, not overridden, or
called by an override that only adds to it). conformance/backends/artefact.py puts both in the
artefact's description and digest.

The backend is loaded in a process of its own (`python -m conformance.backends.imports NAME SPECS`, with
the environment a backend's host gets: no challenge), never in the kit's: whatever its import does, it
does there. What it answers is the backend's account of itself, as the artefact's digest always is.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import json
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path
from typing import Any, Sequence

MARK = "ascend-conformance imports: "       # the line of the probe's answer (a backend may print too)
PROBE_SECONDS = 120.0


def probe(name: str, rulebook: Any) -> dict[str, Any]:
    """{"reference_derived": bool, "imports": [{"module", "path", "sha256", "version"}]} of backend `name`,
    or {"error": why} where it cannot be loaded.

    The probe (`main`) ends what the backend's load left behind before it exits. Its output goes to a file,
    not a pipe, and what is waited for is the probe's own exit, so a process that escaped it (one that
    killed the probe first) cannot hold the command by holding that output open; the probe's process
    group is killed once it has answered."""
    import tempfile
    from conformance.backends.loading import _host_environment
    from conformance.backends.processes import kill_group
    command = [sys.executable, "-P", "-m", "conformance.backends.imports", name, str(rulebook.directory)]
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                env=_host_environment(), start_new_session=True)
        try:
            code: int | None = proc.wait(timeout=PROBE_SECONDS)
        except subprocess.TimeoutExpired:
            code = None
        kill_group(proc.pid)
        proc.wait()
        if code is None:
            return {"error": f"loading it took more than {PROBE_SECONDS:g}s"}
        out.seek(0)
        said = [line[len(MARK):] for line in out.read().decode("utf-8", "replace").splitlines()
                if line.startswith(MARK)]
    try:
        answer = json.loads(said[-1])
        if isinstance(answer, dict) and isinstance(answer.get("imports"), list):
            return answer
    except (IndexError, ValueError):
        pass
    return {"error": f"loading it in a process of its own failed (exit {code})"}


def file_digest(path: Path | str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def _distributions() -> dict[str, list[str]]:
    """top-level module -> the distributions that install it (read once: it walks every one installed)."""
    return metadata.packages_distributions()


@functools.lru_cache(maxsize=None)
def distribution_version(top: str) -> str | None:
    for dist in _distributions().get(top, []):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


def _kit_or_stdlib() -> Any:
    """A test of a module's file: is it the standard library's (not an installed package's) or the kit's?"""
    import oracle
    paths = sysconfig.get_paths()
    stdlib = {Path(paths[k]).resolve() for k in ("stdlib", "platstdlib")}
    kit = (Path(oracle.__file__).resolve().parent, Path(__file__).resolve().parents[1])

    def skipped(path: Path) -> bool:
        if any(path.is_relative_to(folder) for folder in kit):
            return True
        if {"site-packages", "dist-packages"} & set(path.parts):    # installed, wherever the interpreter's
            return False                                            # (a venv sees its base's site-packages too)
        return any(path.is_relative_to(folder) for folder in stdlib)
    return skipped


def imported() -> list[dict[str, Any]]:
    """Every module of this process with a file from outside the standard library and the kit: its name,
    file, digest and version."""
    skipped = _kit_or_stdlib()
    out = []
    for module_name, module in sorted(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not Path(path).is_file():
            continue
        resolved = Path(path).resolve()
        if skipped(resolved):
            continue
        out.append({"module": module_name, "path": str(resolved), "sha256": file_digest(resolved),
                    "version": distribution_version(module_name.split(".")[0])})
    return out


def reference_derived(backend: Any) -> bool:
    """Whether `backend` runs the kit's reference: its class's `run` is OracleBackend.run, or an override
    that calls it (super().run or OracleBackend.run)."""
    from conformance.backends.contract import OracleBackend
    run = getattr(type(backend), "run", None)
    if run is OracleBackend.run:
        return True
    if not isinstance(backend, OracleBackend) or run is None:
        return False
    try:
        source = inspect.getsource(run)
    except (OSError, TypeError):
        return True             # a subclass of the reference whose override cannot be read
    return "super().run(" in source or "OracleBackend.run(" in source


def digest_of(imports: Sequence[dict[str, Any]]) -> str:
    """One digest of the modules imported: name, version and file digest of each."""
    lines = sorted(f"{m.get('module')} {m.get('version')} {m.get('sha256')}" for m in imports)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def main(argv: Sequence[str]) -> int:
    """The probe: the backend loaded in a forked child of this process, a subreaper, so that what its load
    leaves behind (a daemon it double-forks) is re-parented here and ended once the child has answered,
    before this process exits and the command reads the answer."""
    import os
    from conformance.backends.processes import end_descendants, reap_orphans
    reap_orphans()
    pid = os.fork()
    if pid == 0:                                # the child: the backend's code runs here only
        code = 1
        try:
            code = _answer(argv)
        except BaseException:                   # noqa: BLE001 - the backend's load, whatever it raised
            import traceback
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            os._exit(code)
    status = os.waitpid(pid, 0)[1]
    end_descendants()
    return os.waitstatus_to_exitcode(status)


def _answer(argv: Sequence[str]) -> int:
    from oracle.spec import load_rulebook

    from conformance.backends.loading import load_backend
    name, specs = argv
    backend = load_backend(name, rulebook=load_rulebook(specs))
    answer = {"reference_derived": reference_derived(backend), "imports": imported()}
    print(MARK + json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
