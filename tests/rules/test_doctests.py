"""The examples in the public API's docstrings (numpydoc layout) run as they read: the oracle's check and
expected, the backend contract, the reference backend, load_backend."""
from __future__ import annotations

import doctest
import importlib

import pytest

PUBLIC = ["oracle.rules", "oracle.expected", "conformance.backends.contract", "conformance.backends.loading"]


@pytest.mark.parametrize("module", PUBLIC)
def test_the_examples_of_the_public_api_run(module):
    found = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert found.attempted > 0, f"{module} has no example"
    assert found.failed == 0
