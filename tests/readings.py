"""The readings the oracle's default index math models in regions the specs record as ambiguities, for the
tests that judge those calls as the index math moves them: under these, the repeat forms of Scatter / asc_gather and the int8 half-block overlaps are
judged as they were (offsets advance one whole repeat, 8 DataBlocks per gather iteration, the later of two
gather iterations wins, overlap judged on blocks). Tests of the ambiguities themselves use the plain book.
"""
from __future__ import annotations

from oracle import check as _check, expected as _expected
from oracle.spec import default_rulebook

DEFAULT_MATH = {
    "scatter.offset.repeat_advance": "whole_repeat",
    "asc_gather.offset.repeat_advance": "whole_repeat",
    "asc_gather.repeat.layout": "datablocks",
    "asc_gather.repeat.zero": "nop",
    "asc_gather.dst.repeat_overlap": "last_wins",
    "gather.offset.repeat_advance": "whole_repeat",
    "gather.dst.repeat_overlap": "last_wins",
    "vec_trans_scatter.overlap.half_block": "blocks",
    "vec_trans_scatter.b32.older_products": "supported",
    "vec_trans_scatter.dst.repeat_overlap": "last_wins",
    "scatter.offset.duplicate": "one_survives",
    "scatter.repeatTimes.zero": "nop",
    "data_copy_slice.formula.higher_dims": "per_index",
}


# legal readings that leave some of the call's bytes open (any value there conforms), the rest as the page
# states: a backend following any reading conforms to them
OPENING = {"dummy_open"}


def book():
    return default_rulebook().with_readings(DEFAULT_MATH)


def check(call, memory=None, rulebook=None):
    """oracle.check under DEFAULT_MATH (or the rulebook given)."""
    return _check(call, memory, rulebook or book())


def expected(call, memory, rulebook=None):
    """oracle.expected under DEFAULT_MATH (or the rulebook given)."""
    return _expected(call, memory, rulebook or book())
