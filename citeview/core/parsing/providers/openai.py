"""OpenAI: the Responses API (``openai.responses``) and Chat Completions (``openai.chat_completions``),
read in the shapes OpenAI made (``_openai_shapes.py``, which other providers answer in too) with
OpenAI's own dialect: code points, then UTF-16 units, as its recordings show.

An answer is OpenAI's only where its model is one of OpenAI's (``gpt-5``, ``o3``, ``chatgpt-4o-latest``):
its ids (``resp_…``, ``chatcmpl-…``) are written by compatible servers too, so they prove nothing
alone, and an answer of these shapes that nothing names is an OpenAI-compatible one
(``compatible.py``). Azure OpenAI serves OpenAI's models under their names: it is read as OpenAI.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from citeview.core.common.model import Response
from citeview.core.common.phrases import phrase
from citeview.core.detection.registry import ApiFormat, Provider, register
from citeview.core.parsing.providers._openai_shapes import (
    CHAT_SHAPE,
    RESPONSES_SHAPE,
    Dialect,
    model_named,
    read_chat_completions,
    read_responses,
)

OPENAI_RESPONSES = Dialect(provider="openai", api="openai.responses")
OPENAI_CHAT = Dialect(provider="openai", api="openai.chat_completions")


def parse_responses(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    return read_responses(values, streamed, OPENAI_RESPONSES)


def parse_chat_completions(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    return read_chat_completions(values, streamed, OPENAI_CHAT)


# The model families OpenAI's own API serves. Not ``gpt-oss``: open weights, served by anyone under
# that name (a fine-tuned model keeps its base's name after ``ft:``); and not a host's catalogue path (``openai/gpt-4o``, with a slash): a relay's.
_OPENAI_MODEL = re.compile(r"(?:ft:)?(?:gpt-(?!oss)|o[1-9](?:-|$)|chatgpt-|codex-|computer-use-)", re.I)


def _is_openai_model(value: dict[str, Any]) -> bool:
    """Whether a value (a body, a chunk, or an event holding the ``response``) names an OpenAI model."""
    model = model_named(value)
    return model is not None and "/" not in model and _OPENAI_MODEL.match(model) is not None


OPENAI = Provider("openai", "OpenAI")

register(
    ApiFormat(
        name="openai.responses",
        label="OpenAI Responses",
        provider=OPENAI,
        shape=RESPONSES_SHAPE,
        parser=parse_responses,
        citation_notation=phrase("url_citation and file_citation annotations with character spans of the text"),
        marks=_is_openai_model,
        marked_at_start=True,
        priority=100,  # after the providers whose marks are their own; before the OpenAI-compatible fallback
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
        marks=_is_openai_model,
        marked_at_start=True,
        priority=100,  # as above
    )
)
