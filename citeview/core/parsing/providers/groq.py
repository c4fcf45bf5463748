"""Groq: chat completions of its compound systems (``groq/compound``, ``compound-beta``), which
search the web and visit pages themselves (``../shared/docs/provider-formats.md`` §12).

OpenAI's Chat Completions shape, with the tools the system ran in ``message.executed_tools`` (in a
stream, in the deltas): a ``search`` with its query in the JSON string ``arguments`` and its pages
in ``search_results.results`` (title, url, content, score); a ``visit`` with the page it read in
``arguments`` and what it read in ``output``. The answer carries no markers and no spans: the pages
are the answer's sources, each with the text the system read as evidence, and none has a place in
the answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from citeview.core.common.model import Response, SearchBatch
from citeview.core.common.phrases import phrase
from citeview.core.detection.registry import ApiFormat, Provider, register
from citeview.core.parsing.jsonvalues import dict_or_empty, dicts_in, object_in_json_string, str_or_none
from citeview.core.parsing.providers._openai_shapes import CHAT_SHAPE, Dialect, WebSources, read_chat_completions
from citeview.core.parsing.sources import cite_without_place


def parse_chat_completions(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    values = list(values)  # read twice: for the shape's fields, then for this provider's own
    response = read_chat_completions(values, streamed, GROQ_CHAT)
    table = WebSources.of(response)
    read: list[str] = []
    for tool in _executed_tools(values):
        read += _read_tool(response, table, tool)
    cite_without_place(
        response,
        read,
        lambda count: phrase(
            "Groq's compound answer marks no citations: the {count} page(s) its searches and visits read are "
            "listed as the answer's sources, without a place in the answer.",
            count=count,
        ),
    )
    return response


def _executed_tools(values: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools the system ran, once each: a stream repeats a tool's entry as its results arrive
    (the fuller entry, by ``index``, is kept)."""
    tools: dict[Any, dict[str, Any]] = {}
    for value in values:
        for choice in dicts_in(value.get("choices")):
            for field in ("message", "delta"):
                for tool in dicts_in(dict_or_empty(choice.get(field)).get("executed_tools")):
                    index = tool.get("index", len(tools))
                    key = index if isinstance(index, (str, int)) else len(tools)
                    tools[key] = {**tools.get(key, {}), **{k: v for k, v in tool.items() if v not in (None, "")}}
    return list(tools.values())


def _read_tool(response: Response, table: WebSources, tool: dict[str, Any]) -> list[str]:
    """The keys of the pages a tool read, added as sources with the text the system read."""
    arguments = object_in_json_string(tool.get("arguments"))
    kind = tool.get("type")
    if kind == "visit":
        url = str_or_none(arguments.get("url"))
        if not url:
            return []
        key = table.page(url, None)
        _keep_text(table, key, str_or_none(tool.get("output")), "tool_output")
        response.searches.append(SearchBatch([], [key]))
        return [key]
    keys = []
    for result in dicts_in(dict_or_empty(tool.get("search_results")).get("results")):
        url = str_or_none(result.get("url"))
        if not url:
            continue
        key = table.page(url, str_or_none(result.get("title")))
        _keep_text(table, key, str_or_none(result.get("content")), "search_snippet")
        if result.get("score") is not None:
            table.get(key).extra.setdefault("score", result.get("score"))
        keys.append(key)
    query = str_or_none(arguments.get("query"))
    if kind == "search" or query or keys:
        response.searches.append(SearchBatch([query] if query else [], list(dict.fromkeys(keys))))
    return keys


def _keep_text(table: WebSources, key: str, text: str | None, kind: str) -> None:
    """What the system read of a page, as its evidence. A page both found by a search and visited
    shows what the visit read; the search's excerpt stays beside it, under ``search_snippet``."""
    if not text:
        return
    extra = table.get(key).extra
    held = extra.get("snippet_kind")
    if held is None:
        extra["snippet"], extra["snippet_kind"] = text, kind
    elif held == "search_snippet" and kind == "tool_output":
        extra["search_snippet"] = extra["snippet"]
        extra["snippet"], extra["snippet_kind"] = text, kind
    elif held == "tool_output" and kind == "search_snippet":
        extra.setdefault("search_snippet", text)


# --- Detection: Groq answers in OpenAI's shape, with marks of its own ------------------------------

_COMPOUND_MODELS = ("groq/", "compound-")


def _is_groq_completion(value: dict[str, Any]) -> bool:
    """Groq's own field ``x_groq`` (on a whole completion, and on a stream's first and last chunks),
    the per-model ``usage_breakdown`` of a compound system, or a compound model's name."""
    if "x_groq" in value or "usage_breakdown" in value:
        return True
    model = value.get("model")
    return isinstance(model, str) and model.startswith(_COMPOUND_MODELS)


GROQ = Provider("groq", "Groq")
GROQ_CHAT = Dialect(provider="groq", api="groq.chat_completions")

register(
    ApiFormat(
        name="groq.chat_completions",
        label="Groq Chat Completions (compound)",
        provider=GROQ,
        shape=CHAT_SHAPE,
        parser=parse_chat_completions,
        citation_notation=phrase(
            "no citations in the text: the executed_tools list the searches and visits, and the pages they read "
            "are the answer's sources, without positions"
        ),
        marks=_is_groq_completion,
        priority=40,  # its marks are its own; before Mistral, xAI and OpenAI, which share the shape
    )
)
