"""LangChain's messages with its v1 standard content blocks (``langchain.messages``),
``../shared/docs/provider-formats.md`` §9B.

An ``AIMessage`` (as ``model_dump()`` writes it, in LangChain's ``lc`` serialised form, or its
``content_blocks`` alone) holds text blocks whose ``annotations`` are citations. Their
``start_index``/``end_index`` are whatever the provider's translator copied: Gemini's copies its
UTF-8 byte offsets into the whole answer (and hangs every citation on the first text block);
Anthropic's gives none, so a citation covers its text block, as Claude's do. Every span is checked
against the text the citation says it covers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from citeview.core.common.links import is_grounding_redirect
from citeview.core.common.model import Citation, ReasoningText, Response, SearchBatch
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.detection.registry import NEITHER, ApiFormat, Decision, Provider, Shape, ValueKind, register
from citeview.core.parsing import placing
from citeview.core.parsing.jsonvalues import camel_or_snake, dict_or_empty, is_int, str_or_none, strings_in
from citeview.core.parsing.offsets import ByteOffsets
from citeview.core.parsing.sources import SourceTable

_AI_TYPES = {"ai", "AIMessage"}
_AI_CHUNK_TYPES = {"AIMessageChunk"}
_OTHER_TYPES = {
    "human",
    "system",
    "tool",
    "function",
    "chat",
    "developer",
    "remove",
    "HumanMessage",
    "SystemMessage",
    "ToolMessage",
    "FunctionMessage",
    "ChatMessage",
    "HumanMessageChunk",
    "SystemMessageChunk",
    "ToolMessageChunk",
}
_ANNOTATION_TYPES = {"citation", "non_standard_annotation"}
_OPAQUE_EXTRAS = {"encrypted_index", "google_ai_metadata"}  # the provider's own, or read apart
# Finish reasons providers report in response_metadata that mean the answer is whole.
_COMPLETED = {"stop", "end_turn", "STOP", "tool_calls", "tool_use", "stop_sequence", "function_call", "COMPLETE"}
_READINGS = (placing.CODE_POINTS, placing.UTF16, placing.UTF8)  # what a citation's offsets may count, tried in turn


# --- Messages and their blocks -----------------------------------------------------------------------


@dataclass
class _Block:
    """A content block; a streamed one gathers its pieces from every chunk of the same ``index``."""

    kind: Any
    raw: dict[str, Any]
    pieces: list[str] = field(default_factory=list)  # a text block's text, a reasoning block's reasoning
    annotations: list[Any] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.pieces)


@dataclass
class _Message:
    """One AI message: its blocks in order, and what it says of itself."""

    blocks: list[_Block] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    chunks: int = 0  # streamed chunks merged into it
    last_chunk: bool = False
    by_index: dict[tuple[str, Any], _Block] = field(default_factory=dict)
    string_block: _Block | None = None

    def add_content(self, content: Any) -> None:
        if isinstance(content, str):
            self._add_string(content)
            return
        for raw in content if isinstance(content, list) else []:
            if isinstance(raw, str):
                self._add_string(raw)
            elif isinstance(raw, dict):
                self._add_block(raw)

    def _add_string(self, text: str) -> None:
        if not text:
            return
        if self.string_block is None:
            self.string_block = _Block("text", {"type": "text"})
            self.blocks.append(self.string_block)
        self.string_block.pieces.append(text)

    def _add_block(self, raw: dict[str, Any]) -> None:
        kind = raw.get("type")
        index = raw.get("index")
        piece_field = kind if kind in ("reasoning", "thinking") else "text"
        key = (str(kind), index) if isinstance(index, int | str) and not isinstance(index, bool) else None
        block = self.by_index.get(key) if key is not None and self.chunks else None
        if block is None:
            block = _Block(kind, raw)
            self.blocks.append(block)
            if key is not None:
                self.by_index[key] = block
        self.string_block = None
        piece = raw.get(piece_field)
        if isinstance(piece, str):
            block.pieces.append(piece)
        annotations = raw.get("annotations")
        if isinstance(annotations, list):
            block.annotations.extend(annotations)

    def read_metadata(self, message: dict[str, Any]) -> None:
        self.id = self.id or str_or_none(message.get("id"))
        for name, value in dict_or_empty(message.get("response_metadata")).items():
            if value not in (None, "", [], {}):
                self.metadata[name] = value  # a later chunk's finish reason is the one that counts
        self.last_chunk = self.last_chunk or message.get("chunk_position") == "last"


def _classify(value: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """What a value is: an AI message ("ai"), a chunk of one ("chunk"), another message ("other"),
    a content block ("block"); with the message itself (the ``lc`` form's ``kwargs``)."""
    if value.get("lc") == 1 and value.get("type") == "constructor" and isinstance(value.get("kwargs"), dict):
        names = strings_in(value.get("id"))
        name = names[-1] if names else ""
        role = "chunk" if name == "AIMessageChunk" else "ai" if name == "AIMessage" else "other"
        return role, value["kwargs"]
    kind = value.get("type")
    if not isinstance(kind, str):
        return ("ai", value) if kind is None and isinstance(value.get("content_blocks"), list) else None
    if kind in _AI_TYPES and ("content" in value or "content_blocks" in value):
        return "ai", value
    if kind in _AI_CHUNK_TYPES and ("content" in value or "content_blocks" in value):
        return "chunk", value
    if kind in _OTHER_TYPES and "content" in value:
        return "other", value
    return "block", value


def _messages(values: Iterable[dict[str, Any]]) -> list[_Message]:
    """The AI messages among the values: whole ones, streamed chunks merged, a bare list of blocks."""
    found: list[_Message] = []
    current: _Message | None = None  # the message that chunks or bare blocks are being added to
    current_role = ""
    for value in values:
        classified = _classify(value)
        if classified is None:
            continue
        role, message = classified
        if role == "other":
            current = None  # what the user, the system or a tool said is no answer
            continue
        if role == "ai" or current is None or current_role != role:
            current, current_role = _Message(), role
            found.append(current)
        if role == "block":
            current.add_content([message])
            continue
        blocks = message.get("content_blocks")
        current.add_content(blocks if isinstance(blocks, list) else message.get("content"))
        current.read_metadata(message)
        if role == "chunk":
            current.chunks += 1
        else:
            current = None
    return found


# --- Reading a message ---------------------------------------------------------------------------------


def parse_messages(values: Iterable[dict[str, Any]], streamed: bool) -> list[Response]:
    responses = [_read_message(message) for message in _messages(values)]
    if responses:
        return responses
    response = Response("langchain", "langchain.messages", False)
    response.mark_incomplete(phrase("the dump holds no {role} message", role="AI"))
    return [response]


@dataclass
class _Reading:
    response: Response
    table: SourceTable
    answer: ByteOffsets | None = None  # the answer's bytes, once a Gemini citation needs them
    queries: dict[str, None] = field(default_factory=dict)  # (dicts: each once, in order)
    gemini_keys: dict[str, None] = field(default_factory=dict)
    unplaced_keys: dict[str, None] = field(default_factory=dict)
    noted: set[str] = field(default_factory=set)

    def note_once(self, code: str, message: Phrase, **details: Any) -> None:
        if code + repr(sorted(details.items())) not in self.noted:
            self.noted.add(code + repr(sorted(details.items())))
            self.response.diagnose(code, "info", message, **details)

    def cite(self, start: int, end: int, key: str, cited_text: str | None = None) -> None:
        last = self.response.citations[-1] if self.response.citations else None
        if last and cited_text is None and last.cited_text is None and (last.start, last.end) == (start, end):
            if key not in last.source_keys:
                last.source_keys.append(key)  # one span, several sources (a Gemini support of several chunks)
            return
        self.response.citations.append(Citation(start, end, [key], cited_text=cited_text))

    def unplaced(self, key: str) -> None:
        self.unplaced_keys[key] = None


def _read_message(message: _Message) -> Response:
    streamed = message.chunks > 1
    response = Response("langchain", "langchain.messages", streamed, id=message.id)
    response.model = str_or_none(message.metadata.get("model_name")) or str_or_none(message.metadata.get("model"))
    reading = _Reading(response, SourceTable(response))
    texts: list[tuple[int, _Block, str]] = []
    position = 0
    for block in message.blocks:
        if block.kind == "text":
            text = block.text
            texts.append((position, block, text))
            position += len(text)
        elif block.kind in ("reasoning", "thinking") and block.text:  # (thinking: a provider's own block)
            response.reasoning.append(ReasoningText("thinking", block.text))
        elif block.kind == "non_standard":
            inner = dict_or_empty(block.raw.get("value")).get("type")
            reading.note_once(
                "non_standard_content",
                phrase(
                    "The message holds a block LangChain did not translate ({type}); citeview does not show it, "
                    "and the raw dump keeps it.",
                    type=str(inner),
                ),
                type=str(inner),
            )
    response.text = "".join(text for _, _, text in texts)
    _translate_native_citations(reading, message, [block for _, block, _ in texts])
    number = 0
    for shift, block, text in texts:
        for annotation in block.annotations:
            _annotate(reading, shift, text, number, _standard_annotation(annotation))
            number += 1
    response.cited_without_position = list(reading.unplaced_keys)
    if reading.queries or reading.gemini_keys:
        response.searches.append(SearchBatch(list(reading.queries), list(reading.gemini_keys)))
    _set_status(response, message)
    return response


# --- A message saved with the provider's own content (LangChain's default output) ---------------------

_ANTHROPIC_DOCUMENT_CITATIONS = {"char_location", "page_location", "content_block_location", "search_result_location"}


def _translate_native_citations(reading: _Reading, message: _Message, blocks: list[_Block]) -> None:
    """``model_dump()`` keeps the provider's own content unless the model was asked for v1 output:
    Claude's ``citations`` on its text blocks, Gemini's ``grounding_metadata`` in the response
    metadata. They are read as LangChain's translators read them, and said to be."""
    if any(block.annotations for block in blocks):
        return
    translated = None
    for block in blocks:
        citations = block.raw.get("citations")
        if isinstance(citations, list) and citations:
            block.annotations = list(citations)
            translated = "Anthropic"
    grounding = message.metadata.get("grounding_metadata")
    if translated is None and isinstance(grounding, dict) and blocks:
        blocks[0].annotations = _citations_of_grounding(grounding)  # all on the first block, as LangChain does
        translated = "Gemini" if blocks[0].annotations else None
    if translated:
        reading.note_once(
            "provider_native_content",
            phrase(
                "The message was saved with the provider's own content, not LangChain's standard blocks; its "
                "citations are read as LangChain's {provider} translator reads them.",
                provider=translated,
            ),
            provider=translated,
        )


def _citations_of_grounding(grounding: dict[str, Any]) -> list[Any]:
    """Gemini's supports as LangChain's translator makes them: one citation per support and chunk,
    with the support's byte offsets and text."""
    chunks = camel_or_snake(grounding, "groundingChunks")
    chunks = chunks if isinstance(chunks, list) else []
    queries = strings_in(camel_or_snake(grounding, "webSearchQueries"))
    citations: list[Any] = []
    supports = camel_or_snake(grounding, "groundingSupports")
    for support in supports if isinstance(supports, list) else []:
        segment = dict_or_empty(camel_or_snake(support, "segment"))
        indices = camel_or_snake(support, "groundingChunkIndices")
        for index in indices if isinstance(indices, list) else []:
            if not is_int(index) or not 0 <= index < len(chunks):
                continue
            web = dict_or_empty(camel_or_snake(chunks[index], "web"))
            citations.append(
                {
                    "type": "citation",
                    "url": camel_or_snake(web, "uri"),
                    "title": camel_or_snake(web, "title"),
                    "start_index": camel_or_snake(segment, "startIndex"),
                    "end_index": camel_or_snake(segment, "endIndex"),
                    "cited_text": camel_or_snake(segment, "text"),
                    "extras": {"google_ai_metadata": {"web_search_queries": queries, "grounding_chunk_index": index}},
                }
            )
    return citations


def _standard_annotation(annotation: Any) -> Any:
    """A provider's own annotation as LangChain's translators make it a standard one."""
    if not isinstance(annotation, dict):
        return annotation
    kind = annotation.get("type")
    if kind == "url_citation":  # OpenAI's (Chat Completions nests it)
        flat = {**annotation, **dict_or_empty(annotation.get("url_citation"))}
        names = ("url", "title", "start_index", "end_index")
        return {"type": "citation", **{name: flat[name] for name in names if name in flat}}
    if kind == "web_search_result_location":  # Claude's web citation
        extras = {k: v for k, v in annotation.items() if k not in ("type", "cited_text", "url", "title")}
        return {
            "type": "citation",
            "url": annotation.get("url"),
            "title": annotation.get("title"),
            "cited_text": annotation.get("cited_text"),
            "extras": extras,
        }
    if isinstance(kind, str) and kind in _ANTHROPIC_DOCUMENT_CITATIONS:  # Claude's document citation
        extras = {k: v for k, v in annotation.items() if k not in ("type", "cited_text", "document_title", "title")}
        title = annotation.get("document_title") or annotation.get("title")
        return {"type": "citation", "title": title, "cited_text": annotation.get("cited_text"), "extras": extras}
    if kind in ("citation", "non_standard_annotation"):
        return annotation
    return {"type": "non_standard_annotation", "value": annotation}


def _annotate(reading: _Reading, shift: int, text: str, number: int, annotation: Any) -> None:
    if not isinstance(annotation, dict) or annotation.get("type") != "citation":
        kind = annotation.get("type") if isinstance(annotation, dict) else None
        value_kind = dict_or_empty(annotation.get("value")).get("type") if isinstance(annotation, dict) else None
        shown = str(value_kind if kind == "non_standard_annotation" and value_kind else kind)
        reading.note_once(
            "unknown_citation",
            phrase(
                "An annotation citeview cannot read ({kind}) is kept in the raw dump, not placed.",
                kind=shown,
            ),
            type=shown,
        )
        return
    extras = dict_or_empty(annotation.get("extras"))
    google = extras.get("google_ai_metadata")
    key = _source(reading, annotation, extras, google, number)
    cited = str_or_none(annotation.get("cited_text"))
    start, end = annotation.get("start_index"), annotation.get("end_index")
    if isinstance(google, dict):
        _place_gemini(reading, number, key, start, end, cited)
    elif start is None and end is None:
        if text:
            reading.cite(shift, shift + len(text), key, cited)  # the citation is its whole text block
        else:
            reading.unplaced(key)
    else:
        _place_characters(reading, shift, text, number, key, start, end, cited)


def _source(reading: _Reading, annotation: dict[str, Any], extras: dict[str, Any], google: Any, number: int) -> str:
    url = str_or_none(annotation.get("url")) or None
    title = str_or_none(annotation.get("title")) or None
    extra = {name: value for name, value in extras.items() if name not in _OPAQUE_EXTRAS}
    chunk = dict_or_empty(google).get("grounding_chunk_index")
    if isinstance(google, dict):
        extra["grounding_chunk_index"] = chunk
        extra["redirect"] = is_grounding_redirect(url)
    gemini_chunk = isinstance(google, dict) and is_int(chunk)
    if url:
        # Gemini's sources by their chunk index, as Gemini's own responses number them.
        name = str(chunk) if gemini_chunk else url
        key = reading.table.add(name, kind="web", url=url, title=title, extra=extra)
    else:
        document = extras.get("document_index")
        if gemini_chunk:
            name = str(chunk)
        elif is_int(document):
            name = f"document-{document}"
        else:
            name = title or str_or_none(annotation.get("id")) or f"citation-{number}"
        key = reading.table.add(name, kind="document", url=None, title=title, extra=extra)
    if isinstance(google, dict):
        reading.queries.update(dict.fromkeys(strings_in(google.get("web_search_queries"))))
        reading.gemini_keys[key] = None
    return key


def _place_gemini(reading: _Reading, number: int, key: str, start: Any, end: Any, cited: str | None) -> None:
    """Gemini's translator copies the support's UTF-8 byte offsets, which count the whole answer
    (every text block), and omits a start of 0."""
    response = reading.response
    if start is None:
        start = 0
    if not (is_int(start) and is_int(end)):
        no_offsets = phrase(
            "Citation {number} for {key} has no byte offsets to place it by; it is listed, not placed.",
            number=number,
            key=key,
        )
        placing.note_no_span(response, no_offsets, key=key)
        reading.unplaced(key)
        return
    if reading.answer is None:
        reading.answer = ByteOffsets(response.text)
        message = phrase(
            "The citations were translated from Gemini, whose offsets count UTF-8 bytes of the whole answer; "
            "citeview converted them to characters and checked each against its cited text."
        )
        placing.note_unit(response, message, unit="utf8")
    placement = placing.place_byte_span(reading.answer, start, end, cited)
    if placement.problem:  # (asked first: most citations fit)
        shown = repr((cited or "")[:40])

        def say(detail: Phrase | None, where: Phrase) -> Phrase:
            return phrase(
                "Citation {number} ({text}): {detail}; {where}.", number=number, text=shown, detail=detail, where=where
            )

        placing.note_where(response, placement, say, key=key, start_byte=start, end_byte=end, segment_text=cited)
    if placement.start is None or placement.end is None:
        reading.unplaced(key)
        return
    reading.cite(placement.start, placement.end, key)  # the cited text is the answer's own words


def _place_characters(
    reading: _Reading, shift: int, text: str, number: int, key: str, start: Any, end: Any, cited: str | None
) -> None:
    """Offsets into the block's text: characters first, then UTF-16 units or UTF-8 bytes when only
    they give the text the citation says it covers."""
    response = reading.response
    if not (is_int(start) and is_int(end)):
        not_numbers = phrase(
            "Citation {number} for {key} has a start_index or end_index that is not a number; it is listed, "
            "not placed.",
            number=number,
            key=key,
        )
        placing.note_no_span(response, not_numbers, key=key)
        reading.unplaced(key)
        return
    if start == end:
        empty = phrase(
            "Citation {number} for {key} marks no text (start = end = {start}); it is listed, not placed.",
            number=number,
            key=key,
            start=start,
        )
        placing.note_marks_nothing(response, empty, key=key)
        reading.unplaced(key)
        return
    placement = placing.place_checked(text, start, end, _READINGS, cited.__eq__ if cited else None)
    if placement.start is None or placement.end is None:
        outside = phrase(
            "Citation {number} for {key} spans characters {start}–{end}, outside its text of {length}; "
            "it is listed, not placed.",
            number=number,
            key=key,
            **placing.outside_values(text, start, end),
        )
        placing.note_placement(response, placement, "warning", outside, key=key, start=start, end=end)
        reading.unplaced(key)
        return
    if placement.problem is None and cited:
        _note_unit(response, number, key, placement.reading)
        reading.cite(shift + placement.start, shift + placement.end, key)  # the cited text is the answer's own words
        return
    if placement.problem is not None:
        # Not the answer's words in any unit: LangChain's own meaning, a quote from the source.
        quote = phrase(
            "Citation {number}'s cited_text is not the text its span covers, in characters, UTF-16 units or "
            "UTF-8 bytes; it is kept as the quote from the source, and the span read as characters.",
            number=number,
        )
        placing.note_placement(response, placement, "info", quote, key=key, start=start, end=end)
    reading.cite(shift + placement.start, shift + placement.end, key, cited)


def _note_unit(response: Response, number: int, key: str, fitted: placing.Reading | None) -> None:
    if fitted is None or fitted.unit == "code_points":
        return
    message = phrase(
        "Citation {number} covers its cited text only when its offsets are read as {unit}.",
        number=number,
        unit=_UNIT_WORDS[fitted.unit],
    )
    placing.note_unit(response, message, key=key, unit=fitted.unit)


_UNIT_WORDS = {"utf16": phrase("UTF-16 code units"), "utf8": phrase("UTF-8 bytes"), "code_points": phrase("characters")}


def _set_status(response: Response, message: _Message) -> None:
    metadata = message.metadata
    field_name = "stop_reason" if "stop_reason" in metadata and "finish_reason" not in metadata else "finish_reason"
    reason = str_or_none(metadata.get(field_name))
    if reason is None and (not response.streamed or message.last_chunk):
        response.status = "completed"  # a saved message is a finished one unless it says otherwise
        return
    why = {
        "length": phrase("the answer was cut off at the token limit"),
        "max_tokens": phrase("the answer was cut off at the token limit"),
        "MAX_TOKENS": phrase("the answer was cut off at the token limit"),
    }
    response.set_finish(reason, field=field_name, completed=_COMPLETED, why=why)


# --- Detection -----------------------------------------------------------------------------------------


def _decide_langchain(kind: str | None, keys: frozenset[str]) -> Decision | None:
    """``_langchain_value`` for a value whose ``type`` is a string (or missing)."""
    if kind is None:
        return None if "content_blocks" in keys else NEITHER
    if kind == "constructor" and "lc" in keys:
        return None
    has_content = "content" in keys or "content_blocks" in keys
    if ((kind in _AI_TYPES or kind in _AI_CHUNK_TYPES) and has_content) or (kind in _OTHER_TYPES and "content" in keys):
        return "event"
    return None if kind == "text" and "annotations" in keys else NEITHER


def _langchain_value(value: dict[str, Any]) -> ValueKind | None:
    """A message of LangChain's (an AI one, or one around it), or a bare text block with annotations."""
    classified = _classify(value)
    if classified is None:
        return None
    role, _ = classified
    if role != "block":
        return "event"  # a conversation's messages are read together: only the AI ones are answers
    annotations = value.get("annotations")
    if value.get("type") != "text" or not isinstance(annotations, list):
        return None
    if not annotations or any(isinstance(a, dict) and str(a.get("type")) in _ANNOTATION_TYPES for a in annotations):
        return "event"
    return None


def _alone(value: dict[str, Any]) -> bool:
    return True


register(
    ApiFormat(
        name="langchain.messages",
        label="LangChain messages",
        provider=Provider("langchain", "LangChain"),
        # Before Gemini (40), which takes any value with `usage_metadata`, as an AIMessage has.
        shape=Shape(
            name="langchain", priority=35, recognise=_langchain_value, whole_when_alone=_alone, decide=_decide_langchain
        ),
        parser=parse_messages,
        citation_notation=phrase(
            "citation annotations on text blocks, with the offsets the provider's translator copied"
        ),
    )
)
