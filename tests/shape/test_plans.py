"""The tests read as a test plan (tests/plans.py says how one is written): every folder of tests/ opens with
a plan listing exactly the test files it holds; every API of the specs has its folder, whose plan names the
API's page and, for every rule id of the API (the mask rules it takes from specs/masks.yaml included, as the
rulebook merges them), tests that exist and that name that rule."""
from __future__ import annotations

import re

import pytest

import plans
from oracle.spec import default_rulebook

BOOK = default_rulebook()
APIS = sorted(BOOK.apis)
FOLDERS = plans.folders()
GENERIC = plans.TESTS / "rules" / "test_every_rule.py"


def _plan(folder):
    if not (folder / plans.PLAN).is_file():
        pytest.fail(f"tests/{folder.name}/ opens with no plan: write tests/{folder.name}/{plans.PLAN} (tests/plans.py "
                    f"shows the format; `python tests/plans.py {folder.name}` drafts an API's)")
    return plans.read(folder)


def test_no_test_file_outside_a_folder() -> None:
    loose = sorted(p.name for p in plans.TESTS.glob("test_*.py"))
    assert not loose, f"test files belong in their API's folder (tests/<api>/) or a concern's folder: {loose}"


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_every_plan_lists_what_its_folder_holds(folder) -> None:
    plan = _plan(folder)
    held = sorted(p.name for p in folder.glob("test_*.py"))
    assert sorted(set(plan.files)) == sorted(plan.files), f"{folder.name}: a file listed twice"
    assert not set(held) - set(plan.files), f"tests/{folder.name}/{plans.PLAN} does not list {sorted(set(held) - set(plan.files))}"
    assert not set(plan.files) - set(held), f"tests/{folder.name}/{plans.PLAN} lists {sorted(set(plan.files) - set(held))}, not in the folder"
    assert not (plan.rules and folder.name not in BOOK.apis), f"{folder.name}: a rules table in a folder that is no API's"


@pytest.mark.parametrize("api", APIS)
def test_every_api_has_its_folder_and_page(api: str) -> None:
    folder = plans.TESTS / api
    assert folder.is_dir(), f"{api}: no folder tests/{api}/ (docs/adding-an-api.md, step 3)"
    plan = _plan(folder)
    assert plan.title == f"{api}: test plan", plan.title
    assert plan.page == BOOK.api(api).page, f"{api}: the plan's page is {plan.page!r}, the spec's {BOOK.api(api).page!r}"


@pytest.mark.parametrize("api", APIS)
def test_every_rule_id_is_in_its_plan(api: str) -> None:
    plan = _plan(plans.TESTS / api)
    ids = [rule.id for rule in BOOK.api(api).rules]
    assert not plan.repeated, f"{api}: rules with two rows: {plan.repeated}"
    missing = [rule for rule in ids if rule not in plan.rules]
    assert not missing, f"tests/{api}/{plans.PLAN} names no test for {missing}"
    unknown = sorted(set(plan.rules) - set(ids))
    assert not unknown, f"tests/{api}/{plans.PLAN} names rules the spec does not have: {unknown}"


@pytest.mark.parametrize("api", APIS)
def test_every_test_a_plan_names_exists_and_names_its_rule(api: str) -> None:
    """A test a row names exists (file, function, parameter id); at least one test of every row names the
    rule itself, and the edge sweep's test holds a rule only where some cell breaks the rule alone."""
    from tests.rules.test_every_rule import holds
    folder = plans.TESTS / api
    plan = _plan(folder)
    ids = [rule.id for rule in BOOK.api(api).rules]
    for rule, texts in plan.rules.items():
        assert texts, f"{api}: {rule} has no test"
        held = []
        for text in texts:
            test = plans.ref(folder, text)
            assert plans.source_of(test) is not None, f"{api}: {rule}: no test {text}"
            if test.param is not None:
                assert test.param in plans.param_ids(test), f"{api}: {rule}: {text} has no parameter {test.param}"
            if test.file == GENERIC and not holds(test.name, rule):
                continue            # skipped there, saying why: the plan must name another test
            held.append(plans.names_rule(test, rule, ids))
        assert any(held), f"{api}: {rule}: none of {texts} names the rule"


def test_every_test_file_the_repository_names_exists() -> None:
    """CI, the README, the docs, the kit's comments and the tests name test files by path (`tests/...py`):
    each exists, wherever the tests' layout moves them."""
    root = plans.TESTS.parent
    named = [root / ".ci" / "run", root / "README.md", root / "pyproject.toml", *root.joinpath("docs").glob("*.md"),
             *(p for top in ("oracle", "conformance", "examples", "benchmarks", "tests") for p in root.joinpath(top).rglob("*")
               if p.suffix in (".py", ".md", ".c") and "__pycache__" not in p.parts)]
    missing = sorted({f"{p.relative_to(root)}: {m}" for p in named if p.is_file()
                      for m in re.findall(r"\btests/[\w/]+\.py\b", p.read_text(encoding="utf-8", errors="replace"))
                      if "<" not in m and not (root / m).is_file()})
    assert not missing, "\n".join(missing)
