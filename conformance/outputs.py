"""The report folder: everything a run (or `report`, or `certify`) leaves for people and dashboards,
all made from one results document:

    results.json            every cell's verdict counts and failures (conformance/results.py)
    junit.xml               one test case per cell, for CI dashboards (conformance/junit.py)
    report-<product>.html   one self-contained page per product (conformance/htmlreport.py)
    repro/<cell>.yaml       one reproducer per failure: `ascend-conformance replay FILE --backend B`

Reproducer paths in results.json are relative to the folder, so a folder handed on keeps working.

Every file is made in memory first, then written to a temporary file beside its place and renamed
into it (`write_atomic`): a run killed while writing leaves each file whole, old or new, and a report
that fails to render touches nothing.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml

from .htmlreport import render_reports
from .junit import junit_bytes
from .text import cut

REPRO_FIELDS = ("cell", "verdict", "message", "expect", "rule", "call", "memory")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPES = {code: f"\\u{code:04x}" for code in range(0xD800, 0xE000)}
# libyaml's emitter where there is one: PyYAML's own takes a minute over a message of 50 MB.
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def reproducer_name(cell_id: str, kind: str = "") -> str:
    """repro/<cell id with every run of odd characters as '__'>[.<kind>].yaml (kind: 'diverge' for the
    call two backends parted on, under --against). No separator, no '..': the name stays inside repro/
    whatever the id."""
    return "repro/" + re.sub(r"[^A-Za-z0-9_.-]+", "__", cell_id).lstrip(".") + (f".{kind}" if kind else "") + ".yaml"


def reproducer_text(failure: dict[str, Any]) -> str:
    """The reproducer file of a failure. Its message is cut to what a report shows (text.cut), so that
    a backend's 100 MB message cannot make a reproducer too large to replay (results.json keeps it)."""
    body = _no_surrogates({k: failure.get(k) for k in REPRO_FIELDS})
    if isinstance(body["message"], str):
        body["message"] = cut(body["message"])
    head = ("# ascend-conformance reproducer: one call and the memory it ran on.\n"
            "#   ascend-conformance check THIS_FILE                 legality and expected image\n"
            "#   ascend-conformance replay THIS_FILE --backend B    run it again on a backend\n")
    # Controls and non-characters are written as escapes in double quotes, which read back equal.
    return head + yaml.dump(body, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=110)


def _no_surrogates(value: Any) -> Any:
    """YAML cannot hold a lone surrogate (libyaml refuses its escape): it is written as the text of its
    escape, `\\udc80`, the one loss a reproducer has (results.json keeps it)."""
    if isinstance(value, str):
        return value.translate(_SURROGATE_ESCAPES) if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {_no_surrogates(k): _no_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_surrogates(v) for v in value]
    return value


def json_text(data: Any) -> str:
    """JSON that holds any string a backend sent: a lone surrogate (which UTF-8 cannot encode) is
    written as its \\uXXXX escape, which reads back to the same string; other characters stay as
    they are, so the file remains readable."""
    text = json.dumps(data, indent=1, ensure_ascii=False)
    return text.translate(_SURROGATE_ESCAPES) if _SURROGATE.search(text) else text


_UMASK = os.umask(0o022)
os.umask(_UMASK)


def write_atomic(path: Path, data: str | bytes) -> Path:
    """Write `data` (text as UTF-8) to `path` through a temporary file in the same folder renamed into
    place: readers see the old file or the new one, never half of one."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)          # as an ordinary file would be, not mkstemp's 0600
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def inside(folder: Path, name: str) -> Path:
    """folder/name for a name the kit built; refused if it would land outside the folder."""
    path = folder / name
    parts = Path(name).parts
    if Path(name).is_absolute() or ".." in parts or not parts:
        raise ValueError(f"{name!r}: not a path inside {folder}")
    return path


def render_outputs(results: dict[str, Any], folder: Path) -> dict[str, str | bytes]:
    """Every file of the report folder as {relative path: content}, made in memory; sets each failure's
    `reproducer` (its path relative to the folder) on the way."""
    files: dict[str, str | bytes] = {}
    divergences = (results.get("agreement") or {}).get("divergences", [])
    for failure in results["failures"] + divergences:
        name = reproducer_name(failure["cell"], "diverge" if failure["verdict"] == "DIVERGE" else "")
        failure["reproducer"] = name
        files[name] = reproducer_text(failure)
    files.update(render_reports(results))
    files["junit.xml"] = junit_bytes(results, f"{folder}/" if str(folder) not in ("", ".") else "")
    files["results.json"] = json_text(results)          # last: it is what marks the folder complete
    return files


def write_outputs(results: dict[str, Any], folder: Path | str) -> dict[str, Any]:
    """Write the whole report folder for `results` (a finished results document) and return the paths
    written: {"results": ..., "junit": ..., "html": [...], "repro": [...]}.

    Nothing is touched until every file is made; then the new reproducers go in, those of an earlier
    run that this one does not have go (each file under repro/ is one of this report), and the other
    files replace theirs, results.json last."""
    folder = Path(folder)
    files = render_outputs(results, folder)
    paths = {name: inside(folder, name) for name in files}
    folder.mkdir(parents=True, exist_ok=True)
    repro = [name for name in files if name.startswith("repro/")]
    if repro:
        (folder / "repro").mkdir(exist_ok=True)
    for name in repro:
        write_atomic(paths[name], files[name])
    keep = {paths[name].name for name in repro}
    if (folder / "repro").is_dir():
        for old in (folder / "repro").glob("*.yaml"):
            if old.name not in keep:
                old.unlink()
    for name, content in files.items():
        if name not in repro:
            write_atomic(paths[name], content)
    return {"results": paths["results.json"], "junit": paths["junit.xml"],
            "html": [paths[n] for n in files if n.startswith("report-")],
            "repro": [paths[n] for n in repro]}
