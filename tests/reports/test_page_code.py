"""The report page's recorded template code (conformance/report/page_code.py, compiled_page.json): it is
the code Jinja makes of the template as it is now, a page made from it is byte for byte the page made by
compiling the template, and a record made from another template, release or setting is not used."""
from __future__ import annotations

import json

import jinja2
import pytest

from conformance.report import html, page_code
from oracle.spec import default_rulebook

from tests.reports.test_reports import run_of


def test_the_recorded_code_is_the_template_as_it_is_now():
    """Editing templates/report.html.j2 without recording it again fails here (the run would still be
    right, only slower): python -c "from conformance.report.html import record_page; record_page()"."""
    record = json.loads(page_code.RECORD.read_text(encoding="utf-8"))
    if record["jinja2"] != jinja2.__version__:
        pytest.skip(f"recorded with Jinja {record['jinja2']}: under {jinja2.__version__} the page is compiled")
    assert record == page_code.page_code(html._environment(), html.TEMPLATES)


def _not_compiled(name):
    raise AssertionError(f"{name} compiled from its text, not loaded from the record")


@pytest.mark.parametrize("run", ["oracle", "stray", "nburst"])
def test_a_page_from_the_record_is_the_page_from_the_template(run, monkeypatch):
    env = html._environment()
    with monkeypatch.context() as patched:
        patched.setattr(env, "get_template", _not_compiled)
        recorded = page_code.page_template(env, html.TEMPLATES)
    view = html.product_view(html._clean(run_of(run)), "ascend910b", default_rulebook(), "")
    from_record = recorded.render(**view, map_columns=html.MAP_COLUMNS)
    assert from_record == env.get_template(page_code.PAGE).render(**view, map_columns=html.MAP_COLUMNS)
    assert "<html" in from_record and len(from_record) > 10_000
    assert html.render(run_of(run), "ascend910b", default_rulebook()) == from_record


def test_a_record_of_another_template_or_setting_is_not_used(tmp_path, monkeypatch):
    (tmp_path / page_code.PAGE).write_text("{{ verdict }} and nothing else\n", encoding="utf-8")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(tmp_path), autoescape=True)
    page = page_code.page_template(env, tmp_path)          # the record is of the kit's page, not this one
    assert page.render(verdict="<b>") == "&lt;b&gt; and nothing else"
    record = tmp_path / "record.json"
    monkeypatch.setattr(page_code, "RECORD", record)
    page_code.record_page_code(env, tmp_path)
    forged = json.loads(record.read_text(encoding="utf-8"))
    record.write_text(json.dumps({**forged, "code": forged["code"].replace("nothing else", "a forged page")}),
                      encoding="utf-8")
    assert page_code.page_template(env, tmp_path).render(verdict="x") == "x and a forged page"
    other = jinja2.Environment(loader=jinja2.FileSystemLoader(tmp_path), autoescape=False)
    assert page_code.page_template(other, tmp_path).render(verdict="<b>") == "<b> and nothing else"
    monkeypatch.setattr(jinja2, "__version__", "0.0")
    assert page_code.page_template(env, tmp_path).render(verdict="x") == "x and nothing else"
    record.write_text("{not json", encoding="utf-8")
    assert page_code.page_template(env, tmp_path).render(verdict="x") == "x and nothing else"
