"""Comments and docstrings describe the code as it is: no timings, dates, issue numbers or history in
oracle/ and conformance/ (figures live in benchmarks/ and its output, history in the commit log), and no
citation of a document the repository does not have."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CODE = sorted([*ROOT.joinpath("oracle").rglob("*.py"), *ROOT.joinpath("conformance").rglob("*.py")])
NOT_AS_IT_IS = {
    "an issue number": re.compile(r"\bissue #?\d+", re.I),
    "a date": re.compile(r"\b20\d\d-\d\d-\d\d\b"),
    "a timing": re.compile(r"\b\d[\d.,]* ?(?:ms|us|µs)\b|~\d[\d.]* ?s\b|\+\d+%"),
    "history": re.compile(r"\bas before\b|\bround[ _]?(?:\d+|one|two|three|four)\b|\bonce cost\b|made silently", re.I),
    "a missing document": re.compile(r"\bDESIGN\.md\b"),
}
# where the words are data, not commentary: an example waiver's expiry date, the edition of a page
DATA = {"conformance/report/waivers.py": {"a date"}}


@pytest.mark.parametrize("path", CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_comments_describe_the_code_as_it_is(path):
    allowed = DATA.get(str(path.relative_to(ROOT)), set())
    found = [f"line {n}: {what}: {line.strip()[:100]}" for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for what, pattern in NOT_AS_IT_IS.items() if what not in allowed and pattern.search(line)]
    assert not found, "\n".join(found)
