"""AWS's binary event stream: the real ConverseStream body decoded byte for byte, and every way a
message can be damaged, built here with a small encoder (built from provider-formats.md §6A, not
recorded; the encoder is checked against the recording first)."""

from __future__ import annotations

import json
import zlib
from typing import Any

import pytest

from citeview.core.common.errors import DumpError
from citeview.core.framing import eventstream, loads_strict, read_dump
from citeview.core.framing.eventstream import DamagedMessage, read_event_stream
from citeview.core.parsing.parse import parse_dump
from tests.conftest import SHARED_FIXTURES

RECORDED = SHARED_FIXTURES / "bedrock" / "bedrock-converse-document-char-sonnet45-stream.eventstream"
RECORDED_EVENTS = SHARED_FIXTURES / "bedrock" / "bedrock-converse-document-char-sonnet45-stream.chunks.json"
needs_recording = pytest.mark.skipif(not RECORDED.is_file(), reason="../shared/fixtures is not beside the project")


# --- A small encoder (the format of provider-formats.md §6A) ------------------------------------------


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One message: prelude and its CRC32, string headers (type 7), payload, the message's CRC32."""
    encoded = b"".join(
        bytes([len(name)]) + name.encode() + b"\x07" + len(value.encode()).to_bytes(2, "big") + value.encode()
        for name, value in headers.items()
    )
    prelude = (16 + len(encoded) + len(payload)).to_bytes(4, "big") + len(encoded).to_bytes(4, "big")
    body = prelude + zlib.crc32(prelude).to_bytes(4, "big") + encoded + payload
    return body + zlib.crc32(body).to_bytes(4, "big")


def compact(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def event_message(name: str, payload: Any) -> bytes:
    headers = {":event-type": name, ":content-type": "application/json", ":message-type": "event"}
    return encode_message(headers, payload if isinstance(payload, bytes) else compact(payload))


def exception_message(name: str, payload: dict[str, Any]) -> bytes:
    headers = {":exception-type": name, ":content-type": "application/json", ":message-type": "exception"}
    return encode_message(headers, compact(payload))


def event_stream(*events: dict[str, Any]) -> bytes:
    """Decoded events (``{name: payload}``) written back as the binary body."""
    return b"".join(event_message(*next(iter(e.items()))) for e in events)


def converse_events(text: str = "The museum opens at 9 am.", stop: str | None = "end_turn") -> list[dict[str, Any]]:
    half = text.index(" ", len(text) // 2 - 2) + 1  # "The museum " + "opens at 9 am."
    events: list[dict[str, Any]] = [
        {"messageStart": {"role": "assistant", "p": "abc"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": text[:half]}, "p": "ab"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": text[half:]}, "p": "abcd"}},
        {"contentBlockStop": {"contentBlockIndex": 0, "p": "a"}},
    ]
    if stop:
        events.append({"messageStop": {"stopReason": stop, "p": "abcdef"}})
    events.append({"metadata": {"usage": {"inputTokens": 9, "outputTokens": 7}, "metrics": {"latencyMs": 300}}})
    return events


def offsets_of(raw: bytes) -> list[int]:
    """Where each message of a well-formed stream starts."""
    found, offset = [], 0
    while offset < len(raw):
        found.append(offset)
        offset += int.from_bytes(raw[offset : offset + 4], "big")
    return found


def response_of(raw: bytes) -> dict[str, Any]:
    (response,) = parse_dump(raw).to_json()["responses"]
    return response


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


# --- The recording ---------------------------------------------------------------------------------------


@needs_recording
def test_the_recorded_body_decodes_to_the_recorded_events_with_both_checksums_verified():
    framed = read_dump(RECORDED.read_bytes())
    assert framed.framing == "eventstream" and not framed.cut_off and not framed.damaged
    assert framed.values == json.loads(RECORDED_EVENTS.read_text())


@needs_recording
def test_the_encoder_writes_the_recorded_bytes_exactly():
    assert event_stream(*json.loads(RECORDED_EVENTS.read_text())) == RECORDED.read_bytes()


@needs_recording
def test_the_binary_body_reads_as_its_decoded_events_do():
    binary = parse_dump(RECORDED.read_bytes()).to_json()
    decoded = parse_dump(RECORDED_EVENTS.read_bytes()).to_json()
    assert binary["dump"]["framing"] == "eventstream"
    assert binary["responses"] == decoded["responses"]
    response = binary["responses"][0]
    assert response["api"] == "bedrock.converse" and response["status"] == "completed" and response["streamed"]
    assert response["text"] == "The return window is thirty days from purchase."
    (citation,) = response["citations"]
    assert (citation["start"], citation["end"]) == (0, 47)
    assert citation["cited_text"] == "The return window is thirty days from purchase."


def test_a_binary_file_that_is_no_event_stream_is_still_refused_for_its_nul_bytes():
    with pytest.raises(DumpError) as caught:
        parse_dump(b"\x00\x00\x00\x20\x00\x00\x00\x00" + b"\x00" * 30)
    assert caught.value.code == "binary" and "NUL" in caught.value.message


def test_a_line_end_after_the_last_message_is_no_damage():
    response = response_of(event_stream(*converse_events()) + b"\n")
    assert response["status"] == "completed" and response["text"] == "The museum opens at 9 am."
    assert codes(response) == []


# --- Damage --------------------------------------------------------------------------------------------


def damaged(raw: bytes, message: int, position: int) -> bytes:
    """``raw`` with one byte of message ``message`` (1-based) flipped, ``position`` bytes into it."""
    at = offsets_of(raw)[message - 1] + position
    return raw[:at] + bytes([raw[at] ^ 0x01]) + raw[at + 1 :]


def damage_notes(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for d in response["diagnostics"] if d["code"] == "damaged_message"]


def test_a_message_whose_checksum_fails_is_skipped_and_named_by_number_and_byte():
    raw = event_stream(*converse_events())
    broken = damaged(raw, 3, 40)  # inside the second text delta
    response = response_of(broken)
    (note,) = damage_notes(response)
    assert note["severity"] == "warning"
    offsets = offsets_of(raw)
    assert note["details"] == {"message_number": 3, "byte_offset": offsets[2], "skipped_bytes": offsets[3] - offsets[2]}
    assert f"Message 3 of the AWS event stream (at byte {offsets[2]})" in note["message"]
    assert "checksum of the message" in note["message"]
    assert response["text"] == "The museum "  # the first half; the lost delta is not guessed
    assert response["status"] == "completed"  # messageStop came: the damage is said, the stop is the provider's


def test_a_damaged_prelude_is_skipped_up_to_the_next_message_whose_checksums_hold():
    raw = event_stream(*converse_events())
    offsets = offsets_of(raw)
    response = response_of(damaged(raw, 2, 1))  # the length itself
    (note,) = damage_notes(response)
    assert note["details"]["message_number"] == 2 and note["details"]["byte_offset"] == offsets[1]
    assert note["details"]["skipped_bytes"] == offsets[2] - offsets[1]
    assert "length prelude" in note["message"]
    assert response["text"] == "opens at 9 am."  # the second half: the first was in the lost message


def test_a_length_no_message_has_is_damage_even_when_its_checksum_holds():
    raw = event_stream(*converse_events())
    offsets = offsets_of(raw)
    second = raw[offsets[1] : offsets[2]]
    prelude = len(second).to_bytes(4, "big") + (len(second)).to_bytes(4, "big")  # headers longer than the message
    forged = prelude + zlib.crc32(prelude).to_bytes(4, "big") + second[12:]
    response = response_of(raw[: offsets[1]] + forged + raw[offsets[2] :])
    (note,) = damage_notes(response)
    assert note["details"]["message_number"] == 2 and "a length no message has" in note["message"]
    assert response["status"] == "completed"


def test_a_payload_that_is_not_json_is_skipped():
    events = converse_events()
    raw = (
        event_stream(events[0])
        + event_message("contentBlockDelta", b'{"contentBlockIndex":0,"delta":')
        + event_stream(*events[2:])
    )
    response = response_of(raw)
    (note,) = damage_notes(response)
    assert note["details"]["message_number"] == 2 and "payload (contentBlockDelta) is not JSON" in note["message"]


def test_headers_that_do_not_read_as_headers_are_damage():
    raw = encode_message({":event-type": "messageStart"}, b'{"role":"assistant"}')
    # A header value type that does not exist (type 42 instead of 7), checksums made to hold.
    body = bytearray(raw[:-4])
    body[12 + 1 + len(":event-type")] = 42
    broken = bytes(body) + zlib.crc32(bytes(body)).to_bytes(4, "big")
    response = response_of(broken + event_stream(*converse_events()[1:]))
    (note,) = damage_notes(response)
    assert note["details"]["message_number"] == 1 and "headers cannot be read" in note["message"]


def test_a_stream_cut_inside_its_last_message_is_incomplete_and_says_so():
    raw = event_stream(*converse_events(stop=None))
    response = response_of(raw[:-7])
    assert response["status"] == "incomplete"
    assert "truncated_event" in codes(response) and damage_notes(response) == []


def test_a_cut_after_message_stop_still_marks_the_stream_cut_off():
    raw = event_stream(*converse_events())
    response = response_of(raw[:-5])  # inside `metadata`
    assert response["status"] == "incomplete" and "truncated_event" in codes(response)


def test_a_damaged_prelude_with_no_message_after_it_ends_the_stream_cut_off():
    raw = event_stream(*converse_events())
    offsets = offsets_of(raw)
    response = response_of(damaged(raw, len(offsets), 2))
    (note,) = damage_notes(response)
    assert note["details"]["skipped_bytes"] == len(raw) - offsets[-1]
    assert "truncated_event" in codes(response)


def test_an_exception_message_fails_the_response_with_its_own_words():
    raw = event_stream(*converse_events(stop=None)[:3]) + exception_message(
        "modelStreamErrorException", {"message": "The model stream failed.", "originalStatusCode": 424}
    )
    response = response_of(raw)
    assert response["status"] == "failed"
    assert response["status_detail"] == "modelStreamErrorException: The model stream failed."


def test_an_error_message_fails_the_response_with_its_code():
    error = encode_message(
        {":message-type": "error", ":error-code": "InternalFailure", ":error-message": "Try again"}, b""
    )
    response = response_of(event_stream(*converse_events(stop=None)[:2]) + error)
    assert response["status"] == "failed" and response["status_detail"] == "InternalFailure: Try again"


def test_a_stream_of_nothing_readable_is_refused_with_the_reason():
    raw = damaged(event_stream(*converse_events()[:1]), 1, 20)
    with pytest.raises(DumpError) as caught:
        parse_dump(raw)
    assert caught.value.code == "binary" and "Message 1" in caught.value.message
    with pytest.raises(DumpError) as caught:
        parse_dump(event_stream(*converse_events()[:1])[:30])
    assert caught.value.code == "truncated_json" and "first message" in caught.value.message


def test_looking_for_the_next_message_after_damage_costs_in_proportion_to_the_dump(monkeypatch):
    """Forged preludes whose checksums hold, each claiming the rest of the dump: checking each whole
    would cost the square of the dump's size."""
    tail = bytearray()
    size = 200_000
    while len(tail) < size:
        remaining = size - len(tail)
        prelude = remaining.to_bytes(4, "big") + (0).to_bytes(4, "big")
        tail += prelude + zlib.crc32(prelude).to_bytes(4, "big") + b"\x00" * 4
    raw = b"\xff" * 12 + bytes(tail)
    hashed = 0

    class CountingZlib:
        @staticmethod
        def crc32(data: bytes) -> int:
            nonlocal hashed
            hashed += len(data)
            return zlib.crc32(data)

    monkeypatch.setattr(eventstream, "zlib", CountingZlib)
    stream = read_event_stream(raw, loads_strict)
    assert stream.cut_off and isinstance(stream.values[0], DamagedMessage)
    assert hashed < 20 * len(raw)  # checking every forged message whole: about len(raw) ** 2 / 32


def test_a_damaged_message_is_no_value_a_json_dump_can_forge():
    response = response_of(
        compact([{"messageStart": {"role": "assistant"}}, {}, {"messageStop": {"stopReason": "end_turn"}}])
    )
    assert damage_notes(response) == []


def test_the_framing_lists_what_was_damaged_beside_the_events():
    raw = event_stream(*converse_events())
    framed = read_dump(damaged(raw, 3, 40))
    (lost,) = framed.damaged
    assert (lost.number, lost.offset) == (3, offsets_of(raw)[2])
    assert framed.values[2] is lost and len(framed.values) == len(converse_events())


def test_a_knowledge_base_stream_as_its_binary_body_says_which_message_was_lost():
    text = "Employees may work remotely up to three days a week."
    events = [
        {"output": {"text": "Employees may work remotely"}},
        {"output": {"text": " up to three days a week."}},
        {
            "citation": {
                "generatedResponsePart": {"textResponsePart": {"text": text, "span": {"start": 0, "end": len(text)}}},
                "retrievedReferences": [
                    {
                        "content": {"text": "Up to three days a week."},
                        "location": {"type": "S3", "s3Location": {"uri": "s3://b/p.pdf"}},
                    }
                ],
            }
        },
        {"output": {"text": " Ask a day ahead."}},
    ]
    raw = event_stream(*events)
    whole = response_of(raw)
    assert whole["api"] == "bedrock.retrieve_and_generate" and whole["text"] == text + " Ask a day ahead."
    assert [(c["start"], c["end"]) for c in whole["citations"]] == [(0, len(text))]
    response = response_of(damaged(raw, 4, 30))
    assert response["api"] == "bedrock.retrieve_and_generate" and response["text"] == text
    (note,) = damage_notes(response)
    assert note["details"]["message_number"] == 4


def test_a_nul_in_a_header_never_reaches_what_is_stored():
    raw = event_stream(*converse_events()[:2]) + encode_message(
        {":event-type": "odd\x00name", ":message-type": "event"}, b"{}"
    )
    raw += encode_message({":message-type": "error", ":error-code": "Bad\x00Code", ":error-message": "m\x00"}, b"")
    stored = json.dumps(parse_dump(raw).to_json())
    assert "\\u0000" not in stored and "odd\\ufffdname" in stored


def test_the_raw_panel_shows_a_binary_body_as_its_events_never_its_bytes():
    from citeview.core.framing.pretty import pretty_dump_text

    raw = event_stream(*converse_events())
    second = offsets_of(raw)[1]
    text, shortened = pretty_dump_text(damaged(raw, 2, second + 20), "eventstream")
    assert not shortened and "\x00" not in text
    assert '"messageStart"' in text and "(message 2 at byte" in text and "could not be read)" in text
