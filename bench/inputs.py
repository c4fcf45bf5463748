"""Deterministic inputs for ``make bench``: provider dumps of a chosen size, with Japanese text and
emoji, and as many citations as a long answer carries. Nothing here reads outside the project."""

from __future__ import annotations

import json
import random
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


GENERATORS = {
    "perplexity": perplexity_agent_stream,
    "anthropic": claude_stream,
    "gemini": gemini_answer,
    "openai": openai_stream,
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


def sonar_dump_of(text: str, answer_id: str = "bench") -> bytes:
    """A Perplexity Sonar answer holding ``text``, with 20 sources for its ``[N]`` markers."""
    urls = [f"https://example.jp/記事/{n}" for n in range(1, SONAR_SOURCES + 1)]
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


def sonar_markers_only(size: int) -> bytes:
    """The densest dump there is: a Sonar answer of about ``size`` bytes that is nothing but ``[N]``
    markers, each citing one of its sources (a citation per three bytes)."""
    count = (size - len(sonar_dump_of(""))) // 3
    return sonar_dump_of("".join(f"[{n % 9 + 1}]" for n in range(count)))
