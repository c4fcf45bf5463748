"""Azure OpenAI "On Your Data": chat completions grounded on the caller's own index
(``../shared/docs/provider-formats.md`` §12).

OpenAI's Chat Completions shape, with the retrieved chunks in the assistant message's ``context``:
since API version 2024-02-15-preview as ``context.citations`` (with ``context.intent``, the search
queries as a JSON string); in the 2023 ``extensions`` API inside ``context.messages``, a tool message
whose ``content`` is a JSON string holding ``{"citations": [...], "intent": "<JSON string>"}``. The
answer cites them as ``[doc1]``, ``[doc2]``, …, numbered from 1 in the citations' order. A stream
sends the context in a delta, most often the first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from citeview.core.common.markup_text import markup_stripped
from citeview.core.common.model import Response, SearchBatch
from citeview.core.common.phrases import phrase
from citeview.core.detection.registry import ApiFormat, Provider, register
from citeview.core.parsing.citing import cite_markers
from citeview.core.parsing.jsonvalues import dict_or_empty, dicts_in, object_in_json_string, str_or_none
from citeview.core.parsing.markers import DOC_MARKER
from citeview.core.parsing.providers._openai_shapes import CHAT_SHAPE, Dialect, read_chat_completions
from citeview.core.parsing.sources import SourceTable

_TAG = re.compile(r"<[A-Za-z/!]")


def parse_chat_completions(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    values = list(values)  # read twice: for the shape's fields, then for this provider's own
    response = read_chat_completions(values, streamed, AZURE_CHAT)
    citations, intents = _context(values)
    table = SourceTable.of(response)
    keys = [_add_citation(table, number, citation) for number, citation in enumerate(citations, 1)]
    for intent in intents:
        response.searches.append(SearchBatch(_queries(intent), keys))
    if not intents and keys:
        response.searches.append(SearchBatch([], keys))
    cite_markers(
        response,
        lambda marker: table.keys_for(f"doc{marker.ref}"),
        lambda marker: phrase(
            "{marker} points at no retrieved document: the response's context lists {count}.",
            marker=marker.text,
            count=len(citations),
        ),
        notation=DOC_MARKER,
    )
    return response


def _context(values: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
    """Every citation the completion's context holds, in order, and its intents (each a JSON string of
    queries), whether at the context's root (2024) or in its tool messages (2023)."""
    citations: list[dict[str, Any]] = []
    intents: list[Any] = []
    for value in values:
        for choice in dicts_in(value.get("choices")):
            for field in ("message", "delta"):
                context = dict_or_empty(dict_or_empty(choice.get(field)).get("context"))
                held = [context, *(object_in_json_string(m.get("content")) for m in _tool_messages(context))]
                for part in held:
                    citations += dicts_in(part.get("citations"))
                    if part.get("intent") not in (None, ""):
                        intents.append(part["intent"])
    return citations, intents


def _tool_messages(context: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in dicts_in(context.get("messages")) if m.get("role") == "tool"]


def _add_citation(table: SourceTable, number: int, citation: dict[str, Any]) -> str:
    url = str_or_none(citation.get("url"))
    filepath = str_or_none(citation.get("filepath"))
    extra = {
        "document_name": filepath,
        "chunk_id": str_or_none(citation.get("chunk_id")),
        "snippet": _evidence_text(str_or_none(citation.get("content"))),
        "snippet_kind": "retrieved_passage",
    }
    return table.add(f"doc{number}", kind="document", url=url, title=str_or_none(citation.get("title")), extra=extra)


def _evidence_text(content: str | None) -> str | None:
    """The retrieved chunk as text: its markup (the service indexes HTML) stripped, plain text kept as it came."""
    if not content:
        return None
    return markup_stripped(content) if _TAG.search(content) else content


def _queries(intent: Any) -> list[str]:
    """The search queries of an intent: a JSON list in a string (the service may cut it off: then it is
    shown as it came)."""
    if isinstance(intent, list):
        return [str(query) for query in intent if query not in (None, "")]
    text = str(intent)
    try:
        queries = json.loads(text)
    except ValueError:
        return [text]
    return _queries(queries) if isinstance(queries, list) else [text]


# --- Detection: On Your Data answers in OpenAI's shape, with a context of its own ------------------


def _is_on_your_data(value: dict[str, Any]) -> bool:
    """The 2023 extensions API's object name, or an assistant message (or delta) with a context of
    citations, intent or tool messages."""
    if str(value.get("object") or "").startswith("extensions.chat.completion"):
        return True
    for choice in dicts_in(value.get("choices")):
        for field in ("message", "delta"):
            context = dict_or_empty(choice.get(field)).get("context")
            if isinstance(context, dict) and ("citations" in context or "intent" in context or "messages" in context):
                return True
    return False


AZURE = Provider("azure", "Azure OpenAI")
AZURE_CHAT = Dialect(provider="azure", api="azure.on_your_data")

register(
    ApiFormat(
        name="azure.on_your_data",
        label="Azure OpenAI On Your Data",
        provider=AZURE,
        shape=CHAT_SHAPE,
        parser=parse_chat_completions,
        citation_notation=phrase(
            "[docN] markers in the text, N being a 1-based position in the context's citations (the retrieved chunks)"
        ),
        marks=_is_on_your_data,
        priority=-20,  # its marks are its own, and its ids are UUIDs, which Perplexity Sonar's marks also take
    )
)
