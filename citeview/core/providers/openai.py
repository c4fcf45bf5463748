"""OpenAI: the Responses API (``openai.responses``) and Chat Completions (``openai.chat_completions``).

Citations are annotations on the output text: ``url_citation`` spans (usually the inline
``([domain](url))`` link the model wrote), ``file_citation`` insertion points, container files
(``../shared/docs/provider-formats.md`` §4). Offsets count code points.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from citeview.core.jsonvalues import dict_or_empty, dicts_in, str_or_none, strings_in
from citeview.core.model import Citation, Response, SearchBatch
from citeview.core.phrases import phrase
from citeview.core.registry import ApiFormat, Provider, Shape, ValueKind, register
from citeview.core.sources import SourceTable

_TERMINAL = {"response.completed", "response.incomplete", "response.failed"}


@dataclass
class _Part:
    """One output_text (or refusal) part: its text and its annotations, each once."""

    text: str | None = None
    deltas: list[str] = field(default_factory=list)
    annotations: dict[int, dict[str, Any]] = field(default_factory=dict)
    refusal: bool = False

    def set_text(self, text: str | None) -> None:
        """A full text (a done event, a final body) wins over deltas; an empty one never wins."""
        if text:
            self.text = text

    def add_annotations(self, annotations: list[dict[str, Any]]) -> None:
        for position, annotation in enumerate(annotations):
            self.annotations.setdefault(position, annotation)

    def add_annotation(self, index: Any, annotation: dict[str, Any]) -> None:
        if not isinstance(index, int) or isinstance(index, bool):
            index = max(self.annotations, default=-1) + 1  # no annotation_index: the next one
        self.annotations.setdefault(index, annotation)

    @property
    def full_text(self) -> str:
        return self.text if self.text is not None else "".join(self.deltas)


@dataclass
class _Output:
    """What a Responses body or stream says: message parts by (output index, part index), other items.

    Items are matched by their id where they have one, so a final body that numbers its output
    differently from the stream (a reasoning item left out) still updates the same parts.
    """

    parts: dict[tuple[int, int], _Part] = field(default_factory=dict)
    items: dict[int, dict[str, Any]] = field(default_factory=dict)
    index_of: dict[str, int] = field(default_factory=dict)

    def part(self, output_index: int, content_index: int) -> _Part:
        return self.parts.setdefault((output_index, content_index), _Part())

    def place_of(self, output_index: int, item: dict[str, Any]) -> int:
        item_id = str_or_none(item.get("id"))
        if item_id is None:
            return output_index
        return self.index_of.setdefault(item_id, output_index)

    def read_item(self, output_index: int, item: dict[str, Any], *, with_content: bool = True) -> None:
        output_index = self.place_of(output_index, item)
        self.items[output_index] = item
        if item.get("type") != "message" or not with_content:
            return
        for content_index, content in enumerate(dicts_in(item.get("content"))):
            kind = content.get("type")
            if kind not in ("output_text", "refusal"):
                continue
            part = self.part(output_index, content_index)
            part.set_text(
                str_or_none(content.get("text")) if kind == "output_text" else str_or_none(content.get("refusal"))
            )
            part.refusal = kind == "refusal"
            part.add_annotations(dicts_in(content.get("annotations")))


# --- Responses ------------------------------------------------------------------------------------


def parse_responses(values: list[dict[str, Any]], streamed: bool) -> Response:
    response = Response("openai", "openai.responses", streamed)
    output = _Output()
    if streamed:
        final, error = _read_stream(response, output, values)
    else:
        final, error = values[0], None
        for index, item in enumerate(dicts_in(values[0].get("output"))):
            output.read_item(index, item)
    if final is not None:
        response.id = str_or_none(final.get("id")) or response.id
        response.model = str_or_none(final.get("model")) or response.model
    _read_output(response, output)
    _set_status(response, final, error)
    return response


def _read_stream(
    response: Response, output: _Output, events: list[dict[str, Any]]
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    final: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    for event in events:
        kind = event.get("type") if isinstance(event.get("type"), str) else None
        inner = dict_or_empty(event.get("response"))
        if inner:
            response.id = response.id or str_or_none(inner.get("id"))
            response.model = str_or_none(inner.get("model")) or response.model
        item_id = str_or_none(event.get("item_id"))
        output_index = (
            output.index_of.get(item_id, _int(event.get("output_index")))
            if item_id
            else _int(event.get("output_index"))
        )
        where = (output_index, _int(event.get("content_index")))
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            part = output.part(*where)
            part.deltas.append(str_or_none(event.get("delta")) or "")
            part.refusal = kind == "response.refusal.delta"
        elif kind == "response.output_text.done":
            output.part(*where).set_text(str_or_none(event.get("text")))
        elif kind == "response.refusal.done":
            output.part(*where).set_text(str_or_none(event.get("refusal")))
        elif kind == "response.output_text.annotation.added" and isinstance(event.get("annotation"), dict):
            output.part(*where).add_annotation(event.get("annotation_index"), event["annotation"])
        elif kind in ("response.content_part.done", "response.content_part.added"):
            content = dict_or_empty(event.get("part"))
            output.part(*where).add_annotations(dicts_in(content.get("annotations")))
        elif kind in ("response.output_item.done", "response.output_item.added") and isinstance(
            event.get("item"), dict
        ):
            # An added item only says an item begins; its (empty) content is not the answer.
            output.read_item(_int(event.get("output_index")), event["item"], with_content=kind.endswith("done"))
        elif kind in _TERMINAL:
            final = {**inner, "status": inner.get("status") or kind.removeprefix("response.")}
            # The final body repeats every item; annotations it lost (gateways drop them) stay from the stream.
            for index, item in enumerate(dicts_in(inner.get("output"))):
                output.read_item(index, item)
        elif kind == "error":
            error = event
    if final is None and error is None:
        response.mark_incomplete(phrase("stream ended without {event}", event="response.completed"))
    return final, error


_PRIVATE_USE_MARKS = re.compile("[\ue200-\ue202]")


def _read_output(response: Response, output: _Output) -> None:
    table = SourceTable(response)
    pieces: list[str] = []
    position = 0
    last_item = None
    for (item_index, _), part in sorted(output.parts.items()):
        if last_item is not None and item_index != last_item:
            pieces.append("\n\n")  # a new message item starts a new paragraph
            position += 2
        last_item = item_index
        text = part.full_text
        if part.refusal:
            response.diagnose("refusal", "warning", phrase("The model refused; its refusal is shown as the answer."))
        for number, annotation in sorted(part.annotations.items()):
            _annotate(response, table, text, position, number, annotation)
        pieces.append(text)
        position += len(text)
    response.text = "".join(pieces)
    if _PRIVATE_USE_MARKS.search(response.text):
        response.diagnose(
            "private_use_markers",
            "warning",
            phrase(
                "The answer holds citation tokens in private-use characters (U+E200–U+E202) that no reader can see "
                "as text; they are left in place so every offset stays true."
            ),
        )
    for _, item in sorted(output.items.items()):
        _read_tool_item(response, table, item)
    _order_sources_by_first_citation(response)


def _order_sources_by_first_citation(response: Response) -> None:
    """Footnotes are numbered by first appearance in the text, whatever order the annotations came in."""
    first: dict[str, int] = {}
    for citation in sorted(response.citations, key=lambda c: c.start):
        for key in citation.source_keys:
            first.setdefault(key, citation.start)
    order = {source.key: n for n, source in enumerate(response.sources)}
    response.sources.sort(key=lambda s: (s.key not in first, first.get(s.key, 0), order[s.key]))


def _annotate(
    response: Response, table: SourceTable, text: str, shift: int, number: int, annotation: dict[str, Any]
) -> None:
    kind = annotation.get("type")
    if kind == "url_citation":
        url = str_or_none(annotation.get("url"))
        key = _web_source(response, table, url, str_or_none(annotation.get("title"))) if url else f"annotation-{number}"
        if not url:
            key = table.add(key, kind="web", url=None, title=str_or_none(annotation.get("title")))
        _place_span(response, text, shift, number, annotation.get("start_index"), annotation.get("end_index"), key, url)
    elif kind in ("file_citation", "file_path"):
        key = _file_source(table, annotation)
        index = annotation.get("index")
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index <= len(text):
            response.citations.append(Citation(shift + index, shift + index, [key]))
        else:
            response.diagnose(
                "offset_out_of_range",
                "warning",
                phrase(
                    "The {kind} of {key} has no index inside the text; it is listed, not placed.", kind=kind, key=key
                ),
                key=key,
            )
    elif kind == "container_file_citation":
        key = _file_source(table, annotation)
        _place_span(
            response, text, shift, number, annotation.get("start_index"), annotation.get("end_index"), key, None
        )
    else:
        response.diagnose(
            "unknown_citation",
            "info",
            phrase("An annotation of a type citeview does not know ({kind}) is not placed.", kind=str(kind)),
            type=str(kind),
        )


def _file_source(table: SourceTable, annotation: dict[str, Any]) -> str:
    file_id = str_or_none(annotation.get("file_id")) or "file:unknown"
    extra = {
        "filename": str_or_none(annotation.get("filename")),
        "container_id": str_or_none(annotation.get("container_id")),
    }
    return table.add(file_id, kind="file", url=None, title=str_or_none(annotation.get("filename")), extra=extra)


def _place_span(
    response: Response, text: str, shift: int, number: int, start: Any, end: Any, key: str, url: str | None
) -> None:
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)):
        response.diagnose(
            "offset_out_of_range",
            "warning",
            phrase("Annotation {number} for {key} has no span; it is listed, not placed.", number=number, key=key),
            key=key,
        )
        return
    if start == end:
        response.diagnose(
            "empty_span",
            "info",
            phrase(
                "Annotation {number} for {key} marks no text (start = end = {start}); it is listed, not placed.",
                number=number,
                key=key,
                start=start,
            ),
            key=key,
        )
        return
    inside = 0 <= start < end <= len(text)
    if url is not None and not (inside and _covers_link(text[start:end], url)):
        # Code points first (what the recordings show); UTF-16 units when only they fit the link.
        in_units = _utf16_span(text, start, end)
        if in_units is not None and _covers_link(text[in_units[0] : in_units[1]], url):
            response.diagnose(
                "offset_unit",
                "info",
                phrase(
                    "Annotation {number} fits its link only when its offsets are read as UTF-16 code units.",
                    number=number,
                ),
                key=key,
                start=start,
                end=end,
            )
            response.citations.append(Citation(shift + in_units[0], shift + in_units[1], [key]))
            return
    if not inside:
        response.diagnose(
            "offset_out_of_range",
            "warning",
            phrase(
                "Annotation {number} for {key} spans characters {start}–{end}, outside its text of {length}; not placed.",
                number=number,
                key=key,
                start=start,
                end=end,
                length=len(text),
            ),
            key=key,
            start=start,
            end=end,
        )
        return
    covered = text[start:end]
    if url is not None and not _covers_link(covered, url):
        response.diagnose(
            "segment_text_mismatch",
            "warning",
            phrase(
                "Annotation {number} should cover the link to {domain}, but its span holds {covered!r}; "
                "the text may have been changed after the offsets were computed.",
                number=number,
                domain=_domain(url),
                covered=covered[:60],
            ),
            key=key,
            start=start,
            end=end,
        )
    response.citations.append(Citation(shift + start, shift + end, [key]))


def _utf16_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The code-point span that UTF-16 offsets ``start``..``end`` denote, if they fall between characters."""
    if not text or max(text) <= "\uffff" or not 0 <= start < end:
        return None  # without astral characters both units agree: nothing new to try
    units = _utf16_units(text)
    if start not in units or end not in units:
        return None
    return units[start], units[end]


@lru_cache(maxsize=8)
def _utf16_units(text: str) -> dict[int, int]:
    units = {0: 0}
    position = 0
    for index, char in enumerate(text, 1):
        position += 2 if ord(char) > 0xFFFF else 1
        units[position] = index
    return units


def _covers_link(covered: str, url: str) -> bool:
    """The span should be exactly the link the model wrote to this URL: ``([domain](url))``,
    ``[title](url)``, or the bare URL or domain. A span that starts or ends elsewhere, or holds
    another address, was computed on another text."""
    bare = _without_tracking(url)
    if covered.startswith(("([", "[")) and covered.endswith(")") and covered.count("(") == covered.count(")"):
        target = covered[covered.rfind("](") + 2 :].rstrip(")")
        return _without_tracking(target) == bare
    return covered in (url, bare, _domain(url))


@lru_cache(maxsize=4096)  # asked for every annotation and every source it is compared with
def _without_tracking(url: str) -> str:
    """The address without the ``utm_source`` OpenAI appends, to tell one page from another."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL a browser could open ("https://[::1"): compared as written
        return url
    query = "&".join(p for p in parts.query.split("&") if p and not p.startswith("utm_source="))
    return parts._replace(query=query).geturl()


def _web_source(response: Response, table: SourceTable, url: str, title: str | None) -> str:
    """One source per page: the search's plain URL and the citation's tracked URL are the same page."""
    bare = _without_tracking(url)
    for source in response.sources:
        if source.kind == "web" and source.url and _without_tracking(source.url) == bare:
            source.title = source.title or title
            return source.key
    return table.add(url, kind="web", url=url, title=title)


def _domain(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").removeprefix("www.")
    except ValueError:
        return ""


def _read_tool_item(response: Response, table: SourceTable, item: dict[str, Any]) -> None:
    kind = item.get("type")
    if kind == "web_search_call":
        action = dict_or_empty(item.get("action"))
        queries = [q for q in [str_or_none(action.get("query"))] if q] + strings_in(action.get("queries"))
        keys = []
        urls = [str_or_none(s.get("url")) for s in dicts_in(action.get("sources"))]
        # open_page and find_in_page name the page they read: it is a source too.
        urls.append(str_or_none(action.get("url")))
        for url in urls:
            if url:
                keys.append(_web_source(response, table, url, None))
        if action.get("type") == "find_in_page" and str_or_none(action.get("pattern")):
            queries.append(f"find “{action['pattern']}”")
        if queries or keys:
            response.searches.append(SearchBatch(list(dict.fromkeys(queries)), keys))
    elif kind == "file_search_call":
        keys = []
        for result in dicts_in(item.get("results")):
            file_id = str_or_none(result.get("file_id")) or "file:unknown"
            extra = {"filename": str_or_none(result.get("filename")), "score": result.get("score")}
            key = table.add(file_id, kind="file", url=None, title=str_or_none(result.get("filename")), extra=extra)
            passage = str_or_none(result.get("text"))
            if passage:
                source = table.get(key)
                joined = source.extra.get("snippet")
                source.extra["snippet"] = passage if not joined else f"{joined}\n\n…\n\n{passage}"
            keys.append(key)
        response.searches.append(SearchBatch(strings_in(item.get("queries")), list(dict.fromkeys(keys))))


def _set_status(response: Response, final: dict[str, Any] | None, error: dict[str, Any] | None) -> None:
    if error is not None:
        response.mark_failed(error)
        return
    if final is None:
        return  # the stream reader said what is missing
    reason = str_or_none(dict_or_empty(final.get("incomplete_details")).get("reason"))
    response.set_status(final.get("status"), final.get("error"), reason)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# --- Chat Completions -----------------------------------------------------------------------------


def parse_chat_completions(values: list[dict[str, Any]], streamed: bool) -> Response:
    response = Response("openai", "openai.chat_completions", streamed)
    messages: list[str] = []
    deltas: list[str] = []
    annotations: list[dict[str, Any]] = []
    refusals: list[str] = []
    finish_reason = None
    error: dict[str, Any] | None = None
    for chunk in values:
        if isinstance(chunk.get("error"), dict):  # OpenRouter reports a failure mid-stream this way
            error = chunk["error"]
        response.id = response.id or str_or_none(chunk.get("id"))
        response.model = str_or_none(chunk.get("model")) or response.model
        choices = dicts_in(chunk.get("choices"))
        choice = next((c for c in choices if c.get("index", 0) == 0), choices[0] if choices else {})
        message, delta = dict_or_empty(choice.get("message")), dict_or_empty(choice.get("delta"))
        if isinstance(message.get("content"), str):
            messages.append(message["content"])
        if isinstance(delta.get("content"), str):
            deltas.append(delta["content"])
        refusals += [r for r in (message.get("refusal"), delta.get("refusal")) if isinstance(r, str) and r]
        # The last content chunk can carry a delta with only annotations; repeats are the same citation.
        for annotation in dicts_in(message.get("annotations")) + dicts_in(delta.get("annotations")):
            if annotation not in annotations:
                annotations.append(annotation)
        finish_reason = str_or_none(choice.get("finish_reason")) or finish_reason
    response.text = messages[-1] if messages and messages[-1] else "".join(deltas)
    if not response.text and refusals:
        response.text = refusals[-1] if not streamed else "".join(refusals)
        response.diagnose("refusal", "warning", phrase("The model refused; its refusal is shown as the answer."))
    table = SourceTable(response)
    for number, annotation in enumerate(annotations):
        nested = dict_or_empty(annotation.get("url_citation"))
        flat = {"type": annotation.get("type"), **nested} if nested else annotation
        if flat.get("type") == "url_citation" and isinstance(nested.get("content"), str):
            url = str_or_none(flat.get("url"))
            if url:
                table.add(
                    url, kind="web", url=url, title=str_or_none(flat.get("title")), extra={"snippet": nested["content"]}
                )
        _annotate(response, table, response.text, 0, number, flat)
    if error:
        response.mark_failed(error)
        return response
    if error is not None or finish_reason == "error":
        response.mark_failed(detail=phrase("{field} {reason}", field="finish_reason", reason="error"))
        return response
    why = {
        "length": phrase("the answer was cut off at the token limit"),
        "content_filter": phrase("the content filter stopped it"),
    }
    response.set_finish(
        finish_reason, field="finish_reason", completed={"stop", "tool_calls", "function_call"}, why=why
    )
    return response


# --- Detection: the two shapes OpenAI made, which other providers answer in too -------------------


def _responses_value(value: dict[str, Any]) -> ValueKind | None:
    kind = value.get("type")
    if isinstance(kind, str) and kind.startswith("response."):
        return "event"
    if value.get("object") == "response" and "output" in value:
        return "whole"
    return None


def _event_response_id(event: dict[str, Any]) -> str | None:
    inner = event.get("response")
    return inner.get("id") if isinstance(inner, dict) and isinstance(inner.get("id"), str) else None


class _ResponsesStream:
    """A Responses stream ends at its terminal event; another response id or a second
    ``response.created`` starts the next response."""

    def __init__(self) -> None:
        self.ended = False
        self.created = False
        self.response_ids: set[str] = set()

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        if self.ended:
            return True  # nothing of a response comes after its end
        new_id = _event_response_id(value)
        if new_id is not None and self.response_ids and new_id not in self.response_ids:
            return True
        return value.get("type") == "response.created" and self.created

    def add(self, value: dict[str, Any]) -> None:
        kind = value.get("type")
        if isinstance(kind, str):
            if kind in _TERMINAL:
                self.ended = True
            elif kind == "response.created":
                self.created = True
        if response_id := _event_response_id(value):
            self.response_ids.add(response_id)


def _chat_value(value: dict[str, Any]) -> ValueKind | None:
    return "chunk" if "choices" in value else None


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


class _ChatStream:
    """Chunks of one completion share an id. Recorders redact ids unevenly, so a chunk whose
    accumulated text extends the stream's continues it whatever its id."""

    def __init__(self) -> None:
        self.finished = False  # a finish reason was seen
        self.last_message_text = ""

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        if value.get("id") == previous.get("id"):
            return self.finished and _is_whole_completion(value)
        so_far = self.last_message_text
        text = _message_text(value)
        return not (so_far and text and text.startswith(so_far))

    def add(self, value: dict[str, Any]) -> None:
        self.finished = self.finished or bool(_finish_reason(value))
        self.last_message_text = _message_text(value) or self.last_message_text


def _names_a_response(value: dict[str, Any]) -> bool:
    """A response id or the response object: a value that would show Perplexity's marks if it had any."""
    return bool(_event_response_id(value)) or value.get("object") == "response"


def _has_completion_id(value: dict[str, Any]) -> bool:
    return str(value.get("id", "")).startswith("chatcmpl-")


# --- The APIs -------------------------------------------------------------------------------------

RESPONSES_SHAPE = Shape(name="responses", priority=10, recognise=_responses_value, new_splitter=_ResponsesStream)
CHAT_SHAPE = Shape(
    name="chat", priority=20, recognise=_chat_value, new_splitter=_ChatStream, whole_when_alone=_is_whole_completion
)
OPENAI = Provider("openai", "OpenAI")

register(
    ApiFormat(
        name="openai.responses",
        label="OpenAI Responses",
        provider=OPENAI,
        shape=RESPONSES_SHAPE,
        parser=parse_responses,
        citation_notation="url_citation and file_citation annotations with character spans of the text",
        marks=_names_a_response,
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
        citation_notation="url_citation annotations with character spans of the message",
        marks=_has_completion_id,
        priority=100,  # as above
    )
)
