"""AWS's binary event stream (``application/vnd.amazon.eventstream``), the body of Bedrock's
ConverseStream and RetrieveAndGenerateStream, read into the events the AWS SDKs decode it to.

A message is its total length and its headers' length (4 bytes each, big-endian), a CRC32 of
those 8 bytes (the prelude's), the headers, the payload, and a CRC32 of everything before it. A
header is its name's length (1 byte), the name, a type (1 byte) and a value of that type. An
``event`` message (``:message-type``) becomes ``{<:event-type>: <payload>}``, an ``exception``
``{<:exception-type>: <payload>}`` (``{"throttlingException": {"message": …}}``), an ``error``
``{"Error": {"Code": <:error-code>, "Message": <:error-message>}}`` as botocore reads it
(``../shared/docs/provider-formats.md`` §6A).

A message that cannot be read (a checksum that fails, a length no message has, a payload that is
not JSON) is skipped when the next message can still be found, and a :class:`DamagedMessage` stands
in its place among the events, so the parser of the stream around it says which message was lost.
When the next message cannot be found, the stream ends there, cut off.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from operator import add
from typing import Any

import msgspec

from citeview.core.common.errors import DumpError
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.framing.framed import MAX_DEPTH, DumpReading
from citeview.core.framing.source import PART_BYTES, DumpFile
from citeview.core.framing.strict_json import (
    DECODER,
    ENCODER,
    MAY_ESCAPE_COLON,
    count_braces,
    count_brackets,
    count_colons,
    loads_strict,
    may_nest_too_deep,
    refuse_deep,
)

PRELUDE_BYTES = 12  # total length, headers length, the prelude's CRC32
MIN_MESSAGE_BYTES = 16  # a prelude and the message's CRC32, no headers, no payload
# The format's limits: a payload of at most 16 MiB and headers of at most 128 KiB.
MAX_MESSAGE_BYTES = MIN_MESSAGE_BYTES + 16 * 1024 * 1024 + 128 * 1024
MAX_HEADERS_BYTES = 128 * 1024
# Looking for the next message after a damaged prelude checks the CRC of each candidate message;
# at most this many times the stream's size in bytes, so a stream of forged preludes stays linear.
RESYNC_BUDGET_FACTOR = 2

_WHITESPACE = re.compile(rb"\s*")
_HEADER_WIDTHS = {2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}  # fixed-width header value types, in bytes
_STRING = 7
_BYTES = 6


class DamagedMessage(dict[str, Any]):
    """A message that could not be read, where it stood among the stream's events. It is a dict so
    it travels with the events to the stream's parser, and of its own class so that no JSON value
    can pass for one."""

    def __init__(self, number: int, offset: int, reason: Phrase, skipped: int) -> None:
        super().__init__()
        self.number = number  # 1 for the stream's first message
        self.offset = offset  # the byte where it starts
        self.reason = reason
        self.skipped = skipped  # bytes left unread because of it

    def message(self) -> Phrase:
        return phrase(
            "Message {number} of the AWS event stream (at byte {offset}) could not be read: {reason}. "
            "It was skipped ({skipped} bytes); the messages after it are read.",
            number=self.number,
            offset=self.offset,
            reason=self.reason,
            skipped=self.skipped,
        )

    def details(self) -> dict[str, Any]:
        return {"message_number": self.number, "byte_offset": self.offset, "skipped_bytes": self.skipped}


@dataclass
class EventStream:
    """The events of a stream, in order, with a :class:`DamagedMessage` where one was lost."""

    values: list[dict[str, Any]] = field(default_factory=list)
    damaged: list[DamagedMessage] = field(default_factory=list)
    cut_off: bool = False  # the last message ends past the dump's end, or the next one was not found
    messages: int = 0  # the number of the last message read


def looks_like_event_stream(raw: bytes) -> bool:
    """Whether ``raw`` starts with a message prelude: a checksum that holds over its first 8 bytes
    (one chance in four billion for text) and lengths a message can have."""
    prelude = raw[:PRELUDE_BYTES]
    if len(prelude) < PRELUDE_BYTES or zlib.crc32(prelude[:8]) != int.from_bytes(prelude[8:], "big"):
        return False
    return _possible(int.from_bytes(prelude[:4], "big"), int.from_bytes(prelude[4:8], "big"))


def read_event_stream(
    raw: bytes, loads: Callable[[bytes], Any], *, start: int = 0, messages: int = 0, size: int | None = None
) -> EventStream:
    """Every message of ``raw`` as its event; ``loads`` reads a payload's JSON (the strict reader).
    ``raw`` may be the stream from ``start`` on, after ``messages`` messages, in a stream of ``size`` bytes
    (the budget of the search for the next message after a damaged one is the whole stream's)."""
    stream = EventStream()
    offset, number = 0, messages
    budget = RESYNC_BUDGET_FACTOR * (len(raw) if size is None else size) + MAX_HEADERS_BYTES
    while offset < len(raw):
        prelude = _prelude_at(raw, offset)
        if prelude is None and _WHITESPACE.fullmatch(raw, offset):
            break  # a line end a tool added after the last message
        number += 1
        if prelude is None:
            reason = _prelude_problem(raw, offset)
            if reason is None:  # a prelude that holds, or part of one: the dump ends inside the message
                stream.cut_off = True
                break
            found, budget = _next_message(raw, offset + 1, budget)
            _lose(stream, number, start + offset, reason, (len(raw) if found is None else found) - offset)
            if found is None:
                stream.cut_off = True
                break
            offset = found
            continue
        total, headers_length = prelude
        message = raw[offset : offset + total]
        if zlib.crc32(message[:-4]) != int.from_bytes(message[-4:], "big"):
            reason = phrase("the checksum of the message does not match its bytes")
            _lose(stream, number, start + offset, reason, total)
        else:
            _read_message(stream, number, start + offset, message, headers_length, loads)
        offset += total
    stream.messages = number
    return stream


def _lose(stream: EventStream, number: int, offset: int, reason: Phrase, skipped: int) -> None:
    damaged = DamagedMessage(number, offset, reason, skipped)
    stream.values.append(damaged)
    stream.damaged.append(damaged)


def _prelude_at(raw: bytes, offset: int) -> tuple[int, int] | None:
    """The total and headers lengths of the message at ``offset``, when its prelude's checksum holds,
    its lengths are possible and the whole message is in ``raw``."""
    prelude = raw[offset : offset + PRELUDE_BYTES]
    if len(prelude) < PRELUDE_BYTES or zlib.crc32(prelude[:8]) != int.from_bytes(prelude[8:], "big"):
        return None
    total, headers_length = int.from_bytes(prelude[:4], "big"), int.from_bytes(prelude[4:8], "big")
    if not _possible(total, headers_length) or offset + total > len(raw):
        return None
    return total, headers_length


def _possible(total: int, headers_length: int) -> bool:
    return MIN_MESSAGE_BYTES <= total <= MAX_MESSAGE_BYTES and headers_length <= min(
        MAX_HEADERS_BYTES, total - MIN_MESSAGE_BYTES
    )


def _prelude_problem(raw: bytes, offset: int) -> Phrase | None:
    """Why the prelude at ``offset`` is no message's; None when it is one that runs past the end."""
    prelude = raw[offset : offset + PRELUDE_BYTES]
    if len(prelude) < PRELUDE_BYTES:
        return None  # the dump ends inside a prelude: cut off
    if zlib.crc32(prelude[:8]) != int.from_bytes(prelude[8:], "big"):
        return phrase("the checksum of its length prelude does not match")
    total, headers_length = int.from_bytes(prelude[:4], "big"), int.from_bytes(prelude[4:8], "big")
    if not _possible(total, headers_length):
        return phrase(
            "its prelude gives a length no message has ({total} bytes, {headers} of headers)",
            total=total,
            headers=headers_length,
        )
    return None


# Where a message may start: a total length of 16 bytes to a little over 16 MiB (its top byte 0 or 1),
# then a headers length under 128 KiB. JSON text holds neither byte 0 nor byte 1, so after a damaged
# prelude the search for the next message passes over text at the regular-expression engine's speed.
_MESSAGE_START = re.compile(
    rb"(?:\x00(?:[\x01-\xff]..|\x00[\x01-\xff].|\x00\x00[\x10-\xff])|\x01[\x00-\x02]..)\x00[\x00-\x02]..", re.DOTALL
)


def _next_message(raw: bytes, start: int, budget: int) -> tuple[int | None, int]:
    """The offset of the next whole message whose two checksums hold, at or after ``start``, and the
    budget left. A prelude's checksum is cheap; a message's costs its length, hence the budget."""
    candidate = _MESSAGE_START.search(raw, start)
    while candidate is not None:
        offset = candidate.start()
        prelude = _prelude_at(raw, offset)
        if prelude is not None:
            total = prelude[0]
            if budget < total:
                return None, 0
            budget -= total
            end = offset + total
            if zlib.crc32(raw[offset : end - 4]) == int.from_bytes(raw[end - 4 : end], "big"):
                return offset, budget
        candidate = _MESSAGE_START.search(raw, offset + 1)
    return None, budget


def _read_message(
    stream: EventStream, number: int, offset: int, message: bytes, headers_length: int, loads: Callable[[bytes], Any]
) -> None:
    headers = message_headers(message[PRELUDE_BYTES : PRELUDE_BYTES + headers_length])
    if headers is None:
        _lose(stream, number, offset, phrase("its headers cannot be read"), len(message))
        return
    payload = message[PRELUDE_BYTES + headers_length : -4]
    kind = headers.get(":message-type")
    if kind == "error":
        error = {"Code": _text(headers.get(":error-code")), "Message": _text(headers.get(":error-message"))}
        stream.values.append({"Error": error})
        return
    name = headers.get(":event-type") if kind == "event" else headers.get(":exception-type")
    if kind not in ("event", "exception") or not isinstance(name, str) or not name:
        reason = phrase(
            "it is a message of type {type} without an event or exception name", type=_text(kind) or "(none)"
        )
        _lose(stream, number, offset, reason, len(message))
        return
    try:
        value = loads(payload) if payload.strip() else {}
    except (ValueError, RecursionError):
        _lose(stream, number, offset, phrase("its payload ({event}) is not JSON", event=name), len(message))
        return
    stream.values.append({name: value})


def message_headers(data: bytes) -> dict[str, Any] | None:
    """The headers of a message by name, or None when they do not read as headers. Only strings
    (``:event-type`` and the others) are kept as values; other types are skipped over."""
    headers: dict[str, Any] = {}
    position = 0
    while position < len(data):
        name_length = data[position]
        name_end = position + 1 + name_length
        if name_length == 0 or name_end >= len(data):
            return None
        try:
            name = data[position + 1 : name_end].decode("utf-8")
        except UnicodeDecodeError:
            return None
        kind = data[name_end]
        position = name_end + 1
        if kind in (0, 1):  # true, false: no value bytes
            headers[name] = kind == 0
        elif kind in _HEADER_WIDTHS:
            position += _HEADER_WIDTHS[kind]
        elif kind in (_BYTES, _STRING):
            if position + 2 > len(data):
                return None
            length = int.from_bytes(data[position : position + 2], "big")
            value = data[position + 2 : position + 2 + length]
            if len(value) < length:
                return None
            position += 2 + length
            if kind == _STRING:
                try:
                    # A NUL is valid UTF-8 but no database keeps it in text: shown as U+FFFD, as in JSON strings.
                    headers[name] = value.decode("utf-8").replace("\x00", "\ufffd")
                except UnicodeDecodeError:
                    return None
        else:
            return None
        if position > len(data):
            return None
    return headers


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# --- The stream as framing reads it ---------------------------------------------------------------


def event_stream_values(source: DumpFile, reading: DumpReading) -> Iterator[list[Any]]:
    """The events of a stream, the messages of about ``PART_BYTES`` of it at a time. A part of whole
    messages as AWS sends them is read in C, each header block once, the payloads proven together as
    a stream's events are (``_plain_events``); any other part by ``read_event_stream``, which says what
    is wrong. From a message whose prelude does not hold (damaged, or cut off) the rest of the stream
    is read at once: finding the next message may take looking through all of it."""
    messages, readable = 0, False
    while True:
        start = source.offset
        part = _messages_part(source)
        raw, values, more = part.raw, part.values(), part.more
        del part
        if more:
            raw += source.rest()
        if values is None:
            stream = read_event_stream(
                raw, loads_strict, start=start, messages=messages, size=start + len(raw) if more else None
            )
            if raw.count(b"{") + raw.count(b"[") > MAX_DEPTH:  # (a value nests no deeper than it has brackets)
                refuse_deep(stream.values)
            values, messages = stream.values, stream.messages
            reading.damaged += stream.damaged
            reading.cut_off = reading.cut_off or stream.cut_off
        else:
            messages += len(values)
        readable = readable or any(not isinstance(value, DamagedMessage) for value in values)
        if values:
            yield reading.repaired(values, raw)
        del values, raw
        if more or source.at_end():
            break
    if not readable:
        raise _none_readable(reading.damaged)


def _none_readable(damaged: list[DamagedMessage]) -> DumpError:
    if damaged:
        return DumpError(
            "binary",
            phrase(
                "This is an AWS event stream (the body of a Bedrock stream), but none of its messages can be "
                "read. {first}",
                first=damaged[0].message(),
            ),
        )
    return DumpError(
        "truncated_json",
        phrase(
            "This is an AWS event stream (the body of a Bedrock stream) that ends inside its first message: "
            "it looks cut off."
        ),
    )


@dataclass
class _MessagesPart:
    """The next whole messages of a stream whose preludes hold, about ``PART_BYTES`` of them, and
    whether more of it follows them that does not start so (a damaged prelude, a cut, a line end
    after the last). ``names`` and ``payloads`` are each message's event name and payload while the
    messages are as AWS sends them; ``payloads`` is None from one that is not."""

    raw: bytes
    more: bool
    names: list[str]
    payloads: list[bytes] | None

    def values(self) -> list[Any] | None:
        """The events of the part's messages, read as ``read_event_stream`` reads them; None at anything
        else (a damaged message, an error message, a payload ``json`` must read), and when more follows."""
        if self.more or self.payloads is None:
            return None
        return _plain_events(self.names, self.payloads)


def _messages_part(source: DumpFile) -> _MessagesPart:
    """Take the next part of whole messages from ``source``, each split into its event's name (each
    header block read once) and payload on the way: one walk, written out (no calls but C's), as it
    runs per message of streams of hundreds of thousands."""
    window = source.peek(PART_BYTES)
    size = len(window)
    names_by_headers: dict[bytes, str | None] = {}
    names: list[str] = []
    payloads: list[bytes] | None = []
    more = False
    length = 0
    while length < PART_BYTES:
        if size < length + PRELUDE_BYTES:
            window = source.peek(length + PRELUDE_BYTES)
            size = len(window)
            if size == length:
                break  # the stream's end
        prelude = window[length : length + PRELUDE_BYTES]
        if len(prelude) < PRELUDE_BYTES or zlib.crc32(prelude[:8]) != int.from_bytes(prelude[8:]):
            more = True
            break
        total, headers_length = int.from_bytes(prelude[:4]), int.from_bytes(prelude[4:8])
        if not MIN_MESSAGE_BYTES <= total <= MAX_MESSAGE_BYTES or headers_length > min(
            MAX_HEADERS_BYTES, total - MIN_MESSAGE_BYTES
        ):
            more = True
            break
        end = length + total
        if size < end:
            window = source.peek(end)
            size = len(window)
            if size < end:
                more = True
                break
        if payloads is not None:
            message = window[length:end]
            headers = message[PRELUDE_BYTES : PRELUDE_BYTES + headers_length]
            if headers not in names_by_headers:
                names_by_headers[headers] = _event_name_of(headers)
            name = names_by_headers[headers]
            if name is None or zlib.crc32(message[:-4]) != int.from_bytes(message[-4:]):
                payloads = None
            else:
                names.append(name)
                payloads.append(message[PRELUDE_BYTES + headers_length : -4])
        length = end
    return _MessagesPart(source.take(length), more, names, payloads)


def _event_name_of(headers: bytes) -> str | None:
    """The event (or exception) a message's headers name, as ``read_event_stream`` reads them; None
    for headers it would not read as one event's."""
    fields = message_headers(headers)
    if fields is None:
        return None
    kind = fields.get(":message-type")
    name = fields.get(":event-type") if kind == "event" else fields.get(":exception-type")
    return name if kind in ("event", "exception") and isinstance(name, str) and name else None


def _plain_events(names: list[str], payloads: list[bytes]) -> list[Any] | None:
    if not payloads or any(not payload.strip() for payload in payloads):
        return None  # (an empty payload is read as {} by the careful reader)
    try:
        decoded = list(map(DECODER.decode, payloads))
    except (msgspec.DecodeError, RecursionError):
        return None
    if ENCODER.encode(decoded).count(b":") != sum(map(count_colons, payloads)) or any(
        MAY_ESCAPE_COLON in payload for payload in payloads
    ):
        return None
    # Each payload becomes the value of its event's one key: a level deeper than it is alone.
    brackets = map(add, map(count_braces, payloads), map(count_brackets, payloads))
    if any(
        may_nest_too_deep(payload, MAX_DEPTH - 1)
        for payload, n in zip(payloads, brackets, strict=True)
        if n > MAX_DEPTH - 1
    ):
        return None
    return [{name: value} for name, value in zip(names, decoded, strict=True)]
