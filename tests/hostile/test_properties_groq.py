"""Property-based tests of Groq's compound completions: whole or streamed (every chunk with an id of
its own), with searches, visits and scrambled tool entries. Whatever they hold, :func:`check_dump`
finds a result that keeps the contract, or one clear error; a well-formed one is one response whose
sources are exactly the pages its tools read."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from citeview.core.parsing.parse import parse_dump
from tests.hostile import strategies as hs
from tests.hostile.test_properties import PROFILE, check_dump

_UNSHOWABLE = re.compile("[\x00\ud800-\udfff]")


@st.composite
def executed_tool(draw: st.DrawFn, index: int) -> dict[str, Any]:
    if draw(st.booleans()):
        url = draw(hs.urls())
        return {"index": index, "type": "visit", "arguments": json.dumps({"url": url}), "output": draw(hs.short_text())}
    results = [
        {"title": draw(hs.short_text()), "url": draw(hs.urls()), "content": draw(hs.short_text()), "score": 0.5}
        for _ in range(draw(st.integers(0, 3)))
    ]
    query = json.dumps({"query": draw(hs.short_text())}, ensure_ascii=False)
    return {"index": index, "type": "search", "arguments": query, "search_results": {"results": results}}


@st.composite
def groq_completion(draw: st.DrawFn) -> tuple[list[dict[str, Any]], bool, list[dict[str, Any]]]:
    """The values of a Groq compound answer, whether they are a stream, and the tools it ran."""
    text = draw(hs.answer_text(max_pieces=6))
    tools = [draw(executed_tool(index)) for index in range(draw(st.integers(0, 3)))]
    if not draw(st.booleans()):
        message = {"role": "assistant", "content": text, "executed_tools": tools}
        value = {
            "id": "stub",
            "object": "chat.completion",
            "model": "groq/compound",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "x_groq": {"id": "stub"},
        }
        return [value], False, tools
    deltas: list[dict[str, Any]] = [{"executed_tools": [tool]} for tool in tools]
    deltas += [{"content": piece} for piece in draw(hs.stream_pieces(text))]
    deltas = deltas or [{"role": "assistant", "content": ""}]  # (one chunk alone is no stream to tell)
    chunks = [
        {
            "id": f"chatcmpl-{number:032x}",
            "object": "chat.completion.chunk",
            "model": "groq/compound",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        }
        for number, delta in enumerate(deltas)
    ]
    chunks.append(
        {
            "id": "stub",
            "object": "chat.completion.chunk",
            "model": "groq/compound",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "x_groq": {"usage": {"total_tokens": 1}},
        }
    )
    return chunks, True, tools


def _read_pages(tools: list[dict[str, Any]]) -> set[str]:
    pages = set()
    for tool in tools:
        if tool["type"] == "visit":
            pages.add(json.loads(tool["arguments"])["url"])
        else:
            pages.update(result["url"] for result in tool["search_results"]["results"])
    # An empty address is no page; a NUL or half a character is shown as � (framing's repair).
    return {_UNSHOWABLE.sub("\ufffd", page) for page in pages} - {""}


def _saved_whole(values: list[dict[str, Any]], framing: str) -> bytes:
    """As a recorder saves an answer that arrived whole: one object, JSON Lines or SSE."""
    if framing == "json":
        return hs.encode(values[0]).encode()
    if framing == "jsonl":
        return "\n".join(hs.encode(value) for value in values).encode()
    return "".join(f"data: {hs.encode(value)}\n\n" for value in values).encode() + b"data: [DONE]\n\n"


@PROFILE
@given(groq_completion(), st.data())
def test_a_groq_answer_is_one_response_whose_sources_are_the_pages_its_tools_read(completion, data):
    values, streamed, tools = completion
    raw = _saved_whole(values, data.draw(st.sampled_from(["jsonl", "sse"] if streamed else ["json"])))
    (response,) = parse_dump(raw).to_json()["responses"]
    assert (response["api"], response["status"], response["streamed"]) == (
        "groq.chat_completions",
        "completed",
        streamed,
    )
    assert {source["url"] for source in response["sources"]} == _read_pages(tools)
    assert set(response["cited_without_position"]) == {source["key"] for source in response["sources"]}


@PROFILE
@given(groq_completion(), st.data())
def test_scrambled_or_cut_groq_answers_keep_the_contract_or_say_what_is_wrong(completion, data):
    values, _, _ = completion
    raw = data.draw(hs.framed(data.draw(hs.scrambled(values, events=True))))
    check_dump(raw)
    check_dump(raw[: data.draw(st.integers(0, len(raw)))], provider=data.draw(st.sampled_from([None, "groq"])))
