"""What editors check in an answer, in the order they check it: each citation with each of its sources
(a statement and one source: the doc's "statement × source"), then each marker that cites no source,
then each statement that cites nothing.

Citations come first because they are what a check is for; a marker without a source is a defect of
its own kind, never a statement "without a citation"; and the statements that cite nothing (lead-ins,
table rows, a closing remark) come last, where one action marks many of them as no factual claim.

Keys are positions in a stored result. A rebuilt result keeps them as long as the parsers place
the same citations; the checks also keep a copy of what was judged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any, Literal

from citeview.core.checking.side_by_side import EvidenceReading, claim_span, claim_words, evidence_comparison
from citeview.core.checking.statements import Statement, statement_count_and_homes, statements
from citeview.core.evidence.compare import Comparison
from citeview.core.evidence.held import held_evidence
from citeview.core.parsing.markers import MARKER

Kind = Literal["citation", "unresolved", "statement"]

# What a finished sentence ends with, once the markers and closing quotes after it are set aside.
_SENTENCE_END = re.compile(r"[.!?。！？．][\s」』）)\"'”’］\]】〕〉》*_~]*\Z")
_STOPPED = ("incomplete", "failed")


@dataclass(frozen=True)
class CheckItem:
    # "r0-c3": citation 3 of response 0 (one source); "r0-c3-2": its second source, when it has several;
    # "r0-u2": unresolved marker 2 of response 0 (a citation with no source);
    # "r0-s12-40": a statement of response 0 (characters 12-40) that cites nothing.
    key: str
    response: int
    statement: Statement
    citation: int | None  # index into the response's citations; None for the other kinds
    source_key: str | None = None  # which of the citation's sources this item judges
    source_position: int = 0  # 1-based among the citation's sources when it has several, else 0
    unresolved: int | None = None  # index into the response's unresolved markers, for that kind
    cut_off: bool = False  # the statement is where a response that did not complete stopped

    @property
    def statement_key(self) -> str:
        return statement_item_key(self.response, self.statement)

    @property
    def kind(self) -> Kind:
        if self.citation is not None:
            return "citation"
        return "unresolved" if self.unresolved is not None else "statement"


def statement_item_key(response: int, statement: Statement) -> str:
    return f"r{response}-{statement.key}"


def citation_item_key(response: int, citation: int, source_position: int = 0) -> str:
    key = f"r{response}-c{citation}"
    return f"{key}-{source_position}" if source_position else key


def unresolved_item_key(response: int, marker: int) -> str:
    return f"r{response}-u{marker}"


def check_items(responses: list[dict[str, Any]], limit: int | None = None) -> list[CheckItem]:
    """Every item of a dump's responses: the citations in reading order, then the markers that cite no
    source, then the statements that cite nothing; or the first ``limit`` of them (a dump of nothing
    but markers would otherwise offer one item per three bytes). Each response is split once, and only
    when the items reach it."""
    found: dict[int, list[Statement]] = {}

    def statements_of(number: int) -> list[Statement]:
        if number not in found:
            found[number] = statements(responses[number])
        return found[number]

    phases = (_citation_items, _unresolved_items, _uncited_items)
    every = chain.from_iterable(
        phase(number, response, statements_of(number), _cut_off(response, statements_of(number)))
        for phase in phases
        for number, response in enumerate(responses)
    )
    return list(every if limit is None else islice(every, limit))


def check_item_count(responses: list[dict[str, Any]]) -> int:
    """How many items :func:`check_items` finds without a limit, without making them."""
    return sum(sum(phases) for phases in items_per_response(responses))


def items_per_response(responses: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    """Per response, how many items :func:`check_items` finds in each of its three parts (citations,
    markers that cite no source, statements that cite nothing), without making them."""
    counted = []
    for response in responses:
        statement_count, citation_homes, marker_homes = statement_count_and_homes(response)
        if not statement_count:
            counted.append((0, 0, 0))  # (a blank text: its citations are in no statement)
            continue
        # A statement with no citation or marker is one item; each marker is one; a citation, one per source.
        citations = sum(max(len(citation["source_keys"]), 1) for citation in response["citations"])
        counted.append((citations, len(marker_homes), statement_count - len({*citation_homes, *marker_homes})))
    return counted


def checkable_per_response(parts: list[tuple[int, int, int]], limit: int) -> list[int]:
    """Per response, how many of its items are among the first ``limit`` that :func:`check_items` offers:
    every response's citations come first, then every response's markers, then its statements."""
    offered = [0] * len(parts)
    left = limit
    for phase in range(3):
        for number, counts in enumerate(parts):
            taken = min(counts[phase], left)
            offered[number] += taken
            left -= taken
    return offered


def _cut_off(response: dict[str, Any], found: list[Statement]) -> int:
    """The index of the statement a response stopped in, or -1: the last one, when the response did not
    complete and that statement does not end as a sentence does (「…差し引いて計算するため、」)."""
    if response.get("status") not in _STOPPED or not found or ends_as_a_sentence(found[-1].text):
        return -1
    return found[-1].index


def _citation_items(
    response_number: int, response: dict[str, Any], found: list[Statement], cut_off: int
) -> Iterator[CheckItem]:
    for statement in found:
        for citation in statement.citations:
            yield from _sources_of(
                response_number,
                statement,
                citation,
                response["citations"][citation]["source_keys"],
                statement.index == cut_off,
            )


def _unresolved_items(
    response_number: int, response: dict[str, Any], found: list[Statement], cut_off: int
) -> Iterator[CheckItem]:
    for statement in found:
        for marker in statement.unresolved:
            key = unresolved_item_key(response_number, marker)
            yield CheckItem(
                key, response_number, statement, None, unresolved=marker, cut_off=statement.index == cut_off
            )


def _uncited_items(
    response_number: int, response: dict[str, Any], found: list[Statement], cut_off: int
) -> Iterator[CheckItem]:
    for statement in found:
        if not statement.citations and not statement.unresolved:
            key = statement_item_key(response_number, statement)
            yield CheckItem(key, response_number, statement, None, cut_off=statement.index == cut_off)


def _sources_of(
    response: int, statement: Statement, citation: int, source_keys: list[str], cut_off: bool
) -> list[CheckItem]:
    if len(source_keys) <= 1:
        key = citation_item_key(response, citation)
        source = source_keys[0] if source_keys else None
        return [CheckItem(key, response, statement, citation, source, cut_off=cut_off)]
    return [
        CheckItem(
            citation_item_key(response, citation, position),
            response,
            statement,
            citation,
            source,
            position,
            cut_off=cut_off,
        )
        for position, source in enumerate(source_keys, 1)
    ]


def ends_as_a_sentence(text: str) -> bool:
    """Whether a statement ends with a sentence's terminator (before any markers after it)."""
    return bool(_SENTENCE_END.search(MARKER.sub("", text).rstrip()))


# What the dump itself says needs an editor's attention on an item, before anyone has checked it:
# a marker without a source, a source number given two URLs, a date, figure or qualifier that differs
# from the item's evidence, a negation that does (never what the evidence merely does not state), a
# statement cut off.
UNRESOLVED, CONFLICT, CUT_OFF = "unresolved", "conflict", "cut_off"
DIFFERS, NEGATION_DIFFERS = "differs", "negation_differs"


def item_flags_and_comparisons(
    responses: list[dict[str, Any]], items: list[CheckItem]
) -> tuple[dict[str, list[str]], dict[str, Comparison]]:
    """Per item key, what needs attention; and per citation item with evidence, the comparison its
    flags come from (what the check panel shows beside the claim), each made once. Whether the item's
    claim differs from its evidence is ``evidence_comparison``'s answer, the one the viewer's side by
    side shows for the same citation and source: each evidence text is read once per response."""
    conflicts = [_conflicting_keys(response) for response in responses]
    compared = _ItemComparisons(responses)
    flags: dict[str, list[str]] = {}
    comparisons: dict[str, Comparison] = {}
    for item in items:
        found = []
        if item.kind == "unresolved":
            found.append(UNRESOLVED)
        if item.citation is not None:
            if item.source_key in conflicts[item.response]:
                found.append(CONFLICT)
            comparison = compared.of(item)
            if comparison is not None:
                comparisons[item.key] = comparison
                outcomes = {hint.outcome for hint in comparison.hints}
                found += [flag for flag in (DIFFERS, NEGATION_DIFFERS) if flag in outcomes]
        if item.cut_off:
            found.append(CUT_OFF)
        if found:
            flags[item.key] = found
    return flags, comparisons


class _ItemComparisons:
    """Each citation item's claim against its source's evidence, as the viewer holds them: one
    reading of each text per response."""

    def __init__(self, responses: list[dict[str, Any]]) -> None:
        self.responses = responses
        self.sources = [{s["key"]: s for s in response["sources"]} for response in responses]
        self.readings: dict[int, EvidenceReading] = {}

    def of(self, item: CheckItem) -> Comparison | None:
        if item.citation is None or item.source_key is None:
            return None
        response = self.responses[item.response]
        citation = response["citations"][item.citation]
        evidence = held_evidence(citation, item.source_key, self.sources[item.response])
        if evidence is None:
            return None
        start, end = claim_span(response["text"], citation)
        reading = self.readings.setdefault(item.response, EvidenceReading())
        return evidence_comparison(claim_words(response["text"][start:end]), evidence, reading)[2]


def _conflicting_keys(response: dict[str, Any]) -> set[str]:
    return {
        key for d in response["diagnostics"] if d["code"] == "source_conflict" for key in d["details"].get("keys", [])
    }
