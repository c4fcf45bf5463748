"""The handover report of a dump (``../shared/docs/evidence-review.md``), as JSON and as Markdown.

Per response, exactly: the API format and citation notation; the search batches as received;
the unresolved numbers; whether it completed (and why not); the statements still needing a
content check; and every verdict with its editor, time, quote and note. The comments on the dump
and on its items come with it.

:func:`handover_report` is the data (the JSON: codes and ISO times, for tools); :func:`labelled_report`
adds what a person reads (each code in words, each statement as text rather than Markdown, each time
as the page shows times, in ``gettext``'s language), which the page and :func:`report_markdown` show.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from citeview.core import registry
from citeview.core.bidi import show_bidi_controls
from citeview.core.phrases import Phrase, Translate, phrase, phrase_text, untranslated
from citeview.core.rendering.answer import readable_marker
from citeview.core.rendering.plain import plain_text
from citeview.core.review.items import CheckItem

# An ISO 8601 time as a person reads it; the web app passes one that follows the page's language.
ShowTime = Callable[[str], str]

# What an item's key says of its response ("r0-c3", "r0-s12-40", "r2-u1"): for a comment on an item
# that the dump no longer offers (a rebuilt result, past the limit of items).
_RESPONSE_OF_KEY = re.compile(r"r(\d+)-")

NOT_GIVEN = "—"


def handover_report(
    dump: dict[str, Any],
    result: dict[str, Any],
    items: list[CheckItem],
    checks: list[dict[str, Any]],
    comments: Iterable[dict[str, Any]] = (),
    evidence: Iterable[dict[str, Any]] = (),
) -> dict[str, Any]:
    """``dump``: id, title, sha256, stored_at; ``checks``: every check of the dump as a dict with
    item_key, kind, finished, editor, updated_at and its fields; ``comments``: item_key ("" for the
    dump), author, created_at, text; ``evidence``: per source cited (response_index, source_key,
    source_url), the evidence the dump holds of it (kind, text) or None, its snapshot (url, taken_at,
    sha256, …) or None, the passage found in it for each statement citing it (statement_key, found,
    text, score, page, differs), its citations' item_keys and markers (each once), and the provider's
    quotes (item_key, marker, kind, text) where it gave them.

    Items are taken by their ``CheckItem`` fields alone, whatever their kind."""
    finished = {c["item_key"] for c in checks if c.get("is_item", True) and _finished(c)}
    by_key = {item.key: item for item in items}
    dump_comments, item_comments = _comments(comments, by_key)
    # Each response's items and checks, in one pass each: a dump can hold many responses.
    items_of: dict[int, list[CheckItem]] = {}
    for item in items:
        items_of.setdefault(item.response, []).append(item)
    checks_of: dict[int, list[dict[str, Any]]] = {}
    for check in checks:
        checks_of.setdefault(check["response_index"], []).append(check)
    evidence_of: dict[int, list[dict[str, Any]]] = {}
    for entry in evidence:
        evidence_of.setdefault(entry["response_index"], []).append(entry)
    responses = []
    for number, response in enumerate(result["responses"]):
        api = registry.api_format(response["api"])
        responses.append(
            {
                "index": number,
                "api": response["api"],
                "api_name": api.label if api else response["api"],
                "model": response["model"],
                "citation_notation": api.citation_notation if api else "",
                "status": response["status"],
                "status_detail": response["status_detail"],
                # The detail as a sentence a page can translate (citeview/core/phrases.py).
                "status_detail_phrase": response.get("status_detail_phrase"),
                "search_batches": _search_batches(response),
                # "label": the marker as a reader sees it (a private-use citation token in words).
                "unresolved": [
                    {"marker": m["marker"], "ref": m["ref"], "label": readable_marker(m["marker"], m["ref"])}
                    for m in response["unresolved"]
                ],
                "cited_without_position": _cited_without_position(response),
                "statements_needing_check": _needing_check(items_of.get(number, []), finished),
                "verdicts": [_verdict(c) for c in checks_of.get(number, [])],
                "evidence": evidence_of.get(number, []),
                "comments": item_comments.get(number, []),
            }
        )
    return {"citeview_report": 1, "dump": dump, "comments": dump_comments, "responses": responses}


class _StatementTexts:
    """A statement's Markdown as the words a reader sees, made once per distinct statement: a dump's
    checks repeat their statement's text once per citation."""

    def __init__(self) -> None:
        self._shown: dict[str, str] = {}

    def __call__(self, markdown: str) -> str:
        shown = self._shown.get(markdown)
        if shown is None:
            shown = self._shown[markdown] = plain_text(markdown)
        return shown


def _finished(check: dict[str, Any]) -> bool:
    if "finished" in check:  # the app says, by the rule its progress counts with
        return bool(check["finished"])
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
    """Every field of a check, whatever its kind: a field a kind does not record is empty."""
    return {
        "item": check["item_key"],
        "kind": check["kind"],
        "statement": check["statement_text"],
        "editor": check["editor"],
        "time": check["updated_at"],
        "marker": check["marker"],
        "source_url": check["source_url"],
        "source_title": check["source_title"],
        "verdict": check["verdict"],
        "subject": check["subject"],
        "time_matches": check["time"],
        "conditions": check["conditions"],
        "evidence_quote": check["evidence_quote"],
        "verification_worthy": check["verification_worthy"],
        "supported_together": check["supported_together"],
        "note": check["note"],
    }


def _comments(
    comments: Iterable[dict[str, Any]], items: dict[str, CheckItem]
) -> tuple[list[dict[str, Any]], dict[int, list[dict[str, Any]]]]:
    """The comments on the dump, and per response those on its items (with the item's statement)."""
    on_dump: list[dict[str, Any]] = []
    on_items: dict[int, list[dict[str, Any]]] = {}
    for comment in comments:
        entry = {"author": comment["author"], "time": comment["created_at"], "text": comment["text"]}
        key = comment["item_key"]
        if not key:
            on_dump.append(entry)
            continue
        item = items.get(key)
        entry = {"item": key, "statement": item.statement.text if item else "", **entry}
        found = _RESPONSE_OF_KEY.match(key)
        response = item.response if item else int(found.group(1)) if found else None
        if response is None:
            on_dump.append(entry)
        else:
            on_items.setdefault(response, []).append(entry)
    return on_dump, on_items


# What a person reads.


def iso_minutes(value: str) -> str:
    """An ISO time to the minute, with its UTC offset: what a report says without a page's format."""
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return str(value or "")
    zone = moment.tzname() or ""
    return f"{moment:%Y-%m-%d %H:%M} {zone}".strip()


def labelled_report(
    report: dict[str, Any], gettext: Translate = untranslated, show_time: ShowTime = iso_minutes
) -> dict[str, Any]:
    """The report with what a person reads beside each code: ``*_shown`` in ``gettext``'s language,
    every time as ``show_time`` writes it. The codes stay, for the page to choose by."""
    words = _Words(gettext)
    texts = _StatementTexts()
    # A notation comes from the registry, not from a literal here: the catalogue lists each one in
    # citeview/review/notations.py, and one it lacks (a provider added since) stays in English.
    registered_notation = gettext
    shown = copy.deepcopy(report)
    shown["dump"]["stored_shown"] = show_time(report["dump"]["stored_at"])
    for comment in shown.setdefault("comments", []):
        comment["time_shown"] = show_time(comment["time"])
    for response in shown["responses"]:
        notation = response["citation_notation"]
        response["citation_notation_shown"] = registered_notation(notation) if notation else NOT_GIVEN
        response["status_shown"] = words.status(response["status"])
        response["status_detail_shown"] = (
            phrase_text(response["status_detail_phrase"], gettext)
            if response.get("status_detail_phrase")
            else response["status_detail"] or ""
        )
        for waiting in response["statements_needing_check"]:
            waiting["statement_shown"] = texts(waiting["statement"])
        for verdict in response["verdicts"]:
            verdict["statement_shown"] = texts(verdict["statement"])
            verdict["time_shown"] = show_time(verdict["time"])
            verdict["verdict_shown"] = words.verdict(verdict["verdict"])
            for field in ("subject", "time_matches", "conditions", "verification_worthy", "supported_together"):
                verdict[f"{field}_shown"] = words.answer(verdict[field])
        for comment in response.setdefault("comments", []):
            comment["time_shown"] = show_time(comment["time"])
            comment["statement_shown"] = texts(comment.get("statement", ""))
        for entry in response.setdefault("evidence", []):
            if entry["evidence"]:
                entry["evidence"]["kind_shown"] = words.evidence_kind(entry["evidence"]["kind"])
            if entry["snapshot"]:
                entry["snapshot"]["taken_shown"] = show_time(entry["snapshot"]["taken_at"])
                entry["snapshot"]["provenance_shown"] = snapshot_provenance(entry["snapshot"], show_time).text(gettext)
            for quote in entry["quotes"]:
                quote["kind_shown"] = words.evidence_kind(quote["kind"])
    return shown


class _Words:
    """The words of the codes an editor records, in one language."""

    def __init__(self, gettext: Translate) -> None:
        self._verdicts = {
            "complete": gettext("Complete support"),
            "partial": gettext("Partial support"),
            "none": gettext("No support"),
            "inaccessible": gettext("Source inaccessible"),
            "supports_and_refutes": gettext("Supports and refutes"),
            "unclear": gettext("Statement unclear"),
        }
        self._answers = {
            "yes": gettext("yes"),
            "no": gettext("no"),
            "unsure": gettext("unsure"),
            "contradict": gettext("contradict"),
        }
        self._evidence_kinds = {
            "checked_quote": gettext("a quote checked against the document"),
            "quote": gettext("a quote as the API gave it"),
            "search_snippet": gettext("a search snippet"),
            "retrieved_passage": gettext("a retrieved passage"),
            "document_text": gettext("the document as echoed"),
            "tool_output": gettext("a tool's output"),
        }
        self._statuses = {
            "completed": gettext("completed"),
            "incomplete": gettext("incomplete"),
            "failed": gettext("failed"),
        }

    def verdict(self, code: str) -> str:
        return self._verdicts.get(code, code) if code else NOT_GIVEN

    def answer(self, code: str) -> str:
        return self._answers.get(code, code) if code else NOT_GIVEN

    def status(self, code: str) -> str:
        return self._statuses.get(code, code)

    def evidence_kind(self, code: str) -> str:
        return self._evidence_kinds.get(code, code)


def report_markdown(
    report: dict[str, Any], gettext: Translate = untranslated, show_time: ShowTime = iso_minutes
) -> str:
    """The report for people, in ``gettext``'s language. Dump text is quoted as it is: this is a text
    file, never rendered here. The Markdown's own marks stay out of the sentences translated."""
    shown = labelled_report(report, gettext, show_time)
    dump = shown["dump"]
    lines = ["# " + phrase("Handover report: {title}", title=_one_line(dump["title"])).text(gettext), ""]
    lines.append("- " + phrase("Dump {id} (SHA-256 {sha256})", id=dump["id"], sha256=dump["sha256"]).text(gettext))
    lines.append("- " + phrase("Stored: {time}", time=dump["stored_shown"]).text(gettext))
    if report.get("hidden_until_you_check"):
        left_out = phrase(
            "Left out: {n} check(s) by other editors of items you have not checked yet (blind first)",
            n=report["hidden_until_you_check"],
        )
        lines.append("- " + left_out.text(gettext))
    if report.get("uncheckable_item_count"):
        past_limit = phrase(
            "Not offered for checking: {n} item(s) past the limit of items per dump (CITEVIEW_MAX_ITEMS_PER_DUMP);"
            " they are not among the statements needing a check below",
            n=report["uncheckable_item_count"],
        )
        lines.append("- " + past_limit.text(gettext))
    lines.append("")
    for response in shown["responses"]:
        lines += _response_markdown(response, len(shown["responses"]), gettext)
    lines += ["## " + phrase("Comments on the dump").text(gettext), ""]
    lines += [_comment_markdown(c, gettext) for c in shown["comments"]] or ["- " + phrase("none").text(gettext)]
    return "\n".join(lines).rstrip() + "\n"


def _response_markdown(response: dict[str, Any], count: int, gettext: Translate) -> list[str]:
    none = "- " + phrase("none").text(gettext)
    lines = ["## " + phrase("Response {n} of {total}", n=response["index"] + 1, total=count).text(gettext), ""]
    model = _one_line(response["model"]) if response["model"] else phrase("not given").text(gettext)
    api = phrase(
        "API: {name} ({code}), model {model}", name=response["api_name"], code=_code(response["api"]), model=model
    )
    lines.append("- " + api.text(gettext))
    notation = response["citation_notation_shown"] if response["citation_notation"] else phrase("unknown").text(gettext)
    lines.append("- " + phrase("Citation notation: {notation}", notation=notation).text(gettext))
    if response["status"] == "completed":
        lines.append("- " + phrase("Completed: yes").text(gettext))
    else:
        detail = _one_line(response["status_detail_shown"])
        lines.append(
            "- "
            + phrase("Completed: no ({status}: {detail})", status=response["status_shown"], detail=detail).text(gettext)
        )
    unresolved = ", ".join(_one_line(m["label"]) for m in response["unresolved"]) or phrase("none").text(gettext)
    lines.append("- " + phrase("Unresolved numbers: {numbers}", numbers=unresolved).text(gettext))
    if response["cited_without_position"]:
        lines.append(
            "- " + phrase("Cited by the message without saying where (the format gives no positions):").text(gettext)
        )
        lines += [_result_markdown(r, gettext) for r in response["cited_without_position"]]
    lines += ["", "### " + phrase("Search results as received").text(gettext), ""]
    for number, batch in enumerate(response["search_batches"], 1):
        queries = "; ".join(_one_line(q) for q in batch["queries"]) or phrase("(no query given)").text(gettext)
        lines.append(f"{number}. {queries}")
        lines += [_result_markdown(r, gettext) for r in batch["results"]]
    lines += ["", "### " + phrase("Statements still needing a content check").text(gettext), ""]
    lines += [f"- {_one_line(s['statement_shown'])}" for s in response["statements_needing_check"]] or [none]
    lines += ["", "### " + phrase("Verdicts").text(gettext), ""]
    lines += [_verdict_markdown(v, gettext) for v in response["verdicts"]] or [
        "- " + phrase("none recorded").text(gettext)
    ]
    lines += ["", "### " + phrase("Evidence per citation").text(gettext), ""]
    lines += [_evidence_markdown(e, gettext) for e in response["evidence"]] or [none]
    if response["comments"]:
        lines += ["", "### " + phrase("Comments on its items").text(gettext), ""]
        lines += [_comment_markdown(c, gettext) for c in response["comments"]]
    lines.append("")
    return lines


def _result_markdown(result: dict[str, Any], gettext: Translate) -> str:
    title = _one_line(result["title"]) if result["title"] else phrase("(no title)").text(gettext)
    url = _code(result["url"]) or phrase("(no URL)").text(gettext)
    return f"   - \\[{_one_line(result['id'])}\\] {title} — {url}"


def _verdict_markdown(verdict: dict[str, Any], gettext: Translate) -> str:
    """One check: the statement, then each thing recorded on a line of its own, under its label.
    A field the check's kind does not record is left out; what it records and left empty is "—"."""
    lines = ["- " + phrase("“{statement}”", statement=_one_line(verdict["statement_shown"])).text(gettext)]

    def add(line: str) -> None:
        lines.append("  - " + line)

    if verdict["kind"] == "statement" and verdict["marker"]:  # the answer's record of a marker with no source
        add(phrase("Citation with no source: {marker}", marker=_one_line(verdict["marker"])).text(gettext))
    elif verdict["marker"] or verdict["source_url"] or verdict["source_title"]:
        title = _one_line(verdict["source_title"]) if verdict["source_title"] else phrase("(no title)").text(gettext)
        url = _code(verdict["source_url"]) or phrase("(no URL)").text(gettext)
        source = f"{_one_line(verdict['marker'])} {title} — {url}".strip()
        add(phrase("Source: {source}", source=source).text(gettext))
    if verdict["verdict"] or verdict["kind"] == "citation":
        add(
            phrase(
                "Verdict: {verdict} (subject: {subject}, time: {time}, conditions: {conditions})",
                verdict=verdict["verdict_shown"],
                subject=verdict["subject_shown"],
                time=verdict["time_matches_shown"],
                conditions=verdict["conditions_shown"],
            ).text(gettext)
        )
    if verdict["verification_worthy"] or verdict["supported_together"] or verdict["kind"] == "statement":
        add(
            phrase(
                "Verification-worthy: {worthy}; supported together: {together}",
                worthy=verdict["verification_worthy_shown"],
                together=verdict["supported_together_shown"],
            ).text(gettext)
        )
    if verdict["evidence_quote"]:
        add(phrase("Evidence quote: “{quote}”", quote=_one_line(verdict["evidence_quote"])).text(gettext))
    if verdict["note"]:
        add(phrase("Note: {note}", note=_one_line(verdict["note"])).text(gettext))
    add(phrase("By {editor}, {time}", editor=_one_line(verdict["editor"]), time=verdict["time_shown"]).text(gettext))
    return "\n".join(lines)


def _evidence_markdown(entry: dict[str, Any], gettext: Translate) -> str:
    """One source's evidence: what the dump holds of it, its snapshot, the passage found in it for each
    statement citing it, and the citations (with the provider's quote where it gave one)."""
    lines = [f"- {_code(entry['source_url']) or phrase('(no URL)').text(gettext)}"]

    def add(line: Any) -> None:
        lines.append("  - " + line.text(gettext))

    markers = ", ".join(_one_line(m) for m in entry["markers"]) or ", ".join(_code(k) for k in entry["item_keys"])
    add(phrase("Cited by: {markers}", markers=markers))
    held = entry["evidence"]
    if held:
        add(phrase("In the dump ({kind}): “{text}”", kind=held["kind_shown"], text=_one_line(held["text"][:500])))
    for quote in entry["quotes"]:
        text = _one_line(quote["text"][:500])
        add(phrase("In the dump ({kind}): “{text}”", kind=quote["kind_shown"], text=text))
    if not held and not entry["quotes"]:
        add(phrase("In the dump: no evidence text"))
    snapshot = entry["snapshot"]
    if snapshot is None:
        add(phrase("Snapshot: none"))
        return "\n".join(lines)
    taken = snapshot_provenance(snapshot, lambda _: snapshot["taken_shown"], markdown=True).text(gettext)
    add(phrase("Snapshot: {taken} (SHA-256 {sha256})", taken=taken, sha256=snapshot["sha256"]))
    for passage in entry["passages"]:
        if passage.get("pending"):
            add(phrase("Passage: still being looked for in the snapshot"))
            continue
        if not passage["found"]:
            add(phrase("Passage: none found in the snapshot"))
            continue
        where = phrase("page {page}", page=passage["page"]).text(gettext) if passage["page"] else ""
        text = _one_line(passage["text"])
        add(phrase("Passage (score {score}{where}): “{text}”", score=passage["score"], where=f", {where}" if where else "", text=text))  # fmt: skip
        if passage["differs"]:
            add(phrase("The claim says a figure, date or condition the passage does not"))
    return "\n".join(lines)


def snapshot_provenance(snapshot: dict[str, Any], show_time: ShowTime = iso_minutes, markdown: bool = False) -> Phrase:
    """How a snapshot was taken and by whom, as every report and page says it: "pasted by ed3,
    2026/12/03 00:29 JST", "uploaded by ed3 as report.pdf, …", "fetched from https://… by ed3, …".
    ``snapshot``: method, taken_by (a user name, or None for an account since deleted), taken_at, and
    final_url (a fetch's) and filename (an upload's). Only a fetch names an address: a page an editor
    saved or pasted was not read from it by citeview. ``markdown``: its values escaped for Markdown
    (a page escapes the sentence as it shows it)."""
    text: Callable[[str], str] = _one_line if markdown else (lambda value: " ".join(str(value).split()))
    time = show_time(snapshot["taken_at"])
    by = text(snapshot.get("taken_by") or "")
    method = snapshot["method"]
    if method == "fetch":
        url = _code(snapshot["final_url"]) if markdown else text(snapshot["final_url"])
        if by:
            return phrase("fetched from {url} by {user}, {time}", url=url, user=by, time=time)
        return phrase("fetched from {url}, {time}", url=url, time=time)
    if method == "upload":
        name = text(snapshot.get("filename") or "")
        if by and name:
            return phrase("uploaded by {user} as {name}, {time}", user=by, name=name, time=time)
        if by:
            return phrase("uploaded by {user}, {time}", user=by, time=time)
        return (
            phrase("uploaded as {name}, {time}", name=name, time=time)
            if name
            else phrase("uploaded, {time}", time=time)
        )
    if by:
        return phrase("pasted by {user}, {time}", user=by, time=time)
    return phrase("pasted, {time}", time=time)


def _comment_markdown(comment: dict[str, Any], gettext: Translate) -> str:
    author, time, text = _one_line(comment["author"]), comment["time_shown"], _one_line(comment["text"])
    line = "- " + phrase("{author}, {time}: {text}", author=author, time=time, text=text).text(gettext)
    if comment.get("statement_shown"):
        line += "\n  - " + phrase("On “{statement}”", statement=_one_line(comment["statement_shown"])).text(gettext)
    elif comment.get("item"):
        line += "\n  - " + phrase("On item {item}", item=_code(comment["item"])).text(gettext)
    return line


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
