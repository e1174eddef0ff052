"""The report folder: everything a run (or `report`, or `certify`) leaves for people and dashboards,
all made from one results document:

    results.json            every cell's verdict counts and failures (conformance/report/results.py)
    junit.xml               one test case per cell, for CI dashboards (conformance/report/junit.py)
    report-<product>.html   one self-contained page per product (conformance/report/html.py)
    repro/<cell>.yaml       one reproducer per failure: `ascend-conformance replay FILE --backend B`

Reproducer paths in results.json are relative to the folder, so a folder handed on keeps working.

Every file is made in memory first, then written to a temporary file beside its place and renamed
into it (`write_atomic`): a run killed while writing leaves each file whole, old or new, and a report
that fails to render touches nothing.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from oracle.spec import Rulebook

from conformance.judge.reproducers import REPRO_FIELDS, reproducer_name
from conformance.report.files import inside, json_text, no_surrogates, write_atomic
from conformance.report.html import render_reports
from conformance.report.junit import junit_bytes
from conformance.report.text import cut



def reproducer_text(failure: dict[str, Any]) -> str:
    """The reproducer file of a failure. Its message is cut to what a report shows (text.cut), so that
    a backend's 100 MB message cannot make a reproducer too large to replay (results.json keeps it)."""
    body = no_surrogates({k: failure.get(k) for k in REPRO_FIELDS if k != "readings" or failure.get(k)})
    if isinstance(body["message"], str):
        body["message"] = cut(body["message"])
    head = ("# ascend-conformance reproducer: one call and the memory it ran on.\n"
            "#   ascend-conformance check THIS_FILE                 legality and expected image\n"
            "#   ascend-conformance replay THIS_FILE --backend B    run it again on a backend\n")
    # Controls and non-characters are written as escapes in double quotes, which read back equal.
    import yaml                 # here: a run without failures writes no YAML
    # libyaml's emitter where there is one: PyYAML's own takes a minute over a message of 50 MB.
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return head + yaml.dump(body, Dumper=dumper, sort_keys=False, allow_unicode=True, width=110)


def render_outputs(results: dict[str, Any], folder: Path, rulebook: Rulebook) -> dict[str, str | bytes]:
    """Every file of the report folder as {relative path: content}, made in memory (the pages by the specs
    of `rulebook`); sets each failure's `reproducer` (its path relative to the folder) on the way."""
    files: dict[str, str | bytes] = {}
    divergences = (results.get("agreement") or {}).get("divergences", [])
    for failure in results["failures"] + divergences:
        name = reproducer_name(failure["cell"], "diverge" if failure["verdict"] == "DIVERGE" else "")
        failure["reproducer"] = name
        files[name] = reproducer_text(failure)
    repro_folder = f"{folder}/" if str(folder) not in ("", ".") else ""     # as the run was given it
    files.update(render_reports(results, rulebook, repro_folder=repro_folder))
    files["junit.xml"] = junit_bytes(results, repro_folder)
    files["results.json"] = json_text(results)          # last: it is what marks the folder complete
    return files


def write_outputs(results: dict[str, Any], folder: Path | str, rulebook: Rulebook,
                  shown: Path | None = None) -> dict[str, Any]:
    """Write the whole report folder for `results` (a finished results document, judged by the specs of
    `rulebook`) and return the paths written: {"results": ..., "junit": ..., "html": [...], "repro": [...]}.
    `shown`: the folder the reports name in their replay commands, where the files are written elsewhere
    first (a bundle's private folder).

    Nothing is touched until every file is made; then the new reproducers go in, those of an earlier
    run that this one does not have go (each file under repro/ is one of this report), and the other
    files replace theirs, results.json last."""
    folder = Path(folder)
    return write_rendered(render_outputs(results, shown or folder, rulebook), folder)


def write_rendered(files: dict[str, str | bytes], folder: Path) -> dict[str, Any]:
    """Write the files render_outputs made into `folder`, as write_outputs says; the paths written."""
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
