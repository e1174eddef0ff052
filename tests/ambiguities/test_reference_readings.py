"""The built-in reference follows the readings a run declares: `--backend oracle --reading A=R` loads
`oracle+A=R` (and `oracle@EDITION+A=R` under an edition), whose index math is the reading's. Without
it, a reading that moves bytes otherwise (scatter's 8-bit repeat of 128 elements) would fail the
reference against its own oracle."""
from __future__ import annotations

import json

import pytest

from command import cli
from conformance.backends.contract import BackendLoadError
from conformance.backends.loading import load_backend
from oracle.spec import default_rulebook


def _load(name: str):
    return load_backend(name, rulebook=default_rulebook(), isolate=False)


def test_the_reference_takes_readings_in_its_name():
    assert _load("oracle+scatter.repeat.8bit=per_repeat_128").readings == {"scatter.repeat.8bit": "per_repeat_128"}
    both = _load("oracle@2026+data_move.sid.reserved=same_data").readings
    assert both["data_move.sid.reserved"] == "same_data" and both["scatter.repeat.8bit"] == "per_repeat_128"
    assert _load("oracle").readings == {}


@pytest.mark.parametrize("name, says", [("oracle+scatter.repeat.8bit=nope", "has no reading 'nope'"),
                                        ("oracle+scatter.repeat.8bit", "expected AMBIGUITY=READING"),
                                        ("oracle+no.such=thing", "unknown ambiguity 'no.such'")])
def test_a_bad_reading_in_the_name_is_a_load_error_naming_it(name, says):
    with pytest.raises(BackendLoadError, match=says):
        _load(name)


def test_the_reference_conforms_under_a_reading_that_moves_bytes(tmp_path):
    done = cli("run", "--backend", "oracle", "--product", "ascend310b", "--seed", "1", "--report", str(tmp_path),
               "--reading", "scatter.repeat.8bit=per_repeat_128", "--select", "scatter/ascend310b/ambiguity/*",
               cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    cell = next(c for c in results["cells"] if c["id"] == "scatter/ascend310b/ambiguity/scatter.repeat.8bit")
    assert cell["status"] == "ran" and cell["counts"].get("PASS", 0) > 0 and "FAIL" not in cell["counts"]
