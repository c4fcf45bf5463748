"""Mistral: Chat Completions (``mistral.chat_completions``) and Conversations (``mistral.conversations``).

Neither API has offsets (``../shared/docs/provider-formats.md`` §7): a citation is a chunk of the
content list that follows the text it supports, so its place is where it stands. Chat's
``reference`` chunks name keys of the JSON object the caller's own tool returned: they resolve only
against the request (its ``tool`` messages), so without it they stay unresolved where they stand.
Conversations' ``tool_reference`` chunks carry their source with them.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from citeview.core.common.model import Citation, Diagnostic, Marker, ReasoningText, Response, SearchBatch
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.detection.registry import NEITHER, ApiFormat, Decision, Provider, Shape, ValueKind, register
from citeview.core.framing import loads_strict
from citeview.core.parsing.citing import note_unknown_event_types
from citeview.core.parsing.jsonvalues import dict_or_empty, dicts_in, str_or_none
from citeview.core.parsing.providers._openai_shapes import CHAT_SHAPE
from citeview.core.parsing.sources import SourceTable

# Chunks of the SDK's content union that are not text: kept in the raw dump, not shown.
_NOT_TEXT_CHUNKS = {"image_url", "document_url", "file", "input_audio", "audio", "image"}
_SNIPPET_JOINER = "\n\n…\n\n"
# Where an unresolved reference's claim starts, kept in its diagnostic for the request check.
_CLAIM_START = "claim_start"
_SEARCH_TOOLS = {"web_search", "web_search_premium", "news_search"}


# --- Content: text with citation chunks between it ------------------------------------------------


@dataclass
class _Reference:
    """A ``reference`` chunk: the ids it names and the text before it that it supports."""

    ids: list[str]
    claim_start: int
    position: int


@dataclass
class _Placed:
    """A citation whose source is known where it stands (a ``tool_reference``)."""

    key: str
    claim_start: int
    position: int


@dataclass
class _Content:
    """One text with the citation chunks standing in it. Each citation covers the text since the
    citation before it (or since the start); one right after another covers the same text."""

    table: SourceTable
    pieces: list[str] = field(default_factory=list)
    length: int = 0
    claim_start: int = 0
    after_citation: bool = False
    references: list[_Reference] = field(default_factory=list)
    placed: list[_Placed] = field(default_factory=list)
    empty_references: list[int] = field(default_factory=list)
    invalid_ids: int = 0
    unshown: dict[str, bool] = field(default_factory=dict)  # chunk type -> whether citeview knows it

    def add_text(self, text: str) -> None:
        if not text:
            return
        if self.after_citation:
            self.claim_start = self.length
            self.after_citation = False
        self.pieces.append(text)
        self.length += len(text)

    def new_paragraph(self) -> None:
        """Another output entry starts: a paragraph of its own, whose citations cover only it."""
        if self.length:
            self.pieces.append("\n\n")
            self.length += 2
        self.claim_start = self.length
        self.after_citation = False

    def add_chunk(self, chunk: dict[str, Any]) -> None:
        kind = chunk.get("type")
        if kind == "text":
            self.add_text(str_or_none(chunk.get("text")) or "")
        elif kind == "reference":
            self._reference(chunk.get("reference_ids"))
        elif kind == "tool_reference":
            self._tool_reference(chunk)
        elif isinstance(kind, str) and kind in _NOT_TEXT_CHUNKS:
            self.unshown.setdefault(kind, True)
        else:
            self.unshown.setdefault(str(kind) if kind is not None else "(no type)", False)

    def _reference(self, raw_ids: Any) -> None:
        names: dict[str, None] = {}  # each id once, in order
        for raw in raw_ids if isinstance(raw_ids, list) else [raw_ids]:
            name = _reference_id(raw)
            if name is None:
                self.invalid_ids += 1
            else:
                names[name] = None
        if names:
            self.references.append(_Reference(list(names), self.claim_start, self.length))
        elif isinstance(raw_ids, list) and not raw_ids:
            self.empty_references.append(self.length)
        self.after_citation = True

    def _tool_reference(self, chunk: dict[str, Any]) -> None:
        url = str_or_none(chunk.get("url")) or None
        title = str_or_none(chunk.get("title")) or None
        tool = str_or_none(chunk.get("tool"))
        description = str_or_none(chunk.get("description")) or None
        extra = {
            "tool": tool,
            "favicon": str_or_none(chunk.get("favicon")),
            "snippet": description,
            "snippet_kind": "search_snippet" if description else None,
        }
        # A library's reference is a document of the caller's; every other tool's is a page.
        kind = "document" if tool == "document_library" else "web"
        key = self.table.add(url or title or "tool_reference", kind=kind, url=url, title=title, extra=extra)
        self.placed.append(_Placed(key, self.claim_start, self.length))
        self.after_citation = True

    @property
    def text(self) -> str:
        return "".join(self.pieces)


def _reference_id(raw: Any) -> str | None:
    """The key a reference id names: ``0``, ``0.0`` and ``"0"`` all name ``"0"``."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, int):
        return str(raw)
    if isinstance(raw, str) and raw.strip():
        return raw.strip()
    return None


@dataclass
class _Thinking:
    """The model's thinking, one block per run of ``thinking`` chunks: a text chunk ends a block."""

    table: SourceTable
    blocks: list[_Content] = field(default_factory=list)
    open: bool = False

    def add(self, inner: Any) -> None:
        if not self.open:
            self.blocks.append(_Content(self.table))
            self.open = True
        block = self.blocks[-1]
        for chunk in inner if isinstance(inner, list) else [inner]:
            if isinstance(chunk, str):
                block.add_text(chunk)
            elif isinstance(chunk, dict):
                block.add_chunk(chunk)

    def close(self) -> None:
        self.open = False


def _read_chunks(content: _Content, thinking: _Thinking, chunks: list[Any]) -> None:
    for chunk in chunks:
        if isinstance(chunk, dict) and chunk.get("type") == "thinking":
            thinking.add(chunk.get("thinking"))
            continue
        if chunk in ("", _EMPTY_TEXT):
            continue  # a stream's empty delta neither ends the thinking nor adds to the answer
        thinking.close()
        if isinstance(chunk, str):
            content.add_text(chunk)
        elif isinstance(chunk, dict):
            content.add_chunk(chunk)
        else:
            content.unshown.setdefault("(not an object)", False)


_EMPTY_TEXT = {"type": "text", "text": ""}


def _read_content(content: _Content, thinking: _Thinking, value: Any) -> None:
    """``content`` as the APIs send it: a string, a list of chunks, or (a stream event's) one chunk."""
    if isinstance(value, str | dict):
        _read_chunks(content, thinking, [value])
    elif isinstance(value, list):
        _read_chunks(content, thinking, value)


def _finish_content(response: Response, content: _Content, thinking: _Thinking) -> None:
    """The answer, its citations and unresolved references, and the thinking beside it."""
    response.text = content.text
    response.citations += _placed_citations(response.text, content.placed)
    starts = _ClaimStarts(response.text)
    for reference in content.references:
        start = starts.of(reference.claim_start, reference.position)
        for ref in reference.ids:
            response.unresolved.append(Marker("", ref, reference.position, reference.position))
            response.diagnose(
                "unresolved_marker",
                "warning",
                _without_request(ref),
                marker="",
                ref=ref,
                start=reference.position,
                end=reference.position,
                **{_CLAIM_START: start},
            )
    for block in thinking.blocks:
        _finish_thinking(response, block)
    for part in [content, *thinking.blocks]:
        _note_content_problems(response, part)


def _finish_thinking(response: Response, block: _Content) -> None:
    """A block of thinking: reasoning beside the answer. What it cites supports no claim of the answer."""
    index = len(response.reasoning)
    response.reasoning.append(ReasoningText("thinking", block.text, _placed_citations(block.text, block.placed)))
    starts = _ClaimStarts(block.text)
    for reference in block.references:
        start = starts.of(reference.claim_start, reference.position)
        for ref in reference.ids:
            response.diagnose(
                "unresolved_reference",
                "info",
                phrase(
                    "Reference {ref} in the model's thinking names an entry of a tool result this dump does not "
                    "hold; it is not resolved.",
                    ref=ref,
                ),
                ref=ref,
                reasoning=index,
                start=start,
                end=reference.position,
            )


def _placed_citations(text: str, placed: list[_Placed]) -> list[Citation]:
    """One citation per claim: chunks standing one after another cite the same text together."""
    spans: dict[tuple[int, int], dict[str, None]] = {}
    starts = _ClaimStarts(text)
    for chunk in placed:
        spans.setdefault((starts.of(chunk.claim_start, chunk.position), chunk.position), {})[chunk.key] = None
    return [Citation(start, end, list(keys)) for (start, end), keys in spans.items()]


class _ClaimStarts:
    """Where each claim starts, worked out once per claim however many chunks cite it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.known: dict[tuple[int, int], int] = {}

    def of(self, start: int, end: int) -> int:
        found = self.known.get((start, end))
        if found is None:
            found = self.known[(start, end)] = _claim_start(self.text, start, end)
        return found


# What ends the sentence before a citation chunk stands after the chunk ("…Prize", reference, "."):
# it belongs to the claim before, not to the one it starts.
_CLOSING = set(".,;:!?)]」』】）。、，．！？；：")


def _claim_start(text: str, start: int, end: int) -> int:
    """The claim starts at its first character that neither is white space nor closes the one before."""
    while start < end and (text[start].isspace() or text[start] in _CLOSING):
        start += 1
    return start


def _without_request(ref: str) -> Phrase:
    return phrase(
        "Reference {ref} names an entry of the result of a tool the caller ran, which this dump does not "
        "hold; attach the request, with its tool messages, to resolve it.",
        ref=ref,
    )


def _note_content_problems(response: Response, content: _Content) -> None:
    for position in content.empty_references:
        response.diagnose(
            "empty_reference",
            "warning",
            phrase(
                "A reference chunk at character {position} names no source (its reference_ids is empty); "
                "the text before it is shown uncited.",
                position=position,
            ),
            position=position,
        )
    if content.invalid_ids:
        response.diagnose(
            "invalid_reference",
            "warning",
            phrase(
                "{count} reference id(s) are neither a number nor a text, so they name no source.",
                count=content.invalid_ids,
            ),
            count=content.invalid_ids,
        )
    for kind, known in content.unshown.items():
        if known:
            message = phrase(
                "The answer holds a {type} chunk, which citeview does not show; the raw dump keeps it.", type=kind
            )
        else:
            message = phrase(
                "The answer holds a chunk of a type citeview does not know ({type}); it is not shown, and the raw "
                "dump keeps it.",
                type=kind,
            )
        response.diagnose("non_text_content" if known else "unknown_content", "info", message, type=kind)


# --- Chat Completions ---------------------------------------------------------------------------------


def parse_chat(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("mistral", "mistral.chat_completions", streamed)
    table = SourceTable(response)
    content, thinking = _Content(table), _Thinking(table)
    messages: list[Any] = []
    deltas: list[Any] = []
    finish_reason = None
    for chunk in values:
        response.id = response.id or str_or_none(chunk.get("id"))
        response.model = str_or_none(chunk.get("model")) or response.model
        choices = dicts_in(chunk.get("choices"))
        choice = next((c for c in choices if c.get("index", 0) == 0), choices[0] if choices else {})
        message, delta = dict_or_empty(choice.get("message")), dict_or_empty(choice.get("delta"))
        if "content" in message:
            messages.append(message["content"])
        if "content" in delta:
            deltas.append(delta["content"])
        finish_reason = str_or_none(choice.get("finish_reason")) or finish_reason
    # A whole message is the answer; a stream's deltas build it, strings and chunk lists alike.
    for piece in messages[-1:] if messages else deltas:
        _read_content(content, thinking, piece)
    _finish_content(response, content, thinking)
    if finish_reason == "error":
        response.mark_failed(detail=phrase("{field} {reason}", field="finish_reason", reason="error"))
        return response
    why = {
        "length": phrase("the answer was cut off at the token limit"),
        "model_length": phrase("the answer was cut off at the model's context length"),
    }
    response.set_finish(finish_reason, field="finish_reason", completed={"stop", "tool_calls"}, why=why)
    return response


# --- Conversations ----------------------------------------------------------------------------------

_CONVERSATION_EVENTS = {
    "conversation.response.started",
    "conversation.response.done",
    "conversation.response.error",
    "message.output.delta",
    "tool.execution.started",
    "tool.execution.delta",
    "tool.execution.done",
    "function.call.delta",
    "agent.handoff.started",
    "agent.handoff.done",
}
_QUIET_EVENTS = {"tool.execution.done", "function.call.delta", "agent.handoff.started", "agent.handoff.done"}
_QUIET_ENTRIES = {"function.call", "agent.handoff"}


@dataclass
class _ToolCalls:
    """Tool executions by id, their arguments as they arrive, for the queries they ran."""

    names: dict[str, str] = field(default_factory=dict)
    arguments: dict[str, list[str]] = field(default_factory=dict)

    def add(self, call_id: str, name: str | None, arguments: Any) -> None:
        if name:
            self.names.setdefault(call_id, name)
        if isinstance(arguments, str):
            self.arguments.setdefault(call_id, []).append(arguments)

    def searches(self) -> list[SearchBatch]:
        batches = []
        for call_id, name in self.names.items():
            if name not in _SEARCH_TOOLS:
                continue
            query = _query_of("".join(self.arguments.get(call_id, [])))
            if query:
                batches.append(SearchBatch([query], []))
        return batches


def _query_of(arguments: str) -> str | None:
    query = str_or_none(dict_or_empty(_inner_json(arguments)).get("query"))
    return _showable(query) if query else None


def _inner_json(text: str) -> Any:
    """A JSON value written into a string of the dump (tool arguments, a tool's result), or None."""
    try:
        return loads_strict(text)
    except (ValueError, RecursionError):
        return None


_UNSHOWABLE = re.compile("[\x00\ud800-\udfff]")


def _showable(text: str) -> str:
    """JSON inside a string escapes what the dump's reader repaired in the dump itself (half a
    character, a NUL): repaired the same way here, so the text can be shown and stored."""
    return _UNSHOWABLE.sub("\ufffd", text)


def parse_conversation(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("mistral", "mistral.conversations", streamed)
    table = SourceTable(response)
    content, thinking = _Content(table), _Thinking(table)
    calls = _ToolCalls()
    if streamed:
        done, error = _read_conversation_stream(response, content, thinking, calls, values)
    else:
        _read_outputs(response, content, thinking, calls, next(iter(values)))
        done, error = True, None
    _finish_content(response, content, thinking)
    response.searches = calls.searches()
    if error is not None:
        response.mark_failed(error)
    elif done:
        response.status = "completed"
    else:
        response.mark_incomplete(phrase("stream ended without {event}", event="conversation.response.done"))
    return response


def _read_outputs(
    response: Response, content: _Content, thinking: _Thinking, calls: _ToolCalls, body: dict[str, Any]
) -> None:
    response.id = str_or_none(body.get("conversation_id"))
    unknown: dict[str | None, None] = {}  # each type once, in order
    for number, entry in enumerate(dicts_in(body.get("outputs"))):
        kind = entry.get("type")
        if kind == "message.output":
            response.model = str_or_none(entry.get("model")) or response.model
            content.new_paragraph()
            thinking.close()
            _read_content(content, thinking, entry.get("content"))
        elif kind == "tool.execution":
            calls.add(
                str_or_none(entry.get("id")) or f"entry-{number}",
                str_or_none(entry.get("name")),
                entry.get("arguments"),
            )
        elif not (isinstance(kind, str) and kind in _QUIET_ENTRIES):
            unknown[None if kind is None else str(kind)] = None
    for label in unknown:
        shown = phrase("(an output without a type)") if label is None else label
        response.diagnose(
            "unknown_event",
            "info",
            phrase("The response has outputs of a type citeview does not know: {type}.", type=shown),
            type=label,
        )


def _read_conversation_stream(
    response: Response,
    content: _Content,
    thinking: _Thinking,
    calls: _ToolCalls,
    events: Iterable[dict[str, Any]],
) -> tuple[bool, dict[str, Any] | None]:
    done = False
    error: dict[str, Any] | None = None
    entry: tuple[Any, Any] | None = None
    unknown: dict[str | None, None] = {}  # each type once, in order
    for raw in events:
        event = _unwrapped(raw)
        kind = event.get("type")
        if kind == "message.output.delta":  # first: nearly every event of a stream is one
            this_entry = (event.get("output_index"), event.get("id"))
            if this_entry != entry:
                content.new_paragraph()
                thinking.close()
                entry = this_entry
            response.model = str_or_none(event.get("model")) or response.model
            _read_content(content, thinking, event.get("content"))
        elif kind == "conversation.response.started":
            response.id = response.id or str_or_none(event.get("conversation_id"))
        elif kind == "conversation.response.done":
            done = True
        elif kind == "conversation.response.error" or kind == "error":
            error = {"message": event.get("message") or dict_or_empty(event.get("error")).get("message")}
            error["code"] = event.get("code")
        elif kind in ("tool.execution.started", "tool.execution.delta"):
            call_id = str_or_none(event.get("id")) or "tool"
            calls.add(call_id, str_or_none(event.get("name")), event.get("arguments"))
        elif not (isinstance(kind, str) and kind in _QUIET_EVENTS):
            unknown[None if kind is None else str(kind)] = None
    note_unknown_event_types(response, list(unknown))
    return done, error


def _unwrapped(value: dict[str, Any]) -> dict[str, Any]:
    """The SDK's dumped events, ``{"event": name, "data": {...}}``, are the data with its name."""
    data = value.get("data")
    if isinstance(data, dict) and isinstance(value.get("event"), str) and "type" not in value:
        return {"type": value["event"], **data}
    return value


# --- The request: the tool results reference ids name --------------------------------------------------


@dataclass
class _ToolResults:
    entries: list[tuple[str, Any, str | None]] = field(default_factory=list)  # key, entry, tool name
    messages: int = 0  # tool messages (or function results) in the request


def resolve_references(response: Response, request: dict[str, Any]) -> None:
    """Resolve the response's references against the tool results the request sent back."""
    results = _tool_results(response, request)
    table = SourceTable.of(response)
    for key, entry, tool in results.entries:
        _add_tool_result(table, key, entry, tool)
    known = [key for key, _, _ in results.entries]
    _resolve_answer_references(response, table, results.messages, known)
    _resolve_thinking_references(response, table, results.messages, known)


def _resolve_answer_references(response: Response, table: SourceTable, messages: int, known: list[str]) -> None:
    waiting: dict[tuple[Any, Any], deque[Diagnostic]] = {}  # each unresolved reference's diagnostic
    for diagnostic in response.diagnostics:
        if diagnostic.code == "unresolved_marker" and _CLAIM_START in diagnostic.details:
            where = (diagnostic.details.get("start"), diagnostic.details.get("ref"))
            waiting.setdefault(where, deque()).append(diagnostic)
    resolved: set[int] = set()
    spans: dict[tuple[int, int], dict[str, None]] = {}
    still: list[Marker] = []
    for marker in response.unresolved:
        found = waiting.get((marker.start, marker.ref))
        if marker.marker or not found:
            still.append(marker)
            continue
        diagnostic = found.popleft()
        keys = table.keys_for(marker.ref)
        if not keys:
            diagnostic.message = _not_in_request(marker.ref, messages, known)
            still.append(marker)
            continue
        resolved.add(id(diagnostic))
        span = spans.setdefault((int(diagnostic.details[_CLAIM_START]), marker.end), {})
        span.update(dict.fromkeys(keys))
    response.unresolved = still
    response.diagnostics = [d for d in response.diagnostics if id(d) not in resolved]
    for (start, end), span_keys in spans.items():
        response.citations.append(Citation(start, end, list(span_keys)))


def _resolve_thinking_references(response: Response, table: SourceTable, messages: int, known: list[str]) -> None:
    resolved: set[int] = set()
    spans: dict[tuple[int, int, int], dict[str, None]] = {}  # (reasoning, start, end) -> its sources
    for diagnostic in response.diagnostics:
        if diagnostic.code != "unresolved_reference":
            continue
        ref, index = str(diagnostic.details.get("ref")), diagnostic.details.get("reasoning")
        keys = table.keys_for(ref)
        if not keys or not isinstance(index, int) or not 0 <= index < len(response.reasoning):
            diagnostic.message = _not_in_request(ref, messages, known)
            continue
        where = (index, int(diagnostic.details.get("start") or 0), int(diagnostic.details.get("end") or 0))
        spans.setdefault(where, {}).update(dict.fromkeys(keys))
        resolved.add(id(diagnostic))
    response.diagnostics = [d for d in response.diagnostics if id(d) not in resolved]
    for (index, start, end), keys_of_span in spans.items():
        response.reasoning[index].citations.append(Citation(start, end, list(keys_of_span)))


def _not_in_request(ref: str, messages: int, known: list[str]) -> Phrase:
    if not messages:
        return phrase(
            "Reference {ref} cannot be resolved: the attached request holds no tool result (a message with role "
            "tool) for it to name.",
            ref=ref,
        )
    shown = ", ".join(known[:12]) + (", …" if len(known) > 12 else "")
    return phrase(
        "Reference {ref} names no entry of the tool results in the attached request (their entries are: {keys}).",
        ref=ref,
        keys=shown or phrase("none"),
    )


def _tool_results(response: Response, request: dict[str, Any]) -> _ToolResults:
    """Every entry of every tool result in the request, in order: Chat's ``tool`` messages and
    Conversations' ``function.result`` inputs, each a JSON object keyed by reference id."""
    results = _ToolResults()
    returned: list[tuple[Any, str | None]] = [
        (message.get("content"), str_or_none(message.get("name")))
        for message in dicts_in(request.get("messages"))
        if message.get("role") == "tool"
    ]
    returned += [
        (entry.get("result"), None)
        for entry in dicts_in(request.get("inputs"))
        if entry.get("type") == "function.result"
    ]
    for number, (result, tool) in enumerate(returned, 1):
        results.messages += 1
        value = _tool_value(result)
        if not isinstance(value, dict):
            response.diagnose(
                "tool_result_unreadable",
                "info",
                phrase(
                    "Tool result {number} of the attached request is not a JSON object keyed by reference id; "
                    "references cannot name its entries.",
                    number=number,
                ),
                number=number,
            )
            continue
        results.entries += [(_showable(str(key)), entry, tool) for key, entry in value.items()]
    return results


def _tool_value(result: Any) -> Any:
    """What a tool returned: its content is a JSON string, or text chunks holding one."""
    if isinstance(result, list):
        result = "".join(str_or_none(chunk.get("text")) or "" for chunk in dicts_in(result))
    return _inner_json(result) if isinstance(result, str) else result


def _add_tool_result(table: SourceTable, key: str, entry: Any, tool: str | None) -> None:
    if not isinstance(entry, dict):
        text = entry if isinstance(entry, str) else json.dumps(entry, ensure_ascii=False)
        table.add(
            key, kind="tool", url=None, title=None, extra={"snippet": _showable(text), "snippet_kind": "tool_output"}
        )
        return
    url = str_or_none(entry.get("url")) or None
    title = str_or_none(entry.get("title"))
    description = str_or_none(entry.get("description"))
    snippet = _SNIPPET_JOINER.join(_texts(entry.get("snippets"))) or description
    extra = {
        "snippet": snippet,
        # What the caller's own tool returned, and so exactly what the model was given to cite: shown
        # beside each claim citing it (a web search tool's too; Mistral's own connector is another matter).
        "snippet_kind": "tool_output" if snippet else None,
        "description": description if snippet != description else None,
        "date": entry.get("date"),
        "source": entry.get("source"),
        "tool": tool,
    }
    extra = {name: _showable(value) if isinstance(value, str) else value for name, value in extra.items()}
    table.add(
        key,
        kind="web" if url else "tool",
        url=_showable(url) if url else None,
        title=_showable(title) if title else None,
        extra=extra,
    )


def _texts(value: Any, depth: int = 0) -> list[str]:
    """The strings of ``snippets``: a string, a list of them, or a list of lists (Mistral's example)."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list) and depth < 2:
        return [text for item in value for text in _texts(item, depth + 1)]
    return []


# --- Detection: Chat answers in OpenAI's chat shape, with marks of its own ------------------------

_MODEL_FAMILIES = (
    "mistral",
    "magistral",
    "ministral",
    "codestral",
    "devstral",
    "pixtral",
    "mixtral",
    "open-mistral",
    "open-mixtral",
    "voxtral",
)
_MISTRAL_ID = re.compile(r"^[0-9a-f]{32}$")
_CHUNK_TYPES = {"text", "reference", "thinking", "tool_reference", *_NOT_TEXT_CHUNKS}


def _is_chat_value(value: dict[str, Any]) -> bool:
    """Mistral's values: its model names (not another host's ``mistralai/…``), its ids (32 hex digits,
    never ``chatcmpl-``), or a content list of its typed chunks, which OpenAI never answers with."""
    value_id = value.get("id")
    if isinstance(value_id, str) and value_id.startswith("chatcmpl-"):
        return False
    model = value.get("model")
    if isinstance(model, str) and "/" not in model and model.lower().startswith(_MODEL_FAMILIES):
        return True
    if isinstance(value_id, str) and _MISTRAL_ID.match(value_id):
        return True
    choices = value.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    if not isinstance(first, dict):
        return False
    for holder in (first.get("message"), first.get("delta")):
        content = holder.get("content") if isinstance(holder, dict) else None
        if isinstance(content, list) and any(
            isinstance(chunk, dict) and str(chunk.get("type")) in _CHUNK_TYPES for chunk in content
        ):
            return True
    return False


def _decide_conversation(kind: str | None, keys: frozenset[str]) -> Decision | None:
    if kind is not None and (kind in _CONVERSATION_EVENTS or kind.startswith("conversation.response.")):
        return "event"
    return None if "object" in keys or ("event" in keys and "data" in keys) or "outputs" in keys else NEITHER


def _conversation_value(value: dict[str, Any]) -> ValueKind | None:
    kind = value.get("type")
    if isinstance(kind, str) and (kind in _CONVERSATION_EVENTS or kind.startswith("conversation.response.")):
        return "event"
    if value.get("object") == "conversation.response":
        return "whole"
    if (
        isinstance(value.get("event"), str)
        and value["event"] in _CONVERSATION_EVENTS
        and isinstance(value.get("data"), dict)
    ):
        return "event"
    if any(entry.get("object") == "entry" for entry in dicts_in(value.get("outputs"))):
        return "whole"
    return None


class _ConversationStream:
    """A conversation stream ends at its done or error event; a second ``started`` starts the next."""

    def __init__(self) -> None:
        self.started = False
        self.ended = False

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        kind = _unwrapped(value).get("type")
        return kind == "conversation.response.started" and (self.started or self.ended)

    def add(self, value: dict[str, Any]) -> None:
        kind = _unwrapped(value).get("type")
        self.started = self.started or kind == "conversation.response.started"
        self.ended = self.ended or kind in ("conversation.response.done", "conversation.response.error")


# --- The APIs -------------------------------------------------------------------------------------

MISTRAL = Provider("mistral", "Mistral")

register(
    ApiFormat(
        name="mistral.chat_completions",
        label="Mistral Chat Completions",
        provider=MISTRAL,
        shape=CHAT_SHAPE,
        parser=parse_chat,
        citation_notation=phrase(
            "reference chunks after the text they support, naming keys of the caller's tool result"
        ),
        marks=_is_chat_value,
        priority=50,  # after Perplexity, whose marks are surer; before OpenAI, the shape's fallback
        request_check=resolve_references,
    )
)
register(
    ApiFormat(
        name="mistral.conversations",
        label="Mistral Conversations",
        provider=MISTRAL,
        # Before Gemini Interactions (50), which also has `outputs`.
        shape=Shape(
            name="conversations",
            priority=45,
            recognise=_conversation_value,
            new_splitter=_ConversationStream,
            decide=_decide_conversation,
        ),
        parser=parse_conversation,
        citation_notation=phrase("tool_reference chunks after the text they support, each carrying its source"),
        request_check=resolve_references,
    )
)
