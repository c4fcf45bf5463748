"""A dump is read from its file a part at a time by its layout's one reader: a stream's values go to
the parser as they are read, never all held at once (issue 31, memory; issue 43), and the result is
the same whatever the size of the parts, and the same from a file as from bytes."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson
import pytest

from citeview.core.common.errors import DumpError
from citeview.core.common.model import Response
from citeview.core.common.phrases import phrase
from citeview.core.detection.detect import StreamedResponses
from citeview.core.detection.registry import ApiFormat, Provider, Shape, ValueKind
from citeview.core.framing import DumpFile, DumpReading, read_dump, read_in_parts
from citeview.core.framing import eventstream as eventstream_module
from citeview.core.framing import source as source_module
from citeview.core.framing import sse as sse_module
from citeview.core.framing.source import PART_BYTES
from citeview.core.parsing import parse as parse_module
from citeview.core.parsing.jsonvalues import own_float
from citeview.core.parsing.parse import parse_dump
from tests.conftest import OWN_FIXTURES, SHARED_FIXTURES, fixture_ids, sse
from tests.core.framing.test_eventstream import converse_events, damaged, event_stream
from tests.toy_provider import toy_registered


class PartsOnly(io.BytesIO):
    """A file that refuses to be read whole: every read must ask for a part, ``PART_BYTES`` at most.
    It remembers how far it was read."""

    def read(self, size: int | None = -1, /) -> bytes:
        if size is None or size < 0 or size > PART_BYTES:
            raise AssertionError(f"read({size}): the dump's file is read a part at a time")
        return super().read(size)


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


def large(deltas: int = 3 * PART_BYTES // 100) -> list[dict[str, Any]]:
    return claude_events(deltas)  # about 3 parts' worth


def result(raw: bytes | IO[bytes], **options: Any) -> dict[str, Any] | str:
    try:
        return parse_dump(raw, max_bytes=2**40, **options).to_json()
    except DumpError as error:
        return f"{error.code}: {error.message}"


def in_parts_of(size: int, raw: bytes, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any] | str:
    """The result of reading the dump in parts of ``size`` bytes (a part is cut where an event ends)."""
    with monkeypatch.context() as patched:
        for module in (sse_module, eventstream_module):
            patched.setattr(module, "PART_BYTES", size)
        return result(raw)


def test_a_stream_is_read_from_its_file_a_part_at_a_time():
    raw = sse(*large())
    file = PartsOnly(raw)
    reading = read_in_parts(DumpFile(file))
    first = next(reading.values)
    assert first["type"] == "message_start"
    assert file.tell() <= 2 * PART_BYTES < len(raw) // 2  # the first value is given before most is read
    assert [first, *reading.values] == large()


def test_an_aws_event_stream_is_read_from_its_file_a_part_at_a_time():
    events = converse_events("東京の博物館は 九時に開く。" * 40) * 2000
    raw = event_stream(*events)
    file = PartsOnly(raw)
    reading = read_in_parts(DumpFile(file))
    first = next(reading.values)
    assert file.tell() <= 2 * PART_BYTES < len(raw) // 2
    assert [first, *reading.values] == events


@pytest.mark.parametrize(
    "raw",
    [
        sse(*large()),
        event_stream(*converse_events("東京の博物館は 九時に開く。" * 40)),
        orjson.dumps({"id": "x", "choices": [{"message": {"role": "assistant", "content": "東京" * PART_BYTES}}]}),
    ],
    ids=["sse", "eventstream", "json"],
)
def test_a_dump_read_from_a_file_is_read_as_its_bytes_are(raw: bytes):
    assert result(PartsOnly(raw)) == result(raw)


def _aws_stream() -> bytes:
    return event_stream(*converse_events("東京の博物館は 九時に開く。" * 40) * 30)


@pytest.mark.parametrize(
    "raw",
    [
        sse(*large(3000)),
        _aws_stream(),
        damaged(_aws_stream(), 40, 20),  # a payload's byte: the message's checksum fails
        damaged(_aws_stream(), 40, 2),  # a prelude's byte: the next message is looked for
        _aws_stream()[:-7],  # cut inside the last message
    ],
    ids=["sse", "eventstream", "damaged-message", "damaged-prelude", "cut"],
)
def test_a_dump_read_from_its_file_in_small_parts_is_read_as_its_bytes_are(raw: bytes, monkeypatch: pytest.MonkeyPatch):
    """The file is read 997 bytes at a time, so messages and events stand across its parts."""
    expected = result(raw)
    with monkeypatch.context() as patched:
        for module in (source_module, sse_module, eventstream_module):
            patched.setattr(module, "PART_BYTES", 997)
        assert result(io.BytesIO(raw)) == expected
    assert isinstance(expected, dict) and expected["responses"][0]["text"]


def test_a_file_is_read_from_where_it_stands():
    raw = sse(*claude_events(3))
    file = PartsOnly(b"not the dump" + raw)
    file.seek(len(b"not the dump"))
    assert result(file) == result(raw)


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


def test_a_large_stream_read_in_small_parts_gives_the_result_of_one_part(monkeypatch: pytest.MonkeyPatch):
    raw = sse(*large())
    streamed = result(raw)
    assert isinstance(streamed, dict) and streamed["responses"][0]["text"].startswith("東京の0番。東京の1番。")
    assert in_parts_of(997, raw, monkeypatch) == streamed == in_parts_of(len(raw), raw, monkeypatch)


def test_a_duplicate_key_in_a_later_part_is_read_as_in_one_part(monkeypatch: pytest.MonkeyPatch):
    events = large()
    raw = sse(*events[:-2]) + b'event: message_delta\ndata: {"type": "message_delta", "type": "x"}\n\n'
    assert raw.index(b'"type": "x"') > 2 * PART_BYTES
    assert result(raw) == in_parts_of(len(raw), raw, monkeypatch)


def test_an_event_past_the_first_part_that_is_no_json_is_said_as_in_one_part(monkeypatch: pytest.MonkeyPatch):
    raw = sse(*large()) + b"event: message_stop\ndata: {not json}\n\n"
    said = result(raw)
    assert said == in_parts_of(len(raw), raw, monkeypatch)


def test_an_unreadable_event_followed_by_another_is_said_with_its_line_in_the_whole_stream():
    raw = sse(*large()[:-1]) + b"event: x\ndata: {not json\n\n" + sse(large()[-1])
    said = result(raw)
    line = raw[: raw.index(b"{not json")].count(b"\n")  # (the event starts a line before its data)
    assert isinstance(said, str) and said.startswith("invalid_json: The data of the event at line")
    assert f"at line {line} is not valid" in said


def test_text_that_is_no_utf8_in_a_later_part_is_said_before_an_unreadable_event_of_an_earlier_one():
    events = large()
    raw = sse(*events[:2]) + b"data: {not json\n\n" + sse(*events[2:-1]) + b'data: {"a": "\xff"}\n\n'
    said = result(raw)
    assert said == f"not_utf8: {read_error(raw)}"
    assert f"at offset {raw.index(b'\xff')})" in said


def test_a_stream_cut_mid_event_in_a_later_part_is_read_as_cut_off():
    raw = sse(*large())
    cut = raw[: raw.rindex(b"data: ") + 20]
    said = result(cut)
    assert isinstance(said, dict)
    (response,) = said["responses"]
    assert response["status"] == "incomplete"
    assert "truncated_event" in {d["code"] for d in response["diagnostics"]}


def read_error(raw: bytes) -> str:
    with pytest.raises(DumpError) as said:
        read_dump(raw)
    return said.value.message


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


def test_a_late_mark_of_an_earlier_api_is_noted_and_the_response_read_again_with_that_api():
    values = [{"toy_piece": "一"}, {"toy_piece": "二"}, {"toy_piece": "三", "vendor": "marked"}]
    with toy_registered(MARKED), toy_registered(OTHER):
        streamed = iter(StreamedResponses(iter(values), "sse"))
        group = next(streamed)
        assert group.api == "toy.other"  # the first value shows only the other's (every value's) mark
        assert list(group.values) == values and group.marked_late == "toy.marked"
        (decided,) = StreamedResponses(iter(values), "sse", decided={0: "toy.marked"})
        assert decided.api == "toy.marked"
        parsed = parse_dump(PartsOnly(sse(*values)))
    assert [(r.api, r.text) for r in parsed.responses] == [("toy.marked", "一二三")]


def test_a_stream_no_value_marks_is_held_and_given_at_the_end():
    values = [{"type": "error"}, {"toy_piece": "a"}, {"toy_piece": "b"}]
    with toy_registered(MARKED):
        groups = list(StreamedResponses(iter(values), "sse"))
        assert [(group.api, group.values) for group in groups] == [("toy.marked", values)]


# --- Every real recording and fixture reads alike from a file, in parts of any size -----------------


def dumps_on_file() -> list[Path]:
    """Every real recording, and every fixture of citeview's own."""
    found = sorted(SHARED_FIXTURES.glob("*/*")) + sorted(OWN_FIXTURES.rglob("*"))
    return [path for path in found if path.is_file() and path.suffix != ".md"]


@pytest.mark.parametrize("path", dumps_on_file(), ids=fixture_ids(dumps_on_file()))
def test_a_dump_reads_alike_from_its_file_and_in_small_parts(path: Path, monkeypatch: pytest.MonkeyPatch):
    raw = path.read_bytes()
    expected = result(raw)
    with path.open("rb") as file:
        assert result(file) == expected
    assert in_parts_of(4096, raw, monkeypatch) == expected


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
        patched.setattr(parse_module, "read_in_parts", lambda source: DumpReading("json", iter(framed.values)))
        (response,) = parse_dump(b"{}").responses
    (score,) = response.citations[0].confidence or []
    assert score == 0.873 and score is not decoded
