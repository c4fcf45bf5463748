"""Anthropic Claude Messages API (``anthropic.messages``): citations on text blocks.

A cited text block's span in the answer is the whole block; each citation carries the quoted
evidence (``cited_text``) and where it sits in the source (``../shared/docs/provider-formats.md`` §2).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from citeview.core.common.links import is_safe_http_url
from citeview.core.common.model import Citation, Response, SearchBatch
from citeview.core.common.phrases import phrase
from citeview.core.detection.registry import NEITHER, ApiFormat, Decision, Provider, Shape, ValueKind, register
from citeview.core.parsing.citing import note_unknown_citation, note_unknown_event_types
from citeview.core.parsing.jsonvalues import dict_or_empty, dicts_in, int_or_none, int_or_zero, is_int, str_or_none
from citeview.core.parsing.pdf import PdfUnreadable, is_pdf, pdf_text
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
INCOMPLETE_STOP_REASONS = {
    "max_tokens": phrase("the answer hit the token limit"),
    "pause_turn": phrase("the server paused a long turn; its continuation is another response"),
    "refusal": phrase("the model refused"),
    "model_context_window_exceeded": phrase("the context window is full"),
}
_QUIET_EVENTS = {"ping", "content_block_stop", "message_stop"}
# How an event without a `type` is listed in the `unknown_event` details (the message words it as a phrase).


@dataclass
class _Stream:
    """What a Messages stream has delivered: blocks by index, in the order their starts came."""

    blocks: dict[int, dict[str, Any]] = field(default_factory=dict)
    message: dict[str, Any] = field(default_factory=dict)
    stop_reason: str | None = None
    stop_details: Any = None
    stopped: bool = False
    error: dict[str, Any] | None = None
    unknown_types: list[str | None] = field(default_factory=list)  # None: no type
    # The pieces of a block's text or tool input not yet joined, by block index and field: adding
    # each delta to the string so far copied a block's whole text at every delta (quadratic).
    pieces: dict[tuple[int, str], list[str]] = field(default_factory=dict)

    def join_pieces(self, index: int | None = None) -> None:
        """Write the pieces of block ``index`` (of every block when None) into its fields. A block's
        own keys are looked up, not found among every block's: at each block's start that made a
        stream of many blocks quadratic in them."""
        keys = list(self.pieces) if index is None else [(index, name) for name in _PIECE_FIELDS]
        for key in keys:
            pieces = self.pieces.pop(key, None)
            if pieces is not None:
                self.blocks[key[0]][key[1]] = "".join(pieces)


_PIECE_FIELDS = ("text", "partial_json")  # the fields ``_add_piece`` is given


def parse_messages(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("anthropic", "anthropic.messages", streamed)
    if streamed:
        stream = _read_stream(values)
        message = {**stream.message, "content": [stream.blocks[i] for i in sorted(stream.blocks)]}
        _read_message(response, message)
        _set_stream_status(response, stream)
        note_unknown_event_types(response, stream.unknown_types)
    else:
        message = next(iter(values))
        _read_message(response, message)
        _set_status(response, str_or_none(message.get("stop_reason")), message.get("stop_details"))
    return response


def _read_stream(events: Iterable[dict[str, Any]]) -> _Stream:
    stream = _Stream()
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            stream.message = dict_or_empty(event.get("message"))
        elif kind == "content_block_start":
            stream.join_pieces(_index(event))
            _start_block(stream, _index(event), dict_or_empty(event.get("content_block")))
        elif kind == "content_block_delta":
            index = _index(event)
            block = stream.blocks.setdefault(index, {"type": "text", "text": "", "citations": []})
            _apply_delta(stream, index, block, dict_or_empty(event.get("delta")))
        elif kind == "message_delta":
            delta = dict_or_empty(event.get("delta"))
            stream.stop_reason = str_or_none(delta.get("stop_reason")) or stream.stop_reason
            stream.stop_details = delta.get("stop_details") or stream.stop_details
        elif kind == "message_stop":
            stream.stopped = True
        elif kind == "error":
            stream.error = dict_or_empty(event.get("error")) or event
        elif not isinstance(kind, str) or kind not in _QUIET_EVENTS:
            label = None if kind is None else str(kind)
            if label not in stream.unknown_types:
                stream.unknown_types.append(label)
    stream.join_pieces()
    return stream


def _start_block(stream: _Stream, index: int, started: dict[str, Any]) -> None:
    """A block's start; deltas that arrived before it (a reordered dump) are kept after its text."""
    block = dict(started)
    if block.get("type") == "text":
        block["citations"] = list(dicts_in(block.get("citations")))
    early = stream.blocks.get(index)
    if early is not None:
        block["text"] = (str_or_none(block.get("text")) or "") + (str_or_none(early.get("text")) or "")
        block["citations"] = [*dicts_in(block.get("citations")), *dicts_in(early.get("citations"))]
        block["partial_json"] = early.get("partial_json", "")
    stream.blocks[index] = block


def _apply_delta(stream: _Stream, index: int, block: dict[str, Any], delta: dict[str, Any]) -> None:
    """Citations attach to their block by index, whether they come before or after its text."""
    kind = delta.get("type")
    if kind == "text_delta":
        _add_piece(stream, index, block, "text", str_or_none(delta.get("text")) or "")
    elif kind == "input_json_delta":  # a server tool's input (the web search query) arrives in pieces
        _add_piece(stream, index, block, "partial_json", str_or_none(delta.get("partial_json")) or "")
    elif kind == "citations_delta" and isinstance(delta.get("citation"), dict):
        block.setdefault("citations", [])
        if not isinstance(block["citations"], list):
            block["citations"] = []
        block["citations"].append(delta["citation"])


def _add_piece(stream: _Stream, index: int, block: dict[str, Any], name: str, piece: str) -> None:
    """``block[name]`` (a string, or "" for anything else) followed by ``piece``, joined later."""
    pieces = stream.pieces.get((index, name))
    if pieces is None:
        pieces = stream.pieces[(index, name)] = [str_or_none(block.get(name)) or ""]
    pieces.append(piece)


def _index(event: dict[str, Any]) -> int:
    index = event.get("index")
    return int_or_zero(index)


def _read_message(response: Response, message: dict[str, Any]) -> None:
    response.id = str_or_none(message.get("id"))
    response.model = str_or_none(message.get("model"))
    table = SourceTable(response)
    documents = _Documents(response, table)
    blocks = dicts_in(message.get("content"))
    result_urls = _web_results(blocks)
    parts: list[str] = []
    position = 0
    for block in blocks:
        if block.get("type") != "text":
            continue
        text = str_or_none(block.get("text")) or ""
        parts.append(text)
        for citation in dicts_in(block.get("citations")):
            _cite(response, table, documents, citation, position, position + len(text))
        position += len(text)
    response.text = "".join(parts)
    _add_web_results(response, table, blocks)
    _add_web_fetches(response, table, blocks)
    _note_earlier_results(response, result_urls)


def _cite(
    response: Response, table: SourceTable, documents: _Documents, citation: dict[str, Any], start: int, end: int
) -> None:
    kind = citation.get("type")
    cited_text = str_or_none(citation.get("cited_text"))
    if kind in ("char_location", "page_location", "content_block_location"):
        key, location = _document_source(documents, citation)
    elif kind == "web_search_result_location":
        url = str_or_none(citation.get("url"))
        key = table.add(url or "web:unknown", kind="web", url=url, title=str_or_none(citation.get("title")))
        location = None
    elif kind == "search_result_location":
        key, location = _search_result_source(table, citation)
    else:
        note_unknown_citation(
            response,
            phrase("A citation of a type citeview does not know ({type}) is listed but not placed.", type=str(kind)),
            str(kind),
        )
        return
    response.citations.append(Citation(start, end, [key], cited_text=cited_text, location=location))


class _Documents:
    """The documents citations name, by ``document_index``. A document sent by Files API id carries
    its ``file_id``; two ids under one index are two documents, kept apart and said to conflict.
    Each citation is one dictionary lookup, however many files a dump names."""

    def __init__(self, response: Response, table: SourceTable) -> None:
        self._response = response
        self._table = table
        self._first: dict[str, str] = {}  # "doc:N" -> the stored key of the first document cited under it
        self._count: dict[str, int] = {}  # "doc:N" -> how many documents are cited under it
        self._by_file: dict[tuple[str, str], str] = {}  # ("doc:N", file_id) -> stored key
        self._file_of: dict[str, str | None] = {}  # stored key -> its file_id

    def key(self, number: int | None, file_id: str | None, title: str | None) -> str:
        name = f"doc:{number if number is not None else '?'}"
        first = self._first.get(name)
        if first is None:
            return self._add(name, name, number, file_id, title)
        # A citation without a file_id (a model_dump null, a proxy) names no other file than the first.
        stored = first if file_id is None else self._by_file.get((name, file_id))
        if stored is None and self._file_of[first] is None:
            stored = first  # the first document, cited until now without its id, is this file
            self._file_of[first] = file_id
            self._by_file[(name, str(file_id))] = first
            self._table.get(first).extra.setdefault("file_id", file_id)
        if stored is not None:
            source = self._table.get(stored)
            source.title = source.title or title
            return stored
        stored = self._add(name, f"{name}#{self._count[name] + 1}", number, file_id, title)
        self._response.diagnose(
            "source_conflict",
            "warning",
            phrase(
                "{key} is cited as two different files: {first} and {second}. Both are kept; each citation "
                "points at the file it names.",
                key=name,
                first=self._file_of[first],
                second=file_id,
            ),
            key=name,
            keys=[first, stored],
            file_ids=[self._file_of[first], file_id],
        )
        return stored

    def _add(self, name: str, key: str, number: int | None, file_id: str | None, title: str | None) -> str:
        extra = {"document_index": number, "file_id": file_id}
        stored = self._table.add(key, kind="document", url=None, title=title, extra=extra)
        self._first.setdefault(name, stored)
        self._count[name] = self._count.get(name, 0) + 1
        self._file_of[stored] = file_id
        if file_id is not None:
            self._by_file[(name, file_id)] = stored
        return stored


def _document_source(documents: _Documents, citation: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    index = citation.get("document_index")
    number = int_or_none(index)
    file_id = str_or_none(citation.get("file_id")) or None
    key = documents.key(number, file_id, str_or_none(citation.get("document_title")))
    kind = citation.get("type")
    if kind == "char_location":
        location = _range("char", citation.get("start_char_index"), citation.get("end_char_index"))
    elif kind == "page_location":
        location = _range("page", citation.get("start_page_number"), citation.get("end_page_number"))
    else:
        location = _range("block", citation.get("start_block_index"), citation.get("end_block_index"))
    if location is not None and file_id is not None:
        location["file_id"] = file_id  # the document is not in the dump: the file it is, by Files API id
    return key, location


def _search_result_source(table: SourceTable, citation: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    index = citation.get("search_result_index")
    number = index if is_int(index) else "?"
    origin = str_or_none(citation.get("source"))
    # `source` is whatever the request named the result by: a link only when it is one.
    url = origin if is_safe_http_url(origin) else None
    key = table.add(
        f"search_result:{number}",
        kind="document",
        url=url,
        title=str_or_none(citation.get("title")),
        extra={"search_result_index": index, "source": origin},
    )
    return key, _range("block", citation.get("start_block_index"), citation.get("end_block_index"))


def _range(unit: str, start: Any, end: Any) -> dict[str, Any] | None:
    if not all(is_int(v) for v in (start, end)):
        return None
    return {"type": unit, "start": start, "end": end}


def _web_results(blocks: list[dict[str, Any]]) -> set[str]:
    return {
        url
        for block in blocks
        if block.get("type") == "web_search_tool_result"
        for result in dicts_in(block.get("content"))
        if (url := str_or_none(result.get("url")))
    }


def _add_web_results(response: Response, table: SourceTable, blocks: list[dict[str, Any]]) -> None:
    """Every search result offered, cited or not, with its title and age; one batch per search."""
    queries = {str(b.get("id")): _tool_query(b) for b in blocks if b.get("type") == "server_tool_use"}
    for block in blocks:
        if block.get("type") != "web_search_tool_result":
            continue
        content = block.get("content")
        if isinstance(content, dict):
            error = str_or_none(content.get("error_code")) or "unknown"
            response.diagnose(
                "search_failed", "warning", phrase("A web search failed: {error}.", error=error), error_code=error
            )
            continue
        keys = []
        for result in dicts_in(content):
            url = str_or_none(result.get("url"))
            if url is None:
                continue
            title = str_or_none(result.get("title"))
            key = table.add(url, kind="web", url=url, title=title, extra={"page_age": result.get("page_age")})
            if title:  # the search result's own title, over the one a citation repeated
                table.get(key).title = title
            keys.append(key)
        query = queries.get(str(block.get("tool_use_id")))
        response.searches.append(SearchBatch([query] if query else [], keys))


def _tool_query(block: dict[str, Any]) -> str | None:
    return str_or_none(_tool_input(block).get("query"))


def _tool_input(block: dict[str, Any]) -> dict[str, Any]:
    """A server tool's input: whole in a message, in ``partial_json`` pieces in a stream."""
    tool_input = block.get("input")
    if not tool_input and block.get("partial_json"):
        try:
            tool_input = json.loads(block["partial_json"])
        except ValueError:
            return {}
    return dict_or_empty(tool_input)


def _add_web_fetches(response: Response, table: SourceTable, blocks: list[dict[str, Any]]) -> None:
    """Each page Claude fetched is a source holding the text Claude read, the evidence its answer rests
    on; a failed fetch is said, with its address. A result may answer a call of the message before
    (a continuation starts with it): it is read all the same."""
    calls = {str(b.get("id")): b for b in blocks if b.get("type") == "server_tool_use"}
    for block in blocks:
        if block.get("type") != "web_fetch_tool_result":
            continue
        result = dict_or_empty(block.get("content"))
        caller = _programmatic_caller(block)
        if result.get("type") == "web_fetch_result":
            _add_fetched_page(response, table, result, caller)
            continue
        call = calls.get(str(block.get("tool_use_id")))
        url = str_or_none(_tool_input(call).get("url")) if call is not None else None
        _note_failed_fetch(response, url, str_or_none(result.get("error_code")) or "unknown")


def _programmatic_caller(block: dict[str, Any]) -> str | None:
    """The tool whose code called this one (``code_execution_…``); None for Claude's own call."""
    caller = str_or_none(dict_or_empty(block.get("caller")).get("type"))
    return None if caller in (None, "direct") else caller


def _add_fetched_page(response: Response, table: SourceTable, result: dict[str, Any], caller: str | None) -> None:
    url = str_or_none(result.get("url"))
    document = dict_or_empty(result.get("content"))
    extra = {"retrieved_at": str_or_none(result.get("retrieved_at")), "caller": caller}
    key = table.add(
        url or "web_fetch:unknown", kind="web", url=url, title=str_or_none(document.get("title")), extra=extra
    )
    try:
        text = _fetched_text(dict_or_empty(document.get("source")))
    except PdfUnreadable as error:
        response.diagnose(
            "location_unverifiable",
            "warning",
            phrase(
                "The PDF Claude fetched from {url} cannot be read here ({reason}); the text Claude read of it is "
                "not shown.",
                url=url or key,
                reason=error.reason,
            ),
            key=key,
        )
        return
    if text:
        table.get(key).extra.update(snippet=text, snippet_kind="fetched_page")


_BASE64_PDF_START = "JVBER"  # "%PDF" in base64: a fetched PDF may arrive as text/plain holding its base64


def _fetched_text(source: dict[str, Any]) -> str | None:
    """The text of a fetched document's ``source``: its plain text, or a PDF's pages (the PDF sent as
    base64, whatever its ``media_type`` says). Raises :class:`PdfUnreadable` for a PDF pypdf cannot read."""
    data = str_or_none(source.get("data"))
    if not data:
        return None
    if source.get("type") != "base64" and not data.startswith(_BASE64_PDF_START):
        return data
    pdf = decoded_base64(data)
    if pdf is None or not is_pdf(pdf):
        return data if source.get("type") == "text" else None
    return "\n\n".join(pdf_text(pdf).pages) or None


def _note_failed_fetch(response: Response, url: str | None, error: str) -> None:
    if url is None:  # the call was in the message before: its address is there
        said = phrase(
            "A web fetch failed: {error}. Its address is in the message before this one, which asked for it.",
            error=error,
        )
    else:
        said = phrase("Claude's fetch of {url} failed: {error}.", url=url, error=error)
    where = {"url": url} if url is not None else {}
    response.diagnose("web_fetch_failed", "warning", said, **where, error_code=error)


def _note_earlier_results(response: Response, result_urls: set[str]) -> None:
    """A continuation after ``pause_turn`` cites pages an earlier response found: kept, and said so."""
    earlier = sorted(
        {k for c in response.citations for k in c.source_keys if k.startswith("http") and k not in result_urls}
    )
    if earlier:
        response.diagnose(
            "source_from_earlier_response",
            "info",
            phrase(
                "{count} cited page(s) are not among this response's search results; a continuation "
                "(after pause_turn) may cite results an earlier response received. The citations are kept.",
                count=len(earlier),
            ),
            urls=earlier,
        )


def _set_status(response: Response, stop_reason: str | None, stop_details: Any) -> None:
    if stop_reason in COMPLETED_STOP_REASONS:
        response.status = "completed"
    elif stop_reason in INCOMPLETE_STOP_REASONS:
        meaning = INCOMPLETE_STOP_REASONS[stop_reason]
        # The provider's own explanation is shown as it came, untranslated.
        explanation = str_or_none(dict_or_empty(stop_details).get("explanation"))
        if explanation:
            response.mark_incomplete(
                phrase(
                    "stop_reason {reason}: {meaning} ({explanation})",
                    reason=stop_reason,
                    meaning=meaning,
                    explanation=explanation,
                )
            )
        else:
            response.mark_incomplete(
                phrase("{field} {reason}: {explanation}", field="stop_reason", reason=stop_reason, explanation=meaning)
            )
    elif stop_reason:
        response.mark_incomplete(phrase("{field} {reason}", field="stop_reason", reason=stop_reason))
    else:
        response.mark_incomplete(phrase("the response has no {field}", field="stop_reason"))


def _set_stream_status(response: Response, stream: _Stream) -> None:
    if stream.error is not None:
        response.mark_failed(stream.error)
    elif not stream.stopped:
        response.mark_incomplete(phrase("stream ended without {event}", event="message_stop"))
    else:
        _set_status(response, stream.stop_reason, stream.stop_details)


# --- Detection ------------------------------------------------------------------------------------

_STREAM_EVENTS = {
    "message_start",
    "message_delta",
    "message_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "ping",
}


def _decide_messages(kind: str | None, keys: frozenset[str]) -> Decision | None:
    if kind is not None and kind in _STREAM_EVENTS:
        return "event"
    return None if kind == "message" and "role" in keys else NEITHER


def _messages_value(value: dict[str, Any]) -> ValueKind | None:
    kind = value.get("type")
    if isinstance(kind, str) and kind in _STREAM_EVENTS:
        return "event"
    if kind == "message" and value.get("role") == "assistant":
        return "whole"
    return None


class _MessagesStream:
    """A second ``message_start`` starts the next response."""

    def __init__(self) -> None:
        self.started = False

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        return value.get("type") == "message_start" and self.started

    def add(self, value: dict[str, Any]) -> None:
        self.started = self.started or value.get("type") == "message_start"


# --- The API --------------------------------------------------------------------------------------

# --- The request behind an answer ------------------------------------------------------------------
# ``document_index`` counts document blocks in the request in order of appearance (user messages and
# the tool results inside them); ``search_result_index`` counts ``search_result`` blocks separately.


def check_quotes(response: Response, request: dict[str, Any]) -> None:
    """Compare every quote with the document it cites, and list the request's documents as sources."""
    check_documents(response, _request_documents(request))


def _request_documents(request: dict[str, Any]) -> list[RequestDocument]:
    return indexed_documents(map(_block_document, request_blocks(request, _tool_result_content)))


def _tool_result_content(block: dict[str, Any]) -> Any:
    return block.get("content") if block.get("type") == "tool_result" else None


def _block_document(block: dict[str, Any]) -> FoundDocument | None:
    kind = block.get("type")
    title = str_or_none(block.get("title"))
    if kind == "search_result":
        blocks = _text_blocks(block.get("content"))
        origin = str_or_none(block.get("source"))
        return True, lambda key: RequestDocument(key, title, "search_result", blocks=blocks, origin=origin)
    if kind != "document":
        return None
    source = dict_or_empty(block.get("source"))
    return False, lambda key: _document(key, title, source)


def _document(key: str, title: str | None, source: dict[str, Any]) -> RequestDocument:
    source_type = source.get("type")
    if source_type == "text":
        return RequestDocument(key, title, "text", text=str_or_none(source.get("data")) or "")
    if source_type == "content":
        inner = source.get("content")
        blocks: list[str | None] = [inner] if isinstance(inner, str) else _text_blocks(inner)
        return RequestDocument(key, title, "content", blocks=blocks)
    if source_type == "base64" and isinstance(source.get("data"), str):
        data = decoded_base64(source["data"])
        return pdf_document(key, title, data) if data else RequestDocument(key, title, "pdf")
    if source_type in ("base64", "url"):
        return RequestDocument(key, title, "pdf")
    return RequestDocument(key, title, "file")


def _text_blocks(content: Any) -> list[str | None]:
    """Every block of a content list, in order; a block that is not text (an image) is None, so the
    block indices citations give still count it."""
    return [(str_or_none(b.get("text")) or "") if b.get("type") == "text" else None for b in dicts_in(content)]


register(
    ApiFormat(
        name="anthropic.messages",
        label="Anthropic Messages",
        provider=Provider("anthropic", "Claude"),
        shape=Shape(
            name="messages",
            priority=30,
            recognise=_messages_value,
            new_splitter=_MessagesStream,
            decide=_decide_messages,
        ),
        parser=parse_messages,
        citation_notation=phrase(
            "citations on text blocks, each with cited_text and a char, page, block or web location"
        ),
        request_check=check_quotes,
        cites_documents_by_index=True,
    )
)
