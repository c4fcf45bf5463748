"""Deterministic inputs for ``make bench``: provider dumps of a chosen size, with Japanese text and
emoji, and as many citations as a long answer carries. Nothing here reads outside the project."""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Iterator, Sequence

# Sentences mixing Japanese, English, digits and emoji, so offsets in bytes, UTF-16 units and
# characters all differ.
PHRASES = (
    "東京都の人口は約1400万人です",
    "2024年の調査によれば",
    "気温は平均で15.4度でした 🌡️",
    "The report was published in March",
    "大阪・関西万博は2025年に開催されました🎌",
    "市場規模は前年比12%増",
    "according to the ministry's figures",
    "詳細は公式サイトを参照してください👍",
)


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _sse(values: list[object], named: bool = False) -> bytes:
    parts = []
    for value in values:
        if named:
            parts.append(f"event: {value['type']}\n")
        parts.append(f"data: {_dumps(value)}\n\n")
    return "".join(parts).encode("utf-8")


def _sentences(rng: random.Random, phrases: Sequence[str] = PHRASES) -> Iterator[str]:
    while True:
        yield rng.choice(phrases)


def perplexity_agent_stream(size: int, seed: int = 1) -> bytes:
    """A Perplexity Agent stream of ~100-byte text deltas with `[N]` markers to 20 search results."""
    rng = random.Random(seed)
    results = [
        {
            "id": i,
            "url": f"https://example.jp/記事/{i}",
            "title": f"出典 {i} の見出し",
            "snippet": f"抜粋 {i} 🌸",
            "source": "web",
        }
        for i in range(1, 21)
    ]
    head = [
        {
            "type": "response.created",
            "sequence_number": 0,
            "response": {
                "id": "resp_0b6c2f9e-3a71-4c55-9d0e-2f1a7b8c9d00",
                "object": "response",
                "status": "in_progress",
                "model": "fast",
                "output": [],
            },
        },
        {"type": "response.reasoning.search_queries", "call_id": "call_1", "queries": ["東京 人口"]},
        {"type": "response.reasoning.search_results", "call_id": "call_1", "results": results},
    ]
    events = list(head)
    pieces: list[str] = []
    total = sum(len(_dumps(e)) for e in events)
    budget = size * 0.8  # the final event repeats the text, about a fifth of a stream of small deltas
    words = _sentences(rng)
    sequence = 1
    while total < budget:
        piece = next(words)
        if rng.random() < 0.3:
            piece += f"[{rng.randint(1, 22)}]"  # 21 and 22 resolve to nothing
        piece += "。" if rng.random() < 0.5 else "、"
        if rng.random() < 0.05:
            piece += "\n\n"
        event = {
            "type": "response.output_text.delta",
            "sequence_number": sequence,
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "delta": piece,
        }
        sequence += 1
        pieces.append(piece)
        events.append(event)
        total += len(_dumps(event)) + 8
    text = "".join(pieces)
    events.append(
        {
            "type": "response.completed",
            "response": {
                "id": "resp_0b6c2f9e-3a71-4c55-9d0e-2f1a7b8c9d00",
                "object": "response",
                "status": "completed",
                "model": "openai/gpt-5.2",
                "output": [
                    {"type": "search_results", "queries": ["東京 人口"], "results": results},
                    {
                        "type": "message",
                        "id": "msg_1",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}],
                    },
                ],
                "usage": {
                    "input_tokens": 10,
                    "output_tokens": sequence,
                    "total_tokens": sequence + 10,
                    "cost": {"currency": "USD", "total_cost": 0.01},
                },
            },
        }
    )
    return _sse(events)


def _web_results(count: int) -> list[dict[str, object]]:
    return [{"url": f"https://example.jp/記事/{i}", "title": f"出典 {i} の見出し 📰"} for i in range(count)]


def claude_stream(size: int, seed: int = 2) -> bytes:
    """A Claude web-search stream: one search, then cited text blocks until the stream reaches ``size``."""
    rng = random.Random(seed)
    results = _web_results(20)
    events: list[dict[str, object]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_bench",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-6",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"query": "東京 人口"}'},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": [
                    {"type": "web_search_result", "encrypted_content": "e", "page_age": None, **r} for r in results
                ],
            },
        },
        {"type": "content_block_stop", "index": 1},
    ]
    total = sum(len(_dumps(e)) for e in events)
    words = _sentences(rng)
    index = 2
    while total < size:
        block = [
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": "", "citations": []},
            }
        ]
        if rng.random() < 0.7:  # most blocks are cited, the others join them
            result = rng.choice(results)
            citation = {
                "type": "web_search_result_location",
                "cited_text": f"{next(words)}。{next(words)}。",
                "url": result["url"],
                "title": result["title"],
                "encrypted_index": "i",
            }
            block.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "citations_delta", "citation": citation},
                }
            )
        for _ in range(rng.randint(1, 4)):
            block.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": next(words) + "、"},
                }
            )
        block.append({"type": "content_block_stop", "index": index})
        events.extend(block)
        total += sum(len(_dumps(e)) + 8 for e in block)
        index += 1
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": index},
        }
    )
    events.append({"type": "message_stop"})
    return _sse(events)


def gemini_answer(size: int, seed: int = 3) -> bytes:
    """A Gemini generateContent answer (REST, indented as the API sends it) with a support per sentence."""
    rng = random.Random(seed)
    chunks = [
        {
            "web": {
                "uri": f"https://vertexaisearch.cloud.google.com/grounding-api-redirect/{i}",
                "title": f"example{i}.jp",
            }
        }
        for i in range(30)
    ]
    sentences: list[str] = []
    supports: list[dict[str, object]] = []
    offset = 0  # in UTF-8 bytes, as Gemini counts
    total = 2000
    words = _sentences(rng)
    while total < size:
        sentence = f"{next(words)}。{next(words)}。" + ("\n\n" if rng.random() < 0.1 else "")
        length = len(sentence.encode("utf-8"))
        indices = sorted(rng.sample(range(30), rng.randint(1, 3)))
        supports.append(
            {
                "segment": {"startIndex": offset, "endIndex": offset + length, "text": sentence},
                "groundingChunkIndices": indices,
                "confidenceScores": [0.9] * len(indices),
            }
        )
        sentences.append(sentence)
        offset += length
        total += length * 2 + 250  # the text, the segment's copy and the support's frame, indented
    answer = {
        "candidates": [
            {
                "content": {"parts": [{"text": "".join(sentences)}], "role": "model"},
                "finishReason": "STOP",
                "groundingMetadata": {
                    "webSearchQueries": ["東京 人口"],
                    "groundingChunks": chunks,
                    "groundingSupports": supports,
                },
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 10,
            "candidatesTokenCount": len(sentences),
            "totalTokenCount": len(sentences) + 10,
        },
        "modelVersion": "gemini-2.5-pro",
        "responseId": "bench-gemini",
    }
    return json.dumps(answer, ensure_ascii=False, indent=2).encode("utf-8")


def openai_stream(size: int, seed: int = 4) -> bytes:
    """An OpenAI Responses web-search stream whose answer links a source after each sentence, with
    an ``annotation.added`` event per link (code-point offsets) and the whole answer again at the end."""
    rng = random.Random(seed)
    results = _web_results(30)
    item_id = "msg_bench"
    events: list[dict[str, object]] = [
        {
            "type": "response.created",
            "sequence_number": 0,
            "response": {
                "id": "resp_bench",
                "object": "response",
                "status": "in_progress",
                "model": "gpt-5.2",
                "output": [],
            },
        },
        {
            "type": "response.output_item.done",
            "sequence_number": 1,
            "output_index": 0,
            "item": {
                "id": "ws_1",
                "type": "web_search_call",
                "status": "completed",
                "action": {"type": "search", "query": "東京 人口"},
            },
        },
    ]
    text = ""
    annotations: list[dict[str, object]] = []
    total = 2000
    words = _sentences(rng)
    sequence = 2
    while total < size * 0.6:  # the final event repeats the text and the annotations
        piece = f"{next(words)}。"
        events.append(_openai_delta(item_id, sequence, piece))
        text += piece
        sequence += 1
        total += len(_dumps(events[-1])) + 8
        if rng.random() < 0.4:
            result = rng.choice(results)
            url = f"{result['url']}?utm_source=openai"
            link = f" ([example.jp]({url}))"
            events.append(_openai_delta(item_id, sequence, link))
            annotation = {
                "type": "url_citation",
                "start_index": len(text) + 1,
                "end_index": len(text) + len(link),
                "url": url,
                "title": result["title"],
            }
            text += link
            events.append(
                {
                    "type": "response.output_text.annotation.added",
                    "sequence_number": sequence + 1,
                    "item_id": item_id,
                    "output_index": 1,
                    "content_index": 0,
                    "annotation_index": len(annotations),
                    "annotation": annotation,
                }
            )
            annotations.append(annotation)
            sequence += 2
            total += len(_dumps(events[-1])) + len(_dumps(events[-2])) + 16
    message = {
        "id": item_id,
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": annotations}],
    }
    events.append(
        {
            "type": "response.output_text.done",
            "sequence_number": sequence,
            "item_id": item_id,
            "output_index": 1,
            "content_index": 0,
            "text": text,
        }
    )
    events.append(
        {
            "type": "response.completed",
            "sequence_number": sequence + 1,
            "response": {
                "id": "resp_bench",
                "object": "response",
                "status": "completed",
                "model": "gpt-5.2",
                "output": [events[1]["item"], message],
            },
        }
    )
    return _sse(events, named=True)


def _openai_delta(item_id: str, sequence: int, text: str) -> dict[str, object]:
    return {
        "type": "response.output_text.delta",
        "sequence_number": sequence,
        "item_id": item_id,
        "output_index": 1,
        "content_index": 0,
        "delta": text,
    }


def _pythonic_sse(values: list[dict[str, object]]) -> bytes:
    """Named SSE events whose JSON is written as Python's ``json.dumps`` writes it (``", "`` and
    ``": "``), as xAI's recorded streams are."""
    return "".join(f"event: {v['type']}\ndata: {json.dumps(v, ensure_ascii=False)}\n\n" for v in values).encode("utf-8")


def xai_stream(size: int, seed: int = 6) -> bytes:
    """An xAI Responses web-search stream (grok-4): its search call and message added, text deltas,
    an ``annotation.added`` url_citation after each cited sentence (code-point offsets),
    ``response.completed`` repeating both (as the real recordings in ``../shared/fixtures/xai`` do)."""
    rng = random.Random(seed)
    results = _web_results(30)
    response_id = "b41f6c07-93e2-8d5a-27f0-c6a1d83e94b2"
    item_id = f"msg_{response_id}"
    head = {"created_at": 1795320000, "id": response_id, "model": "grok-4-fast-reasoning", "object": "response"}
    # As xAI sends it: the search call is output 0, the message output 1, each announced when added.
    search = {
        "arguments": '{"query":"東京 人口","num_results":5}',
        "call_id": "",
        "name": "web_search",
        "type": "web_search_call",
        "id": f"fc_{response_id}_0",
        "status": "completed",
    }
    added = {"id": item_id, "type": "message", "role": "assistant", "content": [], "status": "in_progress"}
    events: list[dict[str, object]] = [
        {"sequence_number": 0, "type": "response.created", "response": {**head, "output": [], "status": "in_progress"}},
        {"sequence_number": 1, "type": "response.output_item.added", "item": search, "output_index": 0},
        {"sequence_number": 2, "type": "response.output_item.added", "item": added, "output_index": 1},
    ]
    text = ""
    annotations: list[dict[str, object]] = []
    total, sequence, words = 2000, 3, _sentences(rng)
    while total < size * 0.77:  # the final event repeats the text and the annotations
        piece = f"{next(words)}。"
        events.append(
            {
                "sequence_number": sequence,
                "type": "response.output_text.delta",
                "content_index": 0,
                "delta": piece,
                "item_id": item_id,
                "output_index": 1,
                "logprobs": [],
            }
        )
        text += piece
        sequence += 1
        if rng.random() < 0.4:
            result = rng.choice(results)
            link = f"[[{len(annotations) + 1}]]({result['url']})"
            events.append({**events[-1], "sequence_number": sequence, "delta": link})
            annotation = {
                "type": "url_citation",
                "url": result["url"],
                "start_index": len(text),
                "end_index": len(text) + len(link),
                "title": str(len(annotations) + 1),
            }
            text += link
            events.append(
                {
                    "sequence_number": sequence + 1,
                    "type": "response.output_text.annotation.added",
                    "item_id": item_id,
                    "output_index": 1,
                    "content_index": 0,
                    "annotation_index": len(annotations),
                    "annotation": annotation,
                }
            )
            annotations.append(annotation)
            sequence += 2
            total += len(json.dumps(events[-2], ensure_ascii=False)) + len(json.dumps(annotation)) + 150
        total += len(json.dumps(events[-1], ensure_ascii=False)) + 35
    message = {
        "content": [{"type": "output_text", "text": text, "logprobs": [], "annotations": annotations}],
        "id": item_id,
        "role": "assistant",
        "type": "message",
        "status": "completed",
    }
    events.append(
        {
            "sequence_number": sequence,
            "type": "response.completed",
            "response": {**head, "output": [search, message], "status": "completed", "usage": {"input_tokens": 10}},
        }
    )
    return _pythonic_sse(events)


def cohere_stream(size: int, seed: int = 7) -> bytes:
    """A Cohere Chat v2 stream (command-a) answering from documents: content deltas, then a
    ``citation-start`` per cited sentence with its code-point span, text and document."""
    rng = random.Random(seed)
    documents = [
        {
            "type": "document",
            "id": f"doc:{n}",
            "document": {"id": f"doc:{n}", "title": f"資料 {n}", "snippet": f"抜粋 {n} 🌸"},
        }
        for n in range(20)
    ]
    events: list[dict[str, object]] = [
        {
            "id": "0d6f1b3e-8a2c-4f7d-b5e9-6c4a2e8f0b1d",
            "type": "message-start",
            "delta": {
                "message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
            },
        },
        {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}},
    ]
    citations: list[dict[str, object]] = []
    text, total, words = "", 2000, _sentences(rng)
    while total < size:
        piece = f"{next(words)}。"
        event = {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": piece}}}}
        events.append(event)
        total += len(_dumps(event)) + 30
        if rng.random() < 0.4:
            citation = {
                "start": len(text),
                "end": len(text) + len(piece),
                "text": piece,
                "sources": [rng.choice(documents)],
                "type": "TEXT_CONTENT",
            }
            citations.append(citation)
            total += len(_dumps(citation)) + 110
        text += piece
    events.append({"type": "content-end", "index": 0})
    for number, citation in enumerate(citations):
        events.append({"type": "citation-start", "index": number, "delta": {"message": {"citations": citation}}})
        events.append({"type": "citation-end", "index": number})
    events.append(
        {
            "type": "message-end",
            "delta": {"finish_reason": "COMPLETE", "usage": {"billed_units": {"input_tokens": 10, "output_tokens": 5}}},
        }
    )
    return _sse(events, named=True)


def _eventstream_message(name: str, payload: bytes) -> bytes:
    """One message of AWS's binary event stream: prelude and its CRC32, string headers, payload, CRC32."""
    headers = {":event-type": name, ":content-type": "application/json", ":message-type": "event"}
    encoded = b"".join(
        bytes([len(key)]) + key.encode() + b"\x07" + len(value.encode()).to_bytes(2, "big") + value.encode()
        for key, value in headers.items()
    )
    prelude = (16 + len(encoded) + len(payload)).to_bytes(4, "big") + len(encoded).to_bytes(4, "big")
    body = prelude + zlib.crc32(prelude).to_bytes(4, "big") + encoded + payload
    return body + zlib.crc32(body).to_bytes(4, "big")


def bedrock_stream(size: int, seed: int = 8) -> bytes:
    """A Bedrock ConverseStream body (AWS's binary event stream) of a web-grounded answer: text
    deltas, and a citation delta with its web location after each cited sentence."""
    rng = random.Random(seed)
    results = _web_results(20)
    events: list[tuple[str, dict[str, object]]] = [("messageStart", {"role": "assistant", "p": "abcdefgh"})]
    total, words = 0, _sentences(rng)
    while total < size:
        deltas: list[dict[str, object]] = [{"text": f"{next(words)}、{next(words)}。"}]
        if rng.random() < 0.5:
            result = rng.choice(results)
            deltas.append(
                {
                    "citation": {
                        "title": result["title"],
                        "sourceContent": [{"text": f"{next(words)}。"}],
                        "location": {"web": {"url": result["url"], "domain": "example.jp"}},
                    }
                }
            )
        for delta in deltas:
            payload = {"contentBlockIndex": 0, "delta": delta, "p": "abcdefghijklmnop"}
            events.append(("contentBlockDelta", payload))
            total += len(_dumps(payload)) + 100
    events.append(("contentBlockStop", {"contentBlockIndex": 0, "p": "abcd"}))
    events.append(("messageStop", {"stopReason": "end_turn", "p": "abcdef"}))
    events.append(("metadata", {"usage": {"inputTokens": 10, "outputTokens": 5}, "metrics": {"latencyMs": 300}}))
    return b"".join(_eventstream_message(name, _dumps(payload).encode("utf-8")) for name, payload in events)


def mistral_stream(size: int, seed: int = 9) -> bytes:
    """A Mistral Conversations web-search stream (mistral-medium): text deltas, each cited sentence
    followed by a ``tool_reference`` chunk carrying its source."""
    rng = random.Random(seed)
    results = _web_results(20)
    common = {"created_at": "2026-04-02T09:15:01.548Z", "output_index": 1, "id": "msg_0196f2a7d19a7c3b8e2f4a6d1c0b9e57"}
    events: list[dict[str, object]] = [
        {
            "type": "conversation.response.started",
            "created_at": "2026-04-02T09:15:01.137Z",
            "conversation_id": "conv_0196f2a7c4e87b1d9a3e5f60c2b4d8e1",
        },
        {
            "type": "tool.execution.started",
            "created_at": "2026-04-02T09:15:01.274Z",
            "output_index": 0,
            "id": "tool_exec_0196f2a7c6b2",
            "name": "web_search",
            "arguments": '{"query": "東京 人口"}',
        },
    ]
    total, index, words = 2000, 0, _sentences(rng)
    meta = {"model": "mistral-medium-2505", "agent_id": None, "role": "assistant"}
    while total < size:
        event = {
            "type": "message.output.delta",
            **common,
            "content_index": index,
            **meta,
            "content": f"{next(words)}。",
        }
        events.append(event)
        index += 1
        total += len(_dumps(event)) + 40
        if rng.random() < 0.4:
            result = rng.choice(results)
            reference = {
                "type": "tool_reference",
                "tool": "web_search",
                "title": result["title"],
                "url": result["url"],
                "favicon": None,
                "description": f"{next(words)}。",
            }
            event = {"type": "message.output.delta", **common, "content_index": index, **meta, "content": reference}
            events.append(event)
            index += 1
            total += len(_dumps(event)) + 40
    events.append(
        {
            "type": "conversation.response.done",
            "created_at": "2026-04-02T09:15:03.466Z",
            "usage": {"prompt_tokens": 1843, "completion_tokens": index, "total_tokens": 1843 + index},
        }
    )
    return _sse(events, named=True)


def vercel_stream(size: int, seed: int = 10) -> bytes:
    """A Vercel AI SDK UI message stream of a Claude web-search answer: text deltas, then a
    ``source-url`` part per cited passage, with Claude's cited text in its provider metadata."""
    rng = random.Random(seed)
    results = _web_results(30)
    events: list[dict[str, object]] = [
        {"type": "start", "messageId": "msg_9mT4qXbZ2rWc7LkP"},
        {"type": "start-step"},
        {"type": "text-start", "id": "text-1"},
    ]
    sources: list[dict[str, object]] = []
    total, words = 2000, _sentences(rng)
    while total < size:
        event = {"type": "text-delta", "id": "text-1", "delta": f"{next(words)}、"}
        events.append(event)
        total += len(_dumps(event)) + 8
        if rng.random() < 0.1:
            result = rng.choice(results)
            metadata = {"type": "web_search_result_location", "cited_text": f"{next(words)}。", **result}
            source = {"type": "source-url", "sourceId": str(result["url"]), **result}
            source["providerMetadata"] = {"anthropic": {**metadata, "encrypted_index": "EpIBCioIBhgCIiQ0YjI5"}}
            sources.append(source)
            total += len(_dumps(source)) + 8
    events.append({"type": "text-end", "id": "text-1"})
    events += sources
    events += [{"type": "finish-step"}, {"type": "finish", "finishReason": "stop"}]
    return _sse(events) + b"data: [DONE]\n\n"


def langchain_message(size: int, seed: int = 11) -> bytes:
    """A LangChain AIMessage of a Gemini web-search answer (``model_dump()``, indented), one text
    block with a ``citation`` annotation per sentence: UTF-8 offsets, the cited text, Google's extras."""
    rng = random.Random(seed)
    chunks = [f"https://vertexaisearch.cloud.google.com/grounding-api-redirect/{i}" for i in range(30)]
    sentences: list[str] = []
    annotations: list[dict[str, object]] = []
    offset, total, words = 0, 2000, _sentences(rng)
    while total < size:
        sentence = f"{next(words)}。{next(words)}。"
        length = len(sentence.encode("utf-8"))
        index = rng.randrange(30)
        annotations.append(
            {
                "type": "citation",
                "id": f"lc_{index:08x}-43ee-5c85-a78a-f429fc6c6a17",
                "url": chunks[index],
                "title": f"example{index}.jp",
                "start_index": offset,
                "end_index": offset + length,
                "cited_text": sentence,
                "extras": {"google_ai_metadata": {"web_search_queries": ["東京 人口"], "grounding_chunk_index": index}},
            }
        )
        sentences.append(sentence)
        offset += length
        total += length * 2 + 600
    message = {
        "content": [{"type": "text", "text": "".join(sentences), "annotations": annotations}],
        "additional_kwargs": {},
        "response_metadata": {"finish_reason": "STOP", "model_name": "gemini-2.5-flash"},
        "type": "ai",
        "name": None,
        "id": "lc_run--0196f2a7-c4e8-7b1d-9a3e-5f60c2b4d8e1",
        "usage_metadata": {"input_tokens": 10, "output_tokens": len(sentences), "total_tokens": len(sentences) + 10},
    }
    return json.dumps(message, ensure_ascii=False, indent=2).encode("utf-8")


GENERATORS = {
    "perplexity": perplexity_agent_stream,
    "anthropic": claude_stream,
    "gemini": gemini_answer,
    "openai": openai_stream,
    "xai": xai_stream,
    "cohere": cohere_stream,
    "bedrock": bedrock_stream,
    "mistral": mistral_stream,
    "vercel": vercel_stream,
    "langchain": langchain_message,
}


def answer_with_citations(size: int = 200_000, citations: int = 5000, seed: int = 5) -> str:
    """Markdown of about ``size`` bytes with ``citations`` ``[N]`` markers: headings, lists, emphasis.
    Japanese, so that it stays within the characters the renderer takes."""
    rng = random.Random(seed)
    words = _sentences(rng, [p for p in PHRASES if not p[0].isascii()])
    per_marker = size // citations - 12  # bytes of text before each marker
    lines: list[str] = []
    for number in range(citations):
        sentence = ""
        while len(sentence.encode("utf-8")) < per_marker:
            sentence += next(words) + "、"
        sentence = sentence.encode("utf-8")[:per_marker].decode("utf-8", errors="ignore")
        line = f"{sentence}[{number % (SONAR_SOURCES + 2) + 1}]。"  # 21 and 22 cite nothing
        if number % 25 == 0:
            line = f"\n## 見出し {number // 25} 🎌\n\n{line}"
        elif number % 7 == 0:
            line = f"- **{line}**"
        lines.append(line)
    return "\n".join(lines)


def dense_answer(size: int = 100_000, citations: int = 2_400, sources: int = 40, seed: int = 12) -> str:
    """Markdown of about ``size`` bytes with ``citations`` ``[N]`` markers to ``sources`` sources, as a
    long Japanese research answer carries them: short sentences, one to three markers after each
    (``[3][17]``), paragraphs, bulleted lists and bold lead-ins, every source cited many times."""
    rng = random.Random(seed)
    words = _sentences(rng, [p for p in PHRASES if not p[0].isascii()])
    pieces: list[str] = []
    cited = length = 0
    while length < size or cited < citations:
        # Markers keep pace with the text, so that they are spread over the whole answer.
        behind = cited * size < length * citations or length >= size
        count = min(rng.choice((1, 1, 2, 2, 3)), citations - cited) if behind else 0
        markers = "".join(f"[{rng.randint(1, sources)}]" for _ in range(count))
        cited += count
        sentence = f"{next(words)}{markers}。"
        if rng.random() < 0.12:
            sentence = f"\n- **{next(words)}**: {sentence}"
        elif rng.random() < 0.06:
            sentence = f"\n\n{sentence}"
        pieces.append(sentence)
        length += len(sentence.encode("utf-8"))
    return "".join(pieces)


def pathological_answers(size: int = 100_000) -> dict[str, str]:
    """Markdown that costs parsers the most, at the answer renderer's limit, each with markers too."""
    return {
        "pathological: long bracket run": "[" * (size - 10) + " [1] [2]",
        "pathological: deep block quotes": "> " * 5_000 + "引用 [1]\n" + "x" * (size - 10_010),
        "pathological: deep lists": "".join("  " * depth + "- 項目 [1]\n" for depth in range(size // 2_000)) * 5,
        "pathological: unclosed emphasis": "*a _b " * (size // 6) + " [1]",
        "pathological: link openers": "[a](" * (size // 4 - 5) + " [1]",
    }


SONAR_SOURCES = 20


def sonar_dump_of(text: str, answer_id: str = "bench", sources: int = SONAR_SOURCES) -> bytes:
    """A Perplexity Sonar answer holding ``text``, with ``sources`` sources for its ``[N]`` markers."""
    urls = [f"https://example.jp/記事/{n}" for n in range(1, sources + 1)]
    answer = {
        "id": answer_id,
        "model": "sonar",
        "object": "chat.completion",
        "created": 1767225600,
        "citations": urls,
        "search_results": [
            {
                "title": f"出典 {n} の見出し",
                "url": url,
                "snippet": f"抜粋 {n} 🌸",
                "date": "2025-01-01",
                "source": "web",
            }
            for n, url in enumerate(urls, 1)
        ],
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
    }
    return _dumps(answer).encode("utf-8")


def sonar_answer(size: int, seed: int = 1, answer_id: str = "bench") -> bytes:
    """A Sonar answer of about ``size`` bytes, a third of its sentences citing (21 and 22 cite nothing)."""
    rng = random.Random(seed)
    words = _sentences(rng)
    budget = size - len(sonar_dump_of("", answer_id))
    pieces, length = [], 0
    while length < budget:
        piece = next(words)
        if rng.random() < 0.3:
            piece += f"[{rng.randint(1, SONAR_SOURCES + 2)}]"
        piece += "。" if rng.random() < 0.5 else "、"
        if rng.random() < 0.05:
            piece += "\n\n"
        pieces.append(piece)
        length += len(piece.encode("utf-8")) + piece.count("\n")  # a newline is two bytes in JSON
    return sonar_dump_of("".join(pieces), answer_id)


def sonar_batch(count: int, size_each: int = 6_000) -> bytes:
    """A batch as an evaluation run saves it: ``count`` Sonar answers of about ``size_each`` bytes, one a
    line (issue 32's was 1,260 answers in 8 MB)."""
    return b"\n".join(sonar_answer(size_each, seed=n, answer_id=f"batch-{n}") for n in range(count)) + b"\n"


def sonar_markers_only(size: int) -> bytes:
    """The densest dump there is: a Sonar answer of about ``size`` bytes that is nothing but ``[N]``
    markers, each citing one of its sources (a citation per three bytes)."""
    count = (size - len(sonar_dump_of(""))) // 3
    return sonar_dump_of("".join(f"[{n % 9 + 1}]" for n in range(count)))
