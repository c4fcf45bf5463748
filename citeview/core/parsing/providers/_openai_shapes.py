"""OpenAI's two shapes, the Responses API and Chat Completions, read for every provider that answers
in them: OpenAI (``openai.py``), xAI, Perplexity and Mistral. A private module (its name starts with
``_``), so the registry does not take it for a provider, and no provider module imports another.

Citations are annotations on the output text: ``url_citation`` spans (usually the inline
``([domain](url))`` link the model wrote), ``file_citation`` and ``file_path`` insertion points (or,
in older shapes, spans of the 【4:0†source】 marker they name), container files
(``../shared/docs/provider-formats.md`` §4). Offsets count code points. Citation tokens the model
writes in private-use characters, and 【】 markers no annotation covers, are unresolved markers
(:mod:`citeview.core.parsing.inline_tokens`). Reasoning items' text (DeepSeek's ``reasoning_text``,
OpenAI's summary) is thinking, shown apart from the answer (``Response.reasoning``).

A provider's parser calls :func:`read_responses` and :func:`read_chat_completions` with a
:class:`Dialect` that says how it differs from OpenAI (xAI's does).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, cast
from urllib.parse import urlsplit

from citeview.core.common.model import Citation, ListedInOrder, ReasoningText, Response, SearchBatch, Source
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.detection.registry import NEITHER, Decision, Shape, ValueKind
from citeview.core.parsing.citing import note_unknown_citation
from citeview.core.parsing.inline_tokens import cite_inline_tokens, inline_tokens, is_inline_token
from citeview.core.parsing.jsonvalues import dict_or_empty, dicts_in, int_or_zero, is_int, str_or_none, strings_in
from citeview.core.parsing.placing import (
    CODE_POINTS,
    UTF8,
    UTF16,
    Reading,
    note_marks_nothing,
    note_no_span,
    note_placement,
    note_unit,
    outside_values,
    place_checked,
)
from citeview.core.parsing.sources import SourceTable

# xAI ends its streams with response.done, where OpenAI sends one of the others.
_TERMINAL = {"response.completed", "response.incomplete", "response.failed", "response.done"}

# A reasoning item's text streams by part: DeepSeek's whole reasoning_text as content parts, OpenAI's
# summary as summary parts. Each event type -> the list its part is in.
_REASONING_EVENTS = {
    "response.reasoning_text.delta": "content",
    "response.reasoning_text.done": "content",
    "response.reasoning_summary_text.delta": "summary",
    "response.reasoning_summary_text.done": "summary",
    "response.reasoning_summary_part.added": "summary",
    "response.reasoning_summary_part.done": "summary",
}


@dataclass
class _Part:
    """One output_text (or refusal) part: its text and its annotations, each once."""

    text: str | None = None
    deltas: list[str] = field(default_factory=list)
    annotations: dict[int, dict[str, Any]] = field(default_factory=dict)
    refusal: bool = False
    next_index: int = 0  # past the highest annotation index so far

    def set_text(self, text: str | None) -> None:
        """A full text (a done event, a final body) wins over deltas; an empty one never wins."""
        if text:
            self.text = text

    def add_annotations(self, annotations: list[dict[str, Any]]) -> None:
        for position, annotation in enumerate(annotations):
            self._keep(position, annotation)

    def add_annotation(self, index: Any, annotation: dict[str, Any]) -> None:
        if not is_int(index):
            index = self.next_index  # no annotation_index: the next one
        self._keep(index, annotation)

    def _keep(self, index: int, annotation: dict[str, Any]) -> None:
        self.annotations.setdefault(index, annotation)
        self.next_index = max(self.next_index, index + 1)

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
    # Reasoning items' text parts by (output index, "content" or "summary", part index): not the answer.
    thoughts: dict[tuple[int, str, int], _Part] = field(default_factory=dict)

    def part(self, output_index: int, content_index: int) -> _Part:
        return self.parts.setdefault((output_index, content_index), _Part())

    def thought(self, output_index: int, kind: str, index: int) -> _Part:
        return self.thoughts.setdefault((output_index, kind, index), _Part())

    def place_of(self, output_index: int, item: dict[str, Any]) -> int:
        item_id = str_or_none(item.get("id"))
        if item_id is None:
            return output_index
        return self.index_of.setdefault(item_id, output_index)

    def read_item(self, output_index: int, item: dict[str, Any], *, with_content: bool = True) -> None:
        output_index = self.place_of(output_index, item)
        self.items[output_index] = item
        if not with_content:
            return
        if item.get("type") == "reasoning":
            self.read_reasoning(output_index, item)
            return
        if item.get("type") != "message":
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

    def read_reasoning(self, output_index: int, item: dict[str, Any]) -> None:
        """A whole reasoning item's texts; as for the answer, a full text wins over the stream's deltas.
        Its ``encrypted_content`` is for the API alone and is never shown."""
        for kind, text_type in (("content", "reasoning_text"), ("summary", "summary_text")):
            for index, part in enumerate(dicts_in(item.get(kind))):
                if part.get("type") == text_type:
                    self.thought(output_index, kind, index).set_text(str_or_none(part.get("text")))


# --- How the providers answering in these shapes differ ---------------------------------------------

# How an offset may count: code points (what OpenAI's recordings show), UTF-16 code units, UTF-8 bytes.
UNITS = (CODE_POINTS, UTF16, UTF8)


@dataclass(frozen=True, kw_only=True)
class Dialect:
    """What a provider answering in OpenAI's shapes does differently from OpenAI (xAI does: see
    ``citeview/core/parsing/providers/xai.py``). The defaults are OpenAI's."""

    provider: str
    api: str
    # A url_citation without a position, or at 0–0, is the message citing a source it does not place
    # (xAI's annotations list what the search met), rather than a position gone missing.
    positionless_citations: bool = False
    # Those annotations list their pages in the order the answer numbers them: where none is placed,
    # a marker [N] names the N-th (``Response.listed_in_order``; OpenRouter relays Sonar's citations so).
    annotations_in_order: bool = False
    # The units an annotation's offsets are tried in, in order, until its span covers its link.
    readings: tuple[Reading, ...] = (CODE_POINTS, UTF16)
    # Say once per response which unit the spans fit in (where the unit is unsettled), rather than
    # only for an annotation that fits in another unit than the first.
    report_units: bool = False
    # Reads an output item the shared reader does not (True: read); its search calls, say.
    read_item: Callable[[Response, WebSources, dict[str, Any]], bool] | None = None
    # Reads what the final response object holds beside its output.
    read_final: Callable[[Response, WebSources, dict[str, Any]], None] | None = None
    # Cites what the whole answer text holds beyond the annotations, once every source is in.
    read_text: Callable[[Response], None] | None = None


# --- Responses ------------------------------------------------------------------------------------


def read_responses(values: Iterable[dict[str, Any]], streamed: bool, dialect: Dialect) -> Response:
    """A response of the Responses shape, as ``dialect``'s provider answers in it."""
    response = Response(dialect.provider, dialect.api, streamed)
    output = _Output()
    if streamed:
        final, error = _read_stream(response, output, values)
    else:
        final, error = next(iter(values)), None
        for index, item in enumerate(dicts_in(final.get("output"))):
            output.read_item(index, item)
    if final is not None:
        response.id = str_or_none(final.get("id")) or response.id
        response.model = str_or_none(final.get("model")) or response.model
    _read_output(response, output, dialect, final)
    _set_status(response, final, error)
    return response


def _read_stream(
    response: Response, output: _Output, events: Iterable[dict[str, Any]]
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    final: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    last_where, last_part = None, None  # text deltas come in runs of one part: it is looked up once
    for event in events:
        kind = event.get("type")
        kind = kind if type(kind) is str else None
        if kind == "response.output_text.delta" and "response" not in event:  # nearly every event of a stream
            item_id = event.get("item_id")
            output_index = event.get("output_index")
            output_index = output_index if type(output_index) is int else 0
            if type(item_id) is str and item_id:
                output_index = output.index_of.get(item_id, output_index)
            content_index = event.get("content_index")
            where = (output_index, content_index if type(content_index) is int else 0)
            if where != last_where or last_part is None:
                last_where, last_part = where, output.part(*where)
            delta = event.get("delta")
            last_part.deltas.append(delta if type(delta) is str and delta else "")
            last_part.refusal = False
            continue
        inner = dict_or_empty(event.get("response"))
        if inner:
            response.id = response.id or str_or_none(inner.get("id"))
            response.model = str_or_none(inner.get("model")) or response.model
        item_id = str_or_none(event.get("item_id"))
        output_index = (
            output.index_of.get(item_id, int_or_zero(event.get("output_index")))
            if item_id
            else int_or_zero(event.get("output_index"))
        )
        where = (output_index, int_or_zero(event.get("content_index")))
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            part = output.part(*where)
            part.deltas.append(str_or_none(event.get("delta")) or "")
            part.refusal = kind == "response.refusal.delta"
        elif kind == "response.output_text.done":
            output.part(*where).set_text(str_or_none(event.get("text")))
        elif kind == "response.refusal.done":
            output.part(*where).set_text(str_or_none(event.get("refusal")))
        elif kind in _REASONING_EVENTS:
            _read_reasoning_event(output, output_index, kind, event)
        elif kind == "response.output_text.annotation.added" and isinstance(event.get("annotation"), dict):
            output.part(*where).add_annotation(event.get("annotation_index"), event["annotation"])
        elif kind in ("response.content_part.done", "response.content_part.added"):
            content = dict_or_empty(event.get("part"))
            if content.get("type", "output_text") in ("output_text", "refusal"):  # not a reasoning part (DeepSeek's)
                output.part(*where).add_annotations(dicts_in(content.get("annotations")))
        elif kind in ("response.output_item.done", "response.output_item.added") and isinstance(
            event.get("item"), dict
        ):
            # An added item only says an item begins; its (empty) content is not the answer.
            output.read_item(int_or_zero(event.get("output_index")), event["item"], with_content=kind.endswith("done"))
        elif kind in _TERMINAL:
            status = inner.get("status") or ("completed" if kind == "response.done" else kind.removeprefix("response."))
            final = {**inner, "status": status}
            # The final body repeats every item; annotations it lost (gateways drop them) stay from the stream.
            for index, item in enumerate(dicts_in(inner.get("output"))):
                output.read_item(index, item)
        elif kind == "error":
            error = event
    if final is None and error is None:
        response.mark_incomplete(phrase("stream ended without {event}", event="response.completed"))
    return final, error


def _read_reasoning_event(output: _Output, output_index: int, kind: str, event: dict[str, Any]) -> None:
    """A delta of a reasoning item's text, or the whole text of one of its parts."""
    listed_in = _REASONING_EVENTS[kind]
    index = int_or_zero(event.get("content_index" if listed_in == "content" else "summary_index"))
    thought = output.thought(output_index, listed_in, index)
    if kind.endswith(".delta"):
        thought.deltas.append(str_or_none(event.get("delta")) or "")
    elif kind.startswith("response.reasoning_summary_part."):
        thought.set_text(str_or_none(dict_or_empty(event.get("part")).get("text")))
    else:
        thought.set_text(str_or_none(event.get("text")))


@dataclass
class _Placing:
    """Where a response's annotations are placed: its sources, its provider's ways, and (where the
    unit is unsettled) the units each span fitted in."""

    response: Response
    table: WebSources
    dialect: Dialect
    unit_fits: list[list[str]] = field(default_factory=list)
    _without_position: set[str] = field(default_factory=set)
    in_order: list[str] = field(default_factory=list)  # every annotation cited without a place, in order
    annotations: int = 0  # every annotation read

    def cite_without_position(self, key: str) -> None:
        self.in_order.append(key)
        if key not in self._without_position:
            self._without_position.add(key)
            self.response.cited_without_position.append(key)


def _read_output(response: Response, output: _Output, dialect: Dialect, final: dict[str, Any] | None) -> None:
    table = WebSources(response)
    placing = _Placing(response, table, dialect)
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
            _annotate(placing, text, position, number, annotation)
        pieces.append(text)
        position += len(text)
    response.text = "".join(pieces)
    response.reasoning.extend(_thinking(output))
    for _, item in sorted(output.items.items()):
        if dialect.read_item is None or not dialect.read_item(response, table, item):
            _read_tool_item(response, table, item)
    if final is not None and dialect.read_final is not None:
        dialect.read_final(response, table, final)
    _finish_citations(placing)


def _thinking(output: _Output) -> list[ReasoningText]:
    """Each reasoning item with text, in output order, as thinking shown apart from the answer: its
    reasoning_text (the whole reasoning, where the API gives it; its summary would only repeat it),
    else its summary's parts a blank line apart. An item with neither (an empty summary, only
    encrypted content) shows nothing."""
    texts: dict[int, dict[str, list[str]]] = {}
    for (item_index, kind, _), thought in sorted(output.thoughts.items()):
        text = thought.full_text
        if text.strip():
            texts.setdefault(item_index, {}).setdefault(kind, []).append(text)
    return [
        ReasoningText("thinking", "\n\n".join(parts.get("content") or parts["summary"]))
        for _, parts in sorted(texts.items())
    ]


def _finish_citations(placing: _Placing) -> None:
    """What every answer of these shapes gets once its annotations are placed: the provider's own
    reading of the text, its inline citation tokens, the unit report, sources in citation order."""
    response = placing.response
    if placing.dialect.annotations_in_order and 0 < len(placing.in_order) == placing.annotations:
        response.listed_in_order = ListedInOrder(tuple(placing.in_order), "annotations")
    if placing.dialect.read_text is not None:
        placing.dialect.read_text(response)
    cite_inline_tokens(response, inline_tokens(response.text))
    if placing.dialect.report_units:
        _report_units(response, placing.unit_fits, [reading.unit for reading in placing.dialect.readings])
    placed = {key for citation in response.citations for key in citation.source_keys}
    response.cited_without_position = [k for k in response.cited_without_position if k not in placed]
    _order_sources_by_first_citation(response)


def _order_sources_by_first_citation(response: Response) -> None:
    """Footnotes are numbered by first appearance in the text, whatever order the annotations came in."""
    first: dict[str, int] = {}
    for citation in sorted(response.citations, key=lambda c: c.start):
        for key in citation.source_keys:
            first.setdefault(key, citation.start)
    order = {source.key: n for n, source in enumerate(response.sources)}
    response.sources.sort(key=lambda s: (s.key not in first, first.get(s.key, 0), order[s.key]))


def _annotate(placing: _Placing, text: str, shift: int, number: int, annotation: dict[str, Any]) -> None:
    placing.annotations += 1
    kind = annotation.get("type")
    response, table = placing.response, placing.table
    if kind == "url_citation":
        url = str_or_none(annotation.get("url"))
        title = str_or_none(annotation.get("title"))
        title = None if title == url else title  # xAI repeats the address as the title
        key = table.page(url, title) if url else table.add(f"annotation-{number}", kind="web", url=None, title=title)
        span = _Span(annotation.get("start_index"), annotation.get("end_index"), number, key)
        if url:
            span.expect_link(url)
        _place_span(placing, text, shift, span)
    elif kind in ("file_citation", "file_path"):
        _annotate_file(placing, text, shift, number, annotation, kind)
    elif kind == "container_file_citation":  # a file the code interpreter wrote, linked where the answer names it
        key = _file_source(table, annotation, annotation, generated=True)
        start, end = annotation.get("start_index"), annotation.get("end_index")
        if start == end == 0:
            return  # the image the code drew, shown with the answer: listed as the file it is, no citation
        _place_span(placing, text, shift, _Span(start, end, number, key))
    else:
        note_unknown_citation(
            response,
            phrase("An annotation of a type citeview does not know ({kind}) is not placed.", kind=str(kind)),
            str(kind),
        )


def _annotate_file(
    placing: _Placing, text: str, shift: int, number: int, annotation: dict[str, Any], kind: str
) -> None:
    """A file_citation or file_path: an insertion point (``index``), or in older shapes a span with the
    marker it covers (``text``) and the ids and quote in an object of its own (``file_citation``)."""
    nested = dict_or_empty(annotation.get(kind))
    key = _file_source(placing.table, annotation, nested, generated=kind == "file_path")
    quote = str_or_none(_field(annotation, nested, "quote"))
    start, end, index = annotation.get("start_index"), annotation.get("end_index"), annotation.get("index")
    if is_int(start) and is_int(end):
        span = _Span(start, end, number, key, cited_text=quote)
        marker = str_or_none(annotation.get("text"))
        if marker:
            span.expect_text(marker)
        _place_span(placing, text, shift, span)
    elif is_int(index) and 0 <= index <= len(text):
        placing.response.citations.append(Citation(shift + index, shift + index, [key], cited_text=quote))
    elif is_int(index):
        outside = phrase(
            "The {kind} of {key} has no index inside the text; it is listed, not placed.", kind=kind, key=key
        )
        note_no_span(placing.response, outside, key=key, index=index)
    else:  # no position at all (some responses lack index): the message cites the file, nowhere in particular
        placing.cite_without_position(key)


def _field(annotation: dict[str, Any], nested: dict[str, Any], name: str) -> Any:
    value = annotation.get(name)
    return value if value is not None else nested.get(name)


def _file_source(
    table: SourceTable, annotation: dict[str, Any], nested: dict[str, Any], *, generated: bool = False
) -> str:
    file_id = str_or_none(_field(annotation, nested, "file_id")) or "file:unknown"
    filename = str_or_none(_field(annotation, nested, "filename"))
    extra: dict[str, Any] = {"filename": filename, "container_id": str_or_none(annotation.get("container_id"))}
    if generated:
        extra["generated_file"] = True  # a file the model wrote (file_path), not one it read
    return table.add(file_id, kind="file", url=None, title=filename, extra=extra)


@dataclass
class _Span:
    """An annotation's span as given, and what it should cover: its link, or the marker it names."""

    start: Any
    end: Any
    number: int
    key: str
    cited_text: str | None = None
    url: str | None = None
    text: str | None = None

    def expect_link(self, url: str) -> None:
        self.url = url

    def expect_text(self, text: str) -> None:
        self.text = text

    @property
    def checked(self) -> bool:
        return self.url is not None or self.text is not None

    def fits(self, covered: str) -> bool:
        if not covered:
            return False  # a span that covers nothing covers no link
        if self.text is not None:
            return covered == self.text
        return self.url is not None and (_covers_link(covered, self.url) or is_inline_token(covered))


def _place_span(placing: _Placing, text: str, shift: int, span: _Span) -> None:
    response, number, key = placing.response, span.number, span.key
    start, end = span.start, span.end
    positionless = placing.dialect.positionless_citations and span.url is not None
    if not (is_int(start) and is_int(end)):
        if positionless and start is None and end is None:
            placing.cite_without_position(key)
            return
        note_no_span(
            response,
            phrase("Annotation {number} for {key} has no span; it is listed, not placed.", number=number, key=key),
            key=key,
        )
        return
    if start == end:
        if positionless and start == 0:
            placing.cite_without_position(key)
            return
        what = phrase(
            "Annotation {number} for {key} marks no text (start = end = {start}); it is listed, not placed.",
            number=number,
            key=key,
            start=start,
        )
        note_marks_nothing(response, what, key=key)
        return
    dialect = placing.dialect
    fits = span.fits if span.checked else None
    placement = place_checked(text, start, end, dialect.readings, fits, every=dialect.report_units)
    if span.url is not None and dialect.report_units:
        placing.unit_fits.append([reading.unit for reading in placement.fitted])
    if placement.problem is None:
        _note_unit(placing, span, placement.reading)
    elif placement.start is None:
        outside = phrase(
            "Annotation {number} for {key} spans characters {start}–{end}, outside its text of {length}; not placed.",
            number=number,
            key=key,
            **outside_values(text, start, end),
        )
        note_placement(response, placement, "warning", outside, key=key, start=start, end=end)
        return
    else:
        note_placement(response, placement, "warning", _mismatch(span, text[start:end]), key=key, start=start, end=end)
    if placement.start is not None and placement.end is not None:
        citation = Citation(shift + placement.start, shift + placement.end, [key], cited_text=span.cited_text)
        response.citations.append(citation)


def _note_unit(placing: _Placing, span: _Span, reading: Reading | None) -> None:
    """An annotation that fits its link only in another unit than code points, said per annotation
    unless the dialect says once which unit the whole answer uses."""
    if reading is None or reading.unit == "code_points" or placing.dialect.report_units:
        return
    unit = reading.unit
    message = phrase(
        "Annotation {number} fits its link only when its offsets are read as {unit}.",
        number=span.number,
        unit=UNIT_WORDS[unit],
    )
    note_unit(placing.response, message, key=span.key, start=span.start, end=span.end, unit=unit)


def _mismatch(span: _Span, covered: str) -> Phrase:
    """What a reviewer is told of an annotation whose span does not cover what it should."""
    if span.url is not None:
        return phrase(
            "Annotation {number} should cover the link to {domain}, but its span holds {covered!r}; "
            "the text may have been changed after the offsets were computed.",
            number=span.number,
            domain=_domain(span.url),
            covered=covered[:60],
        )
    return phrase(
        "Annotation {number} should cover {expected!r}, but its span holds {covered!r}; "
        "the text may have been changed after the offsets were computed.",
        number=span.number,
        expected=(span.text or "")[:60],
        covered=covered[:60],
    )


UNIT_WORDS = {
    "code_points": phrase("code points"),
    "utf16": phrase("UTF-16 code units"),
    "utf8": phrase("UTF-8 bytes"),
}


def _report_units(response: Response, unit_fits: list[list[str]], units: list[str]) -> None:
    """Which unit the positioned url_citations fit their links in: once per response, since the
    provider does not say (``../shared/docs/provider-formats.md`` §11, question 15)."""
    fitted = [fits for fits in unit_fits if fits]
    if not fitted:
        return  # none fitted: each has its own note that its span holds other text
    common = [unit for unit in units if all(unit in fits for fits in fitted)]
    details = {"units": common, "fitted": len(fitted), "total": len(unit_fits)}
    if len(common) == 1:
        message = phrase(
            "The positions of {count} of {total} url_citation annotation(s) fit the links they cover when read "
            "as {unit}.",
            count=len(fitted),
            total=len(unit_fits),
            unit=UNIT_WORDS[common[0]],
        )
    elif set(common) == {reading.unit for reading in UNITS}:
        message = phrase(
            "The positions of {count} of {total} url_citation annotation(s) fit the links they cover; the text "
            "before them is plain ASCII, where code points, UTF-16 code units and UTF-8 bytes agree, so this "
            "answer does not settle the unit.",
            count=len(fitted),
            total=len(unit_fits),
        )
    elif set(common) == {"code_points", "utf16"}:
        message = phrase(
            "The positions of {count} of {total} url_citation annotation(s) fit the links they cover when read "
            "as code points or as UTF-16 code units, which agree on this text (no character outside the Basic "
            "Multilingual Plane comes before them); they are not UTF-8 bytes.",
            count=len(fitted),
            total=len(unit_fits),
        )
    else:
        counts = ", ".join(f"{unit} {sum(unit in fits for fits in fitted)}" for unit in units)
        message = phrase(
            "The positions of the url_citation annotations fit their links in different units ({counts}); "
            "each is placed in the first unit that fits it.",
            counts=counts,
        )
    note_unit(response, message, **details)


def _covers_link(covered: str, url: str) -> bool:
    """The span should be exactly the link the model wrote to this URL: ``([domain](url))``,
    ``[title](url)``, xAI's ``[[1]](url)``, or the bare URL or domain. A span that starts or ends
    elsewhere, or holds another address, was computed on another text."""
    bare = without_tracking(url)
    if covered.count("(") == covered.count(")") and (target := _link_target(covered)) is not None:
        return without_tracking(target) == bare
    return covered in (url, bare, _domain(url))


def _link_target(covered: str) -> str | None:
    """The address of ``[text](address)`` or ``([text](address))``; None if ``covered`` is no such link.
    The address may end in a parenthesis of its own (``…/XAI_(company)``)."""
    if covered.startswith("([") and covered.endswith("))"):
        covered = covered[1:-1]
    if not (covered.startswith("[") and covered.endswith(")")):
        return None
    cut = covered.rfind("](")
    return covered[cut + 2 : -1] if cut >= 0 else None


@lru_cache(maxsize=4096)  # asked for every annotation and every source it is compared with
def without_tracking(url: str) -> str:
    """The address without the ``utm_source`` OpenAI appends, to tell one page from another."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL a browser could open ("https://[::1"): compared as written
        return url
    query = "&".join(p for p in parts.query.split("&") if p and not p.startswith("utm_source="))
    return parts._replace(query=query).geturl()


class WebSources(SourceTable):
    """A response's sources, where a web page is one source whatever tracking its address carries
    (the search's plain URL, the citation's ``?utm_source=openai``): found by page in constant time,
    since a response can name tens of thousands."""

    def __init__(self, response: Response) -> None:
        super().__init__(response)
        self._pages: dict[str, str] = {}  # an address without tracking -> the key of its web source

    @classmethod
    def of(cls, response: Response) -> WebSources:
        table = cast(WebSources, super().of(response))
        for source in response.sources:
            table._index(source)
        return table

    def add(
        self, key: str, *, kind: str, url: str | None, title: str | None, extra: dict[str, Any] | None = None
    ) -> str:
        stored_key = super().add(key, kind=kind, url=url, title=title, extra=extra)
        self._index(self.get(stored_key))
        return stored_key

    def page(self, url: str, title: str | None) -> str:
        """The source of the page at ``url``, added if it is new; a title it lacked is filled in."""
        key = self._pages.get(without_tracking(url))
        if key is None:
            return self.add(url, kind="web", url=url, title=title)
        source = self.get(key)
        source.title = source.title or title
        return key

    def _index(self, source: Source) -> None:
        if source.kind == "web" and source.url:
            self._pages.setdefault(without_tracking(source.url), source.key)


class PlacedSpans:
    """The citations' spans, to ask whether one overlaps a stretch of text (in log time)."""

    def __init__(self, citations: list[Citation]) -> None:
        spans = sorted((c.start, c.end) for c in citations)
        self.starts = [start for start, _ in spans]
        self.furthest_end: list[int] = []  # the furthest end among the spans up to each
        for _, end in spans:
            self.furthest_end.append(max(end, self.furthest_end[-1] if self.furthest_end else end))

    def overlaps(self, start: int, end: int) -> bool:
        before = bisect.bisect_left(self.starts, end)  # the spans that start before ``end``
        return before > 0 and self.furthest_end[before - 1] > start


@lru_cache(maxsize=4096)  # asked for every annotation whose span does not hold its link
def _domain(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").removeprefix("www.")
    except ValueError:
        return ""


def _read_tool_item(response: Response, table: WebSources, item: dict[str, Any]) -> None:
    kind = item.get("type")
    if kind == "web_search_call":
        read_web_search_call(response, table, item)
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
                source.extra["snippet_kind"] = "retrieved_passage"
            keys.append(key)
        response.searches.append(SearchBatch(strings_in(item.get("queries")), list(dict.fromkeys(keys))))


def read_web_search_call(response: Response, table: WebSources, item: dict[str, Any]) -> None:
    """A web search with its ``action``: its queries, and the pages it returned or opened as sources."""
    action = dict_or_empty(item.get("action"))
    queries = [q for q in [str_or_none(action.get("query"))] if q] + strings_in(action.get("queries"))
    keys = []
    for consulted in dicts_in(action.get("sources")):
        url, name = str_or_none(consulted.get("url")), str_or_none(consulted.get("name"))
        if url:
            keys.append(table.page(url, None))
        elif name:  # an API the search asked ({"type": "api", "name": "oai-weather"}): no page, a tool
            keys.append(table.add(f"api:{name}", kind="tool", url=None, title=name))
        else:
            continue
        table.get(keys[-1]).extra["consulted"] = True  # the search read it: cited or not, no problem
    # open_page and find_in_page name the page they read: it is a source too.
    opened = str_or_none(action.get("url"))
    if opened:
        keys.append(table.page(opened, None))
    if action.get("type") == "find_in_page" and str_or_none(action.get("pattern")):
        queries.append(f"find “{action['pattern']}”")
    if queries or keys:
        response.searches.append(SearchBatch(list(dict.fromkeys(queries)), list(dict.fromkeys(keys))))


def _set_status(response: Response, final: dict[str, Any] | None, error: dict[str, Any] | None) -> None:
    if error is not None:
        response.mark_failed(error)
        return
    if final is None:
        return  # the stream reader said what is missing
    reason = str_or_none(dict_or_empty(final.get("incomplete_details")).get("reason"))
    response.set_status(final.get("status"), final.get("error"), reason)


# --- Chat Completions -----------------------------------------------------------------------------


def read_chat_completions(values: Iterable[dict[str, Any]], streamed: bool, dialect: Dialect) -> Response:
    """A completion of the Chat Completions shape, whole or streamed, as ``dialect``'s provider answers in it."""
    response = Response(dialect.provider, dialect.api, streamed)
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
    table = WebSources(response)
    placing = _Placing(response, table, dialect)
    for number, annotation in enumerate(annotations):
        nested = dict_or_empty(annotation.get("url_citation"))
        flat = {"type": annotation.get("type"), **nested} if nested else annotation
        if flat.get("type") == "url_citation" and isinstance(nested.get("content"), str):
            url = str_or_none(flat.get("url"))
            if url:  # OpenRouter: the text of the page the search found
                extra = {"snippet": nested["content"], "snippet_kind": "search_snippet"}
                table.add(url, kind="web", url=url, title=str_or_none(flat.get("title")), extra=extra)
        _annotate(placing, response.text, 0, number, flat)
    _finish_citations(placing)
    _set_finish(response, finish_reason, error)
    return response


def _set_finish(response: Response, finish_reason: str | None, error: dict[str, Any] | None) -> None:
    if error:
        response.mark_failed(error)
        return
    if error is not None or finish_reason == "error":
        response.mark_failed(detail=phrase("{field} {reason}", field="finish_reason", reason="error"))
        return
    why = {
        "length": phrase("the answer was cut off at the token limit"),
        "content_filter": phrase("the content filter stopped it"),
    }
    response.set_finish(
        finish_reason, field="finish_reason", completed={"stop", "tool_calls", "function_call"}, why=why
    )


# --- Detection: the two shapes OpenAI made, which other providers answer in too -------------------


def _responses_value(value: dict[str, Any]) -> ValueKind | None:
    kind = value.get("type")
    if isinstance(kind, str) and kind.startswith("response."):
        return "event"
    if value.get("object") == "response" and "output" in value:
        return "whole"
    return None


def _decide_responses(kind: str | None, keys: frozenset[str]) -> Decision | None:
    if kind is not None and kind.startswith("response."):
        return "event"
    return None if "object" in keys and "output" in keys else NEITHER


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
        if "response" not in value:  # (a text delta: nearly every event of a stream)
            return value.get("type") == "response.created" and self.created
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
        if "response" in value and (response_id := _event_response_id(value)):
            self.response_ids.add(response_id)


def _chat_value(value: dict[str, Any]) -> ValueKind | None:
    return "chunk" if "choices" in value else None


def _decide_chat(kind: str | None, keys: frozenset[str]) -> Decision | None:
    return "chunk" if "choices" in keys else NEITHER


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
    accumulated text extends the stream's continues it whatever its id. Some servers (Groq's
    compound systems) give every chunk an id of its own: in a stream whose ids have never repeated,
    a chunk of the same model continues it until a finish reason ends it."""

    def __init__(self) -> None:
        self.finished = False  # a finish reason was seen
        self.last_message_text = ""
        self.last_id: Any = None
        self.ids_repeat = False  # two chunks in a row shared an id: ids name the completion

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        if value.get("id") == previous.get("id"):
            return self.finished and _is_whole_completion(value)
        if self.finished and _is_whole_completion(value):
            return True  # after a finished completion, one of another id is the next, even with the same text
        if self._ids_name_chunks(value, previous):
            return False
        so_far = self.last_message_text
        text = _message_text(value)
        return not (so_far and text and text.startswith(so_far))

    def _ids_name_chunks(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        return (
            not (self.finished or self.ids_repeat)
            and value.get("object") == previous.get("object") == "chat.completion.chunk"
            and value.get("model") == previous.get("model")
        )

    def add(self, value: dict[str, Any]) -> None:
        self.finished = self.finished or bool(_finish_reason(value))
        self.last_message_text = _message_text(value) or self.last_message_text
        self.ids_repeat = self.ids_repeat or value.get("id") == self.last_id
        self.last_id = value.get("id")


def names_a_response(value: dict[str, Any]) -> bool:
    """A response id or the response object: a value that would show Perplexity's marks if it had any."""
    return bool(_event_response_id(value)) or value.get("object") == "response"


def model_named(value: dict[str, Any]) -> str | None:
    """The model a body, a chunk or an event holding the ``response`` names."""
    # Asked of the values of streams no API marks early: no call it can spare.
    inner = value.get("response")
    model = (inner if isinstance(inner, dict) and inner else value).get("model")
    return model if type(model) is str else None


def has_completion_id(value: dict[str, Any]) -> bool:
    return str(value.get("id", "")).startswith("chatcmpl-")


# --- The shapes -----------------------------------------------------------------------------------

RESPONSES_SHAPE = Shape(
    name="responses",
    priority=10,
    recognise=_responses_value,
    new_splitter=_ResponsesStream,
    decide=_decide_responses,
)
CHAT_SHAPE = Shape(
    name="chat",
    priority=20,
    recognise=_chat_value,
    new_splitter=_ChatStream,
    whole_when_alone=_is_whole_completion,
    decide=_decide_chat,
)
