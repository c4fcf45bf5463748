"""The handover report of a dump (``../shared/docs/evidence-review.md``), as JSON and as Markdown.

Per response, exactly: the API format and citation notation; the search batches as received;
the unresolved numbers; whether it completed (and why not); the statements still needing a
content check; and every verdict with its editor, time, quote and note.
"""

from __future__ import annotations

import re
from typing import Any

from citeview.core import registry
from citeview.core.bidi import show_bidi_controls
from citeview.core.rendering.answer import readable_marker
from citeview.core.review.items import CheckItem


def handover_report(
    dump: dict[str, Any], result: dict[str, Any], items: list[CheckItem], checks: list[dict[str, Any]]
) -> dict[str, Any]:
    """``dump``: id, title, sha256, stored_at; ``checks``: every check of the dump as a dict with
    item_key, kind, editor, updated_at and its fields."""
    finished = {c["item_key"] for c in checks if _finished(c)}
    responses = []
    for number, response in enumerate(result["responses"]):
        api = registry.api_format(response["api"])
        own_items = [i for i in items if i.response == number]
        responses.append(
            {
                "index": number,
                "api": response["api"],
                "api_name": api.label if api else response["api"],
                "model": response["model"],
                "citation_notation": api.citation_notation if api else "",
                "status": response["status"],
                "status_detail": response["status_detail"],
                "search_batches": _search_batches(response),
                # "label": the marker as a reader sees it (a private-use citation token in words).
                "unresolved": [
                    {"marker": m["marker"], "ref": m["ref"], "label": readable_marker(m["marker"], m["ref"])}
                    for m in response["unresolved"]
                ],
                "cited_without_position": _cited_without_position(response),
                "statements_needing_check": _needing_check(own_items, finished),
                "verdicts": [_verdict(c) for c in checks if c["response_index"] == number],
            }
        )
    return {"citeview_report": 1, "dump": dump, "responses": responses}


def _finished(check: dict[str, Any]) -> bool:
    if not check["is_item"]:
        return False
    return bool(check["verdict"]) if check["kind"] == "citation" else bool(check["verification_worthy"])


def _search_batches(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The searches as received; a response without them lists its sources as one batch."""
    sources = {s["key"]: s for s in response["sources"]}
    batches = response.get("searches") or [{"queries": [], "source_keys": list(sources)}]
    return [
        {
            "queries": batch["queries"],
            "results": [
                {"id": key, "url": sources[key]["url"], "title": sources[key]["title"]}
                for key in batch["source_keys"]
                if key in sources
            ],
        }
        for batch in batches
    ]


def _cited_without_position(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The sources the response cites without saying where (the format keeps no positions)."""
    sources = {s["key"]: s for s in response["sources"]}
    return [
        {"id": key, "url": sources[key]["url"], "title": sources[key]["title"]}
        for key in response.get("cited_without_position", [])
        if key in sources
    ]


def _needing_check(items: list[CheckItem], finished: set[str]) -> list[dict[str, Any]]:
    """Statements with an item no editor has finished, once each."""
    waiting: dict[str, dict[str, Any]] = {}
    for item in items:
        if item.key not in finished:
            entry = waiting.setdefault(item.statement_key, {"statement": item.statement.text, "unchecked_items": []})
            entry["unchecked_items"].append(item.key)
    return list(waiting.values())


def _verdict(check: dict[str, Any]) -> dict[str, Any]:
    base = {
        "item": check["item_key"],
        "kind": check["kind"],
        "statement": check["statement_text"],
        "editor": check["editor"],
        "time": check["updated_at"],
        "note": check["note"],
    }
    if check["kind"] == "statement":
        return {
            **base,
            "verification_worthy": check["verification_worthy"],
            "supported_together": check["supported_together"],
        }
    return {
        **base,
        "marker": check["marker"],
        "source_url": check["source_url"],
        "source_title": check["source_title"],
        "verdict": check["verdict"],
        "subject": check["subject"],
        "time_matches": check["time"],
        "conditions": check["conditions"],
        "evidence_quote": check["evidence_quote"],
    }


def report_markdown(report: dict[str, Any]) -> str:
    """The report for people. Dump text is quoted as it is: this is a text file, never rendered here."""
    dump = report["dump"]
    lines = [f"# Handover report: {_one_line(dump['title'])}", ""]
    lines += [f"- Dump: {dump['id']} (SHA-256 {dump['sha256']})", f"- Stored: {dump['stored_at']}"]
    if report.get("hidden_until_you_check"):
        lines.append(
            f"- Left out: {report['hidden_until_you_check']} check(s) by other editors of items you have not"
            " checked yet (blind first)"
        )
    if report.get("uncheckable_item_count"):
        lines.append(
            f"- Not offered for checking: {report['uncheckable_item_count']} item(s) past the limit of items per"
            " dump (CITEVIEW_MAX_ITEMS_PER_DUMP); they are not among the statements needing a check below"
        )
    lines.append("")
    for response in report["responses"]:
        lines += _response_markdown(response, len(report["responses"]))
    return "\n".join(lines).rstrip() + "\n"


def _response_markdown(response: dict[str, Any], count: int) -> list[str]:
    lines = [f"## Response {response['index'] + 1} of {count}", ""]
    lines.append(
        f"- API: {response['api_name']} (`{response['api']}`), model {_one_line(response['model'] or 'not given')}"
    )
    lines.append(f"- Citation notation: {response['citation_notation'] or 'unknown'}")
    status = response["status"]
    lines.append(
        f"- Completed: {'yes' if status == 'completed' else 'no'}"
        + ("" if status == "completed" else f" ({status}: {_one_line(response['status_detail'] or '')})")
    )
    unresolved = ", ".join(_one_line(m["label"]) for m in response["unresolved"]) or "none"
    lines.append(f"- Unresolved numbers: {unresolved}")
    if response["cited_without_position"]:
        lines.append("- Cited by the message without saying where (the format gives no positions):")
        lines += [
            f"   - \\[{_one_line(r['id'])}\\] {_one_line(r['title'] or '(no title)')} — {_code(r['url']) or '(no URL)'}"
            for r in response["cited_without_position"]
        ]
    lines += ["", "### Search results as received", ""]
    for number, batch in enumerate(response["search_batches"], 1):
        queries = "; ".join(_one_line(q) for q in batch["queries"]) or "(no query given)"
        lines.append(f"{number}. {queries}")
        lines += [
            f"   - \\[{_one_line(r['id'])}\\] {_one_line(r['title'] or '(no title)')} — {_code(r['url']) or '(no URL)'}"
            for r in batch["results"]
        ]
    lines += ["", "### Statements still needing a content check", ""]
    lines += [f"- {_one_line(s['statement'])}" for s in response["statements_needing_check"]] or ["- none"]
    lines += ["", "### Verdicts", ""]
    lines += [_verdict_markdown(v) for v in response["verdicts"]] or ["- none recorded"]
    lines.append("")
    return lines


def _verdict_markdown(verdict: dict[str, Any]) -> str:
    head = f"- {verdict['editor']}, {verdict['time']}: “{_one_line(verdict['statement'])}”"
    if verdict["kind"] == "statement":
        text = f"{head} — verification-worthy: {verdict['verification_worthy'] or '—'}"
        text += f", supported together: {verdict['supported_together'] or '—'}"
    else:
        source = _code(verdict["source_url"]) or "(no URL)"
        text = f"{head} {_one_line(verdict['marker'])} → {source} — verdict: {verdict['verdict'] or '—'}"
        text += f" (subject {verdict['subject'] or '—'}, time {verdict['time_matches'] or '—'},"
        text += f" conditions {verdict['conditions'] or '—'})"
        if verdict["evidence_quote"]:
            text += f"\n  - quote: “{_one_line(verdict['evidence_quote'])}”"
    if verdict["note"]:
        text += f"\n  - note: {_one_line(verdict['note'])}"
    return text


_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]<>!#|~&])")


def _one_line(text: str) -> str:
    """Text from a dump on one line, its Markdown punctuation escaped and its bidi controls shown:
    the report quotes it, so a viewer must not turn it into links, images or HTML, nor turn it round."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", show_bidi_controls(" ".join(str(text).split())))


def _code(text: str | None) -> str:
    """A URL or id as a code span (shown, never followed), fenced by more backticks than it holds."""
    text = show_bidi_controls(" ".join(str(text or "").split()))
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}"
