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
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from citeview.core.checking.items import CheckItem, unresolved_item_key
from citeview.core.checking.metrics import FigureScope, scope_phrase
from citeview.core.checking.report_summary import HIDDEN, STATEMENT_ANSWERS, report_summary
from citeview.core.common.bidi_controls import show_bidi_controls
from citeview.core.common.phrases import Phrase, Translate, phrase, phrase_text, untranslated
from citeview.core.detection import registry
from citeview.core.rendering.answer import readable_marker
from citeview.core.rendering.plain import plain_text

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
    settlements: Iterable[dict[str, Any]] = (),
    hidden: Iterable[str] = (),
    scope: FigureScope | None = None,
) -> dict[str, Any]:
    """``dump``: id, title, sha256, stored_at; ``checks``: every check of the dump as a dict with
    item_key, kind, finished, editor, updated_at and its fields; ``comments``: item_key ("" for the
    dump), author, created_at, text; ``evidence``: per source cited (response_index, source_key,
    source_url), the evidence the dump holds of it (kind, text) or None, its snapshot (url, taken_at,
    sha256, …) or None, the passage found in it for each statement citing it (statement_key, found,
    text, score, page, differs), its citations' item_keys and markers (each once), and the provider's
    quotes (item_key, marker, kind, text) where it gave them; ``settlements``: the leads' final
    verdicts (item_key, editor, updated_at, verdict, reason in note); ``hidden``: the keys of the items
    whose checks by other editors blind first keeps from the reader; ``scope``: what the summary's
    figures are computed on (the web app's, ``citeview.review.figure_scope``; without it, every item
    but the hidden ones).

    First comes the summary (:mod:`citeview.core.checking.report_summary`), counted on final verdicts;
    then each response, its statements in reading order with their items and final verdicts, and
    every check (``verdicts``) keyed by item for tools to join. Items are taken by their ``CheckItem``
    fields alone, whatever their kind."""
    hidden = sorted(set(hidden))
    if scope is None:
        scope = FigureScope.of(len(items), len(set(hidden) & {item.key for item in items}))
    summary, statements_of = report_summary(result, items, checks, settlements, hidden)
    summary["scope"] = scope.to_json()
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
                "citation_notation": api.citation_notation.template if api else "",
                "status": response["status"],
                "status_detail": response["status_detail"],
                # The detail as a sentence a page can translate (citeview/core/common/phrases.py).
                "status_detail_phrase": response.get("status_detail_phrase"),
                # Each source once: the statements and the summary name sources by key.
                "sources": [{"key": s["key"], "url": s["url"], "title": s["title"]} for s in response["sources"]],
                "search_batches": _search_batches(response),
                # "label": the marker as a reader sees it (a private-use citation token in words).
                "unresolved": [
                    {"marker": m["marker"], "ref": m["ref"], "label": readable_marker(m["marker"], m["ref"])}
                    for m in response["unresolved"]
                ],
                "cited_without_position": _cited_without_position(response),
                "statements_needing_check": _needing_check(items_of.get(number, []), finished),
                "statements": statements_of.get(number, []),
                "verdicts": [_verdict(c) for c in checks_of.get(number, [])],
                "evidence": evidence_of.get(number, []),
                "comments": item_comments.get(number, []),
            }
        )
    return {
        "citeview_report": 1,
        "dump": dump,
        # Items, not check rows: one item can hide several checks (and its statement's answers).
        "hidden_until_you_check": len(hidden),
        "summary": summary,
        "comments": dump_comments,
        "responses": responses,
    }


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
    report: dict[str, Any],
    gettext: Translate = untranslated,
    show_time: ShowTime = iso_minutes,
    detailed: Sequence[int] | None = None,
    differing_only: bool = False,
) -> dict[str, Any]:
    """The report with what a person reads beside each code: ``*_shown`` in ``gettext``'s language,
    every time as ``show_time`` writes it. The codes stay, for the page to choose by. ``detailed``: the
    indexes of the responses whose details it holds (all when None); the summary covers them all, so
    a page of a batch's report costs its summary and its own responses. ``differing_only``: of each
    response's statements, only those where two editors' given answers or verdicts differ (settled
    since or not), each with only its items that differ: the report to work disagreements from."""
    words = _Words(gettext)
    texts = _StatementTexts()
    # A notation comes from the registry, not from a literal here: the catalogue lists each one from
    # its provider's module (a phrase), and one it lacks stays in English.
    registered_notation = gettext
    shown = copy.deepcopy({key: value for key, value in report.items() if key != "responses"})
    picked = report["responses"] if detailed is None else [report["responses"][index] for index in detailed]
    shown["responses"] = copy.deepcopy(picked)
    shown["response_count"] = len(report["responses"])
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
            verdict["details_shown"] = words.details(verdict)
            verdict["answers_shown"] = words.answers(verdict)
        checks_of: dict[str, list[dict[str, Any]]] = {}
        for verdict in response["verdicts"]:
            checks_of.setdefault(verdict["item"], []).append(verdict)
        placed: set[str] = set()
        sources = {source["key"]: source for source in response.get("sources", [])}
        for statement in response.setdefault("statements", []):
            _label_statement(statement, checks_of, sources, words, texts, show_time)
            placed |= {statement["key"], *(item["item"] for item in statement["items"])}
        if differing_only:
            response["statements"] = [_differing(s) for s in response["statements"] if s["editors_differ"]]
        # A check of an item the answer no longer offers (its result rebuilt, or past the limit of
        # items) belongs to no statement here; it is still handed over.
        response["unplaced_verdicts"] = [v for v in response["verdicts"] if v["item"] not in placed]
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
        # A source with nothing to show (no text in the dump, no snapshot) is named on one line, not
        # given a row of dashes: the page is printed.
        response["evidence_shown"] = [e for e in response["evidence"] if _has_evidence(e)]
        response["evidence_missing"] = [e for e in response["evidence"] if not _has_evidence(e)]
    if "summary" in shown:
        _label_summary(shown["summary"], report["responses"], words, texts, show_time)
    return shown


def _has_evidence(entry: dict[str, Any]) -> bool:
    return bool(entry["evidence"] or entry["quotes"] or entry["snapshot"])


def _label_summary(
    summary: dict[str, Any], responses: list[dict[str, Any]], words: _Words, texts: _StatementTexts, show_time: ShowTime
) -> None:
    """The summary for people. Its lists are grouped by statement (each statement written once, each
    source found by its key), in the order the answer reads. ``responses`` (every one, as the report
    has them) are read, never changed."""
    for editor in (*summary["checked_by"], *summary["settled_by"]):
        editor["last_shown"] = show_time(editor["last"])
    for response in summary["responses"]:
        response["status_shown"] = words.status(response["status"])
    # Each provider, API and model once: a batch of a thousand answers names one.
    answers = {(r["provider"], r["api_name"], r["model"]): r for r in summary["responses"]}
    summary["answers_shown"] = list(answers.values())
    summary["scope_shown"] = words.scope(summary.get("scope"))
    # The items hidden from the reader are not a verdict: the scope says how many the counts leave out.
    summary["final_verdicts_shown"] = [
        {"code": code, "label": words.final(code), "count": count}
        for code, count in summary["final_verdicts"].items()
        if count and code != HIDDEN
    ]
    for name in ("citation_recall", "citation_precision"):
        rate = summary[name]
        rate["why_shown"] = words.empty_reason(rate["empty_because"]) if rate["value"] is None else ""
    statements = {(s["response"], s["key"]): s for r in responses for s in r.get("statements", [])}
    sources = [{s["key"]: s for s in r.get("sources", [])} for r in responses]
    items = {(r["index"], i["item"]): i for r in responses for s in r.get("statements", []) for i in s["items"]}

    def place(entry: dict[str, Any]) -> dict[str, Any]:
        source = sources[entry["response"]].get(entry.get("source") or "", {})
        entry["source_url"], entry["source_title"] = source.get("url") or "", source.get("title") or ""
        return entry

    for entry in summary["unsupported"]:
        place(entry)
        entry["final_shown"] = words.verdict(entry["final"]) if entry["kind"] == "citation" else words.contradicted()
        cited = (items.get((entry["response"], key)) for key in entry.get("citations", ()))
        entry["sources"] = [place({**c, "response": entry["response"]}) for c in cited if c]
    for entry in summary["disagreements"]:
        place(entry)
        entry["field_shown"] = words.field(entry["field"])
        for given in entry["given"]:
            code = given["value"]
            given["value_shown"] = words.verdict(code) if entry["field"] == "verdict" else words.answer(code)
    # A marker its answer places is an item of its own (r0-u3), in the order the response lists them;
    # the page opens it (the JSON leaves the key out: a dump of nothing but such markers lists thousands).
    marker_index: dict[int, int] = {}
    for entry in summary["unresolved"]:
        index = marker_index[entry["response"]] = marker_index.get(entry["response"], -1) + 1
        entry["open"] = unresolved_item_key(entry["response"], index) if entry["statement_key"] else ""
    for name in ("unsupported", "disagreements", "unresolved"):
        summary[f"{name}_by_statement"] = _by_statement(summary[name], statements, texts)


def _by_statement(
    entries: list[dict[str, Any]], statements: dict[tuple[int, str], dict[str, Any]], texts: _StatementTexts
) -> list[dict[str, Any]]:
    groups: dict[tuple[int, str], dict[str, Any]] = {}
    for entry in entries:
        where = (entry["response"], entry["statement_key"])
        if where not in groups:
            statement = statements.get(where)
            shown = texts(statement["statement"]) if statement else ""
            groups[where] = {"statement_shown": shown or texts(""), "entries": []}
        groups[where]["entries"].append(entry)
    return list(groups.values())


def _label_statement(
    statement: dict[str, Any],
    checks_of: dict[str, list[dict[str, Any]]],
    sources: dict[str, dict[str, Any]],
    words: _Words,
    texts: _StatementTexts,
    show_time: ShowTime,
) -> None:
    """A statement for people: its editors' shared answers grouped where they agree, then its items,
    each with every editor's check, the final verdict and the settlement where there is one."""
    statement["statement_shown"] = texts(statement["statement"])
    answers = [c for c in checks_of.get(statement["key"], []) if c["kind"] == "statement"]
    groups: dict[str, dict[str, Any]] = {}
    for check in answers:
        shown = words.answers(check)
        if shown:
            group = groups.setdefault(shown, {"shown": shown, "questions": words.questions(check), "editors": []})
            group["editors"].append(check["editor"])
    statement["answer_groups"] = list(groups.values())
    statement["answer_notes"] = [c for c in answers if c["note"]]
    _label_settlement(statement["answer_settlement"], words, show_time)
    recorded = bool(answers) or statement["answer_settlement"] is not None
    for item in statement["items"]:
        # A statement that cites nothing is its own item: its checks are the answers above.
        item["checks"] = [] if item["item"] == statement["key"] else checks_of.get(item["item"], [])
        item["check_lines"] = _check_lines(item["checks"])
        source = sources.get(item["source"]) or {}
        item["source_url"], item["source_title"] = source.get("url") or "", source.get("title") or ""
        item["final_shown"] = words.verdict(item.get("final") or "")
        item["differs"] = bool(item.get("editors_differ"))
        _label_settlement(item.get("settlement"), words, show_time)
        recorded = recorded or bool(item["checks"]) or item.get("settlement") is not None
    statement["recorded"] = recorded


def _differing(statement: dict[str, Any]) -> dict[str, Any]:
    """A statement as "disagreements only" shows it: its answers if they differ, its items that do."""
    statement["items"] = [item for item in statement["items"] if item.get("editors_differ")]
    if not statement["answers_differ"]:
        statement["answer_groups"], statement["answer_notes"], statement["answer_settlement"] = [], [], None
    statement["not_checked"] = 0
    return statement


def _check_lines(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An item's checks as the page lists them: editors who recorded the same (verdict, subject, time,
    conditions, quote and note) share one line ("Complete support · subject yes — hanako, taro"),
    each editor's time left to the summary and the downloads."""
    fields = ("verdict", "verdict_shown", "details_shown", "evidence_quote", "note")
    lines: dict[tuple[str, ...], dict[str, Any]] = {}
    for check in checks:
        line = lines.setdefault(tuple(check[name] for name in fields), {name: check[name] for name in fields})
        line.setdefault("people", []).append(
            {"editor": check["editor"], "time": check["time"], "time_shown": check["time_shown"]}
        )
    return list(lines.values())


def _label_settlement(settlement: dict[str, Any] | None, words: _Words, show_time: ShowTime) -> None:
    if settlement is None:
        return
    settlement["time_shown"] = show_time(settlement["time"])
    settlement["verdict_shown"] = words.verdict(settlement["verdict"]) if settlement["verdict"] else ""
    settlement["answers_shown"] = words.answers(settlement)


class _Words:
    """The words of the codes an editor records, in one language."""

    def __init__(self, gettext: Translate) -> None:
        self._gettext = gettext
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
            "fetched_page": gettext("the page as the model fetched it"),
        }
        self._statuses = {
            "completed": gettext("completed"),
            "incomplete": gettext("incomplete"),
            "failed": gettext("failed"),
        }

        self._labels = {
            "subject": gettext("subject"),
            "time_matches": gettext("time"),
            "conditions": gettext("conditions"),
            # A statement's answers read as the questions the check form asks (citeview/review/forms.py).
            "verification_worthy": gettext("Is the statement a claim about the world (verification-worthy)?"),
            "supported_together": gettext("Do its citations together support it?"),
            "verdict": gettext("verdict"),
        }
        self._finals = {
            "unsettled": gettext("Editors disagree, not settled"),
            "unchecked": gettext("Not checked yet"),
            "hidden": gettext("Hidden until you check"),
        }
        self._empty = {
            "nothing_checked": gettext("nothing has been checked yet"),
            "no_worthy_answer": gettext("no statement has an answer to “verification-worthy” yet"),
            "none_worthy": gettext("no statement was judged verification-worthy"),
            "no_together_answer": gettext("no verification-worthy statement has an answer to “supported together” yet"),
            "no_verdict_on_worthy": gettext("no citation on a verification-worthy statement has a verdict yet"),
        }
        self._contradicted = gettext("Its citations together contradict it")

    def verdict(self, code: str) -> str:
        return self._verdicts.get(code, code) if code else NOT_GIVEN

    def final(self, code: str) -> str:
        """A count's label in the summary: one of the six verdicts, or why an item has none."""
        return self._finals.get(code) or self.verdict(code)

    def field(self, name: str) -> str:
        return self._labels.get(name, name)

    def details(self, check: dict[str, Any]) -> str:
        """What a citation's check says of subject, time and conditions, the ones answered only:
        "subject yes · time no"; "" when none is (an unanswered field is left out, never "—")."""
        names = ("subject", "time_matches", "conditions")
        return " · ".join(f"{self._labels[n]} {self.answer(check[n])}" for n in names if check.get(n))

    def answers(self, check: dict[str, Any]) -> str:
        """A statement's shared answers, the ones given, each after its question: "Is the statement a
        claim about the world (verification-worthy)? yes · Do its citations together support it? no"."""
        return " · ".join(f"{self._labels[n]} {self.answer(check[n])}" for n in STATEMENT_ANSWERS if check.get(n))

    def questions(self, check: dict[str, Any]) -> list[dict[str, str]]:
        """The same answers as a page lays them out: each question with its answer."""
        return [
            {"question": self._labels[n], "answer": self.answer(check[n])} for n in STATEMENT_ANSWERS if check.get(n)
        ]

    def scope(self, scope: dict[str, Any] | None) -> str:
        """What a figure is computed on, in words; "" when it is every item."""
        said = scope_phrase(scope)
        return said.text(self._gettext) if said else ""

    def empty_reason(self, code: str | None) -> str:
        return self._empty.get(code or "", code or "")

    def contradicted(self) -> str:
        return self._contradicted

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
            "Other editors' verdicts stay hidden until you check: {n} item(s) (blind first)",
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
    if "summary" in shown:
        lines += _summary_markdown(shown["summary"], gettext)
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
    lines += ["", "### " + phrase("Verdicts by statement").text(gettext), ""]
    recorded = [s for s in response["statements"] if s["recorded"]]
    lines += [_statement_markdown(s, gettext) for s in recorded] or ["- " + phrase("none recorded").text(gettext)]
    if response["unplaced_verdicts"]:
        lines += ["", "### " + phrase("Checks of items the answer no longer has").text(gettext), ""]
        lines += [_unplaced_markdown(v, gettext) for v in response["unplaced_verdicts"]]
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


def _summary_markdown(summary: dict[str, Any], gettext: Translate) -> list[str]:
    """Page one: what the dump is, who checked it, what the final verdicts come to, and what needs
    attention (claims not supported, disagreements not settled, markers that cite nothing)."""
    none = "- " + phrase("none").text(gettext)
    lines = ["## " + phrase("Summary").text(gettext), ""]
    answers = " · ".join(dict.fromkeys(_answer_line(r, gettext) for r in summary["responses"])) or NOT_GIVEN
    lines.append("- " + phrase("Provider and model: {answers}", answers=answers).text(gettext))
    # Every figure of checks says, inside it, when it counts only the items visible to the reader.
    scoped = functools.partial(_scoped, scope=summary["scope_shown"], gettext=gettext)
    if len(summary["responses"]) > 1:  # a batch: a line for each response
        lines += ["", "### " + scoped(phrase("Responses").text(gettext)), ""]
        lines += [_response_line(r, gettext) for r in summary["responses"]]
        lines.append("")
    checked = " · ".join(_editor_line(e, gettext) for e in summary["checked_by"]) or phrase("no one yet").text(gettext)
    lines.append("- " + scoped(phrase("Checked by: {editors}", editors=checked).text(gettext)))
    if summary["settled_by"]:
        settled = " · ".join(_editor_line(e, gettext) for e in summary["settled_by"])
        lines.append("- " + scoped(phrase("Settled by: {editors}", editors=settled).text(gettext)))
    counts = " · ".join(f"{c['label']} {c['count']}" for c in summary["final_verdicts_shown"]) or NOT_GIVEN
    lines.append("- " + scoped(phrase("Final verdicts of the citations: {counts}", counts=counts).text(gettext)))
    lines.append("- " + scoped(_rate_line(summary["citation_recall"], recall=True).text(gettext)))
    lines.append("- " + scoped(_rate_line(summary["citation_precision"], recall=False).text(gettext)))
    lines += ["", "### " + scoped(phrase("Not supported or contradicted").text(gettext)), ""]
    lines += [_unsupported_markdown(g, gettext) for g in summary["unsupported_by_statement"]] or [none]
    lines += ["", "### " + scoped(phrase("Disagreements not yet settled").text(gettext)), ""]
    lines += [_disagreement_markdown(g, gettext) for g in summary["disagreements_by_statement"]] or [none]
    lines += ["", "### " + phrase("Unresolved markers").text(gettext), ""]
    lines += [_unresolved_markdown(g, gettext) for g in summary["unresolved_by_statement"]] or [none]
    lines.append("")
    return lines


def _scoped(figure: str, scope: str, gettext: Translate) -> str:
    """A figure with what it is computed on, when that is not every item (``scope``: in words)."""
    return phrase("{figure} ({scope})", figure=figure, scope=scope).text(gettext) if scope else figure


def _response_line(response: dict[str, Any], gettext: Translate) -> str:
    said = phrase(
        "{number}. “{first_sentence}” · {status} · {citations} citation(s), {unresolved} unresolved · {recorded} of "
        "{items} item(s) checked · {unsupported} not supported",
        number=response["index"] + 1,
        first_sentence=_one_line(response["first_sentence"]),
        status=response["status_shown"],
        citations=response["citations"],
        unresolved=response["unresolved"],
        recorded=response["recorded"],
        items=response["items"],
        unsupported=response["unsupported"],
    )
    return "- " + said.text(gettext)


def _answer_line(response: dict[str, Any], gettext: Translate) -> str:
    model = _one_line(response["model"]) if response["model"] else phrase("not given").text(gettext)
    return f"{_one_line(response['provider'])} · {_one_line(response['api_name'])} ({_code(response['api'])}) · {model}"


def _editor_line(editor: dict[str, Any], gettext: Translate) -> str:
    return phrase(
        "{editor} ({n} item(s), last {time})",
        editor=_one_line(editor["editor"]),
        n=editor["items"],
        time=editor["last_shown"],
    ).text(gettext)


def _rate_line(rate: dict[str, Any], recall: bool) -> Phrase:
    if rate["value"] is None:
        if recall:
            return phrase("Citation recall: — ({why})", why=rate["why_shown"])
        return phrase("Citation precision: — ({why})", why=rate["why_shown"])
    values = {"percent": f"{rate['percent']:.1f}%", "num": rate["numerator"], "n": rate["denominator"]}
    if recall:
        return phrase("Citation recall: {percent} ({num} of {n} statements)", **values)
    return phrase("Citation precision: {percent} ({num} of {n} citations)", **values)


def _source_text(entry: dict[str, Any], gettext: Translate) -> str:
    if entry["kind"] == "unresolved" or (entry["marker"] and not entry["source_url"] and not entry["source_title"]):
        return phrase("Citation with no source: {marker}", marker=_one_line(entry["marker"])).text(gettext)
    title = _one_line(entry["source_title"]) if entry["source_title"] else phrase("(no title)").text(gettext)
    url = _code(entry["source_url"]) or phrase("(no URL)").text(gettext)
    return f"{_one_line(entry['marker'])} {title} — {url}".strip()


def _settled_mark(entry: dict[str, Any], gettext: Translate) -> str:
    return (
        phrase("{verdict} (settled)", verdict=entry["final_shown"]).text(gettext)
        if entry["how"] == "settled"
        else entry["final_shown"]
    )


def _quoted(statement: str, gettext: Translate) -> str:
    return phrase("“{statement}”", statement=_one_line(statement)).text(gettext)


def _unsupported_markdown(group: dict[str, Any], gettext: Translate) -> str:
    lines = ["- " + _quoted(group["statement_shown"], gettext)]
    for entry in group["entries"]:
        if entry["kind"] == "citation":
            lines.append("  - " + _labelled(_source_text(entry, gettext), _settled_mark(entry, gettext), gettext))
        else:
            lines.append("  - " + _settled_mark(entry, gettext))
            lines += ["    - " + _source_text(source, gettext) for source in entry["sources"]]
        for quote in entry["quotes"]:
            text = phrase(
                "Evidence quote ({editor}): “{quote}”",
                editor=_one_line(quote["editor"]),
                quote=_one_line(quote["text"]),
            )
            lines.append("    - " + text.text(gettext))
    return "\n".join(lines)


def _disagreement_markdown(group: dict[str, Any], gettext: Translate) -> str:
    lines = ["- " + _quoted(group["statement_shown"], gettext)]
    for entry in group["entries"]:
        given = " ≠ ".join(_labelled(_one_line(g["editor"]), g["value_shown"], gettext) for g in entry["given"])
        if entry["kind"] == "statement":  # the question the form asks, then the answers
            lines.append(f"  - {entry['field_shown']} {given}")
        else:
            lines.append("  - " + _labelled(_source_text(entry, gettext), given, gettext))
    return "\n".join(lines)


def _unresolved_markdown(group: dict[str, Any], gettext: Translate) -> str:
    markers = " ".join(_one_line(m["label"]) for m in group["entries"])
    if not group["statement_shown"]:
        return f"- {markers}"
    return "- " + phrase(
        "{marker} in “{statement}”", marker=markers, statement=_one_line(group["statement_shown"])
    ).text(gettext)


def _statement_markdown(statement: dict[str, Any], gettext: Translate) -> str:
    """One statement: its shared answers (one line per set of editors who gave the same), then each
    of its items with every editor's check, the final verdict where editors differ, and the
    settlement. Only what was answered is written: no "—" for a field left empty."""
    lines = ["- " + phrase("“{statement}”", statement=_one_line(statement["statement_shown"])).text(gettext)]
    differ = "≠ " if statement["answers_differ"] else ""
    for group in statement["answer_groups"]:
        lines.append(f"  - {differ}{group['shown']} — {', '.join(_one_line(e) for e in group['editors'])}")
    for check in statement["answer_notes"]:
        lines.append("  - " + _note(check, gettext))
    if statement["answer_settlement"]:
        lines += _bullets(_settlement_markdown(statement["answer_settlement"], gettext), "  ")
    for item in statement["items"]:
        if item["item"] == statement["key"]:
            continue
        placed = item["marker"] or item["source_url"] or item["source_title"] or item["kind"] == "citation"
        lines.append(f"  - {_source_text(item, gettext) if placed else _code(item['item'])}")
        for check in item["checks"]:
            lines += _bullets(_check_markdown(check, item, gettext), "    ")
        if item["kind"] == "citation" and not item["checks"]:
            lines.append("    - " + phrase("Not checked yet").text(gettext))
        if item.get("how") == "disagreed":
            lines.append("    - ≠ " + phrase("Editors disagree, not settled").text(gettext))
        if item.get("settlement"):
            lines += _bullets(_settlement_markdown(item["settlement"], gettext), "    ")
    if statement["not_checked"]:
        lines.append("  - " + phrase("Not checked yet: {n} item(s)", n=statement["not_checked"]).text(gettext))
    return "\n".join(lines)


def _labelled(label: str, value: str, gettext: Translate) -> str:
    return phrase("{label}: {value}", label=label, value=value).text(gettext)


def _bullets(lines: list[str], indent: str) -> list[str]:
    """A check's or a settlement's lines as a list item at ``indent``, what is under it nested."""
    return [f"{indent}- {lines[0]}", *(indent + line for line in lines[1:])]


def _unplaced_markdown(check: dict[str, Any], gettext: Translate) -> str:
    """A check of an item the answer no longer offers, with what it judged as it was copied in."""
    lines = ["- " + phrase("“{statement}”", statement=_one_line(check["statement_shown"])).text(gettext)]
    if check["marker"] or check["source_url"] or check["source_title"]:
        lines.append("  - " + _source_text(check, gettext))
    lines += _bullets(_check_markdown(check, {"differs": False}, gettext), "  ")
    if check["answers_shown"]:
        lines.append("  - " + check["answers_shown"])
    return "\n".join(lines)


def _check_markdown(check: dict[str, Any], item: dict[str, Any], gettext: Translate) -> list[str]:
    """One editor's check of an item: the verdict, who and when, what it says of subject, time and
    conditions where answered; the quote and the note under it."""
    if check["verdict"]:
        head = phrase(
            "{verdict} — {editor}, {time}",
            verdict=check["verdict_shown"],
            editor=_one_line(check["editor"]),
            time=check["time_shown"],
        ).text(gettext)
        if item["differs"]:
            head = "≠ " + head
        if check["details_shown"]:
            head = phrase("{check} ({details})", check=head, details=check["details_shown"]).text(gettext)
    else:
        head = phrase("By {editor}, {time}", editor=_one_line(check["editor"]), time=check["time_shown"]).text(gettext)
    lines = [head]
    if check["evidence_quote"]:
        lines.append(
            "  - " + phrase("Evidence quote: “{quote}”", quote=_one_line(check["evidence_quote"])).text(gettext)
        )
    if check["note"]:
        lines.append("  - " + phrase("Note: {note}", note=_one_line(check["note"])).text(gettext))
    return lines


def _note(check: dict[str, Any], gettext: Translate) -> str:
    return phrase("Note ({editor}): {note}", editor=_one_line(check["editor"]), note=_one_line(check["note"])).text(
        gettext
    )


def _settlement_markdown(settlement: dict[str, Any], gettext: Translate) -> list[str]:
    what = settlement["verdict_shown"] or settlement["answers_shown"]
    lines = [
        phrase(
            "Settled by {editor}, {time}: {verdict}",
            editor=_one_line(settlement["editor"]),
            time=settlement["time_shown"],
            verdict=what,
        ).text(gettext)
    ]
    if settlement["reason"]:
        lines.append("  - " + phrase("Reason: {reason}", reason=_one_line(settlement["reason"])).text(gettext))
    return lines


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
            add(phrase("The claim and the passage differ in a date, figure, qualifier or negation"))
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


def markdown_line(text: str) -> str:
    """:func:`_one_line` for the other reports written as Markdown (a check plan's)."""
    return _one_line(text)


def _code(text: str | None) -> str:
    """A URL or id as a code span (shown, never followed), fenced by more backticks than it holds."""
    text = show_bidi_controls(" ".join(str(text or "").split()))
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}"
