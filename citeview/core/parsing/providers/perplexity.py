"""Perplexity: the Agent API (Responses-style, ``perplexity.agent``) and Sonar (chat completions).

Both write ``[N]`` markers into the answer; the Agent API's N is a search result's ``id``, Sonar's
N is a 1-based position in ``citations`` (``../shared/docs/provider-formats.md`` §1).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from citeview.core.common.model import ListedInOrder, Response, SearchBatch
from citeview.core.common.phrases import phrase
from citeview.core.detection.registry import ApiFormat, Provider, register
from citeview.core.parsing.citing import cite_markers, note_listed_citation_not_a_url, note_unknown_event_types
from citeview.core.parsing.jsonvalues import dict_or_empty, dicts_in, int_or_zero, str_or_none, strings_in
from citeview.core.parsing.providers._openai_shapes import CHAT_SHAPE, RESPONSES_SHAPE
from citeview.core.parsing.sources import SourceTable

RESULT_EXTRA_FIELDS = ("snippet", "date", "last_updated", "source")

# Agent stream events that carry nothing the reader needs beyond what other events already give.
_AGENT_QUIET_EVENTS = {
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.content_part.done",
    "response.reasoning.started",
    "response.reasoning.stopped",
    "response.reasoning.fetch_url_queries",
    "response.skill.loaded",
    "ping",
}
# How an event without a `type` is listed in the `unknown_event` details (the message words it as a phrase).


# --- Agent API -----------------------------------------------------------------------------------


@dataclass
class _AgentState:
    """What an Agent stream has delivered so far."""

    deltas: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    done_texts: dict[tuple[int, int], str] = field(default_factory=dict)
    queries_by_call: dict[str, list[str]] = field(default_factory=dict)
    event_batches: list[SearchBatch] = field(default_factory=list)
    item_batches: list[SearchBatch] = field(default_factory=list)
    final: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    unknown_types: list[str | None] = field(default_factory=list)  # None: no type


def parse_agent(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("perplexity", "perplexity.agent", streamed)
    table = SourceTable(response)
    if streamed:
        _read_agent_stream(response, table, values)
    else:
        body = next(iter(values))
        _read_agent_object(response, table, body, response.searches)
        _set_agent_status(response, body)
    markers = cite_markers(
        response,
        lambda m: table.keys_for(m.ref),
        lambda m: phrase("{marker} points at no search result: no result has id {ref}.", marker=m.text, ref=m.ref),
    )
    if any(m.is_web for m in markers):
        response.diagnose(
            "web_marker_reading",
            "info",
            phrase(
                "[web:N] markers were resolved by search result id. Some clients read N as a position in the "
                "list of all results instead; the two readings agree only with a single search."
            ),
        )
    return response


def _read_agent_object(response: Response, table: SourceTable, obj: dict[str, Any], batches: list[SearchBatch]) -> None:
    response.id = str_or_none(obj.get("id")) or response.id
    response.model = str_or_none(obj.get("model")) or response.model
    parts = []
    for item in dicts_in(obj.get("output")):
        kind = item.get("type")
        if kind == "search_results":
            batches.append(_add_search_results(table, item.get("results"), item.get("queries")))
        elif kind == "fetch_url_results":
            _add_fetched_pages(table, item.get("contents"))
        elif kind == "message":
            parts.append("".join(_output_texts(item)))
    if parts:
        response.text = "\n\n".join(parts)


def _set_agent_status(response: Response, obj: dict[str, Any]) -> None:
    response.set_status(obj.get("status"), obj.get("error"))


def _read_agent_stream(response: Response, table: SourceTable, events: Iterable[dict[str, Any]]) -> None:
    state = _AgentState()
    last_part, last_deltas = None, None  # text deltas come in runs of one part: it is looked up once
    for event in events:
        if event.get("type") == "response.output_text.delta":  # nearly every event of a stream
            output_index, content_index = event.get("output_index"), event.get("content_index")
            part = (
                output_index if type(output_index) is int else 0,
                content_index if type(content_index) is int else 0,
            )
            if part != last_part or last_deltas is None:
                last_part, last_deltas = part, state.deltas.setdefault(part, [])
            delta = event.get("delta")
            last_deltas.append(delta if type(delta) is str and delta else "")
            continue
        _read_agent_event(response, table, state, event)
    final = state.final
    if final is not None:
        _read_agent_object(response, table, final, state.item_batches)
    if not response.text:
        response.text = _joined_stream_text(state)
    response.searches = state.event_batches or state.item_batches
    if state.error is not None:
        response.mark_failed(state.error)
    elif final is not None:
        _set_agent_status(response, final)
    else:
        response.mark_incomplete(phrase("stream ended without {event}", event="response.completed"))
    note_unknown_event_types(response, state.unknown_types)


def _read_agent_event(response: Response, table: SourceTable, state: _AgentState, event: dict[str, Any]) -> None:
    kind = event.get("type")
    if kind == "response.output_text.delta":  # first: nearly every event of a stream is one
        state.deltas.setdefault(_part_of(event), []).append(str_or_none(event.get("delta")) or "")
    elif kind in ("response.created", "response.in_progress"):
        inner = dict_or_empty(event.get("response"))
        response.id = response.id or str_or_none(inner.get("id"))
        response.model = str_or_none(inner.get("model")) or response.model
    elif kind == "response.reasoning.search_queries":
        state.queries_by_call[str(event.get("call_id"))] = strings_in(event.get("queries"))
    elif kind == "response.reasoning.search_results":
        queries = state.queries_by_call.get(str(event.get("call_id")), [])
        state.event_batches.append(_add_search_results(table, event.get("results"), queries))
    elif kind == "response.reasoning.fetch_url_results":
        _add_fetched_pages(table, event.get("contents"))
    elif kind == "response.output_item.done":
        item = dict_or_empty(event.get("item"))
        if item.get("type") == "search_results":
            state.item_batches.append(_add_search_results(table, item.get("results"), item.get("queries")))
        elif item.get("type") == "fetch_url_results":
            _add_fetched_pages(table, item.get("contents"))
    elif kind == "response.output_text.done" and isinstance(event.get("text"), str):
        state.done_texts[_part_of(event)] = event["text"]
    elif kind == "response.completed" and isinstance(event.get("response"), dict):
        state.final = event["response"]
    elif kind == "response.failed":
        state.error = dict_or_empty(event.get("error"))
    elif kind == "error":
        state.error = event
    elif not isinstance(kind, str) or kind not in _AGENT_QUIET_EVENTS:
        label = None if kind is None else str(kind)
        if label not in state.unknown_types:
            state.unknown_types.append(label)


def _joined_stream_text(state: _AgentState) -> str:
    """The answer as streamed: per text part its ``done`` text, else its deltas, parts in order."""
    messages: dict[int, list[str]] = {}
    for part in sorted(set(state.deltas) | set(state.done_texts)):
        text = state.done_texts.get(part, "".join(state.deltas.get(part, [])))
        messages.setdefault(part[0], []).append(text)
    return "\n\n".join("".join(parts) for _, parts in sorted(messages.items()))


def _part_of(event: dict[str, Any]) -> tuple[int, int]:
    return (int_or_zero(event.get("output_index")), int_or_zero(event.get("content_index")))


def _add_search_results(table: SourceTable, results: Any, queries: Any) -> SearchBatch:
    keys = []
    for position, result in enumerate(dicts_in(results), 1):
        # Results are keyed by their id, never by position; one without an id cannot be cited.
        key = _result_key(result.get("id")) or f"unnumbered-{position}"
        extra = {name: result.get(name) for name in RESULT_EXTRA_FIELDS}
        keys.append(
            table.add(
                key, kind="web", url=str_or_none(result.get("url")), title=str_or_none(result.get("title")), extra=extra
            )
        )
    return SearchBatch(strings_in(queries), keys)


def _result_key(result_id: Any) -> str | None:
    """The marker number a result answers to: ``7``, ``7.0`` and ``"7"`` are all ``"7"``."""
    if isinstance(result_id, bool) or result_id is None:
        return None
    if isinstance(result_id, float) and result_id.is_integer():
        result_id = int(result_id)
    if isinstance(result_id, int | float):
        return str(result_id)
    return result_id.strip() or None if isinstance(result_id, str) else None


def _add_fetched_pages(table: SourceTable, contents: Any) -> None:
    for position, page in enumerate(dicts_in(contents), 1):
        url = str_or_none(page.get("url"))
        table.add(
            f"fetched-{url or position}",
            kind="web",
            url=url,
            title=str_or_none(page.get("title")),
            extra={"snippet": page.get("snippet"), "fetched": True},
        )


def _output_texts(message: dict[str, Any]) -> list[str]:
    return [
        str_or_none(part.get("text")) or ""
        for part in dicts_in(message.get("content"))
        if part.get("type") == "output_text"
    ]


# --- Sonar (chat completions) --------------------------------------------------------------------


def parse_sonar(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("perplexity", "perplexity.sonar", streamed)
    table = SourceTable(response)
    finish_reason = None
    messages: list[str] = []
    deltas: list[str] = []
    results: dict[str, dict[str, Any]] = {}  # streams repeat them in every chunk: each once, first seen first
    listed = 0
    for chunk in values:
        response.id = response.id or str_or_none(chunk.get("id"))
        response.model = str_or_none(chunk.get("model")) or response.model
        listed = max(listed, _add_citations(response, table, chunk.get("citations")))
        for result in dicts_in(chunk.get("search_results")):
            results.setdefault(json.dumps(result, sort_keys=True), result)
        choices = dicts_in(chunk.get("choices"))
        choice = next((c for c in choices if c.get("index", 0) == 0), choices[0] if choices else {})
        message_text = _content_text(dict_or_empty(choice.get("message")).get("content"))
        if message_text is not None:
            messages.append(message_text)
        delta_text = _content_text(dict_or_empty(choice.get("delta")).get("content"))
        if delta_text:
            deltas.append(delta_text)
        finish_reason = str_or_none(choice.get("finish_reason")) or finish_reason
        if len(choices) > 1 and not any(d.code == "other_choices" for d in response.diagnostics):
            response.diagnose(
                "other_choices", "info", phrase("The response has several choices; citeview shows the first.")
            )
    # Full-mode streams carry the accumulated text in `message` and the increment in `delta`: use one, never both.
    response.text = messages[-1] if messages and messages[-1] else "".join(deltas)
    _attach_search_results(table, response, list(results.values()))
    _set_sonar_status(response, finish_reason)
    # Documented: [k] names citations[k-1]. Declared so that the marker rule reads other notations so too.
    response.listed_in_order = ListedInOrder(
        tuple(next(iter(table.keys_for(str(position))), "") for position in range(1, listed + 1)), "citations"
    )
    cite_markers(
        response,
        lambda m: table.keys_for(m.ref),
        lambda m: phrase(
            "{marker} points at no entry in citations (the response lists {count}).", marker=m.text, count=listed
        ),
    )
    return response


def _add_citations(response: Response, table: SourceTable, citations: Any) -> int:
    """Add ``citations`` (URL strings, 1-based); return how many there are. Streams repeat or grow
    the list in every chunk: a changed URL at a position is a conflict, kept and reported."""
    if not isinstance(citations, list):
        return 0
    for position, url in enumerate(citations, 1):
        if isinstance(url, str):
            table.add(str(position), kind="web", url=url, title=None)
        elif not any(
            d.code == "invalid_source" and d.details.get("position") == position for d in response.diagnostics
        ):
            note_listed_citation_not_a_url(response, position, url)
    return len(citations)


def _attach_search_results(table: SourceTable, response: Response, results: list[dict[str, Any]]) -> None:
    """Titles and snippets come from ``search_results``, matched by URL (their order is not the citations')."""
    keys_by_url: dict[str, str] = {}
    for source in response.sources:
        if source.url is not None:
            keys_by_url.setdefault(source.url, source.key)
    batch = []
    for position, result in enumerate(results, 1):
        url = str_or_none(result.get("url"))
        extra = {name: result.get(name) for name in RESULT_EXTRA_FIELDS}
        title = str_or_none(result.get("title"))
        if url is not None and url in keys_by_url:
            provider_key = keys_by_url[url].split("#")[0]
            batch.append(table.add(provider_key, kind="web", url=url, title=title, extra=extra))
        else:
            batch.append(table.add(f"search-{position}", kind="web", url=url, title=title, extra=extra))
    if batch:
        response.searches.append(SearchBatch([], batch))


def _set_sonar_status(response: Response, finish_reason: Any) -> None:
    why = {"length": phrase("the answer was cut off at the token limit")}
    response.set_finish(finish_reason, field="finish_reason", completed={"stop"}, why=why)


def _content_text(content: Any) -> str | None:
    """``content`` is a string, or a list of typed chunks (``{"type": "text", "text": ...}``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str_or_none(c.get("text")) or "" for c in dicts_in(content) if c.get("type") in (None, "text"))
    return None


# --- Detection: Perplexity answers in OpenAI's shapes, with marks of its own ----------------------

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


def _is_agent_value(value: dict[str, Any]) -> bool:
    # Asked of every event of a Responses stream that is not Perplexity's: no call it can spare.
    kind = value.get("type", "")
    if (kind if type(kind) is str else str(kind)).startswith("response.reasoning."):
        return True
    inner = value.get("response")
    response = inner if isinstance(inner, dict) and inner else value
    output = response.get("output")
    if isinstance(output, list) and any(
        isinstance(i, dict) and i.get("type") in ("search_results", "fetch_url_results") for i in output
    ):
        return True
    usage = response.get("usage")
    if isinstance(usage, dict) and isinstance(cost := usage.get("cost"), dict) and "currency" in cost:
        return True
    response_id = response.get("id") or ""
    response_id = response_id if type(response_id) is str else str(response_id)
    return response_id.startswith("resp_") and bool(_UUID.match(response_id[5:]))


def _is_sonar_value(value: dict[str, Any]) -> bool:
    if "citations" in value or "search_results" in value:
        return True
    if value.get("object") in ("chat.reasoning", "chat.reasoning.done", "chat.completion.done"):
        return True
    # Not a bare UUID id alone: DeepSeek's completions have them too (``compatible.py``).
    return str(value.get("model") or "").startswith("sonar")


# --- The APIs -------------------------------------------------------------------------------------

PERPLEXITY = Provider("perplexity", "Perplexity")

register(
    ApiFormat(
        name="perplexity.agent",
        label="Perplexity Agent API",
        provider=PERPLEXITY,
        shape=RESPONSES_SHAPE,
        parser=parse_agent,
        citation_notation=phrase("[n] and [web:n] markers in the text, n being a search result id"),
        marks=_is_agent_value,
    )
)
register(
    ApiFormat(
        name="perplexity.sonar",
        label="Perplexity Sonar",
        provider=PERPLEXITY,
        shape=CHAT_SHAPE,
        parser=parse_sonar,
        citation_notation=phrase("[n] markers in the text, n being a 1-based position in citations"),
        marks=_is_sonar_value,
    )
)
