"""The iteration mask, one concept (oracle/mask.py, specs/masks.yaml): the mask pages' worked example, the
count mode's clamp and zero, and a spec whose mask mode disagrees with the parameter's type is refused."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from oracle import load_rulebook
from oracle.mask import positions, selected
from oracle.spec import DEFAULT_SPEC_DIR, SpecError


def test_the_pages_bit_mode_example_selects_the_4th_and_66th_element() -> None:
    """「例如，mask=[8, 2] ... 8=0b1000，表示仅第4个元素参与计算；2=0b0010表示第66（64+2）个元素参与计算」"""
    assert positions([8, 2], 128).tolist() == [3, 65]
    assert np.flatnonzero(selected([8, 2], 128)).tolist() == [3, 65]


def test_bit_mode_words_past_the_iteration_select_nothing() -> None:
    assert positions([1 << 63, 1], 64).tolist() == [63]          # 32-bit: 64 elements, maskHigh unread


def test_count_mode_takes_the_first_elements_and_clamps_at_the_iteration() -> None:
    assert positions(5, 128).tolist() == [0, 1, 2, 3, 4]
    assert positions(200, 128).size == 128                       # 「mask超出范围按照...mask最大值计算」
    assert positions(2**64 - 1, 64).size == 64
    assert positions(0, 128).size == 0                           # 「mask = 0 ... NOP」
    assert selected(3, 8).tolist() == [True] * 3 + [False] * 5


def test_scatter_declares_its_mask_modes_without_the_general_rules() -> None:
    spec = load_rulebook().api("scatter")
    assert spec.masks == {"mask": {"mask_bits": "bits", "mask_continuous": "count"}}
    assert not [r for r in spec.rules if r.page.endswith("通用说明.md")]


def test_a_mode_that_disagrees_with_the_parameters_type_is_refused(tmp_path) -> None:
    target = tmp_path / "specs"
    shutil.copytree(DEFAULT_SPEC_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    path = target / "scatter.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(
        "mask: {forms: {mask_bits: bits, mask_continuous: count}}",
        "mask: {forms: {mask_bits: count, mask_continuous: count}}"), encoding="utf-8")
    with pytest.raises(SpecError, match=r"scatter.yaml: masks.mask.forms.mask_bits: a count mask is of type int"):
        load_rulebook(target)
