"""docs/adding-an-api.md, step by step: every API of the shipped specs has done each step, or this test fails
naming the API and the step. Steps not yet done for an API are listed in PENDING (and the test fails once one
is done, so that the list is kept true). Nothing in conformance/ names an API."""
from __future__ import annotations

import ast
import gzip
import json
import re
from pathlib import Path

import pytest

from oracle import load_rulebook
from oracle.apis import index_math
from oracle.spec import DEFAULT_SPEC_DIR, PARSED_FILE, VALIDATED_FILE, specs_digest

ROOT = Path(__file__).resolve().parents[2]
BOOK = load_rulebook()
APIS = sorted(BOOK.apis)
# (api, step) not done yet: the C example simulator covers data_move, the DataCopy family (data_copy_nz2nd,
# data_copy, data_copy_pad, data_copy_nd2nz, data_copy_slice), gather, copy and gatherb; not scatter, asc_gather
# or vec_trans_scatter. The frozen list is drawn again once the branches are merged (data_copy_slice's cells).
PENDING = {("scatter", "C example"), ("asc_gather", "C example"), ("vec_trans_scatter", "C example")}


def _tests_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))


def steps(api: str) -> dict[str, bool]:
    tests = _tests_text()
    module = index_math(api)
    frozen = ROOT / "conformance" / "generate" / "frozen_cases.jsonl.gz"
    with gzip.open(frozen, "rt", encoding="utf-8") as f:
        frozen_text = f.read()
    return {
        "spec": (DEFAULT_SPEC_DIR / BOOK.api(api).file).is_file() and bool(BOOK.api(api).rules),
        "index math": all(hasattr(module, name) for name in ("accesses", "apply", "VARIANTS"))
        and "default" in module.VARIANTS,
        # tests/<api>/: its plan (README.md; tests/shape/test_plans.py holds it to the folder and the spec)
        "tests: folder and plan": (ROOT / "tests" / api / "README.md").is_file(),
        "tests: examples": any(f'"{api}"' in p.read_text(encoding="utf-8")
                               for p in (ROOT / "tests").glob("*/test_examples.py")),
        "tests: buggy backends": any(f'"{api}"' in p.read_text(encoding="utf-8")
                                     for p in (ROOT / "tests").glob("buggy_*.py")),
        "tests: ambiguity regions": all(f'"{a.id}"' in tests for a in BOOK.api(api).ambiguities),
        "regenerate VALIDATED and parsed.json": (DEFAULT_SPEC_DIR / VALIDATED_FILE).read_text().strip()
        == specs_digest(BOOK.files) and json.loads((DEFAULT_SPEC_DIR / PARSED_FILE).read_text())["digest"]
        == specs_digest(BOOK.files),
        "frozen list": f'"api": "{api}"' in frozen_text or f'"api":"{api}"' in frozen_text,
        "C example": (ROOT / "examples" / "c_sim" / f"{api}.c").is_file(),
        # (n) measures every API of the rulebook: an API is in it once its spec is
        "benchmark": "def per_api" in (bench := (ROOT / "benchmarks" / "bench.py").read_text(encoding="utf-8"))
        and "rulebook.apis" in bench.split("def per_api", 1)[1].split("\ndef ", 1)[0],
    }


@pytest.mark.parametrize("api", APIS)
def test_every_step_is_done(api: str) -> None:
    done = steps(api)
    missed = [step for step, ok in done.items() if not ok and (api, step) not in PENDING]
    assert not missed, f"{api}: docs/adding-an-api.md step(s) not done: {', '.join(missed)}"
    finished = [step for step, ok in done.items() if ok and (api, step) in PENDING]
    assert not finished, f"{api}: {', '.join(finished)} done: take it out of PENDING"


def test_the_document_lists_every_step() -> None:
    text = (ROOT / "docs" / "adding-an-api.md").read_text(encoding="utf-8")
    for word in ("Spec", "Index math", "Tests", "VALIDATED", "parsed.json", "Frozen list", "C example", "Benchmark"):
        assert word in text, word


def _literals(path: Path) -> list[str]:
    """The string literals of a module that are not docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_conformance_names_no_api() -> None:
    """No code of conformance/ names an API: what was a per-API table (the planner's cost) is in the spec."""
    names = re.compile(r"\b(" + "|".join(map(re.escape, APIS)) + r")\b")
    found = [(str(p.relative_to(ROOT)), s) for p in (ROOT / "conformance").rglob("*.py")
             for s in _literals(p) if names.search(s)]
    assert not found, found
