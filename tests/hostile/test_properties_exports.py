"""Property tests (Hypothesis) of the Mistral, Vercel AI SDK and LangChain readers: valid-looking
and scrambled dumps of every shape they read, with and without an attached request, always give
a result that keeps the contract or one clear error.

The dumps are built from ../shared/docs/provider-formats.md §7 and §9, not recorded.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from tests.hostile import strategies as hs
from tests.hostile.test_properties import PROFILE, check_dump, check_strict_json

REFERENCE_KEYS = ["0", "1", "2"]


def reference_ids() -> st.SearchStrategy[Any]:
    """A chunk's ``reference_ids``: keys of the tool result, others, junk, or nothing."""
    one = hs.mostly(st.sampled_from([0, 1, 2, "1"]), st.integers(3, 9), st.floats(0, 3), hs.offsets_junk())
    return hs.mostly(st.lists(one, min_size=1, max_size=3), st.just([]), hs.offsets_junk())


def tool_reference(draw: st.DrawFn) -> dict[str, Any]:
    chunk = {"type": "tool_reference", "tool": draw(st.sampled_from(["web_search", "document_library", "x"]))}
    chunk["title"] = draw(hs.short_text())
    if draw(st.booleans()):
        chunk["url"] = draw(hs.urls())
    if draw(st.booleans()):
        chunk["description"] = draw(hs.short_text())
    return chunk


@st.composite
def mistral_chunks(draw: st.DrawFn, *, conversation: bool = False) -> list[Any]:
    """Text with citation chunks between it, now and then thinking or a chunk that is not text."""
    chunks: list[Any] = []
    for text in draw(st.lists(hs.answer_text(max_pieces=6), min_size=1, max_size=4)):
        chunks.append({"type": "text", "text": text})
        kind = draw(st.sampled_from(["reference", "reference", "tool_reference", "thinking", "image_url", "none"]))
        if kind == "reference":
            chunks.append({"type": "reference", "reference_ids": draw(reference_ids())})
        elif kind == "tool_reference" or (conversation and kind == "reference"):
            chunks.append(tool_reference(draw))
        elif kind == "thinking":
            inner = [{"type": "text", "text": draw(hs.short_text())}, {"type": "reference", "reference_ids": [0]}]
            chunks.append({"type": "thinking", "thinking": inner})
        elif kind == "image_url":
            chunks.append({"type": "image_url", "image_url": {"url": draw(hs.urls())}})
    return chunks


@st.composite
def mistral_request(draw: st.DrawFn) -> dict[str, Any]:
    entries = {
        key: {"url": draw(hs.urls()), "title": draw(hs.short_text()), "snippets": [[draw(hs.short_text())]]}
        for key in draw(st.lists(st.sampled_from(REFERENCE_KEYS), unique=True, max_size=3))
    }
    content: Any = draw(
        hs.mostly(
            st.just(json.dumps(entries, ensure_ascii=False)),
            st.just([{"type": "text", "text": json.dumps(entries)}]),
            hs.short_text(),
            hs.json_values(max_leaves=4),
        )
    )
    request = {"model": "mistral-large-latest", "messages": [{"role": "tool", "name": "search", "content": content}]}
    return draw(hs.scrambled(request, "light"))


@st.composite
def mistral_chat_dump(draw: st.DrawFn) -> tuple[bytes, bytes | None]:
    chunks = draw(mistral_chunks())
    finish = draw(st.sampled_from(["stop", "stop", "length", "model_length", "error", "tool_calls", None]))
    base = {"id": "3ea21c8e84fd43c28a65944e6041f143", "model": "mistral-large-latest"}
    request = draw(st.one_of(st.none(), mistral_request()))
    raw_request = hs.encode(request).encode("utf-8") if request is not None else None
    if draw(st.booleans()):
        whole = {**base, "object": "chat.completion", "choices": [{"index": 0, "finish_reason": finish}]}
        whole["choices"][0]["message"] = {"role": "assistant", "content": chunks}
        whole = draw(hs.scrambled(whole))
        if request is not None and draw(st.booleans()):
            return hs.encode({"request": request, "response": whole}).encode("utf-8"), None
        return draw(hs.framed([whole], whole=True)), raw_request
    events = []
    for chunk in chunks:
        content = chunk["text"] if chunk.get("type") == "text" and draw(st.booleans()) else [chunk]
        events.append(
            {**base, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": content}}]}
        )
    events.append({**base, "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": finish}]})
    return draw(hs.framed(draw(hs.scrambled(events, events=True)))), raw_request


@st.composite
def mistral_conversation_dump(draw: st.DrawFn) -> bytes:
    chunks = draw(mistral_chunks(conversation=True))
    if draw(st.booleans()):
        outputs: list[Any] = [
            {"object": "entry", "type": "tool.execution", "name": "web_search", "arguments": '{"query": "q"}'},
            {"object": "entry", "type": "message.output", "model": "mistral-medium-latest", "content": chunks},
        ]
        if draw(st.booleans()):
            outputs.append({"object": "entry", "type": draw(st.sampled_from(["function.call", "agent.handoff", "x"]))})
        body = {"object": "conversation.response", "conversation_id": "conv_1", "outputs": outputs, "usage": {}}
        return draw(hs.framed([draw(hs.scrambled(body))], whole=True))
    events: list[Any] = [{"type": "conversation.response.started", "conversation_id": "conv_1"}]
    for index, chunk in enumerate(chunks):
        content = chunk["text"] if chunk.get("type") == "text" else chunk
        events.append(
            {
                "type": "message.output.delta",
                "id": "msg_1",
                "output_index": 1,
                "content_index": index,
                "content": content,
            }
        )
    end = draw(st.sampled_from(["done", "done", "error", "none"]))
    if end == "done":
        events.append({"type": "conversation.response.done", "usage": {}})
    elif end == "error":
        events.append({"type": "conversation.response.error", "message": draw(hs.short_text()), "code": 500})
    if draw(st.sampled_from([False] * 4 + [True])):
        events = [{"event": e["type"], "data": e} for e in events]
    return draw(hs.framed(draw(hs.scrambled(events, events=True))))


def vercel_source(draw: st.DrawFn) -> dict[str, Any]:
    metadata = {"anthropic": {"cited_text": draw(hs.short_text()), "document_index": draw(st.integers(0, 2))}}
    if draw(st.booleans()):
        return {
            "type": "source-url",
            "sourceId": draw(hs.short_text()),
            "url": draw(hs.urls()),
            "providerMetadata": metadata,
        }
    return {"type": "source-document", "sourceId": "0", "mediaType": "application/pdf", "title": draw(hs.short_text())}


@st.composite
def vercel_dump(draw: st.DrawFn) -> bytes:
    texts = draw(st.lists(hs.answer_text(max_pieces=6), max_size=3))
    sources = [vercel_source(draw) for _ in range(draw(st.integers(0, 3)))]
    if draw(st.booleans()):
        parts: list[Any] = [{"type": "step-start"}, *({"type": "text", "text": t} for t in texts), *sources]
        parts.append(
            {"type": draw(st.sampled_from(["reasoning", "tool-search", "data-x", "file", "other"])), "text": "r"}
        )
        messages = [
            {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "?"}]},
            {"id": "a1", "role": draw(st.sampled_from(["assistant", "assistant", "user"])), "parts": parts},
        ]
        return draw(hs.framed(draw(hs.scrambled(messages, events=True)), whole=True))
    chunks: list[Any] = [{"type": "start", "messageId": "msg_1"}, {"type": "start-step"}]
    for number, text in enumerate(texts):
        part = str(draw(st.sampled_from([number, 0])))  # deltas of a part, sometimes interleaved ids
        chunks.append({"type": "text-start", "id": part})
        chunks += [{"type": "text-delta", "id": part, "delta": piece} for piece in draw(hs.stream_pieces(text))]
        chunks.append({"type": "text-end", "id": part})
    chunks += sources
    end = draw(st.sampled_from(["finish", "finish", "abort", "error", "none"]))
    if end == "finish":
        chunks.append({"type": "finish", "finishReason": draw(st.sampled_from(["stop", "length", "error", "other"]))})
    elif end == "abort":
        chunks.append({"type": "abort", "reason": "user"})
    elif end == "error":
        chunks.append({"type": "error", "errorText": draw(hs.short_text())})
    return draw(hs.framed(draw(hs.scrambled(chunks, events=True))))


def langchain_citation(draw: st.DrawFn, answer: str) -> dict[str, Any]:
    citation: dict[str, Any] = {"type": "citation", "url": draw(hs.urls()), "title": draw(hs.short_text())}
    kind = draw(st.sampled_from(["gemini", "gemini", "characters", "block", "non_standard"]))
    if kind == "non_standard":
        return {"type": "non_standard_annotation", "value": {"type": "file_path", "x": 1}}
    if kind == "block":
        citation["cited_text"] = draw(hs.short_text())
        citation["extras"] = {"document_index": draw(st.integers(0, 2)), "encrypted_index": "Ep"}
        citation.pop("url")
        return citation
    if kind == "gemini":
        segment = draw(hs.byte_segment(answer))
        citation["start_index"], citation["end_index"] = segment["startIndex"], segment["endIndex"]
        citation["cited_text"] = segment["text"]
        citation["extras"] = {"google_ai_metadata": {"web_search_queries": ["q"], "grounding_chunk_index": 0}}
        if draw(st.booleans()) and citation["start_index"] == 0:
            del citation["start_index"]  # as Gemini omits a 0
        return citation
    start = draw(hs.offset(len(answer)))
    end = draw(hs.offset(len(answer)))
    citation["start_index"], citation["end_index"] = start, end
    if draw(st.booleans()) and isinstance(start, int) and isinstance(end, int):
        citation["cited_text"] = answer[max(start, 0) : max(end, 0)]
    return citation


@st.composite
def langchain_dump(draw: st.DrawFn) -> bytes:
    texts = draw(st.lists(hs.answer_text(max_pieces=6), min_size=1, max_size=3))
    answer = "".join(texts)
    annotations = [langchain_citation(draw, answer) for _ in range(draw(st.integers(0, 4)))]
    blocks: list[Any] = [{"type": "text", "text": t} for t in texts]
    blocks[0]["annotations"] = annotations
    if draw(st.booleans()):
        blocks.insert(0, {"type": "reasoning", "reasoning": draw(hs.short_text())})
    metadata = {"finish_reason": draw(st.sampled_from(["STOP", "stop", "end_turn", "MAX_TOKENS", None]))}
    message = {"type": "ai", "content": blocks, "response_metadata": metadata, "usage_metadata": {}, "id": "lc_run--1"}
    form = draw(st.sampled_from(["message", "message", "constructor", "blocks", "conversation", "chunks"]))
    values: list[Any]
    if form == "message":
        values = [message]
    elif form == "constructor":
        values = [
            {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"], "kwargs": message}
        ]
    elif form == "blocks":
        values = blocks
    elif form == "conversation":
        values = [{"type": "human", "content": "?"}, message, {"type": "human", "content": "!"}, message]
    else:
        values = [
            {"type": "AIMessageChunk", "content": [{**block, "index": number}], "response_metadata": {}}
            for number, block in enumerate(blocks)
        ]
        values[-1]["response_metadata"] = metadata
    return draw(hs.framed(draw(hs.scrambled(values, events=True)), whole=len(values) == 1))


@PROFILE
@given(mistral_chat_dump())
@example((b'{"id":"3ea21c8e84fd43c28a65944e6041f143","choices":[{"message":{"content":[{"type":{}}]}}]}', None))
@example(  # escapes inside the tool result's JSON string: half a character, a NUL
    (
        b'{"id":"3ea21c8e84fd43c28a65944e6041f143","choices":[{"message":{"content":'
        b'[{"type":"text","text":"a"},{"type":"reference","reference_ids":[0]}]}}]}',
        b'{"messages":[{"role":"tool","content":"{\\"0\\":{\\"title\\":\\"\\\\udc00\\\\u0000\\"}}"}]}',
    )
)
def test_mistral_chat_with_and_without_the_request(dump: tuple[bytes, bytes | None]):
    raw, request = dump
    check_dump(raw)
    if request is not None:
        check_dump(raw, request=request)
        check_strict_json(raw, request=request)  # the tool result's JSON, inside a string, is read too


@PROFILE
@given(mistral_conversation_dump())
def test_mistral_conversations(raw: bytes):
    check_dump(raw)


@PROFILE
@given(vercel_dump())
@example(b'{"role":{},"parts":[]}')
def test_vercel_ui_messages_and_stream(raw: bytes):
    check_dump(raw)


@PROFILE
@given(langchain_dump())
@example(b'[{"type":"text","text":"x","annotations":[{"type":{}}]}]')
def test_langchain_messages(raw: bytes):
    check_dump(raw)


EXPORT_DUMPS = st.one_of(
    mistral_chat_dump().map(lambda pair: pair[0]), mistral_conversation_dump(), vercel_dump(), langchain_dump()
)


@PROFILE
@given(EXPORT_DUMPS, st.data())
def test_an_export_cut_at_any_byte_or_with_a_byte_changed(raw: bytes, data: st.DataObject):
    check_dump(raw[: data.draw(st.integers(0, len(raw)), label="cut")])
    if raw:
        position = data.draw(st.integers(0, len(raw) - 1), label="position")
        check_dump(raw[:position] + bytes([data.draw(st.integers(0, 255))]) + raw[position + 1 :])


@PROFILE
@given(EXPORT_DUMPS)
def test_what_an_export_stores_is_strict_json(raw: bytes):
    check_strict_json(raw)
