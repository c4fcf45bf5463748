"""Server-sent events, read from the file a part at a time: a part laid out as servers write it read
and proven in C, any other as the WHATWG spec reads it (comments, data over several lines, CR line
ends, a cut)."""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from itertools import repeat
from typing import Any, NamedTuple

import msgspec
import orjson

from citeview.core.common.errors import DumpError
from citeview.core.common.phrases import phrase
from citeview.core.framing.framed import LINE_BREAK, MAX_DEPTH, DumpReading, decode_dump_text
from citeview.core.framing.jsonl import each_line_alone
from citeview.core.framing.source import PART_BYTES, DumpFile
from citeview.core.framing.strict_json import (
    DECODER,
    MAY_ESCAPE_COLON,
    json_error,
    loads_strict,
    refuse_deep,
    written_proof,
)

SSE_FIELD_LINE = re.compile(r"^(data|event|id|retry)?:")


# One event per `data:` line, ended by a blank line, perhaps named by an `event:` line before it:
# streams as servers write them. Split on this, a whole stream is framed in C; a comment, an `id:`,
# data over several lines, CR line ends or a cut leave a gap between events for the careful reader.
# An event starts a line (``(?<![^\n])``): a line of 10,000 "event:" is read once, not from each.
_SIMPLE_SSE_EVENT = re.compile(
    rb"(?<![^\n])(?:event: ?([^\r\n]*)\r?\n)?data: ?([^\r\n]*)(?:(?:\r?\n){2,}|(?:\r?\n)?\Z)"
)


def sse_values(source: DumpFile, reading: DumpReading) -> Iterator[list[Any]]:
    """The values of an SSE stream, a part of the file at a time (``PART_BYTES`` of it, cut after a
    blank line, so at an event's end): a part laid out as servers write it is read and proven in C,
    any other part the careful way (``_CarefulSse``), which says what is wrong. Raises the
    :class:`DumpError` reading the stream whole would: of the problems the stream has, the one that
    reading would meet first, whichever part it is in (``_first_said``)."""
    careful = _CarefulSse(reading)
    given, first = 0, True
    simple_alone = False  # the stream is one event read by ``_simple_part``, perhaps of no value
    while not source.at_end():
        offset = source.offset
        part = source.take_through(b"\n\n", PART_BYTES)
        last = source.at_end()
        if first and part.startswith(codecs.BOM_UTF8):  # a byte-order mark carries no content
            part, offset = part[3:], offset + 3
        try:
            values, how = _read_part(part, offset, last, careful, reading)
        except DumpError as error:
            raise _first_said(error, part, offset, last, source, careful) from None
        simple_alone = first and last and how == "simple"
        first = False
        given += len(values)
        yield reading.repaired(values, part)
        del values, part  # (before the next part is read: one part's values at a time)
    if careful.pending_error is not None:
        reading.cut_off = True  # only the last event may be broken: the stream was cut there
    if not given and not simple_alone:
        raise DumpError("invalid_sse", phrase("The event stream holds no events with JSON data."))


def _read_part(
    part: bytes, offset: int, last: bool, careful: _CarefulSse, reading: DumpReading
) -> tuple[list[Any], str]:
    """A part's values, and which reader read them."""
    values: list[Any] | None = None
    if careful.pending_error is None:  # (after an unreadable event, the careful reader says what follows)
        read = _read_lined_part(part, last=last) if _may_be_lined(part) else None
        if read is not None and read.values:
            reading.done_marker = reading.done_marker or read.done_marker
            careful.lines += read.lines
            return read.values, "lined"  # (proven no deeper than MAX_DEPTH)
        values = _simple_part(part, reading)
    how = "simple"
    if values is None:
        text, cut_in_character = decode_dump_text(part, offset)
        reading.cut_off = reading.cut_off or cut_in_character
        values, how = careful.read(text, last=last), "careful"
        careful.read_up_to = offset + len(part)
    else:
        careful.skip(part)
    if part.count(b"{") + part.count(b"[") > MAX_DEPTH:  # (a value nests no deeper than it has brackets)
        refuse_deep(values)
    return values, how


def _first_said(
    error: DumpError, part: bytes, offset: int, last: bool, source: DumpFile, careful: _CarefulSse
) -> DumpError:
    """Of ``error`` (met in ``part``) and the problems of the parts after it, the one reading the whole
    stream says: text that is not UTF-8 first (the whole stream is decoded before it is read), then
    an event that cannot be read, then a value nested too deeply (the values are walked once read)."""
    if error.code == "not_utf8":
        return error
    events_read = error.code != "too_deep"  # else what is left to read may hold an unreadable event
    if not events_read and careful.read_up_to < offset + len(part):  # (a fast reader read the part)
        events_read, error = _careful_error(careful, part, offset, last, error)
    while not source.at_end():
        offset = source.offset
        part = source.take_through(b"\n\n", PART_BYTES)
        last = source.at_end()
        if not events_read:
            events_read, error = _careful_error(careful, part, offset, last, error)
        else:
            decode_dump_text(part, offset)  # raises for text that is not UTF-8
    return error


def _careful_error(
    careful: _CarefulSse, part: bytes, offset: int, last: bool, error: DumpError
) -> tuple[bool, DumpError]:
    """Whether ``part`` read carefully holds an unreadable event, and the error to say."""
    text, _ = decode_dump_text(part, offset)  # raises for text that is not UTF-8
    try:
        careful.read(text, last=last)
    except DumpError as unreadable:
        return True, unreadable
    careful.read_up_to = offset + len(part)
    return False, error


def _simple_part(raw: bytes, reading: DumpReading) -> list[Any] | None:
    """The values of a part whose every event is one ``data:`` line (perhaps after one ``event:``
    line), split by a regular expression and decoded by orjson; None at anything else."""
    parts = _SIMPLE_SSE_EVENT.split(raw)
    if len(parts) < 4 or any(parts[0::3]):
        return None
    names, payloads = parts[1::3], parts[2::3]
    done_marker = payloads[-1].strip() == b"[DONE]"
    if done_marker:
        del names[-1], payloads[-1]
    try:
        values = _proven_events(list(map(orjson.loads, payloads)), payloads)
        for name in names:
            if name is not None:
                name.decode("utf-8")  # (an event's name read as the careful reader reads it)
    except (ValueError, RecursionError, orjson.JSONEncodeError):  # decoding errors are ValueErrors
        return None  # the careful reader says which event is wrong, or reads a cut stream
    reading.done_marker = reading.done_marker or done_marker
    return values


def _may_be_lined(raw: bytes) -> bool:
    return not (b"\r" in raw or MAY_ESCAPE_COLON in raw or not raw.endswith(b"\n\n"))


class _LinedPart(NamedTuple):
    values: list[Any]
    done_marker: bool  # the stream ended (the part is its last) with ``data: [DONE]``
    lines: int  # how many lines the part holds


def _read_lined_part(raw: bytes, *, last: bool) -> _LinedPart | None:
    """The values of a part of a stream laid out as servers write it, read without a regular
    expression: every event one ``data: `` line, each perhaps after one ``event: `` line, each
    followed by a blank line, ``\\n`` line ends. The lines are split and each field told by its place
    in C; the events are read by ``_proven_json``'s reader and proven all at once. None when the part
    is laid out otherwise or anything in it needs a slower reader."""
    if raw.startswith(b"event: "):
        lines = raw.split(b"\n")
        line_count = len(lines) - 1
        count, rest = divmod(line_count, 3)  # (event, data, blank) per event, and the last line end
        if rest or not count or any(lines[2:-1:3]):
            return None
        data, names_text = b"\n".join(lines[1:-1:3]), b"\n".join(lines[0:-1:3])
        del lines  # (each copy of the stream is let go as soon as the next is made: a dump's memory is bounded)
        # No line holds a line end: each starts with its field's name when the joined lines hold it so often.
        if not (names_text.startswith(b"event: ") and names_text.count(b"\nevent: ") == count - 1):
            return None
        try:
            names: list[str | None] = list(names_text[7:].decode("utf-8").split("\nevent: "))
        except UnicodeDecodeError:
            return None
        if not (data.startswith(b"data: ") and data.count(b"\ndata: ") == count - 1):
            return None
        colons = data.count(b":")
        payloads = data[6:].split(b"\ndata: ")
        del data
    else:
        if not raw.startswith(b"data: "):
            return None
        payloads = raw[6:-2].split(b"\n\ndata: ")
        count = len(payloads)
        line_count = 2 * count
        # Only the line ends around the blank lines, so each event is one line, its data.
        if raw.count(b"\n") != line_count:
            return None
        names = [None] * count
        colons = raw.count(b":")
    done_marker = last and payloads[-1].strip() == b"[DONE]"
    if done_marker:
        del payloads[-1], names[-1]
    large = _large_events(payloads)
    try:
        values = _decoded_letting_go(payloads)
    except (msgspec.DecodeError, RecursionError):
        return None
    # Each data line's colon is its field's; the others are the payloads'.
    if not _events_proven(values, colons - count, large):
        return None
    return _LinedPart(values, done_marker, line_count)


def _decoded_letting_go(payloads: list[Any]) -> list[Any]:
    """Each payload decoded, a batch at a time, each batch's bytes let go once decoded (its places
    in ``payloads`` emptied): a stream's bytes and their values are never all held together."""
    values: list[Any] = []
    for start in range(0, len(payloads), _PROOF_BATCH):
        batch = payloads[start : start + _PROOF_BATCH]
        payloads[start : start + len(batch)] = repeat(None, len(batch))
        values.extend(map(DECODER.decode, batch))
    return values


def _large_events(payloads: list[bytes]) -> set[int]:
    """The places of the payloads over ``_LARGE_EVENT_BYTES``, looked for a batch at a time (the sum
    in C): most batches hold none."""
    large: set[int] = set()
    for start in range(0, len(payloads), _PROOF_BATCH):
        batch = payloads[start : start + _PROOF_BATCH]
        if sum(map(len, batch)) > _LARGE_EVENT_BYTES:
            large.update(start + i for i, payload in enumerate(batch) if len(payload) > _LARGE_EVENT_BYTES)
    return large


def _events_proven(values: list[Any], payload_colons: int, large: set[int]) -> bool:
    """Whether the events read hold every key their payloads do (``_proven_json``'s proof) and nest
    no deeper than ``MAX_DEPTH``: written indented, a batch of events at a time (so the writing
    stays small), the events' own members start four spaces in, a value n levels deep 2n in. A
    large event (a stream's last, repeating the whole answer) is written a piece at a time."""
    too_deep = b"\n" + b" " * (2 * MAX_DEPTH + 2)
    colons = 0
    for start in range(0, len(values), _PROOF_BATCH):
        batch = values[start : start + _PROOF_BATCH]
        for index in sorted((i for i in large if start <= i < start + _PROOF_BATCH), reverse=True):
            event_colons, event_too_deep = written_proof(batch.pop(index - start))
            if event_too_deep:
                return False
            colons += event_colons
        try:
            written = orjson.dumps(batch, option=orjson.OPT_INDENT_2)
        except orjson.JSONEncodeError:  # an integer beyond 64 bits, or nesting beyond orjson's reach
            return False
        if too_deep in written:
            return False
        colons += written.count(b":")
    return colons == payload_colons


_PROOF_BATCH = 1000  # events proven per call: few calls, and the copies made for it stay small


_LARGE_EVENT_BYTES = 64 * 1024  # an event this large is proven a piece at a time (written_proof)


def _proven_events(values: list[Any], payloads: list[bytes]) -> list[Any]:
    """``_proven_json``'s proof for events orjson decoded, a batch per call; an event of a batch that
    fails it is read again by ``loads_strict``."""
    for start in range(0, len(values), _PROOF_BATCH):
        end = min(start + _PROOF_BATCH, len(values))
        if orjson.dumps(values[start:end]) == b"[" + b",".join(payloads[start:end]) + b"]":
            continue
        for index in range(start, end):
            if orjson.dumps(values[index]) != payloads[index]:
                values[index] = loads_strict(payloads[index])
    return values


def looks_like_sse(stripped: str) -> bool:
    first_line = LINE_BREAK.split(stripped, maxsplit=1)[0]
    return bool(SSE_FIELD_LINE.match(first_line))


class _CarefulSse:
    """SSE read as the WHATWG spec reads it (a blank line ends an event, ``:`` starts a comment), fed
    the text of a part of the stream at a time. An event that cannot be read is said when another
    follows it; the last may be cut off."""

    def __init__(self, reading: DumpReading) -> None:
        self.reading = reading
        self.name: str | None = None
        self.data: list[str] = []
        self.start_line = 1
        self.lines = 0  # the lines of the parts before
        self.pending_error: DumpError | None = None
        self.read_up_to = 0  # the byte after the last part it read

    def skip(self, part: bytes) -> None:
        """Count the lines of a part another reader read (each ends at a blank line)."""
        self.lines += part.count(b"\n") + part.count(b"\r") - part.count(b"\r\n")

    def read(self, text: str, *, last: bool) -> list[Any]:
        values: list[Any] = []
        lines = LINE_BREAK.split(text)
        for number, line in enumerate(lines, self.lines + 1):
            if not line:
                self._dispatch(values)
                continue
            if line.startswith(":"):
                continue
            field_name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if not self.data and self.name is None:
                self.start_line = number
            if field_name == "data":
                self.data.append(value)
            elif field_name == "event":
                self.name = value
        self.lines += len(lines) - 1
        if last:
            self._dispatch(values)
        return values

    def _dispatch(self, values: list[Any]) -> None:
        payload = "\n".join(self.data)
        lines_of_event = self.data
        self.name, self.data = None, []
        if not payload.strip():
            return
        if self.pending_error is not None:  # an unreadable event followed by another one
            raise self.pending_error
        if payload.strip() == "[DONE]":
            self.reading.done_marker = True
            return
        try:
            values.append(loads_strict(payload))
        except (ValueError, RecursionError) as exc:
            separate = each_line_alone(lines_of_event)
            if separate is None:
                where = phrase("The data of the event at line {line}", line=self.start_line)
                self.pending_error = json_error(exc, payload, where)
                return
            # Saved without the blank lines between events: each data line is an event of its own.
            values.extend(separate)
