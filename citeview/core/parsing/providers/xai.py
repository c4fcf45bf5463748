"""xAI (Grok): the Responses API (``xai.responses``) and the legacy Chat Completions with Live Search
(``xai.chat_completions``), both in OpenAI's shapes (``../shared/docs/provider-formats.md`` §8).

Responses: ``url_citation`` annotations as OpenAI's, with positions when inline citations are on
(the default since 2026), spanning the ``[[N]](url)`` link the text holds in a unit xAI does not
name: each span is checked against its link and the unit that fitted is reported. Without positions
(older answers, ``no_inline_citations``) an annotation lists a source the message cites, nowhere in
particular. The top-level ``citations`` lists every URL the agent met, cited or not.

Chat Completions: a top-level ``citations`` list of URLs (in a stream, on its last chunk). The
``[N]`` markers the text may hold are not read as citations: xAI never said that N counts places
in that list.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from citeview.core.common.model import Citation, Response, SearchBatch
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.detection.registry import ApiFormat, Provider, register
from citeview.core.parsing.citing import cite_markers, note_listed_citation_not_a_url
from citeview.core.parsing.inline_tokens import numbered_links
from citeview.core.parsing.jsonvalues import dict_or_empty, object_in_json_string, str_or_none
from citeview.core.parsing.markers import MarkerMatch
from citeview.core.parsing.providers._openai_shapes import (
    CHAT_SHAPE,
    RESPONSES_SHAPE,
    UNITS,
    Dialect,
    PlacedSpans,
    WebSources,
    read_chat_completions,
    read_responses,
    read_web_search_call,
    without_tracking,
)

# --- Responses -------------------------------------------------------------------------------------


def parse_responses(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    return read_responses(values, streamed, XAI_RESPONSES)


def _read_search_call(response: Response, table: WebSources, item: dict[str, Any]) -> bool:
    """xAI's search calls: OpenAI's ``web_search_call`` with an ``action``, an ``x_search_call``
    like it, or either shaped as a function call, its query in the JSON string ``arguments``."""
    if item.get("type") not in ("web_search_call", "x_search_call"):
        return False
    if isinstance(item.get("action"), dict):
        read_web_search_call(response, table, item)
        return True
    query = str_or_none(object_in_json_string(item.get("arguments")).get("query"))
    if query:
        response.searches.append(SearchBatch([query], []))
    return True


def _read_citation_list(response: Response, table: WebSources, final: dict[str, Any]) -> None:
    """``citations``: every URL the agent met. Each is a source; one the answer never cites is
    flagged unused like any other."""
    citations = final.get("citations")
    if not isinstance(citations, list):
        return
    for url in citations:
        if isinstance(url, str) and url:
            table.page(url, None)
    invalid = sum(not (isinstance(url, str) and url) for url in citations)
    if invalid:
        response.diagnose(
            "invalid_source",
            "warning",
            phrase(
                "{count} entry(ies) of the response's citations list are not URLs; they are not sources.", count=invalid
            ),
            count=invalid,
        )


def _cite_numbered_links(response: Response) -> None:
    """The ``[[N]](url)`` links are the model's own citations: one that no annotation covers but
    whose address is a source is cited where it stands."""
    links = numbered_links(response.text)
    if not links:
        return
    keys: dict[str, str] = {}
    for source in response.sources:
        if source.kind == "web" and source.url:
            keys.setdefault(without_tracking(source.url), source.key)
    placed = PlacedSpans(response.citations)
    for link in links:
        if placed.overlaps(link.start, link.end):
            continue  # an annotation placed it
        key = keys.get(without_tracking(link.url))
        if key is not None:
            response.citations.append(Citation(link.start, link.end, [key]))
            continue
        response.diagnose(
            "unknown_citation",
            "info",
            phrase(
                "The answer links {marker} to an address that no annotation, search or citations list names; "
                "it is shown as a link, not as a citation.",
                marker=f"[[{link.number}]]",
            ),
            url=link.url,
            start=link.start,
            end=link.end,
        )


# --- Chat Completions with Live Search (legacy) -----------------------------------------------------


def parse_chat_completions(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    values = list(values)  # read twice: for the shape's fields, then for this provider's own
    response = read_chat_completions(values, streamed, XAI_CHAT)
    table = WebSources.of(response)
    cited = set(response.cited_without_position)
    listed: list[Any] = []
    for chunk in values:
        citations = chunk.get("citations")
        if not isinstance(citations, list):
            continue
        listed = citations  # a stream sends them on its last chunk; the last list names the positions
        for url in citations:
            if isinstance(url, str) and url:
                key = table.page(url, None)
                if key not in cited:
                    cited.add(key)
                    response.cited_without_position.append(key)
    for position, url in enumerate(listed, 1):
        if not (isinstance(url, str) and url):
            note_listed_citation_not_a_url(response, position, url)
    cite_markers(response, lambda marker: [], lambda marker: _why_marker_unread(marker, listed))
    return response


def _why_marker_unread(marker: MarkerMatch, listed: list[Any]) -> Phrase:
    position = int(marker.ref)
    url = listed[position - 1] if 1 <= position <= len(listed) else None
    if isinstance(url, str) and url:
        return phrase(
            "{marker} is not read as a citation: xAI does not document that [N] names the N-th URL of "
            "citations. The URL at position {position}, {url}, is unconfirmed.",
            marker=marker.text,
            position=position,
            url=url,
        )
    return phrase(
        "{marker} is not read as a citation: xAI does not document what [N] names, and its citations list "
        "has no URL at position {position} (it lists {count}).",
        marker=marker.text,
        position=position,
        count=len(listed),
    )


# --- Detection: xAI answers in OpenAI's shapes, with marks of its own ------------------------------

_USAGE_FIELDS = (
    "num_server_side_tools_used",
    "num_sources_used",
    "cost_in_usd_ticks",
    "server_side_tool_usage_details",
)


def _is_grok(obj: dict[str, Any]) -> bool:
    model = obj.get("model")
    usage = dict_or_empty(obj.get("usage"))
    return (isinstance(model, str) and model.startswith("grok")) or any(name in usage for name in _USAGE_FIELDS)


def _is_xai_response(value: dict[str, Any]) -> bool:
    """A Responses body or event of xAI's: a Grok model or xAI's own usage fields. Not its ids: a bare
    UUID is DeepSeek's response id too, and ``msg_<uuid>`` Perplexity's Agent API's message id."""
    # Asked of every event of a Responses stream that is not xAI's: no call it can spare.
    inner = value.get("response")
    response = inner if isinstance(inner, dict) and inner else value
    model = response.get("model")
    if isinstance(model, str) and model.startswith("grok"):
        return True
    usage = response.get("usage")
    return isinstance(usage, dict) and any(name in usage for name in _USAGE_FIELDS)


def _is_xai_completion(value: dict[str, Any]) -> bool:
    """A completion of xAI's: a Grok model or xAI's usage fields. Its top-level ``citations`` are
    Perplexity Sonar's mark too, so xAI is asked first."""
    return _is_grok(value)


# --- The APIs -------------------------------------------------------------------------------------

XAI = Provider("xai", "xAI")
XAI_RESPONSES = Dialect(
    provider="xai",
    api="xai.responses",
    positionless_citations=True,
    readings=UNITS,
    report_units=True,
    read_item=_read_search_call,
    read_final=_read_citation_list,
    read_text=_cite_numbered_links,
)
XAI_CHAT = Dialect(provider="xai", api="xai.chat_completions")

register(
    ApiFormat(
        name="xai.responses",
        label="xAI Responses",
        provider=XAI,
        shape=RESPONSES_SHAPE,
        parser=parse_responses,
        citation_notation=phrase(
            "url_citation annotations spanning the [[n]](url) links in the text, or without positions listing "
            "the sources the message cites; a citations list of every URL the search met"
        ),
        marks=_is_xai_response,
        priority=50,  # after Perplexity's Agent API, whose marks are narrower; before OpenAI, which takes the rest
    )
)
register(
    ApiFormat(
        name="xai.chat_completions",
        label="xAI Chat Completions (Live Search)",
        provider=XAI,
        shape=CHAT_SHAPE,
        parser=parse_chat_completions,
        citation_notation=phrase(
            "a citations list of URLs the answer cites without positions; [n] markers in the text are not "
            "documented to name citations[n-1]"
        ),
        marks=_is_xai_completion,
        priority=-10,  # before Perplexity Sonar, which also has top-level citations and UUID ids
    )
)
