"""What pytest users reach for, on `run`: --list (the cells, nothing run), -x / --maxfail N (stop after N
failing cells), --lf (re-run what failed in the report folder's last run)."""
from __future__ import annotations

import json

from tests.commands.test_cli import cli, modules  # noqa: F401  (the fixture: a module of user backends)

BUGGY = "userbackends:OneBurstTooFew"
BASE = ["run", "--product", "ascend910b", "--api", "data_move", "--profile", "quick", "-n", "1", "--seed", "3"]


def test_list_prints_the_cells_and_runs_nothing(tmp_path):
    done = cli(*BASE, "--backend", "oracle", "--select", "data_move/*/legal/*", "--list", "--report", "r", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ids = done.stdout.split()
    assert ids and all(i.startswith("data_move/ascend910b/legal/") for i in ids)
    assert f"{len(ids)} cells" in done.stderr and not (tmp_path / "r").exists()
    declared = cli(*BASE, "--backend", "oracle", "--reading", "data_move.sid.reserved=same_data", "--list", cwd=tmp_path)
    assert "data_move/ascend910b/ambiguity/data_move.sid.reserved" in declared.stdout.split()


def test_exitfirst_stops_after_the_first_failing_cell(tmp_path, modules):  # noqa: F811
    select = ["--select", "data_move/*/legal/*"]
    whole = cli(*BASE, "--backend", BUGGY, *select, "--report", "all", cwd=tmp_path, extra_path=modules)
    failing = [c for c in json.loads((tmp_path / "all" / "results.json").read_text())["cells"] if c.get("failure")]
    assert whole.returncode == 1 and len(failing) >= 2
    first = cli(*BASE, "--backend", BUGGY, *select, "-x", "--report", "x", cwd=tmp_path, extra_path=modules)
    assert first.returncode == 1, first.stdout + first.stderr
    results = json.loads((tmp_path / "x" / "results.json").read_text())
    assert sum(1 for c in results["cells"] if c.get("failure")) == 1 and results["maxfail"] == 1
    assert len(results["cells"]) < len(results["planned"]) and results["verdict"] == "NOT CONFORMANT"
    assert "stopped after 1 failing cell(s) (--maxfail 1)" in first.stdout


def test_last_failed_reruns_what_failed(tmp_path, modules):  # noqa: F811
    select = ["--select", "data_move/*/legal/*", "--select", "data_move/*/reject/data_move.burst.range"]
    cli(*BASE, "--backend", BUGGY, *select, "--report", "r", cwd=tmp_path, extra_path=modules)
    before = json.loads((tmp_path / "r" / "results.json").read_text())
    failed = {c["id"] for c in before["cells"] if c.get("failure")}
    assert failed and len(failed) < len(before["cells"])
    again = cli(*BASE, "--backend", BUGGY, "--lf", "--report", "r", cwd=tmp_path, extra_path=modules)
    after = json.loads((tmp_path / "r" / "results.json").read_text())
    assert {c["id"] for c in after["cells"]} == failed, again.stderr
    assert f"re-running the {len(failed)} cell(s) that failed" in again.stderr
    fixed = cli(*BASE, "--backend", "oracle", "--lf", "--report", "r", cwd=tmp_path)
    assert fixed.returncode == 0 and {c["id"] for c in json.loads((tmp_path / "r" / "results.json").read_text())["cells"]} == failed
    nothing = cli(*BASE, "--backend", "oracle", "--lf", "--select", "data_move/*/legal/int8", "--report", "r", cwd=tmp_path)
    assert nothing.returncode == 0 and "no cell failed in the last run" in nothing.stderr
