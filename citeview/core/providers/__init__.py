"""One module per provider; each API's parser is registered here, by API name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from citeview.core.model import Response
from citeview.core.providers import anthropic, anthropic_request, gemini, openai, perplexity

# A parser reads one response's values; Gemini answers with one Response per candidate.
Parser = Callable[[list[dict[str, Any]], bool], Response | list[Response]]
RequestCheck = Callable[[Response, dict[str, Any]], None]

PARSERS: dict[str, Parser] = {
    "perplexity.agent": perplexity.parse_agent,
    "perplexity.sonar": perplexity.parse_sonar,
    "anthropic.messages": anthropic.parse_messages,
    "gemini.generate_content": gemini.parse_generate_content,
    "gemini.interactions": gemini.parse_interactions,
    "openai.responses": openai.parse_responses,
    "openai.chat_completions": openai.parse_chat_completions,
}

# APIs whose citations can be checked against the request that produced them.
REQUEST_CHECKS: dict[str, RequestCheck] = {
    "anthropic.messages": anthropic_request.check_quotes,
}
