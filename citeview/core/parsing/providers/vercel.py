"""The Vercel AI SDK's exports: ``UIMessage`` objects (``vercel.ui_messages``) and the UI message
stream (``vercel.ui_message_stream``), ``../shared/docs/provider-formats.md`` §9A.

Neither is a provider's response, and both lose the citations' places: a source is a part of the
message beside its text parts, with nothing to say which sentence cites it. Every source is listed
as cited without a position, never placed at a guessed one; what a provider's metadata keeps of
the citation (Claude's cited text) stays with the source.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from citeview.core.common.model import ReasoningText, Response
from citeview.core.common.phrases import phrase
from citeview.core.detection.registry import NEITHER, ApiFormat, Decision, Provider, Shape, ValueKind, register
from citeview.core.parsing.citing import note_unknown_event_types
from citeview.core.parsing.jsonvalues import dict_or_empty, dicts_in, str_or_none
from citeview.core.parsing.sources import SourceTable

_SNIPPET_JOINER = "\n\n…\n\n"
_OPAQUE_FIELDS = {"encrypted_index", "encryptedIndex"}  # meaningful to the provider only
_ROLES = {"user", "assistant", "system"}
# Stream chunks that carry nothing citeview shows (tool calls, files, app data are in the raw dump).
_QUIET_CHUNKS = {
    "text-end",
    "reasoning-end",
    "tool-input-start",
    "tool-input-delta",
    "tool-input-available",
    "tool-input-error",
    "tool-output-available",
    "tool-output-error",
    "tool-output-denied",
    "tool-approval-request",
    "file",
    "message-metadata",
    "finish-step",
}
_STREAM_CHUNKS = {
    *_QUIET_CHUNKS,
    "start",
    "finish",
    "abort",
    "start-step",
    "text-start",
    "text-delta",
    "reasoning-start",
    "reasoning-delta",
    "source-url",
    "source-document",
}
# Parts of a UIMessage that carry nothing citeview shows.
_QUIET_PARTS = {"step-start", "file", "dynamic-tool"}


@dataclass
class _Message:
    """What one assistant message says: its text by part, its reasoning, its sources in order."""

    response: Response
    table: SourceTable
    steps: list[list[str]] = field(default_factory=lambda: [[]])  # text parts, per step
    reasoning: list[str] = field(default_factory=list)
    unknown: dict[str | None, None] = field(default_factory=dict)  # part or chunk types, once each
    quotes: dict[str, dict[str, None]] = field(default_factory=dict)  # source key -> its quoted texts, once each
    quote_kinds: dict[str, str] = field(default_factory=dict)
    cited: dict[str, None] = field(default_factory=dict)  # source keys, in order

    def new_step(self) -> None:
        if self.steps[-1]:
            self.steps.append([])

    def add_source(self, part: dict[str, Any]) -> None:
        kind = part.get("type")
        metadata = _provenance(part)
        quote = metadata.pop("cited_text", None)
        if kind == "source-url":
            url = str_or_none(part.get("url")) or None
            key = str_or_none(part.get("sourceId")) or url or f"source-{len(self.response.sources) + 1}"
            stored = self.table.add(key, kind="web", url=url, title=str_or_none(part.get("title")), extra=metadata)
        else:
            title = str_or_none(part.get("title"))
            key = str_or_none(part.get("sourceId")) or title or f"source-{len(self.response.sources) + 1}"
            extra = {
                "filename": str_or_none(part.get("filename")),
                "media_type": str_or_none(part.get("mediaType")),
                **metadata,
            }
            stored = self.table.add(key, kind="document", url=None, title=title, extra=extra)
        if quote:
            self.quotes.setdefault(stored, {})[quote] = None
            self.quote_kinds[stored] = "document_text" if kind == "source-document" else "retrieved_passage"
        self.cited[stored] = None

    def note_unknown(self, kind: Any) -> None:
        self.unknown[None if kind is None else str(kind)] = None

    def finish(self) -> None:
        for key, quotes in self.quotes.items():
            # Each citation's quote, every distinct one: shown as the evidence the source was cited for.
            source = self.table.get(key)
            source.extra["cited_text"] = source.extra["snippet"] = _SNIPPET_JOINER.join(quotes)
            source.extra["snippet_kind"] = self.quote_kinds[key]
        self.response.cited_without_position = list(self.cited)
        paragraphs = ["".join(step) for step in self.steps]
        self.response.text = "\n\n".join(p for p in paragraphs if p)
        for text in self.reasoning:
            if text:
                self.response.reasoning.append(ReasoningText("thinking", text))
        if self.response.cited_without_position:
            self.response.diagnose(
                "no_positions",
                "info",
                phrase(
                    "The Vercel AI SDK keeps sources apart from the text: which sentence cites which source is not "
                    "recorded, so the {count} source(s) are listed as cited, without a place in the answer.",
                    count=len(self.response.cited_without_position),
                ),
                count=len(self.response.cited_without_position),
            )


def _provenance(part: dict[str, Any]) -> dict[str, Any]:
    """What a provider's metadata says of the citation: its quoted text and scalar fields, by name
    (what only repeats the part's own URL or title left out). Providers file theirs under their own
    key (``{"anthropic": {...}}``)."""
    found: dict[str, Any] = {}
    for provider, values in dict_or_empty(part.get("providerMetadata")).items():
        for name, value in dict_or_empty(values).items():
            if name in ("citedText", "cited_text") and isinstance(value, str):
                found.setdefault("cited_text", value)
            elif name in ("url", "title") and value == part.get(name):
                continue
            elif isinstance(value, str | int | float) and name not in _OPAQUE_FIELDS:
                found.setdefault(f"{provider}.{name}", value)
    return found


# --- UIMessage -----------------------------------------------------------------------------------------


def parse_ui_messages(values: Iterable[dict[str, Any]], streamed: bool) -> list[Response]:
    responses = []
    for value in values:
        if value.get("role") != "assistant":
            continue  # what the user or the system said is no answer
        responses.append(_read_ui_message(value))
    if responses:
        return responses
    response = Response("vercel", "vercel.ui_messages", False)
    response.mark_incomplete(phrase("the dump holds no {role} message", role="assistant"))
    return [response]


def _read_ui_message(value: dict[str, Any]) -> Response:
    response = Response("vercel", "vercel.ui_messages", False, id=str_or_none(value.get("id")))
    response.model = str_or_none(dict_or_empty(value.get("metadata")).get("model"))
    message = _Message(response, SourceTable(response))
    still_streaming = False
    for part in dicts_in(value.get("parts")):
        kind = part.get("type")
        if kind == "text":
            message.steps[-1].append(str_or_none(part.get("text")) or "")
            still_streaming = still_streaming or part.get("state") == "streaming"
        elif kind == "reasoning":
            message.reasoning.append(str_or_none(part.get("text")) or "")
        elif kind in ("source-url", "source-document"):
            message.add_source(part)
        elif kind == "step-start":
            message.new_step()
        elif isinstance(kind, str) and (kind.startswith(("tool-", "data-")) or kind in _QUIET_PARTS):
            continue
        else:
            message.note_unknown(kind)
    message.finish()
    for label in message.unknown:
        shown = phrase("(a part without a type)") if label is None else label
        response.diagnose(
            "unknown_event",
            "info",
            phrase("The message has parts of a type citeview does not know: {type}.", type=shown),
            type=label,
        )
    if still_streaming:
        response.mark_incomplete(phrase("a text part is still streaming (state streaming)"))
    else:
        response.status = "completed"
    return response


# --- The UI message stream -------------------------------------------------------------------------------


def parse_ui_message_stream(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("vercel", "vercel.ui_message_stream", streamed)
    message = _Message(response, SourceTable(response))
    texts: dict[str, list[str]] = {}  # text part id -> its deltas, in the order the parts began
    reasoning: dict[str, list[str]] = {}
    step: dict[str, int] = {}  # text part id -> the step it belongs to
    steps_with_text: set[int] = set()  # the steps a text part began in
    ended: str | None = None  # "finish" or "abort"
    finish_reason = abort_reason = None
    errors: list[str] = []
    for chunk in values:
        kind = chunk.get("type")
        part_id = str(chunk.get("id"))
        if kind == "text-delta":  # first: nearly every chunk of a stream is one
            if part_id not in texts:
                steps_with_text.add(_begin_text(message, texts, step, part_id))
            texts[part_id].append(str_or_none(chunk.get("delta")) or "")
        elif kind == "text-start":
            if part_id not in texts:
                steps_with_text.add(_begin_text(message, texts, step, part_id))
        elif kind == "reasoning-delta":
            reasoning.setdefault(part_id, []).append(str_or_none(chunk.get("delta")) or "")
        elif kind == "reasoning-start":
            reasoning.setdefault(part_id, [])
        elif kind in ("source-url", "source-document"):
            message.add_source(chunk)
        elif kind == "start":
            response.id = response.id or str_or_none(chunk.get("messageId"))
        elif kind == "start-step":
            if len(message.steps) - 1 in steps_with_text:  # a step after one with text: a new paragraph
                message.steps.append([])  # (a step's text is joined once the stream is read: none has any yet)
        elif kind == "finish":
            ended, finish_reason = "finish", str_or_none(chunk.get("finishReason"))
        elif kind == "abort":
            ended, abort_reason = "abort", str_or_none(chunk.get("reason"))
        elif kind == "error":
            errors.append(str_or_none(chunk.get("errorText")) or "")
        elif not (isinstance(kind, str) and (kind in _QUIET_CHUNKS or kind.startswith("data-"))):
            message.note_unknown(kind)
    for part_id, deltas in texts.items():
        message.steps[step[part_id]].append("".join(deltas))
    message.reasoning = ["".join(deltas) for deltas in reasoning.values()]
    message.finish()
    note_unknown_event_types(response, list(message.unknown))
    _set_stream_status(response, ended, finish_reason, abort_reason, errors)
    return response


def _begin_text(message: _Message, texts: dict[str, list[str]], step: dict[str, int], part_id: str) -> int:
    """A text part begins in the current step; returns that step."""
    texts[part_id] = []
    step[part_id] = len(message.steps) - 1
    return step[part_id]


def _set_stream_status(
    response: Response, ended: str | None, finish_reason: str | None, abort_reason: str | None, errors: list[str]
) -> None:
    if errors:
        response.mark_failed({"message": errors[-1]} if errors[-1] else None)
    elif ended == "abort":
        detail = phrase("the stream was aborted ({reason})", reason=abort_reason) if abort_reason else None
        response.mark_incomplete(detail or phrase("the stream was aborted"))
    elif ended is None:
        response.mark_incomplete(phrase("stream ended without {event}", event="finish"))
    elif finish_reason == "error":
        response.mark_failed(detail=phrase("{field} {reason}", field="finishReason", reason="error"))
    else:
        why = {
            "length": phrase("the answer was cut off at the token limit"),
            "content-filter": phrase("the content filter stopped it"),
        }
        # A finish without a reason is a finish: the SDK sends none when the provider gave none.
        reason = finish_reason or "stop"
        response.set_finish(reason, field="finishReason", completed={"stop", "tool-calls"}, why=why)


# --- Detection -----------------------------------------------------------------------------------------


def _ui_message_value(value: dict[str, Any]) -> ValueKind | None:
    """A UIMessage: a role and parts of typed objects (Gemini's `parts` have no `type`)."""
    parts = value.get("parts")
    if str(value.get("role")) not in _ROLES or not isinstance(parts, list):
        return None
    if parts and not any(isinstance(p, dict) and isinstance(p.get("type"), str) for p in parts):
        return None
    return "event"  # the messages of a conversation are read together: only the assistant's are answers


def _decide_stream(kind: str | None, keys: frozenset[str]) -> Decision | None:
    if kind is not None and (kind in _STREAM_CHUNKS or (kind.startswith("data-") and "data" in keys)):
        return "event"
    return NEITHER


def _decide_ui_message(kind: str | None, keys: frozenset[str]) -> Decision | None:
    return None if "parts" in keys else NEITHER


def _stream_value(value: dict[str, Any]) -> ValueKind | None:
    kind = value.get("type")
    if not isinstance(kind, str):
        return None
    if kind in _STREAM_CHUNKS or (kind.startswith("data-") and "data" in value):
        return "event"
    return None


def _alone(value: dict[str, Any]) -> bool:
    return True


class _UiStream:
    """A stream holds one message; a ``start`` after its ``finish`` (or abort) begins the next."""

    def __init__(self) -> None:
        self.ended = False

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        return self.ended and value.get("type") == "start"

    def add(self, value: dict[str, Any]) -> None:
        if value.get("type") in ("finish", "abort"):
            self.ended = True
        elif value.get("type") == "start":
            self.ended = False


# --- The APIs -------------------------------------------------------------------------------------

VERCEL = Provider("vercel", "Vercel AI SDK")
_NOTATION = phrase("source-url and source-document parts beside the text, with no position in it")

register(
    ApiFormat(
        name="vercel.ui_messages",
        label="Vercel AI SDK UIMessage",
        provider=VERCEL,
        shape=Shape(
            name="ui_messages",
            priority=61,
            recognise=_ui_message_value,
            whole_when_alone=_alone,
            decide=_decide_ui_message,
        ),
        parser=parse_ui_messages,
        citation_notation=_NOTATION,
    )
)
register(
    ApiFormat(
        name="vercel.ui_message_stream",
        label="Vercel AI SDK UI message stream",
        provider=VERCEL,
        shape=Shape(
            name="ui_message_stream",
            priority=60,
            recognise=_stream_value,
            new_splitter=_UiStream,
            decide=_decide_stream,
        ),
        parser=parse_ui_message_stream,
        citation_notation=_NOTATION,
    )
)
