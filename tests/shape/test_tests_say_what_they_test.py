"""The tests describe what they test as tests/shape/test_code_shape.py holds the kit's code to: no issue
number, history, timing or missing document in a test file, a helper module or a plan, and no test file
named after one (history goes in the commit log). A date in a test is data: a waiver's expiry, a report's
time."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.shape.test_code_shape import NOT_AS_IT_IS, ROOT

PATTERNS = ROOT / "tests" / "shape" / "test_code_shape.py"        # its patterns name what they look for
TESTS = sorted(p for p in ROOT.joinpath("tests").rglob("*") if p.suffix in (".py", ".md")
               and "__pycache__" not in p.parts and p != PATTERNS)
CHECKED = {what: pattern for what, pattern in NOT_AS_IT_IS.items() if what != "a date"}


@pytest.mark.parametrize("path", TESTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_tests_describe_what_they_test(path: Path) -> None:
    found = [f"line {n}: {what}: {line.strip()[:100]}" for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for what, pattern in CHECKED.items() if pattern.search(line)]
    found += [f"the file's name: {what}" for what, pattern in CHECKED.items() if pattern.search(path.stem.replace("_", " "))]
    assert not found, "\n".join(found)
