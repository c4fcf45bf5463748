"""The side-by-side evidence view: each cited part of the answer beside the evidence the dump holds
for it, labelled by what it is (``core.evidence.held``), with the dates, figures, qualifiers and
negations that differ between the two marked on both sides (``core.evidence.compare``).

``evidence_comparison`` is what one citation's claim is held against, and how: the check page's flags
(``core.review.items``) call it too, so the viewer and the check page can never disagree."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from citeview.core.checking.statements import MAX_STATEMENT_CHARS
from citeview.core.common.answer_markdown import MAX_MARKDOWN_CHARS
from citeview.core.common.links import is_safe_http_url, text_fragment_url, url_domain
from citeview.core.common.phrases import Translate, untranslated
from citeview.core.common.shortening import shortened
from citeview.core.evidence.compare import (
    MAX_COMPARED_CHARS,
    Comparison,
    Finding,
    Reading,
    claim_marks,
    compare_readings,
    evidence_marks,
    mark_findings,
    read,
)
from citeview.core.evidence.held import HeldEvidence, held_evidence
from citeview.core.evidence.passages import best_passage, passage_fragment_url
from citeview.core.parsing.markers import DOC_MARKER, MARKER
from citeview.core.rendering.plain import plain_text

# A text the dump holds of a source (a document, a tool's output) is shown with each of its
# citations: the passage of it that best matches the claim, or else its first this many characters.
SHARED_PASSAGE_CHARS = 2_000
# The passage is looked for in the first this many characters of each text, and in this many in all
# per response: a 1 MB document cited 10,000 times must not be read 10,000 times.
PASSAGE_SEARCH_CHARS = 50_000
PASSAGE_SEARCH_BUDGET = 2_000_000
# The viewer shows the first this many cited parts side by side: an answer with thousands of
# citations is checked item by item in the check queue, which shows every one with its evidence.
MAX_EVIDENCE_ROWS = 200
# The end of a link whose start the claim's span cut off ("words](https://…)"), and autolinks.
_CUT_LINK_END = re.compile(r"^(?P<words>[^\[\]\n]*)\]\([^)\n]*\)")
_AUTOLINK = re.compile(r"<https?://[^>]*>")
_BLOCK_MARK = re.compile(r"^\s*(?:[-*+>]|#{1,6}|\d{1,9}[.)])\s+")
# An inline citation as OpenAI's web search writes it, "… rose 3% ([reuters.com](https://…)).": a link
# in parentheses that stands for its source, not words of the claim.
# Its spaces are read from where their run starts, and neither its words nor its address run into the
# next "[" (where another link would start): each place a search tries reads up to that, not to the line's
# end, so a line of 10,000 "([" takes one pass, not 10,000.
_CITATION_LINK = re.compile(r"(?:(?<![ \t])[ \t]*)?\(\[[^\][\n]*\]\([^)[\n]*\)\)")


def evidence_rows(
    response: dict[str, Any],
    source_labels: dict[str, str],
    gettext: Translate = untranslated,
    until: int | None = None,
    limit: int = MAX_EVIDENCE_ROWS,
) -> list[dict[str, Any]]:
    """One row per cited part of the answer that has evidence in the dump, in the order of the answer,
    for the citations drawn in it (ending at or before ``until``; by default, its rendered part), the
    first ``limit`` of them. The cited part is the span a citation covers, or, for a marker or an
    insertion point, its sentence up to it. A part citing several sources (a Gemini support) shows
    each one."""
    rows: list[dict[str, Any]] = evidence_view(response, source_labels, gettext, until, limit)["rows"]
    return rows


def evidence_view(
    response: dict[str, Any],
    source_labels: dict[str, str],
    gettext: Translate = untranslated,
    until: int | None = None,
    limit: int = MAX_EVIDENCE_ROWS,
) -> dict[str, Any]:
    """The rows of ``evidence_rows``; ``citations``, how many citations drawn have evidence in the
    dump, shown or not; and ``cut``, whether some are not shown (those beyond ``limit`` are counted,
    never made)."""
    until = min(len(response["text"]), MAX_MARKDOWN_CHARS) if until is None else until
    sources = {s["key"]: s for s in response["sources"]}
    parts: dict[tuple[int, int], list[tuple[dict[str, Any], str, HeldEvidence]]] = {}
    run: tuple[int, tuple[int, int]] | None = None  # where the last run of markers ends, and its part
    citations, cut = 0, False
    of_source: dict[str, HeldEvidence | None] = {}  # a source's own text, the same for each citation of it
    for citation in response["citations"]:
        if citation["end"] > until:
            continue
        held = [(key, found) for key in citation["source_keys"] if (found := _held(citation, key, sources, of_source))]
        if not held:
            continue
        citations += 1
        # Markers side by side (``です[1][2]。``) cite one sentence: one row, each source beside it.
        if run and citation["marker"] is not None and not response["text"][run[0] : citation["start"]].strip():
            span = run[1]
        elif len(parts) < limit:
            span = claim_span(response["text"], citation)
        else:
            run, cut = None, True
            continue  # a row that will not be shown: counted, not found
        run = (citation["end"], span) if citation["marker"] is not None else None
        parts.setdefault(span, []).extend((citation, key, evidence) for key, evidence in held)
    reading = EvidenceReading(PASSAGE_SEARCH_BUDGET)
    rows = [
        _row(response["text"][start:end], held, sources, source_labels, gettext, reading)
        for (start, end), held in list(parts.items())[:limit]
    ]
    return {"rows": rows, "citations": citations, "cut": cut}


def _held(
    citation: dict[str, Any], key: str, sources: dict[str, Any], of_source: dict[str, HeldEvidence | None]
) -> HeldEvidence | None:
    if citation["cited_text"] is not None:
        return held_evidence(citation, key, sources)
    if key not in of_source:
        of_source[key] = held_evidence(citation, key, sources)
    return of_source[key]


def claim_span(text: str, citation: dict[str, Any]) -> tuple[int, int]:
    """What a citation claims: the span it covers, or (a marker, an insertion point) its sentence up to it."""
    start, end = citation["start"], citation["end"]
    if citation["marker"] is None and start < end:
        return start, end
    return _sentence_start(text, start), start


def _sentence_start(text: str, end: int) -> int:
    """Where the sentence that ends at ``end`` begins: after the previous sentence's end or line break,
    looking back at most MAX_STATEMENT_CHARS (a long run without stops is no one sentence to quote).
    A marker right after a stop (``…です。[1]``) closes the sentence before that stop."""
    earliest = max(end - MAX_STATEMENT_CHARS, 0)
    body_end = end
    while body_end > earliest and text[body_end - 1] in "。.!?！？ ":
        body_end -= 1
    position = max(text.rfind(mark, earliest, body_end) for mark in (". ", "。", "! ", "? ", "\n"))
    return earliest if position < 0 else position + (1 if text[position] in "。\n" else 2)


def claim_words(claim: str) -> str:
    """A claim as a reader sees it: no markers, inline citations, link addresses, or the list item's or
    heading's own mark. A whole link goes to the Markdown reader, which keeps its words and drops its
    brackets; an address the claim's span cut from its link is dropped here."""
    claim = _CITATION_LINK.sub("", DOC_MARKER.sub("", MARKER.sub("", claim)))
    claim = _AUTOLINK.sub("", _CUT_LINK_END.sub(r"\g<words>", claim))
    return plain_text(_BLOCK_MARK.sub("", claim))


def _row(
    claim: str,
    held: list[tuple[dict[str, Any], str, HeldEvidence]],
    sources: dict[str, Any],
    labels: dict[str, str],
    gettext: Translate,
    reading: EvidenceReading,
) -> dict[str, Any]:
    words = claim_words(claim)
    compared = [evidence_comparison(words, evidence, reading) for _, _, evidence in held]
    comparisons = [comparison for _, _, comparison in compared]
    return {
        # Both sides are their text escaped, with marks of our own around some of its words: safe as
        # built, as the footnotes are (core.rendering.markdown), with no HTML of the dump's in them.
        "claim_html": mark_findings(words, claim_marks(comparisons)),
        "differences": _difference_kinds(comparisons),
        "passages": [
            _passage(citation, key, evidence, text, found, comparison, sources, labels, gettext)
            for (citation, key, evidence), (text, found, comparison) in zip(held, compared, strict=True)
        ],
    }


def evidence_comparison(
    claim: str, evidence: HeldEvidence, reading: EvidenceReading
) -> tuple[str, bool | None, Comparison]:
    """What of ``evidence`` a claim (its words, ``claim_words``) is held against, whether it is the
    passage found for it (``_shown_text``), and the comparison. A long text's beginning, shown because
    no passage of it matches the claim, is about something else: nothing in it is held against the
    claim, which it simply does not state."""
    text, found = _shown_text(claim, evidence, reading)
    held_against = reading.read(text if found is not False else "")
    return text, found, compare_readings(reading.read(claim), held_against)


def hint_words(comparison: Comparison) -> list[dict[str, str]]:
    """The comparison's findings as the chips show them: each outcome and kind once, in order; last,
    when a text was longer than the comparison reads, how much of it was compared (outcome ``cut``)."""
    seen: dict[tuple[str, str], None] = {}
    for hint in comparison.hints:
        seen.setdefault((hint.outcome, hint.kind), None)
    words = [{"outcome": outcome, "kind": kind} for outcome, kind in seen]
    if comparison.cut:
        words.append(dict(CUT_HINT))
    return words


# The chip of a comparison that read only the first MAX_COMPARED_CHARS characters of a text.
CUT_HINT = {"outcome": "cut", "kind": "", "chars": f"{MAX_COMPARED_CHARS:,}"}


class EvidenceReading:
    """What is read once per response: each text's reading (a snippet is cited by many sentences),
    and how many characters are left to look for passages in."""

    def __init__(self, search_budget: int = PASSAGE_SEARCH_BUDGET) -> None:
        self.search_budget = search_budget
        self._read: dict[str, Reading] = {}

    def read(self, text: str) -> Reading:
        if text not in self._read:
            self._read[text] = read(text)
        return self._read[text]

    def may_search(self, chars: int) -> bool:
        if chars > self.search_budget:
            return False
        self.search_budget -= chars
        return True


def item_marks(comparison: Comparison) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """What differs between one citation item's claim and its evidence, to mark on both sides as this
    view marks them (``claim_marks``, ``evidence_marks``): the check page keeps them with its flags."""
    return claim_marks([comparison]), evidence_marks(comparison)


def marks_moved(marks: Sequence[Finding], claim: str, text: str) -> tuple[Finding, ...]:
    """``marks``, found in ``claim``, moved into ``text`` that holds the claim's words (a statement holds
    the span its citation covers); none when it does not hold them as they are."""
    offset = text.find(claim) if claim else -1
    if offset < 0:
        return ()
    return tuple(replace(f, start=f.start + offset, end=f.end + offset) for f in marks)


def shown_whole(evidence: HeldEvidence) -> bool:
    """Whether the claim is held against the whole of the evidence (a quote, a short text), so that what
    differs in it is marked where the evidence is shown whole; of a long text, a passage is."""
    return evidence.is_quote or len(evidence.text) <= SHARED_PASSAGE_CHARS


def _shown_text(claim: str, evidence: HeldEvidence, reading: EvidenceReading) -> tuple[str, bool | None]:
    """What is shown of the evidence, and whether it is the passage found for the claim (None when it
    is shown whole): a quote or a short text whole; of a long text, the passage that best matches the
    claim, or its beginning when none does."""
    if shown_whole(evidence):
        return evidence.text, None
    searched = evidence.text[:PASSAGE_SEARCH_CHARS]
    passage = best_passage(claim, searched) if reading.may_search(len(searched)) else None
    if passage is None:
        return shortened(evidence.text, SHARED_PASSAGE_CHARS), False
    return passage.text, True


def _difference_kinds(comparisons: list[Comparison]) -> list[str]:
    """What differs in any evidence beside the claim, for the row's mark: ``figure``, ``date``,
    ``qualifier``, ``negation``."""
    kinds = {hint.kind for c in comparisons for hint in c.hints if hint.needs_attention}
    return [kind for kind in ("figure", "date", "qualifier", "negation") if kind in kinds]


def _passage(
    citation: dict[str, Any],
    key: str,
    evidence: HeldEvidence,
    text: str,
    found: bool | None,
    comparison: Comparison,
    sources: dict[str, Any],
    labels: dict[str, str],
    gettext: Translate,
) -> dict[str, Any]:
    source = sources.get(key, {"title": None, "url": None})
    context = citation.get("context") or {}
    # A text shown from its beginning is held against nothing (evidence_comparison): unmarked.
    marks = evidence_marks(comparison)
    link = None
    if is_safe_http_url(source["url"]):
        link = (
            text_fragment_url(source["url"], text) if evidence.is_quote else passage_fragment_url(source["url"], text)
        )
    return {
        "label": labels.get(key, "?"),
        "title": source["title"] or source["url"] or key,
        "kind": evidence.kind,
        "found": found,
        "where": location_words(citation["location"], source, gettext),
        "quote_html": mark_findings(text, marks),
        "hints": hint_words(comparison),
        "link": link,
        "check": citation.get("quote_check"),
        "context": context or None,
    }


def location_words(location: dict[str, Any] | None, source: dict[str, Any], gettext: Translate = untranslated) -> str:
    """Where a quote sits, as a reader says it: chars 120–245, p. 3–4, blocks 2–3, or the page's domain."""
    if location is None:
        return url_domain(source.get("url")) or ""
    start, end = location["start"], location["end"]
    if location["type"] == "char":
        return gettext("chars {start}–{end}").format(start=start, end=end)
    last = end - 1  # pages and blocks: end is exclusive
    if location["type"] == "page":
        words = gettext("p. {start}") if last <= start else gettext("p. {start}–{end}")
    else:
        words = gettext("block {start}") if last <= start else gettext("blocks {start}–{end}")
    return words.format(start=start, end=last)
