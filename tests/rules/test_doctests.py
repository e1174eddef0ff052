"""The examples in the public API's docstrings (numpydoc layout) run as they read: the oracle's check and
expected, the backend contract, the reference backend, load_backend; and every module of oracle/apis (the
index math of each API, and the helpers they share) opens with an example that works one small call
through `accesses` / `apply` and shows the bytes it leaves."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import oracle.apis

PUBLIC = ["oracle.rules", "oracle.expected", "conformance.backends.contract", "conformance.backends.loading"]
INDEX_MATH = sorted(f"oracle.apis.{m.name}" for m in pkgutil.iter_modules(oracle.apis.__path__))


@pytest.mark.parametrize("module", PUBLIC + INDEX_MATH)
def test_the_examples_of_the_public_api_run(module):
    found = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert found.attempted > 0, f"{module} has no example"
    assert found.failed == 0


@pytest.mark.parametrize("module", [m for m in INDEX_MATH if m.rpartition(".")[2] not in oracle.apis.HELPERS])
def test_an_api_s_example_works_a_call_through_its_index_math(module):
    doc = importlib.import_module(module).__doc__ or ""
    assert "\nExamples\n--------\n" in doc, f"{module}: no numpydoc Examples section in its module docstring"
    examples = doctest.DocTestParser().get_examples(doc)
    for step in (".accesses(", ".apply("):
        assert any(step in e.source for e in examples), f"{module}: its example does not call {step[1:-1]}"


def test_every_api_of_the_specs_has_its_index_math_found():
    """The discovery above sees each API's module (an API whose module it missed would go unexampled)."""
    from oracle.spec import default_rulebook
    apis = {f"oracle.apis.{api}" for api in default_rulebook().apis}
    assert apis <= set(INDEX_MATH), sorted(apis - set(INDEX_MATH))
    assert {f"oracle.apis.{h}" for h in oracle.apis.HELPERS} <= set(INDEX_MATH)
