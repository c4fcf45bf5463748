"""Cohere: Chat v2 (``cohere.chat_v2``, ``POST /v2/chat``) and Chat v1 (``cohere.chat_v1``).

A citation marks a span of the answer with ``start``/``end`` and repeats the span as ``text``. A v2
citation carries its sources whole (a document the caller sent, a tool's output); a v1 citation
names ``documents`` by id (``../shared/docs/provider-formats.md`` §5). Whether the offsets count code
points or UTF-16 units is unsettled (§11 item 13), so every span is checked against its ``text``:
code points first, then UTF-16 units, then the text found once near where the offsets point; a
diagnostic says which reading placed them. Plan and thinking citations are not the answer's: they
go with the plan or thinking text they mark (``Response.reasoning``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from citeview.core.common.model import Citation, Marker, ReasoningText, Response, SearchBatch
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.detection.registry import (
    NEITHER,
    ApiFormat,
    Decision,
    Provider,
    Shape,
    StreamSplitter,
    ValueKind,
    register,
)
from citeview.core.parsing.citing import note_unknown_citation, note_unknown_event_types
from citeview.core.parsing.jsonvalues import dict_or_empty, dicts_in, int_or_zero, is_int, str_or_none
from citeview.core.parsing.offsets import kept_utf16_offsets
from citeview.core.parsing.placing import (
    CODE_POINTS,
    UTF16,
    fitting,
    note_no_span,
    note_placement,
    note_unit,
    reanchor,
)
from citeview.core.parsing.sources import SourceTable

# Citation types whose span lies outside the answer (an open enum: anything else is read as the answer's).
_THINKING, _PLAN, _ANSWER = "THINKING_CONTENT", "PLAN", "TEXT_CONTENT"
_SHOWN_CHARS = 60  # of a span or a cited text in a diagnostic
_READINGS = (CODE_POINTS, UTF16)  # whether Cohere's offsets count code points or UTF-16 units is unsettled


def _shown(text: str) -> str:
    return text[:_SHOWN_CHARS]


# --- Placing a span on its text ---------------------------------------------------------------------


@dataclass
class _Tally:
    """How the citations of one text were placed, for one note per way rather than one per citation."""

    utf16: int = 0
    decided_code_points: int = 0  # code points, where UTF-16 units would have marked another span
    in_block: int = 0  # counted from the start of their own content block


class _Placing:
    """A text citations are placed on (the answer, the thinking, the plan), made of content blocks.

    Offsets may count within the block ``content_index`` names or within the whole text: both are
    tried, the block first."""

    def __init__(self, where: Phrase, blocks: list[tuple[int, str]]) -> None:
        self.where = where
        self.text = "".join(block for _, block in blocks)
        self.block_at: dict[int, tuple[int, str]] = {}
        position = 0
        for index, block in blocks:
            self.block_at.setdefault(index, (position, block))
            position += len(block)
        self.tally = _Tally()

    def place(self, response: Response, number: int, citation: dict[str, Any]) -> tuple[int, int] | None:
        """The code-point span of ``citation`` in this text, or None (and a diagnostic) when it does not fit."""
        start, end, cited = citation.get("start"), citation.get("end"), str_or_none(citation.get("text"))
        if not (is_int(start) and is_int(end)):
            no_span = phrase(
                "Citation {number} ({text!r}) of {where} has no start and end; its sources are listed as "
                "cited, not placed.",
                number=number,
                text=_shown(cited or ""),
                where=self.where,
            )
            note_no_span(response, no_span, citation=number)
            return None
        tries = [(0, self.text, False)]
        index = citation.get("content_index")
        block = self.block_at.get(index) if is_int(index) else None
        if block is not None and (block[0] != 0 or len(block[1]) != len(self.text)):
            tries.insert(0, (*block, True))
        for base, part, in_block in tries:
            span = self._fit(part, start, end, cited)
            if span is not None:
                self.tally.in_block += in_block
                return base + span[0], base + span[1]
        return self._reanchor(response, number, start, end, cited, tries[0][0])

    def _fit(self, part: str, start: int, end: int, cited: str | None) -> tuple[int, int] | None:
        """The span in code points, else in UTF-16 units, that holds ``cited`` (or, with no text to
        check it by, the span in code points), tallying which reading decided."""
        if cited is None:
            return CODE_POINTS.span(part, start, end)
        # With no astral character before the span's end, both readings mark the same span: the first
        # to fit is the only one asked for.
        astral_before = kept_utf16_offsets(part).any_astral_before(end)
        fitted = fitting(part, start, end, _READINGS, cited.__eq__, every=astral_before)
        if fitted is None or fitted.start is None or fitted.end is None:
            return None
        if fitted.reading is UTF16:
            self.tally.utf16 += 1
        elif astral_before and len(fitted.fitted) < len(_READINGS):
            self.tally.decided_code_points += 1  # UTF-16 units would have marked other text
        return fitted.start, fitted.end

    def _reanchor(
        self, response: Response, number: int, start: int, end: int, cited: str | None, base: int
    ) -> tuple[int, int] | None:
        """The citation's text where it stands once near where its offsets point, else nothing: never a guess."""
        around = base + start  # offsets far outside the text are near nothing in it
        fits = 0 <= start <= end <= len(self.text)
        placement = reanchor(self.text, cited, around, offsets_fit=fits)
        values = {"number": number, "text": _shown(cited or ""), "start": start, "end": end, "where": self.where}
        details = {"citation": number, "start": start, "end": end}
        if fits and placement.placed:
            message = phrase(
                "Citation {number} ({text!r}) says characters {start}–{end} of {where}, which hold {found!r}; "
                "it is placed where its text stands nearby.",
                found=self.text[start : min(end, start + _SHOWN_CHARS)],
                **values,
            )
        elif fits:
            message = phrase(
                "Citation {number} ({text!r}) says characters {start}–{end} of {where}, which hold {found!r}, "
                "and its text does not stand once nearby; its sources are listed as cited, not placed.",
                found=self.text[start : min(end, start + _SHOWN_CHARS)],
                **values,
            )
        elif placement.placed:
            message = phrase(
                "Citation {number} ({text!r}) gives characters {start}–{end}, which do not fit {where} of "
                "{length} characters; it is placed where its text stands nearby.",
                length=len(self.text),
                **values,
            )
        else:
            message = phrase(
                "Citation {number} ({text!r}) gives characters {start}–{end}, which do not fit {where} of "
                "{length} characters; its sources are listed as cited, not placed.",
                length=len(self.text),
                **values,
            )
        if placement.start is None or placement.end is None:
            note_placement(response, placement, "warning", message, **details)
            return None
        placed = (placement.start, placement.end)
        note_placement(response, placement, "warning", message, placed_start=placed[0], placed_end=placed[1], **details)
        return placed

    def summarise(self, response: Response) -> None:
        """Which reading of the offsets placed the citations, where it was not the only one possible."""
        tally, where = self.tally, self.where
        if tally.utf16:
            message = phrase(
                "{count} citation(s) of {where} fit their text only when their offsets are read as UTF-16 code units.",
                count=tally.utf16,
                where=where,
            )
            note_unit(response, message, unit="utf16", count=tally.utf16)
        if tally.decided_code_points:
            message = phrase(
                "{count} citation(s) of {where} fit their text with offsets read as code points, where "
                "UTF-16 code units would not.",
                count=tally.decided_code_points,
                where=where,
            )
            note_unit(response, message, unit="code_points", count=tally.decided_code_points)
        if tally.in_block:
            message = phrase(
                "{count} citation(s) of {where} count their offsets from the start of their own content "
                "block (content_index), not of the whole text.",
                count=tally.in_block,
                where=where,
            )
            note_unit(response, message, base="content_block", count=tally.in_block)


def _first_difference(one: str, other: str) -> int | None:
    """Where two texts first differ (None when they do not), comparing long stretches at once."""
    if one == other:
        return None
    shorter, step, position = min(len(one), len(other)), 4096, 0
    while position < shorter and one[position : position + step] == other[position : position + step]:
        position += step
    while position < shorter and one[position] == other[position]:
        position += 1
    return position


def _note_stream_difference(response: Response, streamed: str, final: str) -> None:
    position = _first_difference(streamed, final)
    if position is None or not streamed:
        return
    response.diagnose(
        "stream_text_mismatch",
        "warning",
        phrase(
            "The streamed text and the final response's text differ from character {position} on (streamed: "
            "{streamed!r}, final: {final!r}). The final text is shown and the citations are placed on it.",
            position=position,
            streamed=_shown(streamed[position:]),
            final=_shown(final[position:]),
        ),
        position=position,
        streamed_length=len(streamed),
        final_length=len(final),
    )


# --- Citing ---------------------------------------------------------------------------------------------


@dataclass
class _Texts:
    """The texts of one response that citations are placed on, by citation type."""

    answer: _Placing
    thinking: _Placing
    plan: _Placing

    def for_type(self, response: Response, kind: Any, unknown: set[str]) -> tuple[_Placing, str]:
        if kind == _THINKING:
            return self.thinking, "thinking"
        if kind == _PLAN:
            return self.plan, "plan"
        if kind not in (None, _ANSWER) and str(kind) not in unknown:
            unknown.add(str(kind))
            note_unknown_citation(
                response,
                phrase(
                    "Citations of a type citeview does not know ({type}) are read as citations of the answer.",
                    type=str(kind),
                ),
                str(kind),
            )
        return self.answer, "answer"


def _texts(answer: list[tuple[int, str]], thinking: list[tuple[int, str]], plan: str) -> _Texts:
    return _Texts(
        _Placing(phrase("the answer"), answer),
        _Placing(phrase("the thinking"), thinking),
        _Placing(phrase("the plan"), [(0, plan)]),
    )


def _cite(
    response: Response,
    texts: _Texts,
    citations: list[dict[str, Any]],
    keys_of: Callable[[int, dict[str, Any]], list[str]],
) -> None:
    """Place every citation on its text with the sources ``keys_of`` finds for it; the sources of one
    that does not fit are listed as cited without a position, never placed at a guess."""
    reasoning: dict[str, list[Citation]] = {"thinking": [], "plan": []}
    unknown_types: set[str] = set()
    unplaced: dict[str, None] = dict.fromkeys(response.cited_without_position)
    for number, citation in enumerate(_each_let_go(citations), 1):
        placing, kind = texts.for_type(response, citation.get("type"), unknown_types)
        keys = keys_of(number, citation)
        span = placing.place(response, number, citation)
        if not keys:
            _no_source(response, placing, number, citation, span, answer=kind == "answer")
        elif span is None:
            unplaced.update(dict.fromkeys(keys))
        elif kind == "answer":
            response.citations.append(Citation(span[0], span[1], keys))
        else:
            reasoning[kind].append(Citation(span[0], span[1], keys))
    # A source some citation places is shown there; only one placed nowhere is listed without a position.
    placed = {key for c in [*response.citations, *reasoning["thinking"], *reasoning["plan"]] for key in c.source_keys}
    response.cited_without_position = [key for key in unplaced if key not in placed]
    for placing in (texts.answer, texts.thinking, texts.plan):
        placing.summarise(response)
    for kind, placing in (("thinking", texts.thinking), ("plan", texts.plan)):
        if placing.text or reasoning[kind]:
            response.reasoning.append(ReasoningText(kind, placing.text, reasoning[kind]))


def _each_let_go(citations: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The citations in order, each let go by the list once read (the list is left empty): a long
    stream's citation objects, each with its sources, are not all held while they are placed."""
    citations.reverse()
    while citations:
        yield citations.pop()


def _no_source(
    response: Response,
    placing: _Placing,
    number: int,
    citation: dict[str, Any],
    span: tuple[int, int] | None,
    *,
    answer: bool,
) -> None:
    """A citation whose sources are all unknown: where it is placed in the answer, an unresolved mark,
    never a guessed source."""
    covered = placing.text[span[0] : span[1]] if span else str_or_none(citation.get("text")) or ""
    ref = ", ".join(_ids_in(citation.get("document_ids")))
    details: dict[str, Any] = {"marker": covered, "ref": ref, "citation": number}
    if span is not None:
        details.update(start=span[0], end=span[1])
    response.diagnose(
        "unresolved_marker",
        "warning",
        phrase(
            "Citation {number} ({text!r}) of {where} names no source the response holds ({ids}); it points at nothing.",
            number=number,
            text=_shown(covered),
            where=placing.where,
            ids=ref or phrase("no ids"),
        ),
        **details,
    )
    if answer and span is not None:
        response.unresolved.append(Marker(covered, ref, span[0], span[1]))


def _ids_in(value: Any) -> list[str]:
    """The ids in a JSON list: strings, and whole numbers as written."""
    if not isinstance(value, list):
        return []
    return [str(i) for i in value if isinstance(i, str) or is_int(i)]


def _compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_DOCUMENT_NAMING_FIELDS = ("id", "title", "url")


def _document_text(document: dict[str, Any]) -> str | None:
    """The document's words as the caller sent them: its ``text`` or ``snippet``, else its other string fields."""
    for name in ("text", "snippet"):
        if isinstance(document.get(name), str) and document[name]:
            return str(document[name])
    fields = [
        f"{name}: {value}"
        for name, value in document.items()
        if name not in _DOCUMENT_NAMING_FIELDS and isinstance(value, str) and value
    ]
    return "\n".join(fields) or None


class _Unnamed:
    """Keys for sources that come without an id: one per distinct source, said once."""

    def __init__(self, response: Response) -> None:
        self.response = response
        self.keys: dict[str, str] = {}

    def key(self, kind: str, source: Any) -> str:
        content = _compact_json(source)
        if content not in self.keys:
            key = self.keys[content] = f"{kind}:no-id-{len(self.keys) + 1}"
            self.response.diagnose(
                "invalid_source",
                "warning",
                phrase("A source has no id; it is listed as {key}.", key=key),
                key=key,
            )
        return self.keys[content]


def _add_document(
    table: SourceTable, unnamed: _Unnamed, document: dict[str, Any], document_id: str | None, snippet_kind: str
) -> str:
    snippet = _document_text(document)
    return table.add(
        document_id or unnamed.key("document", document),
        kind="document",
        url=str_or_none(document.get("url")),
        title=str_or_none(document.get("title")),
        extra={"snippet": snippet, "snippet_kind": snippet_kind if snippet else None},
    )


# --- Chat v2 ------------------------------------------------------------------------------------------


_V2_EVENTS = {
    "message-start",
    "content-start",
    "content-delta",
    "content-end",
    "tool-plan-delta",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
    "citation-start",
    "citation-end",
    "message-end",
}
_V2_QUIET_EVENTS = {"content-end", "tool-call-delta", "tool-call-end", "citation-end", "debug"}
V2_COMPLETED = {"COMPLETE", "STOP_SEQUENCE", "TOOL_CALL"}
V2_FAILED = {"ERROR"}
V2_WHY = {
    "MAX_TOKENS": phrase("the answer was cut off at the token limit"),
    "TIMEOUT": phrase("the generation timed out"),
}


@dataclass
class _Block:
    kind: str  # "text" | "thinking" | another content type, not shown
    pieces: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        if len(self.pieces) > 1:  # joined once: a long stream's thousands of pieces are let go
            self.pieces = ["".join(self.pieces)]
        return "".join(self.pieces)


@dataclass
class _V2Message:
    """What a v2 body, or a stream so far, says."""

    id: str | None = None
    blocks: dict[int, _Block] = field(default_factory=dict)  # by content index
    plan: list[str] = field(default_factory=list)
    tool_names: dict[str, str] = field(default_factory=dict)  # tool call id -> the tool's name
    citations: list[dict[str, Any]] = field(default_factory=list)
    has_citations: bool = False  # the body gave a citations list (maybe empty)
    finish_reason: str | None = None
    error: Any = None

    def blocks_of(self, kind: str) -> list[tuple[int, str]]:
        """(content index, text) of every block, in order; blocks of another kind count as "" so that
        ``content_index`` still names the right block."""
        return [(i, b.text if b.kind == kind else "") for i, b in sorted(self.blocks.items(), key=lambda item: item[0])]

    def read_tool_call(self, call: dict[str, Any]) -> None:
        call_id, name = str_or_none(call.get("id")), str_or_none(dict_or_empty(call.get("function")).get("name"))
        if call_id and name:
            self.tool_names.setdefault(call_id, name)


def _v2_body(body: dict[str, Any]) -> _V2Message:
    message = dict_or_empty(body.get("message"))
    read = _V2Message(id=str_or_none(body.get("id")), finish_reason=str_or_none(body.get("finish_reason")))
    content = message.get("content")
    if isinstance(content, str):
        read.blocks[0] = _Block("text", [content])
    for index, item in enumerate(content if isinstance(content, list) else []):
        kind = item.get("type") if isinstance(item, dict) else None
        if kind in ("text", "thinking") and isinstance(item, dict):
            read.blocks[index] = _Block(str(kind), [str_or_none(item.get(kind)) or ""])
        else:
            read.blocks[index] = _Block(str(kind))
    plan = str_or_none(message.get("tool_plan"))
    read.plan = [plan] if plan else []
    for call in dicts_in(message.get("tool_calls")):
        read.read_tool_call(call)
    read.has_citations = isinstance(message.get("citations"), list)
    read.citations = dicts_in(message.get("citations"))
    return read


@dataclass
class _V2Stream:
    message: _V2Message = field(default_factory=_V2Message)
    ended: bool = False
    error: dict[str, Any] | None = None
    final: dict[str, Any] | None = None  # the final body, when the dump holds it beside the stream
    unknown_types: list[str | None] = field(default_factory=list)


def _read_v2_stream(values: Iterable[dict[str, Any]]) -> _V2Stream:
    stream = _V2Stream()
    message = stream.message
    shared: dict[str, dict[str, Any]] = {}  # the first of each source id's sources
    for event in values:
        kind = event.get("type")
        # ``delta.message``, or {}: written out (no calls), as this runs for each of a stream's events.
        delta = event.get("delta")
        delta = delta.get("message") if isinstance(delta, dict) else None
        delta = delta if isinstance(delta, dict) else {}
        if kind == "message-start":
            message.id = message.id or str_or_none(event.get("id"))
            message.citations += dicts_in(delta.get("citations"))
        elif kind in ("content-start", "content-delta"):
            _add_content(message, int_or_zero(event.get("index")), dict_or_empty(delta.get("content")))
        elif kind == "tool-plan-delta":
            message.plan.append(str_or_none(delta.get("tool_plan")) or "")
        elif kind == "tool-call-start":
            message.read_tool_call(dict_or_empty(delta.get("tool_calls")))
        elif kind == "citation-start":
            # One citation object, despite the plural name; a list is read too.
            cited = delta.get("citations")
            for citation in [cited] if isinstance(cited, dict) else dicts_in(cited):
                message.citations.append(_sharing_sources(citation, shared))
        elif kind == "message-end":
            stream.ended = True
            end = dict_or_empty(event.get("delta"))
            message.finish_reason = str_or_none(end.get("finish_reason")) or message.finish_reason
            message.error = end.get("error") or message.error
        elif kind == "error":
            stream.error = dict_or_empty(event.get("error")) or event
        elif kind is None and _is_v2_body(event):
            stream.final = event
        elif not (isinstance(kind, str) and kind in _V2_QUIET_EVENTS):
            label = kind if isinstance(kind, str) else None
            if label not in stream.unknown_types:
                stream.unknown_types.append(label)
    return stream


def _sharing_sources(citation: dict[str, Any], shared: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The citation, each of its sources replaced by the first one of its id when they are equal: a
    stream repeats a whole document in every citation of it, and held to its end, those copies were
    most of a long stream's memory."""
    sources = citation.get("sources")
    if isinstance(sources, list):
        citation["sources"] = [_first_equal(source, shared) for source in sources]
    return citation


def _first_equal(source: Any, shared: dict[str, dict[str, Any]]) -> Any:
    source_id = source.get("id") if isinstance(source, dict) else None
    if not isinstance(source_id, str):
        return source
    first = shared.setdefault(source_id, source)
    return first if first == source else source


def _add_content(message: _V2Message, index: int, content: dict[str, Any]) -> None:
    """A content-start or content-delta: its block's kind is the start's type, or what the delta holds."""
    kind = content.get("type")
    if kind not in ("text", "thinking"):
        kind = "thinking" if "thinking" in content and "text" not in content else "text"
    block = message.blocks.setdefault(index, _Block(str(kind)))
    if isinstance(content.get("type"), str):
        block.kind = str(content["type"])
    piece = str_or_none(content.get("text"))
    if piece is None:
        piece = str_or_none(content.get("thinking"))
    if piece:
        block.pieces.append(piece)


def parse_chat_v2(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("cohere", "cohere.chat_v2", streamed)
    stream = _read_v2_stream(values) if streamed else _V2Stream(final=next(iter(values)))
    message = stream.message
    if stream.final is not None:
        final = _v2_body(stream.final)
        if streamed:
            _note_stream_difference(response, _joined(message), _joined(final))
        final.tool_names = {**message.tool_names, **final.tool_names}
        if not final.has_citations:
            final.citations = message.citations
        final.finish_reason = final.finish_reason or message.finish_reason
        final.error = final.error or message.error
        final.id = final.id or message.id
        message = final
    response.id = message.id
    texts = _texts(message.blocks_of("text"), message.blocks_of("thinking"), "".join(message.plan))
    response.text = texts.answer.text
    _cite(response, texts, message.citations, _V2Sources(response, message.tool_names).keys)
    _set_v2_status(response, stream, message)
    note_unknown_event_types(response, stream.unknown_types)
    return response


def _joined(message: _V2Message) -> str:
    return "".join(text for _, text in message.blocks_of("text"))


class _V2Sources:
    """The sources v2 citations carry, each added once: a document the caller sent, a tool's output."""

    def __init__(self, response: Response, tool_names: dict[str, str]) -> None:
        self.response = response
        self.table = SourceTable(response)
        self.unnamed = _Unnamed(response)
        self.tool_names = tool_names
        self.unknown_types: set[str] = set()

    def keys(self, number: int, citation: dict[str, Any]) -> list[str]:
        return list(dict.fromkeys(self._add(source) for source in dicts_in(citation.get("sources"))))

    def _add(self, source: dict[str, Any]) -> str:
        kind = source.get("type")
        source_id = str_or_none(source.get("id"))
        if kind == "tool" or (kind is None and "tool_output" in source):
            return self._add_tool(source, source_id)
        known = kind == "document" or (kind is None and "document" in source)
        if not known and str(kind) not in self.unknown_types:
            self.unknown_types.add(str(kind))
            note_unknown_citation(
                self.response,
                phrase(
                    "A cited source of a type citeview does not know ({type}) is listed with what it holds.",
                    type=str(kind),
                ),
                str(kind),
            )
        document = dict_or_empty(source.get("document"))
        document_id = source_id or str_or_none(document.get("id"))
        return _add_document(self.table, self.unnamed, document, document_id, "document_text")

    def _add_tool(self, source: dict[str, Any], source_id: str | None) -> str:
        # The id is "<tool call id>:<n>" when the caller gave the output none.
        call_id = (source_id.rpartition(":")[0] or source_id) if source_id else None
        output = source.get("tool_output")
        snippet = _compact_json(output) if output is not None else None
        return self.table.add(
            source_id or self.unnamed.key("tool", source),
            kind="tool",
            url=None,
            title=self.tool_names.get(call_id or ""),
            extra={"snippet": snippet, "snippet_kind": "tool_output" if snippet else None, "tool_call_id": call_id},
        )


def _set_v2_status(response: Response, stream: _V2Stream, message: _V2Message) -> None:
    error = stream.error or (
        {"message": str(message.error)} if message.error and not isinstance(message.error, dict) else message.error
    )
    if error:
        response.mark_failed(error)
    elif message.finish_reason in V2_FAILED:
        response.mark_failed(detail=phrase("{field} {reason}", field="finish_reason", reason=message.finish_reason))
    elif response.streamed and not stream.ended and stream.final is None:
        response.mark_incomplete(phrase("stream ended without {event}", event="message-end"))
    else:
        response.set_finish(message.finish_reason, field="finish_reason", completed=V2_COMPLETED, why=V2_WHY)


# --- Chat v1 ------------------------------------------------------------------------------------------

_V1_EVENTS = {
    "stream-start",
    "search-queries-generation",
    "search-results",
    "text-generation",
    "citation-generation",
    "tool-calls-generation",
    "tool-calls-chunk",
    "stream-end",
}
_V1_QUIET_EVENTS = {"stream-start", "search-queries-generation", "debug"}
V1_COMPLETED = {"COMPLETE"}
V1_FAILED = {"ERROR", "ERROR_TOXIC"}
V1_WHY = {
    "MAX_TOKENS": phrase("the answer was cut off at the token limit"),
    "ERROR_LIMIT": phrase("the answer reached the limit of the model's context"),
    "USER_CANCEL": phrase("the request was cancelled"),
}


@dataclass
class _V1Stream:
    texts: list[str] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)
    documents: list[dict[str, Any]] = field(default_factory=list)
    search_results: list[dict[str, Any]] = field(default_factory=list)
    plan: list[str] = field(default_factory=list)
    generation_id: str | None = None
    final: dict[str, Any] | None = None  # stream-end's response, or a body beside the stream
    finish_reason: str | None = None
    ended: bool = False
    unknown_types: list[str | None] = field(default_factory=list)


def _read_v1_stream(values: Iterable[dict[str, Any]]) -> _V1Stream:
    stream = _V1Stream()
    plan_chunks: list[str] = []
    for event in values:
        kind = event.get("event_type")
        stream.generation_id = stream.generation_id or str_or_none(event.get("generation_id"))
        if kind == "text-generation":
            stream.texts.append(str_or_none(event.get("text")) or "")
        elif kind == "citation-generation":
            stream.citations += dicts_in(event.get("citations"))  # a list, unlike v2's one object
        elif kind == "search-results":
            stream.documents += dicts_in(event.get("documents"))
            stream.search_results += dicts_in(event.get("search_results"))
        elif kind == "tool-calls-generation":
            stream.plan = [str_or_none(event.get("text")) or ""]
        elif kind == "tool-calls-chunk":
            plan_chunks.append(str_or_none(event.get("text")) or "")
        elif kind == "stream-end":
            stream.ended = True
            stream.finish_reason = str_or_none(event.get("finish_reason"))
            stream.final = dict_or_empty(event.get("response")) or stream.final
        elif kind is None and _is_v1_body(event):
            stream.final = stream.final or event
        elif not (isinstance(kind, str) and kind in _V1_QUIET_EVENTS):
            label = kind if isinstance(kind, str) else None
            if label not in stream.unknown_types:
                stream.unknown_types.append(label)
    if not stream.plan and any(plan_chunks):
        stream.plan = ["".join(plan_chunks)]
    return stream


def parse_chat_v1(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("cohere", "cohere.chat_v1", streamed)
    stream = _read_v1_stream(values) if streamed else _V1Stream(final=next(iter(values)))
    final = stream.final or {}
    streamed_text = "".join(stream.texts)
    final_text = str_or_none(final.get("text"))
    # The final response's offsets count in its own text, which can differ from the streamed one.
    if final_text is not None and (final_text or not streamed_text):
        _note_stream_difference(response, streamed_text, final_text)
        text = final_text
    else:
        text = streamed_text
    response.id = (
        str_or_none(final.get("generation_id")) or stream.generation_id or str_or_none(final.get("response_id"))
    )
    table = SourceTable(response)
    keys_by_id = _v1_documents(response, table, [*dicts_in(final.get("documents")), *stream.documents], final, stream)
    citations = dicts_in(final.get("citations")) if isinstance(final.get("citations"), list) else stream.citations
    texts = _texts([(0, text)], [], "".join(stream.plan))
    response.text = text
    _cite(response, texts, citations, lambda number, citation: _v1_keys(response, keys_by_id, number, citation))
    _set_v1_status(response, stream.finish_reason or str_or_none(final.get("finish_reason")), stream.ended)
    note_unknown_event_types(response, stream.unknown_types)
    return response


def _v1_documents(
    response: Response, table: SourceTable, documents: list[dict[str, Any]], final: dict[str, Any], stream: _V1Stream
) -> dict[str, list[str]]:
    """Every document offered, by its id; a document a search returned is a retrieved passage, one the
    caller sent is its text. The searches are kept as batches."""
    results = [*dicts_in(final.get("search_results")), *stream.search_results]
    retrieved = {i for result in results for i in _ids_in(result.get("document_ids"))}
    unnamed = _Unnamed(response)
    keys_by_id: dict[str, list[str]] = {}
    for document in documents:
        document_id = str_or_none(document.get("id"))
        kind = "retrieved_passage" if document_id in retrieved else "document_text"
        key = _add_document(table, unnamed, document, document_id, kind)
        if document_id is not None and key not in keys_by_id.setdefault(document_id, []):
            keys_by_id[document_id].append(key)
    seen: set[str] = set()
    for result in results:
        query = str_or_none(dict_or_empty(result.get("search_query")).get("text"))
        ids = _ids_in(result.get("document_ids"))
        signature = _compact_json([query, ids, result.get("error_message")])
        if signature in seen:  # stream-end repeats what search-results said
            continue
        seen.add(signature)
        error = str_or_none(result.get("error_message"))
        if error:
            response.diagnose(
                "search_failed", "warning", phrase("A web search failed: {error}.", error=error), error_code=error
            )
        keys = [key for i in ids for key in keys_by_id.get(i, [])]
        response.searches.append(SearchBatch([query] if query else [], list(dict.fromkeys(keys))))
    return keys_by_id


def _v1_keys(response: Response, keys_by_id: dict[str, list[str]], number: int, citation: dict[str, Any]) -> list[str]:
    """The sources a v1 citation's ``document_ids`` name; ids that name no document are reported."""
    named = _ids_in(citation.get("document_ids"))
    keys = [key for i in named for key in keys_by_id.get(i, [])]
    unknown = [i for i in named if i not in keys_by_id]
    if unknown and keys:
        response.diagnose(
            "unknown_document",
            "warning",
            phrase(
                "Citation {number} names document(s) {ids} that the response does not hold; it keeps the others.",
                number=number,
                ids=", ".join(unknown),
            ),
            citation=number,
            ids=unknown,
        )
    return list(dict.fromkeys(keys))


def _set_v1_status(response: Response, finish_reason: str | None, ended: bool) -> None:
    if finish_reason in V1_FAILED:
        response.mark_failed(detail=phrase("{field} {reason}", field="finish_reason", reason=finish_reason))
    elif response.streamed and not ended:
        response.mark_incomplete(phrase("stream ended without {event}", event="stream-end"))
    else:
        response.set_finish(finish_reason, field="finish_reason", completed=V1_COMPLETED, why=V1_WHY)


# --- Detection ------------------------------------------------------------------------------------


def _is_v2_body(value: dict[str, Any]) -> bool:
    """A v2 response: a top-level ``message``, no ``choices``, and Cohere's upper-case finish reason
    or its billed units."""
    if not isinstance(value.get("message"), dict) or "choices" in value or value.get("type") is not None:
        return False
    reason = value.get("finish_reason")
    return (isinstance(reason, str) and reason.isupper()) or "billed_units" in dict_or_empty(value.get("usage"))


def _is_v1_body(value: dict[str, Any]) -> bool:
    """A v1 response: a top-level ``text`` with a ``generation_id``, or citations naming ``document_ids``."""
    if not isinstance(value.get("text"), str) or "choices" in value or "message" in value or "event_type" in value:
        return False
    return "generation_id" in value or any("document_ids" in c for c in dicts_in(value.get("citations")))


def _decide_v2(kind: str | None, keys: frozenset[str]) -> Decision | None:
    if kind is not None:  # a body has no type
        return "event" if kind in _V2_EVENTS else NEITHER
    return None if "message" in keys and "choices" not in keys else NEITHER


def _decide_v1(kind: str | None, keys: frozenset[str]) -> Decision | None:
    if "event_type" in keys:
        return None
    return NEITHER if "text" not in keys or "choices" in keys or "message" in keys else None


def _v2_value(value: dict[str, Any]) -> ValueKind | None:
    kind = value.get("type")
    if isinstance(kind, str) and kind in _V2_EVENTS:
        return "event"
    return "chunk" if _is_v2_body(value) else None


def _v1_value(value: dict[str, Any]) -> ValueKind | None:
    kind = value.get("event_type")
    if isinstance(kind, str) and kind in _V1_EVENTS:
        return "event"
    return "chunk" if _is_v1_body(value) else None


class _CohereStream:
    """A second start event (message-start, stream-start) starts the next response, and so does a
    final body after one, or one whose id is not the stream's. A body beside its stream (the same
    id, or none) is that stream's final response."""

    def __init__(
        self, start: Callable[[dict[str, Any]], bool], body: Callable[[dict[str, Any]], bool], id_field: str
    ) -> None:
        self.is_start, self.is_body, self.id_field = start, body, id_field
        self.started = self.has_body = False
        self.ids: set[str] = set()

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        value_id = value.get(self.id_field)
        foreign = isinstance(value_id, str) and bool(self.ids) and value_id not in self.ids
        if self.is_start(value):
            return self.started or (self.has_body and (foreign or not isinstance(value_id, str)))
        if self.is_body(value):
            return self.has_body or foreign
        return False

    def add(self, value: dict[str, Any]) -> None:
        self.started = self.started or self.is_start(value)
        self.has_body = self.has_body or self.is_body(value)
        value_id = value.get(self.id_field)
        if isinstance(value_id, str) and (self.is_start(value) or self.is_body(value)):
            self.ids.add(value_id)


def _v2_stream() -> StreamSplitter:
    return _CohereStream(partial(_has_field, "type", "message-start"), _is_v2_body, "id")


def _v1_stream() -> StreamSplitter:
    return _CohereStream(partial(_has_field, "event_type", "stream-start"), _is_v1_body, "generation_id")


def _has_field(name: str, wanted: str, value: dict[str, Any]) -> bool:
    return value.get(name) == wanted


# --- The APIs -------------------------------------------------------------------------------------

COHERE = Provider("cohere", "Cohere")

register(
    ApiFormat(
        name="cohere.chat_v2",
        label="Cohere Chat v2",
        provider=COHERE,
        shape=Shape(
            name="cohere_v2",
            priority=60,
            recognise=_v2_value,
            new_splitter=_v2_stream,
            whole_when_alone=_is_v2_body,
            decide=_decide_v2,
        ),
        parser=parse_chat_v2,
        citation_notation=phrase(
            "message.citations: start–end character spans of the answer, each repeating the cited text, "
            "with the documents or tool outputs it rests on; PLAN and THINKING_CONTENT citations mark the "
            "plan or the thinking"
        ),
    )
)
register(
    ApiFormat(
        name="cohere.chat_v1",
        label="Cohere Chat v1",
        provider=COHERE,
        shape=Shape(
            name="cohere_v1",
            priority=61,
            recognise=_v1_value,
            new_splitter=_v1_stream,
            whole_when_alone=_is_v1_body,
            decide=_decide_v1,
        ),
        parser=parse_chat_v1,
        citation_notation=phrase(
            "citations: start–end character spans of the text, each repeating the cited text, with "
            "document_ids naming entries of documents"
        ),
    )
)
