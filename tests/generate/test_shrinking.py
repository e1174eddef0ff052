"""conformance/judge/shrinking.py: Hypothesis's shrinker driven on one failing value, and a failing cell
shrunk by it to the call the kit reports."""
from __future__ import annotations

from hypothesis import strategies as st

from conformance.judge.shrinking import final_replay, shrink_choices


def test_the_smallest_failing_value_is_kept() -> None:
    seen = []

    def fails(value: int) -> tuple[str, int] | None:
        seen.append(value)
        return ("kept", value) if value >= 37 else None

    found = shrink_choices(st.integers(0, 1000), (900,), 1, b"test:shrink", fails, AssertionError)
    assert found == ("kept", 37)
    assert seen[0] == 900               # the value the choices drew is the first tried
    assert len(seen) < 200


def test_a_value_that_no_longer_fails_gives_none() -> None:
    assert shrink_choices(st.integers(0, 1000), (900,), 1, b"test:none", lambda v: None, AssertionError) is None


def test_outside_given_there_is_no_final_replay() -> None:
    assert final_replay() is False
