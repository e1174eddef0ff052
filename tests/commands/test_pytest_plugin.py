"""The pytest front end (conformance/commands/pytest_plugin.py) as a team's CI runs it: pytest in a
project folder of its own, the kit's cells as items, pytest's -k, -x, --lf and --junitxml on them, the
kit's verdict deciding the exit status. Each run is a pytest process of its own (the plugin named with
-p, as the installed entry point names it)."""
from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kit_path import HELPERS
ROOT = Path(__file__).resolve().parents[2]
NARROW = ["--ascend-product", "ascend910b", "--ascend-api", "data_move", "--ascend-profile", "quick",
          "--ascend-seed", "1"]
STRIDE_BUG = "buggy_backends:StrideHeadToHead"


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HELPERS), str(ROOT / "tests")]), "NO_COLOR": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "conformance.commands.pytest_plugin",
                           "-p", "no:randomly", *args], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600)


def test_a_conforming_backend_passes_every_cell_and_the_kit_writes_its_report(tmp_path):
    done = pytest_in(tmp_path, "--ascend-backend", "oracle", *NARROW, "--junitxml", "pytest.xml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "27 passed" in done.stdout
    assert "CONFORMANT for data_move on ascend910b" in done.stdout
    assert (tmp_path / "reports" / "results.json").is_file()
    cases = ET.parse(tmp_path / "pytest.xml").getroot().iter("testcase")
    names = {c.get("name") for c in cases}
    assert "data_move/ascend910b/legal/int8" in names and len(names) == 27


def test_a_buggy_backend_fails_with_the_kits_message_and_x_stops_at_the_first(tmp_path):
    done = pytest_in(tmp_path, "--ascend-backend", STRIDE_BUG, *NARROW, "-x")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout and "passed" not in done.stdout.splitlines()[-1]
    assert "wrong byte(s)" in done.stdout
    assert f"ascend-conformance replay reports/repro/" in done.stdout and STRIDE_BUG in done.stdout
    assert "NOT CONFORMANT" in done.stdout


def test_lf_reruns_the_cells_that_failed_and_the_scope_says_it_was_narrowed(tmp_path):
    first = pytest_in(tmp_path, "--ascend-backend", STRIDE_BUG, *NARROW, "-k", "legal and (int8 or int16)", "--lf")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "4 failed" in first.stdout        # int8, uint8, int16, uint16
    again = pytest_in(tmp_path, "--ascend-backend", STRIDE_BUG, *NARROW, "--lf")
    assert again.returncode == 1
    assert "4 failed, 23 deselected" in again.stdout, again.stdout
    assert "pytest --lf (4 of 27 cells)" in again.stdout


def test_k_narrows_the_cells_and_collect_only_runs_none(tmp_path):
    done = pytest_in(tmp_path, "--ascend-backend", "oracle", *NARROW, "--collect-only", "-q", "-k", "reject")
    assert done.returncode == 0, done.stdout + done.stderr
    listed = [line for line in done.stdout.splitlines() if line.startswith("ascend-conformance::")]
    assert listed and all("/reject/" in line for line in listed)
    assert not (tmp_path / "reports" / "results.json").exists()


def test_a_run_the_kit_does_not_pass_never_exits_0_even_when_every_item_is_skipped(tmp_path):
    (tmp_path / "nothing.py").write_text("from conformance.backends.contract import OracleBackend\n\n"
                                         "class Nothing(OracleBackend):\n"
                                         "    def supports(self, api, product):\n        return False\n")
    done = pytest_in(tmp_path, "--ascend-backend", "nothing:Nothing", *NARROW)
    assert "27 skipped" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 1
    assert "NOTHING TESTED" in done.stdout or "INCOMPLETE" in done.stdout


@pytest.mark.parametrize("args, says", [
    (["--ascend-backend", "oracle", "--ascend-profile", "quik"], "--ascend-profile: invalid choice: 'quik'"),
    (["--ascend-backend", "oracle", "--ascend-product", "ascend91b"], "did you mean ascend910b?"),
    (["--ascend-backend", "oracle", "--ascend-product", "ascend910b", "-n", "2"], "rather than pytest-xdist's -n"),
])
def test_bad_options_are_one_pytest_usage_error(tmp_path, args, says):
    done = pytest_in(tmp_path, *args)
    assert done.returncode == 4, done.stdout + done.stderr
    assert says in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_a_backend_that_cannot_load_is_one_line_of_collection_error(tmp_path):
    done = pytest_in(tmp_path, "--ascend-backend", "nosuch:X", *NARROW)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "ascend-conformance: backend 'nosuch:X': cannot import module 'nosuch'" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_without_its_options_the_plugin_leaves_pytest_alone(tmp_path):
    (tmp_path / "test_mine.py").write_text("def test_one():\n    assert True\n")
    done = pytest_in(tmp_path, "-q")
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
    assert "ascend-conformance" not in done.stdout and not (tmp_path / "reports").exists()
