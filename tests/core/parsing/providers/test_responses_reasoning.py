"""A Responses answer's reasoning items are shown as thinking, apart from the answer: DeepSeek's whole
reasoning (``content`` of ``reasoning_text``) and OpenAI's summary (``summary_text`` parts, a blank
line apart), whole and streamed. An item with no text (an empty summary, only encrypted content)
shows nothing.

The DeepSeek answers are real (tests/fixtures/recordings/deepseek/, see PROVENANCE.md there), and so
is the OpenAI one (../shared/fixtures/openai/, a gpt-5.1 web search recorded by the AI SDK's tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeview.core.parsing.parse import parse_dump
from tests.conftest import OWN_FIXTURES, SHARED_FIXTURES

DEEPSEEK = OWN_FIXTURES / "recordings" / "deepseek"
WHOLE = DEEPSEEK / "pydantic-ai-deepseek-responses-text.json"
STREAM = DEEPSEEK / "pydantic-ai-deepseek-responses-text-stream.sse"
ANSWER = "The capital of France is Paris."
DEEPSEEK_THINKING = "We need answer capital of France."

OPENAI = SHARED_FIXTURES / "openai"
OPENAI_WHOLE = OPENAI / "vercel-ai-responses-web-search-sources-2026-02.json"
OPENAI_STREAM = OPENAI / "vercel-ai-responses-web-search-sources-2026-02.chunks.jsonl"


def read(raw: bytes) -> dict[str, Any]:
    (response,) = parse_dump(raw).to_json()["responses"]
    return response


def thinking(response: dict[str, Any]) -> list[str]:
    assert all(r["kind"] == "thinking" and not r["citations"] for r in response["reasoning"])
    return [r["text"] for r in response["reasoning"]]


def summaries(output: list[dict[str, Any]]) -> list[str]:
    """What the recording's reasoning items summarise, each item's parts a blank line apart; the
    items with an empty summary give nothing."""
    items = [item["summary"] for item in output if item["type"] == "reasoning"]
    return ["\n\n".join(part["text"] for part in summary) for summary in items if summary]


def cut_before(raw: bytes, marker: str) -> bytes:
    """The stream as a client that lost the connection before the first event holding ``marker``."""
    events = raw.split(b"\n\n")
    kept = next(n for n, event in enumerate(events) if marker.encode() in event)
    return b"\n\n".join(events[:kept]) + b"\n\n"


# --- DeepSeek: the whole reasoning, as reasoning_text ----------------------------------------------


@pytest.mark.parametrize("path", [WHOLE, STREAM], ids=["whole", "streamed"])
def test_deepseeks_reasoning_is_shown_as_thinking_apart_from_the_answer(path: Path):
    response = read(path.read_bytes())
    # Once, though the stream's deltas, its done event and its final body each hold it.
    assert thinking(response) == [DEEPSEEK_THINKING]
    assert response["text"] == ANSWER


def test_a_stream_cut_during_the_reasoning_keeps_the_thinking_it_got():
    response = read(cut_before(STREAM.read_bytes(), '"delta":" capital"'))
    assert thinking(response) == ["We need answer"]
    assert response["text"] == "" and response["status"] != "completed"


def test_a_stream_cut_before_the_final_body_keeps_the_thinking_and_the_answer():
    response = read(cut_before(STREAM.read_bytes(), "event: response.completed"))
    assert thinking(response) == [DEEPSEEK_THINKING]
    assert response["text"] == ANSWER and response["status"] != "completed"


# --- OpenAI: the summary, as summary_text parts ----------------------------------------------------


def test_openais_reasoning_summaries_are_shown_and_empty_ones_add_nothing():
    recorded = json.loads(OPENAI_WHOLE.read_bytes())
    response = read(OPENAI_WHOLE.read_bytes())
    # Four reasoning items, two of them with an empty summary; the last has four parts.
    assert len([item for item in recorded["output"] if item["type"] == "reasoning"]) == 4
    assert thinking(response) == summaries(recorded["output"])
    assert thinking(response)[0].startswith("**Planning web query actions**")
    assert "**Planning web query actions**" not in response["text"]


def test_openais_streamed_summaries_are_shown_once_each_as_the_final_body_holds_them():
    events = [json.loads(line) for line in OPENAI_STREAM.read_bytes().splitlines() if line.strip()]
    (final,) = [event["response"] for event in events if event["type"] == "response.completed"]
    response = read(OPENAI_STREAM.read_bytes())
    # Two items: one summary part, then two parts a blank line apart.
    assert thinking(response) == summaries(final["output"])
    assert len(thinking(response)) == 2 and "\n\n**Clarifying Tokyo news timing**" in thinking(response)[1]


def test_a_reasoning_item_with_only_encrypted_content_adds_no_thinking():
    body = {
        "id": "resp_68e6a1b2c3d4",
        "object": "response",
        "status": "completed",
        "model": "gpt-5",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAABo-secret"},
            {"type": "reasoning", "id": "rs_2", "summary": [{"type": "summary_text", "text": "Check the date."}]},
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "It opens at nine.", "annotations": []}],
            },
        ],
    }
    response = read(json.dumps(body).encode())
    assert thinking(response) == ["Check the date."]
    assert response["text"] == "It opens at nine." and "gAAAAABo" not in json.dumps(response)
