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

from citeview.core.markers import MARKER
from citeview.core.numbers import number_values
from citeview.core.review.statements import Statement, statements

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
    count = 0
    for response in responses:
        for statement in statements(response):
            if not statement.citations and not statement.unresolved:
                count += 1
                continue
            count += len(statement.unresolved)
            count += sum(max(len(response["citations"][c]["source_keys"]), 1) for c in statement.citations)
    return count


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


# What the dump itself says needs an editor's attention on an item, before anyone has checked it.
UNRESOLVED, CONFLICT, NUMBERS_DIFFER, CUT_OFF = "unresolved", "conflict", "numbers_differ", "cut_off"
# The texts a dump holds that are a source's own words (as in the evidence view): a search engine's
# excerpt is not the page, so a number missing from it says nothing.
_EVIDENCE_KINDS = frozenset({"retrieved_passage", "document_text", "tool_output"})
_LINK_TARGET = re.compile(r"(?<=\])\([^)]*\)|<https?://[^>]*>")


def item_flags(responses: list[dict[str, Any]], items: list[CheckItem]) -> dict[str, list[str]]:
    """Per item key, what needs attention: a marker without a source, a source whose number was given
    with two URLs, a number of the claim that none of its quoted evidence has (or a quote's number the
    claim does not: as the evidence view compares them), a statement cut off. Each source's and claim's
    numbers are read once."""
    conflicts = [_conflicting_keys(response) for response in responses]
    sources = [{s["key"]: s for s in response["sources"]} for response in responses]
    by_source: dict[tuple[int, str | None], set[str] | None] = {}
    evidence: dict[str, set[str]] = {}  # item key -> the numbers of its evidence, where it has some
    together: dict[tuple[int, int, int], set[str]] = {}  # claim -> the numbers of all its evidence
    for item in items:
        if item.citation is None:
            continue
        citation = responses[item.response]["citations"][item.citation]
        if citation["cited_text"] is not None:
            numbers: set[str] | None = number_values(str(citation["cited_text"]))
        else:
            if (item.response, item.source_key) not in by_source:
                text = _source_text(item.source_key, sources[item.response])
                by_source[(item.response, item.source_key)] = None if text is None else number_values(text)
            numbers = by_source[(item.response, item.source_key)]
        if numbers is not None:
            evidence[item.key] = numbers
            together.setdefault((item.response, *_claim_span(item, citation)), set()).update(numbers)
    claimed: dict[tuple[int, int, int], set[str]] = {}
    flags: dict[str, list[str]] = {}
    for item in items:
        found = []
        if item.kind == "unresolved":
            found.append(UNRESOLVED)
        if item.citation is not None:
            citation = responses[item.response]["citations"][item.citation]
            if item.source_key in conflicts[item.response]:
                found.append(CONFLICT)
            claim = (item.response, *_claim_span(item, citation))
            if item.key in evidence:
                if claim not in claimed:
                    text = responses[item.response]["text"][claim[1] : claim[2]]
                    claimed[claim] = number_values(_LINK_TARGET.sub("", MARKER.sub("", text)))
                quoted_only = evidence[item.key] - claimed[claim] if citation["cited_text"] is not None else set()
                if claimed[claim] - together[claim] or quoted_only:
                    found.append(NUMBERS_DIFFER)
        if item.cut_off:
            found.append(CUT_OFF)
        if found:
            flags[item.key] = found
    return flags


def _conflicting_keys(response: dict[str, Any]) -> set[str]:
    return {
        key for d in response["diagnostics"] if d["code"] == "source_conflict" for key in d["details"].get("keys", [])
    }


def _source_text(key: str | None, sources: dict[str, Any]) -> str | None:
    """The source's own words the dump holds (a document, a retrieved passage, a tool's output)."""
    source = sources.get(key) if key is not None else None
    if not source or not isinstance(source["extra"].get("snippet"), str):
        return None
    if source["kind"] == "file" or source["extra"].get("snippet_kind") in _EVIDENCE_KINDS:
        return str(source["extra"]["snippet"])
    return None


def _claim_span(item: CheckItem, citation: dict[str, Any]) -> tuple[int, int]:
    """What the citation claims: the span it covers, or (a marker, an insertion point) its statement."""
    if citation["marker"] is None and citation["start"] < citation["end"]:
        return citation["start"], citation["end"]
    return item.statement.start, item.statement.end
