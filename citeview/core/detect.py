"""Which provider and API produced a dump's values, and which values belong to which response.

Detection reads content, never tool names (``../shared/docs/provider-formats.md`` §5): the same
SDK can talk to several providers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from citeview.core.errors import DumpError
from citeview.core.framing import FramedDump
from citeview.core.jsonvalues import dict_or_empty, dicts_in
from citeview.core.phrases import Phrase, phrase

API_NAMES = {
    "perplexity.agent": "Perplexity Agent API",
    "perplexity.sonar": "Perplexity Sonar",
    "anthropic.messages": "Anthropic Messages",
    "gemini.generate_content": "Gemini generateContent",
    "gemini.interactions": "Gemini Interactions",
    "openai.responses": "OpenAI Responses",
    "openai.chat_completions": "OpenAI Chat Completions",
}
PROVIDERS = ("perplexity", "anthropic", "gemini", "openai")

# The shape families, each served by one API per provider.
_FAMILY_APIS = {
    "responses": {"perplexity": "perplexity.agent", "openai": "openai.responses"},
    "chat": {"perplexity": "perplexity.sonar", "openai": "openai.chat_completions"},
    "messages": {"anthropic": "anthropic.messages"},
    "gemini": {"gemini": "gemini.generate_content"},
    "interactions": {"gemini": "gemini.interactions"},
}
_ANTHROPIC_EVENTS = {
    "message_start",
    "message_delta",
    "message_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "ping",
}
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


@dataclass
class ResponseValues:
    """The values (one object, or a stream's events) that make up one response."""

    family: str
    streamed: bool
    values: list[dict[str, Any]]
    api: str = ""
    ignored: int = 0  # values of no known shape that no stream around them could take
    # What the stream has shown so far, kept up to date as values are added: looking through every
    # earlier value for each new one made long streams (tens of thousands of events) quadratic.
    ended: bool = False  # a terminal event (response.completed, ...) was seen
    finished: bool = False  # a finish reason was seen (chat, Gemini)
    response_ids: set[str] = field(default_factory=set)
    start_events: set[str] = field(default_factory=set)
    last_message_text: str = ""

    def add(self, value: dict[str, Any]) -> None:
        # Called for every event of a stream: only what the family's _starts_new_response asks is kept.
        self.values.append(value)
        kind = value.get("type")
        if isinstance(kind, str):
            if kind in _TERMINAL_EVENTS:
                self.ended = True
            elif kind in ("response.created", "message_start"):
                self.start_events.add(kind)
        if self.family == "responses":
            if response_id := _event_response_id(value):
                self.response_ids.add(response_id)
        elif self.family == "chat":
            self.finished = self.finished or bool(_finish_reason(value))
            self.last_message_text = _message_text(value) or self.last_message_text
        elif self.family == "gemini":
            if response_id := _gemini_response_id(value):
                self.response_ids.add(response_id)
            self.finished = self.finished or any(_gemini_field(c, "finishReason") for c in _gemini_candidates(value))


def split_responses(dump: FramedDump, provider: str | None = None) -> list[ResponseValues]:
    groups, ignored = _group(dump)
    if not groups:
        raise DumpError(
            "unknown_provider",
            _unknown_shape(dump.values),
        )
    groups[0].ignored = ignored
    for group in groups:
        group.api = _api_for(group, provider)
    # A stream piece with no provider's mark of its own (deltas after a cut) belongs with its neighbours.
    marked = {g.family: g.api for g in groups if _has_provider_mark(g)}
    for group in groups:
        if provider is None and not _has_provider_mark(group) and group.family in marked:
            group.api = marked[group.family]
    return groups


def _group(dump: FramedDump) -> tuple[list[ResponseValues], int]:
    groups: list[ResponseValues] = []
    current: ResponseValues | None = None
    waiting: list[dict[str, Any]] = []  # values of no known shape before any stream: the next stream takes them
    outside = 0
    for value in dump.values:
        if not isinstance(value, dict):
            outside += 1  # a bare number, string or list in a stream is no event of any provider
            continue
        family, shape = _family_of(value)
        if family is None:
            # A ping, an error or an unknown event belongs to the stream around it; its parser reports it.
            (current.values if current is not None else waiting).append(value)
            continue
        if shape == "whole" or (shape == "chunk" and dump.framing == "json"):
            groups.append(ResponseValues(family, False, [value]))
            current = None
            continue
        if current is None or current.family != family or _starts_new_response(current, value):
            current = ResponseValues(family, True, [])
            for earlier in waiting:
                current.add(earlier)
            waiting = []
            groups.append(current)
        current.add(value)
    for group in groups:
        if group.family == "chat" and len(group.values) == 1 and _is_whole_completion(group.values[0]):
            group.streamed = False
    return groups, len(waiting) + outside


def _family_of(value: Any) -> tuple[str | None, str]:
    """The shape family of one value, and its shape: ``event`` of a stream, ``whole`` response, or a
    chat ``chunk`` (a whole response when it stands alone)."""
    if not isinstance(value, dict):
        return None, "unknown"
    kind = value.get("type") if isinstance(value.get("type"), str) else None
    if kind in ("error", "ping"):
        return None, "neutral"
    if isinstance(kind, str) and kind.startswith("response."):
        return "responses", "event"
    if value.get("object") == "response" and "output" in value:
        return "responses", "whole"
    if "choices" in value:
        return "chat", "chunk"
    if kind in _ANTHROPIC_EVENTS:
        return "messages", "event"
    if kind == "message" and value.get("role") == "assistant":
        return "messages", "whole"
    if "candidates" in value or "usageMetadata" in value or "usage_metadata" in value:
        return "gemini", "chunk"
    if isinstance(value.get("event_type"), str) and value["event_type"].startswith(("interaction.", "content.")):
        return "interactions", "event"
    if "steps" in value or ("outputs" in value and "status" in value):
        return "interactions", "whole"
    return None, "unknown"


_TERMINAL_EVENTS = {"response.completed", "response.failed", "response.incomplete"}


def _starts_new_response(group: ResponseValues, value: dict[str, Any]) -> bool:
    if group.family == "responses":
        if group.ended:
            return True  # nothing of a response comes after its end
        new_id = _event_response_id(value)
        if new_id is not None and group.response_ids and new_id not in group.response_ids:
            return True
        return value.get("type") == "response.created" and "response.created" in group.start_events
    if group.family == "chat":
        return _starts_new_chat_response(group, value)
    if group.family == "messages":
        return value.get("type") == "message_start" and "message_start" in group.start_events
    if group.family == "gemini":
        return _starts_new_gemini_response(group, value)
    return False


def _starts_new_gemini_response(group: ResponseValues, value: dict[str, Any]) -> bool:
    """A new responseId starts a new response; without ids, text after a finished chunk does."""
    new_id = _gemini_response_id(value)
    if new_id and group.response_ids:
        return new_id not in group.response_ids
    finished = group.finished
    has_text = any(
        isinstance(p, dict) and p.get("text")
        for c in _gemini_candidates(value)
        for p in (_gemini_field(_gemini_field(c, "content") or {}, "parts") or [])
    )
    return finished and has_text


def _gemini_field(value: Any, camel: str) -> Any:
    if not isinstance(value, dict):
        return None
    found = value.get(camel)
    return found if found is not None else value.get(_snake_case(camel))


@cache
def _snake_case(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def _gemini_response_id(value: dict[str, Any]) -> str | None:
    found = _gemini_field(value, "responseId")
    return found if isinstance(found, str) else None


def _gemini_candidates(value: dict[str, Any]) -> list[dict[str, Any]]:
    found = _gemini_field(value, "candidates")
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def _event_response_id(event: dict[str, Any]) -> str | None:
    inner = event.get("response")
    return inner.get("id") if isinstance(inner, dict) and isinstance(inner.get("id"), str) else None


def _starts_new_chat_response(group: ResponseValues, value: dict[str, Any]) -> bool:
    if value.get("id") == group.values[-1].get("id"):
        return group.finished and _is_whole_completion(value)
    # Recorders redact ids unevenly: a chunk whose accumulated text extends the stream's continues it.
    so_far = group.last_message_text
    text = _message_text(value)
    return not (so_far and text and text.startswith(so_far))


def _first_choice(value: dict[str, Any]) -> dict[str, Any]:
    choices = value.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return first if isinstance(first, dict) else {}


def _finish_reason(value: dict[str, Any]) -> Any:
    return _first_choice(value).get("finish_reason")


def _message_text(value: dict[str, Any]) -> str:
    message = _first_choice(value).get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else ""


def _is_whole_completion(value: dict[str, Any]) -> bool:
    return value.get("object") == "chat.completion" and bool(_finish_reason(value)) and bool(_message_text(value))


def _api_for(group: ResponseValues, provider: str | None) -> str:
    apis = _FAMILY_APIS[group.family]
    if provider in API_NAMES:
        if provider not in apis.values():
            raise DumpError(
                "unknown_provider",
                phrase("This dump does not have the shape of a {api} response.", api=API_NAMES[provider]),
            )
        return provider
    if provider is not None:
        if provider not in apis:
            raise DumpError(
                "unknown_provider",
                phrase("This dump does not have the shape of any {provider} response.", provider=provider),
            )
        return apis[provider]
    if group.family == "responses":
        return "perplexity.agent" if any(_is_perplexity_agent(v) for v in group.values) else "openai.responses"
    if group.family == "chat":
        return "perplexity.sonar" if any(_is_perplexity_sonar(v) for v in group.values) else "openai.chat_completions"
    return next(iter(apis.values()))


def _has_provider_mark(group: ResponseValues) -> bool:
    if group.family == "responses":
        return any(
            _is_perplexity_agent(v) or _event_response_id(v) or v.get("object") == "response" for v in group.values
        )
    if group.family == "chat":
        return any(_is_perplexity_sonar(v) or str(v.get("id", "")).startswith("chatcmpl-") for v in group.values)
    return True


def _is_perplexity_agent(value: dict[str, Any]) -> bool:
    if str(value.get("type", "")).startswith("response.reasoning."):
        return True
    response = dict_or_empty(value.get("response")) or value
    if any(i.get("type") in ("search_results", "fetch_url_results") for i in dicts_in(response.get("output"))):
        return True
    if "currency" in dict_or_empty(dict_or_empty(response.get("usage")).get("cost")):
        return True
    response_id = str(response.get("id") or "")
    return response_id.startswith("resp_") and bool(_UUID.match(response_id[5:]))


def _is_perplexity_sonar(value: dict[str, Any]) -> bool:
    if "citations" in value or "search_results" in value:
        return True
    if value.get("object") in ("chat.reasoning", "chat.reasoning.done", "chat.completion.done"):
        return True
    return bool(_UUID.match(str(value.get("id") or ""))) or str(value.get("model") or "").startswith("sonar")


def _unknown_shape(values: list[Any]) -> Phrase:
    first = values[0] if values else None
    if isinstance(first, dict) and first:
        return phrase(
            "This JSON is not a response from a provider citeview knows (Perplexity, Claude, Gemini, "
            "OpenAI); its first object has the keys {keys}.",
            keys=", ".join(sorted(str(k) for k in first)[:6]),
        )
    return phrase("This JSON is not a response from a provider citeview knows (Perplexity, Claude, Gemini, OpenAI).")
