"""Reading a dump's framing, and the clear error for each kind of unreadable input."""

from __future__ import annotations

import json

import pytest

from citeview.core.common.errors import DumpError
from citeview.core.framing import read_dump
from citeview.core.parsing.parse import parse_dump
from tests.builders import agent_created, agent_deltas, sonar_object
from tests.conftest import own_fixture, sse


def error_of(raw: bytes) -> DumpError:
    with pytest.raises(DumpError) as caught:
        parse_dump(raw)
    return caught.value


@pytest.mark.parametrize(
    ("raw", "code", "words"),
    [
        (b"", "empty", "empty"),
        (b"  \n\t ", "empty", "empty"),
        ('{"a": "日本"}'.encode("shift_jis"), "not_utf8", "Shift_JIS"),
        ("{}".encode("utf-16"), "not_utf8", "UTF-16"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary", "PNG"),
        (b"{\x00\x00\x01", "binary", "binary"),
        (b"<!DOCTYPE html><html><body>Perplexity</body></html>", "html", "HTML page"),
        (b'{"id": "resp_1", "output": [', "truncated_json", "cut off"),
        (b'{"id": 1,, }', "invalid_json", "line 1, column 10"),
        (b"[" * 100_000 + b"]" * 100_000, "too_deep", "nested too deeply"),
        (b'{"choices": [], "x": NaN}', "invalid_json", "NaN"),
        (b'{"id": "a", "id": "b"}', "invalid_json", "'id' appears twice"),
        (b'{"hello": "world"}', "unknown_provider", "keys hello"),
        (b"[1, 2, 3]", "unknown_provider", "not response objects"),
        (b"just some words", "invalid_json", "not JSON"),
        (b"data: {not json}\n\ndata: {}\n\n", "invalid_json", "line 1"),
    ],
)
def test_unreadable_dumps_get_an_error_that_says_what_is_wrong(raw: bytes, code: str, words: str):
    error = error_of(raw)
    assert error.code == code
    assert words in error.message


def test_a_dump_over_the_limit_is_refused_before_reading():
    with pytest.raises(DumpError) as caught:
        parse_dump(b"{}" * 10, max_bytes=19)
    assert caught.value.code == "too_large" and "19" in caught.value.message
    assert parse_dump(json.dumps(sonar_object("x", [])).encode(), max_bytes=10_000).responses


def test_sse_with_crlf_comments_and_done_is_read():
    framed = read_dump(own_fixture("sonar-stream-full-mode-crlf.sse"))
    assert framed.framing == "sse" and framed.done_marker and len(framed.values) == 3


def test_sse_data_split_over_several_lines_is_one_event():
    framed = read_dump(b'event: x\ndata: {"type":\ndata: "response.created"}\n\n')
    assert framed.values == [{"type": "response.created"}]


def test_a_stream_cut_off_mid_event_keeps_what_came_before():
    raw = sse(agent_created(), *agent_deltas("前半[1]")) + b'data: {"type": "response.output_text.delta", "del'
    doc = parse_dump(raw).to_json()
    response = doc["responses"][0]
    assert response["text"] == "前半[1]" and response["status"] == "incomplete"
    assert any(d["code"] == "truncated_event" for d in response["diagnostics"])


def test_jsonl_and_json_arrays_are_named_as_such():
    assert read_dump(own_fixture("agent-two-responses.jsonl")).framing == "jsonl"
    assert read_dump(b'[{"a": 1}]').framing == "json-array"
    assert read_dump(b'\xef\xbb\xbf{"a": 1}').framing == "json"  # a UTF-8 byte-order mark is no content


def test_a_lone_surrogate_is_shown_as_a_replacement_character_and_reported():
    raw = json.dumps(sonar_object("a\udc00b[1]", ["https://x.example"])).encode()
    response = parse_dump(raw).to_json()["responses"][0]
    assert response["text"] == "a\ufffdb[1]"
    assert any(d["code"] == "invalid_unicode" for d in response["diagnostics"])


def test_a_nul_character_in_a_value_or_a_key_is_replaced_so_any_database_can_store_it():
    values = read_dump(b'{"a\\u0000": ["x\\u0000y", {"k": "\\u0000"}]}').values
    assert values == [{"a\ufffd": ["x\ufffdy", {"k": "\ufffd"}]}]
    raw = json.dumps(sonar_object("a\x00b[1]", ["https://x.example"])).encode()
    response = parse_dump(raw).to_json()["responses"][0]
    assert response["text"] == "a\ufffdb[1]" and "NUL" in next(
        d["message"] for d in response["diagnostics"] if d["code"] == "invalid_unicode"
    )


def test_deep_nesting_inside_any_field_is_refused():
    obj = sonar_object("x", [])
    obj["search_results"] = [{"url": "https://x.example", "date": json.loads("[" * 70 + "]" * 70)}]
    assert error_of(json.dumps(obj).encode()).code == "too_deep"


@pytest.mark.parametrize(
    "tail", [b'data: {"type": "response.output_text.delta", "delta": tr', b'data: {"a": 1.', b'data: {"a": "\\u30']
)
def test_a_last_event_cut_anywhere_leaves_an_incomplete_response(tail: bytes):
    raw = sse(agent_created(), *agent_deltas("前半")) + tail
    response = parse_dump(raw).to_json()["responses"][0]
    assert response["text"] == "前半" and response["status"] == "incomplete"


def test_a_stream_cut_inside_a_character_is_incomplete_not_refused():
    raw = sse(agent_created(), *agent_deltas("条件A[2]、条件B")) + 'data: {"delta": "条'.encode()[:-1]
    response = parse_dump(raw).to_json()["responses"][0]
    assert response["status"] == "incomplete" and response["text"] == "条件A[2]、条件B"


def test_data_lines_saved_without_blank_lines_are_separate_events():
    raw = b"\n".join(
        line for line in sse(agent_created(), *agent_deltas("a", "b")).split(b"\n") if line.startswith(b"data:")
    )
    assert parse_dump(raw).to_json()["responses"][0]["text"] == "ab"


# Most dumps are read by the fast path (orjson, whole stream framed at once), which must say and keep
# exactly what the careful reader does. Servers write compact JSON, so these tests do too.


def compact(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def compact_sse(*events: dict, names: bool = False) -> bytes:
    return b"".join(
        (f"event: {e['type']}\n".encode() if names else b"") + b"data: " + compact(e) + b"\n\n" for e in events
    )


@pytest.mark.parametrize("names", [False, True])
def test_a_compact_stream_reads_as_the_careful_reader_reads_it(names: bool):
    events = [agent_created(), *agent_deltas("東京🗼", "[1]"), {"type": "ping", "n": 12345678901234567890123}]
    fast = read_dump(compact_sse(*events, names=names))
    careful = read_dump(
        b": a comment sends the stream to the line-by-line reader\n" + compact_sse(*events, names=names)
    )
    assert fast.values == careful.values == events
    assert fast.values[-1]["n"] == 12345678901234567890123  # an integer beyond 64 bits stays exact


def test_a_duplicate_key_in_compact_json_is_refused_as_in_any_other_layout():
    assert "'id' appears twice" in error_of(b'{"id":"a","id":"b"}').message
    twice = b'data: {"type":"response.output_text.delta","delta":"a","delta":"b"}\n\n'
    stream = compact_sse(agent_created()) + twice + compact_sse(*agent_deltas("c"))
    assert "'delta' appears twice" in error_of(stream).message


def test_deep_nesting_in_a_compact_stream_event_is_refused():
    deep = compact_sse(agent_created()) + b'data: {"type":"ping","x":' + b"[" * 70 + b"]" * 70 + b"}\n\n"
    assert error_of(deep).code == "too_deep"


def test_a_nul_in_a_compact_stream_is_replaced():
    dump = read_dump(compact_sse(agent_created(), *agent_deltas("a\x00b")))
    assert dump.values[1]["delta"] == "a\ufffdb" and dump.repaired_strings == 1


def test_a_compact_stream_cut_mid_event_keeps_what_came_before():
    raw = compact_sse(agent_created(), *agent_deltas("前半")) + b'data: {"type":"response.output_text.del'
    response = parse_dump(raw).to_json()["responses"][0]
    assert response["text"] == "前半" and response["status"] == "incomplete"


def test_parsing_leaves_the_cycle_collector_on_whatever_the_dump():
    import gc

    parse_dump(compact_sse(agent_created(), *agent_deltas("a")))
    assert gc.isenabled()
    error_of(b'{"id": "a", "id": "b"}')
    assert gc.isenabled()


# The readers in C (msgspec, every layout; issue 20) prove what they read by its colons: a key that
# appears twice leaves one colon fewer in what is written back. Each case here would fool a reader
# that did not prove it, or that trusted an escaped colon.


def spaced_sse(*events: dict, names: bool = True) -> bytes:
    """Events as Python's json.dumps writes them (``", "`` and ``": "``), as xAI's streams are."""
    return b"".join(
        (f"event: {e['type']}\n".encode() if names else b"") + b"data: " + json.dumps(e).encode() + b"\n\n"
        for e in events
    )


@pytest.mark.parametrize("names", [False, True])
def test_a_spaced_stream_reads_as_the_careful_reader_reads_it(names: bool):
    events = [agent_created(), *agent_deltas("東京🗼", "[1]"), {"type": "ping", "n": 12345678901234567890123}]
    fast = read_dump(spaced_sse(*events, names=names))
    careful = read_dump(b": a comment\n" + spaced_sse(*events, names=names))
    assert fast.values == careful.values == events
    assert fast.values[-1]["n"] == 12345678901234567890123


@pytest.mark.parametrize(
    "event",
    [
        b'{"type": "response.output_text.delta", "delta": "a", "delta": "b"}',  # spaced
        b'{"type":"response.output_text.delta","x":{"k":1,"k":2}}',  # nested
        # The escaped colon makes up for the key dropped: the colons alone would balance.
        b'{"type":"response.output_text.delta","delta":"a","delta":"b\\u003a"}',
    ],
)
@pytest.mark.parametrize("names", [False, True])
def test_a_key_twice_in_any_layout_of_stream_is_refused(event: bytes, names: bool):
    head, tail = spaced_sse(agent_created(), names=names), spaced_sse(*agent_deltas("c"), names=names)
    line = (b"event: response.output_text.delta\n" if names else b"") + b"data: " + event + b"\n\n"
    assert "appears twice" in error_of(head + line + tail).message


def test_a_key_twice_in_an_indented_or_spaced_document_is_refused():
    assert "'id' appears twice" in error_of(b'{\n  "id": "a",\n  "id": "b"\n}').message
    assert "'k' appears twice" in error_of(b'{"id": "a", "x": [{"k": 1, "k": "\\u003a"}]}').message


def test_a_spaced_document_keeps_an_integer_beyond_64_bits_exactly():
    assert (
        read_dump(b'{"id": "a", "n": 123456789012345678901234567890}').values[0]["n"] == 123456789012345678901234567890
    )


@pytest.mark.parametrize("names", [False, True])
def test_deep_nesting_in_a_spaced_stream_is_refused_and_shallow_nesting_read(names: bool):
    def stream(depth: int) -> bytes:
        nested = json.loads("[" * depth + "]" * depth)
        return spaced_sse(agent_created(), {"type": "ping", "x": nested}, names=names)

    assert error_of(stream(70)).code == "too_deep"
    assert read_dump(stream(62)).values[1]["type"] == "ping"  # 62 lists in an event: 64 levels


def test_deep_nesting_in_a_spaced_document_is_refused():
    obj = sonar_object("x", [])
    obj["search_results"] = [{"url": "https://x.example", "date": json.loads("[" * 70 + "]" * 70)}]
    assert error_of(json.dumps(obj, indent=2).encode()).code == "too_deep"
    obj["search_results"][0]["date"] = json.loads("[" * 60 + "]" * 60)
    assert read_dump(json.dumps(obj, indent=2).encode()).framing == "json"


# A large value's proof is written a piece at a time (``framing.strict_json._proof_pieces``): a dict's keys apart
# from its containers, a long list a slice at a time. The cases below sit where the pieces meet.
LONG = 1500  # more items than a slice holds


@pytest.mark.parametrize("items", [3, LONG])
def test_a_key_twice_deep_in_a_large_document_is_refused(items: int):
    obj = {"id": "a", "results": [{"url": f"https://x.example/{i}", "meta": {"n": i}} for i in range(items)]}
    raw = json.dumps(obj, ensure_ascii=False).encode()
    assert read_dump(raw).values[0]["results"][-1]["meta"]["n"] == items - 1
    twice = raw.replace(b'{"n": 1}', b'{"n": 1, "n": 2}')
    assert "'n' appears twice" in error_of(twice).message
    assert "'results' appears twice" in error_of(raw[:-1] + b', "results": []}').message


@pytest.mark.parametrize("items", [3, LONG])
def test_nesting_in_a_large_document_is_refused_one_level_past_the_limit(items: int):
    def document(lists: int) -> bytes:
        # The document (1), its list (2), an item (3), then the lists: the deepest at 3 + lists.
        results: list[object] = [{"i": i} for i in range(items - 1)]
        results.append({"date": json.loads("[" * lists + "]" * lists)})
        return json.dumps({"id": "a", "results": results}, indent=2).encode()

    assert read_dump(document(61)).framing == "json"  # 64 levels
    assert error_of(document(62)).code == "too_deep"


def test_an_integer_beyond_64_bits_in_a_long_list_is_kept_exactly():
    raw = json.dumps({"id": "a", "n": [*range(LONG), 123456789012345678901234567890]}).encode()
    assert read_dump(raw).values[0]["n"][-1] == 123456789012345678901234567890


def test_a_large_stream_event_is_proven_as_a_small_one_is():
    # Over 64 KB: its proof is written a piece at a time too.
    results = [{"url": f"https://x.example/{i}", "title": "東京都の人口について"} for i in range(LONG)]
    large = {"type": "response.completed", "results": results}
    head, tail = compact_sse(agent_created()), compact_sse(*agent_deltas("c"))
    event = compact_sse(large)
    assert len(event) > 64 * 1024
    assert read_dump(head + event + tail).values[1] == large
    twice = event.replace(b'{"url":"https://x.example/7",', b'{"url":"https://x.example/7","url":"b",')
    assert "'url' appears twice" in error_of(head + twice + tail).message
    deep = {**large, "x": json.loads("[" * 63 + "]" * 63)}  # the event (1), its lists 2 to 64 ...
    assert read_dump(head + compact_sse(deep) + tail).values[1]["x"]
    deeper = {**large, "x": json.loads("[" * 64 + "]" * 64)}  # ... and one more
    assert error_of(head + compact_sse(deeper) + tail).code == "too_deep"


def test_lines_that_only_join_into_events_are_read_one_by_one():
    # Joined with commas the two lines would be one object; each alone is no JSON (the first one,
    # followed by another event, is refused, as the careful reader refuses it).
    raw = compact_sse(agent_created()) + b'data: {"type":"ping","x":[1\n\ndata: 2]}\n\n'
    assert error_of(raw + compact_sse(*agent_deltas("c"))).code == "truncated_json"


def test_a_named_stream_ending_in_done_is_read_without_it():
    raw = compact_sse(agent_created(), *agent_deltas("a"), names=True) + b"event: done\ndata: [DONE]\n\n"
    dump = read_dump(raw)
    assert dump.done_marker and [value["type"] for value in dump.values] == [
        "response.created",
        "response.output_text.delta",
    ]
