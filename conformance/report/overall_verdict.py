"""The overall verdict of a results document: what it covers, and why it is what it is.

A results document is CONFORMANT only for what was tested, and says which: the apis and products whose
cells ran (verdict_covers; results.json's `scope`), those the backend does not support, the `--select`
that narrowed the cells, the shard it is. It is INCOMPLETE, with its reasons, when a cell judged fewer
calls than it planned or missed an edge (judge/runner.py: a cell's `incomplete`), when cells errored or
are missing, when the run was stopped, when it is one shard of several (only the merge of every shard
speaks for a product), and when nothing was tested at all (every cell NOT_SUPPORTED): a backend that
supports nothing asked of it has not shown that it conforms to anything.

Everything here reads results data alone, so a merged or re-rendered report says the same.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

from conformance.judge.verdicts import NONCONFORMING

CONFORMANT, NOT_CONFORMANT, INCOMPLETE = "CONFORMANT", "NOT CONFORMANT", "INCOMPLETE"
NOTHING_TESTED = "NOTHING TESTED"
WAIVED_PREFIX = "CONFORMANT WITH "     # 'CONFORMANT WITH 2 WAIVED FAILURES': never a plain CONFORMANT
MERGE_SHARDS = "merge every shard with `ascend-conformance report` for the product's verdict"
_NONCONFORMING = {v.value for v in NONCONFORMING}
SHOWN_INCOMPLETE = 3                # incomplete cells named in a verdict's reasons (the report lists all)


def failed(cell: dict[str, Any]) -> bool:
    """The cell holds a non-conforming call (waived or not)."""
    return bool(cell.get("failure") or _NONCONFORMING & set(cell["counts"]))


def cells_of(results: dict[str, Any], product: str | None = None) -> list[dict[str, Any]]:
    return [c for c in results["cells"] if product is None or c["cell"]["product"] == product]


def missing_cells(results: dict[str, Any], product: str | None = None) -> list[str]:
    """Cells the run planned (for one product, or all) that left no result."""
    ran = {c["id"] for c in results["cells"]}
    return sorted(c for c in results.get("planned") or []
                  if c not in ran and (product is None or c.split("/")[1] == product))


def why_missing(results: dict[str, Any]) -> str:
    """Why a planned cell left no result: the run was stopped (the signal, where known), interrupted, or
    nobody knows (a shard or a worker that never reported)."""
    if results.get("stopped"):
        return f"not run: the run was stopped ({results['stopped']})"
    if results.get("interrupted"):
        return "not run: the run was interrupted"
    return "planned, but no result came back"


def shard_of(results: dict[str, Any]) -> tuple[int, int] | None:
    """(i, N) of a document that is shard i of N > 1 (a merge of shards is not one: its `shard` reads
    'k of N')."""
    text = results.get("shard")
    found = re.fullmatch(r"(\d+)/(\d+)", text) if isinstance(text, str) else None
    return (int(found[1]), int(found[2])) if found and int(found[2]) > 1 else None


def _pairs(results: dict[str, Any], product: str | None) -> dict[tuple[str, str], str]:
    """(api, product) of every planned or judged cell -> 'tested' (the backend supports it: some cell of
    the pair was not NOT_SUPPORTED), 'not_supported', or 'not_run' (no cell of it left a result)."""
    out: dict[tuple[str, str], str] = {}
    for cid in results.get("planned") or []:
        api, prod = cid.split("/")[:2]
        if product is None or prod == product:
            out[(api, prod)] = "not_run"
    for c in cells_of(results, product):
        key = (c["cell"]["api"], c["cell"]["product"])
        if c["status"] != "not_supported":
            out[key] = "tested"
        elif out.get(key) != "tested":
            out[key] = "not_supported"
    return out


def _ordered(values: Iterable[str], order: Sequence[str]) -> list[str]:
    rank = {v: i for i, v in enumerate(order)}
    return sorted(set(values), key=lambda v: (rank.get(v, len(rank)), v))


def _on(by_api: dict[str, list[str]], apis: Sequence[str]) -> str:
    """'data_move, scatter on ascend910b; asc_gather on ascend910b, ascend310b': apis grouped by the
    products they apply to."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for api in apis:
        if api in by_api:
            groups.setdefault(tuple(by_api[api]), []).append(api)
    return "; ".join(f"{', '.join(names)} on {', '.join(products)}" for products, names in groups.items())


def nothing_tested(results: dict[str, Any], product: str | None = None) -> str | None:
    """Why nothing was tested, when nothing was: every cell of a run that ran to its end NOT_SUPPORTED
    (or without a call the kit could make), or no cell at all. None when something was."""
    cells = cells_of(results, product)
    if (results.get("interrupted") or results.get("running") or missing_cells(results, product)
            or any(c["status"] not in ("not_supported", "unreachable") or failed(c) for c in cells)):
        return None
    if not cells:
        return "no cell was run"
    covers = verdict_covers(results, product, _nothing=False)
    asked = f"{', '.join(covers['apis'])} on {', '.join(covers['products'])}"
    name = (results.get("backend") or {}).get("name") or "?"
    if all(c["status"] == "not_supported" for c in cells):
        return f"backend {name!r} supports none of {asked}"
    unreachable = sum(c["status"] == "unreachable" for c in cells)
    return (f"no call was made for {asked}: {unreachable} cell{'s' if unreachable != 1 else ''} without a call "
            f"the kit could generate, {len(cells) - unreachable} not supported by backend {name!r}")


def verdict_covers(results: dict[str, Any], product: str | None = None, _nothing: bool = True) -> dict[str, Any]:
    """What the document's verdict (of one product, or all) covers: `products` and `apis` asked;
    `tested` and `not_supported` (api -> products); `complete` (everything asked was supported and
    tested); `select` (the globs that narrowed the cells); `shard`; `nothing_tested` (why, when nothing
    was); `text` ('data_move on ascend910b': what was tested, or while nothing was, what was asked) and
    `detail` ('1 of 5 APIs; not supported: ...')."""
    pairs = _pairs(results, product)
    products = _ordered((p for _, p in pairs), [product] if product else results.get("products") or [])
    apis = _ordered((a for a, _ in pairs), results.get("apis") or [])
    if not pairs:
        products = [product] if product else list(results.get("products") or [])
        apis = list(results.get("apis") or [])
    tested: dict[str, list[str]] = {}
    unsupported: dict[str, list[str]] = {}
    for (api, prod), state in pairs.items():
        if state in ("tested", "not_supported"):
            (tested if state == "tested" else unsupported).setdefault(api, []).append(prod)
    tested = {a: _ordered(tested[a], products) for a in apis if a in tested}
    unsupported = {a: _ordered(unsupported[a], products) for a in apis if a in unsupported}
    detail = []
    if unsupported and len(tested) < len(apis):
        detail.append(f"{len(tested)} of {len(apis)} API{'s' if len(apis) != 1 else ''}")
    if unsupported:
        detail.append("not supported: " + ", ".join(api if api not in tested else f"{api} on {', '.join(prods)}"
                                                     for api, prods in unsupported.items()))
    select = [s for s in results.get("select") or [] if isinstance(s, str)]
    if select:
        detail.append("cells matching --select " + " ".join(select))
    shard = shard_of(results)
    out: dict[str, Any] = {
        "products": products, "apis": apis, "tested": tested, "not_supported": unsupported,
        "complete": bool(tested) and not unsupported and not select and shard is None, "select": select,
        "shard": None, "nothing_tested": nothing_tested(results, product) if _nothing else None,
        "text": _on(tested, apis) if tested else f"{', '.join(apis)} on {', '.join(products)}",
        "detail": "; ".join(detail)}
    if shard is not None:
        planned = [c for c in results.get("planned") or [] if product is None or c.split("/")[1] == product]
        out["shard"] = {"index": shard[0], "count": shard[1],
                        "cells": len(planned) or len(cells_of(results, product)),
                        "of": results.get("shard_cells") if product is None else None,
                        "conforms": not verdict_reasons(results, product, whole=False)
                        and not any(failed(c) and not c.get("waived") for c in cells_of(results, product))}
    return out


def shard_note(shard: dict[str, Any]) -> str:
    """'shard 1/2: 14 of 27 cells, none failed or incomplete; merge every shard with ...'"""
    of = f" of {shard['of']}" if shard.get("of") else ""
    each = ", none failed or incomplete" if shard.get("conforms") else ""
    word = "cells" if of or shard["cells"] != 1 else "cell"
    return f"shard {shard['index']}/{shard['count']}: {shard['cells']}{of} {word}{each}; {MERGE_SHARDS}"


def _incomplete_cells(cells: list[dict[str, Any]]) -> str | None:
    """'data_move/.../int8: judged 87 of 120 planned calls', or '3 cells incomplete: ...'."""
    short = [c for c in cells if c.get("incomplete") and c["status"] == "ran" and not failed(c)]
    if not short:
        return None
    named = "; ".join(f"{c['id']}: {c['incomplete']}" for c in short[:SHOWN_INCOMPLETE])
    more = f"; and {len(short) - SHOWN_INCOMPLETE} more" if len(short) > SHOWN_INCOMPLETE else ""
    return named + more if len(short) == 1 else f"{len(short)} cells incomplete: {named}{more}"


def verdict_reasons(results: dict[str, Any], product: str | None = None, whole: bool = True) -> list[str]:
    """Why the document (of one product, or all) is not CONFORMANT though no cell failed; `whole`: as a
    verdict on the products (a shard and a run that tested nothing are INCOMPLETE there), else as the
    verdict on the cells alone."""
    cells = cells_of(results, product)
    why = []
    if results.get("stopped"):
        why.append(f"the run was stopped ({results['stopped']})")
    elif results.get("interrupted"):
        why.append("the run was interrupted")
    if results.get("running"):
        why.append("the run had not ended when these results were written")
    missing = missing_cells(results, product)
    if missing:
        why.append(f"{len(missing)} planned cell{'s' if len(missing) != 1 else ''} left no result")
    errored = sum(c["status"] == "error" for c in cells)
    if errored:
        why.append(f"{errored} cell{'s' if errored != 1 else ''} in error")
    if results.get("errors"):
        why.append(f"{len(results['errors'])} run error{'s' if len(results['errors']) != 1 else ''}")
    short = _incomplete_cells(cells)
    if short:
        why.append(short)
    if whole:
        shard = shard_of(results)
        if shard is not None:
            why.append(shard_note(verdict_covers(results, product, _nothing=False)["shard"]))
        nothing = nothing_tested(results, product)
        if nothing:
            why.append(f"nothing tested: {nothing}")
    return why


def waived_verdict(waived: int) -> str:
    """The verdict of a run whose only failures are waived: the count is part of the word."""
    return f"{WAIVED_PREFIX}{waived} WAIVED FAILURE{'S' if waived != 1 else ''}"


def accepted(verdict: str) -> bool:
    """CONFORMANT, or CONFORMANT with waived failures: what `run` and `certify` exit 0 on."""
    return verdict == CONFORMANT or verdict.startswith(WAIVED_PREFIX)


def overall(results: dict[str, Any], product: str | None = None) -> str:
    """The verdict of a results.json (of one product, or all): NOT CONFORMANT when some cell failed
    and no waiver covers it; INCOMPLETE when nothing failed but something in verdict_reasons holds;
    CONFORMANT WITH N WAIVED FAILURES where waivers cover failures; CONFORMANT otherwise."""
    cells = cells_of(results, product)
    if any(failed(c) and not c.get("waived") for c in cells):
        return NOT_CONFORMANT
    if verdict_reasons(results, product):
        return INCOMPLETE
    waived = sum(1 for c in cells if failed(c) and c.get("waived"))
    return waived_verdict(waived) if waived else CONFORMANT


def verdict_of(results: dict[str, Any], product: str | None = None) -> tuple[str, list[str], dict[str, Any]]:
    """(verdict, reasons shown with it, what it covers: verdict_covers, results.json's `scope`) of the
    document, or of one product: an INCOMPLETE one's reasons; a NOT CONFORMANT one's shard, where it is one
    (its failures say the rest)."""
    covers = verdict_covers(results, product)
    if any(failed(c) and not c.get("waived") for c in cells_of(results, product)):
        return NOT_CONFORMANT, [shard_note(covers["shard"])] if covers["shard"] else [], covers
    reasons = verdict_reasons(results, product)
    if reasons:
        return INCOMPLETE, reasons, covers
    waived = sum(1 for c in cells_of(results, product) if failed(c) and c.get("waived"))
    return waived_verdict(waived) if waived else CONFORMANT, reasons, covers


def verdict_line(verdict: str, covers: dict[str, Any], reasons: Sequence[str], readings: str = "",
                 calls: int = 0) -> str:
    """The verdict in one line, what it covers named: 'CONFORMANT for data_move on ascend910b (1 of 5 APIs;
    not supported: ...)', 'CONFORMANT under readings a=r for ...', 'INCOMPLETE for ...: <reasons>',
    'NOTHING TESTED: backend 'x' supports none of ... (0 calls)'."""
    if covers.get("nothing_tested") and verdict == INCOMPLETE:
        rest = [r for r in reasons if not r.startswith("nothing tested: ")]
        return f"{NOTHING_TESTED}: {covers['nothing_tested']} ({'; '.join(rest + [f'{calls} calls'])})"
    line = f"{verdict}{f' under readings {readings}' if readings else ''} for {covers['text']}"
    if covers.get("detail"):
        line += f" ({covers['detail']})"
    if reasons and verdict != CONFORMANT:
        line += ": " + "; ".join(reasons)
    return line
