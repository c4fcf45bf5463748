"""What the handover report puts first: the summary of a dump's checks, and its detail grouped by
statement. Both count FINAL verdicts (:mod:`citeview.core.checking.final`): a lead's settlement where
there is one, the editors' shared verdict where they agree, and nothing where they disagree (such an
item is named as unsettled instead).

Everything here is computed from the checks the reader may see (blind first is applied before: the
web app passes ``checks_visible_to``'s checks and settlements). An item whose checks blind first keeps
from the reader is counted as hidden, never under a verdict: a count of others' verdicts would tell an
editor what to decide before they have.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from citeview.core.checking.final import FinalVerdict, disagrees, final_verdict
from citeview.core.checking.items import CheckItem
from citeview.core.checking.metrics import (
    VERDICTS,
    StatementJudgement,
    citation_precision,
    citation_recall,
    precision_empty_because,
    recall_empty_because,
)
from citeview.core.common.shortening import shortened
from citeview.core.detection import registry
from citeview.core.rendering.answer import readable_marker
from citeview.core.rendering.plain import plain_text

# The final verdicts that say a claim is not supported, or is contradicted, by its source.
UNSUPPORTING = ("none", "supports_and_refutes")
# What the summary counts besides the six verdicts: editors disagree and nobody has settled it; no
# editor has given a verdict the reader may see; another editor's check is kept from the reader.
UNSETTLED, UNCHECKED, HIDDEN = "unsettled", "unchecked", "hidden"
STATEMENT_ANSWERS = ("verification_worthy", "supported_together")


class _Checks:
    """The checks of a dump by the key they were recorded under (an item's, or a statement's for its
    shared answers), and the settlements by item."""

    def __init__(self, checks: Iterable[dict[str, Any]], settlements: Iterable[dict[str, Any]]) -> None:
        self.of: dict[str, list[dict[str, Any]]] = {}
        for check in checks:
            self.of.setdefault(check["item_key"], []).append(check)
        self.settled = {s["item_key"]: s for s in settlements}

    def verdict(self, key: str) -> FinalVerdict:
        settlement = self.settled.get(key) or {}
        return final_verdict((c["verdict"] for c in self.of.get(key, ())), settlement.get("verdict", ""))

    def answer(self, statement_key: str, field: str) -> FinalVerdict:
        """A statement's final answer to ``field``: its own checks carry it, as do (mirrored) its
        unresolved markers' checks, which are read through the statement's own."""
        settlement = self.settled.get(statement_key) or {}
        given = (c[field] for c in self.of.get(statement_key, ()) if c["kind"] == "statement")
        return final_verdict(given, settlement.get(field, ""))


def report_summary(
    result: dict[str, Any],
    items: list[CheckItem],
    checks: list[dict[str, Any]],
    settlements: Iterable[dict[str, Any]] = (),
    hidden: Iterable[str] = (),
) -> tuple[dict[str, Any], dict[int, list[dict[str, Any]]]]:
    """The summary, and per response its statements in reading order, each with its items that have
    something recorded (the others counted in ``not_checked``) and their final verdicts. ``checks``
    and ``settlements`` as :func:`handover_report` takes them (each with item_key, statement_key,
    kind, editor, updated_at and what it records); ``hidden``: the keys of the items blind first
    keeps other editors' checks of from the reader.

    An entry names its statement and its source by key: a statement is written once, in
    ``statements``, and a source once, in the response's ``sources`` (a statement of 300 citations of
    one long address would otherwise be copied 300 times)."""
    settlements = list(settlements)
    recorded = _Checks(checks, settlements)
    hidden_keys = set(hidden)
    counts = {verdict: 0 for verdict in VERDICTS} | {UNSETTLED: 0, UNCHECKED: 0, HIDDEN: 0}
    judgements: list[StatementJudgement] = []
    unsupported: list[dict[str, Any]] = []
    disagreements: list[dict[str, Any]] = []
    statements: dict[int, list[dict[str, Any]]] = {}
    # Per response, for a batch's line each: its items, those with anything recorded, those not supported.
    tallies = [{"items": 0, "recorded": 0, "unsupported": 0} for _ in result["responses"]]
    for group in _statement_groups(items):
        first = group[0]
        response = result["responses"][first.response]
        tally = tallies[first.response]
        answers = {field: recorded.answer(first.statement_key, field) for field in STATEMENT_ANSWERS}
        # "open": the item a check page opens for an entry of the summary (a statement's, at its first).
        where = {"response": first.response, "statement_key": first.statement_key, "open": first.key}
        shown, finals = [], []
        not_checked = 0
        for item in group:
            entry = _item_entry(item, response)
            if item.kind == "citation":
                final = recorded.verdict(item.key)
                # Two verdicts given differ (settled since or not): what "disagreements only" shows.
                entry["editors_differ"] = len(final.editors) > 1
                finals.append(final.verdict)
                entry.update(_final_json(final), settlement=_settlement(recorded.settled.get(item.key)))
                counts[_bucket(final, item.key in hidden_keys)] += 1
                if final.verdict in UNSUPPORTING:
                    tally["unsupported"] += 1
                    unsupported.append(
                        {**where, **entry, "open": item.key, "quotes": _quotes(recorded, item.key, final)}
                    )
                if final.unsettled:
                    given = _given(recorded, item.key, "verdict")
                    disagreements.append({**where, **entry, "open": item.key, "field": "verdict", "given": given})
            tally["items"] += 1
            if item.key in recorded.of or item.key in recorded.settled:
                tally["recorded"] += 1
                shown.append(entry)
            else:
                not_checked += 1  # which ones: the response's statements_needing_check
        answers_differ = _answers_differ(recorded.of.get(first.statement_key, ()))
        statements.setdefault(first.response, []).append(
            {
                "key": first.statement_key,
                "response": first.response,
                "statement": first.statement.text,
                "answers": {field: _final_json(final) for field, final in answers.items()},
                "answers_differ": answers_differ,
                "editors_differ": answers_differ or any(entry.get("editors_differ") for entry in shown),
                "answer_settlement": _settlement(recorded.settled.get(first.statement_key)),
                "items": shown,
                "not_checked": not_checked,
            }
        )
        judgements.append(_judgement(first, answers, finals))
        for field, final in answers.items():
            if final.unsettled:
                given = _given(recorded, first.statement_key, field, kind="statement")
                disagreements.append(
                    {**where, "item": first.statement_key, "kind": "statement", "field": field, "given": given}
                )
        if answers["supported_together"].verdict == "contradict":
            cited = [item.key for item in group if item.kind == "citation"]
            quotes = [q for key in cited for q in _quotes(recorded, key, None)]
            entry = {"item": first.statement_key, "kind": "statement", "citations": cited, "quotes": quotes}
            unsupported.append({**where, **entry, **_final_json(answers["supported_together"])})
    openings = _first_sentences(result, items)
    summary = {
        "responses": [
            {**_response_ref(number, response), "first_sentence": openings[number], **tallies[number]}
            for number, response in enumerate(result["responses"])
        ],
        "checked_by": _checked_by(checks),
        "settled_by": _checked_by(settlements),
        "final_verdicts": counts,
        "citation_recall": {**citation_recall(judgements).to_json(), "empty_because": recall_empty_because(judgements)},
        "citation_precision": {
            **citation_precision(judgements).to_json(),
            "empty_because": precision_empty_because(judgements),
        },
        "unsupported": unsupported,
        "disagreements": disagreements,
        "unresolved": _unresolved(result, items),
    }
    return summary, statements


def _answers_differ(checks: Iterable[dict[str, Any]]) -> bool:
    """Whether two editors gave a statement question different answers: a question left blank agrees
    with any answer (as :func:`citeview.core.checking.final.disagrees` holds for verdicts)."""
    given = [check for check in checks if check["kind"] == "statement"]
    return any(disagrees(check[name] for check in given) for name in STATEMENT_ANSWERS)


def _statement_groups(items: list[CheckItem]) -> list[list[CheckItem]]:
    """The items of each statement together, statements in reading order (items come citations first)."""
    groups: dict[tuple[int, str], list[CheckItem]] = {}
    for item in items:
        groups.setdefault((item.response, item.statement_key), []).append(item)
    return sorted(groups.values(), key=lambda group: (group[0].response, group[0].statement.index))


def _item_entry(item: CheckItem, response: dict[str, Any]) -> dict[str, Any]:
    """What an item is: its marker, and its source by key (the response's ``sources`` say the rest)."""
    marker = ""
    if item.citation is not None:
        marker = response["citations"][item.citation]["marker"] or ""
    elif item.unresolved is not None:
        marker = response["unresolved"][item.unresolved]["marker"]
    return {"item": item.key, "kind": item.kind, "marker": marker, "source": item.source_key or ""}


def _final_json(final: FinalVerdict) -> dict[str, Any]:
    return {"final": final.verdict, "how": final.how}


def _bucket(final: FinalVerdict, hidden: bool) -> str:
    if hidden:
        return HIDDEN  # the reader has not checked it: what others gave stays out of every count
    if final.verdict:
        return final.verdict
    return UNSETTLED if final.unsettled else UNCHECKED


def _settlement(settlement: dict[str, Any] | None) -> dict[str, Any] | None:
    if settlement is None:
        return None
    fields = ("verdict", *STATEMENT_ANSWERS, "evidence_quote")
    return {
        "editor": settlement["editor"],
        "time": settlement["updated_at"],
        "reason": settlement["note"],
        **{name: settlement.get(name, "") for name in fields},
    }


def _quotes(recorded: _Checks, key: str, final: FinalVerdict | None) -> list[dict[str, str]]:
    """The evidence quotes behind an item's final verdict: the settlement's, then those of the editors
    who gave that verdict (``final`` None: every editor's), each once."""
    quotes: list[dict[str, str]] = []
    seen: set[str] = set()
    settlement = recorded.settled.get(key)
    candidates = [settlement] if settlement else []
    candidates += [c for c in recorded.of.get(key, ()) if final is None or c["verdict"] == final.verdict]
    for check in candidates:
        text = (check.get("evidence_quote") or "").strip()
        if text and text not in seen:
            seen.add(text)
            quotes.append({"editor": check["editor"], "text": text})
    return quotes


def _given(recorded: _Checks, key: str, field: str, kind: str = "citation") -> list[dict[str, str]]:
    """Each editor's value where they disagree, by editor."""
    given = [
        {"editor": c["editor"], "value": c[field]} for c in recorded.of.get(key, ()) if c["kind"] == kind and c[field]
    ]
    return sorted(given, key=lambda g: g["editor"])


def _judgement(first: CheckItem, answers: dict[str, FinalVerdict], finals: list[str | None]) -> StatementJudgement:
    """The statement as the dump's figures count it: its final answers and its citations' final verdicts."""
    worthy = {"yes": True, "no": False}.get(answers["verification_worthy"].verdict or "")
    together = answers["supported_together"].verdict
    return StatementJudgement(str(first.response), worthy, together, finals, len(first.statement.unresolved))


# What a batch's summary says each response is about, at most this many characters: one line of a table.
FIRST_SENTENCE_CHARS = 120
_MARKER = re.compile(r"\[(?:web:)?\d+\]")


def _first_sentences(result: dict[str, Any], items: list[CheckItem]) -> list[str]:
    """What each response is about, for a batch's summary: its first sentence as a reader sees it,
    without citation markers. The normalised result keeps no prompt (no provider's response carries
    the question asked), so the answer's opening says it. The items give each response's first
    statement; a response past the limit of items is read for its first line."""
    first: dict[int, Any] = {}
    for item in items:
        known = first.get(item.response)
        if known is None or item.statement.index < known.index:
            first[item.response] = item.statement
    sentences = []
    for number, response in enumerate(result["responses"]):
        statement = first.get(number)
        text = (
            statement.text
            if statement is not None
            else next((line for line in str(response.get("text") or "").splitlines() if line.strip()), "")
        )
        sentences.append(shortened(" ".join(plain_text(_MARKER.sub("", text)).split()), FIRST_SENTENCE_CHARS))
    return sentences


def _response_ref(number: int, response: dict[str, Any]) -> dict[str, Any]:
    api = registry.api_format(response["api"])
    return {
        "index": number,
        "provider": api.provider.label if api else response.get("provider", ""),
        "api": response["api"],
        "api_name": api.label if api else response["api"],
        "model": response["model"] or "",
        "status": response.get("status", ""),
        "citations": len(response.get("citations", ())),
        "unresolved": len(response.get("unresolved", ())),
    }


def _checked_by(checks: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Who recorded what the reader may see: per editor, the items finished and the last time."""
    editors: dict[str, dict[str, Any]] = {}
    for check in checks:
        if not check.get("is_item", True) or not check.get("finished", True):
            continue
        entry = editors.setdefault(check["editor"], {"editor": check["editor"], "items": 0, "last": ""})
        entry["items"] += 1
        entry["last"] = max(entry["last"], check["updated_at"])
    return sorted(editors.values(), key=lambda e: e["editor"])


def _unresolved(result: dict[str, Any], items: list[CheckItem]) -> list[dict[str, Any]]:
    """Every marker that cites no source, with its statement's key where an item places it."""
    placed = {(i.response, i.unresolved): i.statement_key for i in items if i.unresolved is not None}
    return [
        {
            "response": number,
            "statement_key": placed.get((number, index), ""),
            "marker": marker["marker"],
            "label": readable_marker(marker["marker"], marker["ref"]),
        }
        for number, response in enumerate(result["responses"])
        for index, marker in enumerate(response["unresolved"])
    ]
