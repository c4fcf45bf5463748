"""Steps every parser shares once it has a response's text and sources."""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from citeview.core.common.answer_markdown import MAX_MARKDOWN_CHARS
from citeview.core.common.bidi_controls import show_bidi_controls
from citeview.core.common.links import is_safe_http_url
from citeview.core.common.model import Citation, ListedInOrder, Marker, Response
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.common.shortening import shortened
from citeview.core.parsing.markers import (
    MARKER,
    MarkerMatch,
    NotAMarker,
    UnknownNotation,
    may_hold_markers,
    numbers_named,
    read_markers,
    thinking_end,
)

# A link's address in a diagnostic: enough to recognise it.
_URL_SHOWN_CHARS = 120
# The different tokens of unknown notations a diagnostic names: enough to see what the answer does.
UNKNOWN_TOKENS_NAMED = 10


def cite_markers(
    response: Response,
    resolve: Callable[[MarkerMatch], list[str]],
    explain_unresolved: Callable[[MarkerMatch], Phrase],
    notation: re.Pattern[str] = MARKER,
) -> list[MarkerMatch]:
    """Turn every marker in ``response.text`` into a citation, or an unresolved marker when it
    resolves to no source (never to a guessed one), and say of every ``[N]`` that Markdown does not
    show as text why it is no citation. The tokens of other notations that the answer shows are cited
    by position where the response lists its sources in order, and flagged otherwise
    (:func:`cite_every_marker`'s rule). Returns the markers found."""
    read = read_markers(response.text, notation)
    first = not response.notations_read
    response.notations_read.append(notation.pattern)
    if first:
        _note_reading_limits(response)
    for candidate in read.not_markers:
        response.diagnose(
            "not_a_marker",
            "info",
            _why_not_a_marker(candidate),
            marker=candidate.match.text,
            ref=candidate.match.ref,
            start=candidate.match.start,
            end=candidate.match.end,
            part=candidate.part,
            url=candidate.url,
        )
    by_position = _ByPosition(response.listed_in_order)
    if first:
        _cite_other_notations(response, read.unknown, by_position)
    for marker in read.markers:
        _cite_or_flag(response, marker, resolve(marker), explain_unresolved)
    by_position.note(response)
    return read.markers


def cite_every_marker(response: Response) -> None:
    """The marker rule, for every reader and every relay: each marker the answer shows as text (``[N]``,
    and the other notations :mod:`~citeview.core.parsing.markers` knows; never in code, link text or a
    link's address) links to its source or is flagged unresolved, with the reason. Markers a reader
    cited or flagged stay as they are: a reader may place more, never fewer. The rest name the N-th
    source, counting from 1, where the response lists its sources in order and places none
    (``Response.listed_in_order``: a ``citations`` list, OpenRouter's annotations at 0–0), and said
    so; otherwise no source, never a guessed one. Runs after every reader (``parse.py``); a reader
    that needs its outcome calls it first, and then it is not run again."""
    if MARKER.pattern in response.notations_read or not may_hold_markers(response.text):
        return  # read already (by the reader's own rule or by this one), or nothing to read
    # Markers the reader placed are not even asked about: an answer whose every marker is a link its
    # annotations cover (xAI's [[1]](url)) is not parsed again.
    held = _HeldSpans(response).holds if response.citations or response.unresolved else None
    read = read_markers(response.text, held=held)
    markers = read.markers
    first = not response.notations_read
    # (a reader that read a notation of its own, [docN], flagged the other notations then)
    unknown = read.unknown if first else []
    if not markers and not unknown:
        return  # nearly every answer
    response.notations_read.append(MARKER.pattern)
    if first:
        _note_reading_limits(response)
    by_position = _ByPosition(response.listed_in_order)
    _cite_other_notations(response, unknown, by_position)
    for marker in markers:
        _cite_or_flag(response, marker, by_position.keys_for([int(marker.ref)]), by_position.why_not)
    by_position.note(response)


def _note_reading_limits(response: Response) -> None:
    """What limits the reading of an answer's markers, said once per response."""
    if thinking_end(response.text):
        response.diagnose(
            "reasoning_section",
            "info",
            phrase(
                "The answer starts with a reasoning section (<think>…</think>); brackets in it are not read as citations."
            ),
        )
    if len(response.text) > MAX_MARKDOWN_CHARS:
        response.diagnose(
            "answer_too_long",
            "warning",
            phrase(
                "The answer is {length:,} characters; citeview renders the first {limit:,}. "
                "Markers past that point are counted without checking whether they stand in code.",
                length=len(response.text),
                limit=MAX_MARKDOWN_CHARS,
            ),
        )


def _cite_or_flag(
    response: Response, marker: MarkerMatch, keys: list[str], explain_unresolved: Callable[[MarkerMatch], Phrase]
) -> None:
    """A citation of ``keys`` at the marker, or (no key) an unresolved marker and the reason."""
    if keys:
        response.citations.append(Citation(marker.start, marker.end, keys, marker=marker.text))
        return
    response.unresolved.append(Marker(marker.text, marker.ref, marker.start, marker.end))
    response.diagnose(
        "unresolved_marker",
        "warning",
        explain_unresolved(marker),
        marker=marker.text,
        ref=marker.ref,
        start=marker.start,
        end=marker.end,
    )


def _cite_other_notations(response: Response, unknown: list[UnknownNotation], by_position: _ByPosition) -> None:
    """The tokens of notations no reader reads (``[1, 3]``, ``【2】``, ``[^2]``, ``[static_doc_1]``):
    those naming sources by number alone are cited by position where the sources are listed in
    order; every other one is flagged, and those of a notation no reading here understands are named
    once, together."""
    not_read = []
    for token in unknown:
        numbers = numbers_named(token.text)
        keys = by_position.keys_for(numbers) if numbers is not None else []
        explain = by_position.why_not if numbers is not None else _not_read_notation
        _cite_or_flag(response, MarkerMatch(token.start, token.end, token.text, token.text[1:-1], False), keys, explain)
        if numbers is None:
            not_read.append(token)  # (a number that names no source is a notation read, and said so)
    if not_read:
        _note_unknown_notations(response, not_read)


def _not_read_notation(marker: MarkerMatch) -> Phrase:
    return phrase(
        "{marker} is written in a notation citeview does not read; it points at no source.",
        marker=show_bidi_controls(marker.text),
    )


class _ByPosition:
    """Markers named by their position in the sources a response lists in order, and why one names
    none; the note that says the markers were read so, once."""

    def __init__(self, listed: ListedInOrder | None) -> None:
        self.listed = listed
        self.resolved = 0

    def keys_for(self, numbers: list[int]) -> list[str]:
        """The sources at these 1-based positions, or none at all when one has no source there."""
        if self.listed is None:
            return []
        if len(numbers) == 1 and 1 <= numbers[0] <= len(self.listed.keys) and self.listed.keys[numbers[0] - 1]:
            self.resolved += 1
            return [self.listed.keys[numbers[0] - 1]]  # (nearly every marker: [N] names one)
        keys = []
        for number in numbers:
            if not 1 <= number <= len(self.listed.keys) or not self.listed.keys[number - 1]:
                return []
            keys.append(self.listed.keys[number - 1])
        self.resolved += 1
        return list(dict.fromkeys(keys))

    def why_not(self, marker: MarkerMatch) -> Phrase:
        if self.listed is None:
            return phrase(
                "{marker} points at no source: this response does not number its sources, so citeview cannot "
                "tell which one a number names.",
                marker=show_bidi_controls(marker.text),
            )
        return phrase(
            "{marker} points at no source: the response's {list} list {count} source(s) in order, and none is "
            "at the position it names.",
            marker=show_bidi_controls(marker.text),
            list=self.listed.name,
            count=len(self.listed.keys),
        )

    def note(self, response: Response) -> None:
        if not self.resolved or self.listed is None:
            return
        placed = {key for citation in response.citations if citation.marker for key in citation.source_keys}
        response.cited_without_position = [k for k in response.cited_without_position if k not in placed]
        response.diagnose(
            "markers_by_position",
            "info",
            phrase(
                "The response's {list} list its {count} source(s) in order and place none of them in the text, so "
                "{resolved} marker(s) were resolved by position: [N] names the N-th source, counting from 1.",
                list=self.listed.name,
                count=len(self.listed.keys),
                resolved=self.resolved,
            ),
            list=self.listed.name,
            count=len(self.listed.keys),
            resolved=self.resolved,
        )


class _HeldSpans:
    """The markers a reader already cited or flagged: a marker inside one stays as the reader left it.
    Built at the first marker asked about: most answers have none, and many citations."""

    def __init__(self, response: Response) -> None:
        self.response = response
        self.starts: list[int] | None = None
        self.ends: list[int] = []

    def holds(self, start: int, end: int) -> bool:
        starts = self.starts if self.starts is not None else self._build()
        index = bisect_right(starts, start) - 1
        return index >= 0 and end <= self.ends[index]

    def _is_a_mark(self, citation: Citation) -> bool:
        """Whether a citation's span is a mark of its own (a marker, or xAI's ``[[1]](url)`` link), not
        prose: a number in a cited sentence (Claude's, Gemini's) is still to be linked or flagged."""
        return citation.marker is not None or self.response.text.startswith("[", citation.start)

    def _build(self) -> list[int]:
        spans = sorted(
            [(c.start, c.end) for c in self.response.citations if c.start < c.end and self._is_a_mark(c)]
            + [(m.start, m.end) for m in self.response.unresolved]
        )
        merged: list[list[int]] = []
        for start, end in spans:
            if merged and start < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self.starts = [span[0] for span in merged]
        self.ends = [span[1] for span in merged]
        return self.starts


def _note_unknown_notations(response: Response, unknown: list[UnknownNotation]) -> None:
    """One warning for all the marker-like tokens the answer shows that no marker reading understands,
    naming the different ones, so that an answer citing ``[static_doc_1]`` does not pass for one that cites nothing."""
    tokens = list(dict.fromkeys(token.text for token in unknown))
    named = " ".join(show_bidi_controls(token) for token in tokens[:UNKNOWN_TOKENS_NAMED])
    if len(tokens) > UNKNOWN_TOKENS_NAMED:
        named += " …"
    response.diagnose(
        "unknown_notation",
        "warning",
        phrase(
            "The answer has tokens that look like citation markers in a notation citeview does not read "
            "({count:,} in all): {tokens}. They are shown as written and point at no source.",
            count=len(unknown),
            tokens=named,
        ),
        tokens=tokens[:UNKNOWN_TOKENS_NAMED],
        count=len(unknown),
        kinds=len(tokens),
        first=[unknown[0].start, unknown[0].end],
    )


def _why_not_a_marker(candidate: NotAMarker) -> Phrase:
    marker = candidate.match.text
    url = show_bidi_controls(shortened(candidate.url, _URL_SHOWN_CHARS))
    if candidate.part == "code":
        return phrase("{marker} is inside code, so it is shown as written and not read as a citation.", marker=marker)
    if candidate.part == "link_text" and url:
        return phrase(
            "{marker} is the text of a link the answer writes to {url}; it is not read as a citation.",
            marker=marker,
            url=url,
        )
    if candidate.part == "link_text":
        return phrase(
            "{marker} is the text of a link without a usable address; it is not read as a citation.", marker=marker
        )
    if candidate.part == "link_address":
        return phrase(
            "{marker} is part of the address or title of a link the answer writes ({url}); it is not read as a citation.",
            marker=marker,
            url=url,
        )
    if candidate.part == "reference_definition":
        return phrase(
            "{marker} is part of a link reference definition ({url}), which Markdown does not show; it is not read "
            "as a citation.",
            marker=marker,
            url=url,
        )
    if candidate.part == "table_cell":
        return phrase(
            "{marker} is in a table cell past the columns of the table's header, which Markdown does not show; "
            "it is not read as a citation.",
            marker=marker,
        )
    if candidate.part == "escaped":
        return phrase(
            "{marker} has a backslash before it, so it is shown as written and not read as a citation.", marker=marker
        )
    return phrase(
        "{marker} is nested deeper in quotes or lists than Markdown renders, so it is not shown and not read as a "
        "citation.",
        marker=marker,
    )


def add_source_checks(response: Response) -> None:
    """Order citations and flag sources a reviewer should know about: unsafe links, never cited."""
    response.citations.sort(key=lambda c: (c.start, c.end))
    response.unresolved.sort(key=lambda m: m.start)
    cited = {key for citation in response.citations for key in citation.source_keys}
    cited.update(response.cited_without_position)
    for reasoning in response.reasoning:
        reasoning.citations.sort(key=lambda c: (c.start, c.end))
        cited.update(key for citation in reasoning.citations for key in citation.source_keys)
    fetched_uncited, consulted_uncited = [], []
    for source in response.sources:
        if source.url is not None and not is_safe_http_url(source.url):
            response.diagnose(
                "unsafe_url",
                "warning",
                phrase(
                    "Source {key} has a URL that is not a plain http(s) link; it is shown as text, not as a link.",
                    key=source.key,
                ),
                key=source.key,
                url=source.url,
            )
        if source.key in cited:
            continue
        if source.extra.get("not_retrieved") or source.extra.get("generated_file"):
            continue  # a page the model could not read (its provider's note says so), a file it wrote
        if source.extra.get("snippet_kind") == "fetched_page":
            fetched_uncited.append(source.key)  # read, not merely offered: said once, below
            continue
        if source.extra.get("consulted"):
            consulted_uncited.append(source.key)  # a search reads more than an answer cites: said once
            continue
        response.diagnose(
            "unused_source",
            "info",
            phrase("Source {key} was offered but the answer never cites it.", key=source.key),
            key=source.key,
        )
    if fetched_uncited:
        response.diagnose(
            "fetched_not_cited",
            "info",
            phrase(
                "The model fetched and read {count} page(s) that the answer cites nowhere; the text it read of each "
                "is kept with the source, to check the answer against.",
                count=len(fetched_uncited),
            ),
            keys=fetched_uncited,
        )
    if consulted_uncited:
        response.diagnose(
            "consulted_not_cited",
            "info",
            phrase(
                "The search consulted {count} source(s) that the answer does not cite; they are listed apart, "
                "after the cited ones.",
                count=len(consulted_uncited),
            ),
            keys=consulted_uncited,
        )


NO_TYPE = "(an event without a type)"


def note_unknown_event_types(response: Response, kinds: list[str | None]) -> None:
    """One note per type of stream event the parser does not read (None: events without a type)."""
    for kind in kinds:
        shown = phrase("(an event without a type)") if kind is None else kind
        response.diagnose(
            "unknown_event",
            "info",
            phrase("The stream has events of a type citeview does not know: {type}.", type=shown),
            type=NO_TYPE if kind is None else kind,
        )


def note_listed_citation_not_a_url(response: Response, position: int, value: Any) -> None:
    """Say that the entry at 1-based ``position`` of a ``citations`` list of URLs (Perplexity's,
    xAI's) is not a URL, so a ``[position]`` marker cannot point at it."""
    response.diagnose(
        "invalid_source",
        "warning",
        phrase(
            "citations[{index}] is not a URL but {value}; [{position}] cannot point at it.",
            index=position - 1,
            value=json.dumps(value)[:80],
            position=position,
        ),
        position=position,
    )


def note_unknown_citation(response: Response, message: Phrase, kind: str) -> None:
    """A citation (or its location or source) of a type citeview does not read, said in the
    provider's words: what is done with it differs, the code and its detail do not."""
    response.diagnose("unknown_citation", "info", message, type=kind)
