"""What was certified, named by digest: the files of a Python backend's package (and its version), or the
program an `exec:` command resolves to (and a script's interpreter), so that a bundle says which artefact
its verdict is about and a receiver can check that the one they hold is it.

Nothing here imports or runs the backend in the kit's process: a package is found on the module path as
`python -m` would find it (its top-level name only, which executes none of its code) and read as files;
what the backend's process imports besides, and whether it runs the kit's reference, is asked of a process
of its own (conformance/backends/imports.py). The digest of a Python backend covers both: its package's
files and every module its process imported from outside the standard library and the kit.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shlex
import shutil
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from conformance.backends.imports import distribution_version as _version
from conformance.backends.imports import file_digest

SKIPPED = {"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache"}
MAX_FILES = 20_000              # a package larger than this is named by its first files, and says so


def tree_digest(root: Path) -> tuple[str, int]:
    """SHA-256 of a folder's manifest (`<sha256>  <relative path>` per file, sorted), and its file count."""
    lines = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = Path(folder) / name
            if path.is_file() and len(lines) < MAX_FILES:
                lines.append(f"{file_digest(path)}  {path.relative_to(root).as_posix()}")
    return hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest(), len(lines)


def _python_artefact(name: str, module: str, rulebook: Any) -> dict[str, Any]:
    top = module.split(".")[0]
    if top in ("oracle", "conformance"):       # the kit's own reference: its two packages, as installed
        import oracle
        packages = (Path(oracle.__file__).resolve().parent, Path(__file__).resolve().parents[1])
        digest = hashlib.sha256("\n".join(tree_digest(p)[0] for p in packages).encode()).hexdigest()
        from conformance.backends.contract import kit_version
        return {"backend": name, "kind": "kit", "name": "ascend-conformance", "version": kit_version(),
                "sha256": digest, "reference_derived": True}
    spec = importlib.util.find_spec(top)
    if spec is None or spec.origin is None and not spec.submodule_search_locations:
        return {"backend": name, "kind": "python", "name": top, "error": f"module {top!r} not found on the path"}
    locations = list(spec.submodule_search_locations or [])
    if locations:
        root = Path(locations[0])
        digest, files = tree_digest(root)
    else:
        root = Path(spec.origin)
        digest, files = file_digest(root), 1
    from conformance.backends.imports import digest_of, probe
    made_of = probe(name, rulebook)
    imports = made_of.get("imports") or []
    out = {"backend": name, "kind": "python", "name": top, "path": str(root), "files": files,
           "version": _version(top), "package_sha256": digest,
           "reference_derived": made_of.get("reference_derived") is True, "imports": imports,
           "sha256": hashlib.sha256(f"{digest}\n{digest_of(imports)}".encode()).hexdigest()}
    if made_of.get("error"):
        out["imports_error"] = str(made_of["error"])
    return out


def _interpreter(path: str) -> str | None:
    """The program a script's `#!` line names (its first word; `/usr/bin/env X` resolves X)."""
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n")[0].decode("utf-8", "replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env" and len(words) > 1:
        return shutil.which(words[1])
    return words[0]


def _exec_artefact(name: str, command: str) -> dict[str, Any]:
    argv = shlex.split(command)
    program = shutil.which(argv[0]) if argv else None
    if program is None:
        return {"backend": name, "kind": "program", "error": f"{argv[0] if argv else ''!r} not found"}
    out: dict[str, Any] = {"backend": name, "kind": "program", "name": os.path.basename(program),
                           "path": os.path.realpath(program), "sha256": file_digest(program)}
    interpreter = _interpreter(program)
    if interpreter and os.path.isfile(interpreter):
        out["interpreter"] = {"path": os.path.realpath(interpreter), "sha256": file_digest(interpreter)}
    # files the command line names (a script given to an interpreter, a model file): part of what ran
    named = [a for a in argv[1:] if not a.startswith("-") and os.path.isfile(a)]
    if named:
        out["arguments"] = [{"path": os.path.realpath(a), "sha256": file_digest(a)} for a in named]
    return out


def artefact(name: str, rulebook: Any) -> dict[str, Any]:
    """What backend `name` (as --backend takes it) is, by digest (a Python backend loaded, in a process of
    its own, with the specs of `rulebook`)."""
    if name.startswith("exec:"):
        return _exec_artefact(name, name[len("exec:"):].strip())
    if name == "oracle":
        return _python_artefact(name, "oracle", rulebook)
    if ":" in name:
        return _python_artefact(name, name.partition(":")[0], rulebook)
    found = [ep for ep in metadata.entry_points(group="ascend_conformance.backends") if ep.name == name]
    if found:
        return _python_artefact(name, found[0].value.partition(":")[0], rulebook) | {"entry_point": found[0].value}
    return {"backend": name, "kind": "unknown", "error": "not a module, an entry point or a program"}


def subjects(described: dict[str, Any]) -> list[dict[str, Any]]:
    """The artefact as in-toto subjects: each digest it has, named."""
    out = []
    if described.get("sha256"):
        out.append({"name": described.get("path") or described.get("name") or described["backend"],
                    "digest": {"sha256": described["sha256"]}})
    for extra in [described.get("interpreter")] + list(described.get("arguments") or []):
        if extra:
            out.append({"name": extra["path"], "digest": {"sha256": extra["sha256"]}})
    return out


if __name__ == "__main__":          # pragma: no cover - a look at what a name resolves to: NAME SPECS_FOLDER
    import json

    from oracle.spec import load_rulebook
    print(json.dumps(artefact(sys.argv[1], load_rulebook(sys.argv[2])), indent=2))
