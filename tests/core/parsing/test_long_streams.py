"""A text streamed in many deltas costs in proportion to its length (built from
../shared/docs/provider-formats.md §2 and §3, not recorded): adding each delta to the text so far
copied the whole text at every delta, and a one-block Claude answer in 40,000 deltas took six times
as long as one in 10,000, and more the longer it grew."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

from citeview.core.parsing.parse import parse_dump

PIECE = "東京の人口は約1400万人です。"


def sse(events: list[dict]) -> bytes:
    return "".join(f"data: {json.dumps(e, ensure_ascii=False, separators=(',', ':'))}\n\n" for e in events).encode()


def claude_one_block(deltas: int) -> bytes:
    """A Claude stream whose answer is one text block (no citation splits it) and a tool input in pieces."""
    events: list[dict] = [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": PIECE}}
            for _ in range(deltas)
        ),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    ]
    return sse(events)


def claude_many_blocks(blocks: int) -> bytes:
    """A Claude stream of many text blocks of a delta each, as a cited answer is (a block per
    citation): joining each block's deltas once looked for its pieces among every block's."""
    events: list[dict] = [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}}
    ]
    for index in range(blocks):
        events += [
            {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": PIECE}},
            {"type": "content_block_stop", "index": index},
        ]
    events += [{"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, {"type": "message_stop"}]
    return sse(events)


def interactions_one_step(deltas: int) -> bytes:
    events: list[dict] = [
        {"event_type": "interaction.created", "interaction": {"id": "v1_x", "status": "in_progress"}},
        {"event_type": "step.start", "index": 0, "step": {"type": "model_output"}},
        *({"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": PIECE}} for _ in range(deltas)),
        {"event_type": "interaction.completed", "interaction": {"id": "v1_x", "status": "completed"}},
    ]
    return sse(events)


STREAMS: dict[str, Callable[[int], bytes]] = {
    "claude": claude_one_block,
    "claude blocks": claude_many_blocks,
    "gemini interactions": interactions_one_step,
}


@pytest.mark.parametrize("build", STREAMS.values(), ids=STREAMS.keys())
def test_a_text_in_many_deltas_is_read_whole(build: Callable[[int], bytes]):
    response = parse_dump(build(5_000), max_bytes=10**8).to_json()["responses"][0]
    assert response["text"] == PIECE * 5_000


def seconds(raw: bytes) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        parse_dump(raw, max_bytes=len(raw))
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("build", STREAMS.values(), ids=STREAMS.keys())
def test_a_text_in_four_times_the_deltas_takes_about_four_times_as_long(build: Callable[[int], bytes]):
    small, large = seconds(build(10_000)), seconds(build(40_000))
    assert large < 8 * small, (small, large)  # linear: 4; copying the text at each delta: 16 and more
