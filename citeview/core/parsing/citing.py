"""Steps every parser shares once it has a response's text and sources."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from citeview.core.common.answer_markdown import MAX_MARKDOWN_CHARS
from citeview.core.common.bidi_controls import show_bidi_controls
from citeview.core.common.links import is_safe_http_url
from citeview.core.common.model import Citation, Marker, Response
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.common.shortening import shortened
from citeview.core.parsing.markers import MARKER, MarkerMatch, NotAMarker, UnknownNotation, read_markers, thinking_end

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
    show as text why it is no citation. Returns the markers found."""
    read = read_markers(response.text, notation)
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
    if read.unknown:
        _note_unknown_notations(response, read.unknown)
    for marker in read.markers:
        keys = resolve(marker)
        if keys:
            response.citations.append(Citation(marker.start, marker.end, keys, marker=marker.text))
            continue
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
    return read.markers


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
