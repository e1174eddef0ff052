"""A search's batch ends once it holds the calls the search will still judge (strategies.BatchEnd,
batches_until): the calls past those would be drawn, checked and thrown away. The calls judged are the ones a
search drawing whole batches judges; Hypothesis's replay of a failing example draws that example's very
choices; and where Hypothesis finds the draws inconsistent (the end reads the search's state, which it does
not see), the round is made again with whole batches (ending_batches), never a cell in error."""
from __future__ import annotations

import pytest
from hypothesis.errors import FlakyStrategyDefinition

from conformance.backends.contract import OracleBackend
from conformance.generate import strategies
from conformance.generate.cells import cells
from conformance.generate.profiles import profile
from conformance.generate.strategies import BatchEnd, ending_batches
from conformance.judge.runner import run_cell
from oracle.spec import default_rulebook

from buggy_backends import BurstInElements

BOOK = default_rulebook()
CELLS = ["data_move/ascend910b/legal/float16", "scatter/ascend310p-aicore/legal/count/float16",
         "asc_gather/ascend910b/legal/count/float32",
         "vec_trans_scatter/ascend910b/reject/vec_trans_scatter.repeat_times.range"]


def _cell(cell_id: str):
    return next(c for c in cells([cell_id.split("/")[1]], [cell_id.split("/")[0]], rulebook=BOOK) if c.id == cell_id)


class _Key:
    def __init__(self, key: int):
        self.key = key


def _holds(cases: list, judged: set, wanted: int) -> bool:
    """A batch of `cases` (a list of its own) asked once of a fresh end."""
    return BatchEnd(judged, lambda: wanted, lambda: False)(cases)


def test_a_batch_holds_the_calls_still_wanted_not_judged_yet():
    judged = {1, 2}
    assert not _holds([_Key(1), _Key(3)], judged, 2)
    assert _holds([_Key(1), _Key(3), _Key(4)], judged, 2)
    assert _holds([_Key(5)], judged, 0)             # at least one: an empty batch is refused
    assert not _holds([], judged, 0)


def test_a_batch_asked_as_it_grows_ends_as_the_whole_batch_asked_once():
    """The end is asked after every attempt with the batch as it grows (one list, each case looked up
    once): it says what a fresh end says of the whole batch; another list is another batch."""
    judged = {1, 2}
    end = BatchEnd(judged, lambda: 2, lambda: False)
    batch: list[_Key] = []
    said = []
    for key in (1, 3, 2, 4, 5):
        batch.append(_Key(key))
        said.append(end(batch))
        assert said[-1] == _holds(list(batch), judged, 2)
    assert said == [False, False, False, True, True]
    assert not end([_Key(6)]) and end([_Key(6), _Key(7)])


def test_a_replay_ends_where_the_batch_it_replays_ended():
    wanted, replaying = [3], [False]
    end = BatchEnd(set(), lambda: wanted[0], lambda: replaying[0])
    assert [end([_Key(k) for k in range(n)]) for n in (1, 2, 3)] == [False, False, True]
    wanted[0], replaying[0] = 1, True                   # the search judged more since; the replay must not care
    assert [end([_Key(k) for k in range(n)]) for n in (1, 2, 3)] == [False, False, True]


def _calls(result) -> tuple:
    return tuple(sorted(result.counts.items())), tuple(sorted(result.tags.items()))


@pytest.mark.parametrize("cell_id", CELLS)
def test_the_calls_judged_are_those_of_whole_batches(monkeypatch, cell_id):
    """The same counts, the same boundaries reached and the same evidence, call by call, as a search whose
    batches are drawn whole (the end never says enough)."""
    cell = _cell(cell_id)
    ended = run_cell(cell, OracleBackend(), profile("ci"), 3, rulebook=BOOK)
    monkeypatch.setattr(BatchEnd, "__call__", lambda self, cases: False)
    whole = run_cell(cell, OracleBackend(), profile("ci"), 3, rulebook=BOOK)
    assert ended.status == whole.status == "ran" and ended.error is None
    assert _calls(ended) == _calls(whole) and ended.evidence == whole.evidence


def test_a_failing_search_is_shrunk_to_the_same_call_as_with_whole_batches(monkeypatch):
    """The failing example's replay draws its own choices again: the same failure, shrunk the same."""
    cell = _cell("data_move/ascend910b/legal/float16")
    backend = BurstInElements()
    ended = run_cell(cell, backend, profile("ci"), 1, rulebook=BOOK)
    monkeypatch.setattr(BatchEnd, "__call__", lambda self, cases: False)
    whole = run_cell(cell, backend, profile("ci"), 1, rulebook=BOOK)
    assert ended.error is None and ended.failure is not None
    assert ended.failure["call"] == whole.failure["call"] and ended.failure["verdict"] == whole.failure["verdict"]


def test_an_inconsistency_found_by_hypothesis_makes_the_round_again_with_whole_batches(monkeypatch):
    """Where Hypothesis raises FlakyStrategyDefinition (forced here on the search's third batch end), the
    cell still judges its whole budget, and the calls a search of whole batches judges."""
    cell = _cell("data_move/ascend910b/legal/float16")
    with monkeypatch.context() as m:
        m.setattr(BatchEnd, "__call__", lambda self, cases: False)
        whole_calls = _calls(run_cell(cell, OracleBackend(), profile("ci"), 2, rulebook=BOOK))
    asked = []
    real = BatchEnd.__call__

    def flaky_once(self, cases):
        asked.append(len(cases))
        if len(asked) == 3:
            raise FlakyStrategyDefinition("forced")
        return real(self, cases)

    monkeypatch.setattr(BatchEnd, "__call__", flaky_once)
    result = run_cell(cell, OracleBackend(), profile("ci"), 2, rulebook=BOOK)
    assert len(asked) == 3 and result.status == "ran" and result.error is None     # then asked no more
    assert sum(result.counts.values()) == result.planned_calls and _calls(result) == whole_calls


def test_ending_batches_runs_again_whole_or_lets_a_failure_found_stand():
    runs, active = [], []

    def run():
        runs.append(1)
        active.append(strategies._ENOUGH.get() is not None)
        if len(runs) == 1:
            raise FlakyStrategyDefinition("forced")

    ending_batches(run, lambda cases: True)
    assert active == [True, False]
    runs.clear()

    class Found(Exception):
        pass

    with pytest.raises(Found):
        ending_batches(run, lambda cases: True, lambda: Found())
    assert len(runs) == 1
