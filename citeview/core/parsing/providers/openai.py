"""OpenAI: the Responses API (``openai.responses``) and Chat Completions (``openai.chat_completions``),
read in the shapes OpenAI made (``_openai_shapes.py``, which other providers answer in too) with
OpenAI's own dialect: code points, then UTF-16 units, as its recordings show.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from citeview.core.common.model import Response
from citeview.core.common.phrases import phrase
from citeview.core.detection.registry import ApiFormat, Provider, register
from citeview.core.parsing.providers._openai_shapes import (
    CHAT_SHAPE,
    RESPONSES_SHAPE,
    Dialect,
    has_completion_id,
    names_a_response,
    read_chat_completions,
    read_responses,
)

OPENAI_RESPONSES = Dialect(provider="openai", api="openai.responses")
OPENAI_CHAT = Dialect(provider="openai", api="openai.chat_completions")


def parse_responses(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    return read_responses(values, streamed, OPENAI_RESPONSES)


def parse_chat_completions(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    return read_chat_completions(values, streamed, OPENAI_CHAT)


OPENAI = Provider("openai", "OpenAI")

register(
    ApiFormat(
        name="openai.responses",
        label="OpenAI Responses",
        provider=OPENAI,
        shape=RESPONSES_SHAPE,
        parser=parse_responses,
        citation_notation=phrase("url_citation and file_citation annotations with character spans of the text"),
        marks=names_a_response,
        priority=100,  # other providers answer in this shape too: a value none of them marks is OpenAI's
    )
)
register(
    ApiFormat(
        name="openai.chat_completions",
        label="OpenAI Chat Completions",
        provider=OPENAI,
        shape=CHAT_SHAPE,
        parser=parse_chat_completions,
        citation_notation=phrase("url_citation annotations with character spans of the message"),
        marks=has_completion_id,
        priority=100,  # as above
    )
)
