"""A kept-apart list operand's entries are tested against their own later iterations (apart.meets_itself) as
the iteration_overlap kind reads them: where the entries share one forward step, its answer told without
the iteration arrays is the one first_meeting gives over them."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.generate.apart import meets_itself
from oracle.footprint import Runs
from oracle.iterations import family, first_meeting


def _by_first_meeting(lag: tuple, offsets: list[int], runs: list[Runs]) -> bool:
    fam = family(list(zip(offsets, runs)))
    return first_meeting(fam, fam, lag) is not None


@st.composite
def _entries(draw):
    """Offsets on a grid (the layouts' alignment) or off it, runs one forward step apart, and a lag
    from the same iteration on (where an entry meets itself) or from a later one."""
    grid = draw(st.sampled_from([1, 16, 32, 64]))
    length = draw(st.sampled_from([grid, 32, 1, 17]))
    offsets = draw(st.lists(st.integers(0, 40).map(lambda k: k * grid), min_size=1, max_size=16, unique=True))
    step = draw(st.integers(1, 24)) * draw(st.sampled_from([1, grid]))
    runs = Runs(draw(st.integers(0, 64)), step, draw(st.integers(1, 4) | st.integers(1, 300)), length)
    low = draw(st.integers(0, 3))
    high = draw(st.one_of(st.none(), st.integers(low, low + 30)))
    return (low, high), offsets, [runs] * len(offsets)


@settings(max_examples=400)
@given(_entries())
def test_meets_itself_is_first_meetings_answer(entries):
    lag, offsets, runs = entries
    assert meets_itself(lag, offsets, runs) == _by_first_meeting(lag, offsets, runs)


def test_meets_itself_on_the_pages_layouts():
    """Packed entries one block apart meet their next iteration where the step is shorter than the list,
    and not where it is as long; entries in lanes of a two-block step never meet."""
    block = Runs(0, 32 * 16, 8, 32)
    packed = [i * 32 for i in range(16)]
    assert not meets_itself((1, None), packed, [block] * 16)
    shorter = Runs(0, 32 * 15, 8, 32)
    assert meets_itself((1, None), packed, [shorter] * 16)
    two = Runs(0, 64, 8, 32)
    lanes = [(i // 2 * 2 * 8 + i % 2) * 32 for i in range(16)]
    assert not meets_itself((1, None), lanes, [two] * 16)
    assert meets_itself((1, None), packed, [two] * 16)
    for lag, offsets, runs in (((1, None), packed, [block] * 16), ((1, None), packed, [shorter] * 16),
                               ((1, None), lanes, [two] * 16), ((1, None), packed, [two] * 16)):
        assert meets_itself(lag, offsets, runs) == _by_first_meeting(lag, offsets, runs)
