"""AWS Bedrock: Converse and ConverseStream (``bedrock.converse``), Knowledge Bases
RetrieveAndGenerate and its stream (``bedrock.retrieve_and_generate``), and Bedrock Agents' streams
(``bedrock.invoke_agent``, ``bedrock.invoke_inline_agent``), per ``../shared/docs/provider-formats.md`` §6.

Converse answers in camelCase content blocks of one key each (``{"text"}``, ``{"citationsContent"}``,
``{"toolUse"}``, ``{"reasoningContent"}``). A ``citationsContent`` block's citations cover the whole
block, as a Claude text block's do (§2), and quote their source in ``sourceContent``. A stream is
decoded events keyed by their name (``{"contentBlockDelta": {...}}``), as the AWS SDKs give them and
as ``citeview.core.framing.eventstream`` reads the binary body; a block index that received ``citation``
deltas is one ``citationsContent`` block, the citation before or after its text.

A Knowledge Base answer is ``output.text`` with ``citations[]``, each a span of the text
(``generatedResponsePart.textResponsePart``) and the passages retrieved for it
(``retrievedReferences``). The span's unit and whether its end is inclusive are undocumented: each
is checked against the text it should hold, in every likely reading, and the reading that fits is
said. An agent's ``chunk`` events cite the same way (``attribution.citations``); its ``trace`` events
are kept out of the answer: its knowledge base lookups are its searches, a guardrail's intervention
is said. The agents' recordings are in ``tests/fixtures/recordings/bedrock-agents/``.
"""

from __future__ import annotations

import codecs
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from citeview.core.common.links import is_safe_http_url
from citeview.core.common.model import Citation, ReasoningText, Response, SearchBatch
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.detection.registry import NEITHER, ApiFormat, Decision, Provider, Shape, ValueKind, register
from citeview.core.framing.eventstream import DamagedMessage
from citeview.core.parsing.citing import note_unknown_citation, note_unknown_event_types
from citeview.core.parsing.jsonvalues import dict_or_empty, dicts_in, int_or_none, str_or_none
from citeview.core.parsing.offsets import kept_utf16_offsets
from citeview.core.parsing.placing import (
    CODE_POINTS,
    UTF16,
    Reading,
    fitting,
    note_marks_nothing,
    note_no_span,
    note_placement,
    note_unit,
    reanchor,
)
from citeview.core.parsing.request_documents import (
    FoundDocument,
    RequestDocument,
    check_documents,
    decoded_base64,
    indexed_documents,
    pdf_document,
    request_blocks,
)
from citeview.core.parsing.sources import SourceTable

COMPLETED_STOP_REASONS = {"end_turn", "stop_sequence", "tool_use"}
GUARDRAIL_INTERVENED = phrase("a guardrail intervened, so the answer may be blocked or changed")
INCOMPLETE_STOP_REASONS = {
    "max_tokens": phrase("the answer hit the token limit"),
    "guardrail_intervened": GUARDRAIL_INTERVENED,
    "content_filtered": phrase("the content was filtered"),
    "malformed_model_output": phrase("the model's output was malformed"),
    "malformed_tool_use": phrase("the model's tool call was malformed"),
    "model_context_window_exceeded": phrase("the context window is full"),
}
CONVERSE_EVENTS = {
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
}
KB_EVENTS = {"output", "citation", "guardrail"}
AGENT_EVENTS = {"chunk", "trace", "returnControl", "files"}
# Content blocks that are not the answer and carry no citation: read past without a word.
_QUIET_BLOCKS = {"toolUse", "toolResult", "image", "document", "video", "guardContent", "cachePoint", "audio"}
# Locations in a document the request sent, and what citeview calls each (Claude's units, §6A).
_DOCUMENT_LOCATIONS = {"documentChar": "char", "documentPage": "page", "documentChunk": "block"}
# A Knowledge Base passage's metadata kept with its source: its first few scalar entries.
_METADATA_KEPT = 20
# How far from where its span points a Knowledge Base citation's text is looked for when the span
# does not hold it. Wider than other providers' (offsets.NEAR_CHARS): a citation with no span at all is
# looked for from where the previous one ended, and a generated part can run for paragraphs.
_SEARCH_WINDOW = 2048


# --- Converse -------------------------------------------------------------------------------------


def parse_converse(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("bedrock", "bedrock.converse", streamed)
    if streamed:
        stream = _read_converse_stream(response, values)
        _read_content(response, stream.content())
        _set_stream_status(response, stream)
        note_unknown_event_types(response, list(stream.unknown))
        return response
    body = next(iter(values))
    response.id = _request_id(body)
    message = dict_or_empty(dict_or_empty(body.get("output")).get("message"))
    _read_content(response, dicts_in(message.get("content")))
    response.set_finish(
        str_or_none(body.get("stopReason")),
        field="stopReason",
        completed=COMPLETED_STOP_REASONS,
        why=INCOMPLETE_STOP_REASONS,
    )
    return response


def _request_id(body: dict[str, Any]) -> str | None:
    """boto3 keeps the request's id in ``ResponseMetadata``, the JavaScript SDK in ``$metadata``: the
    only id a Bedrock answer has."""
    return str_or_none(dict_or_empty(body.get("ResponseMetadata")).get("RequestId")) or str_or_none(
        dict_or_empty(body.get("$metadata")).get("requestId")
    )


def _read_content(response: Response, blocks: list[dict[str, Any]]) -> None:
    """The answer is every ``text`` and ``citationsContent`` text in order; reasoning is set apart."""
    table = SourceTable(response)
    parts: list[str] = []
    position = 0
    previous: tuple[int, int] | None = None  # the span of the last block with text
    unknown: dict[str | None, None] = {}  # kinds of block not read, each once, in order (a dict: found at once)
    unplaced: set[str] = set()
    for block in blocks:
        if isinstance(block.get("text"), str):
            text = block["text"]
        elif isinstance(block.get("citationsContent"), dict):
            cited = block["citationsContent"]
            text = "".join(str_or_none(c.get("text")) or "" for c in dicts_in(cited.get("content")))
            span = (position, position + len(text)) if text else previous
            citations = dicts_in(cited.get("citations"))
            if not text and citations:
                _note_content_missing(response, len(citations), placed=span is not None)
            for citation in citations:
                _cite(response, table, citation, span, unplaced)
        else:
            _read_other_block(response, block, unknown)
            continue
        if text:
            parts.append(text)
            previous = (position, position + len(text))
            position += len(text)
    response.text = "".join(parts)
    for kind in unknown:
        response.diagnose(
            "unknown_content",
            "info",
            phrase("The answer has content blocks of a kind citeview does not read: {kind}.", kind=kind or "(none)"),
            kind=kind,
        )


def _read_other_block(response: Response, block: dict[str, Any], unknown: dict[str | None, None]) -> None:
    reasoning = dict_or_empty(block.get("reasoningContent"))
    if reasoning:
        text = str_or_none(dict_or_empty(reasoning.get("reasoningText")).get("text"))
        if text:
            response.reasoning.append(ReasoningText("thinking", text))
        return
    kind = next(iter(block), None)
    if kind not in _QUIET_BLOCKS:
        unknown.setdefault(kind)


def _note_content_missing(response: Response, count: int, *, placed: bool) -> None:
    if placed:
        message = phrase(
            "A citationsContent block has no text of its own; its {count} citation(s) are placed on the text "
            "before it.",
            count=count,
        )
    else:
        message = phrase(
            "A citationsContent block has no text of its own and no text comes before it; its {count} "
            "citation(s) are listed as cited without a place in the answer.",
            count=count,
        )
    response.diagnose("citation_without_content", "info", message, count=count)


def _cite(
    response: Response, table: SourceTable, citation: dict[str, Any], span: tuple[int, int] | None, unplaced: set[str]
) -> None:
    quote = _joined_text(citation.get("sourceContent"))
    title = str_or_none(citation.get("title"))
    kind, place = _only_member(citation.get("location"))
    location: dict[str, Any] | None = None
    if kind in _DOCUMENT_LOCATIONS:
        key, location = _document_source(table, citation, kind, place, title)
    elif kind == "searchResultLocation":
        key, location = _search_result_source(table, citation, place, title)
    elif kind == "web" and str_or_none(place.get("url")):
        url = str(place["url"])
        domain = str_or_none(place.get("domain"))
        key = table.add(url, kind="web", url=url, title=title or domain, extra={"domain": domain})
    else:
        key = _unlocated_source(response, table, citation, kind, title)
    if span is None or span[0] == span[1]:
        if key not in unplaced:
            unplaced.add(key)
            response.cited_without_position.append(key)
        return
    response.citations.append(Citation(span[0], span[1], [key], cited_text=quote, location=location))


def _document_source(
    table: SourceTable, citation: dict[str, Any], kind: str, place: dict[str, Any], title: str | None
) -> tuple[str, dict[str, Any] | None]:
    index = int_or_none(place.get("documentIndex"))
    key = table.add(
        f"doc:{index if index is not None else '?'}",
        kind="document",
        url=None,
        title=title,
        extra={"document_index": index, "location_kind": kind, "source": str_or_none(citation.get("source"))},
    )
    return key, _range(_DOCUMENT_LOCATIONS[kind], kind, place)


def _search_result_source(
    table: SourceTable, citation: dict[str, Any], place: dict[str, Any], title: str | None
) -> tuple[str, dict[str, Any] | None]:
    index = int_or_none(place.get("searchResultIndex"))
    origin = str_or_none(citation.get("source"))
    key = table.add(
        f"search_result:{index if index is not None else '?'}",
        kind="document",
        url=origin if is_safe_http_url(origin) else None,  # `source` is whatever the request named it by
        title=title,
        extra={"search_result_index": index, "source": origin, "location_kind": "searchResultLocation"},
    )
    return key, _range("block", "searchResultLocation", place)


def _unlocated_source(
    response: Response, table: SourceTable, citation: dict[str, Any], kind: str | None, title: str | None
) -> str:
    """A citation whose location names no source: kept with its quote, its source named by its title."""
    if kind == "web":  # `{"web": {}}` on a document's citation (aws/aws-sdk-js-v3#7497)
        response.diagnose(
            "location_unverifiable",
            "warning",
            phrase(
                "A citation of {title} has an empty web location (Bedrock has sent one for a PDF document's "
                "citation): its quote is kept, but where it stands in which document is not known.",
                title=title or phrase("an untitled source"),
            ),
            title=title,
        )
    elif kind is None:
        response.diagnose(
            "location_unverifiable",
            "info",
            phrase(
                "A citation of {title} has no location: its quote is kept, but where it stands is not known.",
                title=title or phrase("an untitled source"),
            ),
            title=title,
        )
    else:
        note_unknown_citation(
            response,
            phrase(
                "A citation has a location of a kind citeview does not know ({type}); it is kept without it.",
                type=kind,
            ),
            kind,
        )
    return table.add(
        f"unlocated:{title or '?'}",
        kind="document",
        url=None,
        title=title,
        extra={"location_kind": kind, "source": str_or_none(citation.get("source"))},
    )


def _range(unit: str, kind: str, place: dict[str, Any]) -> dict[str, Any] | None:
    start, end = int_or_none(place.get("start")), int_or_none(place.get("end"))
    if start is None or end is None:
        return None
    # `provider_type` (an addition to the contract's location) keeps Bedrock's own name of the unit.
    return {"type": unit, "start": start, "end": end, "provider_type": kind}


def _only_member(value: Any) -> tuple[str | None, dict[str, Any]]:
    """A union's member: its name and its value, the first one that is an object."""
    for name, member in dict_or_empty(value).items():
        if isinstance(member, dict):
            return str(name), member
    return None, {}


def _joined_text(items: Any) -> str | None:
    texts = [t for t in (str_or_none(item.get("text")) for item in dicts_in(items)) if t is not None]
    return "".join(texts) if texts else None


# --- ConverseStream -------------------------------------------------------------------------------


@dataclass
class _Block:
    text: list[str] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)


@dataclass
class _ConverseStream:
    """What a ConverseStream has delivered: each block by its index."""

    blocks: dict[int, _Block] = field(default_factory=dict)
    stop_reason: str | None = None
    stopped: bool = False
    error: tuple[str, dict[str, Any]] | None = None  # the exception's name and its payload
    unknown: dict[str | None, None] = field(default_factory=dict)  # event names not read, each once, in order

    def block(self, payload: dict[str, Any]) -> _Block:
        index = int_or_none(payload.get("contentBlockIndex"))
        return self.blocks.setdefault(index if index is not None else 0, _Block())

    def content(self) -> list[dict[str, Any]]:
        """The blocks as Converse would have returned them."""
        content: list[dict[str, Any]] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            if block.reasoning:
                content.append({"reasoningContent": {"reasoningText": {"text": "".join(block.reasoning)}}})
            text = "".join(block.text)
            if block.citations:
                cited = [{"text": text}] if text else []
                content.append({"citationsContent": {"content": cited, "citations": block.citations}})
            elif text:
                content.append({"text": text})
        return content


def _read_converse_stream(response: Response, events: Iterable[dict[str, Any]]) -> _ConverseStream:
    stream = _ConverseStream()
    for event in events:
        if isinstance(event, DamagedMessage):
            response.diagnose("damaged_message", "warning", event.message(), **event.details())
            continue
        name, payload = _event(event)
        if name == "contentBlockDelta":
            _apply_delta(stream.block(payload), dict_or_empty(payload.get("delta")))
        elif name == "messageStop":
            stream.stopped = True
            stream.stop_reason = str_or_none(payload.get("stopReason"))
        elif name in CONVERSE_EVENTS:
            continue  # messageStart, contentBlockStart (a tool's), contentBlockStop, metadata: no answer text
        elif name is not None and _is_exception(name):
            stream.error = stream.error or (name, payload)
        else:
            stream.unknown.setdefault(name)
    return stream


def _apply_delta(block: _Block, delta: dict[str, Any]) -> None:
    if isinstance(delta.get("text"), str):
        block.text.append(delta["text"])
    if isinstance(delta.get("citation"), dict):
        block.citations.append(delta["citation"])
    reasoning = str_or_none(dict_or_empty(delta.get("reasoningContent")).get("text"))
    if reasoning:
        block.reasoning.append(reasoning)


def _set_stream_status(response: Response, stream: _ConverseStream) -> None:
    if stream.error is not None:
        _fail(response, *stream.error)
    elif not stream.stopped:
        response.mark_incomplete(phrase("stream ended without {event}", event="messageStop"))
    else:
        response.set_finish(
            stream.stop_reason, field="stopReason", completed=COMPLETED_STOP_REASONS, why=INCOMPLETE_STOP_REASONS
        )


def _fail(response: Response, name: str, payload: dict[str, Any]) -> None:
    """An exception member (``throttlingException``, …) or an error message of the event stream."""
    message = str_or_none(payload.get("message")) or str_or_none(payload.get("Message"))
    if name == "Error":
        name = str_or_none(payload.get("Code")) or name
    # The provider's own message is shown as it came, untranslated.
    detail = (
        phrase("{exception}: {message}", exception=name, message=message)
        if message
        else phrase("{exception}, without a message", exception=name)
    )
    response.mark_failed(payload, detail=detail)


# --- Knowledge Bases RetrieveAndGenerate ------------------------------------------------------------


@dataclass
class _KnowledgeBaseAnswer:
    text: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)
    guardrail: str | None = None
    error: tuple[str, dict[str, Any]] | None = None
    unknown: dict[str | None, None] = field(default_factory=dict)


def parse_retrieve_and_generate(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("bedrock", "bedrock.retrieve_and_generate", streamed)
    if streamed:
        answer = _read_kb_stream(response, values)
    else:
        body = next(iter(values))
        response.id = _request_id(body) or str_or_none(body.get("sessionId"))
        answer = _KnowledgeBaseAnswer(
            text=str_or_none(dict_or_empty(body.get("output")).get("text")) or "",
            citations=dicts_in(body.get("citations")),
            guardrail=str_or_none(body.get("guardrailAction")),
        )
    response.text = answer.text
    _place_kb_citations(response, answer.citations)
    _set_kb_status(response, answer)
    note_unknown_event_types(response, list(answer.unknown))
    return response


def _read_kb_stream(response: Response, events: Iterable[dict[str, Any]]) -> _KnowledgeBaseAnswer:
    answer = _KnowledgeBaseAnswer()
    texts: list[str] = []
    for event in events:
        if isinstance(event, DamagedMessage):
            response.diagnose("damaged_message", "warning", event.message(), **event.details())
            continue
        name, payload = _event(event)
        if name == "output":
            texts.append(str_or_none(payload.get("text")) or "")
        elif name == "citation":
            # The event's own fields; older streams nest them in a deprecated `citation` member.
            has_own = "generatedResponsePart" in payload or "retrievedReferences" in payload
            answer.citations.append(payload if has_own else dict_or_empty(payload.get("citation")))
        elif name == "guardrail":
            answer.guardrail = str_or_none(payload.get("action")) or answer.guardrail
        elif name is not None and _is_exception(name):
            answer.error = answer.error or (name, payload)
        else:
            answer.unknown.setdefault(name)
    answer.text = "".join(texts)
    return answer


def _set_kb_status(response: Response, answer: _KnowledgeBaseAnswer) -> None:
    if answer.error is not None:
        _fail(response, *answer.error)
    elif answer.guardrail == "INTERVENED":
        response.mark_incomplete(
            phrase(
                "{field} {reason}: {explanation}",
                field="guardrailAction",
                reason="INTERVENED",
                explanation=GUARDRAIL_INTERVENED,
            )
        )
    else:
        response.status = "completed"
        if response.streamed:
            response.diagnose(
                "stream_end_unmarked",
                "info",
                phrase(
                    "A RetrieveAndGenerateStream sends no event that ends it, so the stream is read as complete: "
                    "one cut between two events would look the same."
                ),
            )


# The readings of a Knowledge Base span tried in turn, and how a reviewer is told which one fit.
_READINGS = {
    CODE_POINTS: phrase("characters (code points), end exclusive"),
    Reading("code_points", end_inclusive=True): phrase("characters (code points), end inclusive"),
    UTF16: phrase("UTF-16 code units, end exclusive"),
    Reading("utf16", end_inclusive=True): phrase("UTF-16 code units, end inclusive"),
}
_UNCHECKED = None  # a span with no text to check it by: read as characters, end exclusive


def _place_kb_citations(
    response: Response, citations: list[dict[str, Any]], passages: _RetrievedPassages | None = None
) -> None:
    if passages is None:
        passages = _RetrievedPassages(SourceTable(response))
    readings: Counter[Reading | None] = Counter()
    cursor = 0  # where the last placed citation ended: the next one's text is looked for from there
    unplaced = set(response.cited_without_position)
    for number, citation in enumerate(citations, 1):
        keys = list(dict.fromkeys(passages.key(r) for r in dicts_in(citation.get("retrievedReferences"))))
        if not keys:
            response.diagnose(
                "citation_without_source",
                "info",
                phrase("Knowledge Base citation {number} names no retrieved passage; it cites nothing.", number=number),
                citation=number,
            )
            continue
        part = dict_or_empty(dict_or_empty(citation.get("generatedResponsePart")).get("textResponsePart"))
        span = _kb_span(response, number, part, cursor, readings)
        if span is None:
            for key in keys:
                if key not in unplaced:
                    unplaced.add(key)
                    response.cited_without_position.append(key)
            continue
        cursor = span[1]
        for key in keys:
            response.citations.append(Citation(span[0], span[1], [key]))
    same_in_utf16 = not kept_utf16_offsets(response.text).has_astral
    for reading, count in readings.items():
        if reading is _UNCHECKED:
            message = phrase(
                "{count} Knowledge Base citation span(s) come without their text, so their unit cannot be "
                "checked; they are read as characters, end exclusive.",
                count=count,
            )
            note_unit(response, message, unit="unchecked", end="exclusive", count=count)
            continue
        message = _reading_phrase(count, len(citations), _READINGS[reading], same_in_utf16=same_in_utf16)
        end = "inclusive" if reading.end_inclusive else "exclusive"
        note_unit(response, message, unit=reading.unit, end=end, count=count)


def _reading_phrase(count: int, total: int, reading: Phrase, *, same_in_utf16: bool) -> Phrase:
    if same_in_utf16:
        return phrase(
            "{count} of the {total} Knowledge Base citation span(s) hold their text when read as {reading} "
            "(this answer has no character that UTF-16 counts as two units, so the two units agree here).",
            count=count,
            total=total,
            reading=reading,
        )
    return phrase(
        "{count} of the {total} Knowledge Base citation span(s) hold their text when read as {reading}.",
        count=count,
        total=total,
        reading=reading,
    )


def _kb_span(
    response: Response,
    number: int,
    part: dict[str, Any],
    cursor: int,
    readings: Counter[Reading | None],
) -> tuple[int, int] | None:
    """Where in the answer a Knowledge Base citation stands: its span in the reading that holds its
    text, else where its text stands near there, else nowhere (said so)."""
    text = str_or_none(part.get("text"))
    span = dict_or_empty(part.get("span"))
    start, end = int_or_none(span.get("start")), int_or_none(span.get("end"))
    if text == "":
        no_text = phrase(
            "Knowledge Base citation {number} cites no text; its sources are listed, not placed.", number=number
        )
        note_marks_nothing(response, no_text, citation=number)
        return None
    if text is None:
        return _unchecked_span(response, number, start, end, readings)
    if start is not None and end is not None:
        fitted = fitting(response.text, start, end, _READINGS, text.__eq__)
        if fitted is not None and fitted.start is not None and fitted.end is not None:
            readings[fitted.reading] += 1
            return fitted.start, fitted.end
    around = start if start is not None else cursor
    # A span given and read four ways without holding its text is a mismatch, wherever it points.
    given = start is not None and end is not None
    placement = reanchor(response.text, text, around, offsets_fit=given, window=_SEARCH_WINDOW)
    found = (placement.start, placement.end) if placement.start is not None and placement.end is not None else None
    where = phrase("placed where its text stands") if found is not None else phrase("not placed")
    if start is None or end is None:
        no_span = phrase(
            "Knowledge Base citation {number} ({text}) has no span; {where}.",
            number=number,
            text=_short(text),
            where=where,
        )
        severity = "info" if found is not None else "warning"
        note_placement(response, placement, severity, no_span, citation=number, segment_text=text)
        return found
    mismatch = phrase(
        "Knowledge Base citation {number} ({text}): its span {start}–{end} does not hold its text in any "
        "reading (characters or UTF-16 units, end exclusive or inclusive); {where}.",
        number=number,
        text=_short(text),
        start=start,
        end=end,
        where=where,
    )
    note_placement(response, placement, "warning", mismatch, citation=number, start=start, end=end, segment_text=text)
    return found


def _unchecked_span(
    response: Response, number: int, start: int | None, end: int | None, readings: Counter[Reading | None]
) -> tuple[int, int] | None:
    """A span with no text to check it by: read as characters, end exclusive, when that is a span of the answer."""
    if start is not None and end is not None and 0 <= start < end <= len(response.text):
        readings[_UNCHECKED] += 1
        return start, end
    no_span = phrase(
        "Knowledge Base citation {number} has no text and its span ({start}–{end}) is no span of the "
        "answer; its sources are listed, not placed.",
        number=number,
        start=str(start),
        end=str(end),
    )
    note_no_span(response, no_span, citation=number)
    return None


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "…")


@dataclass
class _RetrievedPassages:
    """A response's retrieved passages, each one source, whether a citation named it or a search
    returned it (an agent's knowledge base lookup returns the passages its citations name again)."""

    table: SourceTable
    keys: dict[tuple[str | None, str | None, str | None], str] = field(default_factory=dict)

    def key(self, reference: dict[str, Any]) -> str:
        return _reference_source(self.table, self.keys, reference)


def _reference_source(
    table: SourceTable, passages: dict[tuple[str | None, str | None, str | None], str], reference: dict[str, Any]
) -> str:
    """A retrieved passage as a source of its own, so each passage is shown with the claims citing
    it; the same passage retrieved again is the same source."""
    content = dict_or_empty(reference.get("content"))
    passage = str_or_none(content.get("text")) or _row_text(content.get("row"))
    location = dict_or_empty(reference.get("location"))
    location_type = str_or_none(location.get("type"))
    address = _address(location)
    identity = (location_type, address, passage)
    key = passages.setdefault(identity, f"kb:{len(passages) + 1}")
    url = address if is_safe_http_url(address) else None  # an s3:// URI is no link: it stays in extra
    extra: dict[str, Any] = {
        "location_type": location_type,
        "uri": address if url is None else None,
        "content_type": str_or_none(content.get("type")),
        "snippet": passage,
        "snippet_kind": "retrieved_passage" if passage else None,
    }
    metadata = dict_or_empty(reference.get("metadata"))
    for name in list(metadata)[:_METADATA_KEPT]:
        extra[f"metadata:{name}"] = metadata[name]
    kind = "web" if location_type == "WEB" else "document"
    return table.add(key, kind=kind, url=url, title=None if url else _file_name(address), extra=extra)


def _address(location: dict[str, Any]) -> str | None:
    """Where a retrieved passage came from: ``s3Location.uri``, ``webLocation.url``,
    ``confluenceLocation.url``, ``customDocumentLocation.id``, ``sqlLocation.query``, …"""
    for member in location.values():
        if isinstance(member, dict):
            for name in ("url", "uri", "id", "query"):
                if isinstance(member.get(name), str) and member[name]:
                    return str(member[name])
    return None


def _file_name(address: str | None) -> str | None:
    if not address:
        return None
    try:
        path = urlsplit(address).path
    except ValueError:
        return address
    name = unquote(path.rstrip("/").rpartition("/")[2])
    return name or address


def _row_text(row: Any) -> str | None:
    """A structured retrieval's row (``content.row[]``: column, value): written as ``column: value``."""
    cells = [
        f"{c.get('columnName')}: {c.get('columnValue')}" for c in dicts_in(row) if isinstance(c.get("columnName"), str)
    ]
    return "; ".join(cells) or None


# --- Bedrock Agents: InvokeAgent and InvokeInlineAgent ------------------------------------------------
# A stream of ``chunk`` events (the answer's bytes, base64 in JSON, and an ``attribution`` whose
# ``citations`` are a Knowledge Base answer's), ``trace`` events (what the agent did: its knowledge
# base lookups, its plan, a guardrail's verdict), ``returnControl`` (an action the caller must run)
# and ``files``. The two APIs send the same events; an inline agent's traces name no agent.


@dataclass
class _KnowledgeBaseLookup:
    query: str | None = None
    references: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _AgentAnswer:
    texts: list[str] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)
    lookups: dict[str, _KnowledgeBaseLookup] = field(default_factory=dict)  # by the trace's id, in order
    plans: list[str] = field(default_factory=list)
    interventions: list[dict[str, Any]] = field(default_factory=list)  # guardrailTrace that INTERVENED
    failures: list[str] = field(default_factory=list)
    chunks: int = 0
    not_base64: int = 0
    unreadable: int = 0  # chunks whose bytes are in no form citeview reads
    # One decoder for every chunk's bytes: a character may be split between two chunks.
    decoder: codecs.IncrementalDecoder = field(default_factory=lambda: codecs.getincrementaldecoder("utf-8")("replace"))
    finished: bool = False  # a finalResponse trace came
    returned_control: bool = False
    model: str | None = None
    session: str | None = None
    error: tuple[str, dict[str, Any]] | None = None
    unknown: dict[str | None, None] = field(default_factory=dict)


def parse_invoke_agent(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    return _parse_agent("bedrock.invoke_agent", values, streamed)


def parse_invoke_inline_agent(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    return _parse_agent("bedrock.invoke_inline_agent", values, streamed)


def _parse_agent(api: str, values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("bedrock", api, streamed)
    answer = _read_agent_stream(response, values)
    response.text = "".join(answer.texts) + answer.decoder.decode(b"", final=True)
    response.id = answer.session
    response.model = answer.model
    passages = _RetrievedPassages(SourceTable(response))
    for lookup in answer.lookups.values():
        keys = list(dict.fromkeys(passages.key(r) for r in lookup.references))
        response.searches.append(SearchBatch([lookup.query] if lookup.query else [], keys))
    _place_kb_citations(response, answer.citations, passages)
    response.reasoning.extend(ReasoningText("plan", text) for text in answer.plans)
    _note_agent_trace(response, answer)
    _set_agent_status(response, answer)
    note_unknown_event_types(response, list(answer.unknown))
    return response


def _read_agent_stream(response: Response, events: Iterable[dict[str, Any]]) -> _AgentAnswer:
    answer = _AgentAnswer()
    for event in events:
        if isinstance(event, DamagedMessage):
            response.diagnose("damaged_message", "warning", event.message(), **event.details())
            continue
        name, payload = _event(event)
        if name == "chunk":
            _read_chunk(answer, payload)
        elif name == "trace":
            _read_trace(answer, payload)
        elif name == "returnControl":
            answer.returned_control = True
        elif name == "files":
            continue  # files the agent made (code interpreter): no answer text, no citation
        elif name is not None and _is_exception(name):
            answer.error = answer.error or (name, payload)
        else:
            answer.unknown.setdefault(name)
    return answer


def _read_chunk(answer: _AgentAnswer, chunk: dict[str, Any]) -> None:
    answer.chunks += 1
    data = chunk.get("bytes")
    raw = _chunk_bytes(data)
    if raw is not None:
        answer.texts.append(answer.decoder.decode(raw))
    elif isinstance(data, str):
        answer.not_base64 += 1  # a dump that decoded the bytes already: the text itself
        answer.texts.append(data)
    elif data is not None:
        answer.unreadable += 1
    answer.citations.extend(dicts_in(dict_or_empty(chunk.get("attribution")).get("citations")))


def _chunk_bytes(data: Any) -> bytes | None:
    """A chunk's ``bytes``: base64 on the wire and in the SDKs' JSON, a list of byte values, or the
    object of index and byte a JavaScript ``Uint8Array`` becomes in JSON. None when it is none, or
    when its base64 holds no UTF-8 a character of which could be cut between chunks (then it is text)."""
    if isinstance(data, str):
        raw = decoded_base64(data)
        return raw if raw is not None and _may_be_utf8(raw) else None
    if isinstance(data, list) and all(isinstance(b, int) and 0 <= b < 256 for b in data):
        return bytes(data)
    if isinstance(data, dict) and all(isinstance(b, int) and 0 <= b < 256 for b in data.values()):
        ordered = [data.get(str(i)) for i in range(len(data))]
        return bytes(b for b in ordered if isinstance(b, int)) if None not in ordered else None
    return None


def _may_be_utf8(raw: bytes) -> bool:
    """Whether bytes are UTF-8 but for a character cut at either end: text that only looks like base64
    (``"Done"``) decodes to bytes that are not."""
    start = 0
    while start < min(3, len(raw)) and 0x80 <= raw[start] < 0xC0:
        start += 1  # the rest of a character the chunk before began
    try:
        codecs.getincrementaldecoder("utf-8")().decode(raw[start:])  # (not final: a cut end waits)
    except UnicodeDecodeError:
        return False
    return True


def _read_trace(answer: _AgentAnswer, part: dict[str, Any]) -> None:
    answer.session = answer.session or str_or_none(part.get("sessionId"))
    for kind, step in dict_or_empty(part.get("trace")).items():
        if not isinstance(step, dict):
            continue
        if kind == "guardrailTrace":
            if step.get("action") == "INTERVENED":
                answer.interventions.append(step)
        elif kind == "failureTrace":
            answer.failures.append(str_or_none(step.get("failureReason")) or "")
        else:  # orchestrationTrace, routingClassifierTrace, pre- and postProcessingTrace: one member each
            _read_step(answer, step)


def _read_step(answer: _AgentAnswer, step: dict[str, Any]) -> None:
    invocation = dict_or_empty(step.get("invocationInput"))
    lookup_input = dict_or_empty(invocation.get("knowledgeBaseLookupInput"))
    if lookup_input:
        _lookup(answer, str_or_none(invocation.get("traceId")), False).query = str_or_none(lookup_input.get("text"))
    observation = dict_or_empty(step.get("observation"))
    lookup_output = dict_or_empty(observation.get("knowledgeBaseLookupOutput"))
    if lookup_output:
        found = _lookup(answer, str_or_none(observation.get("traceId")), True)
        found.references.extend(dicts_in(lookup_output.get("retrievedReferences")))
    answer.finished = answer.finished or isinstance(observation.get("finalResponse"), dict)
    model_input = dict_or_empty(step.get("modelInvocationInput"))
    answer.model = answer.model or str_or_none(model_input.get("foundationModel"))
    plan = str_or_none(dict_or_empty(step.get("rationale")).get("text"))
    if plan:
        answer.plans.append(plan)


def _lookup(answer: _AgentAnswer, trace_id: str | None, output: bool) -> _KnowledgeBaseLookup:
    """The lookup a trace's input or output belongs to: the one of its trace id; without an id, an
    output belongs to the last lookup that has none yet."""
    if trace_id is None and output:
        waiting = [lookup for lookup in answer.lookups.values() if not lookup.references]
        if waiting:
            return waiting[-1]
    key = trace_id if trace_id is not None else f"#{len(answer.lookups)}"
    return answer.lookups.setdefault(key, _KnowledgeBaseLookup())


def _note_agent_trace(response: Response, answer: _AgentAnswer) -> None:
    for intervention in answer.interventions:
        _note_intervention(response, intervention)
    for reason in answer.failures:
        response.diagnose(
            "agent_step_failed",
            "warning",
            phrase("A step of the agent failed: {reason}", reason=reason or phrase("no reason given")),
            reason=reason or None,
        )
    if answer.unreadable:
        response.diagnose(
            "chunk_unreadable",
            "warning",
            phrase(
                "{count} chunk(s) carry their bytes in a form citeview does not read (not base64, text or byte "
                "values): their text is missing from the answer. The dump keeps them as they are.",
                count=answer.unreadable,
            ),
            count=answer.unreadable,
        )
    if answer.not_base64:
        response.diagnose(
            "chunk_not_base64",
            "info",
            phrase(
                "{count} chunk(s) carry their bytes as text, not base64: the dump decoded them already, and "
                "they are read as the answer's text.",
                count=answer.not_base64,
            ),
            count=answer.not_base64,
        )


def _note_intervention(response: Response, trace: dict[str, Any]) -> None:
    """Which of the question and the answer a guardrail stopped, and by which of its policies."""
    checked_input = bool(dicts_in(trace.get("inputAssessments")))
    verdicts = ", ".join(
        _verdicts(dicts_in(trace.get("inputAssessments")) + dicts_in(trace.get("outputAssessments")))
    ) or phrase("no policy named")
    if checked_input:
        message = phrase(
            "A guardrail intervened on the question ({verdicts}): the answer shown is its message, not the "
            "model's answer.",
            verdicts=verdicts,
        )
    else:
        message = phrase(
            "A guardrail intervened on the answer ({verdicts}): the answer shown may be its message or an "
            "answer it changed.",
            verdicts=verdicts,
        )
    response.diagnose("guardrail_intervened", "warning", message, on="input" if checked_input else "output")


def _verdicts(assessments: list[dict[str, Any]]) -> list[str]:
    """Each finding of a guardrail's assessments that was acted on, as ``TYPE (ACTION)``: a content
    filter, a denied topic, a word, a piece of personal data, a grounding check."""
    found: list[str] = []
    for assessment in assessments:
        for policy in assessment.values():
            for findings in dict_or_empty(policy).values():
                for finding in dicts_in(findings):
                    kind = str_or_none(finding.get("type")) or str_or_none(finding.get("name"))
                    action = str_or_none(finding.get("action"))
                    if kind and action and action != "NONE":
                        found.append(f"{kind} ({action})")
    return list(dict.fromkeys(found))


def _set_agent_status(response: Response, answer: _AgentAnswer) -> None:
    if answer.error is not None:
        _fail(response, *answer.error)
    elif answer.interventions:
        response.mark_incomplete(
            phrase(
                "{field} {reason}: {explanation}",
                field="guardrailTrace",
                reason="INTERVENED",
                explanation=GUARDRAIL_INTERVENED,
            )
        )
    elif answer.returned_control:
        response.mark_incomplete(
            phrase(
                "the agent handed control back ({event}): it waits for the result of an action the caller runs",
                event="returnControl",
            )
        )
    elif not answer.chunks:
        response.mark_incomplete(phrase("stream ended without {event}", event="chunk"))
    else:
        response.status = "completed"
        if not answer.finished:
            response.diagnose(
                "stream_end_unmarked",
                "info",
                phrase(
                    "An agent's stream without its traces sends no event that ends it, so the stream is read as "
                    "complete: one cut between two chunks would look the same."
                ),
            )


# --- Detection ------------------------------------------------------------------------------------


def _event(value: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """A decoded event's name and payload: its one key and that key's object."""
    if len(value) != 1:
        return None, {}
    name, payload = next(iter(value.items()))
    return (str(name), payload) if isinstance(payload, dict) else (str(name), {})


def _is_exception(name: str) -> bool:
    """An exception member of the stream (``throttlingException``), or botocore's ``Error``."""
    return name == "Error" or (name.endswith("Exception") and name[:1].islower())


class _AnswerForLastValue:
    """``answer(value)``, kept for the value asked last (by identity, which holding it keeps unique):
    detection asks the same question of each event several times in a row (its shape, its splitter,
    its family), and an answer costs a few lookups each time."""

    def __init__(self, answer: Callable[[Any], str | None]) -> None:
        self._answer = answer
        self._last: tuple[object, str | None] = (None, None)

    def __call__(self, value: Any) -> str | None:
        last = self._last
        if last[0] is value:
            return last[1]
        found = self._answer(value)
        self._last = (value, found)
        return found


def _event_name_of(value: dict[str, Any]) -> str | None:
    if len(value) != 1:
        return None
    name, payload = next(iter(value.items()))
    if not isinstance(payload, dict) or not isinstance(name, str):
        return None
    if name in CONVERSE_EVENTS or name in KB_EVENTS or _is_exception(name) or _is_agent_event(name, payload):
        return name
    return None


def _is_agent_event(name: str, payload: dict[str, Any]) -> bool:
    """An agent's event, by its name and the member its payload must have: names as common as
    ``chunk`` and ``trace`` are not enough."""
    if name == "chunk":
        return "bytes" in payload or "attribution" in payload
    if name == "trace":
        return isinstance(payload.get("trace"), dict)
    if name == "returnControl":
        return "invocationInputs" in payload or "invocationId" in payload
    return name == "files" and isinstance(payload.get("files"), list)


def _is_converse_body(value: dict[str, Any]) -> bool:
    output = value.get("output")
    return isinstance(output, dict) and (
        isinstance(output.get("message"), dict) or isinstance(value.get("stopReason"), str)
    )


def _is_kb_body(value: dict[str, Any]) -> bool:
    citations = value.get("citations")
    if isinstance(citations, list) and any(
        isinstance(c, dict) and ("generatedResponsePart" in c or "retrievedReferences" in c) for c in citations
    ):
        return True
    return isinstance(value.get("sessionId"), str) and isinstance(value.get("output"), dict)


def _family_of(value: dict[str, Any]) -> str | None:
    if isinstance(value, DamagedMessage):
        return None
    if len(value) == 1 and "output" not in value and "citations" not in value:
        # A stream's event (a body of one member has one of those two): its name says.
        return _family_of_event(_event_name(value))
    if _is_converse_body(value):
        return "converse"
    if _is_kb_body(value):
        return "kb"
    return _family_of_event(_event_name(value))


def _family_of_event(name: str | None) -> str | None:
    if name in CONVERSE_EVENTS:
        return "converse"
    if name in KB_EVENTS:
        return "kb"
    return "agent" if name in AGENT_EVENTS else None


# The name of a Bedrock stream event (None when the value is none), and which API a value of the
# Bedrock shape is of ("converse", "kb", "agent", or None: an exception, a damaged message).
_event_name = _AnswerForLastValue(_event_name_of)
_family = _AnswerForLastValue(_family_of)


def _decide_bedrock(kind: str | None, keys: frozenset[str]) -> Decision | None:
    """``_bedrock_value`` of a plain dict (never a DamagedMessage): a body needs ``output`` or
    ``citations``, an event is one key."""
    return None if "output" in keys or "citations" in keys or len(keys) == 1 else NEITHER


def _bedrock_value(value: dict[str, Any]) -> ValueKind | None:
    if isinstance(value, DamagedMessage):
        return "event"
    if len(value) == 1 and "output" not in value and "citations" not in value:  # as in _family_of
        return "event" if _event_name(value) is not None else None
    if _is_converse_body(value) or _is_kb_body(value):
        return "whole"
    return "event" if _event_name(value) is not None else None


def _is_knowledge_base_value(value: dict[str, Any]) -> bool:
    return _family(value) == "kb"


def _is_agent_value(value: dict[str, Any]) -> bool:
    # (asked of each Bedrock value until one names its API: a key looked up first spares the call)
    return not AGENT_EVENTS.isdisjoint(value) and _family(value) == "agent"


def _is_inline_agent_value(value: dict[str, Any]) -> bool:
    """A trace of an inline agent: it names no agent, and its caller is the alias Bedrock gives every
    inline agent (``agent-alias/INLINE_AGENT/…``, as recorded). A stream without traces cannot tell."""
    part = value.get("trace")
    if not isinstance(part, dict) or "agentId" in part or _event_name(value) != "trace":
        return False
    return any(
        "/INLINE_AGENT/" in (str_or_none(c.get("agentAliasArn")) or "") for c in dicts_in(part.get("callerChain"))
    )


class _BedrockStream:
    """Events of the other API, or a second ``messageStart``, start the next response."""

    def __init__(self) -> None:
        self.family: str | None = None
        self.started = False

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        family = _family(value)
        if family is None:
            return False
        if self.family is not None and family != self.family:
            return True
        return self.started and _event_name(value) == "messageStart"

    def add(self, value: dict[str, Any]) -> None:
        self.family = self.family or _family(value)
        self.started = self.started or _event_name(value) == "messageStart"


# --- The APIs -------------------------------------------------------------------------------------

BEDROCK = Provider("bedrock", "AWS Bedrock")
# Both APIs' values in one shape: a stream's exception belongs to the stream around it, whichever it is.
BEDROCK_SHAPE = Shape(
    name="bedrock", priority=60, recognise=_bedrock_value, new_splitter=_BedrockStream, decide=_decide_bedrock
)

# --- The request behind a Converse answer -----------------------------------------------------------
# Its documents and search results, each quote checked against them as Claude's are (Claude on Bedrock
# cites the same way, its locations renamed). A request's ``messages[].content[]`` holds
# ``{"document": {format, name, source, citations}}`` blocks, whose ``source`` is ``bytes`` (base64 in
# JSON), ``text``, ``content[]`` of ``{text}`` or an ``s3Location``, and ``{"searchResult": {source,
# title, content[]}}`` blocks; both may also stand in a ``toolResult``'s content. ``documentIndex`` is
# taken to count document blocks in order of appearance and ``searchResultIndex`` search results apart,
# as Claude's do (unconfirmed for Bedrock: ``../shared/docs/provider-formats.md`` §11 item 14). A PDF's
# ``documentPage`` location is read as Claude's page location is: 1-based, the end exclusive.


# Document formats whose bytes are text, so character locations can be checked against them.
_TEXT_FORMATS = {"txt", "md", "html", "csv"}


def check_converse_request(response: Response, request: dict[str, Any]) -> None:
    """Compare every quote with the request's document it cites, and list the documents as sources."""
    check_documents(response, _converse_documents(request))


def _converse_documents(request: dict[str, Any]) -> list[RequestDocument]:
    return indexed_documents(map(_block_document, request_blocks(request, _tool_result_content)))


def _tool_result_content(block: dict[str, Any]) -> Any:
    return dict_or_empty(block.get("toolResult")).get("content")


def _block_document(block: dict[str, Any]) -> FoundDocument | None:
    result = block.get("searchResult")
    if isinstance(result, dict):
        title, origin = str_or_none(result.get("title")), str_or_none(result.get("source"))
        blocks = _text_blocks(result.get("content"))
        return True, lambda key: RequestDocument(key, title, "search_result", blocks=blocks, origin=origin)
    document = block.get("document")
    if isinstance(document, dict):
        return False, lambda key: _document(key, document)
    return None


def _document(key: str, document: dict[str, Any]) -> RequestDocument:
    title = str_or_none(document.get("name"))
    source = dict_or_empty(document.get("source"))
    if isinstance(source.get("text"), str):
        return RequestDocument(key, title, "text", text=source["text"])
    if isinstance(source.get("content"), list):
        return RequestDocument(key, title, "content", blocks=_text_blocks(source["content"]))
    encoded = source.get("bytes")
    document_format = str_or_none(document.get("format"))
    if isinstance(encoded, str) and document_format == "pdf":
        data = decoded_base64(encoded)
        return pdf_document(key, title, data) if data else RequestDocument(key, title, "pdf")
    if isinstance(encoded, str) and document_format in _TEXT_FORMATS:
        text = _decoded_text(encoded)
        if text is not None:
            return RequestDocument(key, title, "text", text=text)
    return RequestDocument(key, title, "file")  # an s3Location, a Word file, bytes that are not UTF-8 text


def _decoded_text(encoded: str) -> str | None:
    data = decoded_base64(encoded)
    try:
        return data.decode("utf-8") if data is not None else None
    except UnicodeDecodeError:
        return None


def _text_blocks(content: Any) -> list[str | None]:
    """Every block of a content list, in order; one that is not text is None, so the block indices
    the citations give still count it."""
    return [b["text"] if isinstance(b.get("text"), str) else None for b in dicts_in(content)]


register(
    ApiFormat(
        name="bedrock.retrieve_and_generate",
        label="Bedrock Knowledge Bases RetrieveAndGenerate",
        provider=BEDROCK,
        shape=BEDROCK_SHAPE,
        parser=parse_retrieve_and_generate,
        citation_notation=phrase(
            "citations: spans of the generated text (unit checked) with the passages retrieved for them"
        ),
        marks=_is_knowledge_base_value,
        priority=10,
    )
)
register(
    ApiFormat(
        name="bedrock.invoke_inline_agent",
        label="Bedrock Agents (InvokeInlineAgent)",
        provider=BEDROCK,
        shape=BEDROCK_SHAPE,
        parser=parse_invoke_inline_agent,
        citation_notation=phrase(
            "chunk attributions: spans of the answer (unit checked) with the passages retrieved for them"
        ),
        marks=_is_inline_agent_value,
        mark_member="trace",
        priority=4,
    )
)
register(
    ApiFormat(
        name="bedrock.invoke_agent",
        label="Bedrock Agents (InvokeAgent)",
        provider=BEDROCK,
        shape=BEDROCK_SHAPE,
        parser=parse_invoke_agent,
        citation_notation=phrase(
            "chunk attributions: spans of the answer (unit checked) with the passages retrieved for them"
        ),
        marks=_is_agent_value,
        marked_at_start=True,
        priority=5,
    )
)
register(
    ApiFormat(
        name="bedrock.converse",
        label="Bedrock Converse",
        provider=BEDROCK,
        shape=BEDROCK_SHAPE,
        parser=parse_converse,
        citation_notation=phrase(
            "citationsContent blocks, each citation with sourceContent and a document or web location"
        ),
        priority=20,  # every value of the shape that no Knowledge Base value marks
        request_check=check_converse_request,
        cites_documents_by_index=True,
    )
)
