"""The report page's template (templates/report.html.j2) as the Python code Jinja makes of it, made when
the template changes (`python -c "from conformance.report.html import record_page; record_page()"`) and
kept in compiled_page.json with a key of what it was made from: the template's text, Jinja's release and
the environment's settings. A report loads that code instead of parsing the template and generating the
code again (most of what making a run's report costs otherwise). Where the record is missing or made
from anything else, Jinja compiles the template; the page is the same either way."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jinja2

PAGE = "report.html.j2"
RECORD = Path(__file__).resolve().parent / "compiled_page.json"


def _key(env: jinja2.Environment, source: str) -> str:
    """What the generated code depends on besides the template's text."""
    settings: tuple[Any, ...] = (
        jinja2.__version__, env.autoescape, env.trim_blocks, env.lstrip_blocks, env.keep_trailing_newline,
        env.newline_sequence, env.optimized, env.block_start_string, env.block_end_string,
        env.variable_start_string, env.variable_end_string, env.comment_start_string, env.comment_end_string,
        env.line_statement_prefix, env.line_comment_prefix, sorted(env.extensions))
    return hashlib.sha256((repr(settings) + "\0" + source).encode("utf-8", "surrogatepass")).hexdigest()


def page_template(env: jinja2.Environment, folder: Path) -> jinja2.Template:
    """The page's template of `folder`, from the recorded code where it was made from this template, this
    Jinja and `env`'s settings; compiled by `env` otherwise."""
    path = folder / PAGE
    code = _recorded(_key(env, path.read_text(encoding="utf-8")))
    if code is None:
        return env.get_template(PAGE)
    return env.template_class.from_code(env, compile(code, str(path), "exec"), env.make_globals(None))


def _recorded(key: str) -> str | None:
    try:
        record = json.loads(RECORD.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("key") != key or not isinstance(record.get("code"), str):
        return None
    return record["code"]


def page_code(env: jinja2.Environment, folder: Path) -> dict[str, str]:
    """The record of the page's template of `folder` as `env` compiles it: its key and code."""
    path = folder / PAGE
    source = path.read_text(encoding="utf-8")
    return {"jinja2": jinja2.__version__, "key": _key(env, source),
            "code": env.compile(source, PAGE, str(path), raw=True)}


def record_page_code(env: jinja2.Environment, folder: Path) -> None:
    RECORD.write_text(json.dumps(page_code(env, folder), ensure_ascii=False) + "\n", encoding="utf-8")
