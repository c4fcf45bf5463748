"""A large stream is read a part at a time: its values go to the parser as they are read, never all
held at once (issue 31, memory), and the result is the one reading it whole gives."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from citeview.core import parse as parse_module
from citeview.core.detect import ApiMarkedLate, StreamedResponses, split_responses
from citeview.core.errors import DumpError
from citeview.core.framing import FramedDump, read_dump, stream_dump
from citeview.core.framing.eventstream import _read_plain_event_stream, plain_event_stream_values
from citeview.core.framing.framed import STREAMED_PART_BYTES
from citeview.core.framing.sse import lined_sse_values, read_lined_sse
from citeview.core.jsonvalues import own_float
from citeview.core.model import Response
from citeview.core.parse import parse_dump
from citeview.core.phrases import phrase
from citeview.core.registry import ApiFormat, Provider, Shape, ValueKind
from tests.conftest import SHARED_FIXTURES, fixture_ids, recorded_providers, sse
from tests.core.test_eventstream import converse_events, event_stream
from tests.toy_provider import toy_registered


def claude_events(deltas: int) -> list[dict[str, Any]]:
    """A Claude stream of one text block, its text in ``deltas`` Japanese pieces."""
    return [
        {"type": "message_start", "message": {"id": "msg_1", "model": "claude-x", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": f"東京の{n}番。"}}
            for n in range(deltas)
        ),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    ]


def large(deltas: int = 3 * STREAMED_PART_BYTES // 100) -> list[dict[str, Any]]:
    return claude_events(deltas)  # about 3 parts' worth


def whole(raw: bytes, monkeypatch: pytest.MonkeyPatch, **options: Any) -> dict[str, Any] | str:
    """The result of reading the dump whole, as every dump was read before streams were read in parts."""
    with monkeypatch.context() as patched:
        patched.setattr(parse_module, "stream_dump", lambda raw: None)
        return result(raw, **options)


def result(raw: bytes, **options: Any) -> dict[str, Any] | str:
    try:
        return parse_dump(raw, max_bytes=len(raw) + 1, **options).to_json()
    except DumpError as error:
        return f"{error.code}: {error.message}"


def test_a_large_stream_is_read_in_parts_that_together_are_the_stream():
    raw = sse(*large())
    parts = list(lined_sse_values(raw) or [])
    assert len(parts) >= 3
    assert [value for part in parts for value in part] == read_dump(raw).values


def test_an_aws_event_stream_is_read_in_parts_that_together_are_the_stream():
    raw = event_stream(*converse_events("東京の博物館は 九時に開く。" * 40))
    parts = list(plain_event_stream_values(raw, part_bytes=200))
    assert len(parts) > 3
    assert [value for part in parts for value in part] == read_dump(raw).values


def test_a_parser_is_given_each_value_as_it_is_read_not_after_the_stream():
    values = large()
    read = 0

    def source() -> Iterator[dict[str, Any]]:
        nonlocal read
        for value in values:
            read += 1
            yield value

    ahead = []
    for group in StreamedResponses(source(), "sse"):
        for given, _ in enumerate(group.values, 1):
            ahead.append(read - given)
    assert len(ahead) == len(values)
    assert max(ahead) <= 1  # the next value is looked at, to tell where the response ends


def test_a_large_stream_gives_the_result_of_reading_it_whole(monkeypatch: pytest.MonkeyPatch):
    raw = sse(*large())
    assert stream_dump(raw) is not None
    streamed = result(raw)
    assert isinstance(streamed, dict) and streamed["responses"][0]["text"].startswith("東京の0番。東京の1番。")
    assert streamed == whole(raw, monkeypatch)


def test_a_duplicate_key_in_a_later_part_is_read_as_when_read_whole(monkeypatch: pytest.MonkeyPatch):
    events = large()
    raw = sse(*events[:-2]) + b'event: message_delta\ndata: {"type": "message_delta", "type": "x"}\n\n'
    assert raw.index(b'"type": "x"') > 2 * STREAMED_PART_BYTES
    assert parse_module._read_streamed(raw, None, None) is None  # the fast reader cannot prove that part
    assert result(raw) == whole(raw, monkeypatch)


def test_an_event_past_the_first_part_that_is_no_json_is_said_as_when_read_whole(monkeypatch: pytest.MonkeyPatch):
    raw = sse(*large()) + b"event: message_stop\ndata: {not json}\n\n"
    said = result(raw)
    assert said == whole(raw, monkeypatch)


# --- A value that shows, late, the mark of an API that comes before the one chosen -------------------


def _toy_stream_value(value: dict[str, Any]) -> ValueKind | None:
    return "event" if "toy_piece" in value else None


def _toy_parser(label: str) -> Any:
    def parse(values: Any, streamed: bool) -> Response:
        response = Response("toy", f"toy.{label}", streamed, status="completed")
        response.text = "".join(value["toy_piece"] for value in values)
        return response

    return parse


TOY_STREAM_SHAPE = Shape(name="toy-stream", priority=-100, recognise=_toy_stream_value)
TOY_PROVIDER = Provider("toy", "Toy")
MARKED = ApiFormat(
    name="toy.marked",
    label="Toy Marked",
    provider=TOY_PROVIDER,
    shape=TOY_STREAM_SHAPE,
    parser=_toy_parser("marked"),
    citation_notation=phrase("none"),
    marks=lambda value: value.get("vendor") == "marked",
    priority=0,
)
OTHER = ApiFormat(
    name="toy.other",
    label="Toy Other",
    provider=TOY_PROVIDER,
    shape=TOY_STREAM_SHAPE,
    parser=_toy_parser("other"),
    citation_notation=phrase("none"),
    priority=1,
)


def test_a_late_mark_of_an_earlier_api_reads_the_stream_whole_and_takes_that_api():
    values = [{"toy_piece": "一"}, {"toy_piece": "二"}, {"toy_piece": "三", "vendor": "marked"}]
    with toy_registered(MARKED), toy_registered(OTHER):
        assert [group.api for group in split_responses(FramedDump("sse", values))] == ["toy.marked"]
        streamed = iter(StreamedResponses(iter(values), "sse"))
        group = next(streamed)
        assert group.api == "toy.other"  # the first value shows only the other's (every value's) mark
        with pytest.raises(ApiMarkedLate):
            list(group.values)
        parsed = parse_dump(sse(*values))
    assert [(r.api, r.text) for r in parsed.responses] == [("toy.marked", "一二三")]


def test_a_stream_no_value_marks_is_held_and_given_at_the_end_as_when_read_whole():
    values = [{"type": "error"}, {"toy_piece": "a"}, {"toy_piece": "b"}]
    with toy_registered(MARKED):
        groups = list(StreamedResponses(iter(values), "sse"))
        assert [(group.api, group.values) for group in groups] == [("toy.marked", values)]
        assert [group.api for group in split_responses(FramedDump("sse", values))] == ["toy.marked"]


# --- Every real recording read in parts is read as it is read whole ---------------------------------


def streams_read_in_parts() -> list[Path]:
    """Every real recording laid out as a stream that may be read in parts."""
    if not recorded_providers():  # (CI=true: an error there, not a silent skip)
        return []
    found = sorted(path for path in SHARED_FIXTURES.glob("*/*") if path.suffix != ".md")
    return [path for path in found if stream_dump(path.read_bytes()) is not None]


def read_whole_by_the_fast_reader(raw: bytes) -> bool:
    if raw.startswith((b"data:", b"event:")):
        return read_lined_sse(raw) is not None
    return _read_plain_event_stream(raw) is not None


@pytest.mark.parametrize(
    "path", streams_read_in_parts(), ids=fixture_ids(streams_read_in_parts()) if SHARED_FIXTURES.is_dir() else []
)
def test_a_recorded_stream_read_in_parts_is_read_as_whole(path: Path, monkeypatch: pytest.MonkeyPatch):
    raw = path.read_bytes()
    in_parts = parse_module._read_streamed(raw, None, None)
    # Read in parts exactly when its layout is the one the fast reader reads (not failing on the way).
    assert (in_parts is not None) == read_whole_by_the_fast_reader(raw)
    assert result(raw) == whole(raw, monkeypatch)


def test_the_recordings_hold_streams_read_in_parts_of_many_providers():
    read_in_parts = [path for path in streams_read_in_parts() if read_whole_by_the_fast_reader(path.read_bytes())]
    assert {"anthropic", "openai", "perplexity", "bedrock"} <= {path.parent.name for path in read_in_parts}


# --- What the model keeps of the values is its own ------------------------------------------------


def test_a_score_the_model_keeps_is_its_own_float_of_the_same_value():
    decoded = orjson.loads(b"[0.873, -0.0, 1]")
    kept = [own_float(value) for value in decoded]
    assert kept == [0.873, -0.0, 1.0] and str(kept[1]) == "-0.0"
    assert all(own is not value for own, value in zip(kept, decoded, strict=True))


def test_gemini_keeps_no_decoded_confidence_score(monkeypatch: pytest.MonkeyPatch):
    """A decoded float kept by the model pins the memory of the values it was decoded among."""
    body = {
        "candidates": [
            {
                "content": {"parts": [{"text": "東京は晴れ。"}], "role": "model"},
                "finishReason": "STOP",
                "groundingMetadata": {
                    "groundingChunks": [{"web": {"uri": "https://example.jp/a", "title": "a"}}],
                    "groundingSupports": [
                        {
                            "segment": {"startIndex": 0, "endIndex": 18, "text": "東京は晴れ。"},
                            "groundingChunkIndices": [0],
                            "confidenceScores": [0.873],
                        }
                    ],
                },
            }
        ]
    }
    framed = read_dump(orjson.dumps(body))
    decoded = framed.values[0]["candidates"][0]["groundingMetadata"]["groundingSupports"][0]["confidenceScores"][0]
    with monkeypatch.context() as patched:
        patched.setattr(parse_module, "read_dump", lambda raw: framed)
        (response,) = parse_dump(b"{}").responses
    (score,) = response.citations[0].confidence or []
    assert score == 0.873 and score is not decoded
