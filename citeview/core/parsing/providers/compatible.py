"""Answers in OpenAI's shapes (Responses, Chat Completions) from servers that speak them: DeepSeek,
Qwen through DashScope's compatible mode, Kimi, Together, Fireworks, vLLM and any other. Each is
read with the shape's reader, and named only as far as the dump names it.

The rule for attribution: an answer names a provider only where the dump says so — a field of the
provider's own, a model name, an id of the provider's documented shape, or the endpoint recorded with
the dump. Detection asks the shape's APIs in priority order; each provider's module says what proves
it (``openai.py``: an OpenAI model; ``xai.py``: a Grok model or xAI's usage fields; ``groq.py``:
``x_groq``; ``openrouter.py``: its ``gen-`` id with ``provider``). The providers below have no
module of their own: their model names are the evidence, read from :data:`MODEL_NAMES`. An answer
nothing names is "OpenAI-compatible" (``compatible.responses``, ``compatible.chat_completions``),
the last of its shape's APIs: it is shown by its shape and its model, never by a guessed provider.
No dump format citeview reads records its endpoint, so no endpoint is read yet.

Where such an answer has no annotations, the pages its tool calls consulted (``web_search_call``
``action.sources`` / ``action.url``) and the addresses its text writes are listed as its sources,
without a place in the answer, by the rule Groq's compound answers follow
(:func:`citeview.core.parsing.sources.cite_without_place`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from citeview.core.common.model import Response
from citeview.core.common.phrases import phrase
from citeview.core.detection.registry import ApiFormat, Parser, Provider, register
from citeview.core.parsing.inline_tokens import written_links
from citeview.core.parsing.providers._openai_shapes import (
    CHAT_SHAPE,
    RESPONSES_SHAPE,
    Dialect,
    WebSources,
    has_completion_id,
    model_named,
    names_a_response,
    read_chat_completions,
    read_responses,
)
from citeview.core.parsing.sources import cite_without_place


@dataclass(frozen=True)
class ModelNames:
    """A provider whose model names name it: the names its own API answers with."""

    provider: Provider
    # The whole name, case and all, as the provider's own API writes it. Not the open weights' names
    # (``DeepSeek-R1``, ``qwen3-32b``, ``kimi-k2-instruct``, ``deepseek-r1:7b``): anyone serves those,
    # as they serve ``gpt-oss`` (``openai.py``).
    pattern: re.Pattern[str]
    # Whether a name with a slash can be its own. A slash is otherwise a host's catalogue path
    # (``deepseek-ai/DeepSeek-V3`` on Together or vLLM, ``qwen/qwen3-32b`` on Groq): the model's
    # maker, not who answered.
    slash: bool = False


# The one table of providers named by their model (the README's format list repeats it). Together
# and vLLM are not in it: they serve other makers' models under the makers' names
# (``meta-llama/Llama-3.3-70B-Instruct-Turbo``, ``Qwen/Qwen3-8B``), so nothing in their answers names
# them, and their answers are OpenAI-compatible ones named by model.
MODEL_NAMES = (
    # DeepSeek's API: deepseek-chat, deepseek-reasoner, and the deepseek-v4-flash of its recordings.
    ModelNames(Provider("deepseek", "DeepSeek"), re.compile(r"deepseek-(?:chat|reasoner|v4-[a-z]+)")),
    # DashScope's own models (qwen-plus, qwen-max-latest, qwen3-max-2025-09-23, qwen3-coder-plus,
    # qwen-vl-max, qwq-plus, qvq-max), not the open weights it serves beside them (qwen2.5-72b-instruct).
    ModelNames(
        Provider("qwen", "Qwen"),
        re.compile(
            r"(?:qwen[0-9.]*-(?:max|plus|turbo|flash|long|coder-plus|coder-flash|vl-max|vl-plus)|qwq-plus|qvq-max)"
            r"(?:-latest|-preview|-[0-9]{4}-[0-9]{2}-[0-9]{2})?"
        ),
    ),
    # Moonshot's API: moonshot-v1-8k…, kimi-latest, kimi-k2.6, kimi-k2-0905-preview, kimi-k2-thinking-turbo.
    ModelNames(
        Provider("kimi", "Kimi"),
        re.compile(
            r"moonshot-v1-[0-9a-z-]+|kimi-(?:latest|thinking-preview"
            r"|k2(?:\.[0-9]+)?(?:-(?:[0-9]{4}-preview|turbo-preview|thinking(?:-turbo)?|code(?:-highspeed)?))?)"
        ),
    ),
    # Fireworks' documented model ids: accounts/<account>/models/<model>.
    ModelNames(Provider("fireworks", "Fireworks"), re.compile(r"accounts/[^/]+/models/[^/]+"), slash=True),
)


@lru_cache(maxsize=1024)  # asked of every value of a stream no API before these marks: a few models each
def _named_by(model: str) -> str | None:
    """The provider :data:`MODEL_NAMES` names by this model, if any."""
    for names in MODEL_NAMES:
        if ("/" not in model or names.slash) and names.pattern.fullmatch(model):
            return names.provider.name
    return None


def _names(provider: str) -> Callable[[dict[str, Any]], bool]:
    def marks(value: dict[str, Any]) -> bool:
        model = model_named(value)
        return model is not None and _named_by(model) == provider

    return marks


def _list_what_it_read(response: Response) -> None:
    """An answer that places no citation: the pages its searches consulted and the addresses its text
    writes are its sources, without a place (``cite_without_place``)."""
    if response.citations or response.cited_without_position:
        return  # its annotations cite: they say which sources, and where
    table = WebSources.of(response)
    consulted = [source.key for source in response.sources if source.extra.get("consulted")]
    written = [table.page(link.url, None) for link in written_links(response.text)]
    cite_without_place(
        response,
        consulted + written,
        lambda count: phrase(
            "The answer marks no citations: the {count} page(s) its searches consulted or its text names are "
            "listed as its sources, without a place in the answer.",
            count=count,
        ),
    )


def _parsers(provider: str) -> tuple[Parser, Parser]:
    responses = Dialect(provider=provider, api=f"{provider}.responses", read_text=_list_what_it_read)
    chat = Dialect(provider=provider, api=f"{provider}.chat_completions", read_text=_list_what_it_read)

    def parse_responses(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
        return read_responses(values, streamed, responses)

    def parse_chat_completions(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
        return read_chat_completions(values, streamed, chat)

    return parse_responses, parse_chat_completions


RESPONSES_NOTATION = phrase(
    "url_citation annotations where the server writes them; without them, the pages its searches consulted and "
    "the addresses its text writes, without positions"
)
CHAT_NOTATION = phrase(
    "url_citation annotations where the server writes them; without them, the addresses its text writes, "
    "without positions"
)


def _register_named_by_model() -> None:
    """The Responses and Chat Completions APIs of each provider :data:`MODEL_NAMES` names."""
    for names in MODEL_NAMES:
        parse_responses, parse_chat_completions = _parsers(names.provider.name)
        register(
            ApiFormat(
                name=f"{names.provider.name}.responses",
                label=f"{names.provider.label} Responses",
                provider=names.provider,
                shape=RESPONSES_SHAPE,
                parser=parse_responses,
                citation_notation=RESPONSES_NOTATION,
                marks=_names(names.provider.name),
                marked_at_start=True,
                priority=500,  # the model names it: after the providers with fields of their own and OpenAI (whose
                # model names are not these), so that an OpenAI stream is not asked these marks for every event
            )
        )
        register(
            ApiFormat(
                name=f"{names.provider.name}.chat_completions",
                label=f"{names.provider.label} Chat Completions",
                provider=names.provider,
                shape=CHAT_SHAPE,
                parser=parse_chat_completions,
                citation_notation=CHAT_NOTATION,
                marks=_names(names.provider.name),
                marked_at_start=True,
                priority=500,  # as above
            )
        )


_register_named_by_model()

# Nothing names the provider: the shape and the model are all that is said.
COMPATIBLE = Provider("compatible", "OpenAI-compatible")
_parse_responses, _parse_chat_completions = _parsers(COMPATIBLE.name)

register(
    ApiFormat(
        name="compatible.responses",
        label="OpenAI-compatible Responses",
        provider=COMPATIBLE,
        shape=RESPONSES_SHAPE,
        parser=_parse_responses,
        citation_notation=RESPONSES_NOTATION,
        # A value that names its response and shows no other API's mark: nothing later can name it.
        marks=names_a_response,
        priority=1000,  # the shape's last API, taken when no value names a provider
    )
)
register(
    ApiFormat(
        name="compatible.chat_completions",
        label="OpenAI-compatible Chat Completions",
        provider=COMPATIBLE,
        shape=CHAT_SHAPE,
        parser=_parse_chat_completions,
        citation_notation=CHAT_NOTATION,
        marks=has_completion_id,
        priority=1000,  # as above
    )
)
