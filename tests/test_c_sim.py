"""The example simulator in C (examples/c_sim) over the exec protocol: built with the system compiler
by its Makefile, certified CONFORMANT by the kit on a product where both its apis exist, and its
planted-bug variant caught. Skipped, saying why, where there is no C compiler or make."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from test_cli import cli

SOURCES = Path(__file__).resolve().parent.parent / "examples" / "c_sim"
TOOLS = [t for t in ("make", "cc") if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(bool(TOOLS), reason=f"no {' or '.join(TOOLS)} on this machine to build examples/c_sim")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A copy of the sources built by their Makefile (the checkout itself stays clean)."""
    folder = tmp_path_factory.mktemp("c_sim")
    for source in SOURCES.iterdir():
        if source.suffix in (".c", ".h") or source.name == "Makefile":
            shutil.copy(source, folder)
    done = subprocess.run(["make", "-C", str(folder)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (folder / "c_sim").is_file() and (folder / "c_sim_buggy").is_file()
    return folder


def test_certified_conformant(built, tmp_path):
    done = cli("certify", "--backend", f"exec:{built / 'c_sim'}", "--product", "ascend910b", "--api", "data_move",
               "--api", "data_copy_nz2nd", "--profile", "quick", "--bundle", "b", "-n", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    results = json.loads((tmp_path / "b" / "results.json").read_text())
    assert results["verdict"] == "CONFORMANT" and results["backend"]["name"] == "c-sim"
    kinds = {c["cell"]["api"] for c in results["cells"] if c["status"] == "ran"}
    assert kinds == {"data_move", "data_copy_nz2nd"} and results["calls"] > 1000


def test_refuses_an_api_its_product_lacks(built, tmp_path):
    """On the inference AI Core data_copy_nz2nd exists and data_move too; on the 310B the page lists no
    data_copy_nz2nd: every call of it must be refused, and it is."""
    done = cli("run", "--backend", f"exec:{built / 'c_sim'}", "--product", "ascend310b", "--api", "data_copy_nz2nd",
               "--profile", "quick", "--report", "r", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    (cell,) = json.loads((tmp_path / "r" / "results.json").read_text())["cells"]
    assert cell["id"] == "data_copy_nz2nd/ascend310b/reject/data_copy_nz2nd.product.supported"
    assert cell["counts"] == {"PASS": 25}


def test_planted_bug_is_caught(built, tmp_path):
    done = cli("run", "--backend", f"exec:{built / 'c_sim_buggy'}", "--product", "ascend910b", "--api", "data_move",
               "--profile", "quick", "--seed", "1", "--report", "r", "-n", "2", cwd=tmp_path)
    assert done.returncode == 1 and "NOT CONFORMANT" in done.stdout, done.stdout[-3000:] + done.stderr
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    failures = results["failures"]
    assert failures and all(f["verdict"] in ("FAIL", "MISSED_REJECT", "FALSE_REJECT") for f in failures)
    replay = cli("replay", f"r/{failures[0]['reproducer']}", "--backend", f"exec:{built / 'c_sim_buggy'}",
                 cwd=tmp_path)
    assert replay.returncode == 1 and "STILL FAILING" in replay.stdout
    fixed = cli("replay", f"r/{failures[0]['reproducer']}", "--backend", f"exec:{built / 'c_sim'}", cwd=tmp_path)
    assert fixed.returncode == 0 and "FIXED" in fixed.stdout
