"""The test plans: each folder of tests/ opens with a README.md that says what its files hold, and an API's
folder (tests/<api>/, named by the spec's `api`) also names its page and, for every rule id of the API, the
tests that hold it. tests/shape/test_plans.py holds the plans to the folders and to the rulebook.

A plan, as written (Markdown, so that it reads as a plan where the folder is browsed):

    # data_move: test plan

    Page: `001_e45651b2d591d11d.txt` (TIK data_move)

    ## Files

    - `test_check.py`: the legality checker, one group of tests per rule.

    ## Rules

    | rule | held by |
    |---|---|
    | `data_move.nburst.range` | `test_check.py::test_nburst_range`, `../rules/test_every_rule.py::test_sweep_breaks_only_its_rule[data_move.nburst.range]` |

A test is named `FILE::NAME` (or `FILE::CLASS::NAME`), FILE relative to the plan's folder; `[ID]` after a
parametrized test names the parameter the row is held by. A folder that is no API's has no Rules section.
`python tests/plans.py API` drafts an API's plan from its folder as it stands."""
from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

TESTS = Path(__file__).resolve().parent
PLAN = "README.md"
# folders of tests/ that hold no tests of their own (programs the tests start, caches)
NOT_TEST_FOLDERS = {"exec_programs", "__pycache__"}

_FILE = re.compile(r"^- `(?P<file>[^`]+\.py)`: \S")
_ROW = re.compile(r"^\| `(?P<rule>[^`]+)` \| (?P<refs>.+?) \|$")
_REF = re.compile(r"`([^`]+)`")
_PAGE = re.compile(r"^Page: `(?P<page>[^`]+)`")


@dataclass
class Plan:
    folder: Path
    title: str
    page: str | None
    files: list[str] = field(default_factory=list)
    rules: dict[str, list[str]] = field(default_factory=dict)
    repeated: list[str] = field(default_factory=list)       # rule ids with two rows


@dataclass(frozen=True)
class Ref:
    """One test a plan names: its file, the function (and class) in it, the parameter id if any."""
    file: Path
    name: str
    cls: str | None
    param: str | None


def folders() -> list[Path]:
    """The folders of tests/ that hold tests (each has a plan)."""
    return sorted(p for p in TESTS.iterdir() if p.is_dir() and p.name not in NOT_TEST_FOLDERS)


def read(folder: Path) -> Plan:
    lines = (folder / PLAN).read_text(encoding="utf-8").splitlines()
    plan = Plan(folder, lines[0].removeprefix("# ") if lines else "", None)
    section = None
    for line in lines:
        if line.startswith("## "):
            section = line[3:].strip()
        elif (page := _PAGE.match(line)) and plan.page is None:
            plan.page = page["page"]
        elif section == "Files" and (item := _FILE.match(line)):
            plan.files.append(item["file"])
        elif section == "Rules" and (row := _ROW.match(line)):
            if row["rule"] in plan.rules:
                plan.repeated.append(row["rule"])
            plan.rules.setdefault(row["rule"], []).extend(_REF.findall(row["refs"]))
    return plan


def ref(folder: Path, text: str) -> Ref:
    """`FILE::[CLASS::]NAME[ID]` read against the plan's folder."""
    file, *names = text.split("::")
    name = names[-1] if names else ""
    param = None
    if name.endswith("]") and "[" in name:
        name, param = name[:-1].split("[", 1)
    return Ref((folder / file).resolve(), name, names[0] if len(names) == 2 else None, param)


@lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def source_of(test: Ref) -> str | None:
    """The source of the test function a reference names (its decorators included), or None where the file
    has no such test."""
    if not test.file.is_file() or not test.name.startswith("test"):
        return None
    body = _tree(test.file).body
    if test.cls is not None:
        body = next((n.body for n in body if isinstance(n, ast.ClassDef) and n.name == test.cls), [])
    node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == test.name),
                None)
    if node is None:
        return None
    lines = test.file.read_text(encoding="utf-8").splitlines()
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return "\n".join(lines[first - 1:node.end_lineno])


def param_ids(test: Ref) -> list[str]:
    """The ids of a parametrized test's parameters (one `parametrize` mark with ids, or string values)."""
    module = importlib.import_module(".".join(test.file.relative_to(TESTS.parent).with_suffix("").parts))
    function = getattr(getattr(module, test.cls) if test.cls else module, test.name)
    out: list[str] = []
    for mark in getattr(function, "pytestmark", []):
        if mark.name == "parametrize":
            values = list(mark.args[1])
            ids = mark.kwargs.get("ids")
            out += [ids(v) for v in values] if callable(ids) else list(ids) if ids else [str(v) for v in values]
    return out


def names_rule(test: Ref, rule: str, rules: list[str]) -> bool:
    """Does the named test name the rule itself? Its parameter id (one of the test's own), the id in its own
    source or in a module-level table its source reads, or the id without its API's prefix quoted in its
    source (`reject("nburst.range")`). A roster (a test that lists half the API's rule ids or more to keep a
    file in step with the spec) holds none of them."""
    source = source_of(test)
    if source is None:
        return False
    if test.param is not None:
        return test.param == rule and rule in param_ids(test)
    if sum(_names(source, r) for r in rules) * 2 >= len(rules) > 2:
        return False
    if names_directly(source, rule):
        return True
    return any(re.search(rf"\b{name}\b", source) and ("parametrize" in source or short)
               for name, short in _tables(test.file, rule))


def names_directly(source: str, rule: str) -> bool:
    """The rule's id in a test's own source, or the id without its API's prefix, quoted."""
    short = rule.split(".", 1)[1]
    return _names(source, rule) or f'"{short}"' in source or f"'{short}'" in source


def _names(text: str, rule: str) -> bool:
    return re.search(re.escape(rule) + r"(?![\w.])", text) is not None


def _tables(path: Path, rule: str) -> list[tuple[str, bool]]:
    """The module-level names of a test file whose assignment (or a loop filling it) names the rule, each
    with whether it is a constant of a line or two (the rule's expected verdict) rather than a table of many
    rules: a test reading a table holds its rules where the table parametrizes it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for node in _tree(path).body:
        text = "\n".join(lines[node.lineno - 1:node.end_lineno]) if hasattr(node, "end_lineno") else ""
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.For)) and names_directly(text, rule):
            short = node.end_lineno - node.lineno < 2
            out += [(n.id, short) for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
            out += [(n.value.id, short) for n in ast.walk(node) if isinstance(n, ast.Subscript)
                    and isinstance(n.value, ast.Name) and isinstance(n.ctx, ast.Store)]
    return out


def _first_sentence(path: Path) -> str:
    doc = " ".join((ast.get_docstring(_tree(path)) or "").split())
    found = re.match(r"(.+?\.)(\s|$)", doc)
    sentence = found.group(1) if found else doc
    return sentence if sentence.endswith(".") else sentence + "."


def _tests_in(path: Path) -> list[str]:
    out = []
    for node in _tree(path).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            out.append(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            out += [f"{node.name}::{n.name}" for n in node.body
                    if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
    return out


# the order a draft names a rule's tests in: a test written for the rule before one that only meets it
FIRST = ("test_check.py", "test_rules.py", "test_examples.py", "test_expected.py")


def draft(api: str, also: tuple[str, ...] = (), most: int = 3, unless: str | None = None) -> str:
    """A first plan for tests/<api>/ as it stands: its files with their docstrings' first sentences, and per
    rule id up to `most` tests of the folder (and of the folders `also`) that name it, those that name it in
    their own source first, then the edge sweep's tests where a cell breaks the rule alone
    (`python tests/plans.py API > tests/API/README.md`, then read it and say more where it says little).
    `unless`: a word in the names of tests that are about another API of a shared file."""
    from oracle.spec import default_rulebook
    from tests.rules.test_every_rule import holds

    spec, folder = default_rulebook().api(api), TESTS / api
    files = sorted(folder.glob("test_*.py"))
    ids = [rule.id for rule in spec.rules]
    out = [f"# {api}: test plan", "", f"Page: `{spec.page}` ({spec.title})", "", "## Files", ""]
    out += [f"- `{f.name}`: {_first_sentence(f)}" for f in files] + ["", "## Rules", "", "| rule | held by |", "|---|---|"]
    searched = sorted([*files, *(p for other in also for p in (TESTS / other).glob("test_*.py"))],
                      key=lambda p: (p.parent != folder, FIRST.index(p.name) if p.name in FIRST else len(FIRST), p.name))
    for rule in spec.rules:
        ranked = []
        for path in searched:
            where = path.name if path.parent == folder else f"../{path.parent.name}/{path.name}"
            for name in _tests_in(path):
                if unless and unless in name:
                    continue
                test = ref(folder, f"{where}::{name}")
                if rule.id in param_ids(test):
                    ranked.append((0, f"{where}::{name}[{rule.id}]"))
                elif names_rule(test, rule.id, ids):
                    ranked.append((0 if names_directly(source_of(test) or "", rule.id) else 1, f"{where}::{name}"))
        refs = [text for _, text in sorted(ranked, key=lambda r: r[0])][:most]
        refs += [f"../rules/test_every_rule.py::{name}[{rule.id}]" for name in
                 ("test_sweep_breaks_only_its_rule", "test_the_legal_cell_beside_it_passes", "test_range_ends_are_legal")
                 if holds(name, rule.id)]
        out.append(f"| `{rule.id}` | " + ", ".join(f"`{r}`" for r in refs) + " |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import sys

    sys.path[:0] = [str(TESTS), str(TESTS.parent)]
    print(draft(sys.argv[1]), end="")
