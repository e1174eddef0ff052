"""The kit's own tests choose their Hypothesis profile explicitly: with CI=true Hypothesis would
otherwise load its built-in 'ci' profile. 'kit' is derandomized (a red CI run repeats exactly) and
keeps no example database."""
from hypothesis import HealthCheck, settings

settings.register_profile("kit", derandomize=True, database=None, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kit")
