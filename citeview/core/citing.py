"""Steps every parser shares once it has a response's text and sources."""

from __future__ import annotations

from collections.abc import Callable

from citeview.core.links import is_safe_http_url
from citeview.core.markers import MarkerMatch, find_markers, thinking_end
from citeview.core.model import Citation, Marker, Response
from citeview.core.phrases import Phrase, phrase
from citeview.core.rendering.markdown import MAX_MARKDOWN_CHARS


def cite_markers(
    response: Response,
    resolve: Callable[[MarkerMatch], list[str]],
    explain_unresolved: Callable[[MarkerMatch], Phrase],
) -> list[MarkerMatch]:
    """Turn every marker in ``response.text`` into a citation, or an unresolved marker when it
    resolves to no source (never to a guessed one). Returns the markers found."""
    markers = find_markers(response.text)
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
    for marker in markers:
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
    return markers


def add_source_checks(response: Response) -> None:
    """Order citations and flag sources a reviewer should know about: unsafe links, never cited."""
    response.citations.sort(key=lambda c: (c.start, c.end))
    response.unresolved.sort(key=lambda m: m.start)
    cited = {key for citation in response.citations for key in citation.source_keys}
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
        if source.key not in cited:
            response.diagnose(
                "unused_source",
                "info",
                phrase("Source {key} was offered but the answer never cites it.", key=source.key),
                key=source.key,
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
