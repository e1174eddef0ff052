"""The specs made from the vendor's 2026 pages (data_copy, data_copy_pad, data_copy_nd2nz, gather, copy, gatherb, data_copy_slice) quote those pages: every rule,
effect, ambiguity and path quote is the page's text (the quote's pieces, joined by "; ", " ... ", " | " or
" - ", each found on the page the rule cites), every rule cites an asc-devkit page, and a rule whose quote
states no rule says so (`inferred`).

The pages are the kit's specification sources outside the repository (/work/shared/vendor-pages, or the
folder $ASCEND_VENDOR_PAGES names); where they are not at hand the quote checks are skipped, the rest runs.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from oracle import load_rulebook

APIS = ("data_copy", "data_copy_pad", "data_copy_nd2nz", "gather", "copy", "gatherb", "data_copy_slice")
COMMIT = "asc-devkit@0da921b9:"
# asc-devkit path -> the file the vendor-pages folder keeps it in (its README's table)
BASE = "docs/zh/api/SIMD-API/基础API/"
MOVES = BASE + "Memory矢量计算/数据搬运/"
FILES = {
    MOVES + "GM与UB数据搬运/GM与UB连续数据搬运(DataCopy).md": "datacopy-gm-ub-contiguous.md",
    MOVES + "GM与UB数据搬运/GM与UB高维切分数据搬运(DataCopy).md": "datacopy-gm-ub-strided.md",
    MOVES + "UB与UB数据搬运/UBToUB连续数据搬运(DataCopy).md": "datacopy-ub-ub-contiguous.md",
    MOVES + "UB与UB数据搬运/UBToUB高维切分数据搬运(DataCopy).md": "datacopy-ub-ub-strided.md",
    MOVES + "GM与UB数据搬运/GMToUB非对齐数据搬运(DataCopyPad).md": "datacopypad-gm-to-ub.md",
    MOVES + "GM与UB数据搬运/UBToGM非对齐数据搬运(DataCopyPad).md": "datacopypad-ub-to-gm.md",
    MOVES + "GM与UB数据搬运/GMToUB随路转换ND2NZ搬运(DataCopy).md": "datacopy-nd2nz.md",
    MOVES + "GM与UB数据搬运/GM与UB切片数据搬运(DataCopy).md": "datacopy-gm-ub-slice.md",
    BASE + "数据搬运导览/概览/总体约束说明.md": "general-constraints-ascendc.md",
    BASE + "数据搬运导览/概览/数据通路.md": "data-paths.md",
    BASE + "Memory矢量计算/离散与聚合/Gather.md": "gather.md",
    BASE + "Memory矢量计算/离散与聚合/Gatherb(ISASI).md": "gatherb.md",
    MOVES + "UB与UB数据搬运/UBToUB掩码式高维数据搬运(Copy).md": "copy-ub-ub-masked.md",
    BASE + "SIMD计算说明/掩码/通用说明.md": "mask-general.md",
}
PAGES = Path(os.environ.get("ASCEND_VENDOR_PAGES", "/work/shared/vendor-pages"))


@pytest.fixture(scope="module")
def book():
    return load_rulebook()


def rendered(path: str) -> str:
    """The page's text as rendered: emphasis, escapes, HTML and comments dropped, whitespace collapsed."""
    text = (PAGES / FILES[path]).read_text(encoding="utf-8")
    text = re.sub(r"<!--.*?-->", " ", text)
    text = re.sub(r"<a name=[^>]*></a>", "", text)
    text = text.replace("<br>", " ").replace("&bull;", "").replace("**", "").replace("\\", "")
    text = text.replace("<sup>", "^").replace("</sup>", "")                        # 2<sup>64</sup> reads 2^64
    text = re.sub(r"!?\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)", r"\1", text)   # links: their text
    text = re.sub(r"^\s*[-|>]\s*", " ", text, flags=re.M)
    return " ".join(text.replace("|", " ").split())


def fragments(quote: str) -> list[str]:
    text = " ".join(quote.split())
    return [f.strip(" |") for f in re.split(r"; | \.\.\. | \| | - ", text) if f.strip(" |")]


def cited(spec, source: str | None) -> str:
    path = source or spec.page
    assert path.startswith(COMMIT), path
    path = path[len(COMMIT):]
    assert path in FILES, path
    return path


def quotes(spec):
    """(what, quote, page path) of every quote of the spec."""
    for rule in spec.rules:
        yield rule.id, rule.quote, cited(spec, rule.page)
    for effect in spec.effects:
        yield effect["id"], effect["quote"], cited(spec, effect["source"])
    for amb in spec.ambiguities:
        yield amb.id, amb.quote, cited(spec, amb.page)
        for reading in amb.readings:
            for s in reading.sources:
                if s.page:
                    yield f"{amb.id}={reading.id}", s.quote, cited(spec, s.page)
    for name, path in spec.paths.items():
        yield f"paths.{name}", path["quote"], cited(spec, None)


@pytest.mark.parametrize("api", APIS)
def test_every_quote_cites_a_vendor_page(book, api) -> None:
    spec = book.api(api)
    ids = [i for i, _, _ in quotes(spec)]
    assert len(ids) >= 10
    assert spec.effects, "the page's roundings, NOP cases and padding are effects with their quotes"


@pytest.mark.parametrize("api", APIS)
def test_quotes_are_on_their_pages(book, api) -> None:
    if not PAGES.is_dir():
        pytest.skip(f"no vendor pages at {PAGES}")
    spec, texts = book.api(api), {}
    for what, quote, path in quotes(spec):
        if what.startswith("paths."):        # a path table row quotes several pages of the family
            continue
        text = texts.setdefault(path, rendered(path))
        for piece in fragments(quote):
            assert piece in text, f"{what}: {piece!r} is not on {FILES[path]}"


@pytest.mark.parametrize("api", APIS)
def test_unstated_rules_say_they_are_inferred(book, api) -> None:
    for rule in book.api(api).rules:
        if rule.kind in ("bounds", "capacity", "overlap"):
            assert rule.inferred and "rule" in rule.inferred, rule.id


def test_products_outside_the_kit_are_left_out(book) -> None:
    for api in APIS:
        text = (book.directory / f"{api}.yaml").read_text(encoding="utf-8")
        body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
        assert "950" not in body and "Kirin" not in body, api


def test_the_mask_modes_quote_the_mask_page(book) -> None:
    """specs/masks.yaml's modes (and the count mode's per-width figures) quote the mask page."""
    if not PAGES.is_dir():
        pytest.skip(f"no vendor pages at {PAGES}")
    import yaml
    masks = yaml.safe_load((book.directory / "masks.yaml").read_text(encoding="utf-8"))
    path = cited(book.api("gather"), masks["source"])
    text = rendered(path)
    quotes = [m["quote"] for m in masks["modes"].values()] + [masks["modes"]["count"]["covers_quote"]]
    for quote in quotes + [r["quote"] for r in masks["rules"]] + [e["quote"] for e in masks["effects"]]:
        for piece in fragments(quote):
            assert piece in text, f"{piece!r} is not on {FILES[path]}"
