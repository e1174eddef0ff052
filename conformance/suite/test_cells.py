"""One pytest test per cell (see conformance.cells); the plugin parametrizes `cell`."""
import pytest

from conformance.runner import run_cell


def test_cell(cell, ac_backend, ac_profile, ac_seed, ac_frozen, request):
    result = run_cell(cell, ac_backend, ac_profile, ac_seed, ac_frozen.get(cell.id, ()))
    request.node.user_properties.append(("ac_result", result.to_dict()))
    if result.failure is not None:
        pytest.fail(f"{result.failure['verdict']}: {result.failure['message']}", pytrace=False)
    if result.status == "error":
        pytest.fail(f"error: {result.error}", pytrace=False)
