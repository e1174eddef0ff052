"""The kit's own tests run the installed kit (tests/kit_path.py: the checkout is taken off the module path)
and choose their Hypothesis profile explicitly: with CI=true Hypothesis would otherwise load its built-in
'ci' profile. 'kit' is derandomized (a red CI run repeats exactly) and keeps no example database."""
import pytest
from hypothesis import HealthCheck, settings

import kit_path

kit_path.off_the_checkout()
try:
    KIT, EDITABLE = kit_path.kit_location()
except ImportError as exc:
    pytest.exit(f"the tests run the installed kit, and none is installed ({exc}): "
                "pip install '.[test]' (or pip install -e '.[test]' while changing it)", returncode=4)

settings.register_profile("kit", derandomize=True, database=None, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kit")


def pytest_report_header(config):
    return f"kit under test: {KIT} ({'the checkout, installed editable' if EDITABLE else 'installed'})"
