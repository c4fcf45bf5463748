"""OpenRouter: chat completions routed to many models, with its web plugin's citations
(``../shared/docs/provider-formats.md`` §12).

OpenAI's Chat Completions shape. The web plugin's ``url_citation`` annotations carry the text of
the page (``content``, shown as its excerpt) and are usually at 0–0: the answer writes the page's
address itself, as a Markdown link or bare. Such an annotation cites its page where the answer
writes that address; one whose address the answer never writes is listed as cited, without a
place. Where none is placed, the annotations list the pages in order (a relayed Perplexity Sonar
answer's ``citations``), and the answer's ``[N]`` markers name the N-th (the core's marker rule,
``parsing/citing.py``). A stream sends the annotations once, in its first delta, among ``: OPENROUTER PROCESSING``
comment lines (SSE comments: the reader skips them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from citeview.core.common.model import Citation, Response
from citeview.core.common.phrases import phrase
from citeview.core.detection.registry import ApiFormat, Provider, register
from citeview.core.parsing.citing import cite_every_marker
from citeview.core.parsing.inline_tokens import written_links
from citeview.core.parsing.jsonvalues import dict_or_empty
from citeview.core.parsing.providers._openai_shapes import (
    CHAT_SHAPE,
    Dialect,
    PlacedSpans,
    read_chat_completions,
    without_tracking,
)


def parse_chat_completions(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = read_chat_completions(values, streamed, OPENROUTER_CHAT)
    annotated = list(response.cited_without_position)  # the annotations' pages, before markers place any
    cite_every_marker(response)  # first, so that the note below counts the pages the markers placed
    _cite_written_addresses(response, annotated)
    return response


def _cite_written_addresses(response: Response, annotated: list[str]) -> None:
    """Each page the annotations cite without a place is cited where the answer writes its address
    (every time it does, whether or not a marker names it too); the pages neither written nor named
    stay listed as cited, and the page says so once."""
    listed = set(annotated)
    if not listed:
        return
    keys = {without_tracking(s.url): s.key for s in response.sources if s.key in listed and s.url}
    placed: PlacedSpans | None = None  # an annotation with a real span keeps its place
    found: set[str] = set()
    for link in written_links(response.text):
        key = keys.get(without_tracking(link.url))
        if key is None:
            continue
        # (built at the first address it may place: an answer of markers has as many citations)
        placed = placed or PlacedSpans(response.citations)
        if placed.overlaps(link.start, link.end):
            continue
        response.citations.append(Citation(link.start, link.end, [key]))
        found.add(key)
    response.cited_without_position = [key for key in response.cited_without_position if key not in found]
    unplaced = len(response.cited_without_position)
    if unplaced:
        response.diagnose(
            "no_positions",
            "info",
            phrase(
                "OpenRouter's web search marks its pages at no place in the text (0–0), and the answer does not write "
                "the address of {count} of them: they are listed as cited, without a place in the answer.",
                count=unplaced,
            ),
            count=unplaced,
        )


# --- Detection: OpenRouter answers in OpenAI's shape, with marks of its own -------------------------


def _is_openrouter_completion(value: dict[str, Any]) -> bool:
    """OpenRouter's generation id (``gen-…``) with the upstream it routed to (``provider``) or the
    ``cost`` it adds to the usage."""
    if not str(value.get("id", "")).startswith("gen-"):
        return False
    return isinstance(value.get("provider"), str) or "cost" in dict_or_empty(value.get("usage"))


OPENROUTER = Provider("openrouter", "OpenRouter")
OPENROUTER_CHAT = Dialect(
    provider="openrouter", api="openrouter.chat_completions", positionless_citations=True, annotations_in_order=True
)

register(
    ApiFormat(
        name="openrouter.chat_completions",
        label="OpenRouter Chat Completions",
        provider=OPENROUTER,
        shape=CHAT_SHAPE,
        parser=parse_chat_completions,
        citation_notation=phrase(
            "url_citation annotations carrying the page's text, usually at 0–0: each cites its page where the answer "
            "writes that page's address"
        ),
        marks=_is_openrouter_completion,
        priority=30,  # its marks are its own; before Groq, Mistral and OpenAI, which share the shape
    )
)
