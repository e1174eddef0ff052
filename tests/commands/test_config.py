"""A project's settings file: `ascend-conformance.toml` (or `[tool.ascend-conformance]` in pyproject.toml)
gives the options the command line leaves out; the command line wins; a bad file is one line naming it."""
from __future__ import annotations

import json

import pytest

from conformance.commands.cli import main, parser
from conformance.commands.config import with_settings

SETTINGS = '''backend = "oracle"
products = ["ascend910b"]
apis = ["data_move"]
profile = "quick"
readings = {"data_move.sid.reserved" = "same_data"}
report = "from-settings"
workers = 1
'''


def test_the_settings_fill_in_what_the_line_leaves_out(tmp_path):
    (tmp_path / "ascend-conformance.toml").write_text(SETTINGS)
    argv = with_settings(["run", "--product", "ascend310b"], parser(), tmp_path)
    assert argv[0] == "run" and argv[-2:] == ["--product", "ascend310b"]
    assert "ascend910b" not in argv                                  # the line's products win
    assert argv.count("--backend") == 1 and "--reading" in argv and "data_move.sid.reserved=same_data" in argv
    assert with_settings(["specs", "--api", "scatter"], parser(), tmp_path) == ["specs", "--api", "scatter"]
    assert with_settings(["run", "--help"], parser(), tmp_path) == ["run", "--help"]


def test_a_run_from_the_settings_alone(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.ascend-conformance]\n" + SETTINGS)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--select", "data_move/*/legal/int8", "--select", "*/ambiguity/*"]) == 0
    results = json.loads((tmp_path / "from-settings" / "results.json").read_text())
    assert results["profile"] == "quick" and results["products"] == ["ascend910b"]
    assert results["readings"] == {"data_move.sid.reserved": {"reading": "same_data", "by": "command line"}}
    assert {c["id"] for c in results["cells"]} == {"data_move/ascend910b/legal/int8",
                                                   "data_move/ascend910b/ambiguity/data_move.sid.reserved"}


@pytest.mark.parametrize("text, said", [
    ('prodcuts = ["ascend910b"]', "ascend-conformance.toml: prodcuts: unknown setting (did you mean products?)"),
    ('products = "ascend910b"', "ascend-conformance.toml: products: expected a list of strings, got str"),
    ('timeout = "soon"', "ascend-conformance.toml: timeout: expected a number"),
    ('workers = true', 'ascend-conformance.toml: workers: expected a number or "auto"'),
    ('backend = [', "ascend-conformance.toml: not valid TOML"),
])
def test_a_bad_settings_file_is_one_line(tmp_path, monkeypatch, capsys, text, said):
    (tmp_path / "ascend-conformance.toml").write_text(text + "\n")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--backend", "oracle", "--product", "ascend910b"]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1, err


def test_pyproject_without_the_table_is_no_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert with_settings(["run"], parser(), tmp_path) == ["run"]
