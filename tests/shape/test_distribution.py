"""The kit a user installs is the kit these tests test. The wheel built from this checkout holds every module
of `oracle/` and `conformance/` and every data file beside them (the specs, the schema, the templates, the
frozen case list); installed by itself into a fresh environment, every entry point works from a folder
outside the checkout: each subcommand's help, `run`, `certify`, `verify`, `specs`, `replay`,
`python -m conformance`, the pytest front end and `serve` behind an `exec:` backend."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kit_path import ROOT

PACKAGES = {"oracle": "oracle", "conformance": "conformance", "specs": "oracle/specs"}  # checkout -> wheel
BUILD_FILES = ("pyproject.toml", "setup.py", "README.md")
SKIPPED = ("__pycache__",)
NARROW = ("--product", "ascend910b", "--api", "data_move", "--profile", "quick", "--seed", "1")

LAZY = '''
"""A backend that leaves every image as it was handed (every legal call that writes is a FAIL)."""
class Lazy:
    name = "lazy"
    def supports(self, api, product):
        return True
    def run(self, call, memory):
        pass
'''


def source_files() -> dict[str, Path]:
    """Every file of the checkout's packages, by the path it has in the wheel."""
    found = {}
    for folder, inside in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and not any(part in SKIPPED for part in path.parts):
                found[f"{inside}/{path.relative_to(ROOT / folder).as_posix()}"] = path
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of this checkout, built from a copy of what a build reads (the checkout is not written)."""
    tree = tmp_path_factory.mktemp("tree")
    for name in BUILD_FILES:
        shutil.copy2(ROOT / name, tree / name)
    for folder in PACKAGES:
        shutil.copytree(ROOT / folder, tree / folder, ignore=shutil.ignore_patterns(*SKIPPED))
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                            "--wheel-dir", str(out), str(tree)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    (path,) = out.glob("ascend_conformance-*.whl")
    return path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh environment holding the wheel alone (its dependencies seen from this one): its bin folder."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    # --ignore-installed: the kit installed where this suite runs is seen from the new environment too, and
    # pip would take it for this wheel
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps",
                           "--no-index", "--ignore-installed", str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    kit = subprocess.run([str(venv / "bin" / "python"), "-c", "import conformance; print(conformance.__file__)"],
                         cwd=venv, capture_output=True, text=True, timeout=60)
    assert Path(kit.stdout.strip()).is_relative_to(venv), kit.stdout + kit.stderr
    return venv / "bin"


def user(bin_folder: Path, *argv: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """A command run as a user runs it: the environment's bin folder first on PATH, no module path of ours."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONSAFEPATH") and not k.startswith("PYTEST_")}
    env.update(PATH=os.pathsep.join([str(bin_folder), env.get("PATH", "")]), NO_COLOR="1")
    return subprocess.run(list(argv), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_the_wheel_holds_every_module_and_data_file_of_the_checkout(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(set(source_files()) - names)
    assert not missing, f"{wheel.name} lacks {len(missing)} file(s) of the checkout: {missing[:10]}"
    for kind in (".py", ".yaml", ".json", ".j2", ".jsonl.gz"):
        assert any(n.endswith(kind) for n in names), kind
    assert {"oracle/kinds/__init__.py", "oracle/specs/schema.yaml", "conformance/generate/frozen_cases.jsonl.gz",
            "conformance/report/templates/report.html.j2"} <= names


def test_the_wheel_holds_nothing_but_the_kit(wheel):
    tops = {n.split("/")[0] for n in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"oracle", "conformance"}
    entry_points = next(zipfile.Path(wheel, n) for n in zipfile.ZipFile(wheel).namelist()
                        if n.endswith(".dist-info/entry_points.txt")).read_text()
    assert "ascend-conformance = conformance.commands.launch:command" in entry_points
    assert "conformance.commands.pytest_plugin = conformance.commands.pytest_plugin" in entry_points


def test_every_subcommand_answers_help(installed, tmp_path):
    top = user(installed, "ascend-conformance", "--help", cwd=tmp_path)
    assert top.returncode == 0, top.stderr
    subcommands = re.search(r"\{([a-z,]+)\}", top.stdout).group(1).split(",")
    assert {"run", "certify", "verify", "specs", "replay", "serve"} <= set(subcommands)
    for name in subcommands:
        done = user(installed, "ascend-conformance", name, "--help", cwd=tmp_path)
        assert done.returncode == 0 and f"usage: ascend-conformance {name}" in done.stdout, (name, done.stderr)
    version = user(installed, "ascend-conformance", "--version", cwd=tmp_path)
    assert "+source" not in version.stdout and "0." in version.stdout, version.stdout


def test_run_from_a_folder_of_its_own_writes_a_conformant_report(installed, tmp_path):
    """The folder holds a package named `oracle` of its own: neither the command nor the backend's host
    process may take it for the kit."""
    (tmp_path / "oracle").mkdir()
    (tmp_path / "oracle" / "__init__.py").write_text("raise SystemExit('not the kit')\n")
    done = user(installed, "ascend-conformance", "run", "--backend", "oracle", *NARROW, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((tmp_path / "reports" / "results.json").read_text())
    assert results["verdict"] == "CONFORMANT" and "+source" not in results["kit"]["version"]
    assert "CONFORMANT" in (tmp_path / "reports" / "report-ascend910b.html").read_text()
    assert (tmp_path / "reports" / "junit.xml").is_file()


def test_python_m_conformance_and_specs(installed, tmp_path):
    done = user(installed, str(installed / "python"), "-m", "conformance", "specs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for name in ("ascend910b", "ascend310p-vectorcore", "data_move", "data_copy_pad"):
        assert name in done.stdout


def test_certify_then_verify(installed, tmp_path):
    made = user(installed, "ascend-conformance", "certify", "--backend", "oracle", "--product", "ascend910b",
                "--api", "data_move", "--bundle", "bundle", cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    checked = user(installed, "ascend-conformance", "verify", "bundle", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "VERIFIED: CONFORMANT" in checked.stdout


def test_a_failing_run_then_replay_of_its_reproducer(installed, tmp_path):
    (tmp_path / "lazymod.py").write_text(LAZY)
    failed = user(installed, "ascend-conformance", "run", "--backend", "lazymod:Lazy", *NARROW, cwd=tmp_path)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    reproducers = sorted((tmp_path / "reports" / "repro").glob("*.yaml"))
    assert reproducers, failed.stdout
    still = user(installed, "ascend-conformance", "replay", str(reproducers[0]), "--backend", "lazymod:Lazy",
                 cwd=tmp_path)
    assert still.returncode == 1 and "STILL FAILING" in still.stdout, still.stdout + still.stderr
    fixed = user(installed, "ascend-conformance", "replay", str(reproducers[0]), "--backend", "oracle",
                 cwd=tmp_path)
    assert fixed.returncode == 0 and "FIXED" in fixed.stdout, fixed.stdout + fixed.stderr


def test_serve_behind_an_exec_backend(installed, tmp_path):
    done = user(installed, "ascend-conformance", "run", "--backend", "exec:ascend-conformance serve oracle",
                *NARROW, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CONFORMANT for data_move on ascend910b" in done.stdout


def test_the_pytest_front_end_from_a_project_of_its_own(installed, tmp_path):
    done = user(installed, str(installed / "python"), "-m", "pytest", "-p", "no:randomly", "--ascend-backend",
                "oracle", "--ascend-product", "ascend910b", "--ascend-api", "data_move", "--ascend-profile",
                "quick", "--ascend-seed", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "27 passed" in done.stdout and "CONFORMANT for data_move on ascend910b" in done.stdout


def test_the_suite_runs_the_installed_kit_where_ci_runs_it():
    """Under CI the kit is installed as the README's test command installs it (not editable): a test run
    that imports the checkout instead would let a module missing from the distribution pass."""
    if os.environ.get("CI", "").lower() != "true":
        pytest.skip("outside CI an editable install (the checkout itself) is allowed")
    import oracle
    assert ROOT not in Path(oracle.__file__).resolve().parents, oracle.__file__


OPENED = '''
import sys, atexit, runpy
opened = set()
sys.addaudithook(lambda event, args: opened.add(str(args[0])) if event == "open" and isinstance(args[0], str) else None)
atexit.register(lambda: open("opened.json", "w").write(__import__("json").dumps(sorted(opened))))
sys.argv = ["ascend-conformance", *sys.argv[1:]]
runpy.run_module("conformance", run_name="__main__")
'''


def test_the_installed_kit_reads_its_own_files_never_the_checkouts(installed, wheel, tmp_path):
    done = user(installed, str(installed / "python"), "-c", OPENED, "run", "--backend", "oracle", *NARROW,
                cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    opened = [(tmp_path / p).resolve() for p in json.loads((tmp_path / "opened.json").read_text())]
    assert not [p for p in opened if ROOT in p.parents], "the installed kit read files of the checkout"
    site = installed.parent / "lib"
    kit_files = {p.relative_to(next(q for q in p.parents if q.name == "site-packages")).as_posix()
                 for p in opened if site in p.parents and {"oracle", "conformance"} & set(p.parts)
                 and "__pycache__" not in p.parts}
    assert "oracle/specs/schema.yaml" in kit_files and "conformance/report/templates/report.html.j2" in kit_files
    assert kit_files <= set(zipfile.ZipFile(wheel).namelist())
