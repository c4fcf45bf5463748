"""``Shape.decide`` never contradicts ``Shape.recognise``: detection trusts it for every event of a
stream of the same ``type`` and keys, asking ``recognise`` only where it says it depends."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeview.core.detection import registry
from citeview.core.detection.detect import StreamedResponses
from citeview.core.detection.registry import NEITHER
from tests.hostile import strategies as hs
from tests.hostile.test_properties import PROFILE

SHAPES = [shape for shape in registry.shapes() if shape.decide is not None]

# Every key and type a recogniser looks at, so that the values drawn meet each of its branches.
KEYS = [
    "type", "object", "output", "choices", "role", "lc", "kwargs", "id", "content", "content_blocks",
    "annotations", "candidates", "usageMetadata", "usage_metadata", "event", "data", "outputs", "event_type",
    "steps", "status", "citations", "sessionId", "message", "finish_reason", "usage", "text", "generation_id",
    "parts", "stopReason", "contentBlockDelta", "messageStart", "x",
]  # fmt: skip
TYPES = [
    "response.output_text.delta", "response.created", "message", "message_start", "content_block_delta",
    "ai", "AIMessage", "AIMessageChunk", "human", "text", "constructor", "conversation.response.done",
    "message.output.delta", "interaction.start", "content-delta", "message-start", "text-delta", "source-url",
    "data-x", "start", "finish", "stream-start", "entry", "", "x",
]  # fmt: skip
VALUES = st.one_of(
    hs.json_values(max_leaves=4),
    st.sampled_from(["response", "assistant", "conversation.response", "COMPLETE", "grok-4", "user"]),
    st.sampled_from(TYPES),
    st.just([{"object": "entry"}]),
    st.just([{"type": "text"}]),
    st.just({"message": {}}),
    st.just([{"generatedResponsePart": {}}]),
)


@st.composite
def values(draw: st.DrawFn) -> dict[str, Any]:
    value = draw(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5))
    if draw(st.booleans()):
        value["type"] = draw(st.sampled_from(TYPES))
    return value


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
@PROFILE
@given(value=values())
def test_a_shape_decides_only_what_its_recogniser_says(shape: registry.Shape, value: dict[str, Any]):
    type_name = value.get("type")
    if type_name is not None and not isinstance(type_name, str):
        return  # detection asks ``decide`` only of values whose type is a string, or that have none
    assert shape.decide is not None
    decision = shape.decide(type_name, frozenset(value))
    if decision is None:
        return
    assert shape.recognise(value) == (None if decision == NEITHER else decision), decision


@PROFILE
@given(st.lists(values(), min_size=1, max_size=12))
def test_detection_with_decisions_groups_as_asking_every_recogniser_does(stream: list[dict[str, Any]]):
    def groups(shapes: list[registry.Shape]) -> list[tuple[str, bool, int]] | str:
        try:
            return [
                (group.shape.name, group.streamed, len(list(group.values)))
                for group in StreamedResponses(iter(stream), "sse")
            ]
        except Exception as error:
            return type(error).__name__

    with_decisions = groups(registry.shapes())
    originals = {shape.name: shape.decide for shape in registry.shapes()}
    try:
        for shape in registry.shapes():
            object.__setattr__(shape, "decide", None)
        asked = groups(registry.shapes())
    finally:
        for shape in registry.shapes():
            object.__setattr__(shape, "decide", originals[shape.name])
    assert with_decisions == asked
