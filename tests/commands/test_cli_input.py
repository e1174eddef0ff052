"""Bad input on the command line: one line on stderr and exit 2, with the nearest valid choice where one is
near; no abbreviated options, no silent defaults (`-n 0`, a duration without its unit, a negative seed);
a file where a folder is wanted, and the reverse, said so. And `module:attr` imports from the folder the
command was started in, as `python -m` and pytest do."""
from __future__ import annotations

import sys

import pytest

from command import cli
from conformance.commands.cli import main

RUN = ["run", "--backend", "oracle", "--product", "ascend910b", "--api", "data_move", "--profile", "quick"]


@pytest.mark.parametrize("args, said", [
    (RUN[:-1] + ["quik"], "invalid choice: 'quik' (choose from 'ci', 'nightly', 'quick') (did you mean quick?)"),
    (RUN[:-2] + ["--profil", "quick"], "unrecognized arguments: --profil quick"),
    (RUN + ["-n", "0"], "-n expects a number of workers from 1, or 'auto', got '0'"),
    (RUN + ["-n", "abc"], "-n expects a number of workers"),
    (RUN + ["--seed", "-5"], "--seed expects a whole number from 0, got '-5'"),
    (RUN + ["--shard", "3/2"], "--shard expects I/N with 1 <= I <= N"),
    (RUN + ["--timeout", "0"], "--timeout expects a number of seconds above 0"),
    (["run", "--backend", "oracle", "--product", "ascend91b"], "unknown product 'ascend91b' (did you mean ascend910b?)"),
    (["specs", "--api", "data_mvoe"], "unknown api 'data_mvoe' (did you mean data_move?)"),
    (["fuzz", "--backend", "oracle", "--product", "ascend910b", "--duration", "30"], "--duration expects a time like 90s"),
    (["run", "--backend", "oracle", "--product", "ascend910b", "--edition", "2027"], "unknown edition (known: seed, 2026)"),
])
def test_a_bad_option_is_one_line_and_exit_2(capsys, args, said):
    with pytest.raises(SystemExit) as leaving:
        code = main(args)
        raise SystemExit(code)
    err = capsys.readouterr().err
    assert leaving.value.code == 2, err
    assert len(err.strip().splitlines()) == 1 and said in err, err


def test_a_file_where_the_report_folder_should_be(tmp_path, capsys):
    there = tmp_path / "afile"
    there.write_text("mine")
    assert main(RUN + ["--report", str(there)]) == 2
    err = capsys.readouterr().err
    assert f"{there}: a file is there, where the report folder should be" in err and len(err.splitlines()) == 1
    assert there.read_text() == "mine"


def test_a_folder_where_a_program_should_be(tmp_path, capsys):
    assert main(["run", "--backend", f"exec:{tmp_path}", "--product", "ascend910b", "--api", "data_move",
                 "--profile", "quick", "--report", str(tmp_path / "r")]) == 2
    assert "it is a folder, not a program" in capsys.readouterr().err


def test_replay_of_a_folder_replays_its_reproducers(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["replay", str(empty), "--backend", "oracle"]) == 2
    assert "a folder with no reproducer in it" in capsys.readouterr().err
    kept = tmp_path / "kept"
    kept.mkdir()
    from tests.reports.test_hostile_files import REPRO
    for name in ("b.yaml", "a.yaml"):
        (kept / name).write_text(REPRO)
    (kept / "notes.txt").write_text("not a reproducer")
    assert main(["replay", str(kept), "--backend", "oracle"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[0] for line in lines] == ["FIXED", "FIXED"]
    assert str(kept / "a.yaml") in lines[0] and str(kept / "b.yaml") in lines[1]


def test_a_backend_module_in_the_current_folder_loads_from_a_script_entry(tmp_path):
    """The installed `ascend-conformance` is a script whose own folder is on sys.path, not the user's:
    `module:attr` from where the command is started must import all the same (in process, and isolated)."""
    (tmp_path / "mysim").mkdir()
    (tmp_path / "mysim" / "__init__.py").write_text("")
    (tmp_path / "mysim" / "backend.py").write_text("from conformance import OracleBackend\n"
                                                   "class MySimulator(OracleBackend):\n    name = 'mysim'\n")
    entry = tmp_path.parent / f"{tmp_path.name}-entry"
    entry.mkdir()
    (entry / "entry.py").write_text("import sys\nfrom conformance.commands.cli import main\nsys.exit(main())\n")
    import subprocess
    from command import kit_env
    for extra in ([], ["--in-process"]):
        done = subprocess.run([sys.executable, str(entry / "entry.py"), "run", "--backend", "mysim.backend:MySimulator",
                               "--product", "ascend910b", "--api", "data_move", "--profile", "quick",
                               "--select", "data_move/ascend910b/legal/int8", "--report", "r", *extra],
                              cwd=tmp_path, env=kit_env(), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr
        assert "mysim" in (tmp_path / "r" / "results.json").read_text()


def test_help_says_n_auto_and_its_default(tmp_path):
    shown = " ".join(cli("run", "--help", cwd=tmp_path).stdout.split())
    assert "a number, or auto (one per core); default 1" in shown
    assert "(default ci)" in shown and "(default reports/)" in shown and "(default 10)" in shown


def test_a_reader_that_stops_early_gets_no_error(tmp_path):
    """`ascend-conformance specs | head -1`: the reader closed the pipe; the kit says nothing more."""
    import subprocess
    from command import kit_command, kit_env
    proc = subprocess.Popen(kit_command("specs"), cwd=tmp_path, env=kit_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("products:")
    proc.stdout.close()
    assert proc.wait(timeout=60) in (0, 141)        # 0 where the whole listing fitted in the pipe first
    with proc.stderr:
        assert proc.stderr.read() == ""
