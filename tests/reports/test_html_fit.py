"""The HTML report as a browser lays it out (headless Chromium, driven by playwright), at 1400 px and at
800 px: the page never scrolls sideways, no table hides part of itself behind a scroll bar of its own, no
cell or badge spills out of its box, cell and rule ids break only after a '/' or a '.', and a byte map's
labels and rows can be read. What the markup alone cannot show: a table is only too wide once drawn.

The pages are real ones: the reference on every cell of a product (eleven dtypes in the matrix), a
simulator writing a byte past its burst (byte maps) and a wrong vec_trans_scatter (its traceability
table, its long ids), merged into one report folder with a waiver. playwright is not a dependency of
the kit, and CI has neither it nor Chromium: the tests skip there."""
from __future__ import annotations

import datetime

import pytest

try:
    from playwright.sync_api import sync_playwright
except ImportError:                 # pragma: no cover - where playwright is not installed
    sync_playwright = None

from conformance import OracleBackend
from conformance.generate.cells import cells
from conformance.generate.profiles import Profile
from conformance.judge.runner import run_cells
from conformance.report.outputs import write_outputs
from conformance.report.merging import merge
from conformance.report.results import finish, results_document
from conformance.report.waivers import Waiver, apply_waivers
from oracle.spec import default_rulebook

from buggy_vts_backends import B32HalvesMispaired
from catching import QUICK, select_cells
from tests.reports.test_report_screenshot import BROWSER
from tests.reports.test_reports import run_of

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright: "
                                                       "the kit does not need it, only this check of its pages)"),
    pytest.mark.skipif(BROWSER is None, reason="no Chromium on this machine (apt-get install chromium to run it)"),
]

WIDTHS = (1400, 800)
PRODUCTS = ("ascend910b", "ascend310b")
VTS = "vec_trans_scatter/ascend910b/legal/int32"

# What the page looks like to a reader, measured in the page itself (CSS pixels).
PROBE = r"""() => {
  const shown = e => e.getClientRects().length > 0;
  const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
    + (typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\s+/).join('.') : '');
  const said = e => e.textContent.trim().replace(/\s+/g, ' ').slice(0, 60);
  const all = [...document.querySelectorAll('body *')].filter(shown);
  // an element whose own content is wider than its box: text cut, or drawn over its neighbours
  const spilled = [...document.querySelectorAll('td, th, .chip, .tag, dd, h3, pre, code')].filter(shown)
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => `${name(e)} ${e.scrollWidth} > ${e.clientWidth}: ${said(e)}`);
  // a scroll bar inside the page hides what lies past it
  const scrolled = all.filter(e => getComputedStyle(e).overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1)
    .map(e => `${name(e)} ${e.scrollWidth} > ${e.clientWidth}`);
  const past = all.filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
    .map(e => `${name(e)} ends at ${Math.round(e.getBoundingClientRect().right)}: ${said(e)}`);
  // ids: the browser's line breaks, character by character; one that does not follow '/', '.' or a
  // space cuts a name in two
  const cut = [];
  const ids = 'table.index td.mono, .card h3, tr[id^="r-"] > td:first-child, #errors ~ table td:first-child';
  for (const e of document.querySelectorAll(ids)) {
    if (!shown(e)) continue;
    const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    let top = null, before = '';
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      const aside = node.parentElement.closest('.chip, div');        // a verdict badge, a rule's kind
      if (aside && aside !== e && e.contains(aside)) continue;
      for (let i = 0; i < node.data.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (!box) continue;
        if (top !== null && box.top > top + 2 && !/[\/.\s]/.test(before) && !/\s/.test(node.data[i]))
          cut.push(`${said(e)}: ${before}|${node.data[i]}`);
        top = box.top;
        before = node.data[i];
      }
    }
  }
  const maps = [...document.querySelectorAll('svg.map')].filter(shown).map(svg => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const rects = [...svg.querySelectorAll('rect')].map(r => r.getBoundingClientRect());
    const tops = [...new Set(rects.map(r => Math.round(r.top * 100) / 100))].sort((a, b) => a - b);
    const height = Math.min(...rects.map(r => r.height));
    const grid = svg.querySelector('path.grid');
    const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
    return {label: Math.min(...sizes),
            rows: tops.length, height, gap: Math.min(...tops.slice(1).map((t, i) => t - tops[i])) - height,
            line: grid ? parseFloat(getComputedStyle(grid).strokeWidth) * scale : 0};
  });
  return {scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth,
          spilled, scrolled, past: past.slice(0, 10), cut, maps,
          columns: document.querySelector('table.matrix tr').cells.length - 1,
          rules: document.querySelectorAll('tr[id^="r-vec-trans-scatter-"]').length};
}"""


def _document(backend, chosen, prof: Profile) -> dict:
    described = {"name": backend.name, "spec": f"tests:{type(backend).__name__}", "version": "9.9"}
    book = default_rulebook()
    return results_document(book, described, chosen, run_cells(chosen, backend, prof, 1, book),
                            profile=prof.name, seed=1, workers="1", select=[], started="2026-11-22T10:00:00+00:00",
                            duration_s=1.5, interrupted=False)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The report folder of the three runs merged: every cell of ascend910b and the vec_trans_scatter and
    data_move cells of ascend310b (two calls each: the layout needs their rows, not their search), the
    stray-writing simulator, a wrong vec_trans_scatter; its failure waived."""
    book = default_rulebook()
    chosen = cells(["ascend910b"], None, rulebook=book) + cells(["ascend310b"], ["data_move", "vec_trans_scatter"],
                                                                rulebook=book)
    wide = _document(OracleBackend(), chosen, Profile("layout", 2))
    vts = _document(B32HalvesMispaired(), select_cells([VTS]), QUICK)
    results = merge([("wide", wide), ("stray", run_of("stray")), ("vts", vts)])
    apply_waivers(results, [Waiver(1, VTS, None, "ascend910b", "halves paired in the next release", "VTS-12",
                                   datetime.date(2027, 1, 31))], datetime.date(2026, 11, 22))
    out = tmp_path_factory.mktemp("report")
    write_outputs(finish(results), out, default_rulebook())
    return out


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as driver:
        # --no-sandbox: CI and containers run as root; the page fetches nothing, no network is needed
        chromium = driver.chromium.launch(executable_path=BROWSER, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def seen(folder, browser):
    """What the probe measures on each page at each width, measured once."""
    out = {}
    for product in PRODUCTS:
        for width in WIDTHS:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto((folder / f"report-{product}.html").as_uri())
            out[product, width] = page.evaluate(PROBE)
            page.close()
    return out


def test_the_pages_hold_what_makes_them_wide(seen):
    """The layout checks below check something: the dtype matrix has a column per dtype the kit knows,
    the vec_trans_scatter table its rules, and the page of ascend910b its byte maps."""
    assert seen["ascend910b", 1400]["columns"] == len(default_rulebook().dtypes)
    assert all(seen[p, 1400]["rules"] >= 20 for p in PRODUCTS)
    assert seen["ascend910b", 1400]["maps"]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("product", PRODUCTS)
def test_the_page_fits_the_window(seen, product, width):
    """No horizontal scroll bar, on the page or inside it, and nothing drawn past the window's edge or
    out of its own box."""
    got = seen[product, width]
    assert got["scrollWidth"] <= got["width"], got["past"]
    assert not got["past"]
    assert not got["scrolled"]
    assert not got["spilled"]


@pytest.mark.parametrize("width", WIDTHS)
def test_ids_break_only_between_names(seen, width):
    """A cell id or a rule id too long for its column wraps after a '/' or a '.', never inside a name
    (data_move/ascend910b/leg|al/float16)."""
    for product in PRODUCTS:
        assert not seen[product, width]["cut"], (product, seen[product, width]["cut"])


@pytest.mark.parametrize("width", WIDTHS)
def test_the_byte_map_reads(seen, width):
    """Its addresses at 10 px or more, its rows apart (a gap of 2 px or more under squares 6 px tall or
    more), its squares parted by a line of at least a pixel: rows of squares, not solid bars."""
    for drawn in seen["ascend910b", width]["maps"]:
        assert drawn["label"] >= 10, drawn
        assert drawn["height"] >= 6 and drawn["gap"] >= 2, drawn
        assert drawn["line"] >= 1, drawn
