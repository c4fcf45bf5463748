"""Which provider and API produced a dump's values, and which values belong to which response.

Detection reads content, never tool names (``../shared/docs/provider-formats.md`` §5): the same
SDK can talk to several providers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from citeview.core.errors import DumpError
from citeview.core.framing import FramedDump

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


def split_responses(dump: FramedDump, provider: str | None = None) -> list[ResponseValues]:
    groups = _group(dump)
    if not groups:
        raise DumpError(
            "unknown_provider",
            "This JSON is not a response from a provider citeview knows (Perplexity, Claude, Gemini, "
            f"OpenAI){_keys_hint(dump.values)}.",
        )
    for group in groups:
        group.api = _api_for(group, provider)
    return groups


def _group(dump: FramedDump) -> list[ResponseValues]:
    groups: list[ResponseValues] = []
    current: ResponseValues | None = None
    one_object = dump.framing == "json"
    for value in dump.values:
        family, is_event = _family_of(value)
        if family is None:
            continue  # the parser of the surrounding stream reports what it does not know
        if value.get("type") == "error" and current is not None:
            current.values.append(value)  # an error event ends the stream it interrupts, whatever its API
            continue
        if not is_event or one_object:
            groups.append(ResponseValues(family, False, [value]))
            current = None
            continue
        if current is None or current.family != family or _starts_new_response(current, value):
            current = ResponseValues(family, True, [])
            groups.append(current)
        current.values.append(value)
    return groups


def _family_of(value: Any) -> tuple[str | None, bool]:
    """The shape family of one value, and whether it is a stream event (rather than a whole response)."""
    if not isinstance(value, dict):
        return None, False
    kind = value.get("type")
    if isinstance(kind, str) and (kind.startswith("response.") or kind == "error"):
        return "responses", True
    if value.get("object") == "response" and "output" in value:
        return "responses", False
    if "choices" in value:
        # One chat object alone is a whole response; in an array, stream or JSONL, a chunk.
        return "chat", True
    if kind in _ANTHROPIC_EVENTS or kind == "error":
        return "messages", True
    if kind == "message" and value.get("role") == "assistant":
        return "messages", False
    if "candidates" in value or "usageMetadata" in value or "usage_metadata" in value:
        return "gemini", True
    if isinstance(value.get("event_type"), str) and value["event_type"].startswith(("interaction.", "content.")):
        return "interactions", True
    if "steps" in value or ("outputs" in value and "status" in value):
        return "interactions", False
    return None, False


def _starts_new_response(group: ResponseValues, value: dict[str, Any]) -> bool:
    if group.family == "responses":
        return value.get("type") == "response.created" and any(
            v.get("type") == "response.created" for v in group.values
        )
    if group.family == "chat":
        # Recorders redact ids unevenly, so a new id alone does not end a response: a finished one does.
        finished = any(
            c.get("finish_reason") for v in group.values for c in v.get("choices") or [] if isinstance(c, dict)
        )
        return finished and value.get("id") != group.values[-1].get("id")
    if group.family == "messages":
        return value.get("type") == "message_start" and any(v.get("type") == "message_start" for v in group.values)
    return False


def _api_for(group: ResponseValues, provider: str | None) -> str:
    apis = _FAMILY_APIS[group.family]
    if provider in API_NAMES:
        if provider not in apis.values():
            raise DumpError(
                "unknown_provider", f"This dump does not have the shape of a {API_NAMES[provider]} response."
            )
        return provider
    if provider is not None:
        if provider not in apis:
            raise DumpError("unknown_provider", f"This dump does not have the shape of any {provider} response.")
        return apis[provider]
    if group.family == "responses":
        return "perplexity.agent" if any(_is_perplexity_agent(v) for v in group.values) else "openai.responses"
    if group.family == "chat":
        return "perplexity.sonar" if any(_is_perplexity_sonar(v) for v in group.values) else "openai.chat_completions"
    return next(iter(apis.values()))


def _is_perplexity_agent(value: dict[str, Any]) -> bool:
    if str(value.get("type", "")).startswith("response.reasoning."):
        return True
    response = value.get("response") if isinstance(value.get("response"), dict) else value
    output = response.get("output") if isinstance(response.get("output"), list) else []
    if any(isinstance(i, dict) and i.get("type") in ("search_results", "fetch_url_results") for i in output):
        return True
    usage = response.get("usage") if isinstance(response.get("usage"), dict) else {}
    if isinstance(usage.get("cost"), dict) and "currency" in usage["cost"]:
        return True
    response_id = str(response.get("id") or "")
    return response_id.startswith("resp_") and bool(_UUID.match(response_id[5:]))


def _is_perplexity_sonar(value: dict[str, Any]) -> bool:
    if "citations" in value or "search_results" in value:
        return True
    if value.get("object") in ("chat.reasoning", "chat.reasoning.done", "chat.completion.done"):
        return True
    return bool(_UUID.match(str(value.get("id") or ""))) or str(value.get("model") or "").startswith("sonar")


def _keys_hint(values: list[Any]) -> str:
    first = values[0] if values else None
    if isinstance(first, dict) and first:
        keys = ", ".join(sorted(str(k) for k in first)[:6])
        return f"; its first object has the keys {keys}"
    return ""
